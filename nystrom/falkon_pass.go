package nystrom

import (
	"fmt"

	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/kernel"
)

// rowPass forms the products of K_NM (the kernel between the N rows of X and the M centres C) with vectors a block
// of rows at a time: memory rows·M, not N·M, unless all is set (Falkon.StoreKernel). The blocks are processed in row
// order, each with kernel.Centres.Gram and matrix products that use every core, so the sums are the same bits for
// every GOMAXPROCS (on one backend).
type rowPass struct {
	cent    *kernel.Centres // the M centres
	X       []float64       // n×d
	n, d    int
	M, rows int
	kb, t   []float64 // a block of K_NM (rows×M) and of K_NM·V (rows×p)
	// all, when not nil, holds K_NM (n×M); filled says that the first pass has computed it.
	all    []float64
	filled bool
}

// kernelBlock returns K(x_r0 … x_{r0+nb−1}, C): from all once it is filled, else computed into all or the pass's
// buffer.
func (r *rowPass) kernelBlock(r0, nb int) ([]float64, error) {
	var kb []float64
	switch {
	case r.all != nil && r.filled:
		return r.all[r0*r.M : (r0+nb)*r.M], nil
	case r.all != nil:
		kb = r.all[r0*r.M : (r0+nb)*r.M]
	default:
		if r.kb == nil {
			r.kb = make([]float64, r.rows*r.M)
		}
		kb = r.kb[:nb*r.M]
	}
	if err := r.cent.Gram(kb, r.X[r0*r.d:(r0+nb)*r.d], nb); err != nil {
		return nil, fmt.Errorf("nystrom: Falkon: %w", err)
	}
	return kb, nil
}

// first returns K_NMᵀY (M×p), the column sums K_NMᵀ1 (M) and, when sq is set, the squared column norms Σ_i K_ia².
func (r *rowPass) first(Y []float64, p int, sq bool) (rhs, sum, sumsq []float64, err error) {
	q := p + 1
	acc := make([]float64, r.M*q) // [K_NMᵀY, K_NMᵀ1]
	yb := make([]float64, r.rows*q)
	if sq {
		sumsq = make([]float64, r.M)
	}
	for r0 := 0; r0 < r.n; r0 += r.rows {
		nb := min(r.rows, r.n-r0)
		kb, err := r.kernelBlock(r0, nb)
		if err != nil {
			return nil, nil, nil, err
		}
		for i := range nb {
			copy(yb[i*q:i*q+p], Y[(r0+i)*p:(r0+i+1)*p])
			yb[i*q+p] = 1
		}
		linalg.Gemm(true, false, r.M, q, nb, 1, kb, r.M, yb[:nb*q], q, 1, acc, q)
		if sq {
			for i := range nb {
				for a, v := range kb[i*r.M : (i+1)*r.M] {
					sumsq[a] += v * v
				}
			}
		}
	}
	rhs, sum = make([]float64, r.M*p), make([]float64, r.M)
	for a := range r.M {
		copy(rhs[a*p:(a+1)*p], acc[a*q:a*q+p])
		sum[a] = acc[a*q+p]
	}
	return rhs, sum, sumsq, nil
}

// gram sets dst = K_NMᵀ(K_NM V) for V (M×p).
func (r *rowPass) gram(dst, V []float64, p int) error {
	clear(dst[:r.M*p])
	if len(r.t) < r.rows*p {
		r.t = make([]float64, r.rows*p)
	}
	for r0 := 0; r0 < r.n; r0 += r.rows {
		nb := min(r.rows, r.n-r0)
		kb, err := r.kernelBlock(r0, nb)
		if err != nil {
			return err
		}
		// Both products a slice of gramRows rows at a time, which the second reads from cache.
		for s0 := 0; s0 < nb; s0 += gramRows(r.M) {
			sb := min(gramRows(r.M), nb-s0)
			ks, t := kb[s0*r.M:(s0+sb)*r.M], r.t[:sb*p]
			linalg.Gemm(false, false, sb, p, r.M, 1, ks, r.M, V, p, 0, t, p)
			linalg.Gemm(true, false, r.M, p, sb, 1, ks, r.M, t, p, 1, dst, p)
		}
	}
	return nil
}

// gramRows is the number of rows of K_NM that gram multiplies at a time: about gramBytes of kernel values (1 MiB),
// so that the second product finds them in cache, and at least gramMinRows. Variables for tests.
func gramRows(M int) int { return max(gramMinRows, gramBytes/(8*M)) }

var gramBytes, gramMinRows = 1 << 20, 32
