package learn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/internal/solve"
)

// posteriorStream is the PCG stream of Posterior.Sample (the seed is the caller's).
const posteriorStream = 0x706f73746572 // "poster"

// Posterior is the Gaussian posterior of Bayesian linear regression on features, whose mean is the ridge fit
// (docs/conventions.md §12.4). For each output, with noise variance σ² and the ridge λ,
//
//	y = Zθ + b1 + ε,   ε ~ N(0, σ²I),   θ ~ N(0, σ²/(Nλ)·I),   b with a flat prior (when Intercept),
//
// that is prior precision α = Nλβ for noise precision β = 1/σ². The posterior of θ is N(θ̂, σ²(A + NλI)⁻¹), θ̂ the
// ridge solution and A the (centred) ZᵀZ of the normal equations; given θ, the bias is N(ȳ − z̄ᵀθ, σ²/N). So
// f(x) = zᵀθ + b has posterior mean the ridge prediction θ̂ᵀz + b̂ and
//
//	Cov(f(x), f(x′)) = σ² [ (z − z̄)ᵀ(A + NλI)⁻¹(z′ − z̄) + 1/N ]     (without intercept: σ² zᵀ(ZᵀZ + NλI)⁻¹z′),
//
// the 1/N term being the intercept's own uncertainty. Equivalently the joint posterior covariance of (θ, b) is
// σ² times the inverse of the regularised Gram matrix of the augmented features (z, 1), [[ZᵀZ + NλI, Zᵀ1],
// [1ᵀZ, N]]. The outputs are independent, each with its own σ²; they share A and λ.
//
// A Posterior holds the Cholesky factor U of A + NλI = UᵀU (F×F) and is safe for concurrent use by its methods.
type Posterior struct {
	// Fit is the ridge fit (the posterior mean): the same θ̂ and b̂ as Ridge{Lambda: λ, Intercept: …}.Solve.
	Fit *Fit
	// N is the number of rows of the statistics.
	N int
	// DF is the effective number of parameters tr H = F − Nλ·tr((A + NλI)⁻¹), plus 1 for the intercept.
	DF float64
	// NoiseVar[j] is σ² of output j: NewPosterior sets RSS_j/(N − DF), the residual estimate. Every method reads
	// it, so it may be replaced, for example by EvidenceNoiseVar (the empirical-Bayes value).
	NoiseVar []float64
	// EvidenceNoiseVar[j] is the σ² that maximises the evidence of output j at this λ, (RSS_j + Nλ‖θ̂_j‖²)/Ñ with
	// Ñ = N − 1 with an intercept and N without: Selection.EvidenceNoiseVar at the same λ, the empirical-Bayes value (set by NewPosterior,
	// read by no method: assign it to NoiseVar to use it).
	EvidenceNoiseVar []float64
	// ZMean is the feature mean z̄ = Σz/N (F values) when Fit.Intercept is set, nil otherwise.
	ZMean []float64
	// Factor is U (F×F, row-major, upper triangular with zeros below the diagonal), A + NλI = UᵀU.
	Factor []float64
}

