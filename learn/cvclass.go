package learn

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/internal/size"
)

// Coding is how class labels become regression targets for the squared loss, and how scores become classes again.
type Coding int

const (
	// OneHotCoding: K outputs, OneHot(labels, K, false); the class is the Argmax of the scores.
	OneHotCoding Coding = iota
	// SimplexCoding: K − 1 outputs, SimplexEncode(labels, K); the class is the SimplexDecode of the scores.
	SimplexCoding
)

// Outputs returns the number of coded outputs for K classes.
func (c Coding) Outputs(K int) int {
	if c == SimplexCoding {
		return K - 1
	}
	return K
}

// Encode returns the coded targets of labels (n×c.Outputs(K)). Like OneHot and SimplexEncode it panics, with a
// message, if a label is outside [0, K).
func (c Coding) Encode(labels []int, K int) []float64 {
	if c == SimplexCoding {
		return SimplexEncode(labels, K)
	}
	return OneHot(labels, K, false)
}

// decoder returns a function giving the class of one row of scores (the first class on ties, as Argmax and
// SimplexDecode).
func (c Coding) decoder(K int) func(scores []float64) int {
	if c != SimplexCoding {
		return argmax
	}
	C := SimplexCode(K)
	proj := make([]float64, K)
	return func(s []float64) int {
		clear(proj)
		for r, v := range s {
			for j, cv := range C[r*K : (r+1)*K] {
				proj[j] += v * cv
			}
		}
		return argmax(proj)
	}
}

// ClassCVResult is the outcome of CrossValidateClasses and CrossValidateClassifier: held-out accuracy for every λ.
type ClassCVResult struct {
	// Lambdas is the grid, in the order given.
	Lambdas []float64
	// N is the number of rows; Correct[i] counts the held-out rows classified correctly at Lambdas[i] over all folds,
	// and Accuracy[i] = Correct[i]/N.
	N        int
	Correct  []int
	Accuracy []float64
	// FoldCorrect[f][i] counts the correct rows of fold f alone at Lambdas[i] (0 for a λ that could not be scored).
	FoldCorrect [][]int
	// Best is the λ with the largest accuracy, the largest such λ on ties (the smoothest model), at index BestIndex.
	// The accuracy of a λ at which the training system of some fold is not positive definite (numerically, for a λ
	// too small for the features) is NaN: it could not be scored, and is never Best.
	Best      float64
	BestIndex int

	unscored []bool // per λ: some fold could not fit it
}

// finish sums the fold counts and picks the best λ among those scored; it returns errNoLambda when none was.
func (r *ClassCVResult) finish() error {
	r.Correct = make([]int, len(r.Lambdas))
	r.Accuracy = make([]float64, len(r.Lambdas))
	for _, fc := range r.FoldCorrect {
		for i, c := range fc {
			if r.unscored != nil && r.unscored[i] {
				fc[i] = 0 // the count of a model that was not fitted
			}
			r.Correct[i] += c
		}
	}
	r.BestIndex = -1
	for i, c := range r.Correct {
		if r.unscored != nil && r.unscored[i] {
			r.Correct[i], r.Accuracy[i] = 0, math.NaN()
			continue
		}
		r.Accuracy[i] = float64(c) / float64(r.N)
		b := r.BestIndex
		if b < 0 || c > r.Correct[b] || (c == r.Correct[b] && r.Lambdas[i] > r.Lambdas[b]) {
			r.BestIndex = i
		}
	}
	if r.BestIndex < 0 {
		return errNoLambda
	}
	r.Best = r.Lambdas[r.BestIndex]
	return nil
}

// checkClassCV validates the arguments shared by the classification cross-validations.
func checkClassCV(where string, m Mapper, X []float64, n int, labels []int, K, k int, lambdas []float64) error {
	if isNil(m) {
		return errors.New(where + ": nil feature map")
	}
	if err := blocks.CheckX(where, X, n, m.Dim()); err != nil {
		return err
	}
	switch {
	case len(labels) != n:
		return fmt.Errorf("%s: %d labels for %d rows", where, len(labels), n)
	case K < 2:
		return fmt.Errorf("%s: need at least 2 classes, have %d", where, K)
	case k < 2 || k > n:
		return fmt.Errorf("%s: need 2 ≤ k ≤ n folds, have k=%d, n=%d", where, k, n)
	case len(lambdas) == 0:
		return fmt.Errorf("%s: empty λ grid", where)
	}
	for i, l := range labels {
		if l < 0 || l >= K {
			return fmt.Errorf("%s: label %d of row %d is outside [0, %d)", where, l, i+1, K)
		}
	}
	for _, l := range lambdas {
		if !(l > 0) || math.IsInf(l, 0) {
			return fmt.Errorf("%s: λ = %v: every λ must be finite and > 0", where, l)
		}
	}
	return nil
}

