package ovk_test

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
)

func ExampleNames() {
	fmt.Println(ovk.Names())
	// Output: [decomposable curl-free div-free helmholtz]
}

func ExampleKind_String() {
	fmt.Println(ovk.Decomposable, ovk.CurlFree, ovk.DivFree, ovk.Helmholtz)
	// Output: decomposable curl-free div-free helmholtz
}

// The curl-free kernel at δ = 0 is I/σ².
func ExampleNewCurlFree() {
	k, err := ovk.NewCurlFree(0.5)
	if err != nil {
		panic(err)
	}
	K, _ := k.At([]float64{1, 2}, []float64{1, 2})
	fmt.Println(mat.Formatted(K))
	// Output:
	// ⎡4  0⎤
	// ⎣0  4⎦
}

// The divergence-free kernel at δ = 0 is (d−1)I/σ².
func ExampleNewDivFree() {
	k, _ := ovk.NewDivFree(1)
	K, _ := k.At([]float64{0, 0, 0}, []float64{0, 0, 0})
	fmt.Println(mat.Formatted(K))
	// Output:
	// ⎡2  0  0⎤
	// ⎢0  2  0⎥
	// ⎣0  0  2⎦
}

// A Helmholtz kernel mixes the two: w·I/σ² + (1−w)(d−1)I/σ² at δ = 0.
func ExampleNewHelmholtz() {
	k, _ := ovk.NewHelmholtz(1, 0.25)
	K, _ := k.At([]float64{0, 0, 0}, []float64{0, 0, 0})
	fmt.Println(k.Name(), K.At(0, 0))
	// Output: helmholtz:0.25 1.75
}

// A decomposable kernel k₀(δ)·A; B (p×p') drops A's null directions.
func ExampleNewDecomposable() {
	A := mat.NewSymDense(3, []float64{
		2, 1, 0,
		1, 2, 0,
		0, 0, 0,
	})
	k, err := ovk.NewDecomposable(kernel.Gaussian{S: 1}, A)
	if err != nil {
		panic(err)
	}
	r, c := k.B().Dims()
	fmt.Printf("B is %d×%d\n", r, c)
	K, _ := k.At([]float64{0}, []float64{1}) // k₀ = e^{−1/2}
	fmt.Printf("%.4f\n", mat.Formatted(K))

	_, err = ovk.NewDecomposable(kernel.Gaussian{S: 1}, mat.NewSymDense(2, []float64{1, 2, 2, 1}))
	fmt.Println(err)
	// Output:
	// B is 3×2
	// ⎡1.2131  0.6065  0.0000⎤
	// ⎢0.6065  1.2131  0.0000⎥
	// ⎣0.0000  0.0000  0.0000⎦
	// ovk: decomposable kernel: A is not positive semi-definite (eigenvalue -1, largest 3)
}

// A is often the covariance of the training targets.
func ExampleOutputCovariance() {
	Y := []float64{ // 4 rows, 2 outputs
		1, 2,
		2, 4,
		3, 6,
		4, 8,
	}
	A, _ := ovk.OutputCovariance(Y, 4, 2)
	fmt.Printf("%.4f\n", mat.Formatted(A))
	// Output:
	// ⎡1.6667  3.3333⎤
	// ⎣3.3333  6.6667⎦
}

func ExampleParse() {
	for _, s := range []string{"curl-free", "div", "helmholtz:0.3", "helmholtz:1"} {
		k, _ := ovk.Parse(s, 0.4, nil)
		fmt.Println(k.Name(), k.Kind(), k.Sigma())
	}
	_, err := ovk.Parse("decomposable", 0.4, nil)
	fmt.Println(err)
	// Output:
	// curl-free curl-free 0.4
	// div-free div-free 0.4
	// helmholtz:0.3 helmholtz 0.4
	// curl-free curl-free 0.4
	// ovk: decomposable kernel needs a matrix A
}

// Eval writes K(x,z) into a caller's p×p buffer (no validation, for hot loops).
func ExampleKernel_Eval() {
	k, _ := ovk.NewCurlFree(1)
	dst := make([]float64, 4)
	k.Eval(dst, []float64{1, 0}, []float64{0, 0}) // δ = e₁: e^{−1/2}·(I − e₁e₁ᵀ)
	fmt.Printf("%.4f\n", dst)
	// Output: [0.0000 0.0000 0.0000 0.6065]
}

