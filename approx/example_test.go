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

// Compare measures an approximate Gram matrix against the exact one.
func ExampleCompare() {
	K := []float64{
		1, 0.5,
		0.5, 1,
	}
	Khat := []float64{
		1, 0.4,
		0.6, 1,
	}
	e, err := approx.Compare(K, Khat)
	if err != nil {
		panic(err)
	}
	// ‖K − K̂‖_F/‖K‖_F = √(0.02/2.5).
	fmt.Printf("relative Frobenius %.4f, max %.4f, mean %.4f\n", e.RelFrobenius, e.MaxAbs, e.MeanAbs)
	// Output: relative Frobenius 0.0894, max 0.1000, mean 0.0500
}

// PointsForN gives the protocol's number of points for n: D = 2n(d+1), whole SR(3,3) rules of d + 1 points with
// both signs.
func ExamplePointsForN() {
	for _, n := range []int{1, 2, 5} {
		fmt.Print(approx.PointsForN(n, 8), " ")
	}
	fmt.Println(approx.PointsForN(-1, 8))
	// Output: 18 36 90 -1
}

// RunSeed gives every run of a study its own seed, the same on every machine and schedule.
func ExampleRunSeed() {
	a := approx.RunSeed(1, "sr-butterfly", 2, 0)
	b := approx.RunSeed(1, "sr-butterfly", 2, 1)
	fmt.Println(a == approx.RunSeed(1, "sr-butterfly", 2, 0), a == b)
	// Output: true false
}

// GQKernel is the kernel the gq rule converges to: with the default degree 2 (nodes ±1), the Gaussian
// exp(−δ²/(2σ²)) becomes cos(δ/σ) in one dimension.
func ExampleGQKernel() {
	k := kernel.Gaussian{S: 1}
	g, err := approx.GQKernel(k, 2)
	if err != nil {
		panic(err)
	}
	x, y := []float64{0.5}, []float64{0}
	fmt.Printf("%s: %.4f, kernel %.4f\n", g.Name(), g.Eval(x, y), k.Eval(x, y))
	// Output: gq-grid:2(gaussian): 0.8776, kernel 0.8825
}

// GQFloor is the relative error the gq rule cannot go below however many points it draws; a higher degree lowers it.
func ExampleGQFloor() {
	const n, d = 40, 3
	rng := rand.New(rand.NewPCG(3, 4))
	X := make([]float64, 2*n*d)
	for i := range X {
		X[i] = rng.Float64()
	}
	k := kernel.Gaussian{S: 0.5}
	floor := func(degree int) float64 {
		f, err := approx.GQFloor(k, degree, X[:n*d], n, X[n*d:], n, d)
		if err != nil {
			panic(err)
		}
		return f
	}
	f2, f6 := floor(2), floor(6)
	fmt.Println(f2 > 0.01, f6 < f2/10)
	// Output: true true
}
