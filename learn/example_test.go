package learn_test

import (
	"fmt"
	"math"
	"math/rand/v2"

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

// ExampleRidge_SolveInPlace solves in the memory of the statistics, which a one-shot fit no longer needs; at large F
// this saves an F×F copy. The statistics cannot be used afterwards.
func ExampleRidge_SolveInPlace() {
	X, Y := data(500)
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 100, 1)
	if err != nil {
		panic(err)
	}
	s, err := learn.Accumulate(m, X, 500, Y, 1)
	if err != nil {
		panic(err)
	}
	fit, err := learn.Ridge{Lambda: 1e-6, Intercept: true}.SolveInPlace(s)
	if err != nil {
		panic(err)
	}
	_, again := learn.Ridge{Lambda: 1e-3}.Solve(s)
	fmt.Printf("residual below 1e-8: %v; solving again: %v\n", fit.Stats.Residual < 1e-8, again)
	// Output:
	// residual below 1e-8: true; solving again: learn.Ridge.Solve: the statistics were consumed by Ridge.SolveInPlace
}

// ExampleAccumulator builds ridge statistics from data that arrives in batches (here three slices of one data set;
// in practice chunks of a file), then solves. Only a few chunks of features are in memory at any time.
func ExampleAccumulator() {
	X, Y := data(600)
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 100, 1)
	if err != nil {
		panic(err)
	}
	acc, err := learn.NewAccumulator(m, 1)
	if err != nil {
		panic(err)
	}
	for _, b := range [][2]int{{0, 200}, {200, 450}, {450, 600}} {
		if err := acc.Add(X[b[0]:b[1]], b[1]-b[0], Y[b[0]:b[1]]); err != nil {
			panic(err)
		}
	}
	s, err := acc.Stats()
	if err != nil {
		panic(err)
	}
	fit, err := learn.Ridge{Lambda: 1e-6, Intercept: true}.SolveInPlace(s)
	if err != nil {
		panic(err)
	}
	pred := make([]float64, 1)
	if err := fit.PredictMap(pred, m, []float64{0.3}, 1); err != nil {
		panic(err)
	}
	fmt.Printf("rows %d, f(0.3) = %.2f (true %.2f)\n", s.N, pred[0], math.Sin(0.9)+2)
	// Output:
	// rows 600, f(0.3) = 2.78 (true 2.78)
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

// ExampleKRR_SelectLambda scores a λ grid for exact kernel ridge regression on noisy data from one
// eigendecomposition of the 200×200 kernel matrix; the evidence's noise variance is close to the 0.01 of the data.
func ExampleKRR_SelectLambda() {
	X, Y := data(200)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range Y {
		Y[i] += 0.1 * rng.NormFloat64()
	}
	k := learn.KRR{Kernel: kernel.Gaussian{S: 0.5}, Intercept: true}
	sel, err := k.SelectLambda(X, 200, 1, Y, 1, learn.LogGrid(1e-9, 1e-1, 9))
	if err != nil {
		panic(err)
	}
	fmt.Printf("λ by GCV %g, by evidence %g (σ² = %.3f)\n", sel.BestGCV, sel.BestEvidence,
		sel.EvidenceNoiseVar[sel.BestEvidenceIndex][0])
	// Output: λ by GCV 0.0001, by evidence 0.0001 (σ² = 0.011)
}

// ExampleClassifier_FitMap trains a linear SVM (hinge loss, dual coordinate descent) on Gaussian random features
// to separate the points inside the unit interval [−0.5, 0.5] from those outside, which no linear classifier on x
// can do.
func ExampleClassifier_FitMap() {
	n := 400
	X := make([]float64, n)
	labels := make([]int, n)
	for i := range n {
		X[i] = -1 + 2*float64(i)/float64(n-1)
		if math.Abs(X[i]) < 0.5 {
			labels[i] = 1
		}
	}
	m, err := feature.New(kernel.Gaussian{S: 0.3}, rule.G{}, 1, 50, 1)
	if err != nil {
		panic(err)
	}
	fit, err := learn.Classifier{Loss: learn.Hinge, Lambda: 1e-5}.FitMap(m, X, n, labels, 2)
	if err != nil {
		panic(err)
	}
	scores := make([]float64, 3*2)
	if err := fit.PredictMap(scores, m, []float64{-0.9, 0, 0.9}, 3); err != nil {
		panic(err)
	}
	fmt.Println(learn.Argmax(scores, 3, 2))
	// Output: [0 1 0]
}

// ExampleParseLoss lists the losses a classifier can be trained with.
func ExampleParseLoss() {
	for _, s := range []string{"squared", "hinge", "squared-hinge", "logistic"} {
		l, _ := learn.ParseLoss(s)
		fmt.Println(int(l), l)
	}
	// Output:
	// 0 squared
	// 1 hinge
	// 2 squared-hinge
	// 3 logistic
}

