package experiment_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rffkit/rff/bound"
	"github.com/rffkit/rff/experiment"
)

func TestORFFFig1ASmall(t *testing.T) {
	calls := 0
	s := experiment.ORFFFig1A{Points: 50, Pairs: 64, Ds: []int{8, 64, 512}, Runs: 2, Progress: func() { calls++ }}
	rows, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 9 || calls != 18 || s.Steps() != 18 {
		t.Fatalf("%d rows, %d calls, %d steps", len(rows), calls, s.Steps())
	}
	for i, r := range rows {
		checkStat(t, fmt.Sprintf("%s D=%d", r.Kernel, r.D), r.Stat, 2)
		if r.Kernel != []string{"decomposable", "curl-free", "div-free"}[i/3] || r.Points != r.D {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	// The error falls with D for every kernel (a factor 64 in D, √64 = 8 expected; 2 runs are noisy).
	for k := 0; k < 3; k++ {
		if !(rows[3*k+2].Mean < rows[3*k].Mean/2) {
			t.Errorf("%s: error %g at D=8, %g at D=512", rows[3*k].Kernel, rows[3*k].Mean, rows[3*k+2].Mean)
		}
	}
	sum, err := s.Summarize(rows)
	if err != nil || len(sum.Fits) != 3 || sum.Fits[1].Series != "curl-free" || !strings.Contains(sum.Finding, "Figure 1A") {
		t.Fatalf("summary %+v, %v", sum, err)
	}
	paths, err := s.Write(t.TempDir(), rows)
	if err != nil {
		t.Fatal(err)
	}
	if series := checkFigure(t, paths[0]); series["div-free"] != 3 || len(series) != 3 {
		t.Errorf("CSV series %v", series)
	}
}

func TestORFFFig1BSmall(t *testing.T) {
	x, z := []float64{0.5, -0.5, 0.25, 0}, []float64{-0.5, 0.5, 0, 0.25}
	s := experiment.ORFFFig1B{Ds: []int{8, 128}, Seeds: 100, Runs: 2, X: x, Z: z}
	rows, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || s.Steps() != 4 {
		t.Fatalf("%d rows, %d steps", len(rows), s.Steps())
	}
	// ‖x − z‖² = 1 + 1 + 1/16 + 1/16.
	r := math.Sqrt(2.125)
	o := bound.ORFF{Kind: "curl-free", Dim: 4, Sigma: 1, Diameter: 4}
	v, _ := o.Variance(r)
	vsup, _ := o.VarianceSup()
	for _, row := range rows {
		checkStat(t, fmt.Sprint("D=", row.D), row.Stat, 2)
		D := float64(row.D)
		if math.Abs(row.DeltaNorm-r) > 1e-15 || math.Abs(row.Bound-v/D) > 1e-15*v || math.Abs(row.BoundSup-vsup/D) > 1e-15*vsup {
			t.Errorf("row %+v: want ‖δ‖ %g, bound %g, sup %g", row, r, v/D, vsup/D)
		}
		// Proposition 12 bounds the variance (the measurement is within 20% of the truth with 200 maps).
		if !(row.Mean < row.Bound) || !(row.Bound <= row.BoundSup) {
			t.Errorf("D=%d: empirical %g, bound %g, sup %g", row.D, row.Mean, row.Bound, row.BoundSup)
		}
	}
	// The variance of a mean of D iid terms is exactly ∝ 1/D: 16× more points, 16× less variance (±25%).
	if q := rows[0].Mean / rows[1].Mean; q < 12 || q > 20 {
		t.Errorf("variance ratio between D=8 and D=128: %g, want ≈ 16", q)
	}
	sum, err := s.Summarize(rows)
	if err != nil || len(sum.Fits) != 1 || sum.Fits[0].Theory != -1 || !strings.Contains(sum.Finding, "holds at every D") {
		t.Fatalf("summary %+v, %v", sum, err)
	}
	paths, err := s.Write(t.TempDir(), rows)
	if err != nil {
		t.Fatal(err)
	}
	if series := checkFigure(t, paths[0]); len(series) != 3 {
		t.Errorf("CSV series %v", series)
	}
}

func TestORFFStudiesReject(t *testing.T) {
	ctx := context.Background()
	for name, run := range map[string]func() error{
		"1a kernel": func() error { _, err := experiment.ORFFFig1A{Kernels: []string{"nope"}}.Run(ctx); return err },
		"1a div d=1": func() error {
			_, err := experiment.ORFFFig1A{Dim: 1, Kernels: []string{"div-free"}}.Run(ctx)
			return err
		},
		"1a D":     func() error { _, err := experiment.ORFFFig1A{Ds: []int{0}}.Run(ctx); return err },
		"1a pairs": func() error { _, err := experiment.ORFFFig1A{Pairs: -1}.Run(ctx); return err },
		"1b seeds": func() error { _, err := experiment.ORFFFig1B{Seeds: 1}.Run(ctx); return err },
		"1b pair":  func() error { _, err := experiment.ORFFFig1B{X: []float64{1}, Z: []float64{1}}.Run(ctx); return err },
		"1b sigma": func() error { _, err := experiment.ORFFFig1B{Sigma: math.NaN()}.Run(ctx); return err },
		"1b cancelled": func() error {
			c, cancel := context.WithCancel(ctx)
			cancel()
			_, err := experiment.ORFFFig1B{}.Run(c)
			return err
		},
	} {
		if err := run(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The settings of Figure 1A of the ORFF paper when left at their defaults.
func ExampleORFFFig1A_WithDefaults() {
	s, err := experiment.ORFFFig1A{}.WithDefaults()
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v on %d points of [−1,1]^%d, %d pairs, D %d…%d, σ %g, %d runs\n", s.Kernels, s.Points, s.Dim,
		s.Pairs, s.Ds[0], s.Ds[len(s.Ds)-1], s.Sigma, s.Runs)
	// Output: [decomposable curl-free div-free] on 1000 points of [−1,1]^4, 4096 pairs, D 8…8192, σ 1, 10 runs
}

// Figure 1B compares the variance of the curl-free approximation with Proposition 12 at one pair of points. At
// ‖δ‖ = 1 (σ = 1, d = 4) the bound is (‖(K₀(2δ) + I)·I − 2K₀(δ)²‖₂ + 2(d+1))/2 = (1 − 3e⁻² + 10)/2 ≈ 5.297.
func ExampleORFFFig1B_WithDefaults() {
	s, err := experiment.ORFFFig1B{X: []float64{1, 0, 0, 0}, Z: []float64{0, 0, 0, 0}}.WithDefaults()
	if err != nil {
		panic(err)
	}
	v, err := bound.ORFF{Kind: "curl-free", Dim: s.Dim, Sigma: s.Sigma, Diameter: 4}.Variance(1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("d %d, D %d…%d, %d maps × %d runs; Proposition 12 at ‖δ‖ = 1: D·‖V‖ ≤ %.4f\n", s.Dim, s.Ds[0],
		s.Ds[len(s.Ds)-1], s.Seeds, s.Runs, v)
	// Output: d 4, D 8…8192, 200 maps × 10 runs; Proposition 12 at ‖δ‖ = 1: D·‖V‖ ≤ 5.2970
}
