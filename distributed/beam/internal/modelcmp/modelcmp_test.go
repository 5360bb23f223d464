package modelcmp

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
)

// The rounding bound of the weights is the perturbation bound of a linear system of condition (1 + λ)/λ.
func TestBound(t *testing.T) {
	const u = 0x1p-53
	for _, c := range []struct {
		n, f   int
		lambda float64
	}{{9568, 520, 1e-4}, {20000, 544, 1e-4}, {1000, 100, 1}} {
		kappa := (1 + c.lambda) / c.lambda
		want := kappa * 2 * float64(c.n+c.f) * u // to first order in u
		// the neglected orders: γ_k − ku ≈ (ku)², and e/(1 − e) − e ≈ e², both far below 1e-6 relative here
		if got := Bound(c.n, c.f, c.lambda); got < want || got > want*(1+1e-6) {
			t.Errorf("Bound(%d, %d, %g) = %g, want κ·2(N+F)u = %g to first order", c.n, c.f, c.lambda, got, want)
		}
	}
	if b := Bound(1<<40, 10, 1e-6); !math.IsInf(b, 1) {
		t.Errorf("a perturbation over 1/κ gives %g, want +Inf", b)
	}
}

func fitBytes(t *testing.T, cfg rff.Config, data *dataset.Data) []byte {
	t.Helper()
	m, err := rff.Fit(cfg, data)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A model against itself differs by nothing; against another draw of the map (another seed) its weights and
// predictions differ far beyond rounding, which Check reports; models of other λ are not compared.
func TestCompare(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n, d := 300, 3
	X, Y := make([]float64, n*d), make([]float64, n)
	for i := range n {
		s := 0.0
		for j := range d {
			X[i*d+j] = rng.NormFloat64()
			s += math.Sin(X[i*d+j])
		}
		Y[i] = s
	}
	data := &dataset.Data{X: X, Y: Y, N: n, D: d, Names: []string{"a", "b", "c"}, TargetName: "y"}
	cfg := rff.Config{Points: 32, Lambda: 1e-3, Seed: 1, Sigma: 1}
	a := fitBytes(t, cfg, data)
	same, err := Compare(a, a, data)
	if err != nil {
		t.Fatal(err)
	}
	if same.Predictions != 0 || same.Theta != 0 || same.Bias != 0 || same.SigmaRel != 0 || !same.SameClasses || same.Check(0) != nil {
		t.Errorf("a model against itself: %v", same)
	}
	cfg.Seed = 2
	other, err := Compare(fitBytes(t, cfg, data), a, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Check(1e-10); err == nil || !strings.Contains(err.Error(), "predictions") || !strings.Contains(err.Error(), "weights") {
		t.Errorf("another seed passed the check: %v (%v)", err, other)
	}
	cfg.Seed, cfg.Lambda = 1, 1e-2
	if _, err := Compare(fitBytes(t, cfg, data), a, data); err == nil || !strings.Contains(err.Error(), "λ") {
		t.Errorf("models of other λ compared: %v", err)
	}
}
