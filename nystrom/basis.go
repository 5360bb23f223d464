package nystrom

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"

	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/kernel"
)

// Basis is the coordinate system of a Map's features. Both bases span the same functions when nothing is dropped
// and give the same inner products ⟨ψ(x), ψ(y)⟩ = k_M(x)ᵀK_MM⁻¹k_M(y), so every ridge prediction is the same in
// either; they differ in cost and in how a numerically singular K_MM is truncated.
type Basis int

const (
	// Cholesky is the basis of a Cholesky factorization of K_MM with complete pivoting, PᵀK_MMP = UᵀU (LAPACK's
	// dpstrf): ψ(x) = U⁻ᵀk_S(x) on the landmarks S that the pivoting keeps. The pivoting takes at each step the
	// landmark with the largest residual k(c, c) − k̃(c, c) given the landmarks already kept, and stops when that
	// residual is at most t·max_j k(c_j, c_j): the landmarks left out are each within that residual of the span of
	// those kept, and are dropped (Map.Centres counts the kept ones). The factorization costs M³/3 operations
	// instead of an eigendecomposition, and the features a triangular product, half the multiply-adds of the dense
	// one. It is the default.
	Cholesky Basis = iota
	// Eigen is the eigenbasis of K_MM = UΛUᵀ: ψ(x) = Λ^{-1/2}Uᵀk_M(x), with the eigenvalues λ_j ≤ t·λ_max and their
	// eigenvectors dropped. Its features are ordered by the variance they carry, and Map.Eigenvalues reports the
	// spectrum of K_MM.
	Eigen
)

// String is the basis's name: "cholesky" or "eigen".
func (b Basis) String() string {
	switch b {
	case Cholesky:
		return "cholesky"
	case Eigen:
		return "eigen"
	}
	return fmt.Sprintf("Basis(%d)", int(b))
}

// ParseBasis returns the basis named "cholesky" or "eigen" ("" is the default, Cholesky).
func ParseBasis(name string) (Basis, error) {
	switch name {
	case "", "cholesky":
		return Cholesky, nil
	case "eigen":
		return Eigen, nil
	}
	return 0, fmt.Errorf("nystrom: unknown basis %q (want cholesky or eigen)", name)
}

// WithBasis sets the basis of the features (default Cholesky).
func WithBasis(b Basis) Option {
	return func(o *options) error {
		if b != Cholesky && b != Eigen {
			return fmt.Errorf("nystrom: unknown basis %d", int(b))
		}
		o.basis = b
		return nil
	}
}

// buildCholesky factorizes K = K_MM (M×M, both triangles, overwritten) with complete pivoting and returns the map on
// the landmarks the pivoting keeps (rows of L): Norm = U₁₁⁻¹, upper triangular, so that ψ(x) = Normᵀk_S(x).
func buildCholesky(k kernel.Kernel, L, K []float64, M, d int, o options) (*Map, error) {
	top := 0.0
	for i := range M {
		top = max(top, K[i*M+i])
	}
	if !(top > 0) {
		return nil, fmt.Errorf("nystrom: the kernel matrix of the %d landmarks has no positive diagonal entry (largest %g)", M, top)
	}
	piv := make([]int, M)
	var impl lapackgonum.Implementation
	r, _ := impl.Dpstrf(blas.Upper, M, K, M, piv, o.threshold*top, make([]float64, 2*M))
	if r < 1 {
		return nil, fmt.Errorf("nystrom: the kernel matrix of the %d landmarks has no pivot above %g", M, o.threshold*top)
	}
	pivots := make([]float64, r)
	for j := range r {
		u := K[j*M+j]
		if !(u > 0) || math.IsInf(u, 0) {
			return nil, fmt.Errorf("nystrom: pivoted Cholesky factorization of K_MM: pivot %d is %v", j+1, u)
		}
		pivots[j] = u * u
	}
	if !impl.Dtrtri(blas.Upper, blas.NonUnit, r, K, M) {
		return nil, fmt.Errorf("nystrom: the pivoted Cholesky factor of K_MM is singular")
	}
	norm := make([]float64, r*r)
	kept := make([]float64, r*d)
	parallel.For(r, 0, func(i int) {
		copy(norm[i*r+i:(i+1)*r], K[i*M+i:i*M+r])
		copy(kept[i*d:(i+1)*d], L[piv[i]*d:(piv[i]+1)*d])
	})
	return &Map{kern: k, d: d, m: r, f: r, landmarks: kept, norm: norm, tri: true, diag: pivots, basis: Cholesky,
		threshold: o.threshold}, nil
}
