package linalg

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack"

	"github.com/rffkit/rff/internal/linalg/avx2"
	"github.com/rffkit/rff/internal/parallel"
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

// MulRows sets C (m×n, row stride ldc) to A·op(B) for A (m×k, row stride lda) and op(B) (k×n; B is n×k when tB,
// row stride ldb), so that every row of C gets the same bits whatever m — a row alone and within any block of rows:
// what a model's predictions need, whose rows a server may batch in any way. Where GemmSerial takes its packed
// kernel (a CPU with AVX2 and FMA, n and k at least GemmSerialMinDim) every element is the kernel's fused
// multiply-add chain over k in order, starting from +0; from GemmSerialMinDim rows on MulRows is GemmSerial (on the
// calling goroutine: a caller may split the rows among goroutines, the bits are the same), and fewer rows run the
// same chains directly (no packing: a row against a large B reads B once; on all cores, by chunks of columns, when B
// is large). Otherwise every element is gonum's dot product of length k (B transposed) or a chain of multiplications
// and additions, each rounded, over k in order, for any m. Inputs are not validated: it panics if a slice is too
// short.
func MulRows(tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	if m <= 0 || n <= 0 {
		return
	}
	kernel := MulRowsLayoutFree(n, k)
	if kernel && m >= packedGemmMinDim {
		GemmSerial(false, tB, m, n, k, 1, a, lda, b, ldb, 0, c, ldc)
		return
	}
	// A few rows against a large B (a single row's prediction) take B's columns in parallel chunks: every element is
	// still one chain on one goroutine.
	chunks := 1
	if float64(m)*float64(n)*float64(k) >= mulRowsParallelWork {
		chunks = min(2*runtime.GOMAXPROCS(0), (n+mulRowsMinColumns-1)/mulRowsMinColumns)
	}
	if chunks == 1 { // no closure, no goroutine: the common small product
		mulRowsDirect(tB, kernel, m, 0, n, k, a, lda, b, ldb, c, ldc)
		return
	}
	per := (n + chunks - 1) / chunks
	parallel.For(chunks, 0, func(q int) {
		j0 := q * per
		j1 := min(n, j0+per)
		if j0 < j1 {
			mulRowsDirect(tB, kernel, m, j0, j1, k, a, lda, b, ldb, c, ldc)
		}
	})
}

// MulRowsLayoutFree reports whether MulRows computes every element of an n-column product of depth k as the
// packed kernel's fused multiply-add chain over k in order from +0 — the same bits for B and for Bᵀ, so that a
// caller holding B in one layout need not copy it into the other. Otherwise (n or k below GemmSerialMinDim, or a
// CPU without AVX2 and FMA) the two layouts sum in different orders.
func MulRowsLayoutFree(n, k int) bool {
	return useKernel && n >= packedGemmMinDim && k >= packedGemmMinDim
}

// mulRowsParallelWork is the work (multiply-adds) from which MulRows's direct chains run on all cores, in chunks of
// at least mulRowsMinColumns columns.
const (
	mulRowsParallelWork = 1 << 18
	mulRowsMinColumns   = 64
)

// mulRowsDirect computes the columns [j0, j1) of MulRows's product by the chains, row after row.
func mulRowsDirect(tB, kernel bool, m, j0, j1, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	w := j1 - j0
	for i := range m {
		ai, ci := a[i*lda:i*lda+k], c[i*ldc+j0:i*ldc+j1]
		switch {
		case tB && kernel:
			rowFMAT(ci, ai, b[j0*ldb:], ldb)
		case kernel: // row l of B added to the row of C, in vector registers (avx2.AxpyFMA: math.FMA's bits)
			clear(ci)
			for l, v := range ai {
				_ = b[l*ldb+j1-1]
				avx2.AxpyFMA(w, v, &b[l*ldb+j0], &ci[0])
			}
		case tB:
			for j := range ci {
				ci[j] = floats.Dot(ai, b[(j0+j)*ldb:(j0+j)*ldb+k]) // gonum's assembly: an order fixed by k
			}
		default:
			clear(ci)
			for l, v := range ai {
				bl := b[l*ldb+j0 : l*ldb+j1]
				for j := range ci {
					ci[j] += float64(v * bl[j]) // the conversion rounds the product: never fused
				}
			}
		}
	}
}

// rowFMAT sets c[j] to the fused multiply-add chain of a·B[j] (B's row j, stride ldb) from +0: sixteen rows of B at
// a time in vector registers where the CPU has AVX2 and FMA, then eight at a time so that eight independent chains
// are in flight.
func rowFMAT(c, a, b []float64, ldb int) {
	row := func(j int) []float64 { return b[j*ldb:][:len(a)] }
	j := 0
	// Sixteen rows of B at a time in vector registers (avx2.Dots16FMA: the chains' first terms in fours, by 4×4
	// transposes), the last k mod 4 terms continued here.
	if k4 := len(a) / 4; k4 > 0 && avx2.Available {
		for ; j+16 <= len(c); j += 16 {
			_ = b[(j+15)*ldb+len(a)-1]
			avx2.Dots16FMA(k4, &a[0], &b[j*ldb], ldb, &c[j])
			for l := 4 * k4; l < len(a); l++ {
				for r := range 16 {
					c[j+r] = math.FMA(a[l], b[(j+r)*ldb+l], c[j+r])
				}
			}
		}
	}
	for ; j+8 <= len(c); j += 8 {
		b0, b1, b2, b3, b4, b5, b6, b7 := row(j), row(j+1), row(j+2), row(j+3), row(j+4), row(j+5), row(j+6), row(j+7)
		var s0, s1, s2, s3, s4, s5, s6, s7 float64
		for l, v := range a {
			s0 = math.FMA(v, b0[l], s0)
			s1 = math.FMA(v, b1[l], s1)
			s2 = math.FMA(v, b2[l], s2)
			s3 = math.FMA(v, b3[l], s3)
			s4 = math.FMA(v, b4[l], s4)
			s5 = math.FMA(v, b5[l], s5)
			s6 = math.FMA(v, b6[l], s6)
			s7 = math.FMA(v, b7[l], s7)
		}
		c[j], c[j+1], c[j+2], c[j+3], c[j+4], c[j+5], c[j+6], c[j+7] = s0, s1, s2, s3, s4, s5, s6, s7
	}
	for ; j < len(c); j++ {
		bj := row(j)
		s := 0.0
		for l, v := range a {
			s = math.FMA(v, bj[l], s)
		}
		c[j] = s
	}
}

// AxpyFMA sets y[i] = fma(a, x[i], y[i]) (math.FMA's bits) for i < len(y), in vector registers where the CPU has
// AVX2 and FMA. x must hold len(y) values.
func AxpyFMA(a float64, x, y []float64) {
	if len(y) == 0 {
		return
	}
	x = x[:len(y)]
	if avx2.Available {
		avx2.AxpyFMA(len(y), a, &x[0], &y[0])
		return
	}
	for i, v := range x {
		y[i] = math.FMA(a, v, y[i])
	}
}
