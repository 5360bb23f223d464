package linalg

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
)

// rotateRows applies the plane rotations (c[j], s[j]), j = 0..n−2, from the
// right to the m×n row-major matrix a, exactly as gonum's
// Dlasr(blas.Right, lapack.Variable, direct, m, n, c, s, a, lda) does
// (forward: j ascending, otherwise descending), but row by row: rows are
// independent under rotations from the right, each row is contiguous, and
// four rows go together so that their dependency chains overlap. Large
// calls are split over goroutines by rows. The result is bit-for-bit
// Dlasr's: every element sees the same operations in the same order.
//
// Every product is rounded on its own (the float64 conversions): a compiler
// that fuses multiplies and adds (FMA, as Go does with GOAMD64=v3) fuses
// them differently in different loops, and a row's bits would then depend on
// whether it went with three others — on the number of goroutines. Where
// the compiler fuses, gonum's Dlasr is fused and differs from this in the
// last bits; where it does not (GOAMD64 below v3, the default), the two are
// the same bits.
func rotateRows(forward bool, m, n int, c, s, a []float64, lda int) {
	if m == 0 || n < 2 {
		return
	}
	c, s = c[:n-1], s[:n-1]
	const parMin = 1 << 15 // elements below which one goroutine does it
	workers := pureThreads()
	if m*n < parMin || workers < 2 || m < 8 {
		rotateRowRange(forward, 0, m, n, c, s, a, lda)
		return
	}
	workers = min(workers, m/4)
	var wg sync.WaitGroup
	per := (m + workers - 1) / workers
	for r0 := 0; r0 < m; r0 += per {
		r1 := min(r0+per, m)
		wg.Add(1)
		go func() {
			defer wg.Done()
			rotateRowRange(forward, r0, r1, n, c, s, a, lda)
		}()
	}
	wg.Wait()
}

// rot applies the rotation (ct, st) to x[j], x[j+1] with Dlasr's operations, every product rounded on its own (see
// rotateRows).
func rot(x []float64, j int, ct, st float64) {
	t, u := x[j+1], x[j]
	x[j+1] = float64(ct*t) - float64(st*u)
	x[j] = float64(st*t) + float64(ct*u)
}

func rotateRowRange(forward bool, r0, r1, n int, c, s, a []float64, lda int) {
	i := r0
	for ; i+4 <= r1; i += 4 {
		x0 := a[i*lda : i*lda+n]
		x1 := a[(i+1)*lda : (i+1)*lda+n]
		x2 := a[(i+2)*lda : (i+2)*lda+n]
		x3 := a[(i+3)*lda : (i+3)*lda+n]
		if forward {
			for j := 0; j < n-1; j++ {
				ct, st := c[j], s[j]
				if ct == 1 && st == 0 {
					continue
				}
				rot(x0, j, ct, st)
				rot(x1, j, ct, st)
				rot(x2, j, ct, st)
				rot(x3, j, ct, st)
			}
			continue
		}
		for j := n - 2; j >= 0; j-- {
			ct, st := c[j], s[j]
			if ct == 1 && st == 0 {
				continue
			}
			rot(x0, j, ct, st)
			rot(x1, j, ct, st)
			rot(x2, j, ct, st)
			rot(x3, j, ct, st)
		}
	}
	for ; i < r1; i++ {
		x := a[i*lda : i*lda+n]
		if forward {
			for j := 0; j < n-1; j++ {
				ct, st := c[j], s[j]
				if ct == 1 && st == 0 {
					continue
				}
				rot(x, j, ct, st)
			}
			continue
		}
		for j := n - 2; j >= 0; j-- {
			ct, st := c[j], s[j]
			if ct == 1 && st == 0 {
				continue
			}
			rot(x, j, ct, st)
		}
	}
}

// goDsyevVectors is gonum v0.17's Dsyev for jobz = EVCompute (scaling,
// Dsytrd, Dorgtr, QL/QR iteration, rescaling) with the iteration done by
// dsteqrRows. Arguments have been checked as gonum checks them, n ≥ 2, and
// lwork ≥ 3n−1.
func (impl Lapack) goDsyevVectors(ul blas.Uplo, n int, a []float64, lda int, w, work []float64, lwork int) bool {
	const (
		safmin = 0x1p-1022
		eps    = 0x1p-52 // dlamchP: base × machine epsilon
	)
	smlnum := safmin / eps
	bignum := 1 / smlnum
	rmin, rmax := math.Sqrt(smlnum), math.Sqrt(bignum)

	anrm := impl.Dlansy(lapack.MaxAbs, ul, n, a, lda, work)
	scaled := false
	var sigma float64
	if anrm > 0 && anrm < rmin {
		scaled, sigma = true, rmin/anrm
	} else if anrm > rmax {
		scaled, sigma = true, rmax/anrm
	}
	if scaled {
		kind := lapack.LowerTri
		if ul == blas.Upper {
			kind = lapack.UpperTri
		}
		impl.Dlascl(kind, 0, 0, 1, sigma, n, n, a, lda)
	}
	inde, indtau, indwork := 0, n, 2*n
	llwork := lwork - indwork
	impl.Dsytrd(ul, n, a, lda, w, work[inde:], work[indtau:], work[indwork:], llwork)
	impl.Dorgtr(ul, n, a, lda, work[indtau:], work[indwork:], llwork)
	if !dsteqrRows(impl.Implementation, lapack.EVOrig, n, w, work[inde:], a, lda, work[indtau:]) {
		return false
	}
	if scaled {
		blas64.Implementation().Dscal(n, 1/sigma, w, 1)
	}
	return true
}
