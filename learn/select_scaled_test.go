package learn

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestScoreLambdasMatchesSelectLambda: the Cholesky route gives SelectLambda's criteria. df and the log-determinant
// come from the same eigenvalues (to the rounding of two eigenvalue routines, ~F·ε relative); RSS and Q differ by the
// cancellation in Σ(y − ȳ)² − θᵀB, bounded by c·κ·F·ε·Σ(y − ȳ)²/RSS relative, κ = cond(ZᵀZ + NλI) (c = 100 covers
// the constants of the eigendecomposition and of Cholesky).
func TestScoreLambdasMatchesSelectLambda(t *testing.T) {
	const n, d, p = 200, 3, 2
	X, Y := regression(n, d, p, 0.3, 31)
	m := gaussMap(t, d, 50, 0.7, 32)
	F := m.Features()
	st := statsOf(t, features(t, m, X, n), n, F, Y, p)
	lambdas := []float64{1e-6, 1e-4, 1e-2}
	for _, intercept := range []bool{true, false} {
		t.Run(fmt.Sprintf("intercept=%v", intercept), func(t *testing.T) {
			want, err := SelectLambda(st, lambdas, intercept)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ScoreLambdas(st, lambdas, intercept)
			if err != nil {
				t.Fatal(err)
			}
			A, _ := st.NormalEquations(intercept)
			var eig mat.EigenSym
			if !eig.Factorize(mat.NewSymDense(F, A), false) {
				t.Fatal("eigendecomposition failed")
			}
			mu := eig.Values(nil)
			yy, err := centredSumSquares(st, intercept)
			if err != nil {
				t.Fatal(err)
			}
			for i, lambda := range lambdas {
				nl := float64(n) * lambda
				kappa := (mu[F-1] + nl) / (max(mu[0], 0) + nl)
				var rss, yyAll float64
				for j := range p {
					rss += want.NoiseVar[i][j] * (float64(n) - want.DF[i])
					yyAll += yy[j]
				}
				bound := 100 * kappa * float64(F) * 0x1p-52 * yyAll / rss
				if e := relErr(got.DF[i], want.DF[i]); e > 100*float64(F)*0x1p-52 {
					t.Errorf("λ = %g: df %v, want %v (relative %.3g)", lambda, got.DF[i], want.DF[i], e)
				}
				if e := relErr(got.GCV[i], want.GCV[i]); e > bound {
					t.Errorf("λ = %g: GCV %v, want %v (relative %.3g, bound %.3g)", lambda, got.GCV[i], want.GCV[i], e, bound)
				}
				// The log evidence: the profiled −(Ñ/2)·log Q moves by (Ñ/2)·δQ/Q.
				if e := math.Abs(got.LogEvidence[i] - want.LogEvidence[i]); e > float64(n)*bound+1e-9*math.Abs(want.LogEvidence[i]) {
					t.Errorf("λ = %g: log evidence %v, want %v", lambda, got.LogEvidence[i], want.LogEvidence[i])
				}
			}
			if got.BestGCVIndex != want.BestGCVIndex || got.BestEvidenceIndex != want.BestEvidenceIndex {
				t.Errorf("best indices %d, %d; want %d, %d", got.BestGCVIndex, got.BestEvidenceIndex, want.BestGCVIndex, want.BestEvidenceIndex)
			}
		})
	}
	if _, err := ScoreLambdas(st, []float64{-1}, true); err == nil {
		t.Error("λ < 0: no error")
	}
	if _, err := ScoreLambdas(nil, lambdas, true); err == nil {
		t.Error("nil statistics: no error")
	}
}

