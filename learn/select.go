package learn

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"

	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/finite"
	"github.com/rffkit/rff/internal/linalg"
)

// Selection holds the closed-form criteria of SelectLambda for every λ of a grid (docs/conventions.md §12.2,
// §12.3). Per-output quantities are indexed [λ][output].
type Selection struct {
	// Lambdas is the grid, in the order given.
	Lambdas []float64
	// N is the number of rows, P the number of outputs, and Intercept whether the bias was fitted (by centring).
	N, P      int
	Intercept bool
	// DF[i] is the effective number of parameters tr H of the fit at Lambdas[i], H the hat matrix that maps the
	// targets to the fitted values: Σ_k μ_k/(μ_k + Nλ) over the eigenvalues μ_k of the (centred) ZᵀZ, plus 1 for
	// the intercept.
	DF []float64
	// GCV[i] is the generalised cross-validation score N·Σ_j RSS_j / (P·(N − DF[i])²) (Golub, Heath & Wahba 1979),
	// RSS_j the residual sum of squares of output j: an estimate of the held-out mean squared error per (row,
	// output) entry, comparable with CVResult.MSE.
	GCV []float64
	// NoiseVar[i][j] is RSS_j/(N − DF[i]), the residual estimate of the noise variance of output j.
	NoiseVar [][]float64
	// LogEvidence[i] is the log marginal likelihood of the targets under Bayesian linear regression on the features
	// with prior θ ~ N(0, σ²/(Nλ)·I), noise variance σ² set for each output to its maximum-likelihood value
	// EvidenceNoiseVar, and (with Intercept) a flat prior on the bias, summed over the outputs.
	LogEvidence []float64
	// EvidenceNoiseVar[i][j] is the σ² that maximises the evidence of output j at Lambdas[i]: (RSS_j + Nλ‖θ_j‖²)/Ñ,
	// Ñ = N − 1 with an intercept and N without. The prior variance of each weight is then EvidenceNoiseVar/(Nλ).
	EvidenceNoiseVar [][]float64
	// BestGCV is the λ with the smallest GCV (the first one on ties), at index BestGCVIndex.
	BestGCV      float64
	BestGCVIndex int
	// BestEvidence is the λ with the largest LogEvidence (the first one on ties), at index BestEvidenceIndex.
	BestEvidence      float64
	BestEvidenceIndex int
}

// SelectLambda evaluates, for every λ of lambdas, the closed-form criteria of ridge regression Ridge{Lambda: λ,
// Intercept: intercept} on the statistics s: the effective degrees of freedom, generalised cross-validation, the
// noise variance and the Bayesian evidence (log marginal likelihood), and picks the best λ by GCV and by evidence
// (docs/conventions.md §12.2, §12.3). Unlike CrossValidate it needs no pass over the data: one eigendecomposition of
// the (centred) ZᵀZ = U diag(μ) Uᵀ, O(F³), after which every λ costs O(F·P). With g = Uᵀ(ZᵀY) (centred), the
// squared norm of y in each eigendirection is c_k = g_k²/μ_k, and
//
//	RSS(λ) = RSS₀ + Σ_k c_k (Nλ/(μ_k + Nλ))²,        df(λ) = [1] + Σ_k μ_k/(μ_k + Nλ),
//	Q(λ)   = RSS(λ) + Nλ‖θ(λ)‖² = RSS₀ + Σ_k c_k Nλ/(μ_k + Nλ),
//
// with RSS₀ = Σ(y − ȳ)² − Σ_k c_k the least-squares residual: sums of non-negative terms, so that the λ-dependent
// part carries no cancellation. Eigenvalues below F·ε·μ_max (ε = 2⁻⁵², numerically null directions of ZᵀZ, which
// y cannot load on) count as 0. The log evidence of output j, with σ² profiled to Q_j/Ñ, is
//
//	log p(y_j | λ) = −½ Σ_k log(1 + μ_k/(Nλ)) − (Ñ/2)(1 + log(2π Q_j/Ñ)) [− ½ log N],
//
// Ñ = N − 1 and the bracketed term with an intercept (a flat prior on the bias integrated out; Ñ = N and no term
// without).
//
// s must be valid statistics (Stats.Validate) with N ≥ 2 rows when intercept is set (N ≥ 1 otherwise), and every
// output must vary (Σ(y − ȳ)² > 0 with an intercept, Σy² > 0 without): a constant target has an unbounded evidence.
// Every λ must be finite and > 0. Memory: two F×F matrices.
func SelectLambda(s *Stats, lambdas []float64, intercept bool) (*Selection, error) {
	if err := checkGrid("learn.SelectLambda", s, lambdas, nil); err != nil {
		return nil, err
	}
	sp, err := newSpectrum(s, intercept)
	if err != nil {
		return nil, fmt.Errorf("learn.SelectLambda: %w", err)
	}
	P := s.P
	sel := newSelection(s, lambdas, intercept)
	N, Nt := float64(s.N), sp.nt
	rss, q := make([]float64, P), make([]float64, P)
	for i, lambda := range lambdas {
		df, logdet := sp.at(lambda, rss, q)
		sel.record(i, df, logdet, rss, q, N, Nt, intercept)
	}
	sel.BestGCV, sel.BestEvidence = sel.Lambdas[sel.BestGCVIndex], sel.Lambdas[sel.BestEvidenceIndex]
	return sel, nil
}

