package vector_test

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/metrics"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
	"github.com/rffkit/rff/vector"
)

// curlData returns the first n rows of the 5-D curl-free field of docs/conventions.md §9 for training and the next m for testing.
func curlData(n, m int) (X, Y, T, YT []float64) {
	g, err := dataset.GenerateCurlField(n+m, 1, 0)
	if err != nil {
		panic(err)
	}
	d := g.D
	return g.X[:n*d], g.Y[:n*d], g.X[n*d:], g.Y[n*d:]
}

// Curl-free ORFF ridge on the curl-free field: fit with Cholesky (the default for non-decomposable kernels), CG and
// L-BFGS, which reach the same optimum.
func ExampleRidge_Fit() {
	X, Y, T, YT := curlData(200, 100)
	k, _ := ovk.NewCurlFree(dataset.CurlFieldSigma)
	m, _ := ovk.New(k, rule.G{}, 5, 100, 1) // D = 100 points, F = 2·100·1 features
	pred := make([]float64, 100*5)
	var first []float64
	for _, s := range []vector.Solver{vector.Cholesky, vector.CG, vector.LBFGS} {
		fit, err := vector.Ridge{Lambda: 1e-2, Intercept: true, Solver: s}.Fit(m, X, 200, Y)
		if err != nil {
			fmt.Println(err)
			return
		}
		if first == nil {
			first = fit.Theta
		}
		var diff, norm float64
		for i, v := range fit.Theta {
			diff += (v - first[i]) * (v - first[i])
			norm += v * v
		}
		_ = fit.Predict(pred, m, T, 100)
		fmt.Printf("%-14s features %d, test R² %.2f, same optimum: %v\n", fit.Stats.Method, fit.F, metrics.MultiR2(pred, YT, 100, 5),
			math.Sqrt(diff/norm) < 1e-6)
	}
	// Output:
	// cholesky       features 200, test R² 0.08, same optimum: true
	// cg-matrix-free features 200, test R² 0.08, same optimum: true
	// lbfgs          features 200, test R² 0.08, same optimum: true
}

// A λ path for a decomposable kernel reuses one eigendecomposition of ZᵀZ and BᵀB.
func ExampleRidge_FitPath() {
	g, _ := dataset.GenerateMultitask(300, 1, 0.1)
	A, _ := ovk.OutputCovariance(g.Y, g.N, g.P) // the output covariance as A
	k, _ := ovk.NewDecomposable(kernel.Gaussian{S: 2}, A)
	m, _ := ovk.New(k, rule.ORF{}, g.D, 100, 1)
	fits, err := vector.Ridge{Intercept: true}.FitPath(m, g.X[:250*g.D], 250, g.Y[:250*g.P], []float64{1e-5, 1e-3, 1e-1})
	if err != nil {
		fmt.Println(err)
		return
	}
	pred := make([]float64, 50*g.P)
	for _, f := range fits {
		_ = f.Predict(pred, m, g.X[250*g.D:], 50)
		fmt.Printf("λ = %g: %s, test R² %.2f\n", f.Lambda, f.Stats.Method, metrics.MultiR2(pred, g.Y[250*g.P:], 50, g.P))
	}
	// Output:
	// λ = 1e-05: eigen, test R² 0.64
	// λ = 0.001: eigen, test R² 0.56
	// λ = 0.1: eigen, test R² 0.02
}

// Statistics accumulated shard by shard (here two halves of the data, as a distributed engine would) are merged and
// solved; the result equals a fit on all rows.
func ExampleAccumulate() {
	X, Y, _, _ := curlData(200, 0)
	k, _ := ovk.NewCurlFree(dataset.CurlFieldSigma)
	m, _ := ovk.New(k, rule.SR{Rotation: rule.Butterfly}, 5, 60, 1)
	s1, _ := vector.Accumulate(m, X[:100*5], 100, Y[:100*5])
	s2, _ := vector.Accumulate(m, X[100*5:], 100, Y[100*5:])
	_ = s1.Merge(s2)
	fmt.Println("rows:", s1.N, "scalar features (2D):", s1.F, "outputs:", s1.P)
	fit, _ := vector.Ridge{Lambda: 1e-2, Intercept: true}.Solve(m, s1)
	all, _ := vector.Ridge{Lambda: 1e-2, Intercept: true}.Fit(m, X, 200, Y)
	var diff float64
	for i := range fit.Theta {
		diff = math.Max(diff, math.Abs(fit.Theta[i]-all.Theta[i]))
	}
	fmt.Println("same model:", diff < 1e-9)
	// Output:
	// rows: 200 scalar features (2D): 120 outputs: 5
	// same model: true
}

