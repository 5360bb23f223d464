package learn

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/size"
)

// Hermite is gradient-enhanced ridge regression on features (Hermite learning): it fits f̃(x) = θᵀz(x) + b from
// any mix of observed values f(x_i) and observed partial derivatives ∂_j f(x_i), using the derivative features of
// Sriperumbudur & Szabó (2015) (feature.Map.Gradient; docs/conventions.md §6): the derivative of the model is ∂_j f̃(x) = θᵀ∂_j z(x),
// so every observed partial derivative is one more row ∂_j z(x_i) of a linear least-squares problem in θ,
//
//	minimise (1/N) [ Σ_{observed f(x_i)} (θᵀz(x_i) + b − f(x_i))² + w Σ_{observed ∂_j f(x_i)} (θᵀ∂_j z(x_i) − ∂_j f(x_i))² ] + λ‖θ‖²,
//
// with N the number of observations (values plus partial derivatives) and w = GradWeight. The bias b, when fitted,
// is unpenalised and enters the value rows only (the derivative of a constant is 0). The normal equations are
// accumulated block by block like Stats (the stacked rows are never held whole) and solved by Cholesky.
type Hermite struct {
	// Lambda is λ > 0.
	Lambda float64
	// Intercept fits the unpenalised bias b (it needs at least one observed value).
	Intercept bool
	// GradWeight is w ≥ 0, the weight of a squared derivative residual relative to a value residual; 0 means 1.
	GradWeight float64
}

// Fit fits the model on the n rows of X (n×d, d = m.Dim()). values (n, or nil when no value is observed) holds
// f(x_i) and grads (n×d row-major, or nil) holds ∂_j f(x_i); a NaN entry in either means "not observed". The result
// has P = 1 output; predict values with Fit.PredictMap and gradients with Fit.PredictGradients.
func (h Hermite) Fit(m *feature.Map, X []float64, n int, values, grads []float64) (*Fit, error) {
	start := time.Now()
	if !(h.Lambda > 0) || math.IsInf(h.Lambda, 0) {
		return nil, fmt.Errorf("learn.Hermite.Fit: λ = %v: need a finite λ > 0", h.Lambda)
	}
	st, N, err := h.accumulate("learn.Hermite.Fit", m, X, n, values, grads)
	if err != nil {
		return nil, err
	}
	if err := blocks.CheckLambda("learn.Hermite.Fit: ", int(N), h.Lambda); err != nil {
		return nil, err
	}
	F := m.Features()
	G := F + 1
	K := G
	if !h.Intercept {
		K = F
	}
	A := make([]float64, K*K)
	for i := range K {
		copy(A[i*K:(i+1)*K], st.ZtZ[i*G:i*G+K])
	}
	for i := range F {
		A[i*K+i] += N * h.Lambda
	}
	sol, res, err := cholSolve(A, st.ZtY[:K], K, 1, false)
	if err != nil {
		return nil, fmt.Errorf("learn.Hermite.Fit: %w", err)
	}
	fit := &Fit{F: F, P: 1, Theta: sol[:F], Bias: []float64{0}, Lambda: h.Lambda, Intercept: h.Intercept}
	if h.Intercept {
		fit.Bias[0] = sol[F]
	}
	fit.Stats = SolveStats{Method: "cholesky", Residual: res, Seconds: time.Since(start).Seconds()}
	return fit, nil
}

