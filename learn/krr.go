package learn

import (
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/finite"
	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/internal/solve"
	"github.com/rffkit/rff/kernel"
)

// DefaultKRRMaxBytes is the default limit on the size of the exact N×N Gram matrix (8N² bytes): 4 GiB, N ≈ 23170.
const DefaultKRRMaxBytes = 4 << 30

// KRR is exact kernel ridge regression, the baseline of random-feature ridge: it minimises
// (1/N)Σ‖f(x_i) − y_i‖² + λ‖f‖²_H over f in the kernel's RKHS (plus an unpenalised bias when Intercept is set), the
// objective and λ convention of Ridge, so both fits are directly comparable. See the package documentation for
// the equations and the intercept treatment.
type KRR struct {
	Kernel kernel.Kernel
	// Lambda is λ ≥ 0; an intercept needs λ > 0 (the centred Gram is singular).
	Lambda float64
	// Intercept fits an unpenalised bias by centring the Gram matrix in feature space.
	Intercept bool
	// MaxBytes caps the memory of the N×N Gram matrix, 8N² bytes (0 means DefaultKRRMaxBytes). The Cholesky
	// factorisation is done in place, so the Gram matrix is the only N×N allocation.
	MaxBytes int64
}

// KRRFit is a fitted exact kernel ridge regression model: f(x) = Σ_i α_i k(x_i, x) + b.
type KRRFit struct {
	Kernel    kernel.Kernel
	X         []float64 // N×Dim training inputs (a copy)
	N, Dim, P int
	Alpha     []float64 // N×P, row-major (Hα with an intercept, whose columns sum to 0)
	Bias      []float64 // P
	Lambda    float64
	Intercept bool
	Stats     SolveStats
}

// Fit computes the exact Gram matrix of the n rows of X (n×d) in parallel (kernel.Gram), and solves
// (K + NλI)α = Y — or, with an intercept, (HKH + NλI)α = Y − 1ȳᵀ with H = I − 11ᵀ/N — by an in-place Cholesky
// factorisation. It refuses, with an error, Gram matrices larger than MaxBytes, NaN/Inf data, λ < 0, λ = 0 with an
// intercept, and systems that are not numerically positive definite.
func (k KRR) Fit(X []float64, n, d int, Y []float64, p int) (*KRRFit, error) {
	start := time.Now()
	if k.Kernel == nil {
		return nil, errors.New("learn.KRR.Fit: nil kernel")
	}
	if err := blocks.CheckData("learn.KRR.Fit", X, n, d, Y, p); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("learn.KRR.Fit: no data (N = 0)")
	}
	if math.IsNaN(k.Lambda) || math.IsInf(k.Lambda, 0) || k.Lambda < 0 {
		return nil, fmt.Errorf("learn.KRR.Fit: λ = %v: need a finite λ ≥ 0", k.Lambda)
	}
	if err := blocks.CheckLambda("learn.KRR.Fit: ", n, k.Lambda); err != nil {
		return nil, err
	}
	if k.Intercept && k.Lambda == 0 {
		return nil, errors.New("learn.KRR.Fit: an intercept needs λ > 0 (the centred Gram matrix HKH is singular)")
	}
	limit := k.MaxBytes
	if limit <= 0 {
		limit = DefaultKRRMaxBytes
	}
	if need := 8 * float64(n) * float64(n); need > float64(limit) {
		return nil, fmt.Errorf("learn.KRR.Fit: the exact %d×%d Gram matrix needs %s, above the limit of %s "+
			"(raise KRR.MaxBytes, or use random features with learn.Ridge)", n, n, solve.Bytes(need), solve.Bytes(float64(limit)))
	}

	K := make([]float64, n*n)
	if err := kernel.Gram(K, k.Kernel, X, n, X, n, d); err != nil {
		return nil, fmt.Errorf("learn.KRR.Fit: %w", err)
	}
	if i := finite.Index(K); i >= 0 {
		return nil, fmt.Errorf("learn.KRR.Fit: kernel %s returned %v", k.Kernel.Name(), K[i])
	}
	N := float64(n)
	rhs := append([]float64(nil), Y...)
	var rowMean, ybar []float64
	if k.Intercept {
		rowMean, ybar = centreGram(K, n), centreTargets(rhs, n, p)
	}
	diag := make([]float64, n)
	var anorm float64 // 1-norm of the system matrix, for the condition estimate
	for i := range n {
		K[i*n+i] += N * k.Lambda
		diag[i] = K[i*n+i]
		var s float64
		for _, v := range K[i*n : (i+1)*n] {
			s += math.Abs(v)
		}
		anorm = max(anorm, s)
	}
	a := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: K}
	t, ok := lapack64.Potrf(a)
	if !ok {
		return nil, fmt.Errorf("learn.KRR.Fit: K + NλI is not positive definite (λ = %g): increase λ", k.Lambda)
	}
	if k.Lambda == 0 {
		work := make([]float64, 3*n)
		iwork := make([]int, n)
		if rc := lapack64.Pocon(a, anorm, work, iwork); rc < 1e-14 {
			return nil, fmt.Errorf("learn.KRR.Fit: with λ = 0 the Gram matrix is singular (condition number ≈ %.2g): use λ > 0", 1/rc)
		}
	}
	alpha := append([]float64(nil), rhs...)
	lapack64.Potrs(t, blas64.General{Rows: n, Cols: p, Stride: p, Data: alpha})

	// Residual with the untouched strict lower triangle and the saved diagonal.
	udiag := make([]float64, n)
	for i := range n {
		udiag[i], K[i*n+i] = K[i*n+i], diag[i]
	}
	R := append([]float64(nil), rhs...)
	blas64.Symm(blas.Left, 1, blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: n, Data: K},
		blas64.General{Rows: n, Cols: p, Stride: p, Data: alpha}, -1, blas64.General{Rows: n, Cols: p, Stride: p, Data: R})
	residual := solve.RelResidual(R, rhs, n, p)

	fit := &KRRFit{Kernel: k.Kernel, X: append([]float64(nil), X...), N: n, Dim: d, P: p, Alpha: alpha,
		Bias: make([]float64, p), Lambda: k.Lambda, Intercept: k.Intercept}
	if k.Intercept {
		// α ← Hα (1ᵀα = 0 in exact arithmetic), b = ȳ − αᵀm.
		for j := range p {
			var s float64
			for i := range n {
				s += alpha[i*p+j]
			}
			s /= N
			for i := range n {
				alpha[i*p+j] -= s
			}
			b := ybar[j]
			for i := range n {
				b -= alpha[i*p+j] * rowMean[i]
			}
			fit.Bias[j] = b
		}
	}
	fit.Stats = SolveStats{Method: "cholesky", Residual: residual, Seconds: time.Since(start).Seconds()}
	return fit, nil
}

