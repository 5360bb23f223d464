package learn

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/optimize"

	"github.com/rffkit/rff/ovk"
)

// OVKSolver selects how [OVKRidge] minimises the ORFF ridge objective.
type OVKSolver int

const (
	// OVKAuto is OVKClosedForm for a decomposable kernel and OVKCholesky for the others.
	OVKAuto OVKSolver = iota
	// OVKClosedForm solves the Stein equation of a decomposable kernel in closed form: the p' shifted systems
	// (μ_j ZᵀZ + NλI)Θ̃_j = (ZᵀYBV)_j after BᵀB = VMVᵀ, by Cholesky, one factorisation per distinct μ_j. Decomposable
	// kernels only. Memory O((2D)²).
	OVKClosedForm
	// OVKCholesky assembles the F×F normal equations (ΦᵀΦ + NλI)θ = ΦᵀY (centred with an intercept) from the scalar
	// statistics and the factors B(ω_j), then factorises them in place. Any kernel. Memory 8F² bytes plus the
	// statistics, refused above MaxBytes.
	OVKCholesky
	// OVKCG runs Jacobi-preconditioned conjugate gradients on the normal equations without forming ΦᵀΦ: every
	// iteration applies θ ↦ Σ_i Φ̃(x_i)(Φ̃(x_i)ᵀθ) + Nλθ, O(N·D·p·p'). The scalar features Z (8·N·2D bytes) are cached
	// when they fit in MaxBytes; otherwise every product recomputes them through ovk.Map.Predict and ovk.Map.Adjoint
	// (two passes over the data, memory O(F + N·p)). Any kernel.
	OVKCG
	// OVKLBFGS minimises L(θ, b) directly with L-BFGS (gonum/optimize), the paper's choice for curl- and
	// divergence-free kernels (§5: "Scipy's L-BFGS-B"). The value and the gradient
	// ∇_θ = (2/N)Σ_i Φ̃(x_i)r_i + 2λθ, ∇_b = (2/N)Σ_i r_i (r_i = f̃(x_i) − y_i) use the same regulariser λ‖θ‖². Any
	// kernel. The line search is an exact secant search on φ'(α) (the objective is quadratic), which never compares
	// function values and so converges to a relative gradient of about 1e-12. Products as for OVKCG (cached scalar
	// features when they fit in MaxBytes). Memory O(F·(store + 1) + N·p).
	OVKLBFGS
)

var ovkSolverNames = [...]string{"auto", "closed-form", "cholesky", "cg", "lbfgs"}

// String returns the solver's name, as ParseOVKSolver accepts it.
func (s OVKSolver) String() string {
	if s >= 0 && int(s) < len(ovkSolverNames) {
		return ovkSolverNames[s]
	}
	return fmt.Sprintf("OVKSolver(%d)", int(s))
}

// ParseOVKSolver parses "auto", "closed-form" (alias "stein"), "cholesky", "cg" and "lbfgs" (alias "l-bfgs").
func ParseOVKSolver(s string) (OVKSolver, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto", "":
		return OVKAuto, nil
	case "closed-form", "closed", "stein":
		return OVKClosedForm, nil
	case "cholesky", "chol":
		return OVKCholesky, nil
	case "cg":
		return OVKCG, nil
	case "lbfgs", "l-bfgs":
		return OVKLBFGS, nil
	}
	return 0, fmt.Errorf("unknown solver %q (want auto, closed-form, cholesky, cg or lbfgs)", s)
}

// DefaultOVKMaxBytes caps the dense matrices of the OVKClosedForm and OVKCholesky solvers, and the scalar features
// that OVKCG and OVKLBFGS cache: 4 GiB.
const DefaultOVKMaxBytes = 4 << 30

// OVKRidge is ridge regression with an operator-valued random Fourier feature (ORFF) map — Brault, Heinonen &
// d'Alché-Buc, "Random Fourier Features for Operator-Valued Kernels" (ACML 2016), §5, Eq. (11) with the squared loss;
// docs/conventions.md §5. All solvers reach the same optimum, and the λ convention is that of [Ridge] and [KRR], so fits are directly
// comparable with scalar ridge regression and with the exact [OVKKRR].
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
// ovk.Map.ScalarBlock) — ZᵀZ, ZᵀY, Σz, Σy, N, accumulated by [AccumulateScalar] exactly like [Accumulate] — and of the
// factors B(ω_j). With the feature layout of ovk.Map (feature f·p'+k is z_f(x)·B(ω_j)[·,k], j = f mod D),
//
//	(ΦᵀΦ)[(f,k),(g,l)] = (ZᵀZ)[f,g] · (B(ω_j)ᵀB(ω_l))[k,l],   (ΦᵀY)[(f,k)] = Σ_a B(ω_j)[a,k] (ZᵀY)[f,a],
//
// so the F×F system is assembled after one pass over the data costing N·(2D)² (not N·p·F², the cost of
// accumulating the (N·p)×F design matrix of ovk.Map.TransformBlock, which gives the same matrix), Z is never held
// whole, and the same statistics serve every kernel, a file streamed from disk, or shards merged by a distributed
// engine ([OVKRidge.Solve]).
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
type OVKRidge struct {
	// Lambda is λ ≥ 0. λ = 0 is accepted only when the system is numerically nonsingular.
	Lambda float64
	// Intercept fits an unpenalised bias b ∈ R^p by centring.
	Intercept bool
	// Solver selects the method; OVKAuto (the default) is the closed form for decomposable kernels, Cholesky
	// otherwise.
	Solver OVKSolver
	// Tol is the stopping tolerance: for CG the relative residual of the normal equations (0 means 1e-10), for
	// L-BFGS the infinity norm of the gradient relative to its value at θ = 0, b = 0 (0 means 1e-10).
	Tol float64
	// MaxIter bounds the CG or L-BFGS iterations; 0 means max(100, 2F) for CG and max(1000, 2F) for L-BFGS.
	MaxIter int
	// MaxBytes caps the dense matrices of OVKClosedForm and OVKCholesky (0 means DefaultOVKMaxBytes); larger
	// problems are refused with an error stating the bytes needed. For OVKCG and OVKLBFGS it caps the cached scalar
	// features (8·N·2D bytes plus scratch): beyond it they are recomputed at every product instead.
	MaxBytes int64
}