// SelectLambda scores every λ of lambdas (h.Lambda is ignored) by generalised cross-validation and by the Bayesian
// evidence of the stacked least-squares problem Fit solves — N observations, the value rows and the √w-weighted
// derivative rows — from one pass over the rows and one eigendecomposition. With Z the F feature columns of the
// stacked rows, e the bias indicator (1 on value rows, 0 on derivative rows; an unpenalised column when h.Intercept)
// and P = I − eeᵀ/eᵀe the projection that removes it, the eigenvalues μ_k of ZᵀPZ give the hat matrix's trace
// df(λ) = 1 + Σ_k μ_k/(μ_k + Nλ) and GCV(λ) = N·RSS(λ)/(N − df(λ))² (Golub, Heath & Wahba 1979), and the log
// marginal likelihood of the stacked targets under θ ~ N(0, σ²/(Nλ)·I), noise N(0, σ²) on every row and a flat prior
// on the bias,
//
//	log p(y | λ) = −½ Σ_k log(1 + μ_k/(Nλ)) − (Ñ/2)(1 + log(2π Q/Ñ)) − ½ log eᵀe,
//
// with σ² at its maximum Q/Ñ, Q = RSS + Nλ‖θ‖² and Ñ = N − 1 (docs/conventions.md §12.3; eᵀe is the number of value
// rows, N for ordinary ridge regression). Without an intercept P = I, the 1 in df and the last term drop and Ñ = N.
// The result is a Selection of one output (P = 1) on the N stacked rows; BestGCV and BestEvidence are the choices.
func (h Hermite) SelectLambda(m *feature.Map, X []float64, n int, values, grads []float64, lambdas []float64) (*Selection, error) {
	const where = "learn.Hermite.SelectLambda"
	st, N, err := h.accumulate(where, m, X, n, values, grads)
	if err != nil {
		return nil, err
	}
	F := m.Features()
	G := F + 1
	// The statistics of PZ and Py: Zᵀ(I − eeᵀ/eᵀe)Z = ZᵀZ − a aᵀ/eᵀe with a = Zᵀe, and likewise for Zᵀy and yᵀy.
	r := &Stats{F: F, P: 1, N: int(N), ZtZ: make([]float64, F*F), ZtY: make([]float64, F), SumZ: make([]float64, F),
		SumY: []float64{0}, SumYY: []float64{st.SumYY[0]}}
	for i := range F {
		copy(r.ZtZ[i*F:(i+1)*F], st.ZtZ[i*G:i*G+F])
		r.ZtY[i] = st.ZtY[i]
	}
	ee := st.ZtZ[F*G+F]
	if h.Intercept {
		ey := st.ZtY[F]
		for i := range F {
			ai := st.ZtZ[i*G+F]
			for j := range F {
				r.ZtZ[i*F+j] -= ai * st.ZtZ[j*G+F] / ee
			}
			r.ZtY[i] -= ai * ey / ee
		}
		r.SumYY[0] -= ey * ey / ee
	}
	if err := checkGrid(where, r, lambdas, nil); err != nil {
		return nil, err
	}
	sp, err := newSpectrum(r, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	sel := newSelection(r, lambdas, h.Intercept)
	nt := N
	if h.Intercept {
		nt--
		sp.offset = 1
	}
	if nt < 1 {
		return nil, fmt.Errorf("%s: %v observations: need at least 2 with an intercept", where, N)
	}
	rss, q := make([]float64, 1), make([]float64, 1)
	for i, lambda := range lambdas {
		df, logdet := sp.at(lambda, rss, q)
		sel.record(i, df, logdet, rss, q, N, nt, false)
		if h.Intercept {
			sel.LogEvidence[i] -= 0.5 * math.Log(ee) // the same for every λ: the best index stands
		}
	}
	sel.BestGCV, sel.BestEvidence = sel.Lambdas[sel.BestGCVIndex], sel.Lambdas[sel.BestEvidenceIndex]
	return sel, nil
}

// accumulate checks the arguments of Fit and returns the normal equations of the stacked rows (F + 1 columns, the
// last the bias indicator) and N, the number of observations.
func (h Hermite) accumulate(where string, m *feature.Map, X []float64, n int, values, grads []float64) (*Stats, float64, error) {
	if m == nil {
		return nil, 0, errors.New(where + ": nil feature map")
	}
	d, F := m.Dim(), m.Features()
	if err := blocks.CheckX(where, X, n, d); err != nil {
		return nil, 0, err
	}
	w := h.GradWeight
	if w == 0 {
		w = 1
	}
	if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
		return nil, 0, fmt.Errorf(where+": gradient weight %v: need a finite w ≥ 0", h.GradWeight)
	}
	if values != nil && len(values) != n {
		return nil, 0, fmt.Errorf(where+": %d values for %d rows", len(values), n)
	}
	if grads != nil && !size.Is(len(grads), n, d) {
		return nil, 0, fmt.Errorf(where+": %d gradient entries, want %d rows × %d", len(grads), n, d)
	}
	nv, ng := 0, 0
	for i, v := range values {
		if math.IsInf(v, 0) {
			return nil, 0, fmt.Errorf(where+": value of row %d is %v", i+1, v)
		}
		if !math.IsNaN(v) {
			nv++
		}
	}
	for i, v := range grads {
		if math.IsInf(v, 0) {
			return nil, 0, fmt.Errorf(where+": ∂_%d f of row %d is %v", i%d+1, i/d+1, v)
		}
		if !math.IsNaN(v) {
			ng++
		}
	}
	if nv+ng == 0 {
		return nil, 0, errors.New(where + ": no observed value or derivative")
	}
	if h.Intercept && nv == 0 {
		return nil, 0, errors.New(where + ": an intercept needs at least one observed value")
	}
	// Column F of the stacked rows is the bias indicator: 1 on value rows, 0 on derivative rows.
	G := F + 1
	if _, err := size.Floats(where+": derivative features of a block of rows", BlockRows, d+1, G); err != nil {
		return nil, 0, err
	}
	st, err := NewStats(G, 1)
	if err != nil {
		return nil, 0, fmt.Errorf(where+": %w", err)
	}
	rowsBuf := make([]float64, 0, BlockRows*(d+1)*G)
	yBuf := make([]float64, 0, BlockRows*(d+1))
	z := make([]float64, BlockRows*F)
	dz := make([]float64, BlockRows*d*F)
	sw := math.Sqrt(w)
	for r0 := 0; r0 < n; r0 += BlockRows {
		rows := min(BlockRows, n-r0)
		xb := X[r0*d : (r0+rows)*d]
		rowsBuf, yBuf = rowsBuf[:0], yBuf[:0]
		if values != nil {
			if err := m.TransformRows(z[:rows*F], xb, rows); err != nil {
				return nil, 0, err
			}
			for i := range rows {
				if v := values[r0+i]; !math.IsNaN(v) {
					rowsBuf = append(rowsBuf, z[i*F:(i+1)*F]...)
					rowsBuf = append(rowsBuf, 1)
					yBuf = append(yBuf, v)
				}
			}
		}
		if grads != nil {
			if err := m.Gradient(dz[:rows*d*F], xb, rows); err != nil {
				return nil, 0, fmt.Errorf(where+": %w", err)
			}
			for i := range rows {
				for j := range d {
					g := grads[(r0+i)*d+j]
					if math.IsNaN(g) {
						continue
					}
					blk := dz[(i*d+j)*F : (i*d+j+1)*F]
					for _, v := range blk {
						rowsBuf = append(rowsBuf, sw*v)
					}
					rowsBuf = append(rowsBuf, 0)
					yBuf = append(yBuf, sw*g)
				}
			}
		}
		st.Add(rowsBuf, yBuf, len(yBuf))
	}
	st.Finish()
	return st, float64(nv + ng), nil
}

