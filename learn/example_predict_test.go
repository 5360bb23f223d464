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

// ExampleFit_Predict predicts from features already computed (here by learn.Features): the unchecked hot path for
// callers that hold the feature rows anyway. Fit.PredictMap maps the inputs itself and gives the same values.
func ExampleFit_Predict() {
	X, Y := data(300)
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 50, 1)
	if err != nil {
		panic(err)
	}
	fit, err := learn.Ridge{Lambda: 1e-6, Intercept: true}.FitMap(m, X, 300, Y, 1)
	if err != nil {
		panic(err)
	}
	at := []float64{-0.5, 0.3}
	Z, err := learn.Features(m, at, 2, 0) // 2×F
	if err != nil {
		panic(err)
	}
	pred := make([]float64, 2) // rows×P
	fit.Predict(pred, Z, 2)
	viaMap := make([]float64, 2)
	if err := fit.PredictMap(viaMap, m, at, 2); err != nil {
		panic(err)
	}
	fmt.Printf("f(−0.5) = %.2f (true %.2f), f(0.3) = %.2f (true %.2f)\n",
		pred[0], math.Sin(-1.5)+2, pred[1], math.Sin(0.9)+2)
	fmt.Println("as PredictMap within 1e-12:", maxAbsDiff(pred, viaMap) < 1e-12)
	// Output:
	// f(−0.5) = 1.00 (true 1.00), f(0.3) = 2.78 (true 2.78)
	// as PredictMap within 1e-12: true
}

// ExampleFit_PredictMap fits two outputs at once, sin(3x) and cos(3x), which share the features and the
// factorisation, and predicts both at a few inputs: dst is rows×P, row-major.
func ExampleFit_PredictMap() {
	const n = 300
	X := make([]float64, n)
	Y := make([]float64, 2*n) // n×2
	for i := range n {
		X[i] = -1 + 2*float64(i)/(n-1)
		Y[2*i], Y[2*i+1] = math.Sin(3*X[i]), math.Cos(3*X[i])
	}
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 50, 1)
	if err != nil {
		panic(err)
	}
	fit, err := learn.Ridge{Lambda: 1e-6, Intercept: true}.FitMap(m, X, n, Y, 2)
	if err != nil {
		panic(err)
	}
	at := []float64{-0.4, 0.1, 0.6}
	pred := make([]float64, 3*2)
	if err := fit.PredictMap(pred, m, at, 3); err != nil {
		panic(err)
	}
	for i, x := range at {
		fmt.Printf("x = %4.1f: sin ≈ %5.2f (%5.2f), cos ≈ %5.2f (%5.2f)\n",
			x, pred[2*i], math.Sin(3*x), pred[2*i+1], math.Cos(3*x))
	}
	// Output:
	// x = -0.4: sin ≈ -0.93 (-0.93), cos ≈  0.36 ( 0.36)
	// x =  0.1: sin ≈  0.30 ( 0.30), cos ≈  0.96 ( 0.96)
	// x =  0.6: sin ≈  0.97 ( 0.97), cos ≈ -0.23 (-0.23)
}

// ExampleFit_PredictGradients differentiates a model fitted to values only: the gradient of θᵀz(x) + b comes from
// the derivative features of the same map.
func ExampleFit_PredictGradients() {
	X, Y := data(300) // y = sin(3x) + 2
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 50, 1)
	if err != nil {
		panic(err)
	}
	fit, err := learn.Ridge{Lambda: 1e-6, Intercept: true}.FitMap(m, X, 300, Y, 1)
	if err != nil {
		panic(err)
	}
	at := []float64{-0.5, 0.3}
	grad := make([]float64, 2) // n×d×P
	if err := fit.PredictGradients(grad, m, at, 2); err != nil {
		panic(err)
	}
	for i, x := range at {
		fmt.Printf("f'(%.1f) ≈ %.1f (exact %.1f)\n", x, grad[i], 3*math.Cos(3*x))
	}
	// Output:
	// f'(-0.5) ≈ 0.2 (exact 0.2)
	// f'(0.3) ≈ 1.9 (exact 1.9)
}

