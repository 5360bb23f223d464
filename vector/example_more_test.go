package vector_test

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/vector"
)

// ExampleDecoupling_Rotate rotates the targets of a two-output problem onto the eigenvectors of the output matrix A,
// where they become independent scalar problems. The rotation is orthogonal, so each row keeps its norm and the
// squared errors of the rotated problems are those of the original one; with a diagonal A the targets are copied
// as they are.
func ExampleDecoupling_Rotate() {
	Y := []float64{ // three rows of two outputs
		1, 1,
		1, -1,
		3, 4,
	}
	A := mat.NewSymDense(2, []float64{2, 1, 1, 2}) // eigenvectors (1, −1)/√2 and (1, 1)/√2
	dc, err := vector.Decouple(A)
	if err != nil {
		panic(err)
	}
	Yr, err := dc.Rotate(Y, 3)
	if err != nil {
		panic(err)
	}
	for i := range 3 {
		fmt.Printf("row %d: |rotated| = (%.4f, %.4f), norm %.4f → %.4f\n", i+1,
			math.Abs(Yr[2*i]), math.Abs(Yr[2*i+1]), math.Hypot(Y[2*i], Y[2*i+1]), math.Hypot(Yr[2*i], Yr[2*i+1]))
	}

	diag, err := vector.Decouple(mat.NewSymDense(2, []float64{1, 0, 0, 4}))
	if err != nil {
		panic(err)
	}
	same, _ := diag.Rotate(Y, 3)
	fmt.Println("diagonal A:", same, "λ scales", diag.Scale)

	_, err = dc.Rotate(Y, 2) // 6 values are not 2 rows of 2 outputs
	fmt.Println(err)
	// Output:
	// row 1: |rotated| = (0.0000, 1.4142), norm 1.4142 → 1.4142
	// row 2: |rotated| = (1.4142, 0.0000), norm 1.4142 → 1.4142
	// row 3: |rotated| = (0.7071, 4.9497), norm 5.0000 → 5.0000
	// diagonal A: [1 1 1 -1 3 4] λ scales [1 0.25]
	// vector.Decoupling.Rotate: 6 values for 2 rows of 2 outputs
}
