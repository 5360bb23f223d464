package vector

import (
	"math"
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

// fieldDesign returns the stacked design Φ (n·p × F) of m at X and the stacked targets, both centred per output.
func fieldDesign(t *testing.T, m *ovk.Map, X []float64, n int, Y []float64) (Phi, y []float64) {
	t.Helper()
	p, F := m.Outputs(), m.Features()
	Phi = make([]float64, n*p*F)
	if err := m.TransformRows(Phi, X, n); err != nil {
		t.Fatal(err)
	}
	y = append([]float64(nil), Y...)
	for a := range p {
		var ym float64
		mean := make([]float64, F)
		for i := range n {
			ym += y[i*p+a] / float64(n)
			for f := range F {
				mean[f] += Phi[(i*p+a)*F+f] / float64(n)
			}
		}
		for i := range n {
			y[i*p+a] -= ym
			for f := range F {
				Phi[(i*p+a)*F+f] -= mean[f]
			}
		}
	}
	return Phi, y
}

// TestSelectLambdaFieldBruteForce: for a curl-free field (p = 2 outputs coupled through B(ω)) the GCV of
// SelectLambdaField equals Np·RSS/(Np − tr H)² from the explicit (Np)×(Np) hat matrix of the centred stacked design,
// plus p for the intercepts; and with one output (d = 1, where the curl-free map is scalar ridge on Φ) GCV and the
// log evidence equal learn.SelectLambda on the explicit features. Dense inverses of systems with κ ≲ 1e8 against
// one eigendecomposition: 1e-7 relative.
func TestSelectLambdaFieldBruteForce(t *testing.T) {
	lambdas := []float64{1e-5, 1e-3, 1e-1}
	t.Run("p=2", func(t *testing.T) {
		const d, D, n = 2, 6, 30
		k := mustKernel(t)(ovk.NewCurlFree(0.8))
		m := mustMap(t, k, rule.G{}, d, D, 3)
		X, Y := field(n, d, d, 0.1, 4)
		st, err := Accumulate(m, X, n, Y)
		if err != nil {
			t.Fatal(err)
		}
		sel, err := SelectLambdaField(m, st, lambdas, true)
		if err != nil {
			t.Fatal(err)
		}
		Phi, y := fieldDesign(t, m, X, n, Y)
		F, NP := m.Features(), n*d
		P := mat.NewDense(NP, F, Phi)
		for i, lambda := range lambdas {
			var G mat.Dense
			G.Mul(P.T(), P)
			for f := range F {
				G.Set(f, f, G.At(f, f)+float64(n)*lambda)
			}
			var Gi, T, H mat.Dense
			if err := Gi.Inverse(&G); err != nil {
				t.Fatal(err)
			}
			T.Mul(P, &Gi)
			H.Mul(&T, P.T())
			df := float64(d) // the intercepts
			var rss float64
			for r := range NP {
				df += H.At(r, r)
				fr := 0.0
				for c := range NP {
					fr += H.At(r, c) * y[c]
				}
				rss += (y[r] - fr) * (y[r] - fr)
			}
			want := float64(NP) * rss / ((float64(NP) - df) * (float64(NP) - df))
			if e := math.Abs(sel.GCV[i]-want) / want; e > 1e-7 {
				t.Errorf("λ = %g: GCV %v, brute force %v (relative %.3g)", lambda, sel.GCV[i], want, e)
			}
			if e := math.Abs(sel.DF[i]-df) / df; e > 1e-7 {
				t.Errorf("λ = %g: df %v, brute force %v", lambda, sel.DF[i], df)
			}
		}
	})
	t.Run("p=1", func(t *testing.T) {
		const d, D, n = 1, 8, 40
		k := mustKernel(t)(ovk.NewCurlFree(0.8))
		m := mustMap(t, k, rule.G{}, d, D, 5)
		X, Y := field(n, d, d, 0.1, 6)
		st, err := Accumulate(m, X, n, Y)
		if err != nil {
			t.Fatal(err)
		}
		sel, err := SelectLambdaField(m, st, lambdas, true)
		if err != nil {
			t.Fatal(err)
		}
		F := m.Features()
		Phi := make([]float64, n*F)
		if err := m.TransformRows(Phi, X, n); err != nil {
			t.Fatal(err)
		}
		ps, err := learn.NewStats(F, 1)
		if err != nil {
			t.Fatal(err)
		}
		ps.Add(Phi, Y, n)
		want, err := learn.SelectLambda(ps, lambdas, true)
		if err != nil {
			t.Fatal(err)
		}
		for i := range lambdas {
			if e := math.Abs(sel.GCV[i]-want.GCV[i]) / want.GCV[i]; e > 1e-7 {
				t.Errorf("λ = %g: GCV %v, scalar %v", lambdas[i], sel.GCV[i], want.GCV[i])
			}
			if e := math.Abs(sel.LogEvidence[i] - want.LogEvidence[i]); e > 1e-7*math.Abs(want.LogEvidence[i]) {
				t.Errorf("λ = %g: log evidence %v, scalar %v", lambdas[i], sel.LogEvidence[i], want.LogEvidence[i])
			}
		}
	})
}
