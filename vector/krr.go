package vector

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"

	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/internal/solve"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/ovk"
)

// KRR is exact operator-valued kernel ridge regression, the baseline that [Ridge] converges to as D grows
// (docs/conventions.md §5, "Exact baselines"; Micchelli & Pontil 2005, cited in the ORFF paper §1). It minimises
//
//	(1/N) Σ_i ‖f(x_i) + b − y_i‖² + λ‖f‖²_{H_K}
//
// over f in the vector-valued RKHS of K (plus an unpenalised b ∈ R^p with Intercept), the λ convention of
// [Ridge], learn.Ridge and learn.KRR. By the representer theorem f(x) = Σ_i K(x, x_i)α_i with α (N×p) solving
//
//	(K + NλI) vec(α) = vec(Y)      (K the Np×Np block Gram matrix, block (i,j) = K(x_i, x_j); ovk.Gram).
//
// With an intercept the problem is solved in feature space with centred features, exactly as [learn.KRR] does: the block
// Gram is centred, K̃ = (H⊗I_p)K(H⊗I_p), H = I − 11ᵀ/N, the targets are centred, and the fit stores Hα, with
// b = ȳ − (1/N)Σ_j Σ_i K(x_j, x_i)(Hα)_i.
//
// Decomposable kernels K = k₀·A never form the Np×Np matrix: K = K₀⊗A (K₀ the N×N scalar Gram) and, row-major,
// (K₀⊗A)vec(α) = vec(K₀αA), so the system is the Stein equation K₀αA + Nλα = Y. With K₀ = UΛUᵀ and A = VMVᵀ,
//
//	α = U[(UᵀYV) ⊘ (λ_iμ_j + Nλ)]Vᵀ,   f(x) = Σ_i k₀(x, x_i)·Aα_i,
//
// the same trick as the ORFF closed form (docs/conventions.md §5). For a single λ and at most 8 distinct eigenvalues μ_j of A
// (A = I, A ∝ I as with simplex coding, a small covariance) the columns of αV are solved instead as the shifted
// systems (μ_jK₀ + NλI)(αV)_j = (YV)_j, one in-place Cholesky factorisation of K₀ per distinct μ_j, which is much
// cheaper than an eigendecomposition of K₀; columns with μ_j = 0 are (YV)_j/(Nλ), which A then annihilates.
//
// Memory: the Np×Np block Gram (8N²p² bytes) for curl-free, divergence-free and Helmholtz kernels; for a
// decomposable kernel 8N² bytes with the shifted systems and 24N² with the eigendecomposition (K₀, LAPACK's copy and
// the eigenvectors). Fits above MaxBytes are refused with an error stating the bytes needed.
type KRR struct {
	Kernel *ovk.Kernel
	// Lambda is λ ≥ 0; an intercept needs λ > 0 (the centred Gram is singular).
	Lambda float64
	// Intercept fits an unpenalised bias b ∈ R^p by centring in feature space.
	Intercept bool
	// MaxBytes caps the memory of the dense matrices (0 means learn.DefaultKRRMaxBytes, 4 GiB).
	MaxBytes int64
}

// KRRFit is a fitted exact operator-valued kernel ridge regression model f(x) = Σ_i K(x, x_i)α_i + b.
type KRRFit struct {
	Kernel *ovk.Kernel
	// X is a copy of the N×Dim training inputs.
	X         []float64
	N, Dim, P int
	// Alpha is α (N×P, row-major; Hα with an intercept, whose columns sum to 0).
	Alpha     []float64
	Bias      []float64 // P
	Lambda    float64
	Intercept bool
	// Stats reports the solve: Method "cholesky" (the block Gram, or the shifted systems of a decomposable kernel)
	// or "eigen"; Residual is the relative residual of (K + NλI)vec(α) = vec(Y) (centred with an intercept), the
	// largest over the outputs for a decomposable kernel; Seconds is the wall-clock time of the fit, Gram included.
	Stats learn.SolveStats
}

// shiftedMaxGroups is the largest number of distinct eigenvalues of A for which the exact decomposable solver
// factorises K₀ once per eigenvalue instead of eigendecomposing it.
const shiftedMaxGroups = 8