// CrossValidateClasses estimates the held-out accuracy of the squared-loss classifier Ridge{Lambda: λ, Intercept:
// intercept} on the coded labels (coding, K classes) for every λ of lambdas by k-fold cross-validation, and picks
// the λ with the most correct held-out rows (the largest such λ on ties: the smoothest model).
//
// The folds are those of CrossValidate (row i in fold i mod k) and so are the training statistics (total − fold).
// For each fold, θ(λ) of every λ comes from the training statistics (one Cholesky factorisation per λ, or one
// eigendecomposition for grids of 64 λ or more), or with more than twice as many features as rows from the dual
// as in CrossValidate (one eigendecomposition of the fold's n_t×n_t Z_cZ_cᵀ); then one pass over the held-out rows maps them through m in blocks
// and predicts every λ at once, Z_v·[θ(λ₁) … θ(λ_L)] as one matrix product per block, plus the bias b(λ) = ȳ −
// θ(λ)ᵀz̄ of the training rows; the scores are decoded as the fitted model decodes them (Argmax for one-hot,
// SimplexDecode for simplex codes) and compared with the labels. Cost: the CrossValidate statistics plus k·L·F³/3
// for the factorisations (k·(n_t²F + n_t³) in the dual) and one more map of the rows; memory k·F·L·P for the stacked θ (refused beyond one array).
func CrossValidateClasses(m Mapper, X []float64, n int, labels []int, K int, coding Coding, k int, lambdas []float64, intercept bool) (*ClassCVResult, error) {
	const where = "learn.CrossValidateClasses"
	if coding != OneHotCoding && coding != SimplexCoding {
		return nil, fmt.Errorf("%s: unknown coding %d (OneHotCoding or SimplexCoding)", where, int(coding))
	}
	if err := checkClassCV(where, m, X, n, labels, K, k, lambdas); err != nil {
		return nil, err
	}
	d, F, P, L := m.Dim(), m.Features(), coding.Outputs(K), len(lambdas)
	LP := L * P
	if _, err := size.Floats(where+": the stacked θ of all λ", k, F, LP); err != nil {
		return nil, err
	}
	Y := coding.Encode(labels, K)
	folds, total, err := foldStats(where, m, X, n, Y, P, k)
	if err != nil {
		return nil, err
	}
	rows, err := dualRows(where, m, X, n, Y, P)
	if err != nil {
		return nil, err
	}
	// thetaT[f] is [θ(λ₁) … θ(λ_L)]ᵀ of fold f (LP×F), bias[f] its biases (LP).
	thetaT, bias := make([][]float64, k), make([][]float64, k)
	errs := make([]error, k)
	unscored := make([][]bool, k) // per fold and λ: the training system is not positive definite
	workers := max(1, min(runtime.GOMAXPROCS(0), k, shardBytes/max(1, 4*8*F*F)))
	parallel.For(k, workers, func(f int) {
		tr := sub(total, folds[f])
		T, b := make([]float64, LP*F), make([]float64, LP)
		var zbar, ybar []float64
		if intercept && tr.N > 0 {
			zbar, ybar = means(tr)
		}
		unscored[f] = make([]bool, len(lambdas))
		errs[f] = foldPath(tr, rows.train(k, f), lambdas, intercept, func(li int, theta []float64) {
			if theta == nil {
				unscored[f][li] = true // its θ stays 0; the λ is marked, not scored
				return
			}
			for i := range F {
				for j := range P {
					T[(li*P+j)*F+i] = theta[i*P+j]
				}
			}
			if zbar != nil {
				for j := range P {
					v := ybar[j]
					for i := range F {
						v -= theta[i*P+j] * zbar[i]
					}
					b[li*P+j] = v
				}
			}
		})
		thetaT[f], bias[f] = T, b
	})
	for f, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: fold %d: %w", where, f+1, err)
		}
	}
	res := &ClassCVResult{Lambdas: append([]float64(nil), lambdas...), N: n, FoldCorrect: make([][]int, k)}
	for f := range k {
		Xv, _, nv := foldRows(X, n, d, nil, 0, k, f, true)
		lv := make([]int, 0, nv)
		for i := f; i < n; i += k {
			lv = append(lv, labels[i])
		}
		res.FoldCorrect[f] = heldOutCorrect(m, Xv, nv, lv, thetaT[f], bias[f], L, P, coding.decoder, K)
	}
	res.unscored = make([]bool, L)
	for _, u := range unscored {
		for li, b := range u {
			res.unscored[li] = res.unscored[li] || b
		}
	}
	if err := res.finish(); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return res, nil
}

