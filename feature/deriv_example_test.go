package feature_test

import (
	"fmt"
	"math"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// ExampleMap_Derivative computes the features of ∂ψ/∂x₁ at two points: the same 2D columns as the map (cos block
// then sin block), each cos column becoming −√w_j ω_{j1} sin(ω_jᵀx) and each sin column √w_j ω_{j1} cos(ω_jᵀx).
func ExampleMap_Derivative() {
	const d = 2
	m, err := feature.New(kernel.Gaussian{S: 1}, rule.G{}, d, 500, 1)
	if err != nil {
		panic(err)
	}
	x := []float64{0.5, -0.2, 0.1, 0.3} // two rows
	dz := make([]float64, 2*m.Features())
	if err := m.Derivative(dz, x, 2, []int{1, 0}); err != nil {
		panic(err)
	}
	fmt.Println(len(dz)/2, "columns per row for", m.Points(), "points")
	// Output: 1000 columns per row for 500 points
}

// ExampleMap_Gradient fits nothing but shows the layout: row r holds d blocks of Features() columns, block i being
// ∂ψ(x_r)/∂x_i, so the gradient of f(x) = ψ(x)ᵀθ is (block_i·θ)_i. With θ = ψ(y) (so f(x) = k̂(x,y)), the gradient
// approximates ∇_x k(x,y) = −(x−y)/σ²·k(x,y).
func ExampleMap_Gradient() {
	const d = 2
	k := kernel.Gaussian{S: 1}
	m, err := feature.New(k, rule.ORF{}, d, 3000, 7)
	if err != nil {
		panic(err)
	}
	x, y := []float64{0.4, 0.1}, []float64{0, 0}
	F := m.Features()
	g := make([]float64, d*F)
	if err := m.Gradient(g, x, 1); err != nil {
		panic(err)
	}
	theta := make([]float64, F)
	if err := m.TransformRows(theta, y, 1); err != nil {
		panic(err)
	}
	for i := 0; i < d; i++ {
		var est float64
		for c, v := range g[i*F : (i+1)*F] {
			est += v * theta[c]
		}
		exact := -(x[i] - y[i]) * k.Eval(x, y)
		fmt.Printf("∂f/∂x_%d ≈ ∂k/∂x_%d to 0.02: %v\n", i+1, i+1, math.Abs(est-exact) < 0.02)
	}
	// Output:
	// ∂f/∂x_1 ≈ ∂k/∂x_1 to 0.02: true
	// ∂f/∂x_2 ≈ ∂k/∂x_2 to 0.02: true
}

// ExampleMap_GradientProduct differentiates a model f(x) = θᵀψ(x) without its derivative features: with θ = ψ(y),
// f(x) ≈ k(x, y) and ∇f(x) ≈ ∇ₓk(x, y), as in ExampleMap_Gradient.
func ExampleMap_GradientProduct() {
	const d = 2
	k := kernel.Gaussian{S: 1}
	m, err := feature.New(k, rule.ORF{}, d, 3000, 7)
	if err != nil {
		panic(err)
	}
	x, y := []float64{0.4, 0.1}, []float64{0, 0}
	theta := make([]float64, m.Features())
	if err := m.TransformRows(theta, y, 1); err != nil {
		panic(err)
	}
	g := make([]float64, d) // one row, d inputs, one output
	if err := m.GradientProduct(g, x, 1, theta, 1); err != nil {
		panic(err)
	}
	for i := range d {
		exact := -(x[i] - y[i]) * k.Eval(x, y)
		fmt.Printf("∂f/∂x_%d ≈ ∂k/∂x_%d to 0.02: %v\n", i+1, i+1, math.Abs(g[i]-exact) < 0.02)
	}
	// Output:
	// ∂f/∂x_1 ≈ ∂k/∂x_1 to 0.02: true
	// ∂f/∂x_2 ≈ ∂k/∂x_2 to 0.02: true
}

// ExampleMap_EstimateDeriv estimates the mixed derivative ∂²k/∂x₁∂y₁ of a Gaussian kernel from derivative features
// and compares it with the exact value from package kernel.
func ExampleMap_EstimateDeriv() {
	const d = 3
	k := kernel.Gaussian{S: 1.5}
	m, err := feature.New(k, rule.ORF{}, d, 20000, 3)
	if err != nil {
		panic(err)
	}
	x, y := []float64{0.3, 0.1, -0.2}, []float64{-0.1, 0.4, 0.2}
	p, q := []int{1, 0, 0}, []int{1, 0, 0}
	est, err := m.EstimateDeriv(x, y, p, q)
	if err != nil {
		panic(err)
	}
	exact, _ := k.Deriv(x, y, p, q)
	fmt.Printf("exact %.3f, |estimate − exact| < 0.01: %v\n", exact, math.Abs(est-exact) < 0.01)
	// Output: exact 0.377, |estimate − exact| < 0.01: true
}

// ExampleMap_Frequencies rebuilds the kernel estimate of a cos/sin map from its frequencies and weights:
// k̂(x,y) = Σ_j w_j cos(ω_jᵀ(x−y)) + Offset().
func ExampleMap_Frequencies() {
	const d = 2
	m, err := feature.New(kernel.Matern{Nu: 2.5, S: 1}, rule.SR{Rotation: rule.Butterfly}, d, 12, 5)
	if err != nil {
		panic(err)
	}
	W, w := m.Frequencies(), m.Weights()
	x, y := []float64{0.2, 0.7}, []float64{-0.3, 0.1}
	khat := m.Offset()
	for j := range w {
		khat += w[j] * math.Cos(W[j*d]*(x[0]-y[0])+W[j*d+1]*(x[1]-y[1]))
	}
	est, _ := m.EstimateDeriv(x, y, nil, nil)
	fmt.Println(len(W)/d, "frequencies; same estimate:", math.Abs(khat-est) < 1e-12)
	// Output: 12 frequencies; same estimate: true
}

// ExampleMap_Weights: the weights of a rule and its zero node sum to 1 (k̂(x,x) = 1 for a cos/sin map).
func ExampleMap_Weights() {
	m, err := feature.New(kernel.Gaussian{S: 1}, rule.SR{Rotation: rule.Haar}, 3, 16, 2)
	if err != nil {
		panic(err)
	}
	s := m.Offset()
	for _, w := range m.Weights() {
		s += w
	}
	fmt.Printf("%.12f\n", s)
	// Output: 1.000000000000
}