// NewPosterior builds the posterior of the ridge model with λ = lambda (> 0: the prior must be proper) on the
// statistics s, with a flat-prior bias when intercept is set: it factorises A + NλI by Cholesky (dpotrf on the
// backend of internal/linalg), solves for θ̂, and estimates each output's noise variance from the residuals as
// RSS_j/(N − DF), RSS_j = Σ(y − ȳ)² − θ̂_jᵀB_j − Nλ‖θ̂_j‖² with B = ZᵀY − N z̄ȳᵀ the right-hand side of the
// centred normal equations (docs/conventions.md §12.4). The trace of (A + NλI)⁻¹ for DF comes from the rows of
// U⁻¹, a block at a time (F³/3 more flops). Memory: the F×F factor, besides s.
//
// It returns an error for invalid statistics, N < 1 (N < 2 with an intercept), λ not finite and > 0, a system
// that is not numerically positive definite, and N − DF ≤ 0 (no residual degrees of freedom).
func NewPosterior(s *Stats, lambda float64, intercept bool) (*Posterior, error) {
	if s == nil {
		return nil, errors.New("learn.NewPosterior: nil statistics")
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("learn.NewPosterior: %w", err)
	}
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return nil, fmt.Errorf("learn.NewPosterior: λ = %v: need a finite λ > 0", lambda)
	}
	minRows := 1
	if intercept {
		minRows = 2
	}
	if s.N < minRows {
		return nil, fmt.Errorf("learn.NewPosterior: need at least %d rows, have %d", minRows, s.N)
	}
	F, P := s.F, s.P
	N := float64(s.N)
	if err := blocks.CheckLambda("learn.NewPosterior: ", s.N, lambda); err != nil {
		return nil, err
	}
	t := N * lambda
	M, B := s.NormalEquations(intercept)
	diag := make([]float64, F)
	for i := range F {
		M[i*F+i] += t
		diag[i] = M[i*F+i]
	}
	if err := linalg.Cholesky(F, M, F); err != nil {
		return nil, errors.New("learn.NewPosterior: the system ZᵀZ + NλI is not positive definite: increase λ")
	}
	theta := append([]float64(nil), B...)
	if err := linalg.SolveCholesky(F, P, M, F, theta, P); err != nil {
		return nil, fmt.Errorf("learn.NewPosterior: %w", err)
	}
	// Residual of the solve from the untouched lower triangle, then U alone.
	udiag := make([]float64, F)
	for i := range F {
		udiag[i], M[i*F+i] = M[i*F+i], diag[i]
	}
	R := append([]float64(nil), B...)
	blas64.Symm(blas.Left, 1, blas64.Symmetric{Uplo: blas.Lower, N: F, Stride: F, Data: M},
		blas64.General{Rows: F, Cols: P, Stride: P, Data: theta}, -1, blas64.General{Rows: F, Cols: P, Stride: P, Data: R})
	for i := range F {
		M[i*F+i] = udiag[i]
		clear(M[i*F : i*F+i])
	}
	fit := &Fit{F: F, P: P, Theta: theta, Bias: make([]float64, P), Lambda: lambda, Intercept: intercept,
		Stats: SolveStats{Method: "cholesky", Residual: solve.RelResidual(R, B, F, P)}}
	p := &Posterior{Fit: fit, N: s.N, Factor: M, NoiseVar: make([]float64, P), EvidenceNoiseVar: make([]float64, P)}
	if intercept {
		setBias(fit, s.SumZ, s.SumY, N)
		p.ZMean = make([]float64, F)
		for i, v := range s.SumZ {
			p.ZMean[i] = v / N
		}
	}

	// DF = [1] + F − Nλ·tr(M⁻¹), tr(M⁻¹) = ‖U⁻¹‖²_F from blocks of rows of U⁻¹. U⁻¹ is upper triangular, so rows
	// r0 … of U⁻¹ vanish left of column r0 and solve X·U[r0:, r0:] = (rows of I)[:, r0:]: F³/3 flops in all.
	var tr float64
	bs := min(F, BlockRows)
	E := make([]float64, bs*F)
	for r0 := 0; r0 < F; r0 += bs {
		rows, w := min(bs, F-r0), F-r0
		clear(E)
		for r := range rows {
			E[r*F+r] = 1
		}
		linalg.Blas{}.Dtrsm(blas.Right, blas.Upper, blas.NoTrans, blas.NonUnit, rows, w, 1, M[r0*F+r0:], F, E, F)
		for r := range rows {
			for _, v := range E[r*F : r*F+w] {
				tr += v * v
			}
		}
	}
	p.DF = min(max(float64(F)-t*tr, 0), float64(F))
	if intercept {
		p.DF++
	}
	if math.IsNaN(p.DF) { // t·tr((A + tI)⁻¹) of a t near the largest float: the trace underflowed
		return nil, fmt.Errorf("learn.NewPosterior: λ = %g: N·λ = %g is too large for the posterior's arithmetic; lower λ", lambda, t)
	}
	if !(N-p.DF > 0) {
		return nil, fmt.Errorf("learn.NewPosterior: no residual degrees of freedom (N = %d, DF = %.6g): increase λ", s.N, p.DF)
	}
	yy, err := centredSumSquares(s, intercept)
	if err != nil {
		return nil, fmt.Errorf("learn.NewPosterior: %w", err)
	}
	nt := N // Ñ of the evidence
	if intercept {
		nt--
	}
	for j := range P {
		var tb, tt float64
		for i := range F {
			v := theta[i*P+j]
			tb += v * B[i*P+j]
			tt += v * v
		}
		p.NoiseVar[j] = max(yy[j]-tb-t*tt, 0) / (N - p.DF)
		p.EvidenceNoiseVar[j] = max(yy[j]-tb, 0) / nt
	}
	return p, nil
}

