package nystrom

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/finite"
	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/internal/solve"
	"github.com/rffkit/rff/kernel"
)

// ErrNotConverged is returned (wrapped, together with the fit of the last iterate) when conjugate gradients stop at
// MaxIter before reaching the tolerance.
var ErrNotConverged = solve.ErrNotConverged

// Preconditioner selects how Falkon preconditions conjugate gradients.
type Preconditioner int

const (
	// CholeskyPreconditioner is FALKON's: B = T⁻¹A⁻¹/√N from the Cholesky factors of K_MM and TTᵀ/M + λI (the
	// default).
	CholeskyPreconditioner Preconditioner = iota
	// JacobiPreconditioner divides by the diagonal of the system matrix: the baseline FALKON is compared with.
	JacobiPreconditioner
	// NoPreconditioner runs plain conjugate gradients on the system.
	NoPreconditioner
)

// String returns "cholesky", "jacobi" or "none".
func (p Preconditioner) String() string {
	switch p {
	case CholeskyPreconditioner:
		return "cholesky"
	case JacobiPreconditioner:
		return "jacobi"
	case NoPreconditioner:
		return "none"
	}
	return fmt.Sprintf("Preconditioner(%d)", int(p))
}

// Falkon fits kernel ridge regression restricted to M centres, (K_NMᵀK_NM + NλK_MM)α = K_NMᵀY, by conjugate
// gradients with the preconditioner of Rudi, Carratino & Rosasco (2017), computing the kernel a block of rows at a
// time (see the package documentation). The objective is learn's, (1/N)Σ‖f(x_i) + b − y_i‖² + λ‖f‖²_H.
type Falkon struct {
	// Lambda is λ > 0.
	Lambda float64
	// Intercept fits an unpenalized bias b by centring the targets and the columns of K_NM.
	Intercept bool
	// Tol is the relative residual ‖r‖/‖rhs‖ per output at which CG stops, on the preconditioned system for the
	// Cholesky preconditioner and on the system itself otherwise; 0 means 1e-7.
	Tol float64
	// MaxIter bounds the CG iterations; 0 means 100.
	MaxIter int
	// Preconditioner is CholeskyPreconditioner (the default), JacobiPreconditioner or NoPreconditioner.
	Preconditioner Preconditioner
	// BlockRows is the number of rows of K_NM formed at a time; 0 chooses about 32 MiB of kernel values.
	BlockRows int
	// StoreKernel keeps the N×M kernel matrix K_NM from the first pass (8·N·M bytes, counted in MaxBytes instead of
	// a block), so that each iteration is two matrix products instead of a kernel evaluation: the kernel's N·M·d
	// operations and exponentials are done once rather than once per pass. The blocks and their products are the
	// same, so the fit is the same, bit for bit.
	StoreKernel bool
	// MaxBytes is the memory budget of the fit's arrays (two M×M factors, a block of K_NM, a few M×P vectors);
	// 0 means DefaultMaxBytes, < 0 no limit.
	MaxBytes int64
	// Progress, when not nil, is called after each pass over the data (the first builds the right-hand side, each
	// CG iteration is one, and one more recomputes the final residual) with the number of passes so far.
	Progress func(passes int) `json:"-"`
}

// FalkonFit is a fitted model f(x) = αᵀk_M(x) + b.
type FalkonFit struct {
	Kernel    kernel.Kernel
	Centres   []float64 // M×D, row-major
	M, D, P   int       // centres, input dimension, outputs
	Alpha     []float64 // M×P, row-major
	Bias      []float64 // P (zero without intercept)
	Lambda    float64
	Intercept bool
	// Preconditioner is the one CG ran with.
	Preconditioner Preconditioner
	// Iterations is the number of CG iterations.
	Iterations int
	// Residual is the largest relative residual over the outputs of the system CG solved (the preconditioned one for
	// the Cholesky preconditioner), recomputed from the final iterate.
	Residual float64
	// Jitter is δ in TᵀT = K_MM + δI: the smallest of M·2⁻⁵²·max_j k(c_j, c_j)·10^i, i = 0, 1, …, for which the
	// Cholesky factorization succeeded (Cholesky preconditioner only). The system solved has K_MM + δI in its penalty.
	Jitter float64
	// Passes is the number of passes over the data, each evaluating the N×M kernel once (only the first with
	// StoreKernel).
	Passes int
	// Seconds is the wall-clock time of the fit.
	Seconds float64
}

const (
	defaultFalkonTol     = 1e-7
	defaultFalkonMaxIter = 100
	falkonBlockFloats    = 4 << 20 // kernel values per block of rows: 32 MiB
)

