package vector

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
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
// at all, and no λ can be chosen for it.
func Decouple(A *mat.SymDense) (*Decoupling, error) {
	if A == nil {
		return nil, errors.New("vector.Decouple: nil output matrix")
	}
	p := A.SymmetricDim()
	if p < 1 {
		return nil, errors.New("vector.Decouple: empty output matrix")
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

// Rotate returns the targets Y (n×P) in the eigenbasis of A, Y·W (a copy of Y when W = I).
func (dc *Decoupling) Rotate(Y []float64, n int) ([]float64, error) {
	p := dc.P
	if len(Y) != n*p {
		return nil, fmt.Errorf("vector.Decoupling.Rotate: %d values for %d rows of %d outputs", len(Y), n, p)
	}
	if dc.W == nil {
		return append([]float64(nil), Y...), nil
	}
	out := make([]float64, n*p)
	gemm(false, false, n, p, p, 1, Y, dc.W, 0, out)
	return out, nil
}