// Fit computes the exact Gram matrix of the n rows of X (n×d, row-major) and solves for α against the targets Y
// (n×p, p = Kernel.Outputs(d)). It returns an error for bad shapes, NaN/Inf data, λ < 0, λ = 0 with an intercept,
// a numerically singular system, or matrices larger than MaxBytes.
func (k KRR) Fit(X []float64, n, d int, Y []float64) (*KRRFit, error) {
	fits, err := k.fitPath("vector.KRR.Fit", X, n, d, Y, []float64{k.Lambda})
	if err != nil {
		return nil, err
	}
	return fits[0], nil
}

// FitPath fits the model for every λ in lambdas (k.Lambda is ignored), computing the Gram matrix once. For a
// decomposable kernel with more than one λ, K₀ and A are eigendecomposed once (mat.EigenSym) and each λ costs
// O(N²p); for the other kernels the block Gram is factorised once per λ.
func (k KRR) FitPath(X []float64, n, d int, Y []float64, lambdas []float64) ([]*KRRFit, error) {
	return k.fitPath("vector.KRR.FitPath", X, n, d, Y, lambdas)
}

func (k KRR) fitPath(where string, X []float64, n, d int, Y []float64, lambdas []float64) ([]*KRRFit, error) {
	start := time.Now()
	if k.Kernel == nil {
		return nil, fmt.Errorf("%s: nil kernel", where)
	}
	if d < 1 {
		return nil, fmt.Errorf("%s: input dimension must be at least 1, got %d", where, d)
	}
	p, err := k.Kernel.Outputs(d)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if err := blocks.CheckData(where, X, n, d, Y, p); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: no data (N = 0)", where)
	}
	if len(lambdas) == 0 {
		return nil, fmt.Errorf("%s: no λ given", where)
	}
	for _, l := range lambdas {
		if math.IsNaN(l) || math.IsInf(l, 0) || l < 0 {
			return nil, fmt.Errorf("%s: λ = %v: need a finite λ ≥ 0", where, l)
		}
		if k.Intercept && l == 0 {
			return nil, fmt.Errorf("%s: an intercept needs λ > 0 (the centred Gram matrix is singular)", where)
		}
		if err := blocks.CheckLambda(where+": ", n, l); err != nil {
			return nil, err
		}
	}
	var fits []*KRRFit
	if k.Kernel.Kind() == ovk.Decomposable {
		fits, err = k.decomposable(where, X, n, d, Y, p, lambdas)
	} else {
		fits, err = k.block(where, X, n, d, Y, p, lambdas)
	}
	if err != nil {
		return nil, err
	}
	for _, f := range fits {
		f.Stats.Seconds = time.Since(start).Seconds()
	}
	return fits, nil
}

func (k KRR) limit() int64 {
	if k.MaxBytes > 0 {
		return k.MaxBytes
	}
	return learn.DefaultKRRMaxBytes
}

func (k KRR) newFit(X []float64, n, d, p int, alpha []float64, lambda float64) *KRRFit {
	return &KRRFit{Kernel: k.Kernel, X: append([]float64(nil), X...), N: n, Dim: d, P: p, Alpha: alpha,
		Bias: make([]float64, p), Lambda: lambda, Intercept: k.Intercept}
}

