package learn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/numtest"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// linear is the test-only linear kernel k(x, y) = xᵀy, whose feature map is the identity.
type linear struct{}

func (linear) Name() string { return "linear" }
func (linear) Eval(x, y []float64) float64 {
	var s float64
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

// relDiff returns ‖a − b‖/‖b‖ (‖a − b‖ when b = 0; see numtest.RelDiff).
func relDiff(a, b []float64) float64 { return numtest.RelDiff(a, b) }

// regression draws n inputs uniform in [−1, 1]^d and p smooth nonlinear targets with Gaussian noise of size noise
// and a non-zero mean, so that fitting the intercept matters.
func regression(n, d, p int, noise float64, seed uint64) (X, Y []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	X = make([]float64, n*d)
	for i := range X {
		X[i] = 2*rng.Float64() - 1
	}
	Y = make([]float64, n*p)
	for i := range n {
		x := X[i*d : (i+1)*d]
		for j := range p {
			v := 2 + float64(j) + math.Sin(2*x[0]+float64(j)) + x[(j+1)%d]*x[(j+1)%d]
			Y[i*p+j] = v + noise*rng.NormFloat64()
		}
	}
	return X, Y
}

// gaussMap draws a Gaussian-kernel map with the plain Gaussian rule.
func gaussMap(t testing.TB, d, D int, sigma float64, seed uint64) *feature.Map {
	t.Helper()
	m, err := feature.New(kernel.Gaussian{S: sigma}, rule.G{}, d, D, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// features maps X through m with all rows in memory (tests only).
func features(t testing.TB, m *feature.Map, X []float64, n int) []float64 {
	t.Helper()
	Z := make([]float64, n*m.Features())
	if err := m.TransformRows(Z, X, n); err != nil {
		t.Fatal(err)
	}
	return Z
}

// rows gathers the rows idx of the r×c matrix A.
func rows(A []float64, c int, idx []int) []float64 {
	out := make([]float64, 0, len(idx)*c)
	for _, i := range idx {
		out = append(out, A[i*c:(i+1)*c]...)
	}
	return out
}