// Fit fits the model on the n rows of X (n×d) against Y (n×p) with the M centres (M×d, row-major), kernel k.
// It returns an error for invalid arguments (λ ≤ 0, shapes, NaN or infinite values, a budget exceeded), a kernel
// matrix of the centres that cannot be factorized, or — together with the fit of the last iterate — an error
// wrapping ErrNotConverged when CG stops at MaxIter.
func (f Falkon) Fit(k kernel.Kernel, centres []float64, M, d int, X []float64, n int, Y []float64, p int) (*FalkonFit, error) {
	start := time.Now()
	if k == nil {
		return nil, errors.New("nystrom: Falkon: nil kernel")
	}
	if !(f.Lambda > 0) || math.IsInf(f.Lambda, 0) {
		return nil, fmt.Errorf("nystrom: Falkon: λ = %v must be positive and finite", f.Lambda)
	}
	if f.Tol < 0 || math.IsNaN(f.Tol) || f.MaxIter < 0 || f.BlockRows < 0 {
		return nil, errors.New("nystrom: Falkon: Tol, MaxIter and BlockRows must be ≥ 0")
	}
	if f.Preconditioner < CholeskyPreconditioner || f.Preconditioner > NoPreconditioner {
		return nil, fmt.Errorf("nystrom: Falkon: unknown %v", f.Preconditioner)
	}
	if M < 1 {
		return nil, fmt.Errorf("nystrom: Falkon: M = %d centres, need at least 1", M)
	}
	if n < 1 {
		return nil, errors.New("nystrom: Falkon: no rows")
	}
	if err := blocks.CheckX("nystrom: Falkon: centres", centres, M, d); err != nil {
		return nil, err
	}
	if err := blocks.CheckData("nystrom: Falkon", X, n, d, Y, p); err != nil {
		return nil, err
	}
	tol, maxIter := f.Tol, f.MaxIter
	if tol == 0 {
		tol = defaultFalkonTol
	}
	if maxIter == 0 {
		maxIter = defaultFalkonMaxIter
	}
	rows := f.BlockRows
	if rows == 0 {
		rows = max(64, falkonBlockFloats/M)
	}
	rows = min(rows, n)
	if err := f.checkBudget(M, p, rows, n); err != nil {
		return nil, err
	}
	C := append([]float64(nil), centres[:M*d]...)
	cent, err := kernel.NewCentres(k, C, M, d)
	if err != nil {
		return nil, fmt.Errorf("nystrom: Falkon: %w", err)
	}
	pass := &rowPass{cent: cent, X: X, n: n, d: d, M: M, rows: rows}
	if f.StoreKernel {
		pass.all = make([]float64, n*M)
	}
	fit := &FalkonFit{Kernel: k, Centres: C, M: M, D: d, P: p, Lambda: f.Lambda, Intercept: f.Intercept,
		Preconditioner: f.Preconditioner, Bias: make([]float64, p)}
	progress := func() {
		fit.Passes++
		if f.Progress != nil {
			f.Progress(fit.Passes)
		}
	}

	// The first pass: K_NMᵀY, the column means m̄ of K_NM and (Jacobi) the squared column norms.
	rhs, mean, sq, err := pass.first(Y, p, f.Preconditioner == JacobiPreconditioner)
	if err != nil {
		return nil, err
	}
	pass.filled = pass.all != nil
	progress()
	inv := 1 / float64(n)
	ybar := make([]float64, p)
	if f.Intercept {
		for i := range n {
			for j := range p {
				ybar[j] += Y[i*p+j]
			}
		}
		for j := range p {
			ybar[j] *= inv
		}
	} else {
		clear(mean) // no centring
	}
	for a := range M {
		mean[a] *= inv
		for j := range p {
			rhs[a*p+j] = rhs[a*p+j]*inv - mean[a]*ybar[j]
		}
	}
	kmm := make([]float64, M*M)
	if err := kernel.Gram(kmm, k, C, M, C, M, d); err != nil {
		return nil, fmt.Errorf("nystrom: Falkon: %w", err)
	}
	if i := finite.Index(kmm); i >= 0 {
		return nil, fmt.Errorf("nystrom: Falkon: kernel %s gives %v between two centres", k.Name(), kmm[i])
	}
	// H V = K_NMᵀK_NM V/N − m̄(m̄ᵀV), the data part of the system matrix.
	dataPart := func(dst, V []float64) error {
		if err := pass.gram(dst, V, p); err != nil {
			return err
		}
		progress()
		for a := range M {
			for j := range p {
				dst[a*p+j] *= inv
			}
		}
		centre(dst, V, mean, M, p)
		return nil
	}
	var passErr error
	var res solve.Result
	var cgErr error
	switch f.Preconditioner {
	case CholeskyPreconditioner:
		pc, err := newPrecond(kmm, M, f.Lambda)
		if err != nil {
			return nil, err
		}
		kmm = nil
		fit.Jitter = pc.jitter
		pc.applyBt(rhs, p)
		w := make([]float64, M*p)
		v := make([]float64, M*p)
		res, cgErr = solve.PCG(func(dst, U []float64) {
			// BᵀHB U = A⁻ᵀ(T⁻ᵀ (K_NMᵀK_NM/N − m̄m̄ᵀ) T⁻¹A⁻¹U + λA⁻¹U).
			copy(w, U)
			pc.solveA(w, p, false)
			copy(v, w)
			pc.solveT(v, p, false)
			if passErr == nil {
				passErr = dataPart(dst, v)
			}
			pc.solveT(dst, p, true)
			for i, x := range w {
				dst[i] += f.Lambda * x
			}
			pc.solveA(dst, p, true)
		}, rhs, nil, M, p, tol, maxIter)
		pc.applyB(res.X, p)
	default:
		var diag []float64
		if f.Preconditioner == JacobiPreconditioner {
			diag = make([]float64, M)
			for a := range M {
				diag[a] = sq[a]*inv - mean[a]*mean[a] + f.Lambda*kmm[a*M+a]
			}
		}
		res, cgErr = solve.PCG(func(dst, V []float64) {
			if passErr == nil {
				passErr = dataPart(dst, V)
			}
			linalg.Gemm(false, false, M, p, M, f.Lambda, kmm, M, V, p, 1, dst, p)
		}, rhs, diag, M, p, tol, maxIter)
	}
	if passErr != nil {
		return nil, passErr
	}
	fit.Alpha, fit.Iterations, fit.Residual = res.X, res.Iterations, res.Residual
	if f.Intercept {
		for j := range p {
			var s float64
			for a := range M {
				s += fit.Alpha[a*p+j] * mean[a]
			}
			fit.Bias[j] = ybar[j] - s
		}
	}
	fit.Seconds = time.Since(start).Seconds()
	if cgErr != nil {
		return fit, fmt.Errorf("nystrom: Falkon: %w", cgErr)
	}
	return fit, nil
}

