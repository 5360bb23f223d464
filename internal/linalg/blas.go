package linalg

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Blas is gonum's pure-Go BLAS whose level-3 routines go to the active
// backend: OpenBLAS's CBLAS (row-major, like gonum) for problems large enough
// to amortize a cgo call, gonum's code otherwise. In pure-Go mode Dsyrk uses
// the blocked, parallel SyrkBlocked for large problems, and on CPUs with AVX2
// and FMA3 Dsyrk and Dgemm run the packed assembly kernel (pack.go) from
// about 32³ multiply-adds. [UseEnv] and [Use] install it with blas64.Use, so
// that every gonum/mat product in the program uses it; callers never need to
// name it. Importing the package does not install it.
//
// Arguments are checked exactly as gonum checks them: anything gonum would
// panic on is handed to gonum, which panics with its own message.
type Blas struct {
	gonum.Implementation
}

var goBlas gonum.Implementation

// Work thresholds (multiply-adds) below which a call stays in pure Go. OpenBLAS
// is faster even for tiny products (BenchmarkCrossover; docs/performance.md),
// but calls into it are serialized: below a few microseconds
// of work, products from concurrent goroutines are better left running side by
// side in Go than queueing on the lock.
const (
	nativeMinWork = 24 * 24 * 24
	// blockedSyrkMinN and blockedSyrkMinWork gate the pure-Go SyrkBlocked path
	// on CPUs without AVX2+FMA; at n = 128 its portable code only ties with
	// gonum's Dsyrk (BenchmarkGramGo).
	blockedSyrkMinN    = 256
	blockedSyrkMinWork = 256 * 256 * 32
	// packedGemmMinDim and packedGemmMinWork gate the pure-Go packed Dgemm
	// (AVX2+FMA CPUs only), packedSyrkMinN and packedGemmMinWork/2 the
	// packed SyrkBlocked path of Dsyrk; smaller products stay in gonum, which
	// is as fast there (BenchmarkGemmGo, BenchmarkSyrkSmallGo).
	packedGemmMinDim  = 8
	packedGemmMinWork = 32 * 32 * 32
	packedSyrkMinN    = 32
)

func isTrans(t blas.Transpose) bool { return t == blas.Trans || t == blas.ConjTrans }

func validTrans(t blas.Transpose) bool {
	return t == blas.NoTrans || t == blas.Trans || t == blas.ConjTrans
}

func validUplo(u blas.Uplo) bool { return u == blas.Upper || u == blas.Lower }

func validSide(s blas.Side) bool { return s == blas.Left || s == blas.Right }

func validDiag(d blas.Diag) bool { return d == blas.NonUnit || d == blas.Unit }

// gemmOK reports whether gonum's Dgemm (Sgemm) accepts the arguments.
func gemmOK[T float32 | float64](tA, tB blas.Transpose, m, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int) bool {
	if !validTrans(tA) || !validTrans(tB) || m < 0 || n < 0 || k < 0 || ldc < max(1, n) {
		return false
	}
	ar, ac := m, k
	if isTrans(tA) {
		ar, ac = k, m
	}
	br, bc := k, n
	if isTrans(tB) {
		br, bc = n, k
	}
	if lda < max(1, ac) || ldb < max(1, bc) {
		return false
	}
	if m == 0 || n == 0 {
		return true
	}
	return len(a) >= (ar-1)*lda+ac && len(b) >= (br-1)*ldb+bc && len(c) >= (m-1)*ldc+n
}