// SelectLambdaMap is SelectLambda on the n rows of X (n×d, d = m.Dim()) mapped through m with the targets Y (n×p):
// the same criteria, computed in the cheaper form. With more than twice as many features F as rows it keeps the
// n×F features Z and eigendecomposes the n×n matrix Z_cZ_cᵀ of the centred features (O(n²F + n³)) instead of
// accumulating and eigendecomposing the F×F ZᵀZ (O(nF² + F³)): the non-zero eigenvalues of the two are the same
// and the criteria agree up to rounding (docs/conventions.md §12.2). Memory: two F×F matrices in the primal; in the
// dual two n×F (the features, centred) and four n×n (the matrix, its eigenvectors and LAPACK's workspace). The
// requirements on the data and the grid are SelectLambda's.
func SelectLambdaMap(m Mapper, X []float64, n int, Y []float64, p int, lambdas []float64, intercept bool) (*Selection, error) {
	const where = "learn.SelectLambdaMap"
	if isNil(m) {
		return nil, errors.New(where + ": nil feature map")
	}
	if err := checkMapper(where, m); err != nil {
		return nil, err
	}
	if err := blocks.CheckData(where, X, n, m.Dim(), Y, p); err != nil {
		return nil, err
	}
	F := m.Features()
	if !dualCheaper(n, F) {
		s, err := Accumulate(m, X, n, Y, p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		sel, err := SelectLambda(s, lambdas, intercept)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		return sel, nil
	}
	if err := checkLambdas(where, n, lambdas, nil); err != nil {
		return nil, err
	}
	// The targets' checks of SelectLambda, on their sums: finite, and not too small for their squares.
	st := &Stats{N: n, P: p, SumY: make([]float64, p), SumYY: make([]float64, p)}
	for i := range n {
		for j, y := range Y[i*p : (i+1)*p] {
			st.SumY[j] += y
			st.SumYY[j] += y * y
		}
	}
	if finite.Index(st.SumY) >= 0 || finite.Index(st.SumYY) >= 0 {
		return nil, fmt.Errorf("%s: statistics contain NaN or Inf (targets too large for their squares)", where)
	}
	if _, err := centredSumSquares(st, intercept); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	Z, err := Features(m, X, n, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	sel, err := selectRows(Z, n, F, Y, p, lambdas, intercept)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return sel, nil
}

// dualCheaper reports whether a ridge problem of n rows and F features is cheaper in the dual (n×n) than in the
// primal (F×F): with F > 2n the n³ and n²F terms are well below F³ and nF².
func dualCheaper(n, F int) bool { return F > 2*n }

// selectRows is SelectLambda in the dual: from the n×F features Z, centred by their column means with an
// intercept, it forms Z_cZ_cᵀ and evaluates the criteria from its eigendecomposition (selectDual).
func selectRows(Z []float64, n, F int, Y []float64, p int, lambdas []float64, intercept bool) (*Selection, error) {
	_, Yc, K := centredGram(Z, n, F, Y, p, intercept)
	return selectDual(K, n, Yc, p, lambdas, intercept)
}

// spectrum is the eigendecomposition of a (centred) ridge problem reduced to what the λ path needs.
type spectrum struct {
	F, P   int
	n, nt  float64   // N, and Ñ = N − 1 with an intercept (N without)
	mu     []float64 // F eigenvalues of the centred ZᵀZ, those below the null threshold set to 0
	c      []float64 // F×P: c_kj = g_kj²/μ_k (0 where μ_k = 0)
	rss0   []float64 // P: least-squares residual Σ(y − ȳ)² − Σ_k c_kj, clamped at 0
	offset float64   // 1 with an intercept: its contribution to df
}

// newSpectrum eigendecomposes the normal equations of s (centred when intercept).
func newSpectrum(s *Stats, intercept bool) (*spectrum, error) {
	F, P := s.F, s.P
	yy, err := centredSumSquares(s, intercept)
	if err != nil {
		return nil, err
	}
	A, B := s.NormalEquations(intercept)
	sp, err := emptySpectrum(F, P, s.N, yy, intercept)
	if err != nil {
		return nil, err
	}
	mu, U, err := linalg.EigenSym(F, A)
	if err != nil {
		return nil, err
	}
	G := make([]float64, F*P) // Uᵀ B
	linalg.Gemm(true, false, F, P, F, 1, U, F, B, P, 0, G, P)
	sp.fill(mu, G, false)
	return sp, nil
}

// emptySpectrum checks the row count and the targets' centred sums of squares yy (one per output) and returns a
// spectrum to fill.
func emptySpectrum(F, P, N int, yy []float64, intercept bool) (*spectrum, error) {
	sp := &spectrum{F: F, P: P, n: float64(N), nt: float64(N), rss0: yy}
	if intercept {
		sp.nt--
		sp.offset = 1
	}
	if sp.nt < 1 {
		return nil, fmt.Errorf("need at least %d row(s), have %d", 1+int(sp.offset), N)
	}
	for j, v := range yy {
		if !(v > 0) {
			return nil, fmt.Errorf("output %d is constant (its centred sum of squares is %v): every λ fits it exactly, so there is nothing to choose (GCV is 0/0, the evidence unbounded); fit it with a given λ", j+1, v)
		}
	}
	return sp, nil
}

// fill sets the eigenvalues mu (ascending; those below the null threshold F·ε·μ_max become 0) and the squared
// norms c_kj of the targets in each eigendirection from G (F×P): G = Uᵀ(ZᵀY), c = g²/μ, in the primal; in the dual
// (mu the eigenvalues of the N×N kernel matrix ZZᵀ, G = VᵀY with V its eigenvectors) c = g², the same numbers
// (Z = V S Uᵀ gives UᵀZᵀy = S Vᵀy). The least-squares residual rss0 loses the c of every non-null direction.
func (sp *spectrum) fill(mu, G []float64, dual bool) {
	F, P := len(mu), sp.P
	tau := float64(F) * 0x1p-52 * max(mu[F-1], 0)
	sp.mu, sp.c = mu, make([]float64, F*P)
	for k, m := range mu {
		if !(m > tau) {
			mu[k] = 0
			continue
		}
		for j := range P {
			g := G[k*P+j]
			c := g * g
			if !dual {
				c /= m
			}
			sp.c[k*P+j] = c
			sp.rss0[j] -= c
		}
	}
	for j, v := range sp.rss0 {
		sp.rss0[j] = max(v, 0)
	}
}

// at returns df(λ) and Σ_k log(1 + μ_k/(Nλ)), and writes RSS_j(λ) into rss and Q_j(λ) = RSS_j + Nλ‖θ_j‖² into q.
func (sp *spectrum) at(lambda float64, rss, q []float64) (df, logdet float64) {
	t := sp.n * lambda
	copy(rss, sp.rss0)
	copy(q, sp.rss0)
	df = sp.offset
	for k, m := range sp.mu {
		if m == 0 {
			continue
		}
		shrink := t / (m + t) // 1 − μ/(μ + Nλ), computed without cancellation
		df += m / (m + t)
		logdet += math.Log1p(m / t)
		for j := range sp.P {
			c := sp.c[k*sp.P+j]
			rss[j] += c * shrink * shrink
			q[j] += c * shrink
		}
	}
	return df, logdet
}

// centredSumSquares returns Σ_i (y_ij − ȳ_j)² per output (Σ_i y_ij² without intercept), clamped at 0.
func centredSumSquares(s *Stats, intercept bool) ([]float64, error) {
	for j, v := range s.SumYY {
		// Targets below about 1e-154 in magnitude have squares below the smallest normal float64 (2⁻¹⁰²²): their
		// sums lose their digits or underflow to 0, and an output that varies would look constant. A sum below
		// 2⁻¹⁰²⁰ has at most normal squares near the bottom of their range; above it, subnormal squares lose at most
		// 2⁻¹⁰⁷⁴ each, a relative error of N·2⁻⁵⁴ of the sum (2⁻³⁴ for a million rows).
		if v < 0x1p-1020 && (v > 0 || s.SumY[j] != 0) {
			return nil, fmt.Errorf("output %d: the targets are too small for their squares in floating point (Σy² = %g); multiply them by a power of ten", j+1, v)
		}
	}
	yy := append([]float64(nil), s.SumYY...)
	if intercept {
		for j := range yy {
			yy[j] -= s.SumY[j] * (s.SumY[j] / float64(s.N))
		}
	}
	for j, v := range yy {
		yy[j] = max(v, 0)
	}
	return yy, nil
}

// ScoreLambdas evaluates the criteria of SelectLambda for a short grid of λ by one Cholesky factorisation per λ
// instead of a full eigendecomposition: for F in the thousands LAPACK's eigendecomposition with vectors costs ten
// or more factorisations, so for a handful of λ (a refinement around a λ chosen elsewhere) this is several times
// cheaper. The eigenvalues alone (no vectors, a fraction of the cost) give df(λ) and Σ_k log(1 + μ_k/(Nλ)) for every
// λ; θ(λ) = (A + NλI)⁻¹B from the factorisation gives
//
//	RSS_j(λ) = Σ(y_j − ȳ_j)² − θ_jᵀB_j − Nλ‖θ_j‖²,        Q_j(λ) = Σ(y_j − ȳ_j)² − θ_jᵀB_j,
//
// (A, B the centred ZᵀZ and ZᵀY when intercept), which equal SelectLambda's sums to rounding: the two differ by the
// cancellation in yy − θᵀB, of relative size about F·ε·Σ(y − ȳ)²/RSS. Eigenvalues below F·ε·μ_max count as 0 as in
// SelectLambda. The arguments are those of SelectLambda.
func ScoreLambdas(s *Stats, lambdas []float64, intercept bool) (*Selection, error) {
	if err := checkGrid("learn.ScoreLambdas", s, lambdas, nil); err != nil {
		return nil, err
	}
	F, P := s.F, s.P
	nt := float64(s.N)
	offset := 0.0
	if intercept {
		nt--
		offset = 1
	}
	if nt < 1 {
		return nil, fmt.Errorf("learn.ScoreLambdas: need at least %d row(s), have %d", 1+int(offset), s.N)
	}
	yy, err := centredSumSquares(s, intercept)
	if err != nil {
		return nil, fmt.Errorf("learn.ScoreLambdas: %w", err)
	}
	for j, v := range yy {
		if !(v > 0) {
			return nil, fmt.Errorf("learn.ScoreLambdas: output %d is constant (its centred sum of squares is %v): every λ fits it exactly, so there is nothing to choose (GCV is 0/0, the evidence unbounded); fit it with a given λ", j+1, v)
		}
	}
	A, B := s.NormalEquations(intercept)
	mu, err := eigenvalues(F, A)
	if err != nil {
		return nil, fmt.Errorf("learn.ScoreLambdas: %w", err)
	}
	tau := float64(F) * 0x1p-52 * max(mu[F-1], 0)
	N := float64(s.N)
	sel := newSelection(s, lambdas, intercept)
	M := make([]float64, F*F)
	rss, q := make([]float64, P), make([]float64, P)
	for i, lambda := range lambdas {
		t := N * lambda
		df, logdet := offset, 0.0
		for _, m := range mu {
			if m > tau {
				df += m / (m + t)
				logdet += math.Log1p(m / t)
			}
		}
		copy(M, A)
		for k := range F {
			M[k*F+k] += t
		}
		theta, _, err := cholSolve(M, B, F, P, false)
		if err != nil {
			return nil, fmt.Errorf("learn.ScoreLambdas: λ = %g: %w", lambda, err)
		}
		for j := range P {
			var tb, tt float64
			for k := range F {
				v := theta[k*P+j]
				tb += v * B[k*P+j]
				tt += v * v
			}
			q[j] = max(yy[j]-tb, 0)
			rss[j] = max(q[j]-t*tt, 0)
		}
		sel.record(i, df, logdet, rss, q, N, nt, intercept)
	}
	sel.BestGCV, sel.BestEvidence = sel.Lambdas[sel.BestGCVIndex], sel.Lambdas[sel.BestEvidenceIndex]
	return sel, nil
}

// eigenvalues returns the eigenvalues (ascending) of the symmetric F×F matrix whose upper triangle is in A,
// without eigenvectors. A is not modified.
func eigenvalues(F int, A []float64) ([]float64, error) {
	for i := range F {
		for _, v := range A[i*F+i : (i+1)*F] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("the Gram matrix holds %v", v)
			}
		}
	}
	a := append([]float64(nil), A...)
	w := make([]float64, F)
	var impl linalg.Lapack
	work := []float64{0}
	impl.Dsyev(lapack.EVNone, blas.Upper, F, a, F, w, work, -1)
	work = make([]float64, max(int(work[0]), 3*F-1, 1))
	if !impl.Dsyev(lapack.EVNone, blas.Upper, F, a, F, w, work, len(work)) {
		return nil, errors.New("the eigenvalue iteration did not converge")
	}
	return w, nil
}