// ExampleKRRFit_Predict fits exact kernel ridge regression on 150 scattered points of the plane and predicts
// f(x, y) = sin(2x)·y at new points.
func ExampleKRRFit_Predict() {
	const n = 150
	rng := rand.New(rand.NewPCG(3, 4))
	f := func(x, y float64) float64 { return math.Sin(2*x) * y }
	X := make([]float64, 2*n) // n×2
	Y := make([]float64, n)
	for i := range n {
		X[2*i], X[2*i+1] = 2*rng.Float64()-1, 2*rng.Float64()-1
		Y[i] = f(X[2*i], X[2*i+1])
	}
	fit, err := learn.KRR{Kernel: kernel.Gaussian{S: 0.7}, Lambda: 1e-7, Intercept: true}.Fit(X, n, 2, Y, 1)
	if err != nil {
		panic(err)
	}
	at := []float64{0.2, 0.5, -0.6, 0.1, 0.4, -0.8} // 3 rows
	pred := make([]float64, 3)
	fit.Predict(pred, at, 3)
	for i := range 3 {
		fmt.Printf("f(%4.1f, %4.1f) ≈ %5.2f (exact %5.2f)\n", at[2*i], at[2*i+1], pred[i], f(at[2*i], at[2*i+1]))
	}
	// Output:
	// f( 0.2,  0.5) ≈  0.19 (exact  0.19)
	// f(-0.6,  0.1) ≈ -0.09 (exact -0.09)
	// f( 0.4, -0.8) ≈ -0.57 (exact -0.57)
}

// ExampleRidge_SolveMatrixFree fits ridge regression by conjugate gradients that map the data again at every
// iteration instead of forming ZᵀZ, for feature counts whose F×F matrix would not fit in memory. It reaches the
// Cholesky solution of the accumulated statistics (CG stops at the relative residual Tol, by default 1e-10).
func ExampleRidge_SolveMatrixFree() {
	X, Y := data(500)
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 50, 1)
	if err != nil {
		panic(err)
	}
	r := learn.Ridge{Lambda: 1e-4, Intercept: true}
	cg, err := r.SolveMatrixFree(m, X, 500, Y, 1)
	if err != nil {
		panic(err)
	}
	chol, err := r.FitMap(m, X, 500, Y, 1)
	if err != nil {
		panic(err)
	}
	at := []float64{-0.7, 0, 0.3, 0.9}
	p1, p2 := make([]float64, 4), make([]float64, 4)
	if err := cg.PredictMap(p1, m, at, 4); err != nil {
		panic(err)
	}
	if err := chol.PredictMap(p2, m, at, 4); err != nil {
		panic(err)
	}
	fmt.Println(cg.Stats.Method, "relative residual below 1e-9:", cg.Stats.Residual < 1e-9)
	fmt.Println("predictions as Cholesky's within 1e-6:", maxAbsDiff(p1, p2) < 1e-6)
	// Output:
	// cg-matrix-free relative residual below 1e-9: true
	// predictions as Cholesky's within 1e-6: true
}

