package approx_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// ExampleStudy_Run runs a small study: for each rule and n it draws Runs independent maps of D = 2n(d+1) points
// and compares their Gram matrix between the two sets of rows with the exact one. Results come in the order of
// Rules, then Ns; Progress counts the finished runs.
func ExampleStudy_Run() {
	const n, d = 60, 3
	rng := rand.New(rand.NewPCG(5, 6))
	X := make([]float64, 2*n*d)
	for i := range X {
		X[i] = rng.NormFloat64()
	}
	runs := 0
	st := approx.Study{
		Kernel:   kernel.Gaussian{S: 2},
		Rules:    []rule.Rule{rule.ORF{}, rule.SR{Rotation: rule.Butterfly}},
		Ns:       []int{1, 4},
		Runs:     5,
		Seed:     1,
		Progress: func() { runs++ },
	}
	res, err := st.Run(context.Background(), X[:n*d], n, X[n*d:], n, d)
	if err != nil {
		panic(err)
	}
	for _, r := range res {
		fmt.Printf("%-12s n = %d: D = %2d points, %d columns, %d runs, mean relative error %.2g\n",
			r.Rule, r.N, r.D, r.Columns, r.Runs, r.Mean)
	}
	fmt.Println("runs finished:", runs)
	fmt.Println("more points, smaller error:", res[1].Mean < res[0].Mean, res[3].Mean < res[2].Mean)
	// Output:
	// orf          n = 1: D =  8 points, 16 columns, 5 runs, mean relative error 0.18
	// orf          n = 4: D = 32 points, 64 columns, 5 runs, mean relative error 0.091
	// sr-butterfly n = 1: D =  8 points, 16 columns, 5 runs, mean relative error 0.19
	// sr-butterfly n = 4: D = 32 points, 64 columns, 5 runs, mean relative error 0.097
	// runs finished: 20
	// more points, smaller error: true true
}
