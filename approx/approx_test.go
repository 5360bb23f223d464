package approx

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

func TestCompareByHand(t *testing.T) {
	// K = I₂, K̂ differs by 0.1 in one entry: ‖E‖_F = 0.1, ‖K‖_F = √2, max 0.1, mean 0.1/4.
	e, err := Compare([]float64{1, 0, 0, 1}, []float64{1, 0.1, 0, 1})
	if err != nil || math.Abs(e.RelFrobenius-0.1/math.Sqrt2) > 1e-15 || e.MaxAbs != 0.1 || math.Abs(e.MeanAbs-0.025) > 1e-16 {
		t.Errorf("Compare = %+v, %v", e, err)
	}
	if e, err := Compare([]float64{0, 0}, []float64{0, 1}); err != nil || !math.IsInf(e.RelFrobenius, 1) {
		t.Errorf("zero kernel matrix: relative error %v (%v), want +Inf", e.RelFrobenius, err)
	}
}

func sample(n, d int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.Float64()
	}
	return x
}

// TestRateOneOverSqrtD: Monte Carlo features have E‖K − K̂‖²_F ∝ 1/D, so the mean relative error of G at n = 4
// is half that at n = 1. The tolerance is 4 standard errors of the ratio (delta method on the run-to-run spread).
func TestRateOneOverSqrtD(t *testing.T) {
	const d = 6
	X, Y := sample(120, d, 1), sample(110, d, 2)
	st := Study{Kernel: kernel.Gaussian{S: 0.5}, Rules: []rule.Rule{rule.G{}}, Ns: []int{1, 4}, Runs: 300, Seed: 3}
	res, err := st.Run(context.Background(), X, 120, Y, 110, d)
	if err != nil {
		t.Fatal(err)
	}
	m1, m4 := res[0].Mean, res[1].Mean
	se1, se4 := res[0].Std/math.Sqrt(300), res[1].Std/math.Sqrt(300)
	ratio := m1 / m4
	se := ratio * math.Hypot(se1/m1, se4/m4)
	// E‖E‖_F is E sqrt(‖E‖²) ≤ sqrt(E‖E‖²) (Jensen); the gap shrinks with the number of entries, but allow the
	// ratio to sit a few percent under 2 from it: the check is two-sided at 4 standard errors plus 3%.
	if math.Abs(ratio-2) > 4*se+0.06 {
		t.Errorf("error ratio n=1 / n=4 = %v ± %v, want 2 (1/√D)", ratio, se)
	}
	if res[0].D != 14 || res[1].D != 56 || res[0].Columns != 28 {
		t.Errorf("D = 2n(d+1): got %d, %d (columns %d)", res[0].D, res[1].D, res[0].Columns)
	}
}

// TestQuadratureBeatsMonteCarlo: SR(3,3) integrates the degree-≤3 part of cos(ωᵀδ) exactly, so on inputs with
// ‖δ‖/σ small its error is far below that of iid features; the 95% intervals must not overlap.
func TestQuadratureBeatsMonteCarlo(t *testing.T) {
	const d = 8
	X, Y := sample(100, d, 4), sample(100, d, 5)
	k := kernel.Gaussian{S: kernel.SigmaFromGamma(1.0 / d)}
	st := Study{Kernel: k, Rules: []rule.Rule{rule.G{}, rule.SR{}}, Ns: []int{1, 2}, Runs: 50, Seed: 6}
	res, err := st.Run(context.Background(), X, 100, Y, 100, d)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < 2; n++ {
		g, sr := res[n], res[2+n]
		if g.Rule != "g" || sr.Rule != "sr-butterfly" {
			t.Fatalf("result order: %s, %s", g.Rule, sr.Rule)
		}
		if !(sr.CI95[1] < g.CI95[0]) {
			t.Errorf("n=%d: SR %v %v not below G %v %v", g.N, sr.Mean, sr.CI95, g.Mean, g.CI95)
		}
		if g.CI95[0] > g.Mean || g.CI95[1] < g.Mean {
			t.Errorf("interval %v does not contain the mean %v", g.CI95, g.Mean)
		}
	}
}

func TestDeterministic(t *testing.T) {
	X := sample(30, 3, 7)
	st := Study{Kernel: kernel.ArcCos{Order: 1}, Rules: []rule.Rule{rule.SR{}, rule.QMC{}}, Ns: []int{1, 2}, Runs: 5, Seed: 8}
	a, _ := st.Run(context.Background(), X, 30, X, 30, 3)
	b, _ := st.Run(context.Background(), X, 30, X, 30, 3)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, different results: %+v vs %+v", a[i], b[i])
		}
	}
	if RunSeed(1, "g", 1, 0) == RunSeed(1, "g", 1, 1) || RunSeed(1, "g", 1, 0) == RunSeed(2, "g", 1, 0) {
		t.Error("run seeds must differ across runs and study seeds")
	}
}

func TestStudyErrors(t *testing.T) {
	X := sample(10, 2, 9)
	ok := Study{Kernel: kernel.Gaussian{S: 1}, Rules: []rule.Rule{rule.G{}}, Ns: []int{1}, Runs: 1}
	cases := map[string]Study{
		"no kernel": {Rules: ok.Rules, Ns: ok.Ns, Runs: 1},
		"no rules":  {Kernel: ok.Kernel, Ns: ok.Ns, Runs: 1},
		"n = 0":     {Kernel: ok.Kernel, Rules: ok.Rules, Ns: []int{0}, Runs: 1},
		"no runs":   {Kernel: ok.Kernel, Rules: ok.Rules, Ns: ok.Ns},
	}
	for name, st := range cases {
		if _, err := st.Run(context.Background(), X, 10, X, 10, 2); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
	if _, err := ok.Run(context.Background(), X, 10, X, 9, 2); err == nil {
		t.Error("bad shapes: want an error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ok.Run(ctx, X, 10, X, 10, 2); err == nil {
		t.Error("cancelled context: want an error")
	}
}
