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

func ExampleGramSerial() {
	// Kernel values of a block of rows against landmarks, on this goroutine (other blocks run on other cores).
	X := []float64{0, 0, 1, 0} // two rows in R²
	L := []float64{0, 0, 0, 1} // two landmarks
	K := make([]float64, 4)
	if err := kernel.GramSerial(K, kernel.Gaussian{S: 1}, X, 2, L, 2, 2); err != nil {
		panic(err)
	}
	fmt.Printf("%.4f\n", K)
	// Output: [1.0000 0.6065 0.6065 0.3679]
}
