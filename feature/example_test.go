package feature_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// ExampleNew approximates a Gaussian kernel with the SR(3,3) quadrature rule with butterfly rotations:
// D = 2n(d+1) points for n = 2 give 2D cos/sin columns, plus the zero-node offset.
func ExampleNew() {
	d := 4
	k := kernel.Gaussian{S: 1.5}
	m, err := feature.New(k, rule.SR{Rotation: rule.Butterfly}, d, 2*2*(d+1), 1)
	if err != nil {
		panic(err)
	}
	X := mat.NewDense(2, d, []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.1, -0.2, 0.3})
	var Z mat.Dense
	if err := m.Transform(&Z, X); err != nil {
		panic(err)
	}
	approx, err := m.Estimate(Z.RawRowView(0), Z.RawRowView(1))
	if err != nil {
		panic(err)
	}
	exact := k.Eval(X.RawRowView(0), X.RawRowView(1))
	fmt.Println(m.Points(), "points,", m.Features(), "columns")
	fmt.Printf("|k̂ − k| < 0.01: %v\n", abs(approx-exact) < 0.01)
	// Output:
	// 20 points, 40 columns
	// |k̂ − k| < 0.01: true
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// ExampleMap_ProjectBlock splits TransformBlock in two: the projections (Points() values per row, half the
// columns of a cos/sin map) are a compact form of the features, from which ActivateBlock gives back their bits.
func ExampleMap_ProjectBlock() {
	m, err := feature.New(kernel.Gaussian{S: 1}, rule.G{}, 3, 8, 1)
	if err != nil {
		panic(err)
	}
	x := []float64{0.1, 0.2, 0.3, -0.4, 0.5, 0.6}
	z := make([]float64, 2*m.Features())
	m.TransformBlock(z, x, 2, nil)
	proj := make([]float64, 2*m.Points())
	m.ProjectBlock(proj, x, 2)
	again := make([]float64, 2*m.Features())
	m.ActivateBlock(again, proj, 2)
	same := true
	for i := range z {
		same = same && z[i] == again[i]
	}
	fmt.Println(len(proj), "projections,", len(z), "features, same bits:", same)
	// Output: 16 projections, 32 features, same bits: true
}