// centre subtracts m̄(m̄ᵀV) from dst (M×p); m̄ = 0 without intercept.
func centre(dst, V, mean []float64, M, p int) {
	for j := range p {
		var s float64
		for a := range M {
			s += mean[a] * V[a*p+j]
		}
		if s == 0 {
			continue
		}
		for a := range M {
			dst[a*p+j] -= mean[a] * s
		}
	}
}

// checkBudget refuses fits whose arrays exceed the budget (n rows in all, blocks of rows).
func (f Falkon) checkBudget(M, p, rows, n int) error {
	if _, err := size.Floats("nystrom: Falkon: K_MM", M, M); err != nil {
		return err
	}
	what := fmt.Sprintf("a block of %d kernel rows", rows)
	if f.StoreKernel {
		rows, what = n, fmt.Sprintf("the %d×%d kernel matrix K_NM kept by StoreKernel", n, M)
	}
	if _, err := size.Floats("nystrom: Falkon: K_NM", rows, M); err != nil {
		return err
	}
	if _, err := size.Floats("nystrom: Falkon: coefficients", M, p); err != nil {
		return err
	}
	budget := f.MaxBytes
	if budget == 0 {
		budget = DefaultMaxBytes
	}
	mm := float64(M) * float64(M)
	need := 8 * (2*mm + float64(rows)*float64(M+p) + 10*float64(M)*float64(p))
	if budget > 0 && need > float64(budget) {
		return fmt.Errorf("nystrom: Falkon: M = %d centres need %s (two M×M factors and %s), over the budget of %s (Falkon.MaxBytes)",
			M, solve.Bytes(need), what, solve.Bytes(float64(budget)))
	}
	return nil
}

// Predict writes f(x) = αᵀk_M(x) + b for the n rows of X (n×D) into dst (n×P), a block of rows at a time; a row gets
// the same bits alone as among other rows.
func (ft *FalkonFit) Predict(dst, X []float64, n int) error {
	if ft == nil || ft.Kernel == nil || ft.M < 1 || ft.D < 1 || ft.P < 1 || !size.Is(len(ft.Centres), ft.M, ft.D) ||
		!size.Is(len(ft.Alpha), ft.M, ft.P) || len(ft.Bias) != ft.P {
		return errors.New("nystrom: FalkonFit.Predict: nil or incomplete fit")
	}
	if err := blocks.CheckX("nystrom: FalkonFit.Predict", X, n, ft.D); err != nil {
		return err
	}
	if !size.Is(len(dst), n, ft.P) {
		return fmt.Errorf("nystrom: FalkonFit.Predict: len dst = %d, want %d×%d", len(dst), n, ft.P)
	}
	rows := min(n, max(64, falkonBlockFloats/ft.M))
	kb := make([]float64, rows*ft.M)
	// The centres prepared once, for kernel values whose rows do not depend on the rows beside them
	// (Centres.ForPrediction), then αᵀk by linalg.MulRows: a row gets the same bits alone as among others.
	cent, err := kernel.NewCentres(ft.Kernel, ft.Centres, ft.M, ft.D)
	if err != nil {
		return fmt.Errorf("nystrom: FalkonFit.Predict: %w", err)
	}
	cent = cent.ForPrediction()
	for r0 := 0; r0 < n; r0 += rows {
		nb := min(rows, n-r0)
		if err := cent.Gram(kb[:nb*ft.M], X[r0*ft.D:(r0+nb)*ft.D], nb); err != nil {
			return fmt.Errorf("nystrom: FalkonFit.Predict: %w", err)
		}
		out := dst[r0*ft.P : (r0+nb)*ft.P]
		linalg.MulRows(false, nb, ft.P, ft.M, kb, ft.M, ft.Alpha, ft.P, out, ft.P)
		for i := range nb {
			for j, b := range ft.Bias {
				out[i*ft.P+j] += b
			}
		}
	}
	return nil
}