// ExampleFeatures materialises the feature matrix of a few rows (the iterative classifiers need it in memory).
func ExampleFeatures() {
	m, err := feature.New(kernel.Gaussian{S: 1}, rule.G{}, 2, 8, 1) // 8 points → 16 columns
	if err != nil {
		panic(err)
	}
	Z, err := learn.Features(m, []float64{0, 0, 1, 1, 2, 2}, 3, 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(Z), "values: 3 rows ×", m.Features(), "columns")
	// Output: 48 values: 3 rows × 16 columns
}

// ExampleHermite fits f(x) = sin(3x) on [−1, 1] from 8 values and the 8 derivatives at the same points, and
// predicts a value and a derivative in between.
func ExampleHermite() {
	X := make([]float64, 8)
	vals := make([]float64, 8)
	grads := make([]float64, 8)
	for i := range X {
		X[i] = -1 + 2*float64(i)/7
		vals[i], grads[i] = math.Sin(3*X[i]), 3*math.Cos(3*X[i])
	}
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 200, 1)
	if err != nil {
		panic(err)
	}
	fit, err := learn.Hermite{Lambda: 1e-8, Intercept: true}.Fit(m, X, 8, vals, grads)
	if err != nil {
		panic(err)
	}
	v, g := make([]float64, 1), make([]float64, 1)
	fit.PredictMap(v, m, []float64{0.1}, 1)
	fit.PredictGradients(g, m, []float64{0.1}, 1)
	fmt.Printf("f(0.1) ≈ %.2f (exact %.2f), f'(0.1) ≈ %.1f (exact %.1f)\n", v[0], math.Sin(0.3), g[0], 3*math.Cos(0.3))
	// Output: f(0.1) ≈ 0.30 (exact 0.30), f'(0.1) ≈ 2.9 (exact 2.9)
}

// ExampleHermite_SelectLambda scores a λ grid for noisy values and derivatives of sin(3x) by generalised
// cross-validation and by the evidence of the stacked rows, from one pass and one eigendecomposition; the evidence's
// noise variance is close to the 0.01 of the data.
func ExampleHermite_SelectLambda() {
	const n = 40
	rng := rand.New(rand.NewPCG(1, 2))
	X, vals, grads := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range X {
		X[i] = -1 + 2*float64(i)/(n-1)
		vals[i] = math.Sin(3*X[i]) + 0.1*rng.NormFloat64()
		grads[i] = 3*math.Cos(3*X[i]) + 0.1*rng.NormFloat64()
	}
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 100, 1)
	if err != nil {
		panic(err)
	}
	sel, err := learn.Hermite{Intercept: true}.SelectLambda(m, X, n, vals, grads, learn.LogGrid(1e-8, 1, 9))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d observations; λ by GCV %g, by evidence %g (σ² = %.3f)\n", sel.N, sel.BestGCV, sel.BestEvidence,
		sel.EvidenceNoiseVar[sel.BestEvidenceIndex][0])
	// Output: 80 observations; λ by GCV 0.0001, by evidence 0.0001 (σ² = 0.009)
}

// ExampleRidge_FitMap fits in mixed precision: ZᵀZ in float32 (twice as fast on AVX2 with OpenBLAS), the solution
// refined against the float64 features to the accuracy of a double-precision solve. Auto chooses this only where its
// cost model predicts a saving (never below MixedMinFeatures features); Mixed forces it.
func ExampleRidge_FitMap() {
	X, Y := data(500)
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 100, 1)
	if err != nil {
		panic(err)
	}
	fit, err := learn.Ridge{Lambda: 1e-4, Intercept: true, Precision: learn.Mixed}.FitMap(m, X, 500, Y, 1)
	if err != nil {
		panic(err)
	}
	pred := make([]float64, 1)
	if err := fit.PredictMap(pred, m, []float64{0.3}, 1); err != nil {
		panic(err)
	}
	fmt.Println(fit.Stats.Method, "refined:", fit.Stats.Iterations > 0, "residual < 1e-10:", fit.Stats.Residual < 1e-10)
	fmt.Printf("f(0.3) = %.2f (true %.2f)\n", pred[0], math.Sin(0.9)+2)
	// Output:
	// mixed refined: true residual < 1e-10: true
	// f(0.3) = 2.78 (true 2.78)
}

// ExampleParsePrecision reads the precision of a command-line flag.
func ExampleParsePrecision() {
	p, err := learn.ParsePrecision("auto")
	fmt.Println(p, err)
	_, err = learn.ParsePrecision("single")
	fmt.Println(err)
	// Output:
	// auto <nil>
	// unknown precision "single" (double, mixed or auto)
}
