package nystrom

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/blas"

	"github.com/rffkit/rff/internal/linalg"
)

// precond holds FALKON's factors (Rudi, Carratino & Rosasco 2017, Algorithm 1): T upper triangular with
// TᵀT = K_MM + δI, and A upper triangular with AᵀA = TTᵀ/M + λI. The preconditioner is B = T⁻¹A⁻¹ (the 1/√N of the
// paper is folded into the system, which Fit divides by N).
//
// Why it works: for centres drawn uniformly from the rows, K_NMᵀK_NM/N is an unbiased estimate of the same
// average over the centres, K_MM²/M = TᵀTTᵀT/M (jitter aside), so the system matrix H/N = K_NMᵀK_NM/N + λK_MM is
// close to Tᵀ(TTᵀ/M + λI)T = TᵀAᵀAT, and BᵀHB/N = A⁻ᵀ(T⁻ᵀ(K_NMᵀK_NM/N)T⁻¹ + λI)A⁻¹ is close to the identity.
type precond struct {
	M      int
	T, A   []float64 // M×M, upper triangles
	jitter float64
}

// maxJitter is the largest jitter, relative to the largest diagonal entry of K_MM, newPrecond tries.
const maxJitter = 1e-3

// newPrecond factorizes kmm (M×M, symmetric, full; its memory becomes T) and TTᵀ/M + λI.
func newPrecond(kmm []float64, M int, lambda float64) (*precond, error) {
	diag := make([]float64, M)
	top := 0.0
	for i := range M {
		diag[i] = kmm[i*M+i]
		top = max(top, diag[i])
	}
	if !(top > 0) {
		return nil, errors.New("nystrom: Falkon: the kernel matrix of the centres has no positive diagonal entry")
	}
	T := kmm
	delta := float64(M) * 0x1p-52 * top
	var err error
	for ; delta <= maxJitter*top; delta *= 10 {
		// The strict lower triangle still holds K_MM: restore the upper one from it.
		for i := range M {
			T[i*M+i] = diag[i] + delta
			for j := i + 1; j < M; j++ {
				T[i*M+j] = T[j*M+i]
			}
		}
		if err = linalg.Cholesky(M, T, M); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("nystrom: Falkon: the kernel matrix of the centres is not positive definite even with a jitter of %.3g·max k(c, c) (repeated centres?): %w", maxJitter, err)
	}
	// A = chol(TTᵀ/M + λI). TTᵀ = (Tᵀ)ᵀTᵀ is the Gram matrix of the rows of Tᵀ: move T to the lower triangle (as Tᵀ,
	// row-major), form it with Syrk, and move T back.
	for i := range M {
		for j := i + 1; j < M; j++ {
			T[j*M+i], T[i*M+j] = T[i*M+j], 0
		}
	}
	A := make([]float64, M*M)
	linalg.Syrk(M, M, 1/float64(M), T, M, 0, A, M)
	for i := range M {
		for j := i + 1; j < M; j++ {
			T[i*M+j] = T[j*M+i]
		}
		A[i*M+i] += lambda
	}
	if err := linalg.Cholesky(M, A, M); err != nil {
		return nil, fmt.Errorf("nystrom: Falkon: TTᵀ/M + λI is not numerically positive definite (λ = %g too small?): %w", lambda, err)
	}
	return &precond{M: M, T: T, A: A, jitter: delta}, nil
}

// solveT sets V (M×p) to T⁻¹V, or T⁻ᵀV when trans.
func (pc *precond) solveT(V []float64, p int, trans bool) { pc.solve(pc.T, V, p, trans) }

// solveA sets V (M×p) to A⁻¹V, or A⁻ᵀV when trans.
func (pc *precond) solveA(V []float64, p int, trans bool) { pc.solve(pc.A, V, p, trans) }

func (pc *precond) solve(U, V []float64, p int, trans bool) {
	t := blas.NoTrans
	if trans {
		t = blas.Trans
	}
	linalg.Blas{}.Dtrsm(blas.Left, blas.Upper, t, blas.NonUnit, pc.M, p, 1, U, pc.M, V, p)
}

// applyB sets V to BV = T⁻¹A⁻¹V.
func (pc *precond) applyB(V []float64, p int) {
	pc.solveA(V, p, false)
	pc.solveT(V, p, false)
}

// applyBt sets V to BᵀV = A⁻ᵀT⁻ᵀV.
func (pc *precond) applyBt(V []float64, p int) {
	pc.solveT(V, p, true)
	pc.solveA(V, p, true)
}
