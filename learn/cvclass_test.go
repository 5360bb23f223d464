package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// classes draws n inputs uniform in [−1, 1]^d and K classes from noisy nonlinear scores, so that held-out accuracy
// depends on λ.
func classes(n, d, K int, noise float64, seed uint64) (X []float64, labels []int) {
	rng := rand.New(rand.NewPCG(seed, 11))
	X = make([]float64, n*d)
	for i := range X {
		X[i] = 2*rng.Float64() - 1
	}
	labels = make([]int, n)
	s := make([]float64, K)
	for i := range n {
		x := X[i*d : (i+1)*d]
		for c := range K {
			s[c] = math.Sin(2*x[0]+float64(c)) + x[(c+1)%d]*x[c%d] + noise*rng.NormFloat64()
		}
		labels[i] = argmax(s)
	}
	return X, labels
}

// margin is the gap between the best and second-best entry of x.
func margin(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)-1] - s[len(s)-2]
}

// TestCrossValidateClassesBruteForce checks the held-out accuracy from statistics against explicit refits: for
// every fold, Ridge.FitMap on the training rows, PredictMap on the held-out rows and the model's decoding. The
// counts must be equal exactly. θ(λ) of a fold from the subtracted statistics and from the fold's own rows differ
// only by the rounding of sums of n terms, amplified by the condition number κ of ZᵀZ + NλI: at most
// c·κ·(n + F)·ε relative (c = 10 covers the constants of Cholesky and the sums). Exact equality of the counts
// then holds as long as no held-out score has a near tie, which the test checks of its data (the smallest gap
// between the best and second-best decoded score exceeds the θ bound by orders of magnitude).
func TestCrossValidateClassesBruteForce(t *testing.T) {
	const n, d, K, k = 120, 2, 3, 4
	X, labels := classes(n, d, K, 0.3, 5)
	m := gaussMap(t, d, 40, 0.6, 6)
	F := m.Features()
	lambdas := []float64{1e-1, 1e-6, 1e-4, 1e-2, 1e-3}
	defer func(v int, dual func(int, int) bool) { cvEigenMinGrid, cvDual = v, dual }(cvEigenMinGrid, cvDual)
	for _, c := range []struct {
		coding  Coding
		path    string
		minGrid int
	}{{OneHotCoding, "cholesky", 1 << 30}, {SimplexCoding, "cholesky", 1 << 30}, {OneHotCoding, "eigen", 1}, {SimplexCoding, "eigen", 1},
		{OneHotCoding, "dual", 1 << 30}, {SimplexCoding, "dual", 1 << 30}} {
		cvEigenMinGrid = c.minGrid
		cvDual = func(int, int) bool { return c.path == "dual" }
		t.Run(fmt.Sprintf("coding=%d,%s", c.coding, c.path), func(t *testing.T) {
			cv, err := CrossValidateClasses(m, X, n, labels, K, c.coding, k, lambdas, true)
			if err != nil {
				t.Fatal(err)
			}
			P := c.coding.Outputs(K)
			Y := c.coding.Encode(labels, K)
			folds, total, err := foldStats("test", m, X, n, Y, P, k)
			if err != nil {
				t.Fatal(err)
			}
			decode := c.coding.decoder(K)
			minGap := math.Inf(1)
			want := make([]int, len(lambdas))
			for f := range k {
				Xtr, Ytr, ntr := foldRows(X, n, d, Y, P, k, f, false)
				Xv, _, nv := foldRows(X, n, d, nil, 0, k, f, true)
				tr := sub(total, folds[f])
				direct := statsOf(t, features(t, m, Xtr, ntr), ntr, F, Ytr, P)
				var thetas [][]float64
				var rows *featureRows // the dual path's θ from the fold's training rows
				if c.path == "dual" {
					rows = (&featureRows{Z: features(t, m, X, n), Y: Y, n: n, F: F, P: P}).train(k, f)
				}
				if err := foldPath(tr, rows, lambdas, true, func(_ int, theta []float64) {
					thetas = append(thetas, slices.Clone(theta))
				}); err != nil {
					t.Fatal(err)
				}
				A, _ := direct.NormalEquations(true)
				var eig mat.EigenSym
				if !eig.Factorize(mat.NewSymDense(F, A), false) {
					t.Fatal("eigendecomposition failed")
				}
				mu := eig.Values(nil)
				for li, lambda := range lambdas {
					fit, err := Ridge{Lambda: lambda, Intercept: true}.FitMap(m, Xtr, ntr, Ytr, P)
					if err != nil {
						t.Fatal(err)
					}
					kappa := (mu[F-1] + float64(ntr)*lambda) / (max(mu[0], 0) + float64(ntr)*lambda)
					bound := 10 * kappa * float64(ntr+F) * 0x1p-52
					if e := relDiff(thetas[li], fit.Theta); e > bound {
						t.Errorf("fold %d, λ = %g: θ from statistics differs from the refit by %.3g relative, bound %.3g", f+1, lambda, e, bound)
					}
					out := make([]float64, nv*P)
					if err := fit.PredictMap(out, m, Xv, nv); err != nil {
						t.Fatal(err)
					}
					r := 0
					for i := f; i < n; i += k {
						s := out[r*P : (r+1)*P]
						if decode(s) == labels[i] {
							want[li]++
						}
						if c.coding == SimplexCoding {
							proj := make([]float64, K)
							C := SimplexCode(K)
							for q, v := range s {
								for j := range K {
									proj[j] += v * C[q*K+j]
								}
							}
							minGap = min(minGap, margin(proj))
						} else {
							minGap = min(minGap, margin(s))
						}
						r++
					}
				}
			}
			if minGap < 1e-6 {
				t.Fatalf("the test data have a near tie (gap %.3g): exact equality of the counts is not decided", minGap)
			}
			if !slices.Equal(cv.Correct, want) {
				t.Errorf("correct counts from statistics %v, from refits %v", cv.Correct, want)
			}
			for i, c := range cv.Correct {
				if cv.Accuracy[i] != float64(c)/n {
					t.Errorf("accuracy %v for %d correct of %d", cv.Accuracy[i], c, n)
				}
			}
			if slices.Min(want) == slices.Max(want) {
				t.Errorf("every λ gives %d correct rows: the test does not tell the λ apart", want[0])
			}
			best := 0
			for i := range lambdas {
				if want[i] > want[best] || (want[i] == want[best] && lambdas[i] > lambdas[best]) {
					best = i
				}
			}
			if cv.BestIndex != best || cv.Best != lambdas[best] {
				t.Errorf("best λ index %d (%g), want %d (%g)", cv.BestIndex, cv.Best, best, lambdas[best])
			}
		})
	}
}

