package vector

import (
	"fmt"
	"math"
	"time"

	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/solve"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/ovk"
)

// Ridge is ridge regression with an operator-valued random Fourier feature (ORFF) map — Brault, Heinonen &
// d'Alché-Buc, "Random Fourier Features for Operator-Valued Kernels" (ACML 2016), §5, Eq. (11) with the squared loss;
// docs/conventions.md §5. All solvers reach the same optimum, and the λ convention is that of [learn.Ridge] and
// [learn.KRR], so fits are directly comparable with scalar ridge regression and with the exact [KRR].
//
// The model is f̃(x) = Φ̃(x)ᵀθ + b with the ORFF map Φ̃ of package ovk (F × p, F = 2·D·p' for D points; Eq. (6) in
// real form) and the objective is
//
//	L(θ, b) = (1/N) Σ_i ‖Φ̃(x_i)ᵀθ + b − y_i‖² + λ‖θ‖²,
//
// where the bias b ∈ R^p is fitted, unpenalised, only when Intercept is set (b = 0 otherwise). Eliminating b
// (b = ȳ − Φ̄ᵀθ, Φ̄ = (1/N)ΣΦ̃(x_i)) leaves the centred normal equations
//
//	(Σ_i (Φ̃_i − Φ̄)(Φ̃_i − Φ̄)ᵀ + NλI) θ = Σ_i (Φ̃_i − Φ̄)(y_i − ȳ),
//
// which without intercept read (ΦᵀΦ + NλI)θ = ΦᵀY. A constant vector field has zero curl and zero divergence, so the
// intercept keeps a curl-free (divergence-free) model curl-free (divergence-free); it also absorbs the constant
// kernel term w₀·A that an SR rule's zero node adds to a decomposable kernel (ovk.Map.Offset), which no feature
// carries — fit an intercept with SR rules.
//
// Every normal equation above is a function of the scalar statistics of the cos/sin features z(x) (2D columns,
// ovk.Map.ScalarBlock) — ZᵀZ, ZᵀY, Σz, Σy, N, accumulated by [Accumulate] through [learn.Accumulate] — and of
// the factors B(ω_j). With the feature layout of ovk.Map (feature f·p'+k is z_f(x)·B(ω_j)[·,k], j = f mod D),
//
//	(ΦᵀΦ)[(f,k),(g,l)] = (ZᵀZ)[f,g] · (B(ω_j)ᵀB(ω_l))[k,l],   (ΦᵀY)[(f,k)] = Σ_a B(ω_j)[a,k] (ZᵀY)[f,a],
//
// so the F×F system is assembled after one pass over the data costing N·(2D)² (not N·p·F², the cost of
// accumulating the (N·p)×F design matrix of ovk.Map.TransformBlock, which gives the same matrix), Z is never held
// whole, and the same statistics serve every kernel, a file streamed from disk, or shards merged by a distributed
// engine ([Ridge.Solve]).
//
// Decomposable kernels (K = k₀·A, B(ω) = B constant, p×p'): the model is f̃(x) = BΘᵀz(x), θ being the row-major
// 2D×p' matrix Θ (the paper's Eq. (12)), and stationarity is the Stein equation printed after Eq. (12),
//
//	ZᵀZ·Θ·BᵀB + NλΘ = ZᵀY·B      (ZᵀZ and ZᵀY centred with an intercept).
//
// With BᵀB = VMVᵀ (p'×p', μ_j = M_jj) the columns of Θ̃ = ΘV decouple into the p' shifted systems
// (μ_j ZᵀZ + NλI)Θ̃_j = (ZᵀYBV)_j, one Cholesky factorisation per distinct μ_j (a single one when A ∝ I, which is then
// exactly p independent ridge regressions). For a λ path ZᵀZ = UΛUᵀ is eigendecomposed once as well, and
//
//	Θ(λ) = U [(Uᵀ ZᵀY B V) ⊘ (λ_i μ_j + Nλ)] Vᵀ                       (docs/conventions.md §5)
//
// costs O((2D)²p') per λ. Nothing of Kronecker size is formed.
//
// Curl-free, divergence-free and Helmholtz kernels (paper Def. 8; B(ω) depends on ω) are solved from the assembled
// normal equations by Cholesky, matrix-free by conjugate gradients, or by L-BFGS on L(θ, b) — the paper's choice
// (§5, "Scipy's L-BFGS-B") — whose value and gradient use the same regulariser λ‖θ‖².
type Ridge struct {
	// Lambda is λ ≥ 0. λ = 0 is accepted only when the system is numerically nonsingular.
	Lambda float64
	// Intercept fits an unpenalised bias b ∈ R^p by centring.
	Intercept bool
	// Solver selects the method; Auto (the default) is the closed form for decomposable kernels, Cholesky
	// otherwise.
	Solver Solver
	// Tol is the stopping tolerance: for CG the relative residual of the normal equations (0 means 1e-10), for
	// L-BFGS the infinity norm of the gradient relative to its value at θ = 0, b = 0 (0 means 1e-10).
	Tol float64
	// MaxIter bounds the CG or L-BFGS iterations; 0 means max(100, 2F) for CG and max(1000, 2F) for L-BFGS.
	MaxIter int
	// MaxBytes caps the dense matrices of ClosedForm and Cholesky (0 means DefaultMaxBytes); larger
	// problems are refused with an error stating the bytes needed. For CG and LBFGS it caps the cached scalar
	// features (8·N·2D bytes plus scratch): beyond it they are recomputed at every product instead.
	MaxBytes int64
}

