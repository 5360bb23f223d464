package study

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rffkit/rff/bound"
	"github.com/rffkit/rff/internal/datadir"
)

// tinySearch keeps the sup searches of the smoke tests cheap.
var tinySearch = Search{Candidates: 256, Starts: 2, Steps: 10}

func TestRatesSupSmall(t *testing.T) {
	calls := 0
	s := NewRatesSup()
	s.Dims, s.Ms, s.Runs, s.Seed, s.Search = []int{1, 2}, []int{16, 64, 256}, 2, 3, tinySearch
	s.SetProgress(func() { calls++ })
	rep := runReport[SupRow](t, s)
	rows := rep.Rows
	if len(rows) != 6 || calls != s.Steps() || s.Steps() != 12 {
		t.Fatalf("%d rows, %d progress calls, %d steps", len(rows), calls, s.Steps())
	}
	for i, r := range rows {
		checkStat(t, fmt.Sprintf("row %d", i), r.Stat, 2)
		sm, _ := bound.SecondMoment("gaussian", r.Dim, 1)
		want, _ := bound.SSLinf{Dim: r.Dim, Diameter: 4, SecondMoment: sm}.Error(r.M, 0.05)
		if r.Points != r.M || r.Diameter != 4 || r.Bound != want || r.Mean >= r.Bound || r.Candidates != 256 {
			t.Errorf("row %+v: bound want %g", r, want)
		}
		// An error of a cos/sin map of a kernel bounded by 1 is at most 2.
		if r.CI95[1]-r.Mean > 2 || r.Mean > 2 {
			t.Errorf("row %+v: impossible error", r)
		}
	}
	// Same seed → same rows.
	s.SetProgress(nil)
	if again := runReport[SupRow](t, s); fmt.Sprint(again.Rows) != fmt.Sprint(rows) {
		t.Error("not reproducible")
	}
	if len(rep.Fits) != 2 || rep.Fits[0].Series != "d=1" || !strings.Contains(rep.Finding, "Theorem 1") {
		t.Fatalf("summary %+v", rep.Summary)
	}
	dir := t.TempDir()
	paths, err := rep.Write(dir)
	if err != nil || len(paths) != 1 || paths[0] != filepath.Join(dir, "rates-sup.png") {
		t.Fatalf("write: %v %v", paths, err)
	}
	if series := checkFigure(t, paths[0]); series["d=1 measured sup error"] != 3 || series["d=2 Theorem 1 bound (δ=0.05)"] != 3 {
		t.Errorf("CSV series %v", series)
	}
	var table strings.Builder
	if err := rep.Summarize(&table); err != nil || strings.Count(table.String(), "\n") != 8 ||
		!strings.Contains(table.String(), "finding: Theorem 1") {
		t.Errorf("table %q, %v", table.String(), err)
	}
}

func TestRatesSupSlopeD1(t *testing.T) {
	if testing.Short() {
		t.Skip("measures 16 maps at each of 8 values of m")
	}
	s := NewRatesSup()
	s.Dims, s.Ms, s.Runs = []int{1}, []int{16, 32, 64, 128, 256, 512, 1024, 2048}, 16
	rep := runReport[SupRow](t, s)
	f := rep.Fits[0]
	t.Logf("%s", rep.Finding)
	if math.Abs(f.Slope-RateSlope) > RateTolerance || !f.Within {
		t.Errorf("d=1: slope %.3f ± %.3f, want −0.5 ± 0.1", f.Slope, f.SlopeSE)
	}
}

// reject checks that each variation of a study's defaults is refused, by Validate, Steps and Run. The study gets a
// (empty) data directory from RFF_DATA, as rff repro gives it.
func reject[S Study](t *testing.T, fresh func() S, cases map[string]func(S)) {
	t.Helper()
	t.Setenv(datadir.Env, t.TempDir())
	for name, change := range cases {
		s := fresh()
		if err := Bind(flag.NewFlagSet(name, flag.ContinueOnError), s); err != nil {
			t.Fatal(err)
		}
		change(s)
		if s.Validate() == nil || s.Steps() != 0 {
			t.Errorf("%s: accepted (%d steps)", name, s.Steps())
		}
		if _, err := s.Run(context.Background()); err == nil {
			t.Errorf("%s: ran", name)
		}
	}
}

