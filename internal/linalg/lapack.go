package linalg

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
)

// Lapack is gonum's pure-Go LAPACK with Dpotrf, Dpotrs and Dsyev sent to the
// active backend: OpenBLAS's dpotrf, two triangular solves, and the
// divide-and-conquer dsyevd. In pure Go, Dsyev with eigenvectors runs gonum's
// algorithm with the QL/QR rotations applied row by row (dsteqrRows), which
// gives gonum's results bit for bit about 5× faster (when the compiler does
// not fuse multiply-adds, GOAMD64 below v3; see rotateRows). [UseEnv] and [Use]
// install it with lapack64.Use, so that mat.Cholesky and mat.EigenSym use it;
// importing the package does not.
//
// gonum is row-major and Fortran LAPACK column-major. A row-major n×n array
// read as column-major is the transpose, and a symmetric matrix is its own
// transpose, so the same memory is passed with the triangle flipped: gonum's
// Upper (A = UᵀU) is Fortran's Lower (A = LLᵀ with L = Uᵀ, the same numbers).
// dsyevd returns eigenvectors in the columns of the column-major array, which
// are the rows of gonum's; Dsyev transposes them in place to keep gonum's
// contract (eigenvectors in columns).
type Lapack struct {
	lapackgonum.Implementation
}

const (
	// potrfMinN and syevMinN: below these orders gonum's code is as fast.
	potrfMinN = 32
	syevMinN  = 16
	// syevMaxN keeps dsyevd's 1+6n+2n² workspace within a 32-bit Fortran integer.
	syevMaxN = 32000
)

// Dpotrf computes the Cholesky factorization of the symmetric positive definite
// matrix A (A = UᵀU for Upper, A = LLᵀ for Lower) in place, and reports
// whether A was positive definite.
func (impl Lapack) Dpotrf(ul blas.Uplo, n int, a []float64, lda int) (ok bool) {
	lib := native()
	if lib == nil || n < potrfMinN || !validUplo(ul) || lda < max(1, n) || len(a) < (n-1)*lda+n || !cInts(n, lda) {
		return impl.Implementation.Dpotrf(ul, n, a, lda)
	}
	info := lib.potrfColMajor(ul == blas.Lower, n, a, lda)
	if info < 0 {
		panic(fmt.Sprintf("linalg: dpotrf argument %d invalid", -info))
	}
	if info > 0 {
		return false
	}
	// OpenBLAS's dpotrf tests ajj <= 0, which NaN passes; gonum reports NaN
	// as failure. A NaN or Inf anywhere in A reaches the diagonal of the
	// factor (the diagonal entry of its column is a sum of squares), so the
	// diagonal is enough to check.
	for i := 0; i < n; i++ {
		if d := a[i*lda+i]; math.IsNaN(d) || math.IsInf(d, 0) {
			return false
		}
	}
	return true
}

// Dpotrs solves A·X = B with A = UᵀU or LLᵀ from Dpotrf; X overwrites B (n×nrhs).
func (impl Lapack) Dpotrs(ul blas.Uplo, n, nrhs int, a []float64, lda int, b []float64, ldb int) {
	if !validUplo(ul) || n < 0 || nrhs < 0 || lda < max(1, n) || ldb < max(1, nrhs) || n == 0 || nrhs == 0 ||
		len(a) < (n-1)*lda+n || len(b) < (n-1)*ldb+nrhs {
		impl.Implementation.Dpotrs(ul, n, nrhs, a, lda, b, ldb)
		return
	}
	var bi Blas
	if ul == blas.Upper {
		bi.Dtrsm(blas.Left, blas.Upper, blas.Trans, blas.NonUnit, n, nrhs, 1, a, lda, b, ldb)
		bi.Dtrsm(blas.Left, blas.Upper, blas.NoTrans, blas.NonUnit, n, nrhs, 1, a, lda, b, ldb)
		return
	}
	bi.Dtrsm(blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit, n, nrhs, 1, a, lda, b, ldb)
	bi.Dtrsm(blas.Left, blas.Lower, blas.Trans, blas.NonUnit, n, nrhs, 1, a, lda, b, ldb)
}

