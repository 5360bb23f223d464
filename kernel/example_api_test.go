package kernel_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/kernel"
)

// ExampleGramDense computes the exact Gram matrix of two sets of points as a gonum matrix: entry (i, j) is
// k(x_i, y_j).
func ExampleGramDense() {
	X := mat.NewDense(2, 2, []float64{
		0, 0,
		1, 0,
	})
	Y := mat.NewDense(3, 2, []float64{
		0, 0,
		0, 1,
		1, 1,
	})
	K, err := kernel.GramDense(kernel.Gaussian{S: 1}, X, Y)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.4f\n", mat.Formatted(K))
	// Output:
	// ⎡1.0000  0.6065  0.3679⎤
	// ⎣0.6065  0.3679  0.6065⎦
}

// ExampleMedianSigma chooses σ by the median heuristic: the median pairwise distance between rows, Euclidean for the
// Gaussian and ℓ1 for the Laplacian. Five points on the diagonal of the plane have pairwise distances k·√2
// (Euclidean) and 2k (ℓ1), k = 1…4, whose median is at k = 2.
func ExampleMedianSigma() {
	X := []float64{0, 0, 1, 1, 2, 2, 3, 3, 4, 4} // 5 rows, d = 2
	for _, name := range []string{"gaussian", "laplacian"} {
		s, err := kernel.MedianSigma(name, X, 5, 2, 0, 1)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: σ = %.4f\n", name, s)
	}
	_, err := kernel.MedianSigma("arccos1", X, 5, 2, 0, 1)
	fmt.Println(err)
	// Output:
	// gaussian: σ = 2.8284
	// laplacian: σ = 4.0000
	// kernel.MedianSigma: the arccos1 kernel is scale-free: it has no bandwidth to choose
}

// ExampleSigmaFromGamma converts γ in exp(−γ‖δ‖²) to σ in exp(−‖δ‖²/(2σ²)); the command-line default γ = 1/d gives
// σ = √(d/2).
func ExampleSigmaFromGamma() {
	fmt.Println(kernel.SigmaFromGamma(0.5))
	d := 8.0
	fmt.Println(kernel.SigmaFromGamma(1 / d))
	// Output:
	// 1
	// 2
}

// ExampleNames lists the kernels New accepts.
func ExampleNames() {
	for _, name := range kernel.Names() {
		k, err := kernel.New(name, 1)
		if err != nil {
			panic(err)
		}
		_, spectral := k.(kernel.Spectral)
		fmt.Println(name, spectral)
	}
	// Output:
	// gaussian true
	// laplacian true
	// matern12 true
	// matern32 true
	// matern52 true
	// cauchy true
	// arccos0 false
	// arccos1 false
}

// ExampleCauchyFromNormal maps standard normal quantiles to standard Cauchy ones: z = Φ⁻¹(0.75) goes to the Cauchy
// quartile tan(π/4) = 1, and z = Φ⁻¹(0.975) to tan(0.475π).
func ExampleCauchyFromNormal() {
	for _, z := range []float64{0, 0.6744897501960817, -0.6744897501960817, 1.959963984540054} {
		fmt.Printf("%.6f\n", kernel.CauchyFromNormal(z))
	}
	// Output:
	// 0.000000
	// 1.000000
	// -1.000000
	// 12.706205
}

// ExampleLaplaceFromNormal maps standard normal quantiles to Laplace(0, 1) ones: z = Φ⁻¹(0.75) goes to ln 2, and
// z = Φ⁻¹(0.975) to ln 20.
func ExampleLaplaceFromNormal() {
	for _, z := range []float64{0.6744897501960817, 1.959963984540054, -1.959963984540054} {
		fmt.Printf("%.6f\n", kernel.LaplaceFromNormal(z))
	}
	fmt.Printf("%.6f %.6f\n", math.Ln2, math.Log(20))
	// Output:
	// 0.693147
	// 2.995732
	// -2.995732
	// 0.693147 2.995732
}

// ExampleLaw_Sample draws frequencies from a kernel's spectral law and estimates the kernel by Bochner's theorem,
// k(x, y) = E_ω[cos(ωᵀ(x − y))]: plain Monte Carlo random features.
func ExampleLaw_Sample() {
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := []float64{0.3, -0.2}, []float64{-0.1, 0.4}
	delta := []float64{x[0] - y[0], x[1] - y[1]}
	omega := make([]float64, 2)
	for _, k := range []kernel.Spectral{kernel.Gaussian{S: 1}, kernel.Laplacian{S: 1}, kernel.Matern{Nu: 1.5, S: 1}} {
		law := k.Law()
		const draws = 100000
		var s float64
		for range draws {
			law.Sample(omega, rng)
			s += math.Cos(omega[0]*delta[0] + omega[1]*delta[1])
		}
		fmt.Printf("%s: |estimate − k| < 0.01: %v\n", k.Name(), math.Abs(s/draws-k.Eval(x, y)) < 0.01)
	}
	// Output:
	// gaussian: |estimate − k| < 0.01: true
	// laplacian: |estimate − k| < 0.01: true
	// matern32: |estimate − k| < 0.01: true
}

