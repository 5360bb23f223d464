package kernel_test

import (
	"fmt"

	"github.com/rffkit/rff/kernel"
)

// ExampleDeriv computes the gradient of the Gaussian kernel in its first argument,
// ∇_x k(x,y) = −(x−y)/σ² · k(x,y), one partial at a time.
func ExampleDeriv() {
	k := kernel.Gaussian{S: 1}
	x, y := []float64{1, 2}, []float64{0, 0}
	for i := range x {
		p := make([]int, len(x))
		p[i] = 1
		v, err := kernel.Deriv(k, x, y, p, nil)
		if err != nil {
			panic(err)
		}
		fmt.Printf("∂k/∂x_%d = %.6f\n", i+1, v)
	}
	// The arc-cosine kernels have no closed-form derivatives.
	_, err := kernel.Deriv(kernel.ArcCos{Order: 1}, x, y, []int{1, 0}, nil)
	fmt.Println(err)
	// Output:
	// ∂k/∂x_1 = -0.082085
	// ∂k/∂x_2 = -0.164170
	// kernel arccos1 has no closed-form derivatives (order 1 asked)
}

// ExampleGradient differentiates k(x, y) in every coordinate of x at once: the values of ExampleDeriv's loop, in
// O(d) operations for the Gaussian, Cauchy and Matérn kernels.
func ExampleGradient() {
	g := make([]float64, 2)
	if err := kernel.Gradient(kernel.Gaussian{S: 1}, g, []float64{1, 2}, []float64{0, 0}); err != nil {
		panic(err)
	}
	fmt.Printf("∇ₓk = (%.6f, %.6f)\n", g[0], g[1])
	// The Laplacian kernel is not differentiable where a coordinate of x − y vanishes.
	fmt.Println(kernel.Gradient(kernel.Laplacian{S: 1}, g, []float64{1, 2}, []float64{0, 0}))
	// Output:
	// ∇ₓk = (-0.082085, -0.164170)
	// kernel laplacian: derivative of total order 1 does not exist (at most 0)
}

// ExampleMultiIndexOrder validates multi-indices: p = (2, 0, 1) is ∂³/∂x₁²∂x₃.
func ExampleMultiIndexOrder() {
	n, err := kernel.MultiIndexOrder([]int{2, 0, 1}, 3)
	fmt.Println(n, err)
	_, err = kernel.MultiIndexOrder([]int{1, 1}, 3)
	fmt.Println(err)
	// Output:
	// 3 <nil>
	// multi-index has 2 entries, want 3 (one per input coordinate)
}

// ExampleGaussian_Deriv: at x = y the mixed derivative ∂²k/∂x_i∂y_i is the second spectral moment E[ω_i²] = 1/σ².
func ExampleGaussian_Deriv() {
	k := kernel.Gaussian{S: 0.5}
	x := []float64{0.3, 0.7}
	v, _ := k.Deriv(x, x, []int{1, 0}, []int{1, 0})
	fmt.Printf("%.4f\n", v)
	// Output: 4.0000
}

// ExampleGaussian_MaxOrder: the Gaussian has derivatives of every order.
func ExampleGaussian_MaxOrder() {
	fmt.Println(kernel.Gaussian{S: 1}.MaxOrder() > 1000)
	// Output: true
}

// ExampleMatern_Deriv: for ν = 3/2, ∂²k/∂x_i∂y_i at x = y is E[ω_i²] = 3/σ²; third derivatives do not exist.
func ExampleMatern_Deriv() {
	k := kernel.Matern{Nu: 1.5, S: 1}
	x := []float64{0.2, -0.4}
	v, err := k.Deriv(x, x, []int{0, 1}, []int{0, 1})
	fmt.Printf("%.4f %v\n", v, err)
	_, err = k.Deriv(x, x, []int{0, 2}, []int{0, 1})
	fmt.Println(err)
	// Output:
	// 3.0000 <nil>
	// kernel matern32: derivative of total order 3 does not exist (at most 2)
}

// ExampleMatern_MaxOrder: the Matérn kernel of smoothness ν = n + 1/2 has derivatives of total order ≤ 2n.
func ExampleMatern_MaxOrder() {
	for _, nu := range []float64{0.5, 1.5, 2.5} {
		fmt.Println(nu, kernel.Matern{Nu: nu, S: 1}.MaxOrder())
	}
	// Output:
	// 0.5 0
	// 1.5 2
	// 2.5 4
}

// ExampleCauchy_Deriv: ∂k/∂x for the Cauchy kernel 1/(1+δ²/σ²) in one dimension is −2δ/(σ²(1+δ²/σ²)²).
func ExampleCauchy_Deriv() {
	k := kernel.Cauchy{S: 1}
	v, _ := k.Deriv([]float64{1}, []float64{0}, []int{1}, nil)
	fmt.Printf("%.4f\n", v) // −2/4
	// Output: -0.5000
}

// ExampleCauchy_MaxOrder: the Cauchy kernel has derivatives of every order.
func ExampleCauchy_MaxOrder() {
	fmt.Println(kernel.Cauchy{S: 1}.MaxOrder() > 1000)
	// Output: true
}

// ExampleLaplacian_Deriv: the Laplacian kernel is only evaluated, not differentiated.
func ExampleLaplacian_Deriv() {
	k := kernel.Laplacian{S: 1}
	v, err := k.Deriv([]float64{1}, []float64{0}, nil, nil)
	fmt.Printf("%.4f %v\n", v, err)
	_, err = k.Deriv([]float64{1}, []float64{0}, []int{1}, nil)
	fmt.Println(err)
	// Output:
	// 0.3679 <nil>
	// kernel laplacian: derivative of total order 1 does not exist (at most 0)
}

// ExampleLaplacian_MaxOrder: the Laplacian kernel is not differentiable.
func ExampleLaplacian_MaxOrder() {
	fmt.Println(kernel.Laplacian{S: 1}.MaxOrder())
	// Output: 0
}