// OVKFit is a fitted ORFF ridge model f̃(x) = Φ̃(x)ᵀθ + b. It holds θ and b only: predictions need the map it was
// fitted with (same kernel, rule, D and seed).
type OVKFit struct {
	// F is the number of features 2·D·p', P the number of outputs p, Rank the number of columns p' of B(ω).
	F, P, Rank int
	// Theta is θ (length F) in the feature layout of ovk.Map: entry f·p'+k for scalar column f and column k of
	// B(ω). For a decomposable kernel it is the row-major 2D×p' matrix Θ of the Stein equation.
	Theta []float64
	// Bias is b (length P; zero without intercept).
	Bias      []float64
	Lambda    float64
	Intercept bool
	// Stats reports the solve: Method is "closed-form", "eigen", "cholesky", "cg-matrix-free" or "lbfgs";
	// Residual is the relative residual ‖Aθ − h‖/‖h‖ of the (centred) normal equations (the Stein equation for
	// the closed forms, the largest over its columns); Iterations counts CG or L-BFGS iterations; Seconds is the
	// wall-clock time of the whole fit, data passes included.
	Stats SolveStats
}

// Predict writes f̃(x_r) = Φ̃(x_r)ᵀθ + b for the n rows of X (n×d, row-major) into dst (n×p, row-major), in
// O(D·p·p') per row without forming Φ̃ (ovk.Map.Predict). m must be the map the model was fitted with.
func (f *OVKFit) Predict(dst []float64, m *ovk.Map, X []float64, n int) error {
	if err := f.checkMap("learn.OVKFit.Predict", m); err != nil {
		return err
	}
	if err := m.Predict(dst, X, n, f.Theta); err != nil {
		return fmt.Errorf("learn.OVKFit.Predict: %w", err)
	}
	for i := 0; i < n; i++ {
		floats.Add(dst[i*f.P:(i+1)*f.P], f.Bias)
	}
	return nil
}

// Jacobian writes the Jacobian ∂f̃_a/∂x_b of the fitted model at x into dst (p×d, row-major; ovk.Map.Jacobian):
// symmetric for a curl-free kernel and traceless for a divergence-free one, for every rule (the bias is constant).
func (f *OVKFit) Jacobian(dst []float64, m *ovk.Map, x []float64) error {
	if err := f.checkMap("learn.OVKFit.Jacobian", m); err != nil {
		return err
	}
	if err := m.Jacobian(dst, x, f.Theta); err != nil {
		return fmt.Errorf("learn.OVKFit.Jacobian: %w", err)
	}
	return nil
}

func (f *OVKFit) checkMap(where string, m *ovk.Map) error {
	if m == nil {
		return fmt.Errorf("%s: nil ORFF map", where)
	}
	if m.Features() != f.F || m.Outputs() != f.P || m.Rank() != f.Rank {
		return fmt.Errorf("%s: map has %d features, %d outputs and rank %d; the model was fitted with %d, %d and %d",
			where, m.Features(), m.Outputs(), m.Rank(), f.F, f.P, f.Rank)
	}
	return nil
}

// AccumulateScalar maps the n rows of X (n×d, d = m.Dim()) through the scalar cos/sin features z(x) of the ORFF map
// m (2D columns, ovk.Map.ScalarBlock) and returns their finished statistics against Y (n×p, p = m.Outputs()):
// ZᵀZ, ZᵀY, Σz, Σy, Σy², N. These are sufficient for [OVKRidge.Solve] with every kernel. The rows are mapped and
// accumulated exactly as by [Accumulate] (same chunks and shards, merged in row order), so the result is bit-for-bit
// the same for every GOMAXPROCS; statistics of different shards of the data can be combined with [Stats.Merge]. For a decomposable kernel the scalar features are those of
// package feature for the same scalar kernel, rule and seed.
func AccumulateScalar(m *ovk.Map, X []float64, n int, Y []float64) (*Stats, error) {
	if m == nil {
		return nil, errors.New("learn.AccumulateScalar: nil ORFF map")
	}
	acc := newAccumulator(scalarBlocks(m), m.Outputs())
	if err := acc.add("learn.AccumulateScalar", X, n, Y); err != nil {
		return nil, err
	}
	return acc.Stats()
}

// resolve validates r against the map and returns the concrete solver.
func (r OVKRidge) resolve(where string, m *ovk.Map) (OVKSolver, error) {
	if m == nil {
		return 0, fmt.Errorf("%s: nil ORFF map", where)
	}
	if math.IsNaN(r.Lambda) || math.IsInf(r.Lambda, 0) || r.Lambda < 0 {
		return 0, fmt.Errorf("%s: λ = %v: need a finite λ ≥ 0", where, r.Lambda)
	}
	if math.IsNaN(r.Tol) || r.Tol < 0 {
		return 0, fmt.Errorf("%s: tolerance %v: need Tol ≥ 0", where, r.Tol)
	}
	dec := m.Kernel().Kind() == ovk.Decomposable
	switch r.Solver {
	case OVKAuto:
		if dec {
			return OVKClosedForm, nil
		}
		return OVKCholesky, nil
	case OVKClosedForm:
		if !dec {
			return 0, fmt.Errorf("%s: the closed-form (Stein equation) solver needs a decomposable kernel, have %s "+
				"(use cholesky, cg or lbfgs)", where, m.Kernel().Name())
		}
		return OVKClosedForm, nil
	case OVKCholesky, OVKCG, OVKLBFGS:
		return r.Solver, nil
	}
	return 0, fmt.Errorf("%s: unknown solver %v", where, r.Solver)
}

// checkMemory refuses dense systems larger than MaxBytes.
func (r OVKRidge) checkMemory(where string, m *ovk.Map, solver OVKSolver, path bool) error {
	limit := r.MaxBytes
	if limit <= 0 {
		limit = DefaultOVKMaxBytes
	}
	F2 := float64(m.ScalarFeatures())
	stats := 8 * F2 * F2 * 2 // ZᵀZ and the centred copy
	var need float64
	var what string
	switch solver {
	case OVKClosedForm:
		need, what = stats, fmt.Sprintf("the %d×%d scalar system", m.ScalarFeatures(), m.ScalarFeatures())
		if path {
			need += 2 * 8 * F2 * F2 // the eigendecomposition's copy and its vectors
		}
	case OVKCholesky:
		F := float64(m.Features())
		need = stats + 8*F*F + 8*(F/2)*(F/2)
		what = fmt.Sprintf("the %d×%d normal equations", m.Features(), m.Features())
	default:
		return nil
	}
	if need > float64(limit) {
		return fmt.Errorf("%s: %s need %s, above the limit of %s (raise OVKRidge.MaxBytes, use fewer points, or the "+
			"matrix-free cg or lbfgs solvers)", where, what, byteSize(need), byteSize(float64(limit)))
	}
	return nil
}