// Dgemm computes C = alpha * op(A) * op(B) + beta * C (gonum's contract).
func (Blas) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	lib := native()
	if lib == nil && useKernel && alpha != 0 && m >= packedGemmMinDim && n >= packedGemmMinDim && k >= packedGemmMinDim &&
		m*n*k >= packedGemmMinWork && gemmOK(tA, tB, m, n, k, a, lda, b, ldb, c, ldc) {
		gemmPacked(triFull, isTrans(tA), isTrans(tB), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, pureThreads())
		return
	}
	if lib == nil || alpha == 0 || m*n*k < nativeMinWork || !gemmOK(tA, tB, m, n, k, a, lda, b, ldb, c, ldc) || !cInts(m, n, k, lda, ldb, ldc) {
		goBlas.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	lib.gemm(isTrans(tA), isTrans(tB), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// cInts reports whether every dimension and leading dimension v fits the 32-bit integers of OpenBLAS's interface;
// larger calls go to the pure-Go BLAS, which takes Go ints (a C int would wrap to a negative size, which OpenBLAS
// reports on stderr and skips, leaving the output as it was).
func cInts(v ...int) bool {
	for _, x := range v {
		if x > math.MaxInt32 {
			return false
		}
	}
	return true
}

// syrkOK reports whether gonum's Dsyrk (and, with b, Dsyr2k) accepts the arguments.
func syrkOK[T float32 | float64](ul blas.Uplo, tA blas.Transpose, n, k int, a []T, lda int, b []T, ldb int, checkB bool, c []T, ldc int) bool {
	if !validUplo(ul) || !validTrans(tA) || n < 0 || k < 0 || ldc < max(1, n) {
		return false
	}
	row, col := k, n
	if tA == blas.NoTrans {
		row, col = n, k
	}
	if lda < max(1, col) || (checkB && ldb < max(1, col)) {
		return false
	}
	if n == 0 {
		return true
	}
	if len(a) < lda*(row-1)+col || len(c) < ldc*(n-1)+n {
		return false
	}
	return !checkB || len(b) >= ldb*(row-1)+col
}

// Dsyrk computes the ul triangle of C = alpha * A * Aᵀ + beta * C (tA = NoTrans,
// A n×k) or C = alpha * Aᵀ * A + beta * C (tA = Trans, A k×n). With beta = 0, C
// need not be initialized on every path (gonum v0.17's Dsyrk scales a NaN in C
// by 0 for Lower with Trans; this wrapper zeroes first).
func (Blas) Dsyrk(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	if !syrkOK(ul, tA, n, k, a, lda, nil, 0, false, c, ldc) {
		goBlas.Dsyrk(ul, tA, n, k, alpha, a, lda, beta, c, ldc) // panics with gonum's message
		return
	}
	work := n * n * k / 2
	lib := native()
	switch {
	case alpha == 0 || k == 0 || n == 0:
	case lib != nil && work >= nativeMinWork && cInts(n, k, lda, ldc):
		lib.syrk(ul == blas.Upper, isTrans(tA), n, k, alpha, a, lda, beta, c, ldc)
		return
	case lib == nil && useKernel && n >= packedSyrkMinN && 2*work >= packedGemmMinWork,
		lib == nil && n >= blockedSyrkMinN && work >= blockedSyrkMinWork:
		syrkBlocked(ul == blas.Upper, isTrans(tA), n, k, alpha, a, lda, beta, c, ldc, pureThreads())
		return
	}
	goDsyrk(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
}

// goDsyrk is gonum's Dsyrk on checked arguments, with beta = 0 made to
// overwrite C on every path.
func goDsyrk(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	if beta == 0 && ul == blas.Lower && tA != blas.NoTrans {
		for i := 0; i < n; i++ {
			clear(c[i*ldc : i*ldc+i+1])
		}
	}
	goBlas.Dsyrk(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
}

// Dsyr2k computes the ul triangle of C = alpha*(op(A)*op(B)ᵀ + op(B)*op(A)ᵀ) + beta*C.
func (Blas) Dsyr2k(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	lib := native()
	if lib == nil || alpha == 0 || k == 0 || n*n*k < nativeMinWork || !syrkOK(ul, tA, n, k, a, lda, b, ldb, true, c, ldc) || !cInts(n, k, lda, ldb, ldc) {
		goBlas.Dsyr2k(ul, tA, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	lib.syr2k(ul == blas.Upper, isTrans(tA), n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// triOK reports whether gonum's Dtrsm/Dtrmm accept the arguments.
func triOK(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, a []float64, lda int, b []float64, ldb int) bool {
	if !validSide(s) || !validUplo(ul) || !validTrans(tA) || !validDiag(d) || m < 0 || n < 0 {
		return false
	}
	k := n
	if s == blas.Left {
		k = m
	}
	if lda < max(1, k) || ldb < max(1, n) {
		return false
	}
	if m == 0 || n == 0 {
		return true
	}
	return len(a) >= lda*(k-1)+k && len(b) >= ldb*(m-1)+n
}

func triWork(s blas.Side, m, n int) int {
	if s == blas.Left {
		return m * m * n / 2
	}
	return m * n * n / 2
}

// Dtrsm solves op(A) * X = alpha * B (Left) or X * op(A) = alpha * B (Right), X overwriting B.
func (Blas) Dtrsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	lib := native()
	if lib == nil || alpha == 0 || triWork(s, m, n) < nativeMinWork || !triOK(s, ul, tA, d, m, n, a, lda, b, ldb) || !cInts(m, n, lda, ldb) {
		goBlas.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		return
	}
	lib.trsm(s == blas.Left, ul == blas.Upper, isTrans(tA), d == blas.Unit, m, n, alpha, a, lda, b, ldb)
}

// Dtrmm computes B = alpha * op(A) * B (Left) or B = alpha * B * op(A) (Right).
func (Blas) Dtrmm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	lib := native()
	if lib == nil || alpha == 0 || triWork(s, m, n) < nativeMinWork || !triOK(s, ul, tA, d, m, n, a, lda, b, ldb) || !cInts(m, n, lda, ldb) {
		goBlas.Dtrmm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		return
	}
	lib.trmm(s == blas.Left, ul == blas.Upper, isTrans(tA), d == blas.Unit, m, n, alpha, a, lda, b, ldb)
}

// Dsymm computes C = alpha * A * B + beta * C (Left) or C = alpha * B * A + beta * C (Right), A symmetric.
func (Blas) Dsymm(s blas.Side, ul blas.Uplo, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	lib := native()
	if lib == nil || alpha == 0 || 2*triWork(s, m, n) < nativeMinWork || !symmOK(s, ul, m, n, a, lda, b, ldb, c, ldc) || !cInts(m, n, lda, ldb, ldc) {
		goBlas.Dsymm(s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	lib.symm(s == blas.Left, ul == blas.Upper, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
}

func symmOK(s blas.Side, ul blas.Uplo, m, n int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) bool {
	if !validSide(s) || !validUplo(ul) || m < 0 || n < 0 {
		return false
	}
	k := n
	if s == blas.Left {
		k = m
	}
	if lda < max(1, k) || ldb < max(1, n) || ldc < max(1, n) {
		return false
	}
	if m == 0 || n == 0 {
		return true
	}
	return len(a) >= lda*(k-1)+k && len(b) >= ldb*(m-1)+n && len(c) >= ldc*(m-1)+n
}
