// Package avx2 holds the AVX2+FMA3 assembly micro-kernel of linalg's packed
// matrix products (internal/linalg/pack.go); internal/cpu says whether it may
// run (Available). It is a package of its own because linalg uses cgo, and a
// cgo package cannot contain Go assembly.
//
// The kernel is a 4×12 register-blocked update C += A·B of one tile of C from
// packed panels, the inner loop of the GotoBLAS/BLIS scheme (K. Goto
// and R. van de Geijn, "Anatomy of high-performance matrix multiplication",
// ACM TOMS 34(3), 2008; F. Van Zee and R. van de Geijn, "BLIS: a framework for
// rapidly instantiating BLAS functionality", ACM TOMS 41(3), 2015): twelve YMM
// accumulators hold the tile, and each step of the k loop loads 12 values of
// B in three registers, broadcasts the 4 values of A one at a time and issues
// 12 VFMADD231PD.
package avx2

// Tile shape of Kern4x12.
const (
	MR = 4  // rows of C per tile: values of A per step
	NR = 12 // columns of C per tile: values of B per step
)