// Fit fits the model on the n rows of X (n×d, d = m.Dim()) and the targets Y (n×p, p = m.Outputs(), row-major).
// The closed-form and Cholesky solvers make one pass over the data ([AccumulateScalar]) and then call
// [OVKRidge.Solve]; CG and L-BFGS pass over the data at every iteration and never form an F×F matrix. It returns
// an error for bad shapes, NaN/Inf data, λ < 0, a system that is not numerically positive definite, or dense
// matrices larger than MaxBytes. A CG or L-BFGS run that stops at MaxIter above its tolerance returns the last
// iterate together with an error wrapping ErrNotConverged.
func (r OVKRidge) Fit(m *ovk.Map, X []float64, n int, Y []float64) (*OVKFit, error) {
	const where = "learn.OVKRidge.Fit"
	start := time.Now()
	solver, err := r.resolve(where, m)
	if err != nil {
		return nil, err
	}
	if err := checkData(where, X, n, m.Dim(), Y, m.Outputs()); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: no data (N = 0)", where)
	}
	var fit *OVKFit
	switch solver {
	case OVKClosedForm, OVKCholesky:
		if err := r.checkMemory(where, m, solver, false); err != nil {
			return nil, err
		}
		s, err := AccumulateScalar(m, X, n, Y)
		if err != nil {
			return nil, err
		}
		fits, err := r.solvePath(where, m, s, []float64{r.Lambda}, solver, false)
		if err != nil {
			return nil, err
		}
		fit = fits[0]
	case OVKCG:
		fit, err = r.fitCG(m, X, n, Y)
	case OVKLBFGS:
		fit, err = r.fitLBFGS(m, X, n, Y)
	}
	if fit != nil {
		fit.Stats.Seconds = time.Since(start).Seconds()
	}
	return fit, err
}

// Solve fits the model from the scalar statistics s of [AccumulateScalar] (for the same map m), with the
// closed-form or Cholesky solver (OVKCG and OVKLBFGS need the data and are refused). Stats.Seconds is the time of
// the solve alone.
func (r OVKRidge) Solve(m *ovk.Map, s *Stats) (*OVKFit, error) {
	fits, err := r.SolvePath(m, s, []float64{r.Lambda})
	if err != nil {
		return nil, err
	}
	return fits[0], nil
}