// resolve validates r against the map and returns the concrete solver.
func (r Ridge) resolve(where string, m *ovk.Map) (Solver, error) {
	if err := checkMap(where, m); err != nil {
		return 0, err
	}
	if math.IsNaN(r.Lambda) || math.IsInf(r.Lambda, 0) || r.Lambda < 0 {
		return 0, fmt.Errorf("%s: λ = %v: need a finite λ ≥ 0", where, r.Lambda)
	}
	if math.IsNaN(r.Tol) || r.Tol < 0 {
		return 0, fmt.Errorf("%s: tolerance %v: need Tol ≥ 0", where, r.Tol)
	}
	dec := m.Kernel().Kind() == ovk.Decomposable
	switch r.Solver {
	case Auto:
		if dec {
			return ClosedForm, nil
		}
		return Cholesky, nil
	case ClosedForm:
		if !dec {
			return 0, fmt.Errorf("%s: the closed-form (Stein equation) solver needs a decomposable kernel, have %s "+
				"(use cholesky, cg or lbfgs)", where, m.Kernel().Name())
		}
		return ClosedForm, nil
	case Cholesky, CG, LBFGS:
		return r.Solver, nil
	}
	return 0, fmt.Errorf("%s: unknown solver %v", where, r.Solver)
}

// checkMap returns an error, prefixed with where, for a nil map or one not made by ovk.New or ovk.FromParams.
func checkMap(where string, m *ovk.Map) error {
	if m == nil {
		return fmt.Errorf("%s: nil ORFF map", where)
	}
	if m.Dim() < 1 || m.Features() < 1 || m.Outputs() < 1 || m.Kernel() == nil {
		return fmt.Errorf("%s: the ORFF map was not made by ovk.New or ovk.FromParams", where)
	}
	return nil
}

// checkMemory refuses dense systems larger than MaxBytes.
func (r Ridge) checkMemory(where string, m *ovk.Map, solver Solver, path bool) error {
	limit := r.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	F2 := float64(m.ScalarFeatures())
	stats := 8 * F2 * F2 * 2 // ZᵀZ and the centred copy
	var need float64
	var what string
	switch solver {
	case ClosedForm:
		need, what = stats, fmt.Sprintf("the %d×%d scalar system", m.ScalarFeatures(), m.ScalarFeatures())
		if path {
			need += 2 * 8 * F2 * F2 // the eigendecomposition's copy and its vectors
		}
	case Cholesky:
		F := float64(m.Features())
		need = stats + 8*F*F + 8*(F/2)*(F/2)
		what = fmt.Sprintf("the %d×%d normal equations", m.Features(), m.Features())
	default:
		return nil
	}
	if need > float64(limit) {
		return fmt.Errorf("%s: %s need %s, above the limit of %s (raise vector.Ridge.MaxBytes, use fewer points, or the "+
			"matrix-free cg or lbfgs solvers)", where, what, solve.Bytes(need), solve.Bytes(float64(limit)))
	}
	return nil
}

// Fit fits the model on the n rows of X (n×d, d = m.Dim()) and the targets Y (n×p, p = m.Outputs(), row-major).
// The closed-form and Cholesky solvers make one pass over the data ([Accumulate]) and then call
// [Ridge.Solve]; CG and L-BFGS pass over the data at every iteration and never form an F×F matrix. It returns
// an error for bad shapes, NaN/Inf data, λ < 0 or so large that N·λ overflows, a system that is not numerically
// positive definite, or dense matrices larger than MaxBytes. A CG or L-BFGS run that stops at MaxIter above its tolerance returns the last
// iterate together with an error wrapping learn.ErrNotConverged.
func (r Ridge) Fit(m *ovk.Map, X []float64, n int, Y []float64) (*Fit, error) {
	const where = "vector.Ridge.Fit"
	start := time.Now()
	solver, err := r.resolve(where, m)
	if err != nil {
		return nil, err
	}
	if err := blocks.CheckData(where, X, n, m.Dim(), Y, m.Outputs()); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: no data (N = 0)", where)
	}
	if err := blocks.CheckLambda(where+": ", n, r.Lambda); err != nil {
		return nil, err
	}
	var fit *Fit
	switch solver {
	case ClosedForm, Cholesky:
		if err := r.checkMemory(where, m, solver, false); err != nil {
			return nil, err
		}
		s, err := Accumulate(m, X, n, Y)
		if err != nil {
			return nil, err
		}
		fits, err := r.solvePath(where, m, s, []float64{r.Lambda}, solver, false)
		if err != nil {
			return nil, err
		}
		fit = fits[0]
	case CG:
		fit, err = r.fitCG(m, X, n, Y)
	case LBFGS:
		fit, err = r.fitLBFGS(m, X, n, Y)
	}
	if fit != nil {
		fit.Stats.Seconds = time.Since(start).Seconds()
	}
	return fit, err
}