// block solves (K + NλI)vec(α) = vec(Y) on the Np×Np block Gram by in-place Cholesky.
func (k KRR) block(where string, X []float64, n, d int, Y []float64, p int, lambdas []float64) ([]*KRRFit, error) {
	np := n * p
	if need := 8 * float64(np) * float64(np); need > float64(k.limit()) {
		return nil, fmt.Errorf("%s: the exact %d×%d block Gram matrix of the %s kernel needs %s, above the limit of %s "+
			"(raise vector.KRR.MaxBytes, or use ORFF features with vector.Ridge)", where, np, np, k.Kernel.Name(),
			solve.Bytes(need), solve.Bytes(float64(k.limit())))
	}
	K := make([]float64, np*np)
	if err := ovk.Gram(K, k.Kernel, X, n, X, n, d); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if err := checkFinite(K); err != nil {
		return nil, fmt.Errorf("%s: kernel %s: %w", where, k.Kernel.Name(), err)
	}
	N := float64(n)
	rhs := append([]float64(nil), Y...)
	var ybar, rowMean []float64
	if k.Intercept {
		ybar = centreColumns(rhs, n, p)
		rowMean = centreBlockGram(K, n, p)
	}
	fits := make([]*KRRFit, len(lambdas))
	for li, lambda := range lambdas {
		alpha, res, err := spdSolve(K, np, N*lambda, rhs, 1, lambda == 0)
		if err != nil {
			return nil, fmt.Errorf("%s: λ = %g: %w", where, lambda, err)
		}
		fit := k.newFit(X, n, d, p, alpha, lambda)
		fit.Stats = learn.SolveStats{Method: "cholesky", Residual: res}
		if k.Intercept {
			centreColumns(alpha, n, p) // α ← Hα
			// b[a] = ȳ[a] − Σ_i Σ_c R_i[c,a] β_i[c], R_i the mean of block row i.
			for a := 0; a < p; a++ {
				b := ybar[a]
				for i := 0; i < n; i++ {
					Ri := rowMean[i*p*p : (i+1)*p*p]
					for c := 0; c < p; c++ {
						b -= Ri[c*p+a] * alpha[i*p+c]
					}
				}
				fit.Bias[a] = b
			}
		}
		fits[li] = fit
	}
	return fits, nil
}

// centreBlockGram centres the Np×Np block Gram matrix K in place, K̃_ij = K_ij − R_i − R_jᵀ + M̄ (p×p blocks, R_i the
// mean of block row i, M̄ the mean of all blocks), and returns the block row means R (N·p·p).
func centreBlockGram(K []float64, n, p int) []float64 {
	np := n * p
	R := make([]float64, n*p*p)
	mbar := make([]float64, p*p)
	for i := 0; i < n; i++ {
		for a := 0; a < p; a++ {
			row := K[(i*p+a)*np : (i*p+a+1)*np]
			Ri := R[i*p*p+a*p : i*p*p+(a+1)*p]
			for j := 0; j < n; j++ {
				floats.Add(Ri, row[j*p:(j+1)*p])
			}
			floats.Scale(1/float64(n), Ri)
		}
		floats.AddScaled(mbar, 1/float64(n), R[i*p*p:(i+1)*p*p])
	}
	for i := 0; i < n; i++ {
		Ri := R[i*p*p : (i+1)*p*p]
		for a := 0; a < p; a++ {
			row := K[(i*p+a)*np : (i*p+a+1)*np]
			for j := 0; j < n; j++ {
				Rj := R[j*p*p : (j+1)*p*p]
				blk := row[j*p : (j+1)*p]
				for b := range blk {
					blk[b] += mbar[a*p+b] - Ri[a*p+b] - Rj[b*p+a]
				}
			}
		}
	}
	return R
}

// centreGram centres the n×n Gram matrix K in place (HKH) and returns its row means.
func centreGram(K []float64, n int) []float64 {
	N := float64(n)
	rowMean := make([]float64, n)
	var all float64
	for i := 0; i < n; i++ {
		s := floats.Sum(K[i*n : (i+1)*n])
		rowMean[i] = s / N
		all += s
	}
	all /= N * N
	for i := 0; i < n; i++ {
		row := K[i*n : (i+1)*n]
		for j := range row {
			row[j] += all - rowMean[i] - rowMean[j]
		}
	}
	return rowMean
}