func ExampleKernel_At() {
	k, _ := ovk.NewDivFree(1)
	K, _ := k.At([]float64{1, 0}, []float64{0, 0}) // e^{−1/2}·(δδᵀ + (d−1−‖δ‖²)I)
	fmt.Printf("%.4f\n", mat.Formatted(K))
	_, err := k.At([]float64{1}, []float64{0})
	fmt.Println(err)
	// Output:
	// ⎡0.6065  0.0000⎤
	// ⎣0.0000  0.0000⎦
	// ovk: div-free kernel needs input dimension d ≥ 2, got 1
}

func ExampleKernel_Outputs() {
	k, _ := ovk.NewCurlFree(1)
	p, _ := k.Outputs(5)
	fmt.Println(p)
	// Output: 5
}

// The block Gram matrix of two points in R² under a curl-free kernel is 4×4.
func ExampleGram() {
	k, _ := ovk.NewCurlFree(1)
	X := []float64{0, 0, 1, 0}
	G := make([]float64, 16)
	if err := ovk.Gram(G, k, X, 2, X, 2, 2); err != nil {
		panic(err)
	}
	fmt.Printf("%.4f\n", mat.Formatted(mat.NewDense(4, 4, G)))
	// Output:
	// ⎡1.0000  0.0000  0.0000  0.0000⎤
	// ⎢0.0000  1.0000  0.0000  0.6065⎥
	// ⎢0.0000  0.0000  1.0000  0.0000⎥
	// ⎣0.0000  0.6065  0.0000  1.0000⎦
}

// GramDense takes gonum matrices; X and Z may differ (a cross-Gram).
func ExampleGramDense() {
	k, _ := ovk.NewDecomposable(kernel.Gaussian{S: 1}, mat.NewDiagDense(2, []float64{1, 3}))
	X := mat.NewDense(3, 1, []float64{0, 1, 2})
	Z := mat.NewDense(1, 1, []float64{0})
	G, _ := ovk.GramDense(k, X, Z)
	r, c := G.Dims()
	fmt.Println(r, c)
	fmt.Printf("%.4f\n", mat.Formatted(G))
	// Output:
	// 6 2
	// ⎡1.0000  0.0000⎤
	// ⎢0.0000  3.0000⎥
	// ⎢0.6065  0.0000⎥
	// ⎢0.0000  1.8196⎥
	// ⎢0.1353  0.0000⎥
	// ⎣0.0000  0.4060⎦
}

// A curl-free ORFF map from the SR(3,3) quadrature rule: D = 2n(d+1) points, F = 2·D·p' features.
func ExampleNew() {
	k, _ := ovk.NewCurlFree(0.8)
	m, err := ovk.New(k, rule.SR{Rotation: rule.Butterfly}, 4, 2*3*5, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println("p =", m.Outputs(), "p' =", m.Rank(), "D =", m.Points(), "F =", m.Features(), "offset =", m.Offset())

	div, _ := ovk.NewDivFree(0.8)
	m, _ = ovk.New(div, rule.ORF{}, 4, 100, 1)
	fmt.Println("p =", m.Outputs(), "p' =", m.Rank(), "D =", m.Points(), "F =", m.Features())
	// Output:
	// p = 4 p' = 1 D = 30 F = 60 offset = 0
	// p = 4 p' = 3 D = 100 F = 600
}

// Estimate is K̃(x,z); with many points it approaches K(x,z).
func ExampleMap_Estimate() {
	k, _ := ovk.NewDivFree(1)
	m, _ := ovk.New(k, rule.QMC{}, 3, 20000, 7)
	x, z := []float64{0.1, 0.2, 0.3}, []float64{-0.3, 0.4, 0}
	Kt, _ := m.Estimate(x, z)
	K, _ := k.At(x, z)
	var E mat.Dense
	E.Sub(Kt, K)
	fmt.Println("max |K̃ − K| < 0.02:", mat.Norm(&E, math.Inf(1)) < 0.02)
	// Output: max |K̃ − K| < 0.02: true
}

// TransformRows writes the (n·p)×F design matrix: row i·p+a is output a of row i.
func ExampleMap_TransformRows() {
	k, _ := ovk.NewCurlFree(1)
	m, _ := ovk.New(k, rule.G{}, 2, 3, 1)
	x := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6} // 3 rows
	Z := make([]float64, 3*m.Outputs()*m.Features())
	if err := m.TransformRows(Z, x, 3); err != nil {
		panic(err)
	}
	fmt.Println(len(Z), "=", 3, "rows ×", m.Outputs(), "outputs ×", m.Features(), "features")
	// Output: 36 = 3 rows × 2 outputs × 6 features
}