// centreGram replaces the symmetric n×n matrix K by HKH, H = I − 11ᵀ/N: K̃_ij = K_ij − m_i − m_j + m̄ (column means
// equal row means), and returns the row means m.
func centreGram(K []float64, n int) []float64 {
	N := float64(n)
	rowMean := make([]float64, n)
	var all float64
	for i := range n {
		var s float64
		for _, v := range K[i*n : (i+1)*n] {
			s += v
		}
		rowMean[i] = s / N
		all += s
	}
	all /= N * N
	for i := range n {
		row := K[i*n : (i+1)*n]
		for j := range row {
			row[j] += all - rowMean[i] - rowMean[j]
		}
	}
	return rowMean
}

// centreTargets subtracts from Y (n×p) its column means, which it returns.
func centreTargets(Y []float64, n, p int) []float64 {
	ybar := make([]float64, p)
	for i := range n {
		for j := range p {
			ybar[j] += Y[i*p+j]
		}
	}
	for j := range ybar {
		ybar[j] /= float64(n)
	}
	for i := range n {
		for j := range p {
			Y[i*p+j] -= ybar[j]
		}
	}
	return ybar
}

// SelectLambda evaluates the closed-form criteria of SelectLambda — degrees of freedom, GCV, noise variances and
// the Bayesian evidence, now of a Gaussian process with covariance σ²k/(Nλ) — for exact kernel ridge regression
// KRR{Kernel: k.Kernel, Lambda: λ, Intercept: k.Intercept} on the n rows of X (n×d) and Y (n×p), for every λ of
// lambdas (k.Lambda is ignored). It computes the N×N Gram matrix once, centres it (HKH) with an intercept, and
// eigendecomposes it, K̃ = V diag(μ) Vᵀ; the formulas of SelectLambda then hold with the eigenvalues μ_k of K̃ (the
// non-zero ones are those of the centred ZᵀZ of any feature map with ZZᵀ = K) and c_kj = (v_kᵀy_j)² in place of
// g_kj²/μ_k, so each λ costs O(N·p). Cost: O(N²d) for the Gram matrix and O(N³) for the eigendecomposition (LAPACK's
// dsyevd); memory four N×N arrays (the matrix, its eigenvectors and dsyevd's workspace), 32N² bytes, refused above
// MaxBytes. Every λ must be finite and > 0.
func (k KRR) SelectLambda(X []float64, n, d int, Y []float64, p int, lambdas []float64) (*Selection, error) {
	const where = "learn.KRR.SelectLambda"
	if k.Kernel == nil {
		return nil, errors.New(where + ": nil kernel")
	}
	if err := blocks.CheckData(where, X, n, d, Y, p); err != nil {
		return nil, err
	}
	if len(lambdas) == 0 {
		return nil, errors.New(where + ": empty λ grid")
	}
	if err := checkLambdas(where, n, lambdas, nil); err != nil {
		return nil, err
	}
	limit := k.MaxBytes
	if limit <= 0 {
		limit = DefaultKRRMaxBytes
	}
	if need := 32 * float64(n) * float64(n); need > float64(limit) {
		return nil, fmt.Errorf("%s: the eigendecomposition of the %d×%d Gram matrix needs %s, above the limit of %s "+
			"(raise KRR.MaxBytes, or tune on fewer rows)", where, n, n, solve.Bytes(need), solve.Bytes(float64(limit)))
	}
	Yc := append([]float64(nil), Y[:n*p]...)
	if k.Intercept {
		centreTargets(Yc, n, p)
	}
	if _, err := emptySpectrum(n, p, n, sumSquares(Yc, n, p), k.Intercept); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err) // before the Gram matrix
	}
	K := make([]float64, n*n)
	if err := kernel.Gram(K, k.Kernel, X, n, X, n, d); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if k.Intercept {
		centreGram(K, n)
	}
	sel, err := selectDual(K, n, Yc, p, lambdas, k.Intercept)
	if err != nil {
		return nil, fmt.Errorf("%s: kernel %s: %w", where, k.Kernel.Name(), err)
	}
	return sel, nil
}

