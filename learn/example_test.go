package learn_test

import (
	"fmt"
	"math"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/rule"
)

// data returns n points on a line in [−1, 1] and targets y = sin(3x) + 2.
func data(n int) (X, Y []float64) {
	X = make([]float64, n)
	Y = make([]float64, n)
	for i := range n {
		X[i] = -1 + 2*float64(i)/float64(n-1)
		Y[i] = math.Sin(3*X[i]) + 2
	}
	return X, Y
}

// ExampleRidge_Solve streams data through a Gaussian random-feature map into sufficient statistics and solves
// ridge regression with an intercept.
func ExampleRidge_Solve() {
	X, Y := data(500)
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 100, 1) // 100 points → 200 columns
	if err != nil {
		panic(err)
	}
	s, err := learn.Accumulate(m, X, 500, Y, 1)
	if err != nil {
		panic(err)
	}
	fit, err := learn.Ridge{Lambda: 1e-6, Intercept: true}.Solve(s)
	if err != nil {
		panic(err)
	}
	pred := make([]float64, 1)
	if err := fit.PredictMap(pred, m, []float64{0.3}, 1); err != nil {
		panic(err)
	}
	fmt.Println(fit.Stats.Method, "features:", fit.F)
	fmt.Printf("f(0.3) = %.2f (true %.2f)\n", pred[0], math.Sin(0.9)+2)
	// Output:
	// cholesky features: 200
	// f(0.3) = 2.78 (true 2.78)
}

// ExampleCrossValidate picks λ by 5-fold cross-validation; the whole grid costs one eigendecomposition per fold.
func ExampleCrossValidate() {
	X, Y := data(400)
	for i := range Y {
		Y[i] += 0.3 * math.Sin(1e3*float64(i)) // deterministic "noise"
	}
	m, err := feature.New(kernel.Gaussian{S: 0.3}, rule.G{}, 1, 60, 2)
	if err != nil {
		panic(err)
	}
	grid := learn.LogGrid(1e-8, 1e2, 11)
	cv, err := learn.CrossValidate(m, X, 400, Y, 1, 5, grid, true)
	if err != nil {
		panic(err)
	}
	fmt.Println("grid points:", len(cv.MSE))
	fmt.Println("optimum inside the grid:", cv.BestIndex > 0 && cv.BestIndex < len(grid)-1)
	fmt.Println("held-out MSE near the noise level 0.045:", math.Abs(cv.MSE[cv.BestIndex]-0.045) < 0.01)
	// Output:
	// grid points: 11
	// optimum inside the grid: true
	// held-out MSE near the noise level 0.045: true
}

// ExampleSimplexCode shows the 4-class simplex code: 4 unit vectors in R³ at pairwise inner product −1/3.
func ExampleSimplexCode() {
	C := learn.SimplexCode(4) // 3×4, row-major; column j codes class j
	for r := range 3 {
		for j := range 4 {
			fmt.Printf("%8.4f", C[r*4+j])
		}
		fmt.Println()
	}
	Y := learn.SimplexEncode([]int{2, 0, 3}, 4)
	fmt.Println(learn.SimplexDecode(Y, 3, 4))
	// Output:
	//   1.0000 -0.3333 -0.3333 -0.3333
	//   0.0000  0.9428 -0.4714 -0.4714
	//   0.0000  0.0000  0.8165 -0.8165
	// [2 0 3]
}

// ExampleKRR_Fit fits exact kernel ridge regression, the baseline random features converge to.
func ExampleKRR_Fit() {
	X, Y := data(200)
	k := kernel.Gaussian{S: 0.5}
	fit, err := learn.KRR{Kernel: k, Lambda: 1e-6, Intercept: true}.Fit(X, 200, 1, Y, 1)
	if err != nil {
		panic(err)
	}
	pred := make([]float64, 2)
	fit.Predict(pred, []float64{-0.5, 0.3}, 2)
	fmt.Printf("f(−0.5) = %.3f (true %.3f)\n", pred[0], math.Sin(-1.5)+2)
	fmt.Printf("f(0.3) = %.3f (true %.3f)\n", pred[1], math.Sin(0.9)+2)
	// Output:
	// f(−0.5) = 1.003 (true 1.003)
	// f(0.3) = 2.783 (true 2.783)
}
