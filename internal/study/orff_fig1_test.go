package study

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rffkit/rff/bound"
)

func TestORFFFig1ASmall(t *testing.T) {
	calls := 0
	s := NewORFFFig1A()
	s.Points, s.Pairs, s.Ds, s.Runs = 50, 64, []int{8, 64, 512}, 2
	s.SetProgress(func() { calls++ })
	rep := runReport[Fig1ARow](t, s)
	rows := rep.Rows
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
	if len(rep.Fits) != 3 || rep.Fits[1].Series != "curl-free" || !strings.Contains(rep.Finding, "Figure 1A") {
		t.Fatalf("summary %+v", rep.Summary)
	}
	if series := figures(t, rep, 1)[0]; series["div-free"] != 3 || len(series) != 3 {
		t.Errorf("CSV series %v", series)
	}
}

func TestORFFFig1BSmall(t *testing.T) {
	x, z := []float64{0.5, -0.5, 0.25, 0}, []float64{-0.5, 0.5, 0, 0.25}
	s := NewORFFFig1B()
	s.Ds, s.Seeds, s.Runs, s.X, s.Z = []int{8, 128}, 100, 2, x, z
	rep := runReport[Fig1BRow](t, s)
	rows := rep.Rows
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
	if len(rep.Fits) != 1 || rep.Fits[0].Theory != -1 || !strings.Contains(rep.Finding, "holds at every D") {
		t.Fatalf("summary %+v", rep.Summary)
	}
	if series := figures(t, rep, 1)[0]; len(series) != 3 {
		t.Errorf("CSV series %v", series)
	}
	// Without a pair, the pair drawn from the seed is reported in the settings and the notes.
	s.X, s.Z, s.Ds, s.Seeds, s.Runs = nil, nil, []int{8, 16}, 10, 1
	rep = runReport[Fig1BRow](t, s)
	if got := rep.Settings.(*ORFFFig1B); len(got.X) != 4 || len(got.Z) != 4 || s.X != nil {
		t.Errorf("drawn pair %v, %v (study's own %v)", got.X, got.Z, s.X)
	}
	var table strings.Builder
	if err := rep.Summarize(&table); err != nil || !strings.Contains(table.String(), "pair: x = ") {
		t.Errorf("table %q, %v", table.String(), err)
	}
}

func TestORFFStudiesReject(t *testing.T) {
	reject(t, NewORFFFig1A, map[string]func(*ORFFFig1A){
		"kernel":     func(s *ORFFFig1A) { s.Kernels = []string{"nope"} },
		"div d=1":    func(s *ORFFFig1A) { s.Dim, s.Kernels = 1, []string{"div-free"} },
		"D":          func(s *ORFFFig1A) { s.Ds = []int{0} },
		"pairs":      func(s *ORFFFig1A) { s.Pairs = -1 },
		"no kernels": func(s *ORFFFig1A) { s.Kernels = nil },
	})
	reject(t, NewORFFFig1B, map[string]func(*ORFFFig1B){
		"seeds": func(s *ORFFFig1B) { s.Seeds = 1 },
		"pair":  func(s *ORFFFig1B) { s.X, s.Z = []float64{1}, []float64{1} },
		"sigma": func(s *ORFFFig1B) { s.Sigma = math.NaN() },
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewORFFFig1B().Run(ctx); err == nil {
		t.Error("cancelled: no error")
	}
}

// The settings of Figure 1A of the ORFF paper by default.
func ExampleNewORFFFig1A() {
	s := NewORFFFig1A()
	fmt.Printf("%v on %d points of [−1,1]^%d, %d pairs, D %d…%d, σ %g, %d runs\n", s.Kernels, s.Points, s.Dim,
		s.Pairs, s.Ds[0], s.Ds[len(s.Ds)-1], s.Sigma, s.Runs)
	// Output: [decomposable curl-free div-free] on 1000 points of [−1,1]^4, 4096 pairs, D 8…8192, σ 1, 10 runs
}

// Figure 1B compares the variance of the curl-free approximation with Proposition 12 at one pair of points. At
// ‖δ‖ = 1 (σ = 1, d = 4) the bound is (‖(K₀(2δ) + I)·I − 2K₀(δ)²‖₂ + 2(d+1))/2 = (1 − 3e⁻² + 10)/2 ≈ 5.297.
func ExampleNewORFFFig1B() {
	s := NewORFFFig1B()
	v, err := bound.ORFF{Kind: "curl-free", Dim: s.Dim, Sigma: s.Sigma, Diameter: 4}.Variance(1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("d %d, D %d…%d, %d maps × %d runs; Proposition 12 at ‖δ‖ = 1: D·‖V‖ ≤ %.4f\n", s.Dim, s.Ds[0],
		s.Ds[len(s.Ds)-1], s.Seeds, s.Runs, v)
	// Output: d 4, D 8…8192, 200 maps × 10 runs; Proposition 12 at ‖δ‖ = 1: D·‖V‖ ≤ 5.2970
}
