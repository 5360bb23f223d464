package learn

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/finite"
	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/internal/size"
)

// CVResult is the outcome of CrossValidate.
type CVResult struct {
	// Lambdas is the grid, in the order given.
	Lambdas []float64 `json:"lambdas"`
	// MSE[i] is the held-out mean squared error at Lambdas[i], pooled over all folds:
	// Σ_folds Σ_held-out rows ‖y − f(x)‖² / (N·P), i.e. the mean over every held-out (row, output) entry.
	MSE []float64 `json:"mse"`
	// FoldMSE[f][i] is the mean squared error on fold f alone, Σ_fold ‖y − f(x)‖² / (N_f·P).
	FoldMSE [][]float64 `json:"fold_mse"`
	// Best is the λ with the smallest MSE (the first one on ties), at index BestIndex. The MSE of a λ at which the
	// training system of some fold is not positive definite (numerically, for a λ too small for the features) is
	// NaN: it could not be scored, and is never Best.
	Best      float64 `json:"best"`
	BestIndex int     `json:"best_index"`
}

// MarshalJSON writes the result with the keys of its fields' tags, and null for a λ that could not be scored (NaN).
func (res CVResult) MarshalJSON() ([]byte, error) {
	fold := make([][]any, len(res.FoldMSE))
	for f, v := range res.FoldMSE {
		fold[f] = finite.JSON(v)
	}
	return json.Marshal(struct {
		Lambdas   []float64 `json:"lambdas"`
		MSE       []any     `json:"mse"`
		FoldMSE   [][]any   `json:"fold_mse"`
		Best      float64   `json:"best"`
		BestIndex int       `json:"best_index"`
	}{res.Lambdas, finite.JSON(res.MSE), fold, res.Best, res.BestIndex})
}

// LogGrid returns count values spaced evenly in log scale from lo to hi inclusive ([lo] when count = 1), or nil
// when the arguments do not describe a grid (count < 1, lo ≤ 0, hi < lo, a NaN/Inf bound, or more values than one
// array may hold).
func LogGrid(lo, hi float64, count int) []float64 {
	if count < 1 || count > size.MaxFloats || !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) {
		return nil
	}
	g := make([]float64, count)
	if count == 1 {
		g[0] = lo
		return g
	}
	a, b := math.Log10(lo), math.Log10(hi)
	for i := range g {
		e := a + (b-a)*float64(i)/float64(count-1)
		if r := math.Round(e); math.Abs(e-r) < 1e-9 {
			g[i] = math.Pow10(int(r)) // whole decades come out exact (1e-3, not 0.0009999…)
		} else {
			g[i] = math.Pow(10, e)
		}
	}
	g[0], g[count-1] = lo, hi
	return g
}

// CrossValidate estimates the held-out mean squared error of Ridge{Lambda: λ, Intercept: intercept} on the
// features of X (n×d, d = m.Dim()) against Y (n×p) for every λ of lambdas by k-fold cross-validation, and picks the
// best λ.
//
// Folds are interleaved: row i belongs to fold i mod k (deterministic; it keeps folds representative when the rows
// are sorted by label or time). The statistics of each fold are accumulated once; the training statistics of fold f
// are total − fold f. For grids of 64 λ or more the training system (centred when intercept) is eigendecomposed once
// per fold (mat.EigenSym, O(F³)), after which each λ costs O(F²·P): θ(λ) = U diag(1/(μ_i + N_t λ)) UᵀZᵀY; for
// shorter grids one Cholesky factorisation per λ is cheaper (gonum's EigenSym costs about 100 of them). With more
// than twice as many features as rows, θ(λ) comes from the dual instead: the features of the n rows are kept
// (n×F, mapped once more) and each fold's n_t×n_t matrix Z_cZ_cᵀ is eigendecomposed once (O(n_t²F + n_t³) for the
// whole grid instead of F³/3 per λ).
// Either way the held-out squared error is evaluated from the held-out fold's statistics (see the package
// documentation) without touching its rows again. Folds are processed concurrently when memory allows (about 4F² values per fold
// in flight); the k + 1 fold and total statistics take (k + 1)·F² values.
//
// Every λ must be finite and > 0; k must satisfy 2 ≤ k ≤ n.
func CrossValidate(m Mapper, X []float64, n int, Y []float64, p int, k int, lambdas []float64, intercept bool) (*CVResult, error) {
	if isNil(m) {
		return nil, errors.New("learn.CrossValidate: nil feature map")
	}
	d, F := m.Dim(), m.Features()
	if err := blocks.CheckData("learn.CrossValidate", X, n, d, Y, p); err != nil {
		return nil, err
	}
	if k < 2 || k > n {
		return nil, fmt.Errorf("learn.CrossValidate: need 2 ≤ k ≤ n folds, have k=%d, n=%d", k, n)
	}
	if len(lambdas) == 0 {
		return nil, errors.New("learn.CrossValidate: empty λ grid")
	}
	for _, l := range lambdas {
		if !(l > 0) || math.IsInf(l, 0) {
			return nil, fmt.Errorf("learn.CrossValidate: λ = %v: every λ must be finite and > 0", l)
		}
	}

	folds, total, err := foldStats("learn.CrossValidate", m, X, n, Y, p, k)
	if err != nil {
		return nil, err
	}
	rows, err := dualRows("learn.CrossValidate", m, X, n, Y, p)
	if err != nil {
		return nil, err
	}

	sse := make([][]float64, k)
	errs := make([]error, k)
	workers := max(1, min(runtime.GOMAXPROCS(0), k, shardBytes/max(1, 4*8*F*F)))
	parallel.For(k, workers, func(f int) {
		sse[f], errs[f] = foldErrors(sub(total, folds[f]), folds[f], rows.train(k, f), lambdas, intercept)
	})
	for f, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("learn.CrossValidate: fold %d: %w", f+1, err)
		}
	}

	res := &CVResult{Lambdas: append([]float64(nil), lambdas...), MSE: make([]float64, len(lambdas)), FoldMSE: make([][]float64, k)}
	for f := range k {
		res.FoldMSE[f] = make([]float64, len(lambdas))
		for i, e := range sse[f] {
			res.MSE[i] += e
			res.FoldMSE[f][i] = e / float64(folds[f].N*p)
		}
	}
	if err := res.finish(n * p); err != nil {
		return nil, fmt.Errorf("learn.CrossValidate: %w", err)
	}
	return res, nil
}

