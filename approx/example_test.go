package approx_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// ExampleStudy compares iid random features with the SR(3,3) quadrature rule on the same number of points.
func ExampleStudy() {
	const n, d = 200, 4
	rng := rand.New(rand.NewPCG(1, 2))
	X := make([]float64, n*d)
	for i := range X {
		X[i] = rng.Float64()
	}
	st := approx.Study{
		Kernel: kernel.Gaussian{S: kernel.SigmaFromGamma(1.0 / d)},
		Rules:  []rule.Rule{rule.G{}, rule.SR{Rotation: rule.Butterfly}},
		Ns:     []int{2},
		Runs:   20,
		Seed:   1,
	}
	res, err := st.Run(context.Background(), X[:100*d], 100, X[100*d:], 100, d)
	if err != nil {
		panic(err)
	}
	fmt.Printf("D = %d points each; quadrature error < Monte Carlo error / 3: %v\n", res[0].D, res[1].Mean < res[0].Mean/3)
	// Output: D = 20 points each; quadrature error < Monte Carlo error / 3: true
}
