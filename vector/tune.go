package vector

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/ovk"
)

// Decoupling reduces ridge regression with a decomposable operator-valued kernel K = k₀·A to independent scalar
// ridge regressions, the form in which its λ is chosen from statistics (learn.SelectLambdaScaled,
// learn.CrossValidateScaled). With A = W diag(a) Wᵀ (W orthogonal) the model f(x) = BΘᵀz(x), BBᵀ = A, and the
// penalty λ‖Θ‖² = λ Σ_k ‖w_kᵀf‖²_{k₀}/a_k (the RKHS norm of K) decouple along the eigenvectors: the component
// w_kᵀf is scalar ridge regression on the same features z(x) against the rotated targets w_kᵀy with penalty λ/a_k,
// and ‖f(x) − y‖² = Σ_k (w_kᵀf(x) − w_kᵀy)² because W is orthogonal. Errors, GCV and the evidence of the rotated
// problems are therefore those of the decomposable model (docs/conventions.md §5).
type Decoupling struct {
	// P is the number of outputs; W (P×P, row-major) holds the eigenvectors of A in its columns, nil when A is
	// diagonal (W = I: the targets are used as they are, bit for bit).
	P int
	W []float64
	// Scale[k] = 1/a_k multiplies λ for the rotated output k.
	Scale []float64
}

// Decouple eigendecomposes the output matrix A of a decomposable kernel. It refuses an A that is not symmetric
// positive definite (an eigenvalue at or below 1e-12 times the largest): a direction with a_k = 0 is not learned
// at all, and no λ can be chosen for it. It returns an error for an A whose size overflows int or exceeds the limit
// of one array (1 TiB).
func Decouple(A *mat.SymDense) (*Decoupling, error) {
	if A == nil {
		return nil, errors.New("vector.Decouple: nil output matrix")
	}
	p := A.SymmetricDim()
	if p < 1 {
		return nil, errors.New("vector.Decouple: empty output matrix")
	}
	if _, err := size.Floats("vector.Decouple: A", p, p); err != nil {
		return nil, err
	}
	a := make([]float64, p*p)
	for i := range p {
		for j := range p {
			v := A.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("vector.Decouple: A[%d,%d] = %v", i+1, j+1, v)
			}
			a[i*p+j] = v
		}
	}
	dc := &Decoupling{P: p, Scale: make([]float64, p)}
	vals, W, err := symEigenOrDiag(a, p)
	if err != nil {
		return nil, fmt.Errorf("vector.Decouple: %w", err)
	}
	dc.W = W
	top := 0.0
	for _, v := range vals {
		top = max(top, v)
	}
	for k, v := range vals {
		if !(v > 1e-12*top) {
			return nil, fmt.Errorf("vector.Decouple: the output matrix A has eigenvalue %.3g (largest %.3g): λ can be chosen only for a positive definite A", v, top)
		}
		dc.Scale[k] = 1 / v
	}
	return dc, nil
}

// Rotate returns the targets Y (n×P) in the eigenbasis of A, Y·W (a copy of Y when W = I). It returns an error for
// a nil or zero Decoupling.
func (dc *Decoupling) Rotate(Y []float64, n int) ([]float64, error) {
	if dc == nil || dc.P < 1 || (dc.W != nil && !size.Is(len(dc.W), dc.P, dc.P)) {
		return nil, errors.New("vector.Decoupling.Rotate: nil, zero or inconsistent Decoupling (use Decouple)")
	}
	p := dc.P
	if !size.Is(len(Y), n, p) {
		return nil, fmt.Errorf("vector.Decoupling.Rotate: %d values for %d rows of %d outputs", len(Y), n, p)
	}
	if dc.W == nil {
		return append([]float64(nil), Y...), nil
	}
	out := make([]float64, n*p)
	gemm(false, false, n, p, p, 1, Y, dc.W, 0, out)
	return out, nil
}