// foldStats accumulates the statistics of each fold (row i in fold i mod k, gathered one fold at a time) and their
// total.
func foldStats(where string, m Mapper, X []float64, n int, Y []float64, p, k int) (folds []*Stats, total *Stats, err error) {
	d := m.Dim()
	folds = make([]*Stats, k)
	for f := range k {
		Xf, Yf, nf := foldRows(X, n, d, Y, p, k, f, true)
		s, err := Accumulate(m, Xf, nf, Yf, p)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: fold %d: %w", where, f+1, err)
		}
		folds[f] = s
	}
	total = folds[0].Clone()
	for _, s := range folds[1:] {
		if err := total.Merge(s); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", where, err)
		}
	}
	return folds, total, nil
}

// foldRows returns the rows of fold f (row i in fold i mod k) of X (n×d) and Y (n×p), or with in = false the rows
// of the other folds, and their number.
func foldRows(X []float64, n, d int, Y []float64, p, k, f int, in bool) (Xf, Yf []float64, nf int) {
	nf = (n - f + k - 1) / k
	if !in {
		nf = n - nf
	}
	Xf = make([]float64, 0, nf*d)
	if Y != nil {
		Yf = make([]float64, 0, nf*p)
	}
	for i := range n {
		if (i%k == f) != in {
			continue
		}
		Xf = append(Xf, X[i*d:(i+1)*d]...)
		if Y != nil {
			Yf = append(Yf, Y[i*p:(i+1)*p]...)
		}
	}
	return Xf, Yf, nf
}

// cvEigenMinGrid is the grid length from which CrossValidate eigendecomposes each fold's training system instead
// of factorising it once per λ. With gonum's pure-Go LAPACK, mat.EigenSym with vectors costs about 100 Cholesky
// solves (measured: 88× at F = 256, 96× at F = 512, 115× at F = 1024), so the eigendecomposition pays off only for
// long grids; both paths give the same curve to rounding.
var cvEigenMinGrid = 64

// foldErrors returns, for each λ, the held-out sum of squared errors Σ_v ‖y − θ(λ)ᵀz − b(λ)‖² of the model fitted
// on the training statistics tr (or, when rows is not nil, on its training rows in the dual form), evaluated from
// the held-out statistics v.
func foldErrors(tr, v *Stats, rows *featureRows, lambdas []float64, intercept bool) ([]float64, error) {
	h := heldOut{v: v, VT: make([]float64, tr.F*tr.P), b: make([]float64, tr.P)}
	if intercept {
		h.zbar, h.ybar = means(tr)
	}
	out := make([]float64, len(lambdas))
	err := foldPath(tr, rows, lambdas, intercept, func(li int, theta []float64) {
		if theta == nil {
			out[li] = math.NaN()
			return
		}
		out[li] = h.sse(theta)
	})
	return out, err
}