// TransformBlock is the single-goroutine, unchecked form for a block of rows, with reusable scratch.
func ExampleMap_TransformBlock() {
	k, _ := ovk.NewDecomposable(kernel.Gaussian{S: 1}, mat.NewDiagDense(2, []float64{1, 1}))
	m, _ := ovk.New(k, rule.G{}, 3, 4, 1)
	x := []float64{0.1, 0.2, 0.3}
	proj := make([]float64, m.Points()) // scratch: rows × D
	Z := make([]float64, m.Outputs()*m.Features())
	m.TransformBlock(Z, x, 1, proj)
	// A = I: output 1 uses the odd features, with the same values as output 0 uses the even ones.
	fmt.Println(Z[0] == Z[m.Features()+1], Z[1] == 0)
	// Output: true true
}

// Transform works on gonum matrices and allocates an empty destination.
func ExampleMap_Transform() {
	k, _ := ovk.NewHelmholtz(1, 0.5)
	m, _ := ovk.New(k, rule.ORF{}, 3, 10, 1)
	var Z mat.Dense
	if err := m.Transform(&Z, mat.NewDense(5, 3, nil)); err != nil {
		panic(err)
	}
	fmt.Println(Z.Dims())
	// Output: 15 60
}

// Phi is Φ̃(x) in the paper's F×p orientation: K̃(x,z) = Φ̃(x)ᵀΦ̃(z).
func ExampleMap_Phi() {
	k, _ := ovk.NewCurlFree(1)
	m, _ := ovk.New(k, rule.G{}, 2, 50, 3)
	x, z := []float64{0, 1}, []float64{1, 0}
	px, _ := m.Phi(x)
	pz, _ := m.Phi(z)
	var G mat.Dense
	G.Mul(px.T(), pz)
	Kt, _ := m.Estimate(x, z)
	var E mat.Dense
	E.Sub(&G, Kt)
	fmt.Println(px.Dims())
	fmt.Println("Φ̃(x)ᵀΦ̃(z) = K̃(x,z):", mat.Norm(&E, math.Inf(1)) < 1e-12)
	// Output:
	// 100 2
	// Φ̃(x)ᵀΦ̃(z) = K̃(x,z): true
}

// ScalarBlock gives the scalar cos/sin features z(x): a decomposable model is f̃(x) = B·Θᵀ·z(x).
func ExampleMap_ScalarBlock() {
	k, _ := ovk.NewDecomposable(kernel.Gaussian{S: 1}, mat.NewSymDense(2, []float64{2, 1, 1, 2}))
	m, _ := ovk.New(k, rule.G{}, 3, 8, 1)
	x := []float64{0.1, 0.2, 0.3}
	z := make([]float64, m.ScalarFeatures())
	m.ScalarBlock(z, x, 1, nil)
	theta := make([]float64, m.Features()) // Θ is (2D)×p', row-major
	for i := range theta {
		theta[i] = float64(i%5) - 2
	}
	// f̃ = B·(Θᵀz)
	pr := m.Rank()
	u := make([]float64, pr)
	for f, zf := range z {
		for c := 0; c < pr; c++ {
			u[c] += zf * theta[f*pr+c]
		}
	}
	var f mat.VecDense
	f.MulVec(k.B(), mat.NewVecDense(pr, u))
	pred := make([]float64, 2)
	_ = m.Predict(pred, x, 1, theta)
	fmt.Println(math.Abs(f.AtVec(0)-pred[0]) < 1e-12, math.Abs(f.AtVec(1)-pred[1]) < 1e-12)
	// Output: true true
}

// Predict evaluates f̃(x) = Φ̃(x)ᵀθ without forming the features.
func ExampleMap_Predict() {
	k, _ := ovk.NewDivFree(0.5)
	m, _ := ovk.New(k, rule.SR{Rotation: rule.Haar}, 3, 40, 1)
	theta := make([]float64, m.Features())
	theta[0] = 1
	x := []float64{0.1, 0.2, 0.3, 0.3, 0.2, 0.1} // 2 rows
	f := make([]float64, 2*3)
	if err := m.Predict(f, x, 2, theta); err != nil {
		panic(err)
	}
	fmt.Println(len(f), "values: 2 rows × 3 outputs")
	// Output: 6 values: 2 rows × 3 outputs
}

