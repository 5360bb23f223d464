package vector

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
)

// TestDecoupleEqualsDecomposableRidge: for a full (non-diagonal) positive definite A, the decomposable ridge fit of
// Ridge equals p independent scalar ridge fits on the scalar features against the rotated targets Yw_k with penalties
// λ/a_k, rotated back: f = W·g. Both solve the same strictly convex problem through backward-stable factorisations of
// systems with condition number κ ≲ 1e6, so the predictions agree to about κ·F·ε ≈ 1e-7 relative.
func TestDecoupleEqualsDecomposableRidge(t *testing.T) {
	const d, D, n, p = 2, 20, 100, 3
	rng := rand.New(rand.NewPCG(5, 6))
	A := randPSD(rng, p, p)
	for i := range p {
		A.SetSym(i, i, A.At(i, i)+0.5) // well conditioned
	}
	k := mustKernel(t)(ovk.NewDecomposable(kernel.Gaussian{S: 0.8}, A))
	m := mustMap(t, k, rule.G{}, d, D, 7)
	X, Y := field(n, d, p, 0.1, 8)
	dc, err := Decouple(A)
	if err != nil {
		t.Fatal(err)
	}
	if dc.W == nil {
		t.Fatal("a full A decoupled without rotation")
	}
	Yr, err := dc.Rotate(Y, n)
	if err != nil {
		t.Fatal(err)
	}
	for _, lambda := range []float64{1e-4, 1e-2} {
		fit, err := Ridge{Lambda: lambda, Intercept: true}.Fit(m, X, n, Y)
		if err != nil {
			t.Fatal(err)
		}
		want := predictFit(t, fit, m, X, n)
		g := make([]float64, n*p) // rotated predictions
		for c := range p {
			yc := make([]float64, n)
			for i := range n {
				yc[i] = Yr[i*p+c]
			}
			f, err := learn.Ridge{Lambda: lambda * dc.Scale[c], Intercept: true}.FitMap(Scalar(m), X, n, yc, 1)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]float64, n)
			if err := f.PredictMap(out, Scalar(m), X, n); err != nil {
				t.Fatal(err)
			}
			for i := range n {
				g[i*p+c] = out[i]
			}
		}
		got := make([]float64, n*p) // G·Wᵀ
		gemm(false, true, n, p, p, 1, g, dc.W, 0, got)
		if e := relDiff(got, want); e > 1e-7 {
			t.Errorf("λ = %g: decoupled predictions differ from the decomposable fit by %.3g relative", lambda, e)
		}
	}
}

// TestDecouple: a diagonal A is not rotated (the targets are copied bit for bit) and its scales are 1/a_k; a
// singular A and bad targets are refused.
func TestDecouple(t *testing.T) {
	A := mat.NewSymDense(3, []float64{2, 0, 0, 0, 1, 0, 0, 0, 0.5})
	dc, err := Decouple(A)
	if err != nil {
		t.Fatal(err)
	}
	if dc.W != nil || dc.Scale[0] != 0.5 || dc.Scale[1] != 1 || dc.Scale[2] != 2 {
		t.Errorf("diagonal A: W %v, scales %v", dc.W, dc.Scale)
	}
	Y := []float64{1, 2, 3, 4, 5, 6}
	r, err := dc.Rotate(Y, 2)
	if err != nil || relDiff(r, Y) != 0 {
		t.Errorf("diagonal A rotated the targets: %v, %v", r, err)
	}
	if _, err := dc.Rotate(Y, 3); err == nil {
		t.Error("wrong row count: no error")
	}
	if _, err := Decouple(mat.NewSymDense(2, []float64{1, 1, 1, 1})); err == nil {
		t.Error("singular A: no error")
	}
	if _, err := Decouple(nil); err == nil {
		t.Error("nil A: no error")
	}
}