// TestSelectLambdaScaled: with every scale 1 it is SelectLambda bit for bit; with output j penalised by λ·c_j, its
// per-output quantities are those of SelectLambda on output j alone at λ·c_j (same spectrum, same sums: equal to
// rounding of the order of F·ε), the GCV is N·ΣRSS_j/(P(N − mean df)²) and the evidence the sum over outputs.
func TestSelectLambdaScaled(t *testing.T) {
	const n, d, p = 150, 2, 3
	X, Y := regression(n, d, p, 0.3, 41)
	m := gaussMap(t, d, 30, 0.7, 42)
	F := m.Features()
	st := statsOf(t, features(t, m, X, n), n, F, Y, p)
	lambdas := LogGrid(1e-6, 1e-1, 6)
	one, err := SelectLambdaScaled(st, lambdas, []float64{1, 1, 1}, true)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := SelectLambda(st, lambdas, true)
	for i := range lambdas {
		if one.GCV[i] != plain.GCV[i] || one.LogEvidence[i] != plain.LogEvidence[i] {
			t.Errorf("scale 1, λ = %g: GCV %v and evidence %v, SelectLambda %v and %v", lambdas[i], one.GCV[i], one.LogEvidence[i], plain.GCV[i], plain.LogEvidence[i])
		}
	}
	scale := []float64{1, 4, 0.25}
	got, err := SelectLambdaScaled(st, lambdas, scale, true)
	if err != nil {
		t.Fatal(err)
	}
	tol := 1e3 * float64(F) * 0x1p-52
	for i, lambda := range lambdas {
		var rss, df, ev float64
		for j := range p {
			sj, err := SelectLambda(outputs(st, []int{j}), []float64{lambda * scale[j]}, true)
			if err != nil {
				t.Fatal(err)
			}
			rss += sj.NoiseVar[0][0] * (float64(n) - sj.DF[0])
			df += sj.DF[0] / p
			ev += sj.LogEvidence[0]
		}
		gcv := float64(n) * rss / (p * (float64(n) - df) * (float64(n) - df))
		if e := relErr(got.GCV[i], gcv); e > tol {
			t.Errorf("λ = %g: GCV %v, from the outputs %v (relative %.3g)", lambda, got.GCV[i], gcv, e)
		}
		if e := relErr(got.DF[i], df); e > tol {
			t.Errorf("λ = %g: mean df %v, from the outputs %v", lambda, got.DF[i], df)
		}
		if e := relErr(got.LogEvidence[i], ev); e > tol {
			t.Errorf("λ = %g: log evidence %v, sum over the outputs %v", lambda, got.LogEvidence[i], ev)
		}
	}
	if _, err := SelectLambdaScaled(st, lambdas, []float64{1, 0, 1}, true); err == nil {
		t.Error("zero scale: no error")
	}
	if _, err := SelectLambdaScaled(st, lambdas, []float64{1, 1}, true); err == nil {
		t.Error("too few scales: no error")
	}
}

// TestCrossValidateScaled: the pooled held-out error with output j penalised by λ·c_j is the mean over the outputs
// of CrossValidate on output j alone at λ·c_j (the same folds; the statistics differ only by the rounding of their
// sums, so the errors agree to ~1e-10 relative for these well-conditioned systems, κ ≲ 1e6).
func TestCrossValidateScaled(t *testing.T) {
	const n, d, p, k = 120, 2, 2, 4
	X, Y := regression(n, d, p, 0.3, 51)
	m := gaussMap(t, d, 20, 0.7, 52)
	lambdas := LogGrid(1e-5, 1e-1, 5)
	scale := []float64{3, 0.5}
	got, err := CrossValidateScaled(m, X, n, Y, p, k, lambdas, scale, true)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, len(lambdas))
	for j := range p {
		ls := make([]float64, len(lambdas))
		for i, l := range lambdas {
			ls[i] = l * scale[j]
		}
		cj, err := CrossValidate(m, X, n, column(Y, n, p, j), 1, k, ls, true)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range cj.MSE {
			want[i] += v / p
		}
	}
	for i := range lambdas {
		if e := relErr(got.MSE[i], want[i]); e > 1e-10 {
			t.Errorf("λ = %g: MSE %v, from the outputs %v (relative %.3g)", lambdas[i], got.MSE[i], want[i], e)
		}
	}
	same, err := CrossValidateScaled(m, X, n, Y, p, k, lambdas, []float64{1, 1}, true)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := CrossValidate(m, X, n, Y, p, k, lambdas, true)
	for i := range lambdas {
		if same.MSE[i] != plain.MSE[i] {
			t.Errorf("scale 1: MSE %v, CrossValidate %v", same.MSE[i], plain.MSE[i])
		}
	}
}