// decomposable solves the Stein equation K₀αA + Nλα = Y on the N×N scalar Gram.
func (k KRR) decomposable(where string, X []float64, n, d int, Y []float64, p int, lambdas []float64) ([]*KRRFit, error) {
	As := k.Kernel.A()
	A := make([]float64, p*p)
	for a := 0; a < p; a++ {
		for b := 0; b < p; b++ {
			A[a*p+b] = As.At(a, b)
		}
	}
	mu, V, err := symEigenOrDiag(A, p)
	if err != nil {
		return nil, fmt.Errorf("%s: A: %w", where, err)
	}
	clampNonNegative(mu)
	groups := equalGroups(mu)
	eigen := len(lambdas) > 1 || len(groups) > shiftedMaxGroups
	copies := 1.0
	if eigen {
		copies = 3
	}
	if need := copies * 8 * float64(n) * float64(n); need > float64(k.limit()) {
		return nil, fmt.Errorf("%s: the exact decomposable solver needs %s for the %d×%d scalar Gram matrix%s, above the "+
			"limit of %s (raise vector.KRR.MaxBytes, or use ORFF features with vector.Ridge)", where, solve.Bytes(need), n, n,
			map[bool]string{true: " and its eigendecomposition", false: ""}[eigen], solve.Bytes(float64(k.limit())))
	}
	k0 := k.Kernel.Scalar()
	K := make([]float64, n*n)
	if err := kernel.Gram(K, k0, X, n, X, n, d); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if err := checkFinite(K); err != nil {
		return nil, fmt.Errorf("%s: kernel %s: %w", where, k0.Name(), err)
	}
	N := float64(n)
	rhs := append([]float64(nil), Y...)
	var ybar, rowMean []float64
	if k.Intercept {
		ybar = centreColumns(rhs, n, p)
		rowMean = centreGram(K, n)
	}
	R := rhs
	if V != nil {
		R = make([]float64, n*p)
		gemm(false, false, n, p, p, 1, rhs, V, 0, R)
	}
	muMax := floats.Max(mu)
	var lk, U, T []float64
	if eigen {
		if lk, U, err = symEigen(K, n); err != nil {
			return nil, fmt.Errorf("%s: K₀: %w", where, err)
		}
		clampNonNegative(lk)
		T = make([]float64, n*p)
		gemm(true, false, n, p, n, 1, U, R, 0, T)
	}
	fits := make([]*KRRFit, len(lambdas))
	for li, lambda := range lambdas {
		at := make([]float64, n*p) // αV
		method := "cholesky"
		if eigen {
			method = "eigen"
			W := make([]float64, n*p)
			if err := divideSpectrum(W, T, lk, mu, N*lambda, n, p); err != nil {
				return nil, fmt.Errorf("%s: λ = %g: %w", where, lambda, err)
			}
			gemm(false, false, n, p, n, 1, U, W, 0, at)
		} else {
			for _, g := range groups {
				mg := mu[g[0]]
				if mg <= 1e-13*muMax { // a null direction of A: α̃_j = (YV)_j/(Nλ)
					if lambda == 0 {
						return nil, fmt.Errorf("%s: with λ = 0 and a singular A the system is singular: use λ > 0", where)
					}
					for i := 0; i < n; i++ {
						for _, j := range g {
							at[i*p+j] = R[i*p+j] / (N * lambda)
						}
					}
					continue
				}
				b := make([]float64, n*len(g))
				for i := 0; i < n; i++ {
					for c, j := range g {
						b[i*len(g)+c] = R[i*p+j] / mg
					}
				}
				x, _, err := spdSolve(K, n, N*lambda/mg, b, len(g), lambda == 0)
				if err != nil {
					return nil, fmt.Errorf("%s: λ = %g: %w", where, lambda, err)
				}
				for i := 0; i < n; i++ {
					for c, j := range g {
						at[i*p+j] = x[i*len(g)+c]
					}
				}
			}
		}
		alpha := at
		if V != nil {
			alpha = make([]float64, n*p)
			gemm(false, true, n, p, p, 1, at, V, 0, alpha)
		}
		// Residual K₀αA + Nλα − Y.
		Ka := make([]float64, n*p)
		blas64.Symm(blas.Left, 1, blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: K},
			blas64.General{Rows: n, Cols: p, Stride: p, Data: alpha}, 0, blas64.General{Rows: n, Cols: p, Stride: p, Data: Ka})
		res := make([]float64, n*p)
		gemm(false, false, n, p, p, 1, Ka, A, 0, res)
		for i := range res {
			res[i] += N*lambda*alpha[i] - rhs[i]
		}
		fit := k.newFit(X, n, d, p, alpha, lambda)
		fit.Stats = learn.SolveStats{Method: method, Residual: solve.RelResidual(res, rhs, n, p)}
		if k.Intercept {
			centreColumns(alpha, n, p) // α ← Hα
			// b = ȳ − A·(αᵀm), m the row means of the uncentred K₀.
			u := make([]float64, p)
			for i := 0; i < n; i++ {
				floats.AddScaled(u, rowMean[i], alpha[i*p:(i+1)*p])
			}
			for a := 0; a < p; a++ {
				fit.Bias[a] = ybar[a] - floats.Dot(A[a*p:(a+1)*p], u)
			}
		}
		fits[li] = fit
	}
	return fits, nil
}