// SelectLambdaScaled is SelectLambda for P ridge problems that share the features but not the penalty: output j is
// fitted with λ·scale[j] (scale[j] > 0 and finite). This is the λ path of a decomposable operator-valued kernel
// K = k₀·A after the rotation of the targets onto the eigenvectors of A = W diag(a) Wᵀ (scale[j] = 1/a_j;
// docs/conventions.md §5). Each output then has its own effective degrees of freedom df_j, and with DF[i] their mean
// over the outputs the criteria read
//
//	GCV = N·Σ_j RSS_j / (P·(N − DF)²) = NP·Σ_j RSS_j / (NP − Σ_j df_j)²,
//
// the GCV of the NP-dimensional hat matrix, and the log evidence is the sum of the outputs' evidences, each with
// its own λ·scale[j]. With every scale 1 it equals SelectLambda bit for bit.
func SelectLambdaScaled(s *Stats, lambdas, scale []float64, intercept bool) (*Selection, error) {
	if s != nil && len(scale) != s.P {
		return nil, fmt.Errorf("learn.SelectLambdaScaled: %d scales for %d outputs", len(scale), s.P)
	}
	same := true
	for _, v := range scale {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("learn.SelectLambdaScaled: scale %v: want finite scales > 0", v)
		}
		same = same && v == 1
	}
	if same {
		return SelectLambda(s, lambdas, intercept)
	}
	if err := checkGrid("learn.SelectLambdaScaled", s, lambdas, scale); err != nil {
		return nil, err
	}
	sp, err := newSpectrum(s, intercept)
	if err != nil {
		return nil, fmt.Errorf("learn.SelectLambdaScaled: %w", err)
	}
	P := s.P
	sel := newSelection(s, lambdas, intercept)
	N, Nt := float64(s.N), sp.nt
	rss, q := make([]float64, P), make([]float64, P)
	for i, lambda := range lambdas {
		sel.NoiseVar[i] = make([]float64, P)
		sel.EvidenceNoiseVar[i] = make([]float64, P)
		var total, ev, dfSum float64
		dfs := make([]float64, P)
		for j := range P {
			df, logdet := sp.at(lambda*scale[j], rss, q)
			dfs[j] = df
			dfSum += df
			total += rss[j]
			v := q[j] / Nt
			sel.EvidenceNoiseVar[i][j] = v
			ev += -0.5*logdet - 0.5*Nt*(1+math.Log(2*math.Pi*v))
			if intercept {
				ev -= 0.5 * math.Log(N)
			}
			sel.NoiseVar[i][j] = rss[j] / (N - df)
		}
		df := dfSum / float64(P)
		sel.DF[i] = df
		sel.GCV[i] = N * total / (float64(P) * (N - df) * (N - df))
		sel.LogEvidence[i] = ev
		sel.best(i)
	}
	sel.BestGCV, sel.BestEvidence = sel.Lambdas[sel.BestGCVIndex], sel.Lambdas[sel.BestEvidenceIndex]
	return sel, nil
}

