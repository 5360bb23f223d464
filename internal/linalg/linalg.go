package linalg

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
)

func trans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// Gemm computes C = alpha·op(A)·op(B) + beta·C on row-major arrays, where
// op(X) is Xᵀ when the flag is set: op(A) is m×k (A is k×m when tA), op(B) is
// k×n (B is n×k when tB), C is m×n. It runs on the active backend (gonum for
// small problems). With beta = 0, C need not be initialized; with alpha = 0, A
// and B are not read. Like gonum, it panics on bad dimensions or short slices.
func Gemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	Blas{}.Dgemm(trans(tA), trans(tB), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Syrk computes the upper triangle of C = alpha·AᵀA + beta·C, where A is k×n
// (row-major, lda ≥ n: k rows of n features) and C is n×n; the strictly lower
// triangle of C is not touched. Syrk(n, k, 1, z, n, 1, ztz, n) accumulates a
// block of k feature rows into a Gram matrix. It runs OpenBLAS's dsyrk on that
// backend, SyrkBlocked in pure Go for large problems, gonum's Dsyrk for small
// ones. Like gonum, it panics on bad dimensions or short slices.
func Syrk(n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	Blas{}.Dsyrk(blas.Upper, blas.Trans, n, k, alpha, a, lda, beta, c, ldc)
}

// ErrNotPositiveDefinite is returned by Cholesky for a matrix that is not
// (numerically) symmetric positive definite, including one with NaN.
var ErrNotPositiveDefinite = errors.New("linalg: matrix is not positive definite")

// Cholesky factorizes the symmetric positive definite n×n matrix whose upper
// triangle is in a (row-major, stride lda) as A = UᵀU, U overwriting the upper
// triangle; the strictly lower triangle is not touched. It returns an error
// wrapping ErrNotPositiveDefinite if A is not positive definite (a is then
// partly overwritten), or a dimension error.
func Cholesky(n int, a []float64, lda int) error {
	if n < 0 || lda < max(1, n) || (n > 0 && len(a) < (n-1)*lda+n) {
		return fmt.Errorf("linalg.Cholesky: n=%d, lda=%d, len(a)=%d: bad dimensions", n, lda, len(a))
	}
	if !(Lapack{}).Dpotrf(blas.Upper, n, a, lda) {
		return fmt.Errorf("linalg.Cholesky: %w", ErrNotPositiveDefinite)
	}
	return nil
}

// SolveCholesky solves A·X = B for the n×nrhs matrix B (row-major, stride ldb)
// in place, given A = UᵀU from Cholesky (U in the upper triangle of u, stride
// ldu). It returns an error for bad dimensions.
func SolveCholesky(n, nrhs int, u []float64, ldu int, b []float64, ldb int) error {
	if n < 0 || nrhs < 0 || ldu < max(1, n) || ldb < max(1, nrhs) ||
		(n > 0 && nrhs > 0 && (len(u) < (n-1)*ldu+n || len(b) < (n-1)*ldb+nrhs)) {
		return fmt.Errorf("linalg.SolveCholesky: n=%d, nrhs=%d, ldu=%d, ldb=%d, len(u)=%d, len(b)=%d: bad dimensions",
			n, nrhs, ldu, ldb, len(u), len(b))
	}
	Lapack{}.Dpotrs(blas.Upper, n, nrhs, u, ldu, b, ldb)
	return nil
}

// EigenSym computes all eigenvalues (ascending) and eigenvectors of the
// symmetric n×n matrix whose upper triangle is in a (row-major, stride n); a is
// not modified. vectors is n×n row-major with the eigenvector of values[j] in
// column j, orthonormal. On OpenBLAS it runs LAPACK's divide-and-conquer
// dsyevd; in pure Go gonum's Dsyev algorithm with faster rotations, which is
// an order of magnitude slower than dsyevd at n in the thousands
// (docs/performance.md). It returns an error for bad
// dimensions, NaN or Inf in the upper triangle, or if the iteration fails to
// converge.
func EigenSym(n int, a []float64) (values, vectors []float64, err error) {
	if n < 0 || len(a) < n*n {
		return nil, nil, fmt.Errorf("linalg.EigenSym: n=%d needs %d values, have %d", n, max(0, n*n), len(a))
	}
	for i := 0; i < n; i++ {
		for _, v := range a[i*n+i : i*n+n] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("linalg.EigenSym: row %d holds %v", i, v)
			}
		}
	}
	values = make([]float64, n)
	vectors = make([]float64, n*n)
	copy(vectors, a[:n*n])
	if n == 0 {
		return values, vectors, nil
	}
	var impl Lapack
	work := []float64{0}
	impl.Dsyev(lapack.EVCompute, blas.Upper, n, vectors, n, values, work, -1)
	work = make([]float64, max(int(work[0]), 3*n-1, 1))
	if !impl.Dsyev(lapack.EVCompute, blas.Upper, n, vectors, n, values, work, len(work)) {
		return nil, nil, errors.New("linalg.EigenSym: the eigenvalue iteration did not converge")
	}
	return values, vectors, nil
}

