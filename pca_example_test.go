package rff_test

import (
	"fmt"
	"math"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
)

// Inputs that vary along a plane of a 4-dimensional space: a PCA step keeps the two coordinates that matter, the
// map sees 2 inputs while the model reads the 4 raw columns, and gradients come back in those columns.
func ExampleConfig_pca() {
	data := &dataset.Data{D: 4, Names: []string{"a", "b", "a+b", "a-b"}, TargetName: "y"}
	for i := range 500 {
		a, b := math.Sin(float64(7*i)), math.Cos(float64(5*i))
		data.X = append(data.X, a, b, a+b, a-b)
		data.Y = append(data.Y, math.Sin(2*a)+b)
		data.N++
	}
	m, err := rff.Fit(rff.Config{Preprocess: "standardize,pca:2", Points: 256, Sigma: 1, Lambda: 1e-8, Seed: 1}, data)
	if err != nil {
		fmt.Println(err)
		return
	}
	in := m.Info()
	fmt.Println(in.Inputs, in.Preprocess)
	// f = sin 2a + b along the plane: at a = 0.1, b = 0.3 the derivative along a is 2 cos 0.2 ≈ 1.96, spread over
	// the columns that contain a.
	x := []float64{0.1, 0.3, 0.4, -0.2}
	p, _ := m.PredictRows(x, 1)
	g, _ := m.Gradients(x, 1)
	fmt.Printf("f = %.2f (sin 0.2 + 0.3 = %.2f), ∂f/∂a + ∂f/∂(a+b) + ∂f/∂(a−b) = %.2f\n", p.Values[0], math.Sin(0.2)+0.3, g[0]+g[2]+g[3])
	// Output:
	// [a b a+b a-b] [standardize pca:2]
	// f = 0.50 (sin 0.2 + 0.3 = 0.50), ∂f/∂a + ∂f/∂(a+b) + ∂f/∂(a−b) = 1.96
}