func TestRatesStudiesReject(t *testing.T) {
	reject(t, NewRatesSup, map[string]func(*RatesSup){
		"runs":   func(s *RatesSup) { s.Runs = -1 },
		"m":      func(s *RatesSup) { s.Ms = []int{0} },
		"no m":   func(s *RatesSup) { s.Ms = nil },
		"d":      func(s *RatesSup) { s.Dims = []int{0} },
		"delta":  func(s *RatesSup) { s.Delta = 1 },
		"sigma":  func(s *RatesSup) { s.Sigma = -1 },
		"search": func(s *RatesSup) { s.Search.Steps = -1 },
		"rule":   func(s *RatesSup) { s.Rule = "zzz" },
	})
	reject(t, NewRatesDiameter, map[string]func(*RatesDiameter){
		"diameter": func(s *RatesDiameter) { s.Diameters = []float64{1, -2} },
		"m":        func(s *RatesDiameter) { s.M = -5 },
		"cap":      func(s *RatesDiameter) { s.MaxCandidates = -1 },
		"density":  func(s *RatesDiameter) { s.Density = 0 },
	})
	reject(t, NewRatesLr, map[string]func(*RatesLr){
		"r":       func(s *RatesLr) { s.Rs = []float64{0.5} },
		"r inf":   func(s *RatesLr) { s.Rs = []float64{math.Inf(1)} },
		"samples": func(s *RatesLr) { s.Samples = 1 },
	})
	reject(t, NewRatesDeriv, map[string]func(*RatesDeriv){
		"d=1":       func(s *RatesDeriv) { s.Dim = 1 }, // the default cases need d ≥ 2
		"multi-idx": func(s *RatesDeriv) { s.Cases = []string{"e3:0"} },
		"syntax":    func(s *RatesDeriv) { s.Cases = []string{"e1"} },
	})
	if _, err := (&Report[SupRow]{}).Write(t.TempDir()); err == nil {
		t.Error("figure of no rows: no error")
	}
}

func TestRatesCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sup := NewRatesSup()
	sup.Ms, sup.Runs = []int{16, 32}, 1
	if _, err := sup.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("rates-sup: %v", err)
	}
	lr := NewRatesLr()
	lr.Ms, lr.Runs = []int{16}, 1
	if _, err := lr.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("rates-lr: %v", err)
	}
}

func TestRatesDiameterSmall(t *testing.T) {
	s := NewRatesDiameter()
	s.M, s.Diameters, s.Runs, s.Density = 64, []float64{1, 8, 64}, 2, 4
	s.Search = Search{Candidates: 64, Starts: 2, Steps: 10}
	rep := runReport[DiameterRow](t, s)
	rows := rep.Rows
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	// Candidates: max(64, ⌈4·2|S|⌉) in d = 1 with σ = 1: 64, 64, 512.
	for i, want := range []int{64, 64, 512} {
		r := rows[i]
		checkStat(t, fmt.Sprint("diameter ", r.Diameter), r.Stat, 2)
		if r.Candidates != want || r.M != 64 || r.Dim != 1 {
			t.Errorf("row %+v: candidates want %d", r, want)
		}
		if lin := rows[0].Mean * r.Diameter; math.Abs(r.Linear-lin) > 1e-15*lin {
			t.Errorf("linear reference %g, want %g", r.Linear, lin)
		}
		if i > 0 && !(r.Bound > rows[i-1].Bound) {
			t.Errorf("Theorem 1 bound not increasing in |S|: %g then %g", rows[i-1].Bound, r.Bound)
		}
	}
	if len(rep.Fits) != 3 || rep.Fits[0].Series != "√log" || rep.Fits[0].N != 3 ||
		!strings.Contains(rep.Finding, "√(log|S|)") {
		t.Fatalf("summary %+v", rep.Summary)
	}
	if series := figures(t, rep, 1)[0]; len(series) != 3 {
		t.Errorf("CSV series %v", series)
	}
}

