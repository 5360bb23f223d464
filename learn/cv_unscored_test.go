package learn

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// mirrorMap has the features [x, −x] of a one-dimensional input: ZᵀZ = [[s, −s], [−s, s]] with s = Σx², singular.
// With x = ±1 and s a power of 4, N_tλ below half an ulp of s vanishes in s + N_tλ, and Cholesky's second pivot
// (s + N_tλ) − s²/(s + N_tλ) is exactly 0 in IEEE arithmetic: the system is not positive definite numerically.
type mirrorMap struct{}

func (mirrorMap) Dim() int      { return 1 }
func (mirrorMap) Features() int { return 2 }
func (mirrorMap) Points() int   { return 1 }
func (mirrorMap) TransformBlock(z, x []float64, rows int, _ []float64) {
	for i := range rows {
		z[2*i], z[2*i+1] = x[i], -x[i]
	}
}

// TestCVUnscoredLambda: a λ at which a fold's training system is not positive definite is scored NaN — the other λ
// of the grid are scored and chosen from — and a grid of only such λ is an error, for the squared loss on targets
// and on classes (short grids: one Cholesky factorisation per λ; the eigendecomposition of long grids scores this
// λ, whose μ + N_tλ is not ≤ 0).
func TestCVUnscoredLambda(t *testing.T) {
	const n, k = 32, 2 // 16 training rows per fold: s = 16
	X, Y, labels := make([]float64, n), make([]float64, n), make([]int, n)
	for i := range n {
		X[i] = float64(1 - 2*(i/2%2)) // +1, +1, −1, −1, …: each fold has both signs
		Y[i], labels[i] = X[i]+0.1*float64(i%3), (i/2)%2
	}
	tiny, ok := 1e-20, 1.0
	cv, err := CrossValidate(mirrorMap{}, X, n, Y, 1, k, []float64{tiny, ok}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(cv.MSE[0]) || math.IsNaN(cv.MSE[1]) || cv.BestIndex != 1 || cv.Best != ok {
		t.Errorf("MSE %v, best %g (index %d); want NaN at λ = %g and λ = %g chosen", cv.MSE, cv.Best, cv.BestIndex, tiny, ok)
	}
	cls, err := CrossValidateClasses(mirrorMap{}, X, n, labels, 2, OneHotCoding, k, []float64{tiny, ok}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(cls.Accuracy[0]) || math.IsNaN(cls.Accuracy[1]) || cls.Best != ok || cls.Correct[0] != 0 {
		t.Errorf("classes: accuracy %v, best %g; want NaN at λ = %g and λ = %g chosen", cls.Accuracy, cls.Best, tiny, ok)
	}
	for f, fc := range cls.FoldCorrect {
		if fc[0] != 0 {
			t.Errorf("fold %d counts %d correct rows at λ = %g, which could not be fitted", f+1, fc[0], tiny)
		}
	}
	if _, err := CrossValidate(mirrorMap{}, X, n, Y, 1, k, []float64{tiny}, false); !errors.Is(err, errNoLambda) {
		t.Errorf("a grid of one unscorable λ: %v", err)
	}
	if _, err := CrossValidateClasses(mirrorMap{}, X, n, labels, 2, OneHotCoding, k, []float64{tiny}, false); !errors.Is(err, errNoLambda) {
		t.Errorf("classes, a grid of one unscorable λ: %v", err)
	}
}

// TestCVResultJSON: a λ that could not be scored is null in JSON (encoding/json refuses NaN), in its place.
func TestCVResultJSON(t *testing.T) {
	b, err := json.Marshal(CVResult{Lambdas: []float64{1e-9, 1}, MSE: []float64{math.NaN(), 0.5},
		FoldMSE: [][]float64{{math.NaN(), 0.25}}, Best: 1, BestIndex: 1})
	if want := `{"lambdas":[1e-9,1],"mse":[null,0.5],"fold_mse":[[null,0.25]],"best":1,"best_index":1}`; err != nil || string(b) != want {
		t.Errorf("%s, %v; want %s", b, err, want)
	}
}

// TestPosteriorHugeLambda: a λ whose N·λ overflows is refused by name, with the remedy that helps (lower λ), not
// reported as "no residual degrees of freedom … increase λ"; a large λ whose N·λ is finite still fits.
func TestPosteriorHugeLambda(t *testing.T) {
	st, err := NewStats(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	st.Add([]float64{1, 0, 0, 1, 1, 1}, []float64{1, 2, 3}, 3)
	st.Finish()
	if _, err := NewPosterior(st, 1e308, true); err == nil || !strings.Contains(err.Error(), "lower λ") { // N·λ = 3e308 = +Inf
		t.Errorf("λ = 1e308: %v", err)
	}
	// A large λ whose N·λ is finite fits: the posterior of a model that predicts the mean.
	if p, err := NewPosterior(st, 1e200, true); err != nil || !(p.DF >= 1 && p.DF < 1+1e-9) {
		t.Errorf("λ = 1e200: %v (DF %v, want 1: the intercept alone)", err, p)
	}
}

// TestClassifierNotConvergedNoted: a classifier stopped by MaxIter short of its tolerance says so (Stats.Note) and
// reports the gap over all of its dual variables, shrunk ones included, not the gap of the active set; a converged
// one has no note.
func TestClassifierNotConvergedNoted(t *testing.T) {
	X, labels := blobs(400, 3, 2, 0.8, 5)
	m := gaussMap(t, 3, 30, 1, 2)
	for _, c := range []Classifier{
		{Loss: SquaredHinge, Lambda: 1e-5, Tol: 1e-12, MaxIter: 20},
		{Loss: Hinge, Lambda: 1e-5, MaxIter: 3},
		{Loss: Logistic, Lambda: 1e-5, MaxIter: 2},
	} {
		fit, err := c.FitMap(m, X, 400, labels, 2)
		if err != nil {
			t.Fatal(err)
		}
		tol := c.Tol
		if tol == 0 {
			tol = map[Loss]float64{Hinge: 0.01, Logistic: 1e-6}[c.Loss]
		}
		if fit.Stats.Note == "" || !(fit.Stats.Residual > tol) {
			t.Errorf("%v, MaxIter %d: residual %g, note %q; want a residual above %g and a note", c.Loss, c.MaxIter, fit.Stats.Residual, fit.Stats.Note, tol)
		}
	}
	fit, err := Classifier{Loss: Hinge, Lambda: 1e-2}.FitMap(m, X, 400, labels, 2)
	if err != nil || fit.Stats.Note != "" {
		t.Errorf("a converged fit: %v, note %q", err, fit.Stats.Note)
	}
}
