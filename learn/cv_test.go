package learn

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCrossValidateBruteForce compares the statistics-only CV curve (θ by Cholesky per λ, by one eigendecomposition
// of ZᵀZ, or in the dual from one of Z_cZ_cᵀ) with explicit refits: for every fold the
// training rows and held-out rows are gathered, the model is fitted with Ridge.Solve on the training features and
// the held-out squared error is summed row by row. Both compute the same quantity through backward-stable solves of
// systems with condition number ≲ 1e7 and sums whose cancellation is bounded by Σy²/SSE ≲ 1e3, so they agree to
// far better than 1e-8 relative.
func TestCrossValidateBruteForce(t *testing.T) {
	const n, d, p, k = 150, 3, 2, 5
	X, Y := regression(n, d, p, 0.5, 21)
	m := gaussMap(t, d, 60, 0.5, 22) // F = 120 features for 120 training rows: small λ overfits

	F := m.Features()
	Z := features(t, m, X, n)
	lambdas := LogGrid(1e-6, 10, 8)
	defer func(v int, dual func(int, int) bool) { cvEigenMinGrid, cvDual = v, dual }(cvEigenMinGrid, cvDual)
	for _, c := range []struct {
		intercept bool
		path      string
		minGrid   int
	}{{false, "cholesky", 1 << 30}, {true, "cholesky", 1 << 30}, {false, "eigen", 1}, {true, "eigen", 1},
		{false, "dual", 1 << 30}, {true, "dual", 1 << 30}} {
		intercept := c.intercept
		cvEigenMinGrid = c.minGrid
		cvDual = func(int, int) bool { return c.path == "dual" }
		t.Run(fmt.Sprintf("intercept=%v,%s", intercept, c.path), func(t *testing.T) {
			cv, err := CrossValidate(m, X, n, Y, p, k, lambdas, intercept)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float64, len(lambdas))
			for f := range k {
				var tr, va []int
				for i := range n {
					if i%k == f {
						va = append(va, i)
					} else {
						tr = append(tr, i)
					}
				}
				s := mustStats(F, p)
				s.Add(rows(Z, F, tr), rows(Y, p, tr), len(tr))
				Zv, Yv := rows(Z, F, va), rows(Y, p, va)
				pred := make([]float64, len(va)*p)
				foldWant := make([]float64, len(lambdas))
				foldTol := make([]float64, len(lambdas))
				var yy float64 // Σ‖y‖² of the held-out rows: the scale of the terms that cancel in their SSE
				for _, v := range Yv {
					yy += v * v
				}
				A, _ := s.NormalEquations(intercept)
				var eig mat.EigenSym
				if !eig.Factorize(mat.NewSymDense(F, A), false) {
					t.Fatal("eigendecomposition failed")
				}
				mu := eig.Values(nil)
				for li, l := range lambdas {
					fit, err := Ridge{Lambda: l, Intercept: intercept}.Solve(s)
					if err != nil {
						t.Fatal(err)
					}
					fit.Predict(pred, Zv, len(va))
					var sse float64
					for i, v := range pred {
						sse += (v - Yv[i]) * (v - Yv[i])
					}
					want[li] += sse / float64(n*p)
					foldWant[li] = sse / float64(len(va)*p)
					// The dual forms Z_cZ_cᵀ instead of ZᵀZ: the two solutions differ by the rounding of
					// backward-stable solves, κ·(n + F)·ε relative (κ the condition number of ZᵀZ + NλI, c = 10
					// for the constants), amplified in the SSE by the cancellation Σ‖y‖²/SSE.
					nl := float64(len(tr)) * l
					kappa := (mu[F-1] + nl) / (max(mu[0], 0) + nl)
					foldTol[li] = 10 * kappa * float64(len(tr)+F) * 0x1p-52 * yy / sse
				}
				if c.path == "dual" {
					for li := range lambdas {
						if e := math.Abs(cv.FoldMSE[f][li]-foldWant[li]) / foldWant[li]; e > max(foldTol[li], 1e-8) {
							t.Errorf("fold %d, λ = %g: MSE %v, refit %v (relative difference %.3g, bound %.3g)", f, lambdas[li], cv.FoldMSE[f][li], foldWant[li], e, foldTol[li])
						}
					}
				} else if e := relDiff(cv.FoldMSE[f], foldWant); e > 1e-8 {
					t.Errorf("fold %d: MSE curve differs from refits by %.3g relative", f, e)
				}
			}
			for i := range want {
				if e := math.Abs(cv.MSE[i]-want[i]) / want[i]; e > 1e-8 && c.path != "dual" { // the dual: per fold above
					t.Errorf("λ = %g: MSE %v, refits %v (relative difference %.3g)", lambdas[i], cv.MSE[i], want[i], e)
				}
			}
			t.Logf("MSE %v", cv.MSE)
			best := 0
			for i := range want {
				if want[i] < want[best] {
					best = i
				}
			}
			if cv.BestIndex != best || cv.Best != lambdas[best] {
				t.Errorf("best λ %g (index %d), refits say %g (index %d)", cv.Best, cv.BestIndex, lambdas[best], best)
			}
			// The grid spans under- and over-regularisation: the optimum is inside it, not at an end.
			if best == 0 || best == len(lambdas)-1 {
				t.Logf("MSE curve %v", want)
				t.Errorf("optimum at the end of the grid (index %d): the test problem does not discriminate", best)
			}
		})
	}
}

