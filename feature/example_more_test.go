package feature_test

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// ExampleMap_Transform maps the rows of a gonum matrix into a feature matrix it allocates; the Gram matrix ZZᵀ of
// the features, plus the offset, approximates the kernel's.
func ExampleMap_Transform() {
	k := kernel.Gaussian{S: 1}
	m, err := feature.New(k, rule.ORF{}, 2, 2000, 7)
	if err != nil {
		panic(err)
	}
	X := mat.NewDense(3, 2, []float64{
		0.0, 0.0,
		0.5, -0.5,
		1.0, 0.5,
	})
	var Z mat.Dense // empty: Transform allocates it
	if err := m.Transform(&Z, X); err != nil {
		panic(err)
	}
	r, c := Z.Dims()
	var G mat.Dense
	G.Mul(&Z, Z.T())
	var worst float64
	for i := range r {
		for j := range r {
			worst = max(worst, math.Abs(G.At(i, j)+m.Offset()-k.Eval(X.RawRowView(i), X.RawRowView(j))))
		}
	}
	fmt.Printf("Z is %d×%d; max |k̂ − k| < 0.05: %v\n", r, c, worst < 0.05)

	// A destination of the wrong shape is an error, not a panic.
	fmt.Println(m.Transform(mat.NewDense(3, 5, nil), X) != nil)
	// Output:
	// Z is 3×4000; max |k̂ − k| < 0.05: true
	// true
}

// ExampleMap_TransformBlock maps a block of rows on the calling goroutine, as a worker that has already split the
// data does; reusing one scratch buffer of rows×Points() projections across blocks avoids an allocation per block,
// and the features are those TransformRows computes.
func ExampleMap_TransformBlock() {
	const d, rows = 3, 2
	m, err := feature.New(kernel.Gaussian{S: 0.8}, rule.SR{Rotation: rule.Butterfly}, d, 16, 1)
	if err != nil {
		panic(err)
	}
	X := []float64{ // four rows, mapped in two blocks of two
		0.1, 0.2, 0.3,
		-0.4, 0.5, 0.6,
		0.7, -0.8, 0.9,
		0.0, 0.1, -0.2,
	}
	F := m.Features()
	Z := make([]float64, 4*F)
	proj := make([]float64, rows*m.Points()) // scratch, reused
	for b := 0; b < 4; b += rows {
		m.TransformBlock(Z[b*F:(b+rows)*F], X[b*d:(b+rows)*d], rows, proj)
	}
	all := make([]float64, 4*F)
	if err := m.TransformRows(all, X, 4); err != nil {
		panic(err)
	}
	var worst float64
	for i := range Z {
		worst = max(worst, math.Abs(Z[i]-all[i]))
	}
	fmt.Println(m.Points(), "points,", F, "features per row; as TransformRows to 1e-12:", worst < 1e-12)
	// Output: 16 points, 32 features per row; as TransformRows to 1e-12: true
}
