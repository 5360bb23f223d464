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

// noisyPosterior fits the Bayesian ridge model to 400 observations of sin(3x) + 2 on [−1, 1] with Gaussian noise
// of standard deviation 0.2, on 120 Gaussian random features, and returns the posterior, the map and the data.
func noisyPosterior() (*learn.Posterior, *feature.Map, []float64, []float64) {
	X, Y := data(400)
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range Y {
		Y[i] += 0.2 * rng.NormFloat64()
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
	return post, m, X, Y
}

// ExamplePosterior_Std gives the posterior standard deviation at features already computed: of the function
// (what more data would remove), and of a new observation (adding the noise, which more data cannot remove).
func ExamplePosterior_Std() {
	post, m, _, _ := noisyPosterior()
	Z, err := learn.Features(m, []float64{0.3}, 1, 0)
	if err != nil {
		panic(err)
	}
	fn, obs := make([]float64, 1), make([]float64, 1)
	if err := post.Std(fn, Z, 1, false); err != nil {
		panic(err)
	}
	if err := post.Std(obs, Z, 1, true); err != nil {
		panic(err)
	}
	sigma := math.Sqrt(post.NoiseVar[0])
	fmt.Printf("noise σ = %.2f\n", sigma)
	fmt.Println("std of f(0.3) below σ/5:", fn[0] < sigma/5)
	fmt.Println("std of a new y: √(σ² + std²):", math.Abs(obs[0]-math.Hypot(sigma, fn[0])) < 1e-12)
	// Output:
	// noise σ = 0.20
	// std of f(0.3) below σ/5: true
	// std of a new y: √(σ² + std²): true
}

// ExamplePosterior_StdMap maps the inputs itself and gives predictive intervals of new observations: about 95% of
// the training targets fall within two predictive standard deviations of the fit.
func ExamplePosterior_StdMap() {
	post, m, X, Y := noisyPosterior()
	mean := make([]float64, 400)
	std := make([]float64, 400)
	if err := post.Fit.PredictMap(mean, m, X, 400); err != nil {
		panic(err)
	}
	if err := post.StdMap(std, m, X, 400, true); err != nil {
		panic(err)
	}
	inside := 0
	for i, y := range Y {
		if math.Abs(y-mean[i]) < 2*std[i] {
			inside++
		}
	}
	fmt.Println("coverage between 90% and 99%:", inside > 360 && inside < 396)
	// Output: coverage between 90% and 99%: true
}

// ExamplePosterior_Covariance gives the joint posterior covariance of f at several inputs: nearby values move
// together, distant ones much less.
func ExamplePosterior_Covariance() {
	post, m, _, _ := noisyPosterior()
	at := []float64{0, 0.05, 0.8}
	Z, err := learn.Features(m, at, 3, 0)
	if err != nil {
		panic(err)
	}
	C := make([]float64, 3*3)
	if err := post.Covariance(C, Z, 3, 0); err != nil {
		panic(err)
	}
	corr := func(a, b int) float64 { return C[a*3+b] / math.Sqrt(C[a*3+a]*C[b*3+b]) }
	std := make([]float64, 3)
	if err := post.Std(std, Z, 3, false); err != nil {
		panic(err)
	}
	fmt.Println("diagonal = Std²:", math.Abs(C[4]-std[1]*std[1]) < 1e-12*C[4])
	fmt.Println("correlation of f(0) and f(0.05) above 0.9:", corr(0, 1) > 0.9)
	fmt.Println("correlation of f(0) and f(0.8) below 0.5:", corr(0, 2) < 0.5)
	// Output:
	// diagonal = Std²: true
	// correlation of f(0) and f(0.05) above 0.9: true
	// correlation of f(0) and f(0.8) below 0.5: true
}

// ExamplePosterior_ParamCovariance returns the covariance of the parameters (θ, b), the bias last; the variance of
// f(x) = θᵀz + b is then aᵀCa with a = (z, 1), which is what Std reports.
func ExamplePosterior_ParamCovariance() {
	post, m, _, _ := noisyPosterior()
	C, err := post.ParamCovariance(0)
	if err != nil {
		panic(err)
	}
	F := post.Fit.F
	G := F + 1
	fmt.Printf("%d×%d\n", G, G)
	z, err := learn.Features(m, []float64{0.3}, 1, 0)
	if err != nil {
		panic(err)
	}
	a := append(z, 1)
	var v float64
	for i := range G {
		for j := range G {
			v += a[i] * C[i*G+j] * a[j]
		}
	}
	std := make([]float64, 1)
	if err := post.Std(std, z, 1, false); err != nil {
		panic(err)
	}
	fmt.Println("aᵀCa = Std² within 1e-8 relative:", math.Abs(v-std[0]*std[0]) < 1e-8*v)
	// Output:
	// 121×121
	// aᵀCa = Std² within 1e-8 relative: true
}

// ExamplePosterior_Sample draws joint posterior samples of f at features already computed: each sample is one
// function evaluated at every row (dst is K×rows×P). Their mean is the fit and their spread is Std; a seed gives
// the same samples on every run.
func ExamplePosterior_Sample() {
	post, m, _, _ := noisyPosterior()
	Z, err := learn.Features(m, []float64{0.3}, 1, 0)
	if err != nil {
		panic(err)
	}
	const K = 4000
	samples := make([]float64, K) // K samples × 1 row × 1 output
	if err := post.Sample(samples, Z, 1, K, 42); err != nil {
		panic(err)
	}
	var mean, sq float64
	for _, v := range samples {
		mean += v / K
	}
	for _, v := range samples {
		sq += (v - mean) * (v - mean) / (K - 1)
	}
	fit, std := make([]float64, 1), make([]float64, 1)
	post.Fit.Predict(fit, Z, 1)
	if err := post.Std(std, Z, 1, false); err != nil {
		panic(err)
	}
	fmt.Println("sample mean within 4 standard errors of the fit:", math.Abs(mean-fit[0]) < 4*std[0]/math.Sqrt(K))
	fmt.Println("sample std within 10% of Std:", math.Abs(math.Sqrt(sq)/std[0]-1) < 0.1)
	again := make([]float64, K)
	if err := post.Sample(again, Z, 1, K, 42); err != nil {
		panic(err)
	}
	fmt.Println("same seed, same samples:", maxAbsDiff(samples, again) == 0)
	// Output:
	// sample mean within 4 standard errors of the fit: true
	// sample std within 10% of Std: true
	// same seed, same samples: true
}

// ExamplePosterior_SampleMap draws 3 posterior functions on a grid of 5 inputs, mapping them itself; with the same
// seed they are the samples Sample draws at the grid's features. The samples agree with each other to a few
// hundredths (the posterior std) and follow the fit, which the noise pulls a little off the truth at the ends.
func ExamplePosterior_SampleMap() {
	post, m, _, _ := noisyPosterior()
	grid := []float64{-1, -0.5, 0, 0.5, 1}
	const K = 3
	paths := make([]float64, K*5) // K × 5 rows × 1 output
	if err := post.SampleMap(paths, m, grid, 5, K, 1); err != nil {
		panic(err)
	}
	fmt.Print("true f:  ")
	for _, x := range grid {
		fmt.Printf(" %.1f", math.Sin(3*x)+2)
	}
	fmt.Println()
	for k := range K {
		fmt.Printf("sample %d:", k)
		for r := range grid {
			fmt.Printf(" %.1f", paths[k*5+r]) // sample k at grid[r]
		}
		fmt.Println()
	}
	Z, err := learn.Features(m, grid, 5, 0)
	if err != nil {
		panic(err)
	}
	same := make([]float64, K*5)
	if err := post.Sample(same, Z, 5, K, 1); err != nil {
		panic(err)
	}
	fmt.Println("as Sample within 1e-12:", maxAbsDiff(paths, same) < 1e-12)
	// Output:
	// true f:   1.9 1.0 2.0 3.0 2.1
	// sample 0: 1.8 1.0 2.0 3.0 2.2
	// sample 1: 1.8 1.0 2.0 3.1 2.2
	// sample 2: 1.8 1.0 2.0 3.0 2.2
	// as Sample within 1e-12: true
}
