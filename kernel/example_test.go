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