// FitPath fits the model for every λ in lambdas (r.Lambda is ignored) from one pass over the data. For a
// decomposable kernel with the closed form and more than one λ, ZᵀZ (centred) and BᵀB are eigendecomposed once
// (mat.EigenSym) and each λ costs O((2D)²p'): Θ(λ) = U[(UᵀZᵀYBV) ⊘ (λ_iμ_j + Nλ)]Vᵀ (docs/conventions.md §5); such fits report
// Method "eigen" (a single λ is solved by the shifted systems, "closed-form"). With OVKCholesky the F×F system is
// assembled once and factorised per λ. CG and L-BFGS are refused. Stats.Seconds is the time of the whole path.
func (r OVKRidge) FitPath(m *ovk.Map, X []float64, n int, Y []float64, lambdas []float64) ([]*OVKFit, error) {
	const where = "learn.OVKRidge.FitPath"
	start := time.Now()
	if m == nil {
		return nil, fmt.Errorf("%s: nil ORFF map", where)
	}
	if err := checkData(where, X, n, m.Dim(), Y, m.Outputs()); err != nil {
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
	s, err := AccumulateScalar(m, X, n, Y)
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

// SolvePath is FitPath from the statistics s of [AccumulateScalar] (for the same map m).
func (r OVKRidge) SolvePath(m *ovk.Map, s *Stats, lambdas []float64) ([]*OVKFit, error) {
	const where = "learn.OVKRidge.Solve"
	solver, err := r.pathSolver(where, m, lambdas)
	if err != nil {
		return nil, err
	}
	return r.solvePath(where, m, s, lambdas, solver, len(lambdas) > 1)
}

func (r OVKRidge) pathSolver(where string, m *ovk.Map, lambdas []float64) (OVKSolver, error) {
	rr := r
	rr.Lambda = 0
	solver, err := rr.resolve(where, m)
	if err != nil {
		return 0, err
	}
	if solver != OVKClosedForm && solver != OVKCholesky {
		return 0, fmt.Errorf("%s: the %v solver needs the data, not statistics: use OVKRidge.Fit", where, solver)
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
func (r OVKRidge) solvePath(where string, m *ovk.Map, s *Stats, lambdas []float64, solver OVKSolver, eigen bool) ([]*OVKFit, error) {
	start := time.Now()
	if s == nil {
		return nil, fmt.Errorf("%s: nil statistics", where)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if s.F != m.ScalarFeatures() || s.P != m.Outputs() {
		return nil, fmt.Errorf("%s: statistics have %d features and %d outputs; the map has %d scalar features and %d outputs",
			where, s.F, s.P, m.ScalarFeatures(), m.Outputs())
	}
	if s.N == 0 {
		return nil, fmt.Errorf("%s: no data (N = 0)", where)
	}
	if !s.finite() {
		return nil, fmt.Errorf("%s: statistics contain NaN or Inf", where)
	}
	if err := r.checkMemory(where, m, solver, eigen); err != nil {
		return nil, err
	}
	var fits []*OVKFit
	var err error
	switch {
	case solver == OVKClosedForm && eigen:
		fits, err = r.decomposableEigen(m, s, lambdas)
	case solver == OVKClosedForm:
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

// decomposableSetup returns the centred scalar system (A = ZᵀZ − N z̄z̄ᵀ, 2D×2D full; RB = (ZᵀY − N z̄ȳᵀ)·B,
// 2D×p'), the factor B (p×p'), and the eigenpairs of BᵀB (V nil when BᵀB is exactly diagonal: V = I).
func (r OVKRidge) decomposableSetup(m *ovk.Map, s *Stats) (A, RB, B, mu, V []float64, pr int, err error) {
	bm := m.Kernel().B()
	p, pr := bm.Dims()
	B = make([]float64, p*pr)
	for a := 0; a < p; a++ {
		for k := 0; k < pr; k++ {
			B[a*pr+k] = bm.At(a, k)
		}
	}
	F2 := s.F
	A, Bc := system(s, r.Intercept)
	RB = make([]float64, F2*pr)
	gemm(false, false, F2, pr, p, 1, Bc, B, 0, RB)
	BtB := make([]float64, pr*pr)
	gemm(true, false, pr, pr, p, 1, B, B, 0, BtB)
	mu, V, err = symEigenOrDiag(BtB, pr)
	return A, RB, B, mu, V, pr, err
}

// decomposableShifted solves the Stein equation by the p' shifted systems, one Cholesky factorisation per
// distinct eigenvalue μ of BᵀB: (μA + NλI)x = r ⇔ (A + (Nλ/μ)I)x = r/μ.
func (r OVKRidge) decomposableShifted(m *ovk.Map, s *Stats, lambdas []float64) ([]*OVKFit, error) {
	A, RB, B, mu, V, pr, err := r.decomposableSetup(m, s)
	if err != nil {
		return nil, err
	}
	F2, N := s.F, float64(s.N)
	R := RB
	if V != nil {
		R = make([]float64, F2*pr)
		gemm(false, false, F2, pr, pr, 1, RB, V, 0, R)
	}
	fits := make([]*OVKFit, len(lambdas))
	for li, lambda := range lambdas {
		Xt := make([]float64, F2*pr)
		for _, g := range equalGroups(mu) {
			mg := mu[g[0]]
			if !(mg > 0) {
				return nil, fmt.Errorf("BᵀB has a non-positive eigenvalue %g", mg)
			}
			rhs := make([]float64, F2*len(g))
			for i := 0; i < F2; i++ {
				for c, j := range g {
					rhs[i*len(g)+c] = R[i*pr+j] / mg
				}
			}
			x, _, err := spdSolve(A, F2, N*lambda/mg, rhs, len(g), lambda == 0)
			if err != nil {
				return nil, fmt.Errorf("λ = %g: %w", lambda, err)
			}
			for i := 0; i < F2; i++ {
				for c, j := range g {
					Xt[i*pr+j] = x[i*len(g)+c]
				}
			}
		}
		theta := Xt
		if V != nil {
			theta = make([]float64, F2*pr)
			gemm(false, true, F2, pr, pr, 1, Xt, V, 0, theta)
		}
		fits[li] = r.decomposableFit(m, s, A, RB, B, theta, pr, lambda, "closed-form")
	}
	return fits, nil
}

// decomposableEigen solves the Stein equation for every λ from the eigendecompositions of the centred ZᵀZ and of
// BᵀB.
func (r OVKRidge) decomposableEigen(m *ovk.Map, s *Stats, lambdas []float64) ([]*OVKFit, error) {
	A, RB, B, mu, V, pr, err := r.decomposableSetup(m, s)
	if err != nil {
		return nil, err
	}
	F2, N := s.F, float64(s.N)
	lz, U, err := symEigen(A, F2)
	if err != nil {
		return nil, fmt.Errorf("ZᵀZ: %w", err)
	}
	clampNonNegative(lz)
	// T = Uᵀ RB V.
	T := make([]float64, F2*pr)
	gemm(true, false, F2, pr, F2, 1, U, RB, 0, T)
	if V != nil {
		T2 := make([]float64, F2*pr)
		gemm(false, false, F2, pr, pr, 1, T, V, 0, T2)
		T = T2
	}
	fits := make([]*OVKFit, len(lambdas))
	W := make([]float64, F2*pr)
	for li, lambda := range lambdas {
		if err := divideSpectrum(W, T, lz, mu, N*lambda, F2, pr); err != nil {
			return nil, fmt.Errorf("λ = %g: %w", lambda, err)
		}
		UW := make([]float64, F2*pr)
		gemm(false, false, F2, pr, F2, 1, U, W, 0, UW)
		theta := UW
		if V != nil {
			theta = make([]float64, F2*pr)
			gemm(false, true, F2, pr, pr, 1, UW, V, 0, theta)
		}
		fits[li] = r.decomposableFit(m, s, A, RB, B, theta, pr, lambda, "eigen")
	}
	return fits, nil
}

// divideSpectrum sets W = T ⊘ (λ_i μ_j + shift) (rows×cols), refusing a singular system.
func divideSpectrum(W, T, l, mu []float64, shift float64, rows, cols int) error {
	var dmax float64
	for _, li := range l {
		for _, mj := range mu {
			dmax = max(dmax, li*mj+shift)
		}
	}
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			den := l[i]*mu[j] + shift
			if !(den > 1e-13*dmax) {
				return fmt.Errorf("the system is singular (eigenvalue %.3g of %.3g): use λ > 0", den, dmax)
			}
			W[i*cols+j] = T[i*cols+j] / den
		}
	}
	return nil
}

// decomposableFit packages Θ (2D×p'), computing the Stein residual ‖AΘBᵀB + NλΘ − RB‖/‖RB‖ and the bias
// b = ȳ − BΘᵀz̄.
func (r OVKRidge) decomposableFit(m *ovk.Map, s *Stats, A, RB, B, theta []float64, pr int, lambda float64, method string) *OVKFit {
	F2, p, N := s.F, s.P, float64(s.N)
	BtB := make([]float64, pr*pr)
	gemm(true, false, pr, pr, p, 1, B, B, 0, BtB)
	AT := make([]float64, F2*pr)
	gemm(false, false, F2, pr, F2, 1, A, theta, 0, AT)
	res := make([]float64, F2*pr)
	gemm(false, false, F2, pr, pr, 1, AT, BtB, 0, res)
	for i := range res {
		res[i] += N*lambda*theta[i] - RB[i]
	}
	fit := &OVKFit{F: m.Features(), P: p, Rank: pr, Theta: theta, Bias: make([]float64, p), Lambda: lambda,
		Intercept: r.Intercept}
	fit.Stats = SolveStats{Method: method, Residual: relResidual(res, RB, F2, pr)}
	if r.Intercept {
		// u = Θᵀ z̄ (p'), b = ȳ − B u.
		u := make([]float64, pr)
		for f := 0; f < F2; f++ {
			zf := s.SumZ[f] / N
			for k := 0; k < pr; k++ {
				u[k] += theta[f*pr+k] * zf
			}
		}
		for a := 0; a < p; a++ {
			fit.Bias[a] = s.SumY[a]/N - floats.Dot(B[a*pr:(a+1)*pr], u)
		}
	}
	return fit
}

// ovkFactors holds the factors B(ω_j) of a map (D blocks p×p', row-major) recovered from its documented layout:
// at x = 0 the scalar features are z_j(0) = √w_j (cos) and 0 (sin), and the cos rows of Φ̃(0) hold √w_j·B(ω_j).
type ovkFactors struct {
	D, p, pr int
	B        []float64 // D·p·p'
}

func mapFactors(m *ovk.Map) ovkFactors {
	D, p, pr, F := m.Points(), m.Outputs(), m.Rank(), m.Features()
	x0 := make([]float64, m.Dim())
	z0 := make([]float64, 2*D)
	m.ScalarBlock(z0, x0, 1, nil)
	phi := make([]float64, p*F)
	m.TransformBlock(phi, x0, 1, nil)
	fac := ovkFactors{D: D, p: p, pr: pr, B: make([]float64, D*p*pr)}
	for j := 0; j < D; j++ {
		amp := z0[j]
		if amp == 0 {
			continue // a zero-weight point has identically zero features
		}
		Bj := fac.B[j*p*pr : (j+1)*p*pr]
		for a := 0; a < p; a++ {
			for k := 0; k < pr; k++ {
				Bj[a*pr+k] = phi[a*F+j*pr+k] / amp
			}
		}
	}
	return fac
}

// normalEquations assembles, from the scalar statistics, the (centred) F×F matrix G = ΦᵀΦ (full, row-major) and
// h = ΦᵀY (F), using (ΦᵀΦ)[(f,k),(g,l)] = (ZᵀZ)[f,g]·(B_jᵀB_l)[k,l] and h[(f,k)] = Σ_a B_j[a,k](ZᵀY)[f,a].
func normalEquations(fac ovkFactors, s *Stats, intercept bool) (G, h []float64) {
	D, p, pr := fac.D, fac.p, fac.pr
	F2, F, Dp := 2*D, 2*D*pr, D*pr
	Sc, Rc := system(s, intercept)
	// Bmat is p × (D·p'), column j·p'+k = B_j[·,k]; M = BmatᵀBmat holds every B_jᵀB_l.
	Bmat := make([]float64, p*Dp)
	for j := 0; j < D; j++ {
		for a := 0; a < p; a++ {
			copy(Bmat[a*Dp+j*pr:a*Dp+(j+1)*pr], fac.B[j*p*pr+a*pr:j*p*pr+(a+1)*pr])
		}
	}
	M := make([]float64, Dp*Dp)
	gemm(true, false, Dp, Dp, p, 1, Bmat, Bmat, 0, M)
	G = make([]float64, F*F)
	for f := 0; f < F2; f++ {
		j := f % D
		srow := Sc[f*F2 : (f+1)*F2]
		for k := 0; k < pr; k++ {
			grow := G[(f*pr+k)*F : (f*pr+k+1)*F]
			mrow := M[(j*pr+k)*Dp : (j*pr+k+1)*Dp]
			for g, sfg := range srow {
				l := g % D
				dst := grow[g*pr : (g+1)*pr]
				src := mrow[l*pr : (l+1)*pr]
				for q, v := range src {
					dst[q] = sfg * v
				}
			}
		}
	}
	h = make([]float64, F)
	for f := 0; f < F2; f++ {
		Bj := fac.B[(f%D)*p*pr : (f%D+1)*p*pr]
		rf := Rc[f*p : (f+1)*p]
		for k := 0; k < pr; k++ {
			var v float64
			for a, ra := range rf {
				v += Bj[a*pr+k] * ra
			}
			h[f*pr+k] = v
		}
	}
	return G, h
}

// normalCholesky assembles the normal equations once and factorises them for every λ.
func (r OVKRidge) normalCholesky(m *ovk.Map, s *Stats, lambdas []float64) ([]*OVKFit, error) {
	fac := mapFactors(m)
	G, h := normalEquations(fac, s, r.Intercept)
	F, N := m.Features(), float64(s.N)
	fits := make([]*OVKFit, len(lambdas))
	for li, lambda := range lambdas {
		theta, res, err := spdSolve(G, F, N*lambda, h, 1, lambda == 0)
		if err != nil {
			return nil, fmt.Errorf("λ = %g: %w", lambda, err)
		}
		fit := &OVKFit{F: F, P: m.Outputs(), Rank: m.Rank(), Theta: theta, Bias: make([]float64, m.Outputs()),
			Lambda: lambda, Intercept: r.Intercept, Stats: SolveStats{Method: "cholesky", Residual: res}}
		if r.Intercept {
			// b = ȳ − Φ̄ᵀθ, Φ̄ᵀθ[a] = (1/N) Σ_f (Σz)_f Σ_k B_j[a,k] θ[f·p'+k].
			D, p, pr := fac.D, fac.p, fac.pr
			mean := make([]float64, p)
			for f := 0; f < 2*D; f++ {
				zf := s.SumZ[f] / N
				Bj := fac.B[(f%D)*p*pr : (f%D+1)*p*pr]
				th := theta[f*pr : (f+1)*pr]
				for a := 0; a < p; a++ {
					mean[a] += zf * floats.Dot(Bj[a*pr:(a+1)*pr], th)
				}
			}
			for a := range mean {
				fit.Bias[a] = s.SumY[a]/N - mean[a]
			}
		}
		fits[li] = fit
	}
	return fits, nil
}

// ovkLinear applies the ORFF design matrix of the training rows and its transpose: predict writes Φ̃(x_i)ᵀθ
// (n×p) and adjoint adds Σ_i Φ̃(x_i)y_i to dst (F).
type ovkLinear interface {
	predict(dst, theta []float64) error
	adjoint(dst, y []float64) error
}

// mapLinear recomputes the features at every product through ovk.Map.Predict and ovk.Map.Adjoint (memory O(F + n·p)).
type mapLinear struct {
	m *ovk.Map
	X []float64
	n int
}

func (l mapLinear) predict(dst, theta []float64) error { return l.m.Predict(dst, l.X, l.n, theta) }
func (l mapLinear) adjoint(dst, y []float64) error     { return l.m.Adjoint(dst, l.X, l.n, y) }

// cachedLinear holds the scalar features Z (n×2D) of the training rows and applies the design matrix from them and
// the factors B(ω_j), with the layout of ovk.Map: with U[i,(j,k)] = z_ij θ_(j,k) + z_i,D+j θ_(D+j,k),
// Φ̃(x_i)ᵀθ = Σ_{j,k} U[i,(j,k)]·B_j[·,k], a product U·Bst with Bst the (D·p')×p stack of the columns of the B_j; the
// adjoint forms V = Y·Bstᵀ and sums z_ij·V[i,(j,k)] and z_i,D+j·V[i,(j,k)] over i. No sines or cosines are
// recomputed: O(n·D·p'·p) per product. Row blocks run in parallel; the adjoint's partial sums are merged in a fixed
// order, so results do not depend on scheduling.
type cachedLinear struct {
	Z              []float64 // n×2D
	Bst            []float64 // (D·p')×p
	n, D, p, pr, S int
	buf            [][]float64 // per shard: BlockRows×(D·p') scratch
}

func newCachedLinear(m *ovk.Map, fac ovkFactors, X []float64, n int) *cachedLinear {
	D, p, pr := fac.D, fac.p, fac.pr
	c := &cachedLinear{Z: make([]float64, n*2*D), Bst: make([]float64, D*pr*p), n: n, D: D, p: p, pr: pr,
		S: min(numBlocks(n), 16)}
	ovkScalarBlocks(m, X, n, numBlocks(n), func(_ int, z []float64, r0, rows int) {
		copy(c.Z[r0*2*D:(r0+rows)*2*D], z)
	})
	c.buf = make([][]float64, c.S)
	for s := range c.buf {
		c.buf[s] = make([]float64, min(BlockRows, n)*D*pr)
	}
	for j := 0; j < D; j++ {
		Bj := fac.B[j*p*pr : (j+1)*p*pr]
		for k := 0; k < pr; k++ {
			for a := 0; a < p; a++ {
				c.Bst[(j*pr+k)*p+a] = Bj[a*pr+k]
			}
		}
	}
	return c
}

func cachedBytes(n, D, pr int) float64 {
	return 8 * (float64(n)*2*float64(D) + float64(min(n, BlockRows))*float64(D*pr)*float64(min(numBlocks(n), 16)))
}

func (c *cachedLinear) predict(dst, theta []float64) error {
	D, p, pr, Dp := c.D, c.p, c.pr, c.D*c.pr
	runShards(c.S, func(s int) {
		r0, r1 := shardRange(c.n, c.S, s, BlockRows)
		for b := r0; b < r1; b += BlockRows {
			rows := min(BlockRows, r1-b)
			U := c.buf[s][:rows*Dp]
			for i := 0; i < rows; i++ {
				z := c.Z[(b+i)*2*D : (b+i+1)*2*D]
				u := U[i*Dp : (i+1)*Dp]
				for j := 0; j < D; j++ {
					zc, zs := z[j], z[D+j]
					tc, ts := theta[j*pr:(j+1)*pr], theta[(D+j)*pr:(D+j+1)*pr]
					for k := range tc {
						u[j*pr+k] = zc*tc[k] + zs*ts[k]
					}
				}
			}
			gemm(false, false, rows, p, Dp, 1, U, c.Bst, 0, dst[b*p:(b+rows)*p])
		}
	})
	return nil
}

func (c *cachedLinear) adjoint(dst, y []float64) error {
	D, p, pr, Dp, F := c.D, c.p, c.pr, c.D*c.pr, 2*c.D*c.pr
	partial := make([][]float64, c.S)
	runShards(c.S, func(s int) {
		g := make([]float64, F)
		r0, r1 := shardRange(c.n, c.S, s, BlockRows)
		for b := r0; b < r1; b += BlockRows {
			rows := min(BlockRows, r1-b)
			v := c.buf[s][:rows*Dp]
			gemm(false, true, rows, Dp, p, 1, y[b*p:(b+rows)*p], c.Bst, 0, v)
			for i := 0; i < rows; i++ {
				z := c.Z[(b+i)*2*D : (b+i+1)*2*D]
				vi := v[i*Dp : (i+1)*Dp]
				for j := 0; j < D; j++ {
					zc, zs := z[j], z[D+j]
					gc, gs := g[j*pr:(j+1)*pr], g[(D+j)*pr:(D+j+1)*pr]
					for k, vk := range vi[j*pr : (j+1)*pr] {
						gc[k] += zc * vk
						gs[k] += zs * vk
					}
				}
			}
		}
		partial[s] = g
	})
	for _, g := range partial {
		floats.Add(dst, g)
	}
	return nil
}

// linear returns the design-matrix operator of the training rows for CG and L-BFGS: cached scalar features when they
// fit in MaxBytes, the map's Predict/Adjoint otherwise.
func (r OVKRidge) linear(m *ovk.Map, fac ovkFactors, X []float64, n int) ovkLinear {
	limit := r.MaxBytes
	if limit <= 0 {
		limit = DefaultOVKMaxBytes
	}
	if cachedBytes(n, m.Points(), m.Rank()) <= float64(limit) {
		return newCachedLinear(m, fac, X, n)
	}
	return mapLinear{m: m, X: X, n: n}
}

// ovkOperator applies the (centred) normal-equation operator θ ↦ Σ_i (Φ̃_i − Φ̄)(Φ̃_i − Φ̄)ᵀθ + Nλθ without forming
// ΦᵀΦ; the centring subtracts the column means of the predictions, since Σ_i (Φ̃_i − Φ̄) = 0.
type ovkOperator struct {
	lin       ovkLinear
	n, p      int
	lambda    float64
	intercept bool
	pred      []float64
	err       error
}

func (o *ovkOperator) apply(dst, v []float64) {
	if o.pred == nil {
		o.pred = make([]float64, o.n*o.p)
	}
	if err := o.lin.predict(o.pred, v); err != nil && o.err == nil {
		o.err = err
	}
	if o.intercept {
		centreColumns(o.pred, o.n, o.p)
	}
	clear(dst)
	if err := o.lin.adjoint(dst, o.pred); err != nil && o.err == nil {
		o.err = err
	}
	floats.AddScaled(dst, float64(o.n)*o.lambda, v)
}

// centreColumns subtracts from each column of the n×p matrix Y its mean, and returns the means.
func centreColumns(Y []float64, n, p int) []float64 {
	mean := make([]float64, p)
	for i := 0; i < n; i++ {
		floats.Add(mean, Y[i*p:(i+1)*p])
	}
	floats.Scale(1/float64(n), mean)
	for i := 0; i < n; i++ {
		floats.Sub(Y[i*p:(i+1)*p], mean)
	}
	return mean
}

// ovkRHS returns h = Σ_i Φ̃_i(y_i − ȳ) (or Σ_i Φ̃_i y_i without intercept; F values) and ȳ.
func ovkRHS(lin ovkLinear, F, n, p int, Y []float64, intercept bool) (h, ybar []float64, err error) {
	ybar = make([]float64, p)
	yc := Y
	if intercept {
		yc = append([]float64(nil), Y...)
		ybar = centreColumns(yc, n, p)
	}
	h = make([]float64, F)
	if err := lin.adjoint(h, yc); err != nil {
		return nil, nil, err
	}
	return h, ybar, nil
}

// ovkDiag returns the diagonal of the (centred) normal matrix, Σ_i (z_f(x_i) − z̄_f)²·‖B_j[·,k]‖² + Nλ, from one
// pass over the scalar features (the Jacobi preconditioner of CG).
func ovkDiag(m *ovk.Map, fac ovkFactors, X []float64, n int, lambda float64, intercept bool) []float64 {
	F2 := m.ScalarFeatures()
	S := min(numBlocks(n), 8)
	sums := make([][]float64, S)
	sqs := make([][]float64, S)
	for s := range sums {
		sums[s], sqs[s] = make([]float64, F2), make([]float64, F2)
	}
	ovkScalarBlocks(m, X, n, S, func(s int, z []float64, _ int, rows int) {
		for i := 0; i < rows; i++ {
			for f, v := range z[i*F2 : (i+1)*F2] {
				sums[s][f] += v
				sqs[s][f] += v * v
			}
		}
	})
	for s := 1; s < S; s++ {
		floats.Add(sums[0], sums[s])
		floats.Add(sqs[0], sqs[s])
	}
	N := float64(n)
	D, p, pr := fac.D, fac.p, fac.pr
	diag := make([]float64, m.Features())
	for f := 0; f < F2; f++ {
		v := sqs[0][f]
		if intercept {
			v -= sums[0][f] * sums[0][f] / N
		}
		Bj := fac.B[(f%D)*p*pr : (f%D+1)*p*pr]
		for k := 0; k < pr; k++ {
			var c float64
			for a := 0; a < p; a++ {
				c += Bj[a*pr+k] * Bj[a*pr+k]
			}
			diag[f*pr+k] = v*c + N*lambda
		}
	}
	return diag
}

// ovkBias returns b = ȳ − (1/N)Σ_i Φ̃(x_i)ᵀθ.
func ovkBias(lin ovkLinear, n, p int, theta, ybar []float64) ([]float64, error) {
	pred := make([]float64, n*p)
	if err := lin.predict(pred, theta); err != nil {
		return nil, err
	}
	mean := centreColumns(pred, n, p)
	b := make([]float64, p)
	for a := range b {
		b[a] = ybar[a] - mean[a]
	}
	return b, nil
}

func (r OVKRidge) cgTol() float64 {
	if r.Tol > 0 {
		return r.Tol
	}
	return 1e-10
}

// fitCG solves the normal equations by preconditioned CG without forming ΦᵀΦ.
func (r OVKRidge) fitCG(m *ovk.Map, X []float64, n int, Y []float64) (*OVKFit, error) {
	const where = "learn.OVKRidge.Fit (cg)"
	F, p := m.Features(), m.Outputs()
	fac := mapFactors(m)
	lin := r.linear(m, fac, X, n)
	h, ybar, err := ovkRHS(lin, F, n, p, Y, r.Intercept)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	diag := ovkDiag(m, fac, X, n, r.Lambda, r.Intercept)
	op := &ovkOperator{lin: lin, n: n, p: p, lambda: r.Lambda, intercept: r.Intercept}
	maxIter := r.MaxIter
	if maxIter <= 0 {
		maxIter = max(100, 2*F)
	}
	res, cgErr := pcg(op.apply, h, diag, F, 1, r.cgTol(), maxIter)
	if op.err != nil {
		return nil, fmt.Errorf("%s: %w", where, op.err)
	}
	fit := &OVKFit{F: F, P: p, Rank: m.Rank(), Theta: res.X, Bias: make([]float64, p), Lambda: r.Lambda,
		Intercept: r.Intercept}
	fit.Stats = SolveStats{Method: "cg-matrix-free", Iterations: res.Iterations, Residual: res.Residual}
	if r.Intercept {
		if fit.Bias, err = ovkBias(lin, n, p, fit.Theta, ybar); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
	}
	if cgErr != nil {
		return fit, fmt.Errorf("%s: %w", where, cgErr)
	}
	return fit, nil
}

// fitLBFGS minimises L(θ, b) by L-BFGS over x = [θ, b] (b only with an intercept).
func (r OVKRidge) fitLBFGS(m *ovk.Map, X []float64, n int, Y []float64) (*OVKFit, error) {
	const where = "learn.OVKRidge.Fit (lbfgs)"
	F, p := m.Features(), m.Outputs()
	N := float64(n)
	lin := r.linear(m, mapFactors(m), X, n)
	dim := F
	if r.Intercept {
		dim += p
	}
	pred := make([]float64, n*p)
	var evalErr error
	var cacheX []float64
	var cacheF float64
	cacheG := make([]float64, dim)
	eval := func(x []float64) {
		if cacheX != nil && floats.Equal(x, cacheX) {
			return
		}
		cacheX = append(cacheX[:0], x...)
		theta := x[:F]
		if err := lin.predict(pred, theta); err != nil && evalErr == nil {
			evalErr = err
		}
		var loss float64
		gb := make([]float64, p)
		for i := 0; i < n; i++ {
			row := pred[i*p : (i+1)*p]
			for a := range row {
				if r.Intercept {
					row[a] += x[F+a]
				}
				row[a] -= Y[i*p+a] // residual r_i
				loss += row[a] * row[a]
				gb[a] += row[a]
			}
		}
		gt := cacheG[:F]
		clear(gt)
		if err := lin.adjoint(gt, pred); err != nil && evalErr == nil {
			evalErr = err
		}
		floats.Scale(2/N, gt)
		floats.AddScaled(gt, 2*r.Lambda, theta)
		if r.Intercept {
			for a := range gb {
				cacheG[F+a] = 2 * gb[a] / N
			}
		}
		cacheF = loss/N + r.Lambda*floats.Dot(theta, theta)
	}
	x0 := make([]float64, dim)
	eval(x0)
	if evalErr != nil {
		return nil, fmt.Errorf("%s: %w", where, evalErr)
	}
	g0 := floats.Norm(cacheG, math.Inf(1))
	tol := r.Tol
	if tol <= 0 {
		tol = 1e-10
	}
	maxIter := r.MaxIter
	if maxIter <= 0 {
		maxIter = max(1000, 2*F)
	}
	prob := optimize.Problem{
		Func: func(x []float64) float64 { eval(x); return cacheF },
		Grad: func(g, x []float64) { eval(x); copy(g, cacheG) },
	}
	settings := &optimize.Settings{
		GradientThreshold: tol * g0,
		MajorIterations:   maxIter,
		Converger:         optimize.NeverTerminate{},
	}
	method := &optimize.LBFGS{Linesearcher: &secantLinesearch{}}
	fit := &OVKFit{F: F, P: p, Rank: m.Rank(), Bias: make([]float64, p), Lambda: r.Lambda, Intercept: r.Intercept}
	xOpt := x0
	iters := 0
	if g0 > 0 {
		res, err := optimize.Minimize(prob, x0, settings, method)
		if res == nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		xOpt, iters = res.X, res.MajorIterations
	}
	if evalErr != nil {
		return nil, fmt.Errorf("%s: %w", where, evalErr)
	}
	fit.Theta = append([]float64(nil), xOpt[:F]...)
	eval(xOpt)
	gRel := 0.0
	if g0 > 0 {
		gRel = floats.Norm(cacheG, math.Inf(1)) / g0
	}
	// Report the residual of the (centred) normal equations, like the other solvers, and the optimal bias for θ.
	h, ybar, err := ovkRHS(lin, F, n, p, Y, r.Intercept)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	op := &ovkOperator{lin: lin, n: n, p: p, lambda: r.Lambda, intercept: r.Intercept}
	Ah := make([]float64, F)
	op.apply(Ah, fit.Theta)
	floats.Sub(Ah, h)
	fit.Stats = SolveStats{Method: "lbfgs", Iterations: iters, Residual: relResidual(Ah, h, F, 1)}
	if r.Intercept {
		if fit.Bias, err = ovkBias(lin, n, p, fit.Theta, ybar); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
	}
	if gRel > tol {
		return fit, notConverged{fmt.Sprintf("%s: L-BFGS did not converge: stopped after %d iterations with relative "+
			"gradient %.3g > %.3g", where, iters, gRel, tol)}
	}
	return fit, nil
}

// notConverged is an error that wraps ErrNotConverged with its own message (ErrNotConverged's text names CG).
type notConverged struct{ msg string }

func (e notConverged) Error() string { return e.msg }
func (e notConverged) Unwrap() error { return ErrNotConverged }

// secantLinesearch is an optimize.Linesearcher for convex quadratic objectives such as ridge regression. Along a
// search direction φ'(α) is affine, so the secant through two directional derivatives is the exact minimiser; the
// search stops at the strong Wolfe curvature condition |φ'(α)| ≤ 0.9|φ'(0)|, which for a convex quadratic implies
// φ(α) < φ(0). It never compares function values: near the optimum their changes (of order ‖∇‖²/λ_max) fall below
// the rounding of φ itself (relative 1e-16), which stalls value-based line searches at a relative gradient of about
// 1e-8, while gradients stay accurate.
type secantLinesearch struct {
	g0       float64 // φ'(0)
	pa, pg   float64 // previous step and its derivative
	a        float64 // current step
	attempts int
}

const secantCurvature = 0.9

func (s *secantLinesearch) Init(_, g, step float64) optimize.Operation {
	s.g0, s.pa, s.pg, s.a, s.attempts = g, 0, g, step, 0
	return optimize.FuncEvaluation | optimize.GradEvaluation
}

func (s *secantLinesearch) Iterate(_, g float64) (optimize.Operation, float64, error) {
	if math.Abs(g) <= secantCurvature*math.Abs(s.g0) {
		return optimize.MajorIteration, s.a, nil
	}
	if s.attempts++; s.attempts > 50 || math.IsNaN(g) {
		return optimize.NoOperation, 0, errors.New("secant line search: no acceptable step")
	}
	next := math.NaN()
	if den := g - s.pg; den > 0 {
		next = s.a - g*(s.a-s.pa)/den
	}
	if !(next > 0) || math.IsInf(next, 0) { // not convex along the segment (rounding): expand or contract
		if g < 0 {
			next = 2 * s.a
		} else {
			next = s.a / 2
		}
	}
	s.pa, s.pg, s.a = s.a, g, next
	return optimize.FuncEvaluation | optimize.GradEvaluation, next, nil
}

// spdSolve solves (A + shift·I)X = B for the symmetric n×n matrix A (row-major; both triangles valid) and B
// (n×nrhs) by a Cholesky factorisation computed in place in the upper triangle (lapack64.Potrf). The strict lower
// triangle is never written; the residual is computed from it, and A is restored before returning, so it can be
// reused for another shift. With strict (λ = 0) a numerically singular system (reciprocal condition number below
// 1e-14) is an error. It returns X and the largest relative residual over the columns.
func spdSolve(A []float64, n int, shift float64, B []float64, nrhs int, strict bool) ([]float64, float64, error) {
	diag := make([]float64, n)
	var anorm float64
	for i := 0; i < n; i++ {
		diag[i] = A[i*n+i]
		var s float64
		for _, v := range A[i*n : (i+1)*n] {
			s += math.Abs(v)
		}
		anorm = max(anorm, s+math.Abs(shift))
		A[i*n+i] += shift
	}
	restore := func() {
		for i := 0; i < n; i++ {
			A[i*n+i] = diag[i]
			for j := i + 1; j < n; j++ {
				A[i*n+j] = A[j*n+i]
			}
		}
	}
	defer restore()
	a := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: A}
	t, ok := lapack64.Potrf(a)
	if !ok {
		if strict {
			return nil, 0, errors.New("with λ = 0 the system is singular (not positive definite): use λ > 0")
		}
		return nil, 0, errors.New("the system is not positive definite: increase λ")
	}
	if strict {
		work := make([]float64, 3*n)
		iwork := make([]int, n)
		if rc := lapack64.Pocon(a, anorm, work, iwork); rc < 1e-14 {
			return nil, 0, fmt.Errorf("with λ = 0 the system is singular (condition number ≈ %.2g): use λ > 0", 1/rc)
		}
	}
	X := append([]float64(nil), B...)
	lapack64.Potrs(t, blas64.General{Rows: n, Cols: nrhs, Stride: nrhs, Data: X})
	// Residual from the untouched strict lower triangle and the shifted diagonal.
	for i := 0; i < n; i++ {
		A[i*n+i] = diag[i] + shift
	}
	R := append([]float64(nil), B...)
	blas64.Symm(blas.Left, 1, blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: n, Data: A},
		blas64.General{Rows: n, Cols: nrhs, Stride: nrhs, Data: X}, -1, blas64.General{Rows: n, Cols: nrhs, Stride: nrhs, Data: R})
	return X, relResidual(R, B, n, nrhs), nil
}

// gemm computes C = α op(A) op(B) + βC for row-major A (m×k, or k×m when tA), B (k×n, or n×k when tB), C (m×n).
func gemm(tA, tB bool, m, n, k int, alpha float64, A, B []float64, beta float64, C []float64) {
	if m == 0 || n == 0 {
		return
	}
	ta, tb := blas.NoTrans, blas.NoTrans
	ga := blas64.General{Rows: m, Cols: k, Stride: k, Data: A}
	gb := blas64.General{Rows: k, Cols: n, Stride: n, Data: B}
	if tA {
		ta = blas.Trans
		ga = blas64.General{Rows: k, Cols: m, Stride: m, Data: A}
	}
	if tB {
		tb = blas.Trans
		gb = blas64.General{Rows: n, Cols: k, Stride: k, Data: B}
	}
	if k == 0 {
		for i := range C[:m*n] {
			C[i] *= beta
		}
		return
	}
	blas64.Gemm(ta, tb, alpha, ga, gb, beta, blas64.General{Rows: m, Cols: n, Stride: n, Data: C})
}