// checkGrid validates the statistics and the λ grid of a selection (where prefixes the errors): every λ, times every
// scale when scale is not nil, finite and > 0.
func checkGrid(where string, s *Stats, lambdas, scale []float64) error {
	if s == nil {
		return errors.New(where + ": nil statistics")
	}
	if err := s.Validate(); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return checkLambdas(where, s.N, lambdas, scale)
}

// checkLambdas checks a λ grid for n rows (and with scale, every λ·scale): finite, > 0, and N·λ finite.
func checkLambdas(where string, n int, lambdas, scale []float64) error {
	if len(lambdas) == 0 {
		return errors.New(where + ": empty λ grid")
	}
	if scale == nil {
		scale = []float64{1}
	}
	for _, l := range lambdas {
		for _, c := range scale {
			if v := l * c; !(v > 0) || math.IsInf(v, 0) {
				if len(scale) == 1 && c == 1 {
					return fmt.Errorf("%s: λ = %v: every λ must be finite and > 0", where, l)
				}
				return fmt.Errorf("%s: λ = %v with scale %v: every λ·scale must be finite and > 0", where, l, c)
			}
			if err := blocks.CheckLambda(where+": ", n, l*c); err != nil {
				return err
			}
		}
	}
	return nil
}

// newSelection allocates the criteria of the grid lambdas for the statistics s; the per-λ rows of NoiseVar and
// EvidenceNoiseVar are filled in by the caller.
func newSelection(s *Stats, lambdas []float64, intercept bool) *Selection {
	L := len(lambdas)
	return &Selection{
		Lambdas: append([]float64(nil), lambdas...), N: s.N, P: s.P, Intercept: intercept,
		DF: make([]float64, L), GCV: make([]float64, L), NoiseVar: make([][]float64, L),
		LogEvidence: make([]float64, L), EvidenceNoiseVar: make([][]float64, L),
	}
}