// check returns an error, prefixed with where, unless p is a consistent posterior.
func (p *Posterior) check(where string) error {
	if p == nil {
		return fmt.Errorf("%s: nil posterior", where)
	}
	if err := p.Fit.check(where); err != nil {
		return err
	}
	F, P := p.Fit.F, p.Fit.P
	if !size.Is(len(p.Factor), F, F) || len(p.NoiseVar) != P {
		return fmt.Errorf("%s: Factor has %d values and NoiseVar %d, want F×F = %d×%d and P = %d", where,
			len(p.Factor), len(p.NoiseVar), F, F, P)
	}
	if p.Fit.Intercept && len(p.ZMean) != F || !p.Fit.Intercept && p.ZMean != nil {
		return fmt.Errorf("%s: ZMean has %d values, want %d with an intercept and none without", where, len(p.ZMean), F)
	}
	if p.N < 1 {
		return fmt.Errorf("%s: N = %d rows", where, p.N)
	}
	for j, v := range p.NoiseVar {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: NoiseVar[%d] = %v: need a finite value ≥ 0", where, j, v)
		}
	}
	return nil
}

// whiten overwrites the rows×F block z with (z − z̄)U⁻¹, whose squared row norms are (z − z̄)ᵀ(A + NλI)⁻¹(z − z̄),
// with the same bits for a row whatever the block (OpenBLAS's triangular solve of one row and of many may differ in
// the last bits): the columns by blocks of whitenBlock, each first less the solved columns' share
// (linalg.MulRows), then solved in order, each solved column's share taken from the rest of the block at once
// (linalg.AxpyFMA).
func (p *Posterior) whiten(z []float64, rows int) {
	F := p.Fit.F
	if p.ZMean != nil {
		for r := range rows {
			row := z[r*F : (r+1)*F]
			for i, m := range p.ZMean {
				row[i] -= m
			}
		}
	}
	U := p.Factor
	var share []float64
	for j0 := 0; j0 < F; j0 += whitenBlock {
		j1 := min(F, j0+whitenBlock)
		w := j1 - j0
		if j0 > 0 {
			if share == nil {
				share = make([]float64, rows*whitenBlock)
			}
			linalg.MulRows(false, rows, w, j0, z, F, U[j0:], F, share, w) // z[:, <j0]·U[<j0, j0:j1]
			for r := range rows {
				row, sh := z[r*F+j0:r*F+j1], share[r*w:(r+1)*w]
				for c := range row {
					row[c] -= sh[c]
				}
			}
		}
		for r := range rows {
			row := z[r*F : (r+1)*F]
			for j := j0; j < j1; j++ {
				row[j] /= U[j*F+j]
				linalg.AxpyFMA(-row[j], U[j*F+j+1:j*F+j1], row[j+1:j1])
			}
		}
	}
}

// whitenBlock is the width of the column blocks in which whiten solves.
const whitenBlock = 128

// bias is the intercept's share of the posterior variance divided by σ²: 1/N with an intercept, 0 without.
func (p *Posterior) bias() float64 {
	if p.Fit.Intercept {
		return 1 / float64(p.N)
	}
	return 0
}

// std writes the predictive standard deviations of the rows×F features z (overwritten) into dst (rows×P).
func (p *Posterior) std(dst, z []float64, rows int, noise bool) {
	F, P := p.Fit.F, p.Fit.P
	p.whiten(z, rows)
	add := p.bias()
	if noise {
		add++
	}
	for r := range rows {
		var s float64
		for _, w := range z[r*F : (r+1)*F] {
			s += w * w
		}
		for j, v := range p.NoiseVar {
			dst[r*P+j] = math.Sqrt(v * (s + add))
		}
	}
}

