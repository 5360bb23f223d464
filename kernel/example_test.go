package kernel_test

import (
	"fmt"

	"github.com/rffkit/rff/kernel"
)

func ExampleNew() {
	k, _ := kernel.New("gaussian", kernel.SigmaFromGamma(0.5)) // exp(−0.5‖δ‖²)
	fmt.Printf("%.6f\n", k.Eval([]float64{0, 0}, []float64{1, 1}))
	// Output: 0.367879
}

func ExampleGram() {
	X := []float64{0, 0, 1, 0, 0, 2} // three points in R²
	K := make([]float64, 9)
	_ = kernel.Gram(K, kernel.ArcCos{Order: 0}, X, 3, X, 3, 2)
	fmt.Println(K)
	// Output: [0.5 0.5 0.5 0.5 1 0.5 0.5 0.5 1]
}

func ExampleNewCentres() {
	// Landmarks fixed once, kernel matrices against them for block after block of rows (Nyström features).
	landmarks := []float64{0, 0, 1, 1} // two points in R²
	c, _ := kernel.NewCentres(kernel.Gaussian{S: 1}, landmarks, 2, 2)
	for _, block := range [][]float64{{0, 0}, {1, 0, 2, 2}} {
		K := make([]float64, len(block)/2*c.Points())
		_ = c.Gram(K, block, len(block)/2)
		fmt.Printf("%.4f\n", K)
	}
	// Output:
	// [1.0000 0.3679]
	// [0.6065 0.6065 0.0183 0.3679]
}

func ExampleCentres_Gram() {
	// Pixels divided by 255 lie on a grid: their kernel matrices take the exact single-precision path on OpenBLAS
	// (docs/conventions.md §13.4); the values are those of the pairwise formula either way.
	centres := []float64{0, 0, 0, 255.0 / 255, 128.0 / 255, 1.0 / 255}
	c, _ := kernel.NewCentres(kernel.Gaussian{S: 0.5}, centres, 2, 3)
	K := make([]float64, 2)
	_ = c.Gram(K, []float64{0, 0, 1.0 / 255}, 1)
	fmt.Printf("%.6f %.6f\n", K[0], K[1])
	// Output: 0.999969 0.081763
}
