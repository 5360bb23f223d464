package learn

import (
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/internal/solve"
)

// Solver selects how Ridge solves its normal equations.
type Solver int

const (
	// Cholesky factorises ZᵀZ + NλI (centred when fitting an intercept) with LAPACK's dpotrf (internal/linalg:
	// OpenBLAS or gonum). The default.
	Cholesky Solver = iota
	// CG runs conjugate gradients with a Jacobi (diagonal) preconditioner on the accumulated ZᵀZ, applied as a
	// symmetric matrix product (blas64.Symm); the centring is applied as a rank-one correction, never formed.
	CG
)

// String returns the solver's name.
func (s Solver) String() string {
	switch s {
	case Cholesky:
		return "cholesky"
	case CG:
		return "cg"
	}
	return fmt.Sprintf("Solver(%d)", int(s))
}

// ErrNotConverged is returned (wrapped, together with the last iterate) when conjugate gradients stop at MaxIter
// before reaching the tolerance.
var ErrNotConverged = solve.ErrNotConverged

// Ridge is ridge regression on features: it minimises (1/N)Σ‖θᵀz_i + b − y_i‖² + λ‖θ‖², where the bias b is
// fitted (unpenalised) only when Intercept is set.
type Ridge struct {
	// Lambda is λ ≥ 0. λ = 0 is accepted only when ZᵀZ (centred, with an intercept) is numerically nonsingular.
	Lambda float64
	// Intercept fits an unpenalised bias by centring the statistics.
	Intercept bool
	// Solver is Cholesky (the default) or CG.
	Solver Solver
	// Precision is the arithmetic of ZᵀZ in FitMap: Double (the default), Mixed or Auto. Solve and SolveInPlace,
	// which start from statistics already accumulated in float64, ignore it.
	Precision Precision
	// Tol is the relative residual ‖AΘ − B‖/‖B‖ (per output) at which CG stops; 0 means 1e-10.
	Tol float64
	// MaxIter bounds the CG iterations; 0 means max(100, 2F).
	MaxIter int
	// Progress, when not nil, is called by FitMap after every chunk of rows mapped, with the number of rows in it,
	// from several goroutines at once.
	Progress func(rows int) `json:"-"`
}

// SolveStats reports how a system was solved.
type SolveStats struct {
	// Method is "cholesky", "cg", "cg-matrix-free" or "mixed" (a float32 Gram matrix refined in float64: see
	// Precision); for a Classifier "dual-cd" (hinge losses) or "lbfgs" (logistic).
	Method string `json:"method"`
	// Note says why FitMap fell back from Mixed to Double precision, or that a classifier's iterations stopped short
	// of their tolerance (Residual above it: raise Classifier.MaxIter or λ); empty otherwise.
	Note string `json:"note,omitempty"`
	// Iterations is the number of CG iterations or mixed-precision refinement steps (0 for Cholesky); for a
	// Classifier the epochs of dual coordinate descent or the L-BFGS iterations.
	Iterations int `json:"iterations"`
	// Residual is the largest relative residual ‖(A θ − B)_j‖/‖B_j‖ over the outputs j, recomputed at the end; for a
	// Classifier its stopping measure: the largest projected-gradient gap of its SVMs, or the largest absolute entry
	// of the logistic objective's gradient.
	Residual float64 `json:"residual"`
	// Seconds is the wall-clock time of the solve.
	Seconds float64 `json:"seconds"`
}

// Fit is a fitted linear model on features: f(z) = Θᵀz + b.
type Fit struct {
	F, P      int
	Theta     []float64 // F×P, row-major
	Bias      []float64 // P (zero without intercept)
	Lambda    float64
	Intercept bool
	Stats     SolveStats
}

// Predict writes f(z) = Θᵀz + b for the rows of Z (rows×F, row-major) into dst (rows×P). It is the unchecked hot
// path: it panics (with a message, on the calling goroutine) if rows < 0, a slice is too short, or f is not a valid
// fit (nil, or Theta and Bias of other lengths than F×P and P); [Fit.PredictMap] returns errors instead.
func (f *Fit) Predict(dst, Z []float64, rows int) {
	if err := f.check("learn.Fit.Predict"); err != nil {
		panic(err.Error())
	}
	zn, okz := size.Mul(rows, f.F)
	pn, okp := size.Mul(rows, f.P)
	if !okz || !okp || len(Z) < zn || len(dst) < pn {
		panic(fmt.Sprintf("learn.Fit.Predict: %d rows need %d feature values and room for %d outputs, have %d and %d",
			rows, rows*f.F, rows*f.P, len(Z), len(dst)))
	}
	if rows == 0 {
		return
	}
	predictRows(dst[:rows*f.P], f.Bias, Z, rows, f.F, f.Theta[:f.F*f.P], f.P)
}