// best updates the best indices with λ i, whose GCV and log evidence are set (the first one wins ties; NaN never
// wins over a number).
// record sets the criteria of the i-th λ from its degrees of freedom df, the log-determinant log det(I + A/(Nλ)),
// and per output the residual sum of squares rss_j and the quadratic form q_j = RSS_j + Nλ‖θ_j‖² (N rows, Ñ = nt of
// them free of the intercept), and updates the best indices.
func (sel *Selection) record(i int, df, logdet float64, rss, q []float64, N, nt float64, intercept bool) {
	P := len(rss)
	sel.DF[i] = df
	sel.NoiseVar[i] = make([]float64, P)
	sel.EvidenceNoiseVar[i] = make([]float64, P)
	var total, ev float64
	for j := range P {
		total += rss[j]
		sel.NoiseVar[i][j] = rss[j] / (N - df)
		v := q[j] / nt
		sel.EvidenceNoiseVar[i][j] = v
		ev += -0.5*logdet - 0.5*nt*(1+math.Log(2*math.Pi*v))
	}
	if intercept {
		ev -= 0.5 * float64(P) * math.Log(N)
	}
	sel.GCV[i] = N * total / (float64(P) * (N - df) * (N - df))
	sel.LogEvidence[i] = ev
	sel.best(i)
}

func (sel *Selection) best(i int) {
	if sel.GCV[i] < sel.GCV[sel.BestGCVIndex] || math.IsNaN(sel.GCV[sel.BestGCVIndex]) {
		sel.BestGCVIndex = i
	}
	if ev := sel.LogEvidence[i]; ev > sel.LogEvidence[sel.BestEvidenceIndex] || math.IsNaN(sel.LogEvidence[sel.BestEvidenceIndex]) {
		sel.BestEvidenceIndex = i
	}
}
