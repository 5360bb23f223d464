package study

import (
	"fmt"
	"math"
	"testing"
)

func TestFitLogLogExactPowerLaws(t *testing.T) {
	for _, c := range []struct{ a, b float64 }{{3, -0.5}, {0.7, 1.3}, {1, 0}, {12.5, -1}} {
		var x, y []float64
		for e := 4; e <= 14; e++ {
			v := math.Ldexp(1, e)
			x = append(x, v)
			y = append(y, c.a*math.Pow(v, c.b))
		}
		f, err := FitLogLog(x, y)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(f.Slope-c.b) > 1e-12 || math.Abs(f.Intercept-math.Log(c.a)) > 1e-11 || f.SlopeSE > 1e-12 ||
			math.Abs(f.R2-1) > 1e-12 || f.N != 11 {
			t.Errorf("y = %g·x^%g: fit %+v", c.a, c.b, f)
		}
	}
}

func TestFitLineByHand(t *testing.T) {
	// x = (0, 1, 2), y = (0, 2, 1): x̄ = ȳ = 1, Sxx = 2, Sxy = (−1)(−1) + 0 + (1)(0) = 1, so b = 1/2, a = 1/2.
	// Residuals −1/2, 1, −1/2: SSE = 3/2; Syy = 2, R² = 1 − 3/4 = 1/4; SE(b) = √(SSE/(n−2)/Sxx) = √(3/4).
	f, err := FitLine([]float64{0, 1, 2}, []float64{0, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	want := Fit{Slope: 0.5, Intercept: 0.5, SlopeSE: math.Sqrt(0.75), R2: 0.25, N: 3}
	if math.Abs(f.Slope-want.Slope) > 1e-15 || math.Abs(f.Intercept-want.Intercept) > 1e-15 ||
		math.Abs(f.SlopeSE-want.SlopeSE) > 1e-15 || math.Abs(f.R2-want.R2) > 1e-15 || f.N != 3 {
		t.Errorf("fit %+v, want %+v", f, want)
	}
	// Two points: exact, no standard error.
	if f, err := FitLine([]float64{1, 3}, []float64{2, 6}); err != nil || f.Slope != 2 || f.Intercept != 0 ||
		f.SlopeSE != 0 || f.R2 != 1 {
		t.Errorf("two points: %+v, %v", f, err)
	}
	for _, c := range []struct {
		name string
		x, y []float64
		log  bool
	}{
		{"lengths", []float64{1, 2}, []float64{1}, false},
		{"one point", []float64{1}, []float64{1}, false},
		{"equal x", []float64{2, 2, 2}, []float64{1, 2, 3}, false},
		{"NaN", []float64{1, 2}, []float64{math.NaN(), 1}, false},
		{"Inf", []float64{1, math.Inf(1)}, []float64{1, 1}, false},
		{"zero on log axis", []float64{1, 2}, []float64{0, 1}, true},
		{"negative on log axis", []float64{-1, 2}, []float64{1, 1}, true},
	} {
		fit := FitLine
		if c.log {
			fit = FitLogLog
		}
		if _, err := fit(c.x, c.y); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// Fitting a power law: the exponent of y = 2·x^{−1/2} is recovered exactly.
func ExampleFitLogLog() {
	x := []float64{16, 64, 256, 1024}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = 2 / math.Sqrt(v)
	}
	f, err := FitLogLog(x, y)
	if err != nil {
		panic(err)
	}
	fmt.Printf("slope %.3f, e^intercept %.3f, R² %.3f\n", f.Slope, math.Exp(f.Intercept), f.R2)
	// Output: slope -0.500, e^intercept 2.000, R² 1.000
}

// A least-squares line with the standard error of its slope.
func ExampleFitLine() {
	f, err := FitLine([]float64{0, 1, 2}, []float64{0, 2, 1})
	if err != nil {
		panic(err)
	}
	fmt.Printf("y = %.2f + %.2f·x, SE(slope) %.3f, R² %.2f\n", f.Intercept, f.Slope, f.SlopeSE, f.R2)
	// Output: y = 0.50 + 0.50·x, SE(slope) 0.866, R² 0.25
}