// means returns the training means z̄ and ȳ of the statistics s (N ≥ 1).
func means(s *Stats) (zbar, ybar []float64) {
	N := float64(s.N)
	zbar, ybar = make([]float64, s.F), make([]float64, s.P)
	for i, v := range s.SumZ {
		zbar[i] = v / N
	}
	for j, v := range s.SumY {
		ybar[j] = v / N
	}
	return zbar, ybar
}

// foldPath computes θ(λ) (F×P, centred normal equations when intercept) of the ridge fit on the statistics tr for
// every λ of lambdas and calls each(i, θ(lambdas[i])) in order; θ is scratch, valid only during the call, and nil
// for a λ at which the training system is not positive definite (numerically: λ too small for the features). Grids of
// cvEigenMinGrid λ or more eigendecompose the training system once, θ(λ) = U diag(1/(μ_i + N_t λ)) UᵀZᵀY; shorter
// grids factorise it by Cholesky once per λ. Given the training rows (not nil), it works in the dual instead
// (dualPath).
func foldPath(tr *Stats, rows *featureRows, lambdas []float64, intercept bool, each func(i int, theta []float64)) error {
	F, P := tr.F, tr.P
	if tr.N == 0 {
		return errors.New("empty training set")
	}
	if rows != nil {
		return dualPath(rows, lambdas, intercept, each)
	}
	Nt := float64(tr.N)
	A, B := tr.NormalEquations(intercept)

	if len(lambdas) < cvEigenMinGrid {
		// One Cholesky factorisation per λ.
		M := make([]float64, F*F)
		for li, lambda := range lambdas {
			copy(M, A)
			for i := range F {
				M[i*F+i] += Nt * lambda
			}
			theta, _, err := cholSolve(M, B, F, P, false)
			if errors.Is(err, errIndefinite) {
				each(li, nil)
				continue
			}
			if err != nil {
				return fmt.Errorf("λ = %g: %w", lambda, err)
			}
			each(li, theta)
		}
		return nil
	}

	// One eigendecomposition A = U diag(μ) Uᵀ for the whole grid.
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(F, A), true) {
		return errors.New("eigendecomposition of the training ZᵀZ did not converge")
	}
	mu := eig.Values(nil)
	var uu mat.Dense
	eig.VectorsTo(&uu)
	raw := uu.RawMatrix()
	U := raw.Data // F×F, row-major, columns are eigenvectors
	if raw.Stride != F {
		U = mat.DenseCopyOf(&uu).RawMatrix().Data
	}
	ug := blas64.General{Rows: F, Cols: F, Stride: F, Data: U}
	// G = Uᵀ B.
	G := make([]float64, F*P)
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, ug, blas64.General{Rows: F, Cols: P, Stride: P, Data: B}, 0,
		blas64.General{Rows: F, Cols: P, Stride: P, Data: G})
	Hs := make([]float64, F*P)
	theta := make([]float64, F*P)
lambdas:
	for li, lambda := range lambdas {
		for i := range F {
			den := mu[i] + Nt*lambda
			if !(den > 0) { // μ_i + N_tλ ≤ 0: the training system is not positive definite at this λ
				each(li, nil)
				continue lambdas
			}
			for j := range P {
				Hs[i*P+j] = G[i*P+j] / den
			}
		}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, ug, blas64.General{Rows: F, Cols: P, Stride: P, Data: Hs}, 0,
			blas64.General{Rows: F, Cols: P, Stride: P, Data: theta})
		each(li, theta)
	}
	return nil
}

// featureRows holds n rows of features Z (n×F) and their targets Y (n×P).
type featureRows struct {
	Z, Y    []float64
	n, F, P int
}

// cvDual reports whether cross-validation on n rows of F features works in the dual (a variable for the tests).
var cvDual = dualCheaper