// GradientMapper is a feature map with derivatives: Gradient(dst, x, rows) writes ∂z_f/∂x_j of the rows x (rows×d)
// into dst (rows×d×F: dst[(i·d + j)·F + f]). A *feature.Map of a shift-invariant kernel is one, and so is a Nyström
// map of a differentiable kernel (package nystrom).
type GradientMapper interface {
	Dim() int
	Features() int
	Gradient(dst, x []float64, rows int) error
}

// GradientProducter is a GradientMapper that also differentiates a model θᵀz(x) directly, without forming the
// d·F derivative features of a row: GradientProduct(dst, x, rows, theta, P) writes ∂_j(θ_kᵀz)(x_i) into dst
// (rows×d×P: dst[(i·d + j)·P + k]) for theta F×P. *feature.Map and the Nyström map are ones.
type GradientProducter interface {
	GradientMapper
	GradientProduct(dst, x []float64, rows int, theta []float64, P int) error
}

// PredictGradients writes the gradients of the fitted model at the n rows of X (n×d, d = m.Dim()) into dst
// (n×d×P, row-major: dst[(i·d + j)·P + k] = ∂_j f_k(x_i)), using the derivative features of m, which must be the map
// the model was fitted with (a shift-invariant kernel: arc-cosine maps have no derivatives): m's GradientProduct
// when it is a [GradientProducter], otherwise its derivative features, a block of rows at a time, times θ.
func (f *Fit) PredictGradients(dst []float64, m GradientMapper, X []float64, n int) error {
	if err := f.check("learn.Fit.PredictGradients"); err != nil {
		return err
	}
	if isNil(m) {
		return errors.New("learn.Fit.PredictGradients: nil feature map")
	}
	if m.Features() != f.F {
		return fmt.Errorf("learn.Fit.PredictGradients: map has %d features, model %d", m.Features(), f.F)
	}
	d := m.Dim()
	if err := blocks.CheckX("learn.Fit.PredictGradients", X, n, d); err != nil {
		return err
	}
	if !size.Is(len(dst), n, d, f.P) {
		return fmt.Errorf("learn.Fit.PredictGradients: dst has %d values, want %d rows × %d × %d outputs", len(dst), n, d, f.P)
	}
	if gp, ok := m.(GradientProducter); ok {
		if err := gp.GradientProduct(dst, X, n, f.Theta, f.P); err != nil {
			return fmt.Errorf("learn.Fit.PredictGradients: %w", err)
		}
		return nil
	}
	dz := make([]float64, min(n, BlockRows)*d*f.F)
	for r0 := 0; r0 < n; r0 += BlockRows {
		rows := min(BlockRows, n-r0)
		if err := m.Gradient(dz[:rows*d*f.F], X[r0*d:(r0+rows)*d], rows); err != nil {
			return fmt.Errorf("learn.Fit.PredictGradients: %w", err)
		}
		// Each row of dz is one (point, coordinate) pair: dst = dz Θ, a row's values whatever the rows beside it.
		linalg.MulRows(false, rows*d, f.P, f.F, dz, f.F, f.Theta, f.P, dst[r0*d*f.P:], f.P)
	}
	return nil
}
