package approx_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// ExampleSupError measures the uniform error of 64 iid random features for a Gaussian kernel on the square
// [−1, 1]², for the kernel and for its mixed derivative ∂²k/∂x₁∂y₁. The value is attained, so it is a lower bound on
// the supremum, reported with the search budget.
func ExampleSupError() {
	const d = 2
	m, err := feature.New(kernel.Gaussian{S: 1}, rule.G{}, d, 64, 1)
	if err != nil {
		panic(err)
	}
	S := approx.NewCube(d, 2)
	budget := approx.Search{Candidates: 2000, Starts: 8, Steps: 100, Seed: 1}
	k, err := approx.SupError(m, S, nil, nil, budget)
	if err != nil {
		panic(err)
	}
	dk, err := approx.SupError(m, S, []int{1, 0}, []int{1, 0}, budget)
	if err != nil {
		panic(err)
	}
	fmt.Printf("sup |k̂ − k| between 0.01 and 0.5: %v\n", k.Value > 0.01 && k.Value < 0.5)
	fmt.Printf("sup |∂k̂ − ∂k| between 0.01 and 1: %v\n", dk.Value > 0.01 && dk.Value < 1)
	fmt.Println("budget:", k.Search.Candidates, "candidates,", k.Search.Starts, "starts of", k.Search.Steps, "steps")
	// Output:
	// sup |k̂ − k| between 0.01 and 0.5: true
	// sup |∂k̂ − ∂k| between 0.01 and 1: true
	// budget: 2000 candidates, 8 starts of 100 steps
}

// ExampleLrError estimates the L² error over S × S (Lebesgue measure, unnormalized, as in Theorem 2) of iid features
// and of the SR(3,3) quadrature rule with the same number of points, with Monte Carlo standard errors.
func ExampleLrError() {
	const d = 3
	k := kernel.Gaussian{S: 1.5}
	S := approx.Domain{Shape: approx.Ball, Dim: d, Diameter: 1}
	var errs []approx.Lr
	for _, r := range []rule.Rule{rule.G{}, rule.SR{Rotation: rule.Haar}} {
		m, err := feature.New(k, r, d, 16, 3)
		if err != nil {
			panic(err)
		}
		e, err := approx.LrError(m, S, nil, nil, 2, approx.MonteCarlo{Samples: 20000, Seed: 1})
		if err != nil {
			panic(err)
		}
		errs = append(errs, e)
	}
	fmt.Println("standard errors below 5% of the values:", errs[0].SE < 0.05*errs[0].Value, errs[1].SE < 0.05*errs[1].Value)
	fmt.Println("quadrature more accurate:", errs[1].Value+4*errs[1].SE < errs[0].Value-4*errs[0].SE)
	// Output:
	// standard errors below 5% of the values: true true
	// quadrature more accurate: true
}

// ExampleNewCube: a cube is given by its side; its diameter (the |S| of the theorems) is side·√d.
func ExampleNewCube() {
	S := approx.NewCube(4, 1)
	fmt.Println(S.Shape, S.Diameter, S.Side(), S.Volume())
	// Output: cube 2 1 1
}

// ExampleDomain_Volume: the ball's volume is Theorem 2's factor π^{d/2}|S|^d/(2^dΓ(d/2+1)).
func ExampleDomain_Volume() {
	S := approx.Domain{Shape: approx.Ball, Dim: 2, Diameter: 2}
	fmt.Printf("%.6f\n", S.Volume()) // π
	// Output: 3.141593
}

// ExampleDomain_Side: the half-width of S − S is the cube's side, or the ball's diameter.
func ExampleDomain_Side() {
	fmt.Println(approx.NewCube(2, 3).Side(), approx.Domain{Shape: approx.Ball, Dim: 2, Diameter: 3}.Side())
	// Output: 3 3
}

// ExampleDomain_Sample draws points uniformly from a ball of diameter 2: all lie within radius 1.
func ExampleDomain_Sample() {
	S := approx.Domain{Shape: approx.Ball, Dim: 3, Diameter: 2}
	rng := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, 3)
	inside := true
	for range 1000 {
		S.Sample(x, rng)
		inside = inside && x[0]*x[0]+x[1]*x[1]+x[2]*x[2] <= 1
	}
	fmt.Println(inside)
	// Output: true
}

// ExampleDomain_Validate rejects a domain without a positive diameter.
func ExampleDomain_Validate() {
	fmt.Println(approx.Domain{Shape: approx.Cube, Dim: 2}.Validate())
	// Output: domain: diameter must be positive and finite, got 0
}

// ExampleShape_String names the shapes.
func ExampleShape_String() {
	fmt.Println(approx.Cube, approx.Ball)
	// Output: cube ball
}