// Solve fits the model from the scalar statistics s of [Accumulate] (for the same map m), with the
// closed-form or Cholesky solver (CG and LBFGS need the data and are refused). Stats.Seconds is the time of
// the solve alone.
func (r Ridge) Solve(m *ovk.Map, s *learn.Stats) (*Fit, error) {
	fits, err := r.SolvePath(m, s, []float64{r.Lambda})
	if err != nil {
		return nil, err
	}
	return fits[0], nil
}

// FitPath fits the model for every λ in lambdas (r.Lambda is ignored) from one pass over the data. For a
// decomposable kernel with the closed form and more than one λ, ZᵀZ (centred) and BᵀB are eigendecomposed once
// (mat.EigenSym) and each λ costs O((2D)²p'): Θ(λ) = U[(UᵀZᵀYBV) ⊘ (λ_iμ_j + Nλ)]Vᵀ (docs/conventions.md §5); such fits report
// Method "eigen" (a single λ is solved by the shifted systems, "closed-form"). With Cholesky the F×F system is
// assembled once and factorised per λ. CG and L-BFGS are refused. Stats.Seconds is the time of the whole path.
func (r Ridge) FitPath(m *ovk.Map, X []float64, n int, Y []float64, lambdas []float64) ([]*Fit, error) {
	const where = "vector.Ridge.FitPath"
	start := time.Now()
	if err := checkMap(where, m); err != nil {
		return nil, err
	}
	if err := blocks.CheckData(where, X, n, m.Dim(), Y, m.Outputs()); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: no data (N = 0)", where)
	}
	solver, err := r.pathSolver(where, m, lambdas)
	if err != nil {
		return nil, err
	}
	if err := r.checkMemory(where, m, solver, len(lambdas) > 1); err != nil {
		return nil, err
	}
	s, err := Accumulate(m, X, n, Y)
	if err != nil {
		return nil, err
	}
	fits, err := r.solvePath(where, m, s, lambdas, solver, len(lambdas) > 1)
	if err != nil {
		return nil, err
	}
	for _, f := range fits {
		f.Stats.Seconds = time.Since(start).Seconds()
	}
	return fits, nil
}

// SolvePath is FitPath from the statistics s of [Accumulate] (for the same map m).
func (r Ridge) SolvePath(m *ovk.Map, s *learn.Stats, lambdas []float64) ([]*Fit, error) {
	const where = "vector.Ridge.Solve"
	solver, err := r.pathSolver(where, m, lambdas)
	if err != nil {
		return nil, err
	}
	return r.solvePath(where, m, s, lambdas, solver, len(lambdas) > 1)
}

func (r Ridge) pathSolver(where string, m *ovk.Map, lambdas []float64) (Solver, error) {
	rr := r
	rr.Lambda = 0
	solver, err := rr.resolve(where, m)
	if err != nil {
		return 0, err
	}
	if solver != ClosedForm && solver != Cholesky {
		return 0, fmt.Errorf("%s: the %v solver needs the data, not statistics: use Ridge.Fit", where, solver)
	}
	if len(lambdas) == 0 {
		return 0, fmt.Errorf("%s: no λ given", where)
	}
	for _, l := range lambdas {
		if math.IsNaN(l) || math.IsInf(l, 0) || l < 0 {
			return 0, fmt.Errorf("%s: λ = %v: need a finite λ ≥ 0", where, l)
		}
	}
	return solver, nil
}

// solvePath solves for every λ from the statistics. eigen selects the eigendecomposition route of the closed form.
func (r Ridge) solvePath(where string, m *ovk.Map, s *learn.Stats, lambdas []float64, solver Solver, eigen bool) ([]*Fit, error) {
	start := time.Now()
	if s == nil {
		return nil, fmt.Errorf("%s: nil statistics", where)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if s.F != m.ScalarFeatures() || s.P != m.Outputs() {
		return nil, fmt.Errorf("%s: statistics have %d features and %d outputs; the map has %d scalar features and %d outputs",
			where, s.F, s.P, m.ScalarFeatures(), m.Outputs())
	}
	if s.N == 0 {
		return nil, fmt.Errorf("%s: no data (N = 0)", where)
	}
	for _, l := range lambdas {
		if err := blocks.CheckLambda(where+": ", s.N, l); err != nil {
			return nil, err
		}
	}
	if err := r.checkMemory(where, m, solver, eigen); err != nil {
		return nil, err
	}
	var fits []*Fit
	var err error
	switch {
	case solver == ClosedForm && eigen:
		fits, err = r.decomposableEigen(m, s, lambdas)
	case solver == ClosedForm:
		fits, err = r.decomposableShifted(m, s, lambdas)
	default:
		fits, err = r.normalCholesky(m, s, lambdas)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	for _, f := range fits {
		f.Stats.Seconds = time.Since(start).Seconds()
	}
	return fits, nil
}