// Std writes into dst (rows×P) the posterior standard deviation of f(x) = θᵀz + b at the rows of Z (rows×F, the
// features of the inputs): the epistemic uncertainty σ_j·sqrt((z − z̄)ᵀ(A + NλI)⁻¹(z − z̄) + 1/N), or with noise
// the predictive standard deviation of a new observation y, σ_j·sqrt(… + 1/N + 1) (without intercept, z̄ = 0 and
// no 1/N; docs/conventions.md §12.4). Rows are processed in parallel blocks of BlockRows.
func (p *Posterior) Std(dst, Z []float64, rows int, noise bool) error {
	const where = "learn.Posterior.Std"
	if err := p.check(where); err != nil {
		return err
	}
	if err := p.checkRows(where, Z, rows); err != nil {
		return err
	}
	if !size.Is(len(dst), rows, p.Fit.P) {
		return fmt.Errorf("%s: dst has %d values, want %d rows × %d outputs", where, len(dst), rows, p.Fit.P)
	}
	F, P := p.Fit.F, p.Fit.P
	parallel.For(blocks.Count(rows), 0, func(b int) {
		r0 := b * BlockRows
		n := min(BlockRows, rows-r0)
		z := append([]float64(nil), Z[r0*F:(r0+n)*F]...)
		p.std(dst[r0*P:(r0+n)*P], z, n, noise)
	})
	return nil
}

// StdMap is Std on the features of the n rows of X (n×d, d = m.Dim()), mapped block by block; m must be the map
// of the statistics.
func (p *Posterior) StdMap(dst []float64, m Mapper, X []float64, n int, noise bool) error {
	const where = "learn.Posterior.StdMap"
	if err := p.checkMap(where, m, X, n); err != nil {
		return err
	}
	if !size.Is(len(dst), n, p.Fit.P) {
		return fmt.Errorf("%s: dst has %d values, want %d rows × %d outputs", where, len(dst), n, p.Fit.P)
	}
	P := p.Fit.P
	mapBlocks(m, X, n, blocks.Count(n), func(_ int, z []float64, r0, rows int) {
		p.std(dst[r0*P:(r0+rows)*P], z, rows, noise)
	})
	return nil
}

// Covariance writes into dst (rows×rows, row-major) the posterior covariance of f_j(x) at the rows of Z (rows×F,
// features) for output j: σ_j²[(z_a − z̄)ᵀ(A + NλI)⁻¹(z_b − z̄) + 1/N] (docs/conventions.md §12.4), exactly
// symmetric. It takes rows×F values of scratch.
func (p *Posterior) Covariance(dst, Z []float64, rows, output int) error {
	const where = "learn.Posterior.Covariance"
	if err := p.check(where); err != nil {
		return err
	}
	if err := p.checkRows(where, Z, rows); err != nil {
		return err
	}
	if output < 0 || output >= p.Fit.P {
		return fmt.Errorf("%s: output %d out of range [0, %d)", where, output, p.Fit.P)
	}
	if !size.Is(len(dst), rows, rows) {
		return fmt.Errorf("%s: dst has %d values, want %d×%d", where, len(dst), rows, rows)
	}
	if rows == 0 {
		return nil
	}
	F := p.Fit.F
	w := append([]float64(nil), Z[:rows*F]...)
	p.whiten(w, rows)
	v := p.NoiseVar[output]
	blas64.Syrk(blas.NoTrans, v, blas64.General{Rows: rows, Cols: F, Stride: F, Data: w}, 0,
		blas64.Symmetric{Uplo: blas.Upper, N: rows, Stride: rows, Data: dst})
	add := v * p.bias()
	for a := range rows {
		dst[a*rows+a] += add
		for b := a + 1; b < rows; b++ {
			dst[a*rows+b] += add
			dst[b*rows+a] = dst[a*rows+b]
		}
	}
	return nil
}

