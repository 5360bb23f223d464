package dataset_test

import (
	"fmt"
	"log"

	"github.com/rffkit/rff/dataset"
)

// A PCA step after standardization: points spread along the diagonal of the plane keep one coordinate, their
// position along it, (x' + y')/√2 in the standardized coordinates. The two standardized columns have correlation
// r ≈ 0.9967, so the covariance has eigenvalues 1 ± r and the kept one explains (1 + r)/2 of the variance.
func ExampleStep_PCA() {
	x := []float64{ // four points near the line y = x
		0, 0.1,
		1, 0.9,
		2, 2.1,
		3, 2.9,
	}
	steps, err := dataset.ParseSteps("standardize,pca:1")
	if err != nil {
		log.Fatal(err)
	}
	s, err := dataset.FitScaler(x, 4, 2, steps)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("PCA step:", steps[1].PCA(), "columns out:", s.OutDim())
	fmt.Printf("variance kept: %.4f\n", s.ExplainedVariance())
	s.Apply(x, 4, 2)
	fmt.Printf("projected: %.3f\n", x[:4])
	// Output:
	// PCA step: true columns out: 1
	// variance kept: 0.9983
	// projected: [-1.868 -0.710 0.710 1.868]
}

// Transform returns the preprocessed rows as a new slice and leaves its input as it was: with a PCA step the rows
// are scaled and projected block by block, without a copy of the whole input.
func ExampleScaler_Transform() {
	x := []float64{ // four points near the line y = x
		0, 0.1,
		1, 0.9,
		2, 2.1,
		3, 2.9,
	}
	steps, err := dataset.ParseSteps("standardize,pca:1")
	if err != nil {
		log.Fatal(err)
	}
	s, err := dataset.FitScaler(x, 4, 2, steps)
	if err != nil {
		log.Fatal(err)
	}
	z := s.Transform(x, 4, 2)
	fmt.Printf("projected: %.3f\n", z)
	fmt.Println("input kept:", x[2:4])
	// Output:
	// projected: [-1.868 -0.710 0.710 1.868]
	// input kept: [1 0.9]
}