// Adjoint is the transpose of Predict: ⟨Predict(θ), y⟩ = ⟨θ, Adjoint(y)⟩.
func ExampleMap_Adjoint() {
	k, _ := ovk.NewCurlFree(1)
	m, _ := ovk.New(k, rule.G{}, 2, 5, 1)
	x := []float64{0.1, 0.2, 0.3, 0.4}
	theta := make([]float64, m.Features())
	for i := range theta {
		theta[i] = float64(i) / 10
	}
	y := []float64{1, -1, 0.5, 2}
	f := make([]float64, 4)
	_ = m.Predict(f, x, 2, theta)
	g := make([]float64, m.Features())
	_ = m.Adjoint(g, x, 2, y)
	var a, b float64
	for i := range f {
		a += f[i] * y[i]
	}
	for i := range g {
		b += theta[i] * g[i]
	}
	fmt.Println(math.Abs(a-b) < 1e-12)
	// Output: true
}

// A curl-free model's Jacobian is symmetric, a divergence-free model's is traceless, whatever θ.
func ExampleMap_Jacobian() {
	x := []float64{0.2, -0.1, 0.4}
	for _, mk := range []func(float64) (*ovk.Kernel, error){ovk.NewCurlFree, ovk.NewDivFree} {
		k, _ := mk(1)
		m, _ := ovk.New(k, rule.G{}, 3, 30, 1)
		theta := make([]float64, m.Features())
		for i := range theta {
			theta[i] = math.Sin(float64(i))
		}
		J := make([]float64, 9)
		_ = m.Jacobian(J, x, theta)
		asym := math.Max(math.Abs(J[1]-J[3]), math.Max(math.Abs(J[2]-J[6]), math.Abs(J[5]-J[7])))
		trace := J[0] + J[4] + J[8]
		fmt.Printf("%s: symmetric %v, traceless %v\n", k.Name(), asym < 1e-12, math.Abs(trace) < 1e-12)
	}
	// Output:
	// curl-free: symmetric true, traceless false
	// div-free: symmetric false, traceless true
}

// SupError is the largest spectral-norm error over sampled pairs (Fig. 1A of the ORFF paper).
func ExampleSupError() {
	k, _ := ovk.NewCurlFree(1)
	X := []float64{0, 0, 0.5, 0.5, -1, 1} // 3 pairs in R²
	Z := []float64{1, 0, 0.5, -0.5, 1, 1}
	small, _ := ovk.New(k, rule.G{}, 2, 10, 1)
	large, _ := ovk.New(k, rule.G{}, 2, 10000, 1)
	e1, _ := ovk.SupError(small, X, Z, 3)
	e2, _ := ovk.SupError(large, X, Z, 3)
	fmt.Println("error falls with D:", e2 < e1, e2 < 0.1)
	// Output: error falls with D: true true
}

// EmpiricalVariance is (1/S)Σ_s (K̃_s − K)² over S seeds; at δ = 0 the curl-free G-rule value is V[A]/D = (d+1)I/(σ⁴D).
func ExampleEmpiricalVariance() {
	k, _ := ovk.NewCurlFree(1)
	seeds := make([]uint64, 4000)
	for i := range seeds {
		seeds[i] = uint64(i)
	}
	x := []float64{0, 0}
	V, _ := ovk.EmpiricalVariance(k, rule.G{}, 2, 10, x, x, seeds)
	fmt.Printf("diagonal ≈ %.1f (theory (d+1)/D = 0.3)\n", (V.At(0, 0)+V.At(1, 1))/2)
	// Output: diagonal ≈ 0.3 (theory (d+1)/D = 0.3)
}

// VarianceNorm is ‖V[K̃(x,z)]‖₂ over seeds, the quantity of Fig. 1B; D·‖V‖ stays put as D grows.
func ExampleVarianceNorm() {
	k, _ := ovk.NewCurlFree(1)
	seeds := make([]uint64, 2000)
	for i := range seeds {
		seeds[i] = uint64(i)
	}
	x, z := []float64{0.1, 0.2, 0.3}, []float64{0.4, 0.1, -0.2}
	v10, _ := ovk.VarianceNorm(k, rule.G{}, 3, 10, x, z, seeds)
	v100, _ := ovk.VarianceNorm(k, rule.G{}, 3, 100, x, z, seeds)
	fmt.Printf("D·‖V‖ at D=10 and D=100 agree within 20%%: %v\n", math.Abs(10*v10-100*v100) < 0.2*10*v10)
	// Output: D·‖V‖ at D=10 and D=100 agree within 20%: true
}