// Dsyev computes the eigenvalues (ascending, in w) and, for jobz =
// EVCompute, the orthonormal eigenvectors (in the columns of a) of the
// symmetric matrix whose ul triangle is in a, with gonum's contract: lwork ≥
// max(1, 3n−1), or lwork = −1 for a workspace query whose answer is stored in
// work[0]. On OpenBLAS it runs dsyevd. The query answers dsyevd's optimal size
// (1+6n+2n² for vectors) so that callers sizing work from it (mat.EigenSym)
// give dsyevd all it needs; a smaller valid lwork still works (the workspace is
// then allocated internally).
func (impl Lapack) Dsyev(jobz lapack.EVJob, ul blas.Uplo, n int, a []float64, lda int, w, work []float64, lwork int) (ok bool) {
	if n == 0 && lwork == -1 && len(work) > 0 {
		work[0] = 1 // gonum leaves work[0] unset here; 1 is a valid lwork
		return true
	}
	valid := (jobz == lapack.EVNone || jobz == lapack.EVCompute) && validUplo(ul) && n >= 0 && lda >= max(1, n) &&
		(lwork >= max(1, 3*n-1) || lwork == -1) && len(work) >= max(1, lwork)
	lib := native()
	if lib == nil && valid && jobz == lapack.EVCompute && n >= syevMinN && lwork != -1 &&
		len(a) >= (n-1)*lda+n && len(w) >= n {
		// Pure Go: gonum's algorithm with the rotations applied by rows.
		ok = impl.goDsyevVectors(ul, n, a, lda, w, work, lwork)
		impl.Implementation.Dsyev(jobz, ul, n, a, lda, w, work[:1], -1) // work[0] = gonum's optimum, as gonum sets it
		return ok
	}
	if lib == nil || !valid || n < syevMinN || n > syevMaxN || !cInts(lda) {
		return impl.Implementation.Dsyev(jobz, ul, n, a, lda, w, work, lwork)
	}
	vectors := jobz == lapack.EVCompute
	need, _ := lib.syevdWork(vectors, ul == blas.Lower, n)
	if lwork == -1 {
		ok = impl.Implementation.Dsyev(jobz, ul, n, a, lda, w, work, -1)
		work[0] = math.Max(work[0], float64(need))
		return ok
	}
	if len(a) < (n-1)*lda+n || len(w) < n {
		return impl.Implementation.Dsyev(jobz, ul, n, a, lda, w, work, lwork)
	}
	var buf []float64
	if lwork >= need {
		buf = work[:need] // need < 2³¹: the length is passed as a Fortran integer
	} else {
		buf = make([]float64, need)
	}
	info := lib.syevdColMajor(vectors, ul == blas.Lower, n, a, lda, w, buf)
	if info < 0 {
		panic(fmt.Sprintf("linalg: dsyevd argument %d invalid", -info))
	}
	work[0] = float64(need)
	if info > 0 {
		return false
	}
	if vectors {
		transposeSquare(n, a, lda)
	}
	return true
}

// transposeSquare transposes the n×n matrix in a (stride lda) in place, by
// tiles to stay in cache.
func transposeSquare(n int, a []float64, lda int) {
	const tb = 32
	for i0 := 0; i0 < n; i0 += tb {
		for j0 := i0; j0 < n; j0 += tb {
			for i := i0; i < min(i0+tb, n); i++ {
				js := j0
				if j0 == i0 {
					js = i + 1
				}
				for j := js; j < min(j0+tb, n); j++ {
					a[i*lda+j], a[j*lda+i] = a[j*lda+i], a[i*lda+j]
				}
			}
		}
	}
}