// ExampleHermite_Fit learns f(x, y) = sin(x)·cos(y) on the plane from its gradients at a 7×7 grid and a single
// observed value (NaN marks the values not observed): the gradients fix the shape, the one value the level.
func ExampleHermite_Fit() {
	const side, n = 7, 49
	X := make([]float64, 2*n)     // n×2
	values := make([]float64, n)  // n, NaN where not observed
	grads := make([]float64, 2*n) // n×2: ∂f/∂x, ∂f/∂y
	for i := range n {
		x := -1 + 2*float64(i%side)/(side-1)
		y := -1 + 2*float64(i/side)/(side-1)
		X[2*i], X[2*i+1] = x, y
		values[i] = math.NaN()
		grads[2*i], grads[2*i+1] = math.Cos(x)*math.Cos(y), -math.Sin(x)*math.Sin(y)
	}
	values[24] = math.Sin(X[48]) * math.Cos(X[49]) // the centre (0, 0): f = 0
	m, err := feature.New(kernel.Gaussian{S: 1}, rule.G{}, 2, 300, 1)
	if err != nil {
		panic(err)
	}
	fit, err := learn.Hermite{Lambda: 1e-8, Intercept: true}.Fit(m, X, n, values, grads)
	if err != nil {
		panic(err)
	}
	at := []float64{0.5, -0.3, -0.8, 0.6}
	pred := make([]float64, 2)
	if err := fit.PredictMap(pred, m, at, 2); err != nil {
		panic(err)
	}
	for i := range 2 {
		x, y := at[2*i], at[2*i+1]
		fmt.Printf("f(%4.1f, %4.1f) ≈ %.2f (exact %.2f)\n", x, y, pred[i], math.Sin(x)*math.Cos(y))
	}
	// Output:
	// f( 0.5, -0.3) ≈ 0.46 (exact 0.46)
	// f(-0.8,  0.6) ≈ -0.59 (exact -0.59)
}

// ExampleLogGrid makes a grid of λ evenly spaced in log scale, for SelectLambda or CrossValidate.
func ExampleLogGrid() {
	fmt.Printf("%.3g\n", learn.LogGrid(1e-6, 1e-2, 5))
	fmt.Println(learn.LogGrid(1, 0.1, 3)) // hi < lo: no grid
	// Output:
	// [1e-06 1e-05 0.0001 0.001 0.01]
	// []
}

// ExampleDefaultMixedCost asks the cost model of Precision Auto whether a float32 Gram matrix pays: for 10⁶ rows
// it does with 4096 features, where ZᵀZ is nearly all the work, and not with 256.
func ExampleDefaultMixedCost() {
	c := learn.DefaultMixedCost(256) // AVX2 Gram kernels
	const n = 1_000_000
	for _, D := range []int{128, 2048} {
		F := 2 * D // cos/sin features
		fmt.Printf("F = %4d: double %5.1f s, mixed %5.1f s, pays: %v\n", F, c.Double(n, F), c.Mixed(n, F, D, 1),
			c.Pays(n, F, D, 1))
	}
	// Output:
	// F =  256: double   1.3 s, mixed   2.3 s, pays: false
	// F = 4096: double 335.5 s, mixed 194.0 s, pays: true
}

// ExampleMixedCost_Pays tunes the cost model to a machine whose float32 kernel is no faster than the float64 one:
// then the mixed precision never pays.
func ExampleMixedCost_Pays() {
	c := learn.DefaultMixedCost(512)
	fmt.Println("default:", c.Pays(1_000_000, 4096, 2048, 1))
	c.Speed32 = 1
	fmt.Println("float32 no faster:", c.Pays(1_000_000, 4096, 2048, 1))
	// Output:
	// default: true
	// float32 no faster: false
}

// ExampleMixedCost_Double models the float64 Gram time, N·F²/Rate64: twice the features, four times the time.
func ExampleMixedCost_Double() {
	c := learn.DefaultMixedCost(512) // AVX-512 Gram kernels
	fmt.Printf("%.1f s, %.1f s\n", c.Double(1_000_000, 2048), c.Double(1_000_000, 4096))
	// Output: 44.2 s, 176.6 s
}

// ExampleMixedCost_Mixed models the mixed-precision time, whose refinement passes grow with the number of outputs:
// for 100 outputs they cost more than the float32 Gram matrix saves.
func ExampleMixedCost_Mixed() {
	c := learn.DefaultMixedCost(256)
	const n, F, D = 1_000_000, 4096, 2048
	for _, P := range []int{1, 100} {
		fmt.Printf("P = %3d: mixed %5.1f s against double %5.1f s\n", P, c.Mixed(n, F, D, P), c.Double(n, F))
	}
	// Output:
	// P =   1: mixed 194.0 s against double 335.5 s
	// P = 100: mixed 1005.0 s against double 335.5 s
}
