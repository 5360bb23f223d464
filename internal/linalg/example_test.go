package linalg_test

import (
	"fmt"

	"github.com/rffkit/rff/internal/linalg"
)

func ExampleInfo() {
	// Prints e.g. "openblas 0.3.21 (SkylakeX, 2 threads)" or "pure Go (gonum)".
	info := linalg.Info()
	fmt.Println(info)
	if info.Err != nil {
		fmt.Println("the requested backend failed:", info.Err)
	}
}

func ExampleGemm() {
	// C = A·Bᵀ with A 2×3 and B 2×3, row-major.
	a := []float64{1, 2, 3, 4, 5, 6}
	b := []float64{1, 0, 1, 0, 1, 0}
	c := make([]float64, 4)
	linalg.Gemm(false, true, 2, 2, 3, 1, a, 3, b, 3, 0, c, 2)
	fmt.Println(c)
	// Output: [4 2 10 5]
}

func ExampleSyrk() {
	// Accumulate the Gram matrix ZᵀZ (upper triangle) of two blocks of rows.
	z1 := []float64{1, 2, 3, 4} // 2 rows × 2 features
	z2 := []float64{1, 1}       // 1 row
	g := make([]float64, 4)
	linalg.Syrk(2, 2, 1, z1, 2, 1, g, 2)
	linalg.Syrk(2, 1, 1, z2, 2, 1, g, 2)
	fmt.Println(g[0], g[1], g[3]) // the lower entry g[2] is not touched
	// Output: 11 15 21
}

func ExampleSyrkBlocked() {
	z := []float64{1, 2, 3, 4, 5, 6} // 3 rows × 2 features
	g := make([]float64, 4)
	linalg.SyrkBlocked(2, 3, 1, z, 2, 0, g, 2)
	fmt.Println(g[0], g[1], g[3])
	// Output: 35 44 56
}

func ExampleCholesky() {
	// Solve A·x = b for A = [4 2; 2 3] through A = UᵀU.
	a := []float64{4, 2, 2, 3}
	if err := linalg.Cholesky(2, a, 2); err != nil {
		fmt.Println(err)
		return
	}
	b := []float64{8, 7}
	if err := linalg.SolveCholesky(2, 1, a, 2, b, 1); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("U = [%.4f %.4f; 0 %.4f], x = [%.4f %.4f]\n", a[0], a[1], a[3], b[0], b[1])

	notPD := []float64{1, 2, 2, 1}
	fmt.Println(linalg.Cholesky(2, notPD, 2))
	// Output:
	// U = [2.0000 1.0000; 0 1.4142], x = [1.2500 1.5000]
	// linalg.Cholesky: linalg: matrix is not positive definite
}

func ExampleEigenSym() {
	a := []float64{
		2, 1, 0,
		1, 2, 0,
		0, 0, 5,
	}
	values, vectors, err := linalg.EigenSym(3, a)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.6f\n", values)
	// The eigenvector of 5 is ±e₃ (column 2 of vectors).
	fmt.Printf("%.6f\n", []float64{abs(vectors[2]), abs(vectors[5]), abs(vectors[8])})
	// Output:
	// [1.000000 3.000000 5.000000]
	// [0.000000 0.000000 1.000000]
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func ExampleGramVectorBits() {
	// 512 where OpenBLAS runs its AVX-512 kernels, 256 for AVX2 kernels (OpenBLAS's or the pure-Go packed one).
	switch bits := linalg.GramVectorBits(); bits {
	case 128, 256, 512:
		fmt.Println("a known width")
	default:
		fmt.Println("unexpected width", bits)
	}
	// Output: a known width
}