// dualRows maps the n rows of X for cross-validation in the dual when cvDual says so (nil otherwise).
func dualRows(where string, m Mapper, X []float64, n int, Y []float64, p int) (*featureRows, error) {
	F := m.Features()
	if !cvDual(n, F) {
		return nil, nil
	}
	Z, err := Features(m, X, n, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return &featureRows{Z: Z, Y: Y[:n*p], n: n, F: F, P: p}, nil
}

// train returns the training rows of fold f of k (every row but those i ≡ f mod k), or nil for nil rows.
func (r *featureRows) train(k, f int) *featureRows {
	if r == nil {
		return nil
	}
	Z, Y, nt := foldRows(r.Z, r.n, r.F, r.Y, r.P, k, f, false)
	return &featureRows{Z: Z, Y: Y, n: nt, F: r.F, P: r.P}
}

// dualPath is foldPath from the training rows r in the dual form: with Z_c and Y_c the rows centred by their means
// (with intercept) and Z_cZ_cᵀ = V diag(μ) Vᵀ (n×n), θ(λ) = Z_cᵀV diag(1/(μ_i + N_tλ)) VᵀY_c, equal to the primal
// (ZᵀZ + N_tλI)⁻¹ZᵀY_c by the push-through identity. One eigendecomposition serves the whole grid, at O(n²F + n³)
// instead of O(F³) per λ. Every direction counts, the smallest too: a direction with a tiny μ_i still carries
// Z_cᵀv_i of size √μ_i, which matters against N_tλ (dropping those below n·ε·μ_max moved θ by 3e-8 at λ = 0.1). A
// λ at which some μ_i + N_tλ is not positive — a rounding-negative μ_i against a λ too small for the features, where
// the primal factorisation fails too — gives nil.
func dualPath(r *featureRows, lambdas []float64, intercept bool, each func(i int, theta []float64)) error {
	n, F, P := r.n, r.F, r.P
	Zc, Yc, K := centredGram(r.Z, n, F, r.Y, P, intercept)
	mu, V, err := linalg.EigenSym(n, K)
	if err != nil {
		return err
	}
	K = nil
	W := make([]float64, F*n) // Z_cᵀV
	linalg.Gemm(true, false, F, n, n, 1, Zc, F, V, n, 0, W, n)
	G := make([]float64, n*P) // VᵀY_c
	linalg.Gemm(true, false, n, P, n, 1, V, n, Yc, P, 0, G, P)
	Nt := float64(n)
	H := make([]float64, n*P)
	theta := make([]float64, F*P)
lambdas:
	for li, lambda := range lambdas {
		for i, m := range mu {
			den := m + Nt*lambda
			if !(den > 0) {
				each(li, nil)
				continue lambdas
			}
			for j := range P {
				H[i*P+j] = G[i*P+j] / den
			}
		}
		linalg.Gemm(false, false, F, P, n, 1, W, n, H, P, 0, theta, P)
		each(li, theta)
	}
	return nil
}

// centredGram returns copies of the n×F features Z and the n×P targets Y centred by their column means (as they
// are without intercept), and K = Z_cZ_cᵀ (n×n).
func centredGram(Z []float64, n, F int, Y []float64, P int, intercept bool) (Zc, Yc, K []float64) {
	Zc = append([]float64(nil), Z[:n*F]...)
	Yc = append([]float64(nil), Y[:n*P]...)
	if intercept {
		centreTargets(Zc, n, F)
		centreTargets(Yc, n, P)
	}
	K = make([]float64, n*n)
	linalg.Gemm(false, true, n, n, F, 1, Zc, F, Zc, F, 0, K, n)
	return Zc, Yc, K
}

// heldOut evaluates held-out squared errors from the held-out statistics v.
type heldOut struct {
	v          *Stats
	zbar, ybar []float64 // training means (nil without intercept)
	VT, b      []float64 // scratch: Z_vᵀZ_v θ (F×P) and the bias (P)
}

// sse returns Σ_v ‖y − θᵀz − b‖² = Σy² − 2⟨θ, Z_vᵀY_v⟩ + ⟨θ, Z_vᵀZ_v θ⟩ − 2bᵀ(Σ_v y − θᵀΣ_v z) + N_v‖b‖² with
// b = ȳ_t − θᵀz̄_t (b = 0 without intercept), clamped at 0 against rounding.
func (h heldOut) sse(theta []float64) float64 {
	v := h.v
	F, P := v.F, v.P
	blas64.Symm(blas.Left, 1, blas64.Symmetric{Uplo: blas.Upper, N: F, Stride: F, Data: v.ZtZ},
		blas64.General{Rows: F, Cols: P, Stride: P, Data: theta}, 0,
		blas64.General{Rows: F, Cols: P, Stride: P, Data: h.VT})
	var e float64
	for j := range P {
		e += v.SumYY[j]
	}
	for i, t := range theta {
		e += t*h.VT[i] - 2*t*v.ZtY[i]
	}
	if h.zbar != nil {
		b := h.b
		copy(b, h.ybar)
		for i := range F {
			for j := range P {
				b[j] -= theta[i*P+j] * h.zbar[i]
			}
		}
		for j := range P {
			r := v.SumY[j]
			for i := range F {
				r -= theta[i*P+j] * v.SumZ[i]
			}
			e += -2*b[j]*r + float64(v.N)*b[j]*b[j]
		}
	}
	return max(e, 0)
}

// CrossValidateScaled is CrossValidate for P ridge problems that share the features but not the penalty: output j
// is fitted with λ·scale[j] (scale[j] > 0 and finite), as the outputs of a decomposable operator-valued kernel
// rotated onto the eigenvectors of its A (scale[j] = 1/a_j; see SelectLambdaScaled). MSE is pooled over all
// (row, output) entries as in CrossValidate; outputs with equal scales share their factorisations. With every scale
// equal to 1 it is CrossValidate.
func CrossValidateScaled(m Mapper, X []float64, n int, Y []float64, p int, k int, lambdas, scale []float64, intercept bool) (*CVResult, error) {
	const where = "learn.CrossValidateScaled"
	if len(scale) != p {
		return nil, fmt.Errorf("%s: %d scales for %d outputs", where, len(scale), p)
	}
	same := true
	for _, v := range scale {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: scale %v: want finite scales > 0", where, v)
		}
		same = same && v == 1
	}
	if same {
		return CrossValidate(m, X, n, Y, p, k, lambdas, intercept)
	}
	if isNil(m) {
		return nil, errors.New(where + ": nil feature map")
	}
	if err := blocks.CheckData(where, X, n, m.Dim(), Y, p); err != nil {
		return nil, err
	}
	if k < 2 || k > n {
		return nil, fmt.Errorf("%s: need 2 ≤ k ≤ n folds, have k=%d, n=%d", where, k, n)
	}
	if len(lambdas) == 0 {
		return nil, errors.New(where + ": empty λ grid")
	}
	for _, l := range lambdas {
		for _, c := range scale {
			if !(l*c > 0) || math.IsInf(l*c, 0) {
				return nil, fmt.Errorf("%s: λ = %v with scale %v: every λ·scale must be finite and > 0", where, l, c)
			}
		}
	}
	folds, total, err := foldStats(where, m, X, n, Y, p, k)
	if err != nil {
		return nil, err
	}
	// Groups of outputs with equal scales.
	var groups [][]int
	for j, c := range scale {
		found := false
		for g, idx := range groups {
			if scale[idx[0]] == c {
				groups[g] = append(groups[g], j)
				found = true
				break
			}
		}
		if !found {
			groups = append(groups, []int{j})
		}
	}
	res := &CVResult{Lambdas: append([]float64(nil), lambdas...), MSE: make([]float64, len(lambdas)), FoldMSE: make([][]float64, k)}
	for f := range k {
		res.FoldMSE[f] = make([]float64, len(lambdas))
		tr := sub(total, folds[f])
		for _, g := range groups {
			ls := make([]float64, len(lambdas))
			for i, l := range lambdas {
				ls[i] = l * scale[g[0]]
			}
			sse, err := foldErrors(outputs(tr, g), outputs(folds[f], g), nil, ls, intercept)
			if err != nil {
				return nil, fmt.Errorf("%s: fold %d: %w", where, f+1, err)
			}
			for i, e := range sse {
				res.MSE[i] += e
				res.FoldMSE[f][i] += e / float64(folds[f].N*p)
			}
		}
	}
	if err := res.finish(n * p); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return res, nil
}

