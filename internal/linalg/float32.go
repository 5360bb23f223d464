package linalg

import "gonum.org/v1/gonum/blas"

// Syrk32 is Syrk in single precision: it computes the upper triangle of
// C = alpha·AᵀA + beta·C, where A is k×n (row-major, lda ≥ n) and C is n×n;
// the strictly lower triangle of C is not touched. On the OpenBLAS backend it
// runs ssyrk, whose AVX2 kernels do twice the flops per cycle of dsyrk
// (docs/performance.md); in pure Go it runs gonum's unblocked Ssyrk, which is slow (see
// FastFloat32). With beta = 0, C need not be initialized. Like gonum, it
// panics on bad dimensions or short slices.
//
// It is the single-precision half of the mixed-precision ridge solver in
// package learn, which refines the solution against the double-precision
// features, so that no result of the library is only single-precision
// accurate.
func Syrk32(n, k int, alpha float32, a []float32, lda int, beta float32, c []float32, ldc int) {
	ok := syrkOK(blas.Upper, blas.Trans, n, k, a, lda, nil, 0, false, c, ldc)
	if lib := native(); ok && lib != nil && alpha != 0 && n*n*k/2 >= nativeMinWork && cInts(n, k, lda, ldc) {
		lib.syrk32(true, true, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	if ok && beta == 0 {
		// gonum's Ssyrk scales C by beta, which keeps a NaN of an
		// uninitialized C; beta = 0 must overwrite.
		for i := range n {
			clear(c[i*ldc+i : i*ldc+n])
		}
		beta = 1
	}
	if ok && alpha == 0 && beta == 1 {
		return
	}
	goBlas.Ssyrk(blas.Upper, blas.Trans, n, k, alpha, a, lda, beta, c, ldc) // panics with gonum's message if !ok
}

// Gemm32 is Gemm in single precision: C = alpha·op(A)·op(B) + beta·C, row-major, op(X) = Xᵀ when the flag is set.
// On the OpenBLAS backend it runs sgemm, at about twice the rate of dgemm; in pure Go gonum's Sgemm, which is slow
// (see FastFloat32). Its one user computes products that are exact in single precision (integers whose partial sums
// stay below 2²⁴; kernel.Gram), so no result of the library is only single-precision accurate. With beta = 0, C need
// not be initialized. Like gonum, it panics on bad dimensions or short slices.
func Gemm32(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	ta, tb := trans(tA), trans(tB)
	if lib := native(); lib != nil && alpha != 0 && m*n*k >= nativeMinWork && gemmOK(ta, tb, m, n, k, a, lda, b, ldb, c, ldc) && cInts(m, n, k, lda, ldb, ldc) {
		lib.gemm32(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	goBlas.Sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// FastFloat32 reports whether Syrk32 and Gemm32 run a SIMD kernel at about twice the
// rate of Syrk, which is what makes single-precision Gram matrices worth
// computing: true on the OpenBLAS backend. The pure-Go backend has a packed
// kernel for float64 only; there gonum's Ssyrk runs at a few GFLOP/s.
func FastFloat32() bool { return native() != nil }

// GramVectorBits is the vector width, in bits, of the kernels that form float64 Gram matrices and products on the
// active backend: 512 for OpenBLAS's AVX-512 core types (SkylakeX, Cooperlake, SapphireRapids), 256 for its AVX2
// ones (Haswell, Zen, …) and for the pure-Go packed AVX2+FMA kernel, 128 otherwise. Cost models scale the
// kernel's rate with it: OpenBLAS runs the AVX-512 kernels at nearly twice the rate of the AVX2 ones on the same
// core (docs/performance.md).
func GramVectorBits() int {
	if lib := native(); lib != nil {
		switch coreNeeds(Info().CoreType) {
		case 3:
			return 512
		case 2:
			return 256
		}
		return 128
	}
	if useKernel {
		return 256
	}
	return 128
}