// predictRows sets out (rows×P) to b + Z·T for Z (rows×F) and T (F×P), every row with the same bits whether it is
// predicted alone or among others (linalg.MulRows; a BLAS's product of many rows may sum in another order than of
// one). T is read in place where the product's bits do not depend on its layout (one output, or the packed kernel's
// chains) and transposed otherwise, so that every CPU sums in the order it always has.
func predictRows(out, b, Z []float64, rows, F int, T []float64, P int) {
	out = out[:rows*P]
	if linalg.MulRowsLayoutFree(P, F) {
		linalg.MulRows(false, rows, P, F, Z, F, T, P, out, P)
	} else {
		if P > 1 { // with one output T is its own transpose
			T = transpose(T[:F*P], F, P)
		}
		linalg.MulRows(true, rows, P, F, Z, F, T, F, out, P)
	}
	for i := range rows {
		for j, v := range b[:P] {
			out[i*P+j] += v
		}
	}
}

// PredictMap maps the n rows of X (n×d, d = m.Dim()) through m block by block and writes the predictions into
// dst (n×P). m must be the map the model was fitted with.
func (f *Fit) PredictMap(dst []float64, m Mapper, X []float64, n int) error {
	if err := f.check("learn.Fit.PredictMap"); err != nil {
		return err
	}
	if isNil(m) {
		return errors.New("learn.Fit.PredictMap: nil feature map")
	}
	if err := checkMapper("learn.Fit.PredictMap", m); err != nil {
		return err
	}
	if m.Features() != f.F {
		return fmt.Errorf("learn.Fit.PredictMap: map has %d features, model %d", m.Features(), f.F)
	}
	d := m.Dim()
	if err := blocks.CheckX("learn.Fit.PredictMap", X, n, d); err != nil {
		return err
	}
	if !size.Is(len(dst), n, f.P) {
		return fmt.Errorf("learn.Fit.PredictMap: dst has %d values, want %d rows × %d outputs", len(dst), n, f.P)
	}
	mapBlocks(m, X, n, blocks.Count(n), func(_ int, z []float64, r0, rows int) {
		f.Predict(dst[r0*f.P:(r0+rows)*f.P], z, rows)
	})
	return nil
}

// check returns an error, prefixed with where, if f is nil or its sizes do not match (a fit assembled by hand).
func (f *Fit) check(where string) error {
	if f == nil {
		return fmt.Errorf("%s: nil fit", where)
	}
	if f.F < 1 || f.P < 1 || !size.Is(len(f.Theta), f.F, f.P) || len(f.Bias) != f.P {
		return fmt.Errorf("%s: the fit's Theta has %d values and Bias %d, want F×P = %d×%d and P", where,
			len(f.Theta), len(f.Bias), f.F, f.P)
	}
	return nil
}

// center subtracts N z̄z̄ᵀ from the full symmetric A (F×F) and N z̄ȳᵀ from B (F×P) when intercept is set.
func center(A, B []float64, s *Stats, intercept bool) {
	if !intercept {
		return
	}
	F, P := s.F, s.P
	invN := 1 / float64(s.N)
	for i := range F {
		si := s.SumZ[i] * invN
		row := A[i*F : (i+1)*F]
		for j := range row {
			row[j] -= si * s.SumZ[j]
		}
		brow := B[i*P : (i+1)*P]
		for j := range brow {
			brow[j] -= si * s.SumY[j]
		}
	}
}

// validate checks the statistics and λ before a solve.
func (r Ridge) validate(s *Stats) error {
	if s == nil {
		return errors.New("nil statistics")
	}
	if err := s.check(); err != nil {
		return err
	}
	if s.N == 0 {
		return errors.New("no data (N = 0)")
	}
	if err := r.validParams(); err != nil {
		return err
	}
	if err := blocks.CheckLambda("", s.N, r.Lambda); err != nil {
		return err
	}
	if !s.finite() {
		return errors.New("statistics contain NaN or Inf")
	}
	return nil
}

