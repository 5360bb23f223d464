package rule_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rffkit/rff/rule"
)

// ExampleSR draws one realization of the SR(3,3) rule and checks its exactness on a quadratic:
// E‖ω‖² = d under N(0, I_d), and the rule integrates every polynomial of degree ≤ 3 exactly.
func ExampleSR() {
	const d = 5
	p, err := rule.SR{Rotation: rule.Butterfly}.Draw(d, 2*(d+1), true, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	W := rule.Dense(p)
	est := 0.0 // the zero node contributes w₀·‖0‖² = 0
	for j, w := range p.Weights() {
		var sq float64
		for _, v := range W[j*d : (j+1)*d] {
			sq += v * v
		}
		est += w * sq
	}
	fmt.Printf("%d points, E‖ω‖² ≈ %.10f (exact %d)\n", p.Len(), est, d)
	// Output: 12 points, E‖ω‖² ≈ 5.0000000000 (exact 5)
}

// ExampleParse lists the rules by their command-line names.
func ExampleParse() {
	for _, name := range []string{"g", "orf", "sorf", "qmc", "gq:4", "b", "sr-haar"} {
		r, err := rule.Parse(name)
		if err != nil {
			panic(err)
		}
		fmt.Print(r.Name(), " ")
	}
	fmt.Println()
	// Output: g orf sorf qmc gq:4 sr-butterfly sr-haar
}

// ExampleDense shows that a structured rule's projection equals the product with its materialized points.
func ExampleDense() {
	const d = 6
	p, _ := rule.SORF{}.Draw(d, 8, true, rand.New(rand.NewPCG(3, 4)))
	x := []float64{1, 2, 3, 4, 5, 6}
	proj := make([]float64, p.Len())
	p.Project(proj, x, 1)
	W := rule.Dense(p)
	var dot float64
	for i := range x {
		dot += W[i] * x[i]
	}
	fmt.Println(math.Abs(proj[0]-dot) < 1e-12)
	// Output: true
}