// GemmSerialMinDim is the smallest m, n and k for which GemmSerial takes its packed kernel.
const GemmSerialMinDim = packedGemmMinDim

// GemmSerialBytes is the most GemmSerial allocates for an m×n×k product, or Packing.GemmSerial the first time: the
// packing buffers (each rounded up to whole 8 KiB pages), or 0 when the product does not take the packed kernel.
// GemmSerial takes them from a pool shared by all calls and allocates them only when the pool has none.
func GemmSerialBytes(m, n, k int) int64 {
	if !useKernel || m < packedGemmMinDim || n < packedGemmMinDim || k < packedGemmMinDim {
		return 0
	}
	kc, mc := blockSizes(k, packKC, 1), packMC
	if m < 4*mc { // as gemmPacked on one worker
		mc = max(packMR, (m/4+packMR-1)/packMR*packMR)
	}
	ncPad := (min(blockSizes(n, packNCMax, packNR), n) + packNR - 1) / packNR * packNR
	pages := func(b int64) int64 { return (b + 8191) / 8192 * 8192 } // the heap's granule for large objects
	return pages(8*int64(kc)*int64(mc)) + pages(8*int64(kc)*int64(ncPad))
}

// GemmSerial is Gemm on the calling goroutine in pure Go, whatever the
// backend: the packed AVX2+FMA kernel when the CPU has it and every dimension
// is at least 8, gonum's Dgemm otherwise. It is for many small products that
// the caller already runs in parallel — on OpenBLAS, whose calls are
// serialized, each would wait for the lock and start its threads anew.
//
// Once m, n and k are all at least GemmSerialMinDim and the CPU has the kernel, every element of C sees the same
// operations whatever m and its row's position (edge tiles run the same kernel on a padded copy), so a caller that
// pads its rows to GemmSerialMinDim gets the same bits for a row alone as within a block.
func GemmSerial(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	(*Packing)(nil).GemmSerial(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Packing holds the packing buffers of GemmSerial for one goroutine, for a caller that wants its products' scratch
// to be its own (counted, and garbage when it is): a pool shared by all calls may hand a goroutine new buffers
// while other goroutines' lie idle. The zero value is ready to use; a nil *Packing takes the shared pool.
type Packing struct{ bufs packBufs }

// GemmSerial is the package's GemmSerial with p's buffers, which grow to the largest product p has computed.
func (p *Packing) GemmSerial(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	ta, tb := trans(tA), trans(tB)
	if useKernel && alpha != 0 && m >= packedGemmMinDim && n >= packedGemmMinDim && k >= packedGemmMinDim &&
		gemmOK(ta, tb, m, n, k, a, lda, b, ldb, c, ldc) {
		var bufs *packBufs
		if p != nil {
			bufs = &p.bufs
		}
		gemmPackedBufs(bufs, triFull, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1)
		return
	}
	goBlas.Dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