// validParams checks λ, the solver and the precision.
func (r Ridge) validParams() error {
	if math.IsNaN(r.Lambda) || math.IsInf(r.Lambda, 0) || r.Lambda < 0 {
		return fmt.Errorf("λ = %v: need a finite λ ≥ 0", r.Lambda)
	}
	if r.Solver != Cholesky && r.Solver != CG {
		return fmt.Errorf("unknown solver %v", r.Solver)
	}
	if !(r.Tol >= 0 && r.Tol < 1) || r.MaxIter < 0 { // Tol 0 and MaxIter 0 are the defaults
		return fmt.Errorf("CG tolerance %v and iterations %d: need 0 ≤ Tol < 1 and MaxIter ≥ 0", r.Tol, r.MaxIter)
	}
	switch r.Precision {
	case Double, Auto:
	case Mixed:
		if r.Solver != Cholesky {
			return errors.New("precision mixed needs the Cholesky solver")
		}
	default:
		return fmt.Errorf("unknown precision %v", r.Precision)
	}
	return nil
}

// Solve fits the model from the statistics s. It returns an error for empty data, NaN/Inf statistics, λ < 0 or so
// large that N·λ overflows, or a system that is not (numerically) positive definite — which can only happen with
// λ = 0 or a λ so small that NλI is lost against ZᵀZ. With the CG solver, a run that stops at MaxIter returns the last iterate together with
// an error wrapping ErrNotConverged; with λ = 0 on a singular but consistent system CG returns one of the (equally
// optimal) minimisers instead of an error.
func (r Ridge) Solve(s *Stats) (*Fit, error) {
	return r.solve(s, false)
}

// SolveInPlace is Solve that uses the memory of s.ZtZ as its workspace instead of copying it: for F features it
// saves an F×F allocation (512 MiB at F = 8192, whose first touch alone costs a second on some machines). The
// statistics are consumed: afterwards s.ZtZ is nil and any use of s (Solve, Merge, …) returns an error. With the
// CG solver, which reads ZᵀZ without changing it, s stays valid.
func (r Ridge) SolveInPlace(s *Stats) (*Fit, error) {
	return r.solve(s, true)
}

func (r Ridge) solve(s *Stats, inPlace bool) (*Fit, error) {
	start := time.Now()
	if err := r.validate(s); err != nil {
		return nil, fmt.Errorf("learn.Ridge.Solve: %w", err)
	}
	F, P := s.F, s.P
	N := float64(s.N)
	fit := &Fit{F: F, P: P, Lambda: r.Lambda, Intercept: r.Intercept, Bias: make([]float64, P)}
	var err error
	switch r.Solver {
	case Cholesky:
		var A, B []float64
		if inPlace {
			s.Finish()
			A, B = s.ZtZ, append([]float64(nil), s.ZtY...)
			s.ZtZ, s.consumed = nil, true
			center(A, B, s, r.Intercept)
		} else {
			A, B = s.NormalEquations(r.Intercept)
		}
		for i := range F {
			A[i*F+i] += N * r.Lambda
		}
		fit.Theta, fit.Stats.Residual, err = cholSolve(A, B, F, P, r.Lambda == 0)
		if err != nil {
			return nil, fmt.Errorf("learn.Ridge.Solve: %w", err)
		}
		fit.Stats.Method = "cholesky"
	case CG:
		op := statsOperator{s: s, lambda: r.Lambda, intercept: r.Intercept}
		res, cgErr := solve.PCG(op.apply, op.rhs(), op.diag(), F, P, r.tol(), r.maxIter(F))
		fit.Theta = res.X
		fit.Stats.Method, fit.Stats.Iterations, fit.Stats.Residual = "cg", res.Iterations, res.Residual
		if cgErr != nil {
			err = fmt.Errorf("learn.Ridge.Solve: %w", cgErr)
		}
	}
	if r.Intercept {
		setBias(fit, s.SumZ, s.SumY, N)
	}
	fit.Stats.Seconds = time.Since(start).Seconds()
	return fit, err
}