func TestCrossValidateErrors(t *testing.T) {
	X, Y := regression(20, 2, 1, 0.1, 1)
	m := gaussMap(t, 2, 5, 1, 1)
	g := LogGrid(1e-3, 1, 3)
	for _, c := range []struct {
		name    string
		k       int
		lambdas []float64
	}{
		{"k = 1", 1, g}, {"k > n", 21, g}, {"empty grid", 5, nil}, {"λ = 0", 5, []float64{0, 1}},
		{"λ < 0", 5, []float64{-1}}, {"λ NaN", 5, []float64{math.NaN()}},
	} {
		if _, err := CrossValidate(m, X, 20, Y, 1, c.k, c.lambdas, true); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestLogGrid(t *testing.T) {
	g := LogGrid(1e-6, 1e2, 9)
	if len(g) != 9 || g[0] != 1e-6 || g[8] != 1e2 {
		t.Fatalf("grid %v", g)
	}
	for i := 1; i < len(g); i++ {
		if r := g[i] / g[i-1]; math.Abs(r-10) > 1e-12*10 {
			t.Errorf("ratio %d: %v, want 10", i, r)
		}
	}
	if g := LogGrid(1e-8, 1, 9); g[2] != 1e-6 || g[5] != 1e-3 {
		t.Errorf("decades are not exact: %v", g)
	}
	if g := LogGrid(3, 3, 1); len(g) != 1 || g[0] != 3 {
		t.Errorf("single point: %v", g)
	}
	for _, bad := range [][3]float64{{0, 1, 3}, {1, 0.5, 3}, {1, 2, 0}, {math.NaN(), 1, 2}, {1, math.Inf(1), 2}} {
		if g := LogGrid(bad[0], bad[1], int(bad[2])); g != nil {
			t.Errorf("LogGrid%v = %v, want nil", bad, g)
		}
	}
}

// TestCrossValidateDualWide: in the regime the dual is for — more than twice as many features as rows, ZᵀZ
// singular — CrossValidate (and CrossValidateClasses) in the dual agree with the primal's Cholesky solves, with one
// or several outputs, with and without intercept, for 5 folds and for leave-one-out. On λ ≥ 1e-3 the systems have
// condition numbers μ_max/(N_tλ) ≤ 1/λ = 1e3 (‖z‖² = 1), so both forms are accurate to about 1e3·(n + F)·ε ≈ 1e-11;
// checked at 1e-9.
func TestCrossValidateDualWide(t *testing.T) {
	defer func(dual func(int, int) bool) { cvDual = dual }(cvDual)
	const d = 2
	m := gaussMap(t, d, 60, 0.7, 9) // F = 120
	for _, c := range []struct {
		n, p, k   int
		intercept bool
	}{{40, 1, 5, true}, {40, 3, 5, false}, {7, 2, 7, true}} {
		t.Run(fmt.Sprintf("n=%d,p=%d,k=%d,intercept=%v", c.n, c.p, c.k, c.intercept), func(t *testing.T) {
			if !dualCheaper(c.n, m.Features()) {
				t.Fatalf("%d rows of %d features: not the dual's regime", c.n, m.Features())
			}
			X, Y := regression(c.n, d, c.p, 0.2, 17)
			lambdas := LogGrid(1e-3, 1, 7)
			cvDual = func(int, int) bool { return true }
			dual, err := CrossValidate(m, X, c.n, Y, c.p, c.k, lambdas, c.intercept)
			if err != nil {
				t.Fatal(err)
			}
			cvDual = func(int, int) bool { return false }
			primal, err := CrossValidate(m, X, c.n, Y, c.p, c.k, lambdas, c.intercept)
			if err != nil {
				t.Fatal(err)
			}
			if e := relDiff(dual.MSE, primal.MSE); !(e <= 1e-9) {
				t.Errorf("CV MSE in the dual %v, primal %v (relative difference %.3g)", dual.MSE, primal.MSE, e)
			}
			labels := make([]int, c.n)
			for i := range labels {
				labels[i] = int(Y[i*c.p]*7) % 3
			}
			cvDual = func(int, int) bool { return true }
			cd, err := CrossValidateClasses(m, X, c.n, labels, 3, OneHotCoding, c.k, lambdas, c.intercept)
			if err != nil {
				t.Fatal(err)
			}
			cvDual = func(int, int) bool { return false }
			cp, err := CrossValidateClasses(m, X, c.n, labels, 3, OneHotCoding, c.k, lambdas, c.intercept)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(cd.Correct, cp.Correct) {
				t.Errorf("correct counts in the dual %v, primal %v", cd.Correct, cp.Correct)
			}
		})
	}
}