// ParamCovariance returns the posterior covariance of the parameters of output j: σ_j²(A + NλI)⁻¹ (F×F) without
// intercept; with an intercept the (F+1)×(F+1) covariance of (θ, b), the bias last: Cov(θ) = σ²(A + NλI)⁻¹,
// Cov(θ, b) = −Cov(θ)z̄, Var(b) = z̄ᵀCov(θ)z̄ + σ²/N — σ² times the inverse of the regularised Gram matrix of the
// augmented features (z, 1) (docs/conventions.md §12.4). It allocates two F×F matrices.
func (p *Posterior) ParamCovariance(output int) ([]float64, error) {
	const where = "learn.Posterior.ParamCovariance"
	if err := p.check(where); err != nil {
		return nil, err
	}
	if output < 0 || output >= p.Fit.P {
		return nil, fmt.Errorf("%s: output %d out of range [0, %d)", where, output, p.Fit.P)
	}
	F := p.Fit.F
	v := p.NoiseVar[output]
	inv := make([]float64, F*F) // U⁻¹ from X·U = I
	for i := range F {
		inv[i*F+i] = 1
	}
	linalg.Blas{}.Dtrsm(blas.Right, blas.Upper, blas.NoTrans, blas.NonUnit, F, F, 1, p.Factor, F, inv, F)
	G := F
	if p.Fit.Intercept {
		G = F + 1
	}
	C := make([]float64, G*G)
	// σ² U⁻¹U⁻ᵀ into the leading F×F block (upper triangle), then mirrored.
	blas64.Syrk(blas.NoTrans, v, blas64.General{Rows: F, Cols: F, Stride: F, Data: inv}, 0,
		blas64.Symmetric{Uplo: blas.Upper, N: F, Stride: G, Data: C})
	for a := range F {
		for b := a + 1; b < F; b++ {
			C[b*G+a] = C[a*G+b]
		}
	}
	if p.Fit.Intercept {
		var vb float64
		for a := range F {
			var s float64
			for b, m := range p.ZMean {
				s += C[a*G+b] * m
			}
			C[a*G+F], C[F*G+a] = -s, -s
			vb += s * p.ZMean[a]
		}
		C[F*G+F] = vb + v/float64(p.N)
	}
	return C, nil
}

// Sample draws K joint samples of the posterior function f(x) = θᵀz + b at the rows of Z (rows×F, features) into
// dst (K×rows×P, sample-major: dst[(k·rows + r)·P + j] is sample k of output j at row r; each sample is a rows×P
// block laid out like Fit.Predict's output). The samples are pathwise: each draws one θ ~ N(θ̂, σ²(A + NλI)⁻¹),
// as θ̂ + σU⁻¹ξ with ξ ~ N(0, I), and with an intercept its bias b = ȳ − z̄ᵀθ + σe/√N, e ~ N(0, 1), and evaluates
// that one function at every row, so the rows of a sample have the joint posterior covariance of Covariance
// (docs/conventions.md §12.4). The draws come from a PCG stream of seed in a fixed order (sample, output,
// coordinate), so a seed gives the same samples on every run. Memory: F·K·P values for the drawn weights.
func (p *Posterior) Sample(dst, Z []float64, rows, K int, seed uint64) error {
	const where = "learn.Posterior.Sample"
	if err := p.check(where); err != nil {
		return err
	}
	if err := p.checkRows(where, Z, rows); err != nil {
		return err
	}
	if K < 1 {
		return fmt.Errorf("%s: need K ≥ 1 samples, have %d", where, K)
	}
	if !size.Is(len(dst), K, rows, p.Fit.P) {
		return fmt.Errorf("%s: dst has %d values, want %d samples × %d rows × %d outputs", where, len(dst), K, rows, p.Fit.P)
	}
	T, bias, err := p.draw(where, K, seed)
	if err != nil {
		return err
	}
	F := p.Fit.F
	parallel.For(blocks.Count(rows), 0, func(b int) {
		r0 := b * BlockRows
		n := min(BlockRows, rows-r0)
		p.evalSamples(dst, Z[r0*F:(r0+n)*F], r0, n, rows, K, T, bias)
	})
	return nil
}

// SampleMap is Sample on the features of the n rows of X (n×d, d = m.Dim()), mapped block by block; m must be the
// map of the statistics. dst is K×n×P.
func (p *Posterior) SampleMap(dst []float64, m Mapper, X []float64, n, K int, seed uint64) error {
	const where = "learn.Posterior.SampleMap"
	if err := p.checkMap(where, m, X, n); err != nil {
		return err
	}
	if K < 1 {
		return fmt.Errorf("%s: need K ≥ 1 samples, have %d", where, K)
	}
	if !size.Is(len(dst), K, n, p.Fit.P) {
		return fmt.Errorf("%s: dst has %d values, want %d samples × %d rows × %d outputs", where, len(dst), K, n, p.Fit.P)
	}
	T, bias, err := p.draw(where, K, seed)
	if err != nil {
		return err
	}
	mapBlocks(m, X, n, blocks.Count(n), func(_ int, z []float64, r0, rows int) {
		p.evalSamples(dst, z, r0, rows, n, K, T, bias)
	})
	return nil
}