// FitMap fits the model on the features of X (n×d) through m against Y (n×p). In Double precision (and in Auto
// when Mixed does not pay) it accumulates the statistics ([Accumulate]) and solves them in place; in Mixed precision
// it forms ZᵀZ in float32 (for a *feature.Map; other maps always accumulate in float64) and refines the solution against the float64 features, recomputed from their stored
// projections (see [Precision]), falling back to Double when the system is too ill-conditioned for that —
// SolveStats.Method says which ran ("mixed" or "cholesky") and SolveStats.Note why a fallback happened.
func (r Ridge) FitMap(m Mapper, X []float64, n int, Y []float64, p int) (*Fit, error) {
	if isNil(m) {
		return nil, errors.New("learn.Ridge.FitMap: nil feature map")
	}
	if err := r.validParams(); err != nil {
		return nil, fmt.Errorf("learn.Ridge.FitMap: %w", err)
	}
	if fm, ok := m.(*feature.Map); ok && r.mixed(n, m.Features(), m.Points(), p) {
		return r.fitMixed(fm, X, n, Y, p)
	}
	acc := newAccumulator(m, p)
	acc.Progress = r.Progress
	if err := acc.add("learn.Ridge.FitMap", X, n, Y); err != nil {
		return nil, err
	}
	s, err := acc.Stats()
	if err != nil {
		return nil, err
	}
	return r.SolveInPlace(s)
}

func (r Ridge) tol() float64 {
	if r.Tol > 0 {
		return r.Tol
	}
	return 1e-10
}

func (r Ridge) maxIter(F int) int {
	if r.MaxIter > 0 {
		return r.MaxIter
	}
	return max(100, 2*F)
}

// setBias sets b = ȳ − Θᵀz̄.
func setBias(fit *Fit, sumZ, sumY []float64, N float64) {
	for j := range fit.P {
		b := sumY[j]
		for i := range fit.F {
			b -= fit.Theta[i*fit.P+j] * sumZ[i]
		}
		fit.Bias[j] = b / N
	}
}

// cholSolve solves A X = B (A F×F symmetric, B F×P) by Cholesky and returns X and the largest relative residual
// over the columns. It reads the upper triangle and the diagonal of A and overwrites them with the factor; the
// strictly lower triangle must hold A too (it is what the residual is computed from). With strict (λ = 0) a
// numerically singular A (condition number estimate above 1e14) is an error. A is scratch afterwards.
//
// It calls LAPACK's dpotrf/dpotrs and BLAS's dsymm through internal/linalg directly instead of mat.Cholesky, which
// always estimates the condition number with gonum's level-2 Dpocon: at F = 8192 that estimate took 4 s next to 2 s
// for the factorisation on OpenBLAS.
// errIndefinite is cholSolve's error for a system the Cholesky factorisation finds not positive definite.
var errIndefinite = errors.New("the system ZᵀZ + NλI is not positive definite: increase λ")

func cholSolve(A, B []float64, F, P int, strict bool) ([]float64, float64, error) {
	diag := make([]float64, F)
	for i := range F {
		diag[i] = A[i*F+i]
	}
	var anorm float64
	if strict {
		anorm = symNorm1(A, F)
	}
	if err := linalg.Cholesky(F, A, F); err != nil {
		return nil, 0, errIndefinite
	}
	if strict {
		work := make([]float64, 3*F)
		iwork := make([]int, F)
		rcond := lapack64.Pocon(blas64.Symmetric{Uplo: blas.Upper, N: F, Stride: F, Data: A}, anorm, work, iwork)
		if cond := 1 / rcond; cond > 1e14 {
			return nil, 0, fmt.Errorf("with λ = 0 the system is singular (condition number ≈ %.2g): use λ > 0", cond)
		}
	}
	X := append([]float64(nil), B...)
	if err := linalg.SolveCholesky(F, P, A, F, X, P); err != nil {
		return nil, 0, fmt.Errorf("cholesky solve: %w", err)
	}
	// Residual R = A X − B from the untouched lower triangle and the saved diagonal.
	for i := range F {
		A[i*F+i] = diag[i]
	}
	R := append([]float64(nil), B...)
	blas64.Symm(blas.Left, 1, blas64.Symmetric{Uplo: blas.Lower, N: F, Stride: F, Data: A},
		blas64.General{Rows: F, Cols: P, Stride: P, Data: X}, -1, blas64.General{Rows: F, Cols: P, Stride: P, Data: R})
	return X, solve.RelResidual(R, B, F, P), nil
}

// symNorm1 is the 1-norm (largest absolute column sum) of the symmetric F×F matrix A, read from its upper triangle.
func symNorm1(A []float64, F int) float64 {
	sums := make([]float64, F)
	for i := range F {
		row := A[i*F+i : (i+1)*F]
		sums[i] += math.Abs(row[0])
		for j, v := range row[1:] {
			sums[i] += math.Abs(v)
			sums[i+1+j] += math.Abs(v)
		}
	}
	best := 0.0
	for _, v := range sums {
		best = max(best, v)
	}
	return best
}