// outputs returns the statistics of s restricted to the outputs idx (ZᵀZ shared, not copied).
func outputs(s *Stats, idx []int) *Stats {
	q := len(idx)
	o := &Stats{F: s.F, P: q, ZtZ: s.ZtZ, ZtY: make([]float64, s.F*q), SumZ: s.SumZ, SumY: make([]float64, q),
		SumYY: make([]float64, q), N: s.N, sym: s.sym}
	for c, j := range idx {
		for i := range s.F {
			o.ZtY[i*q+c] = s.ZtY[i*s.P+j]
		}
		o.SumY[c], o.SumYY[c] = s.SumY[j], s.SumYY[j]
	}
	return o
}

// finish divides the pooled squared errors by the number of entries and picks the best λ (the first on ties) among
// those scored (not NaN); it returns errNoLambda when none was.
func (res *CVResult) finish(entries int) error {
	res.BestIndex = -1
	for i := range res.MSE {
		res.MSE[i] /= float64(entries)
		if !math.IsNaN(res.MSE[i]) && (res.BestIndex < 0 || res.MSE[i] < res.MSE[res.BestIndex]) {
			res.BestIndex = i
		}
	}
	if res.BestIndex < 0 {
		return errNoLambda
	}
	res.Best = res.Lambdas[res.BestIndex]
	return nil
}

// errNoLambda is the error of a cross-validation that could score no λ of its grid.
var errNoLambda = errors.New("the ridge system ZᵀZ + NλI of some fold is not positive definite at every λ of the grid: raise the grid's values")