// sumSquares returns Σ_i y_ij² per output of the n×p targets Y.
func sumSquares(Y []float64, n, p int) []float64 {
	yy := make([]float64, p)
	for i := range n {
		for j := range p {
			yy[j] += Y[i*p+j] * Y[i*p+j]
		}
	}
	return yy
}

// selectDual evaluates the criteria of the λ grid from the eigendecomposition of the n×n matrix K of inner products
// of the (centred, with intercept) features — HKH, or Z_cZ_cᵀ — and the targets Yc (centred with intercept): its
// non-zero eigenvalues are those of the centred ZᵀZ, and c_kj = (v_kᵀy_j)². K is overwritten.
func selectDual(K []float64, n int, Yc []float64, p int, lambdas []float64, intercept bool) (*Selection, error) {
	sp, err := emptySpectrum(n, p, n, sumSquares(Yc, n, p), intercept)
	if err != nil {
		return nil, err
	}
	mu, V, err := linalg.EigenSym(n, K)
	if err != nil {
		return nil, err
	}
	G := make([]float64, n*p) // Vᵀ Y (centred)
	linalg.Gemm(true, false, n, p, n, 1, V, n, Yc, p, 0, G, p)
	sp.fill(mu, G, true)
	sel := newSelection(&Stats{N: n, P: p}, lambdas, intercept)
	rss, q := make([]float64, p), make([]float64, p)
	for i, lambda := range lambdas {
		df, logdet := sp.at(lambda, rss, q)
		sel.record(i, df, logdet, rss, q, float64(n), sp.nt, intercept)
	}
	sel.BestGCV, sel.BestEvidence = sel.Lambdas[sel.BestGCVIndex], sel.Lambdas[sel.BestEvidenceIndex]
	return sel, nil
}

// Predict writes f(x) = Σ_i α_i k(x_i, x) + b for the rows of X (rows×Dim, row-major) into dst (rows×P),
// evaluating the kernel against the training rows in blocks of BlockRows rows (in parallel). It panics (with a
// message, on the calling goroutine) if rows < 0, a slice is too short, or f is not a fit made by [KRR.Fit] (nil, a
// nil kernel, or fields of inconsistent lengths).
func (f *KRRFit) Predict(dst, X []float64, rows int) {
	if f == nil {
		panic("learn.KRRFit.Predict: nil fit")
	}
	xn, okx := size.Mul(rows, f.Dim)
	pn, okp := size.Mul(rows, f.P)
	if !okx || !okp || len(X) < xn || len(dst) < pn {
		panic(fmt.Sprintf("learn.KRRFit.Predict: %d rows need %d input values and room for %d outputs, have %d and %d",
			rows, rows*f.Dim, rows*f.P, len(X), len(dst)))
	}
	n, d, p := f.N, f.Dim, f.P
	if f.Kernel == nil || n < 1 || d < 1 || p < 1 || !size.Is(len(f.X), n, d) || !size.Is(len(f.Alpha), n, p) ||
		len(f.Bias) != p {
		panic(fmt.Sprintf("learn.KRRFit.Predict: the fit is not one made by KRR.Fit (kernel %v, N=%d, Dim=%d, P=%d, "+
			"len X=%d, len Alpha=%d, len Bias=%d)", f.Kernel, n, d, p, len(f.X), len(f.Alpha), len(f.Bias)))
	}
	Kb := make([]float64, min(BlockRows, rows)*n)
	for r0 := 0; r0 < rows; r0 += BlockRows {
		r := min(BlockRows, rows-r0)
		kb := Kb[:r*n]
		if err := kernel.GramRows(kb, f.Kernel, X[r0*d:(r0+r)*d], r, f.X, n, d); err != nil { // a row's bits alone or not
			panic(fmt.Sprintf("learn.KRRFit.Predict: %v", err))
		}
		predictRows(dst[r0*p:(r0+r)*p], f.Bias, kb, r, n, f.Alpha, p)
	}
}