// ExampleGaussian_Eval evaluates exp(−‖x − y‖²/(2σ²)).
func ExampleGaussian_Eval() {
	k := kernel.Gaussian{S: 1}
	fmt.Printf("%.6f\n", k.Eval([]float64{0, 0}, []float64{1, 1})) // e⁻¹
	// Output: 0.367879
}

// ExampleLaplacian_Eval evaluates exp(−‖x − y‖₁/σ).
func ExampleLaplacian_Eval() {
	k := kernel.Laplacian{S: 1}
	fmt.Printf("%.6f\n", k.Eval([]float64{0, 0}, []float64{1, 1})) // e⁻²
	// Output: 0.135335
}

// ExampleCauchy_Eval evaluates Π_i 1/(1 + (x_i − y_i)²/σ²).
func ExampleCauchy_Eval() {
	k := kernel.Cauchy{S: 1}
	fmt.Println(k.Eval([]float64{0, 0}, []float64{1, 1})) // 1/2 · 1/2
	// Output: 0.25
}

// ExampleMatern_Eval evaluates the three Matérn kernels at r = ‖x − y‖ = σ: e⁻¹, (1 + √3)e^{−√3} and
// (1 + √5 + 5/3)e^{−√5}; the smoother the kernel, the slower it falls near 0.
func ExampleMatern_Eval() {
	x, y := []float64{0, 0}, []float64{0.6, 0.8} // r = 1
	for _, nu := range []float64{0.5, 1.5, 2.5} {
		k := kernel.Matern{Nu: nu, S: 1}
		fmt.Printf("%s: %.6f\n", k.Name(), k.Eval(x, y))
	}
	// Output:
	// matern12: 0.367879
	// matern32: 0.483358
	// matern52: 0.523994
}

// ExampleArcCos_Eval evaluates the arc-cosine kernels at an angle θ = π/4: order 0 is 1 − θ/π, order 1 is
// ‖x‖‖y‖(sin θ + (π − θ)cos θ)/π.
func ExampleArcCos_Eval() {
	x, y := []float64{1, 0}, []float64{1, 1}
	for _, order := range []int{0, 1} {
		k := kernel.ArcCos{Order: order}
		fmt.Printf("%s: %.6f\n", k.Name(), k.Eval(x, y))
	}
	fmt.Printf("1/π + 3/4 = %.6f\n", 1/math.Pi+0.75)
	// Output:
	// arccos0: 0.750000
	// arccos1: 1.068310
	// 1/π + 3/4 = 1.068310
}

// rowsAndCentres returns n rows and m centres of dimension d, uniform on [0, 1), from a fixed seed.
func rowsAndCentres(n, m, d int) (X, Y []float64) {
	rng := rand.New(rand.NewPCG(4, 2))
	X, Y = make([]float64, n*d), make([]float64, m*d)
	for i := range X {
		X[i] = rng.Float64()
	}
	for i := range Y {
		Y[i] = rng.Float64()
	}
	return X, Y
}

// sameRow reports whether row i of a (n×m) holds the bits of row.
func sameRow(a []float64, i, m int, row []float64) bool {
	for j, v := range row {
		if math.Float64bits(v) != math.Float64bits(a[i*m+j]) {
			return false
		}
	}
	return true
}

// ExampleGramRows forms the kernel values of 300 rows of 64 dimensions against 100 centres, and of one of those rows
// alone: GramRows gives the row the same bits either way, as predictions need, and agrees with Gram within its
// error control.
func ExampleGramRows() {
	const n, m, d = 300, 100, 64
	X, Y := rowsAndCentres(n, m, d)
	k := kernel.Gaussian{S: 2}
	all, one, ref := make([]float64, n*m), make([]float64, m), make([]float64, n*m)
	_ = kernel.GramRows(all, k, X, n, Y, m, d)
	_ = kernel.GramRows(one, k, X[7*d:8*d], 1, Y, m, d)
	_ = kernel.Gram(ref, k, X, n, Y, m, d)
	var diff float64
	for i := range all {
		diff = math.Max(diff, math.Abs(all[i]-ref[i]))
	}
	fmt.Println("row 8 alone has the bits of the batch:", sameRow(all, 7, m, one))
	fmt.Println("within 1e-12 of Gram:", diff <= 1e-12)
	// Output:
	// row 8 alone has the bits of the batch: true
	// within 1e-12 of Gram: true
}

// ExampleCentres_ForPrediction prepares centres once for predictions: their Gram gives a row the same bits alone as
// among other rows.
func ExampleCentres_ForPrediction() {
	const n, m, d = 300, 100, 64
	X, Y := rowsAndCentres(n, m, d)
	c, _ := kernel.NewCentres(kernel.Matern{Nu: 2.5, S: 2}, Y, m, d)
	p := c.ForPrediction()
	all, one := make([]float64, n*m), make([]float64, m)
	_ = p.Gram(all, X, n)
	_ = p.Gram(one, X[42*d:43*d], 1)
	fmt.Println(p.Points(), "centres; row 43 alone has the bits of the batch:", sameRow(all, 42, m, one))
	// Output: 100 centres; row 43 alone has the bits of the batch: true
}
