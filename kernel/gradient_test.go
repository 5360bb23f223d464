package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestGradientMatchesDeriv: every coordinate of Gradient is Deriv with p = e_j — the Gaussian's bit for bit
// wherever Deriv's value is a normal float, the Cauchy and Matérn kernels' within the rounding of their closed
// forms: relative error (d + 8)·2⁻⁵² for the product of d Cauchy factors, and for the Matérn kernels the exponential's
// amplification t·(d/2 + 2)·2⁻⁵³ of the error of t = a·r besides.
func TestGradientMatchesDeriv(t *testing.T) {
	kernels := []Kernel{Gaussian{S: 0.7}, Gaussian{S: 0.05}, Cauchy{S: 1.3}, Matern{Nu: 1.5, S: 0.9}, Matern{Nu: 2.5, S: 1.1}}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range kernels {
		for _, d := range []int{1, 3, 40} {
			for _, scale := range []float64{0, 0.1, 1, 5, 60} {
				t.Run(fmt.Sprintf("%s/S=%g/d=%d/scale=%g", k.Name(), k.(interface{ Sigma() float64 }).Sigma(), d, scale), func(t *testing.T) {
					x, y := make([]float64, d), make([]float64, d)
					for i := range x {
						x[i] = rng.NormFloat64()
						y[i] = x[i] + scale*rng.NormFloat64()/math.Sqrt(float64(d))
					}
					if d > 1 {
						y[1] = x[1] // one coordinate where δ_j = 0
					}
					got := make([]float64, d)
					if err := Gradient(k, got, x, y); err != nil {
						t.Fatal(err)
					}
					p := make([]int, d)
					for j := range d {
						p[j] = 1
						want, err := Deriv(k, x, y, p, nil)
						p[j] = 0
						if err != nil {
							t.Fatal(err)
						}
						var tol float64
						switch kk := k.(type) {
						case Gaussian:
							if math.Abs(want) >= 0x1p-1022 || want == 0 {
								if math.Float64bits(got[j]) != math.Float64bits(want) && !(got[j] == 0 && want == 0) {
									t.Fatalf("∂/∂x_%d: %v, Deriv %v (bits)", j, got[j], want)
								}
								continue
							}
							tol = 0x1p-1074
						case Cauchy:
							tol = float64(d+8) * 0x1p-52 * math.Abs(want)
						case Matern:
							var s2 float64
							for i := range x {
								s2 += (x[i] - y[i]) * (x[i] - y[i])
							}
							tt := math.Sqrt(2*kk.Nu) / kk.S * math.Sqrt(s2)
							tol = (float64(d+8)*0x1p-52 + tt*float64(d/2+2)*0x1p-53) * math.Abs(want)
						}
						if math.Abs(got[j]-want) > tol {
							t.Fatalf("∂/∂x_%d: %v, Deriv %v (± %.3g)", j, got[j], want, tol)
						}
					}
				})
			}
		}
	}
}

// TestGradientErrors: Deriv's errors, and no derivative where the kernel has none.
func TestGradientErrors(t *testing.T) {
	x, y := []float64{1, 2}, []float64{0, 1}
	for _, c := range []struct {
		name      string
		k         Kernel
		dst, x, y []float64
	}{
		{"nil kernel", nil, make([]float64, 2), x, y},
		{"laplacian", Laplacian{S: 1}, make([]float64, 2), x, y},
		{"matern12", Matern{Nu: 0.5, S: 1}, make([]float64, 2), x, y},
		{"arccos", ArcCos{Order: 1}, make([]float64, 2), x, y},
		{"short y", Gaussian{S: 1}, make([]float64, 2), x, y[:1]},
		{"short dst", Gaussian{S: 1}, make([]float64, 1), x, y},
		{"empty", Gaussian{S: 1}, nil, nil, nil},
	} {
		if err := Gradient(c.k, c.dst, c.x, c.y); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// TestGradientRange: where the kernel's value is below the normal range but the derivative is not (a tiny σ), the
// coordinate is Deriv's, not the product of a subnormal value that lost its precision.
func TestGradientRange(t *testing.T) {
	for _, c := range []struct {
		k    Kernel
		x, y []float64
	}{
		{Gaussian{S: 1e-10}, []float64{38e-10}, []float64{0}},       // k = e^{−722}, a subnormal; ∂k ≈ −1e−302
		{Gaussian{S: 1e-10}, []float64{0, 38e-10}, []float64{0, 0}}, // the same in the second coordinate
	} {
		got := make([]float64, len(c.x))
		if err := Gradient(c.k, got, c.x, c.y); err != nil {
			t.Fatal(err)
		}
		p := make([]int, len(c.x))
		for j := range got {
			p[j] = 1
			want, err := Deriv(c.k, c.x, c.y, p, nil)
			p[j] = 0
			if err != nil {
				t.Fatal(err)
			}
			if math.Float64bits(got[j]) != math.Float64bits(want) && !(got[j] == 0 && want == 0) {
				t.Errorf("%v at %v, %v: ∂/∂x_%d = %v, Deriv %v", c.k, c.x, c.y, j, got[j], want)
			}
		}
	}
}

// TestGradientFarPoint: far from y, where k(x,y) underflows, the derivatives that round to zero are settled without
// Deriv (no allocation: O(d), not O(d²)) and agree with it.
func TestGradientFarPoint(t *testing.T) {
	const d = 600
	x, y := make([]float64, d), make([]float64, d)
	for i := range x {
		x[i] = 4 * float64(1+i%3)
	}
	for _, k := range []Kernel{Gaussian{S: 1}, Cauchy{S: 1}, Matern{Nu: 1.5, S: 0.1}, Matern{Nu: 2.5, S: 0.1}} {
		got := make([]float64, d)
		if a := testing.AllocsPerRun(5, func() {
			if err := Gradient(k, got, x, y); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("%s: %v allocations per call far from y, want 0 (no call of Deriv)", k.Name(), a)
		}
		p := make([]int, d)
		for _, j := range []int{0, 1, d - 1} {
			p[j] = 1
			want, err := Deriv(k, x, y, p, nil)
			p[j] = 0
			if err != nil {
				t.Fatal(err)
			}
			if got[j] != want {
				t.Errorf("%s: ∂/∂x_%d = %v, Deriv %v", k.Name(), j, got[j], want)
			}
		}
	}
}
