package linalg

import (
	"gonum.org/v1/gonum/blas"

	"github.com/rffkit/rff/internal/linalg/avx2"
	"github.com/rffkit/rff/internal/parallel"
)

// Tiling of the portable path of SyrkBlocked (syrkAxpy): tasks of gramRows
// rows of C, swept in chunks of gramCols columns, so that a chunk of a row of
// A is reused from L1 by all the rows of the task while the task's tile of C
// stays in L2.
const (
	gramRows = 16
	gramCols = 1024
)

// SyrkBlocked computes the upper triangle of C = alpha·AᵀA + beta·C in pure Go,
// where A is k×n (row-major, lda ≥ n) and C is n×n (ldc ≥ n); the strictly
// lower triangle of C is not touched. Work is spread over SetThreads
// goroutines (default GOMAXPROCS).
//
// On x86-64 CPUs with AVX2 and FMA3 (checked at start-up with CPUID and
// XGETBV) it runs the packed driver of pack.go around the assembly
// micro-kernel of package avx2, in the GotoBLAS/BLIS structure: Aᵀ's rows and
// A's columns — both just short runs of A's rows — are packed into 4×kc and
// kc×12 panels (kc ≤ 256 terms, k split in equal blocks; 12-column panels of
// up to 4096 columns shared by all goroutines, 4-row panels, scaled by alpha,
// per task of ≤ 96 rows), and each 4×12 tile of C on or above the diagonal is
// loaded into twelve YMM registers, updated with one VFMADD231PD per term
// and stored back. Tiles below the diagonal are skipped; tiles crossing it
// (and edge tiles) go through a small buffer and only their upper part is
// written back. Every element of C goes through the same operations in the
// same order — C_ij = fma(alpha·a_li, a_lj, C_ij) for l = 0, 1, …, k−1 after
// beta — whatever the number of goroutines and the blocking, so the result is
// bit for bit reproducible across SetThreads and GOMAXPROCS, and accumulating
// a Gram matrix over blocks of rows (beta = 1) gives the bits of one call on
// all the rows, as on the portable path. It can differ from gonum's Dsyrk in
// the last bits (FMA rounding), within the usual bound
// γ_{k+2}·(|alpha|·Σ_l |a_li·a_lj| + |beta·C_ij|) — for finite A: where A
// holds Inf or NaN the kernel multiplies a zero by it (NaN) while the
// portable path, as gonum and the reference BLAS, skips zero terms. It runs at about the
// rate of OpenBLAS's dsyrk, five times the portable path and ten or more times
// gonum's Dsyrk (BenchmarkGramGo; figures in docs/performance.md).
//
// Elsewhere it is gonum's Dsyrk loop (one axpy of a row of A into a row of C
// per row of A, on gonum's assembly axpy) tiled for the cache and run in
// parallel: tasks of 16 rows of C, swept in column chunks of 1024, largest
// first.
//
// With beta = 0, C need not be initialized (NaN in C is overwritten). Like
// gonum, it panics on bad dimensions or short slices.
func SyrkBlocked(n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	if !syrkOK(blas.Upper, blas.Trans, n, k, a, lda, nil, 0, false, c, ldc) {
		goBlas.Dsyrk(blas.Upper, blas.Trans, n, k, alpha, a, lda, beta, c, ldc) // panics with gonum's message
		return
	}
	if alpha == 0 || k == 0 || n == 0 {
		goDsyrk(blas.Upper, blas.Trans, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	syrkBlocked(true, true, n, k, alpha, a, lda, beta, c, ldc, pureThreads())
}

// useKernel selects the packed AVX2+FMA driver (gemmPacked) for SyrkBlocked
// and the pure-Go Dgemm. It is set at start-up from CPUID (avx2.Available)
// and flipped only by tests, which run both paths.
var useKernel = avx2.Available

// syrkBlocked implements SyrkBlocked for either triangle and either operand
// orientation: op(A) is n×k, op(A) = Aᵀ (A k×n) when trans, A (n×k)
// otherwise, and C = alpha·op(A)·op(A)ᵀ + beta·C on the upper or lower
// triangle. Arguments have been checked; alpha ≠ 0, n > 0 and k > 0.
func syrkBlocked(upper, trans bool, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int, workers int) {
	if useKernel {
		tri := triLower
		if upper {
			tri = triUpper
		}
		// op(A)·op(A)ᵀ with op(A) = Aᵀ (trans) or A: the left operand is
		// op(A), the right one op(A)ᵀ.
		gemmPacked(tri, trans, !trans, n, n, k, alpha, a, lda, a, lda, beta, c, ldc, workers)
		return
	}
	syrkAxpy(upper, trans, n, k, alpha, a, lda, beta, c, ldc, workers)
}

// syrkAxpy is syrkBlocked on CPUs without AVX2+FMA (and on other
// architectures): gonum's Dsyrk loop of axpys, tiled and parallel.
func syrkAxpy(upper, trans bool, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int, workers int) {
	if !trans {
		// The kernel walks rows of Aᵀ (k×n); A·Aᵀ of an n×k A takes one
		// transposed copy, O(nk) next to the O(n²k) product.
		at := make([]float64, k*n)
		for i := 0; i < n; i++ {
			for l, v := range a[i*lda : i*lda+k] {
				at[l*n+i] = v
			}
		}
		a, lda = at, n
	}
	tasks := (n + gramRows - 1) / gramRows
	workers = max(1, min(workers, tasks))
	// Task t covers rows [i0, i1); for the upper triangle the first rows are
	// the longest, for the lower the last, so tasks are handed out longest
	// first.
	rowsOf := func(t int) (int, int) {
		if !upper {
			t = tasks - 1 - t
		}
		i0 := t * gramRows
		return i0, min(i0+gramRows, n)
	}
	// span is the part of row i of C in the triangle.
	span := func(i int) (int, int) {
		if upper {
			return i, n
		}
		return 0, i + 1
	}
	task := func(t int) {
		i0, i1 := rowsOf(t)
		for i := i0; i < i1; i++ {
			j0, j1 := span(i)
			ci := c[i*ldc+j0 : i*ldc+j1]
			switch beta {
			case 0:
				clear(ci)
			case 1:
			default:
				for j := range ci {
					ci[j] *= beta
				}
			}
		}
		lo, _ := span(i0)
		_, hi := span(i1 - 1)
		for c0 := lo; c0 < hi; c0 += gramCols {
			c1 := min(c0+gramCols, hi)
			for l := 0; l < k; l++ {
				al := a[l*lda : l*lda+n]
				for i := i0; i < i1; i++ {
					t := alpha * al[i]
					if t == 0 {
						continue
					}
					j0, j1 := span(i)
					j0, j1 = max(j0, c0), min(j1, c1)
					if j0 < j1 {
						goBlas.Daxpy(j1-j0, t, al[j0:j1], 1, c[i*ldc+j0:i*ldc+j1], 1)
					}
				}
			}
		}
	}
	parallel.For(tasks, workers, task)
}