// TestClassCVTiesGoToLargerLambda: well-separated classes are all classified correctly for every small λ, and the
// tie is broken toward the largest λ wherever it lies in the grid.
func TestClassCVTiesGoToLargerLambda(t *testing.T) {
	const n, d, K = 60, 2, 2
	X := make([]float64, n*d)
	labels := make([]int, n)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range n {
		labels[i] = i % K
		X[i*d] = 3*float64(labels[i]) - 1.5 + 0.1*rng.NormFloat64()
		X[i*d+1] = 0.1 * rng.NormFloat64()
	}
	m := gaussMap(t, d, 20, 1, 7)
	lambdas := []float64{1e-6, 1e-3, 1e-8, 1e-5}
	cv, err := CrossValidateClasses(m, X, n, labels, K, OneHotCoding, 3, lambdas, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cv.Correct {
		if c != n {
			t.Fatalf("λ = %g: %d of %d correct; the clusters are separated by 30 standard deviations", lambdas[i], c, n)
		}
	}
	if cv.Best != 1e-3 || cv.BestIndex != 1 {
		t.Errorf("best λ %g (index %d), want the largest, 1e-3 (index 1)", cv.Best, cv.BestIndex)
	}
}

// TestCrossValidateClassifierRefits: the refit cross-validation of the hinge, squared-hinge and logistic losses
// counts what explicit fold refits on the fold's own feature rows count (the same deterministic solver on the same
// bits, warm-started along the same path: equal counts).
func TestCrossValidateClassifierRefits(t *testing.T) {
	const n, d, K, k = 90, 2, 3, 3
	X, labels := classes(n, d, K, 0.3, 8)
	m := gaussMap(t, d, 30, 0.6, 9)
	F := m.Features()
	lambdas := []float64{1e-4, 1e-2, 1e-3}
	for _, loss := range []Loss{Hinge, SquaredHinge, Logistic} {
		t.Run(loss.String(), func(t *testing.T) {
			c := Classifier{Loss: loss, Seed: 3}
			cv, err := CrossValidateClassifier(c, m, X, n, labels, K, k, lambdas)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]int, len(lambdas))
			for f := range k {
				Xtr, _, ntr := foldRows(X, n, d, nil, 0, k, f, false)
				Xv, _, nv := foldRows(X, n, d, nil, 0, k, f, true)
				var ltr, lv []int
				for i, l := range labels {
					if i%k == f {
						lv = append(lv, l)
					} else {
						ltr = append(ltr, l)
					}
				}
				// The documented procedure: λ from the largest to the smallest, each fit started where the previous
				// one of the fold left off.
				var warm *warmStart
				for _, li := range []int{1, 2, 0} {
					cl := c
					cl.Lambda = lambdas[li]
					fit, next, err := cl.fit(features(t, m, Xtr, ntr), ntr, F, ltr, K, warm)
					if err != nil {
						t.Fatal(err)
					}
					warm = next
					out := make([]float64, nv*K)
					fit.Predict(out, features(t, m, Xv, nv), nv)
					for r, cls := range Argmax(out, nv, K) {
						if cls == lv[r] {
							want[li]++
						}
					}
				}
			}
			if !slices.Equal(cv.Correct, want) {
				t.Errorf("correct counts %v, explicit refits %v", cv.Correct, want)
			}
		})
	}
}

// TestClassCVErrors: bad arguments are errors, not panics.
func TestClassCVErrors(t *testing.T) {
	X, labels := classes(20, 2, 3, 0.1, 1)
	m := gaussMap(t, 2, 8, 1, 1)
	for name, err := range map[string]error{
		"nil map": func() error {
			_, err := CrossValidateClasses(nil, X, 20, labels, 3, OneHotCoding, 2, []float64{1}, true)
			return err
		}(),
		"label out of range": func() error {
			bad := slices.Clone(labels)
			bad[3] = 7
			_, err := CrossValidateClasses(m, X, 20, bad, 3, OneHotCoding, 2, []float64{1}, true)
			return err
		}(),
		"one fold": func() error {
			_, err := CrossValidateClasses(m, X, 20, labels, 3, OneHotCoding, 1, []float64{1}, true)
			return err
		}(),
		"zero λ": func() error {
			_, err := CrossValidateClasses(m, X, 20, labels, 3, SimplexCoding, 2, []float64{0}, true)
			return err
		}(),
		"squared loss by refits": func() error {
			_, err := CrossValidateClassifier(Classifier{Loss: Squared}, m, X, 20, labels, 3, 2, []float64{1})
			return err
		}(),
		"labels length": func() error {
			_, err := CrossValidateClassifier(Classifier{Loss: Hinge}, m, X, 20, labels[:5], 3, 2, []float64{1})
			return err
		}(),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