// Solve fits from statistics, for any kernel (the closed form or Cholesky).
func ExampleRidge_Solve() {
	X, Y, _, _ := curlData(100, 0)
	k, _ := ovk.NewDivFree(0.5)
	m, _ := ovk.New(k, rule.QMC{}, 5, 40, 1)
	s, _ := vector.Accumulate(m, X, 100, Y)
	fit, err := vector.Ridge{Lambda: 1e-3}.Solve(m, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %d features (2·D·(d−1)), residual below 1e-10: %v\n", fit.Stats.Method, fit.F, fit.Stats.Residual < 1e-10)
	// Output:
	// cholesky: 320 features (2·D·(d−1)), residual below 1e-10: true
}

// SolvePath solves a λ grid from one set of statistics.
func ExampleRidge_SolvePath() {
	X, Y, _, _ := curlData(100, 0)
	k, _ := ovk.NewCurlFree(dataset.CurlFieldSigma)
	m, _ := ovk.New(k, rule.G{}, 5, 50, 1)
	s, _ := vector.Accumulate(m, X, 100, Y)
	fits, _ := vector.Ridge{Intercept: true}.SolvePath(m, s, learn.LogGrid(1e-4, 1, 3))
	for _, f := range fits {
		fmt.Printf("λ = %g: ‖θ‖² shrinks: %.3g\n", f.Lambda, norm2(f.Theta))
	}
	// Output:
	// λ = 0.0001: ‖θ‖² shrinks: 91.6
	// λ = 0.01: ‖θ‖² shrinks: 55.5
	// λ = 1: ‖θ‖² shrinks: 1.25
}

func norm2(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return s
}

// Predict evaluates f̃(x) = Φ̃(x)ᵀθ + b with the map the model was fitted with.
func ExampleFit_Predict() {
	X, Y, T, YT := curlData(200, 100)
	k, _ := ovk.NewCurlFree(dataset.CurlFieldSigma)
	m, _ := ovk.New(k, rule.ORF{}, 5, 400, 2)
	fit, _ := vector.Ridge{Lambda: 1e-2, Intercept: true}.Fit(m, X, 200, Y)
	pred := make([]float64, 100*5)
	if err := fit.Predict(pred, m, T, 100); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("test R² %.2f\n", metrics.MultiR2(pred, YT, 100, 5))
	// Output:
	// test R² 0.30
}

// The fitted curl-free field has a symmetric Jacobian and the divergence-free one a traceless Jacobian.
func ExampleFit_Jacobian() {
	X, Y, _, _ := curlData(100, 0)
	x := []float64{0.1, -0.2, 0.3, 0, 0.5}
	J := make([]float64, 25)
	curl, _ := ovk.NewCurlFree(0.5)
	mc, _ := ovk.New(curl, rule.SORF{}, 5, 64, 1)
	fc, _ := vector.Ridge{Lambda: 1e-3, Intercept: true}.Fit(mc, X, 100, Y)
	_ = fc.Jacobian(J, mc, x)
	var asym, scale float64
	for a := 0; a < 5; a++ {
		for b := 0; b < 5; b++ {
			asym = math.Max(asym, math.Abs(J[a*5+b]-J[b*5+a]))
			scale = math.Max(scale, math.Abs(J[a*5+b]))
		}
	}
	fmt.Println("curl-free: symmetric Jacobian:", asym <= 1e-12*scale)
	div, _ := ovk.NewDivFree(0.5)
	md, _ := ovk.New(div, rule.SORF{}, 5, 64, 1)
	fd, _ := vector.Ridge{Lambda: 1e-3, Intercept: true}.Fit(md, X, 100, Y)
	_ = fd.Jacobian(J, md, x)
	var tr float64
	for a := 0; a < 5; a++ {
		tr += J[a*5+a]
	}
	fmt.Println("div-free: zero divergence:", math.Abs(tr) <= 1e-12*math.Max(1, scale))
	// Output:
	// curl-free: symmetric Jacobian: true
	// div-free: zero divergence: true
}

// Exact curl-free OVK ridge on the Np×Np block Gram, the baseline ORFF converges to; the memory guard refuses
// larger problems with the bytes needed.
func ExampleKRR_Fit() {
	X, Y, T, YT := curlData(200, 100)
	k, _ := ovk.NewCurlFree(dataset.CurlFieldSigma)
	fit, err := vector.KRR{Kernel: k, Lambda: 1e-2, Intercept: true}.Fit(X, 200, 5, Y)
	if err != nil {
		fmt.Println(err)
		return
	}
	pred := make([]float64, 100*5)
	_ = fit.Predict(pred, T, 100)
	fmt.Printf("%s, test R² %.2f\n", fit.Stats.Method, metrics.MultiR2(pred, YT, 100, 5))
	_, err = vector.KRR{Kernel: k, Lambda: 1e-2, MaxBytes: 1 << 20}.Fit(X, 200, 5, Y)
	fmt.Println(err)
	// Output:
	// cholesky, test R² 0.55
	// vector.KRR.Fit: the exact 1000×1000 block Gram matrix of the curl-free kernel needs 7.63 MiB, above the limit of 1.00 MiB (raise vector.KRR.MaxBytes, or use ORFF features with vector.Ridge)
}

// Exact decomposable OVK ridge along a λ path, from one eigendecomposition of the N×N scalar Gram and of A.
func ExampleKRR_FitPath() {
	g, _ := dataset.GenerateMultitask(300, 1, 0.1)
	A, _ := ovk.OutputCovariance(g.Y, g.N, g.P)
	k, _ := ovk.NewDecomposable(kernel.Gaussian{S: 2}, A)
	fits, err := vector.KRR{Kernel: k, Intercept: true}.FitPath(g.X[:250*g.D], 250, g.D, g.Y[:250*g.P], []float64{1e-5, 1e-3})
	if err != nil {
		fmt.Println(err)
		return
	}
	pred := make([]float64, 50*g.P)
	for _, f := range fits {
		_ = f.Predict(pred, g.X[250*g.D:], 50)
		fmt.Printf("λ = %g: %s, test R² %.2f\n", f.Lambda, f.Stats.Method, metrics.MultiR2(pred, g.Y[250*g.P:], 50, g.P))
	}
	// Output:
	// λ = 1e-05: eigen, test R² 0.68
	// λ = 0.001: eigen, test R² 0.57
}

// Predict evaluates Σ_i K(x, x_i)α_i + b against the stored training inputs.
func ExampleKRRFit_Predict() {
	k, _ := ovk.NewDivFree(1)
	X := []float64{0, 0, 1, 0, 0, 1}
	Y := []float64{1, 0, 0, 1, -1, 0}
	fit, _ := vector.KRR{Kernel: k, Lambda: 1e-6}.Fit(X, 3, 2, Y)
	pred := make([]float64, 6)
	_ = fit.Predict(pred, X, 3)
	for i := 0; i < 3; i++ {
		fmt.Printf("f(x%d) = (%.3f, %.3f)\n", i+1, round3(pred[2*i]), round3(pred[2*i+1]))
	}
	// Output:
	// f(x1) = (1.000, 0.000)
	// f(x2) = (0.000, 1.000)
	// f(x3) = (-1.000, 0.000)
}

// round3 rounds to 3 decimals without printing −0.
func round3(v float64) float64 { return math.Round(v*1000)/1000 + 0 }

// blobs returns n points of k Gaussian clusters in the plane with their labels.
func blobs(n, k int) ([]float64, []int) {
	X := make([]float64, 2*n)
	labels := make([]int, n)
	for i := 0; i < n; i++ {
		c := i % k
		a := 2 * math.Pi * float64(c) / float64(k)
		r := 0.3 * math.Sin(float64(7*i)) // deterministic jitter
		X[2*i] = math.Cos(a) + r*math.Cos(float64(3*i))
		X[2*i+1] = math.Sin(a) + r*math.Sin(float64(3*i))
		labels[i] = c
	}
	return X, labels
}

// The decomposable kernel of the ORFF paper's MNIST experiment: A = CCᵀ for the simplex code C.
func ExampleSimplexKernel() {
	k, _ := vector.SimplexKernel(kernel.Gaussian{S: 20}, 10)
	A := k.A()
	fmt.Printf("%s kernel, %d outputs, A = %.4f·I\n", k.Name(), A.SymmetricDim(), A.At(0, 0))
	// Output:
	// decomposable kernel, 9 outputs, A = 1.1111·I
}

// Multiclass ORFF through simplex coding in a decomposable kernel (ORFF paper §5, MNIST), decoded by learn.SimplexDecode.
func ExampleRidge_FitSimplex() {
	X, labels := blobs(300, 4)
	k, _ := vector.SimplexKernel(kernel.Gaussian{S: 0.5}, 4)
	m, _ := ovk.New(k, rule.G{}, 2, 100, 1)
	fit, err := vector.Ridge{Lambda: 1e-4, Intercept: true}.FitSimplex(m, X, 300, labels, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d outputs (k−1), %s\n", fit.P, fit.Stats.Method)
	// Output:
	// 3 outputs (k−1), closed-form
}

// Classify decodes the k−1 simplex scores into classes.
func ExampleFit_Classify() {
	X, labels := blobs(300, 4)
	k, _ := vector.SimplexKernel(kernel.Gaussian{S: 0.5}, 4)
	m, _ := ovk.New(k, rule.G{}, 2, 100, 1)
	fit, _ := vector.Ridge{Lambda: 1e-4, Intercept: true}.FitSimplex(m, X[:400], 200, labels[:200], 4)
	pred, _ := fit.Classify(m, X[400:], 100)
	correct := 0
	for i, c := range pred {
		if c == labels[200+i] {
			correct++
		}
	}
	fmt.Printf("test accuracy %d%%\n", correct)
	// Output:
	// test accuracy 100%
}

// The exact multiclass baseline with the same kernel.
func ExampleKRR_FitSimplex() {
	X, labels := blobs(300, 4)
	k, _ := vector.SimplexKernel(kernel.Gaussian{S: 0.5}, 4)
	fit, err := vector.KRR{Kernel: k, Lambda: 1e-4, Intercept: true}.FitSimplex(X[:400], 200, 2, labels[:200], 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d outputs, %s (one factorisation: A ∝ I)\n", fit.P, fit.Stats.Method)
	// Output:
	// 3 outputs, cholesky (one factorisation: A ∝ I)
}

// Classify decodes the exact model's simplex scores.
func ExampleKRRFit_Classify() {
	X, labels := blobs(300, 4)
	k, _ := vector.SimplexKernel(kernel.Gaussian{S: 0.5}, 4)
	fit, _ := vector.KRR{Kernel: k, Lambda: 1e-4, Intercept: true}.FitSimplex(X[:400], 200, 2, labels[:200], 4)
	pred, _ := fit.Classify(X[400:], 100)
	correct := 0
	for i, c := range pred {
		if c == labels[200+i] {
			correct++
		}
	}
	fmt.Printf("test accuracy %d%%\n", correct)
	// Output:
	// test accuracy 100%
}

// Solvers by name, as a command line gives them.
func ExampleParseSolver() {
	for _, name := range []string{"auto", "stein", "cholesky", "cg", "l-bfgs"} {
		s, _ := vector.ParseSolver(name)
		fmt.Println(name, "→", s)
	}
	// Output:
	// auto → auto
	// stein → closed-form
	// cholesky → cholesky
	// cg → cg
	// l-bfgs → lbfgs
}

// String names a solver.
func ExampleSolver_String() {
	fmt.Println(vector.LBFGS, vector.ClosedForm)
	// Output:
	// lbfgs closed-form
}

// ExampleDecouple reduces a decomposable kernel with a full output matrix A to independent scalar problems: the
// targets rotated onto A's eigenvectors, each penalised by λ/a_k.
func ExampleDecouple() {
	A := mat.NewSymDense(2, []float64{2, 1, 1, 2}) // eigenvalues 1 and 3
	dc, err := vector.Decouple(A)
	if err != nil {
		panic(err)
	}
	fmt.Printf("λ scales: %.3f %.3f\n", dc.Scale[0], dc.Scale[1])
	Yr, err := dc.Rotate([]float64{1, 1}, 1) // along the eigenvector (1, 1)/√2 of eigenvalue 3
	if err != nil {
		panic(err)
	}
	fmt.Printf("rotated target: %.3f %.3f\n", math.Abs(Yr[0]), math.Abs(Yr[1]))
	// Output:
	// λ scales: 1.000 0.333
	// rotated target: 0.000 1.414
}

// ExampleSelectLambdaField chooses λ of a curl-free field by GCV on its assembled normal equations, from one pass
// over the data.
func ExampleSelectLambdaField() {
	g, err := dataset.GenerateCurlField(200, 1, 0.05)
	if err != nil {
		panic(err)
	}
	k, err := ovk.NewCurlFree(dataset.CurlFieldSigma)
	if err != nil {
		panic(err)
	}
	m, err := ovk.New(k, rule.ORF{}, g.D, 100, 2)
	if err != nil {
		panic(err)
	}
	s, err := vector.Accumulate(m, g.X, g.N, g.Y)
	if err != nil {
		panic(err)
	}
	grid := learn.LogGrid(1e-9, 1, 10)
	sel, err := vector.SelectLambdaField(m, s, grid, true)
	if err != nil {
		panic(err)
	}
	fmt.Println("GCV optimum inside the grid:", sel.BestGCVIndex > 0 && sel.BestGCVIndex < len(grid)-1)
	fmt.Println("effective parameters fall as λ grows:", sel.DF[0] > sel.DF[len(grid)-1])
	// Output:
	// GCV optimum inside the grid: true
	// effective parameters fall as λ grows: true
}

// Scalar gives the scalar cos/sin features of an ORFF map to a learn.Accumulator, which adds rows in batches (as
// they are read from a file, say); its statistics are those of Accumulate, and Ridge.Solve fits from them.
func ExampleScalar() {
	X, Y, _, _ := curlData(200, 0)
	k, _ := ovk.NewCurlFree(dataset.CurlFieldSigma)
	m, _ := ovk.New(k, rule.G{}, 5, 30, 1)
	z := vector.Scalar(m)
	fmt.Println("inputs:", z.Dim(), "points:", z.Points(), "scalar features (2D):", z.Features())

	acc, err := learn.NewAccumulator(z, m.Outputs())
	if err != nil {
		fmt.Println(err)
		return
	}
	for b := 0; b < 200; b += 50 {
		if err := acc.Add(X[b*5:(b+50)*5], 50, Y[b*5:(b+50)*5]); err != nil {
			fmt.Println(err)
			return
		}
	}
	s, _ := acc.Stats()
	all, _ := vector.Accumulate(m, X, 200, Y)
	var diff float64
	for i := range s.ZtZ {
		diff = math.Max(diff, math.Abs(s.ZtZ[i]-all.ZtZ[i]))
	}
	fit, _ := vector.Ridge{Lambda: 1e-2, Intercept: true}.Solve(m, s)
	fmt.Println("rows:", s.N, "same ZᵀZ as Accumulate:", diff < 1e-9, "θ:", len(fit.Theta))
	// Output:
	// inputs: 5 points: 30 scalar features (2D): 60
	// rows: 200 same ZᵀZ as Accumulate: true θ: 60
}