// draw returns K ≥ 1 posterior draws of the weights, T (F×K·P, column k·P + j the θ of sample k, output j), and of
// the biases (K·P).
func (p *Posterior) draw(where string, K int, seed uint64) (T, bias []float64, err error) {
	F, P := p.Fit.F, p.Fit.P
	if _, err := size.Floats(where+": the drawn weights", F, K, P); err != nil {
		return nil, nil, err
	}
	KP := K * P
	T = make([]float64, F*KP)
	bias = make([]float64, KP)
	e := make([]float64, KP)
	rng := rand.New(rand.NewPCG(seed, posteriorStream))
	for c := range KP {
		for i := range F {
			T[i*KP+c] = rng.NormFloat64()
		}
		if p.Fit.Intercept {
			e[c] = rng.NormFloat64()
		}
	}
	// U X = Ξ: X = U⁻¹Ξ has covariance U⁻¹U⁻ᵀ = (A + NλI)⁻¹ per column. The solve, and the product that evaluates
	// the samples, run on the active backend: the samples are the same bits for any GOMAXPROCS, and across machines
	// with the pure-Go backend or the same OpenBLAS thread count (RFF_THREADS), as every fit is.
	blas64.Trsm(blas.Left, blas.NoTrans, 1, blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: F, Stride: F, Data: p.Factor},
		blas64.General{Rows: F, Cols: KP, Stride: KP, Data: T})
	sqrtN := math.Sqrt(float64(p.N))
	for c := range KP {
		j := c % P
		sd := math.Sqrt(p.NoiseVar[j])
		b := p.Fit.Bias[j]
		for i := range F {
			d := sd * T[i*KP+c] // θ − θ̂
			T[i*KP+c] = p.Fit.Theta[i*P+j] + d
			if p.ZMean != nil {
				b -= p.ZMean[i] * d
			}
		}
		if p.Fit.Intercept {
			b += sd * e[c] / sqrtN
		}
		bias[c] = b
	}
	return T, bias, nil
}

// evalSamples writes the K sampled functions at the rows×F features z (rows r0 … r0+rows−1 of n) into dst
// (K×n×P).
func (p *Posterior) evalSamples(dst, z []float64, r0, rows, n, K int, T, bias []float64) {
	F, P := p.Fit.F, p.Fit.P
	KP := K * P
	out := make([]float64, rows*KP)
	linalg.MulRows(false, rows, KP, F, z, F, T, KP, out, KP) // a row's values whatever the rows beside it
	for r := range rows {
		for k := range K {
			d := dst[(k*n+r0+r)*P : (k*n+r0+r+1)*P]
			for j := range P {
				d[j] = out[r*KP+k*P+j] + bias[k*P+j]
			}
		}
	}
}

// checkRows checks that Z holds rows×F features.
func (p *Posterior) checkRows(where string, Z []float64, rows int) error {
	if rows < 0 {
		return fmt.Errorf("%s: %d rows", where, rows)
	}
	if zn, ok := size.Mul(rows, p.Fit.F); !ok || len(Z) < zn {
		return fmt.Errorf("%s: Z has %d values, want %d rows × %d features", where, len(Z), rows, p.Fit.F)
	}
	return nil
}

// checkMap checks p, the map and the inputs of the *Map methods.
func (p *Posterior) checkMap(where string, m Mapper, X []float64, n int) error {
	if err := p.check(where); err != nil {
		return err
	}
	if isNil(m) {
		return fmt.Errorf("%s: nil feature map", where)
	}
	if err := checkMapper(where, m); err != nil {
		return err
	}
	if m.Features() != p.Fit.F {
		return fmt.Errorf("%s: map has %d features, model %d", where, m.Features(), p.Fit.F)
	}
	return blocks.CheckX(where, X, n, m.Dim())
}
