package learn_test

import (
	"fmt"
	"math"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/rule"
)

// ExampleSelectLambda chooses σ by the median heuristic and λ by the Bayesian evidence and by GCV, all without a
// second pass over the data: the whole λ grid costs one eigendecomposition of the statistics.
func ExampleSelectLambda() {
	X, Y := data(400)
	for i := range Y {
		Y[i] += 0.3 * math.Sin(1e3*float64(i)) // deterministic "noise" of variance 0.045
	}
	sigma, err := kernel.MedianSigma("gaussian", X, 400, 1, 0, 1)
	if err != nil {
		panic(err)
	}
	m, err := feature.New(kernel.Gaussian{S: sigma}, rule.G{}, 1, 60, 2)
	if err != nil {
		panic(err)
	}
	s, err := learn.Accumulate(m, X, 400, Y, 1)
	if err != nil {
		panic(err)
	}
	grid := learn.LogGrid(1e-8, 1e2, 41)
	sel, err := learn.SelectLambda(s, grid, true)
	if err != nil {
		panic(err)
	}
	i := sel.BestEvidenceIndex
	// The median distance of points spread evenly on [−1, 1] tends to 2 − √2 ≈ 0.586 as their number grows.
	fmt.Printf("σ = %.2f\n", sigma)
	fmt.Println("evidence optimum inside the grid:", i > 0 && i < len(grid)-1)
	fmt.Println("GCV optimum inside the grid:", sel.BestGCVIndex > 0 && sel.BestGCVIndex < len(grid)-1)
	fmt.Println("noise variance near 0.045:", math.Abs(sel.EvidenceNoiseVar[i][0]-0.045) < 0.01)
	// Output:
	// σ = 0.59
	// evidence optimum inside the grid: true
	// GCV optimum inside the grid: true
	// noise variance near 0.045: true
}

// ExampleNewPosterior fits ridge regression as a Bayesian model and reports its uncertainty: small inside the data,
// large far outside it, where the prediction falls back to the intercept.
func ExampleNewPosterior() {
	X, Y := data(400)
	for i := range Y {
		Y[i] += 0.3 * math.Sin(1e3*float64(i))
	}
	m, err := feature.New(kernel.Gaussian{S: 0.3}, rule.G{}, 1, 60, 2)
	if err != nil {
		panic(err)
	}
	s, err := learn.Accumulate(m, X, 400, Y, 1)
	if err != nil {
		panic(err)
	}
	post, err := learn.NewPosterior(s, 1e-4, true)
	if err != nil {
		panic(err)
	}
	at := []float64{0.3, 5}
	mean := make([]float64, 2)
	std := make([]float64, 2)
	if err := post.Fit.PredictMap(mean, m, at, 2); err != nil {
		panic(err)
	}
	if err := post.StdMap(std, m, at, 2, false); err != nil {
		panic(err)
	}
	fmt.Printf("noise σ = %.2f\n", math.Sqrt(post.NoiseVar[0]))
	fmt.Printf("f(0.3) = %.2f ± %.2f (true %.2f)\n", mean[0], std[0], math.Sin(0.9)+2)
	fmt.Println("far outside the data the uncertainty is larger:", std[1] > 5*std[0])
	// 3 joint posterior samples at both points (3×2 values, one function per sample).
	samples := make([]float64, 3*2)
	if err := post.SampleMap(samples, m, at, 2, 3, 1); err != nil {
		panic(err)
	}
	fmt.Println("samples:", len(samples))
	// Output:
	// noise σ = 0.21
	// f(0.3) = 2.78 ± 0.03 (true 2.78)
	// far outside the data the uncertainty is larger: true
	// samples: 6
}

// ExampleSelectLambdaMap scores a λ grid on 40 rows mapped to 1024 features: with many more features than rows it
// works in the dual, from the 40×40 matrix of inner products of the features, and chooses the λ SelectLambda would
// choose from the 1024×1024 statistics.
func ExampleSelectLambdaMap() {
	X, Y := data(40)
	for i := range Y {
		Y[i] += 0.3 * math.Sin(1e3*float64(i)) // deterministic "noise"
	}
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 512, 2)
	if err != nil {
		panic(err)
	}
	grid := learn.LogGrid(1e-8, 1e-1, 15)
	sel, err := learn.SelectLambdaMap(m, X, 40, Y, 1, grid, true)
	if err != nil {
		panic(err)
	}
	s, err := learn.Accumulate(m, X, 40, Y, 1)
	if err != nil {
		panic(err)
	}
	ref, err := learn.SelectLambda(s, grid, true)
	if err != nil {
		panic(err)
	}
	fmt.Println("features:", m.Features())
	fmt.Println("same λ by GCV and by the evidence:", sel.BestGCV == ref.BestGCV, sel.BestEvidence == ref.BestEvidence)
	fmt.Printf("GCV at the choice agrees to 1e-9: %v\n", math.Abs(sel.GCV[sel.BestGCVIndex]-ref.GCV[ref.BestGCVIndex]) < 1e-9*ref.GCV[ref.BestGCVIndex])
	// Output:
	// features: 1024
	// same λ by GCV and by the evidence: true true
	// GCV at the choice agrees to 1e-9: true
}
