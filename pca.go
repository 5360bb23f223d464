package rff

import (
	"fmt"

	"github.com/rffkit/rff/dataset"
)

// rawGradients maps derivatives with respect to the preprocessed inputs to the raw ones through a preprocessing that
// ends with a PCA step: g holds rows rows of MapDim() = K values ∂f/∂x'_k, and the result rows of d values
//
//	∂f/∂x_j = Σ_k ∂f/∂x'_k · ∂x'_k/∂x_j,
//
// the chain rule with the preprocessing's constant Jacobian (dataset.Scaler.Jacobian: every step is affine, and a
// PCA step contributes v_kj/s_k). Derivatives along the discarded components are 0: the model does not depend on
// them.
func (m *Model) rawGradients(g []float64, rows int) []float64 {
	d, K := m.file.Dim, m.scaler.OutDim()
	J := m.scaler.Jacobian()
	out := make([]float64, rows*d)
	for i := range rows {
		o := out[i*d : (i+1)*d]
		for k, gk := range g[i*K : (i+1)*K] {
			for j, v := range J[k*d : (k+1)*d] {
				o[j] += gk * v
			}
		}
	}
	return out
}

// hasPCA reports whether the steps include a PCA step: FitCSV then accumulates the co-moments it is fitted from
// (dataset.ScalerAccumulator.TrackCovariance), and distributed fits refuse it, their scalers being fitted from
// mergeable column moments without them (dataset.ErrPCAStream).
func hasPCA(steps []dataset.Step) bool {
	for _, st := range steps {
		if st.PCA() {
			return true
		}
	}
	return false
}

// preprocess maps the sampled raw rows through sc in place; after a PCA step they have sc.OutDim() columns.
func (r *reservoir) preprocess(sc *dataset.Scaler) {
	n := r.len()
	sc.Apply(r.rows, n, r.d)
	r.d = sc.OutDim()
	r.rows = r.rows[:n*r.d]
}

// checkPCABudget refuses a PCA step whose fit would need more than the memory budget, before any of it is spent.
// On n ≥ d rows (and in a streamed fit, n = 0 here) it holds the d×d covariance, its eigenvectors and the
// eigensolver's copy (a streamed fit also the co-moments); on n < d rows the centred rows twice (Uᵀ), the n×n Gram
// matrix, its eigenvectors and the eigensolver's copy — all next to the n×d preprocessed copy of the inputs.
func (s *settings) checkPCABudget(n, d int, streamed bool) error {
	if !hasPCA(s.steps) {
		return nil
	}
	N, dd := float64(n), float64(d)
	need := bytesOf(N, dd) + bytesOf(3, dd, dd)
	what, hint, lower := fmt.Sprintf("the %d×%d covariance of the pca step and its eigenvectors", d, d), "use fewer input columns", ""
	switch {
	case streamed:
		need = bytesOf(4, dd, dd)
	case n < d:
		need = bytesOf(3, N, dd) + bytesOf(3, N, N)
		what, hint, lower = fmt.Sprintf("the %d×%d Gram matrix of the pca step and %d×%d centred rows", n, n, n, d), "use fewer rows", "rows"
	}
	if budget := s.budget(); need > budget {
		return &BudgetError{What: what, Bytes: need, Budget: budget, Hint: hint, Lower: lower}
	}
	return nil
}