// SelectLambdaField evaluates the closed-form criteria of learn.SelectLambda for Ridge{Lambda: λ, Intercept:
// intercept} with any ORFF map m — curl-free, divergence-free and Helmholtz kernels included, whose B(ω) couples the
// outputs differently at every frequency — from the scalar statistics s of [Accumulate] for the same map. The
// model's fitted values stack into one vector of N·p entries, ŷ = H y, with the hat matrix H = Φ_c(G + NλI)⁻¹Φ_cᵀ
// (+ the projection on the p intercept directions), G the assembled (centred) normal matrix of [Ridge]; hence
// (docs/conventions.md §12.2, §12.3, §12.5), with μ_k the eigenvalues of G,
//
//	df(λ) = [p] + Σ_k μ_k/(μ_k + Nλ),     GCV(λ) = Np·RSS(λ)/(Np − df(λ))²,
//
// RSS the residual sum of squares over all N·p entries, and the profiled log evidence of Bayesian regression with one
// noise variance shared by the outputs, Ñ = Np − p entries after the p flat-prior biases are integrated out
// (Ñ = Np without intercept):
//
//	log p(y | λ) = −½ Σ_k log(1 + μ_k/(Nλ)) − (Ñ/2)(1 + log(2π Q(λ)/Ñ)) [− (p/2) log N].
//
// The result has P = 1 (the stacked problem) and N = s.N rows; NoiseVar and EvidenceNoiseVar are the shared noise
// variances RSS/(Np − df) and Q/Ñ. For a decomposable kernel this equals learn.SelectLambdaScaled on the decoupled
// outputs only when A ∝ I (one shared noise variance here, one per output there). Cost: the eigendecomposition of
// the F×F matrix G, F = m.Features().
func SelectLambdaField(m *ovk.Map, s *learn.Stats, lambdas []float64, intercept bool) (*learn.Selection, error) {
	const where = "vector.SelectLambdaField"
	if err := checkMap(where, m); err != nil {
		return nil, err
	}
	if s == nil {
		return nil, errors.New(where + ": nil statistics")
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if s.F != m.ScalarFeatures() || s.P != m.Outputs() {
		return nil, fmt.Errorf("%s: statistics have %d features and %d outputs; the map has %d scalar features and %d outputs",
			where, s.F, s.P, m.ScalarFeatures(), m.Outputs())
	}
	p, N := s.P, float64(s.N)
	G, h := normalEquations(mapFactors(m), s, intercept)
	var yy float64
	for a := range p {
		v := s.SumYY[a]
		if intercept {
			v -= s.SumY[a] * (s.SumY[a] / N)
		}
		yy += max(v, 0)
	}
	// The stacked problem as statistics of one output without intercept (G and h are centred already): learn's λ
	// path then has the shift Nλ, df without the intercept, RSS and Q of the N·p entries.
	F := m.Features()
	st := &learn.Stats{F: F, P: 1, ZtZ: G, ZtY: h, SumZ: make([]float64, F), SumY: []float64{0}, SumYY: []float64{yy}, N: s.N}
	base, err := learn.SelectLambda(st, lambdas, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	entries, offset := N*float64(p), 0.0
	nt := entries
	if intercept {
		offset = float64(p)
		nt -= offset
	}
	sel := &learn.Selection{Lambdas: base.Lambdas, N: s.N, P: 1, Intercept: intercept,
		DF: make([]float64, len(lambdas)), GCV: make([]float64, len(lambdas)), NoiseVar: make([][]float64, len(lambdas)),
		LogEvidence: make([]float64, len(lambdas)), EvidenceNoiseVar: make([][]float64, len(lambdas))}
	for i := range lambdas {
		// Recover RSS, Q and Σ log(1 + μ_k/(Nλ)) from the single-output criteria on N "rows".
		df0 := base.DF[i]
		rss := base.NoiseVar[i][0] * (N - df0)
		q := base.EvidenceNoiseVar[i][0] * N
		logdet := -2 * (base.LogEvidence[i] + 0.5*N*(1+math.Log(2*math.Pi*q/N)))
		df := df0 + offset
		sel.DF[i] = df
		sel.GCV[i] = entries * rss / ((entries - df) * (entries - df))
		sel.NoiseVar[i] = []float64{rss / (entries - df)}
		sel.EvidenceNoiseVar[i] = []float64{q / nt}
		ev := -0.5*logdet - 0.5*nt*(1+math.Log(2*math.Pi*q/nt))
		if intercept {
			ev -= 0.5 * float64(p) * math.Log(N)
		}
		sel.LogEvidence[i] = ev
		if sel.GCV[i] < sel.GCV[sel.BestGCVIndex] {
			sel.BestGCVIndex = i
		}
		if ev > sel.LogEvidence[sel.BestEvidenceIndex] {
			sel.BestEvidenceIndex = i
		}
	}
	sel.BestGCV, sel.BestEvidence = sel.Lambdas[sel.BestGCVIndex], sel.Lambdas[sel.BestEvidenceIndex]
	return sel, nil
}
