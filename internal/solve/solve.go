// Package solve holds the numerical pieces that the learners of packages learn and vector share: Jacobi-preconditioned
// conjugate gradients on several right-hand sides at once ([PCG]), the relative residual every solver reports
// ([RelResidual]), and the byte counts of memory guards ([Bytes]).
package solve

import (
	"errors"
	"fmt"
	"math"
)

// ErrNotConverged is returned (wrapped, together with the last iterate) when conjugate gradients stop at their
// iteration limit before reaching the tolerance. Package learn exports it as learn.ErrNotConverged.
var ErrNotConverged = errors.New("conjugate gradients did not converge")

// Result is the outcome of a preconditioned CG run.
type Result struct {
	X          []float64 // F×P
	Iterations int
	Residual   float64 // max_j ‖B_j − (A X)_j‖/‖B_j‖, recomputed with one extra product
}

// PCG solves A X = B for the P columns of B (F×P, row-major) at once with the Jacobi-preconditioned conjugate
// gradient method: every iteration applies A once to all still-active columns (apply(dst, V) sets dst = A V), and a
// column stops when its recursive residual falls to tol·‖B_j‖. diag is the diagonal of A (entries ≤ 0 are
// replaced by 1, which keeps the preconditioner positive; nil means no preconditioner). A run that stops at maxIter
// returns the last iterate with an error wrapping ErrNotConverged; a breakdown (pᵀAp ≤ 0: A not positive definite)
// returns an error too.
func PCG(apply func(dst, V []float64), B, diag []float64, F, P int, tol float64, maxIter int) (Result, error) {
	inv := make([]float64, F)
	for i := range inv {
		inv[i] = 1
		if i < len(diag) && diag[i] > 0 && !math.IsInf(diag[i], 0) {
			inv[i] = 1 / diag[i]
		}
	}
	X := make([]float64, F*P)
	R := append([]float64(nil), B...)
	Pm := make([]float64, F*P)
	Q := make([]float64, F*P)
	bnorm := colNorms(B, F, P)
	rz := make([]float64, P)
	active := make([]bool, P)
	nActive := 0
	for j := range P {
		if bnorm[j] == 0 {
			continue
		}
		active[j] = true
		nActive++
		for i := range F {
			z := inv[i] * R[i*P+j]
			Pm[i*P+j] = z
			rz[j] += R[i*P+j] * z
		}
	}
	it := 0
	var breakdown error
	for ; nActive > 0 && it < maxIter; it++ {
		apply(Q, Pm)
		for j := range P {
			if !active[j] {
				continue
			}
			var pq float64
			for i := range F {
				pq += Pm[i*P+j] * Q[i*P+j]
			}
			if !(pq > 0) {
				breakdown = fmt.Errorf("output %d: pᵀAp = %g ≤ 0, the system is not positive definite: increase λ", j+1, pq)
				active[j] = false
				nActive--
				continue
			}
			alpha := rz[j] / pq
			var rr, rzNew float64
			for i := range F {
				X[i*P+j] += alpha * Pm[i*P+j]
				r := R[i*P+j] - alpha*Q[i*P+j]
				R[i*P+j] = r
				rr += r * r
				rzNew += r * inv[i] * r
			}
			if math.Sqrt(rr) <= tol*bnorm[j] {
				active[j] = false
				nActive--
				for i := range F {
					Pm[i*P+j] = 0
				}
				continue
			}
			beta := rzNew / rz[j]
			rz[j] = rzNew
			for i := range F {
				Pm[i*P+j] = inv[i]*R[i*P+j] + beta*Pm[i*P+j]
			}
		}
	}
	// True residual B − A X.
	apply(Q, X)
	for i := range Q {
		Q[i] -= B[i]
	}
	res := Result{X: X, Iterations: it, Residual: RelResidual(Q, B, F, P)}
	if breakdown != nil {
		return res, breakdown
	}
	if nActive > 0 {
		return res, fmt.Errorf("%w after %d iterations (relative residual %.3g > %.3g)", ErrNotConverged, it, res.Residual, tol)
	}
	return res, nil
}

func colNorms(B []float64, F, P int) []float64 {
	n := make([]float64, P)
	for i := range F {
		for j := range P {
			n[j] += B[i*P+j] * B[i*P+j]
		}
	}
	for j := range n {
		n[j] = math.Sqrt(n[j])
	}
	return n
}

// RelResidual returns max_j ‖R_j‖/‖B_j‖ over the columns j of the F×P matrices R and B (‖R_j‖ when B_j = 0).
func RelResidual(R, B []float64, F, P int) float64 {
	worst := 0.0
	for j := range P {
		var rr, bb float64
		for i := range F {
			rr += R[i*P+j] * R[i*P+j]
			bb += B[i*P+j] * B[i*P+j]
		}
		v := math.Sqrt(rr)
		if bb > 0 {
			v /= math.Sqrt(bb)
		}
		worst = max(worst, v)
	}
	return worst
}

// Bytes formats a number of bytes for the messages of memory guards.
func Bytes(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.2f MiB", b/(1<<20))
	}
	return fmt.Sprintf("%.0f bytes", b)
}