// Predict writes f(x) = Σ_i K(x, x_i)α_i + b for the rows of X (rows×Dim, row-major) into dst (rows×P), evaluating
// the kernel against the training rows in blocks (in parallel): k₀(X, X_train)·(αA) for a decomposable kernel,
// the block Gram times vec(α) otherwise. It returns an error if a length does not match or an input is not finite.
func (f *KRRFit) Predict(dst, X []float64, rows int) error {
	const where = "vector.KRRFit.Predict"
	if f == nil {
		return fmt.Errorf("%s: nil fit", where)
	}
	if f.Kernel == nil {
		return fmt.Errorf("%s: nil kernel", where)
	}
	if err := blocks.CheckX(where, X, rows, f.Dim); err != nil {
		return err
	}
	n, d, p := f.N, f.Dim, f.P
	if !size.Is(len(dst), rows, p) {
		return fmt.Errorf("%s: dst has %d values, want %d rows × %d outputs", where, len(dst), rows, p)
	}
	if n < 1 || p < 1 || !size.Is(len(f.Alpha), n, p) || len(f.Bias) != p || !size.Is(len(f.X), n, d) {
		return fmt.Errorf("%s: the fit is inconsistent (N=%d, Dim=%d, P=%d)", where, n, d, p)
	}
	if q, err := f.Kernel.Outputs(d); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	} else if q != p {
		return fmt.Errorf("%s: kernel %s has %d outputs in dimension %d, the fit %d", where, f.Kernel.Name(), q, d, p)
	}
	if rows == 0 {
		return nil
	}
	if f.Kernel.Kind() == ovk.Decomposable {
		As := f.Kernel.A()
		if q, _ := As.Dims(); q != p {
			return fmt.Errorf("%s: kernel has %d outputs, the fit %d", where, q, p)
		}
		A := make([]float64, p*p)
		for a := 0; a < p; a++ {
			for b := 0; b < p; b++ {
				A[a*p+b] = As.At(a, b)
			}
		}
		coef := make([]float64, n*p) // αA
		gemm(false, false, n, p, p, 1, f.Alpha, A, 0, coef)
		k0 := f.Kernel.Scalar()
		br := max(1, min(learn.BlockRows, (32<<20)/(8*max(n, 1))))
		kb := make([]float64, min(br, rows)*n)
		for r0 := 0; r0 < rows; r0 += br {
			r := min(br, rows-r0)
			// A row's values whatever the rows beside it: kernel.GramRows and linalg.MulRows.
			if err := kernel.GramRows(kb[:r*n], k0, X[r0*d:(r0+r)*d], r, f.X, n, d); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			out := dst[r0*p : (r0+r)*p]
			linalg.MulRows(false, r, p, n, kb, n, coef, p, out, p)
			for i := 0; i < r; i++ {
				for j, b := range f.Bias {
					out[i*p+j] += b
				}
			}
		}
		return nil
	}
	if q, err := f.Kernel.Outputs(d); err != nil || q != p {
		return fmt.Errorf("%s: kernel %s does not give %d outputs in dimension %d", where, f.Kernel.Name(), p, d)
	}
	np := n * p
	br := max(1, min(learn.BlockRows, (32<<20)/(8*p*np)))
	G := make([]float64, min(br, rows)*p*np)
	for r0 := 0; r0 < rows; r0 += br {
		r := min(br, rows-r0)
		g := G[:r*p*np]
		if err := ovk.Gram(g, f.Kernel, X[r0*d:(r0+r)*d], r, f.X, n, d); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		// One dot product of fixed order per output (linalg.MulRows): a row's values whatever the rows beside it.
		out := dst[r0*p : (r0+r)*p]
		linalg.MulRows(true, r*p, 1, np, g, np, f.Alpha, np, out, 1)
		for i := 0; i < r; i++ {
			for j, b := range f.Bias {
				out[i*p+j] += b
			}
		}
	}
	return nil
}