// heldOutCorrect maps the nv rows of Xv through m in blocks and counts, for each of the L stacked models (thetaT:
// LP×F, bias: LP), the rows whose decoded prediction equals their label.
func heldOutCorrect(m Mapper, Xv []float64, nv int, lv []int, thetaT, bias []float64, L, P int, decoder func(K int) func([]float64) int, K int) []int {
	F, LP := m.Features(), L*P
	S := blocks.Count(nv)
	counts := make([][]int, S)
	out := make([][]float64, S)
	decode := make([]func([]float64) int, S)
	mapBlocks(m, Xv, nv, S, func(s int, z []float64, r0, rows int) {
		if counts[s] == nil {
			counts[s] = make([]int, L)
			out[s] = make([]float64, BlockRows*LP)
			decode[s] = decoder(K)
		}
		o := out[s][:rows*LP]
		for r := range rows {
			copy(o[r*LP:(r+1)*LP], bias)
		}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1,
			blas64.General{Rows: rows, Cols: F, Stride: F, Data: z[:rows*F]},
			blas64.General{Rows: LP, Cols: F, Stride: F, Data: thetaT},
			1, blas64.General{Rows: rows, Cols: LP, Stride: LP, Data: o})
		for r := range rows {
			for li := range L {
				if decode[s](o[r*LP+li*P:r*LP+(li+1)*P]) == lv[r0+r] {
					counts[s][li]++
				}
			}
		}
	})
	total := make([]int, L)
	for _, c := range counts {
		for i, v := range c {
			total[i] += v
		}
	}
	return total
}

// CrossValidateClassifier estimates the held-out accuracy of the classifier c (hinge, squared-hinge or logistic
// loss; c.Lambda is ignored) for every λ of lambdas by k-fold cross-validation (row i in fold i mod k), refitting
// c on the features of the training rows of each fold for every λ, and picks the λ with the most correct held-out
// rows (the largest such λ on ties). The features of all rows are computed once and held in memory (8·n·F bytes,
// plus a copy of the training rows of one fold; capped by c.MaxBytes); the λ are visited from the largest to the
// smallest, the cheap well-conditioned problems first, and each refit of a fold starts where the fit at the
// previous λ left off (the SVMs' dual variables scaled to the new box, the logistic model's weights): the solvers
// reach the same optimum, within their stopping tolerance, in fewer epochs or iterations (2000 rows, 4 classes,
// 11 values of λ from 1e-2 down to 1e-7: 15% fewer epochs for the squared hinge, 10% fewer L-BFGS iterations for
// the logistic loss, as many for the hinge). Cost: k·L classifier fits.
func CrossValidateClassifier(c Classifier, m Mapper, X []float64, n int, labels []int, K, k int, lambdas []float64) (*ClassCVResult, error) {
	const where = "learn.CrossValidateClassifier"
	if err := checkClassCV(where, m, X, n, labels, K, k, lambdas); err != nil {
		return nil, err
	}
	if c.Loss != Hinge && c.Loss != SquaredHinge && c.Loss != Logistic {
		return nil, fmt.Errorf("%s: loss %v: use CrossValidateClasses for the squared loss", where, c.Loss)
	}
	F := m.Features()
	maxBytes := c.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultFeatureMaxBytes
	}
	if need := 8 * float64(F) * (float64(n) + float64(n-(n/k))); need > float64(maxBytes) {
		return nil, fmt.Errorf("%s: the features of the rows and of one fold's training rows need %.3g bytes, above the limit of %.3g (use fewer points)", where, need, float64(maxBytes))
	}
	Z, err := Features(m, X, n, maxBytes)
	if err != nil {
		return nil, err
	}
	order := make([]int, len(lambdas))
	for i := range order {
		order[i] = i
	}
	// Largest λ first (stable for equal values).
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && lambdas[order[j]] > lambdas[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	res := &ClassCVResult{Lambdas: append([]float64(nil), lambdas...), N: n, FoldCorrect: make([][]int, k)}
	for f := range k {
		Ztr, _, ntr := foldRows(Z, n, F, nil, 0, k, f, false)
		Zv, _, nv := foldRows(Z, n, F, nil, 0, k, f, true)
		ltr, lv := make([]int, 0, ntr), make([]int, 0, nv)
		for i, l := range labels {
			if i%k == f {
				lv = append(lv, l)
			} else {
				ltr = append(ltr, l)
			}
		}
		res.FoldCorrect[f] = make([]int, len(lambdas))
		scores := make([]float64, nv*K)
		var warm *warmStart // each fit starts where the previous, larger λ of the fold left off
		for _, li := range order {
			cl := c
			cl.Lambda = lambdas[li]
			fit, next, err := cl.fit(Ztr, ntr, F, ltr, K, warm)
			warm = next
			if err != nil {
				return nil, fmt.Errorf("%s: fold %d, λ = %g: %w", where, f+1, lambdas[li], err)
			}
			fit.Predict(scores, Zv, nv)
			for r, cls := range Argmax(scores, nv, K) {
				if cls == lv[r] {
					res.FoldCorrect[f][li]++
				}
			}
		}
	}
	if err := res.finish(); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return res, nil
}