func TestRatesLrSmall(t *testing.T) {
	s := NewRatesLr()
	s.Ms, s.Rs, s.Runs, s.Samples = []int{16, 128}, []float64{1, 2, 4}, 2, 512
	rep := runReport[LrRow](t, s)
	rows := rep.Rows
	if len(rows) != 6 || s.Steps() != 4 {
		t.Fatalf("%d rows, %d steps", len(rows), s.Steps())
	}
	for _, r := range rows {
		checkStat(t, fmt.Sprintf("m=%d r=%g", r.M, r.R), r.Stat, 2)
		want, _ := bound.SSLr{Dim: 1, Diameter: 4, SecondMoment: 1, R: r.R}.Error(r.M, 0.05)
		if r.Bound != want || !(r.MCSE > 0) || r.MCSE > r.Mean {
			t.Errorf("row %+v: bound want %g", r, want)
		}
	}
	if len(rep.Fits) != 3 || rep.Fits[2].Series != "r=4" {
		t.Fatalf("summary %+v", rep.Summary)
	}
	if series := figures(t, rep, 1)[0]; len(series) != 6 {
		t.Errorf("CSV series %v", series)
	}
}

func TestRatesDerivSmall(t *testing.T) {
	s := NewRatesDeriv()
	s.Ms, s.Runs, s.Search = []int{16, 128}, 2, tinySearch
	rep := runReport[DerivRow](t, s)
	rows := rep.Rows
	if len(rows) != 6 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, want := range []struct {
		c     string
		order int
	}{{"e1:0", 1}, {"e1:0", 1}, {"e1:e1", 2}, {"e1:e1", 2}, {"e1:e2", 2}, {"e1:e2", 2}} {
		r := rows[i]
		checkStat(t, r.Case, r.Stat, 2)
		if r.Case != want.c || r.Order != want.order || r.Dim != 2 || !(r.Bound > r.Mean) {
			t.Errorf("row %+v, want case %s of order %d", r, want.c, want.order)
		}
	}
	if len(rep.Fits) != 3 || !strings.Contains(rep.Finding, "Theorem 5") {
		t.Fatalf("summary %+v", rep.Summary)
	}
	if series := figures(t, rep, 1)[0]; series["e1:e2 measured"] != 2 {
		t.Errorf("CSV series %v", series)
	}
}

// The settings of the rates-sup study (Theorem 1 of Sriperumbudur & Szabó) by default.
func ExampleNewRatesSup() {
	s := NewRatesSup()
	fmt.Printf("d %v, m %d…%d, σ %g, |S| %g, %d runs, δ %g, rule %s, %d maps\n", s.Dims, s.Ms[0], s.Ms[len(s.Ms)-1],
		s.Sigma, s.Diameter, s.Runs, s.Delta, s.Rule, s.Steps())
	// Output: d [1 2 5], m 16…16384, σ 1, |S| 4, 20 runs, δ 0.05, rule g, 660 maps
}

// The summary turns rows into fits and a finding; here rows that follow the theory exactly.
func ExampleRatesSup_summarize() {
	var rows []SupRow
	for _, m := range []int{16, 256, 4096} {
		e := 0.4 / math.Sqrt(float64(m))
		rows = append(rows, SupRow{Dim: 1, M: m, Points: m, Diameter: 4,
			Stat: Stat{Runs: 20, Mean: e, CI95: [2]float64{e, e}}, Bound: 100 * e})
	}
	s := NewRatesSup()
	s.Dims = []int{1}
	sum, err := s.summarize(rows)
	if err != nil {
		panic(err)
	}
	fmt.Printf("slope %.2f, within %v\n", sum.Fits[0].Slope, sum.Fits[0].Within)
	fmt.Println(sum.Finding)
	// Output:
	// slope -0.50, within true
	// Theorem 1 predicts sup error = O(m^−1/2) on a fixed S; measured log–log slope of the mean sup error vs m (Gaussian σ=1, cube |S|=4, m=16…4096, 20 runs): −0.50 (d=1) — theory −0.50 ± 0.1: all within. The Theorem 1 bound (δ=0.05) lies 100–100× above the mean.
}
