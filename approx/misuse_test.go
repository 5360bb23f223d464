package approx

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/misusetest"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// misuse is one call a caller can get wrong: it must return an error whose message contains want, and never panic.
type misuse = misusetest.Case

// panicky is a kernel whose spectral law panics: a caller's bug that happens on one of Run's worker goroutines
// (where the feature maps are drawn) and must reach the caller as an error, not end the process.
type panicky struct{ kernel.Gaussian }

func (panicky) Law() kernel.Law { panic("panicky kernel") }

// TestMisuse: the exported functions of package approx return errors, not panics, for arguments a caller can get
// wrong: lengths that do not match, nil maps and rules, bad forms, budgets and counts whose sizes overflow int or
// exceed what one array may hold.
func TestMisuse(t *testing.T) {
	const d = 2
	g := kernel.Gaussian{S: 1}
	m, err := feature.New(g, rule.G{}, d, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	X := []float64{0.1, 0.2, 0.3, 0.4}
	cube := NewCube(d, 1)
	st := Study{Kernel: g, Rules: []rule.Rule{rule.G{}}, Ns: []int{1}, Runs: 2, Seed: 1}
	run := func(s Study) func() error {
		return func() error { _, err := s.Run(context.Background(), X, 2, X, 2, d); return err }
	}
	with := func(f func(*Study)) Study { s := st; f(&s); return s }
	misusetest.Check(t, []misuse{
		{"Compare lengths", func() error { _, err := Compare([]float64{1, 2}, []float64{1}); return err }, "length"},
		{"Compare empty", func() error { _, err := Compare(nil, nil); return err }, "empty"},
		{"Run nil rule", run(with(func(s *Study) { s.Rules = []rule.Rule{rule.G{}, nil} })), "rule"},
		{"Run unknown form", run(with(func(s *Study) { s.Form = feature.Form(99) })), "form"},
		{"Run n overflows D", run(with(func(s *Study) { s.Ns = []int{1 << 62} })), "points"},
		{"Run n·d overflows", func() error { _, err := st.Run(context.Background(), nil, 1<<62, X, 2, 4); return err }, "shapes"},
		{"Run runs overflow", run(with(func(s *Study) { s.Runs = 1 << 62 })), "runs"},
		{"Run runs beyond one array", run(with(func(s *Study) { s.Runs = 1 << 40 })), "runs"},
		{"Run runs beyond the machine", run(with(func(s *Study) { s.Runs = 1 << 34 })), "memory and swap"},
		{"Run panicking kernel", run(with(func(s *Study) { s.Kernel = panicky{g} })), "panicky kernel"},
		{"Run nil context", func() error { _, err := st.Run(nil, X, 2, X, 2, d); return err }, "nil context"},
		{"SupError nil map", func() error { _, err := SupError(nil, cube, nil, nil, Search{}); return err }, "nil"},
		{"SupError zero map", func() error { _, err := SupError(&feature.Map{}, cube, nil, nil, Search{}); return err }, "feature"},
		{"SupError huge budget", func() error {
			_, err := SupError(m, cube, nil, nil, Search{Candidates: math.MaxInt})
			return err
		}, "candidates"},
		{"SupError p length", func() error { _, err := SupError(m, cube, []int{1}, nil, Search{}); return err }, "p"},
		{"SupError huge order", func() error {
			_, err := SupError(m, cube, []int{math.MaxInt32, 0}, nil, Search{})
			return err
		}, "order"},
		{"SupError domain dimension", func() error { _, err := SupError(m, NewCube(3, 1), nil, nil, Search{}); return err }, "dimension"},
		{"LrError zero map", func() error { _, err := LrError(&feature.Map{}, cube, nil, nil, 2, MonteCarlo{}); return err }, "feature"},
		{"LrError huge sample", func() error {
			_, err := LrError(m, cube, nil, nil, 2, MonteCarlo{Samples: 1 << 62})
			return err
		}, "samples"},
		{"LrError NaN r", func() error { _, err := LrError(m, cube, nil, nil, math.NaN(), MonteCarlo{}); return err }, "r"},
	})
	if got := PointsForN(1<<62, 3); got >= 1 {
		t.Errorf("PointsForN(2^62, 3) = %d: an overflowing count must not look valid", got)
	}
	if got := PointsForN(2, 3); got != 16 {
		t.Errorf("PointsForN(2, 3) = %d, want 16", got)
	}
}

// TestSampleEmptyBall: sampling a ball into an empty point returns instead of drawing directions forever.
func TestSampleEmptyBall(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		Domain{Shape: Ball, Dim: 1, Diameter: 1}.Sample(nil, rand.New(rand.NewPCG(1, 1)))
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Sample into an empty point of a ball did not return")
	}
}

// TestRunFirstError: when every run fails, Run returns the error of the first run in the study's order, whatever
// the order in which the workers finish.
func TestRunFirstError(t *testing.T) {
	X := []float64{0.1, 0.2, 0.3, 0.4}
	st := Study{Kernel: panicky{kernel.Gaussian{S: 1}}, Rules: []rule.Rule{rule.G{}}, Ns: []int{1, 2}, Runs: 8, Seed: 1}
	for range 20 {
		_, err := st.Run(context.Background(), X, 2, X, 2, 2)
		if err == nil || !strings.Contains(err.Error(), "n = 1, run 1: panic") {
			t.Fatalf("error %v, want run 1 of n = 1's", err)
		}
	}
}

// TestRunProgressPanic: a panic in Progress reaches the caller after the workers have stopped — none is left
// blocked.
func TestRunProgressPanic(t *testing.T) {
	X := []float64{0.1, 0.2, 0.3, 0.4}
	st := Study{Kernel: kernel.Gaussian{S: 1}, Rules: []rule.Rule{rule.G{}}, Ns: []int{1}, Runs: 16, Seed: 1,
		Progress: func() { panic("progress") }}
	before := runtime.NumGoroutine()
	func() {
		defer func() {
			if v := recover(); v != "progress" {
				t.Errorf("recovered %v, want the panic of Progress", v)
			}
		}()
		st.Run(context.Background(), X, 2, X, 2, 2)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the panic, %d before: workers left blocked", n, before)
	}
}
