package nystrom_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/nystrom"
)

// dot is the inner product of two feature vectors.
func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// New selects the landmarks among the rows and factorizes their kernel matrix; the map records how, and the same
// arguments give the same map.
func ExampleNew() {
	X, _ := sine(200, 1)
	k := kernel.Gaussian{S: 0.5}
	m, err := nystrom.New(k, nystrom.Uniform{}, X, 200, 2, 20, 42)
	if err != nil {
		panic(err)
	}
	again, err := nystrom.New(k, nystrom.Uniform{}, X, 200, 2, 20, 42)
	if err != nil {
		panic(err)
	}
	z, z2 := make([]float64, 3*m.Features()), make([]float64, 3*again.Features())
	if err := m.TransformRows(z, X[:6], 3); err != nil {
		panic(err)
	}
	if err := again.TransformRows(z2, X[:6], 3); err != nil {
		panic(err)
	}
	fmt.Printf("%s landmarks (seed %d) in dimension %d: %d features in the %s basis\n",
		m.Selection(), m.Seed(), m.Dim(), m.Features(), m.Basis())
	fmt.Println("same seed, same features:", slices.Equal(z, z2))
	// Output:
	// uniform landmarks (seed 42) in dimension 2: 20 features in the cholesky basis
	// same seed, same features: true
}

// FromLandmarks builds the map on landmarks the caller chooses, here a 4×4 grid: at the landmarks the features
// reproduce the kernel exactly, ⟨ψ(c_i), ψ(c_j)⟩ = k(c_i, c_j), and between them they approximate it.
func ExampleFromLandmarks() {
	const M, d = 16, 2
	L := make([]float64, 0, M*d)
	for i := range 4 {
		for j := range 4 {
			L = append(L, float64(i)/3, float64(j)/3)
		}
	}
	k := kernel.Gaussian{S: 0.4}
	m, err := nystrom.FromLandmarks(k, L, M, d)
	if err != nil {
		panic(err)
	}
	Z := make([]float64, M*m.Features())
	if err := m.TransformRows(Z, L, M); err != nil {
		panic(err)
	}
	F := m.Features()
	var worst float64
	for i := range M {
		for j := range M {
			e := dot(Z[i*F:(i+1)*F], Z[j*F:(j+1)*F]) - k.Eval(L[i*d:(i+1)*d], L[j*d:(j+1)*d])
			worst = max(worst, math.Abs(e))
		}
	}
	x, y := []float64{0.5, 0.5}, []float64{0.2, 0.6}
	zx, zy := make([]float64, F), make([]float64, F)
	if err := m.TransformRows(zx, x, 1); err != nil {
		panic(err)
	}
	if err := m.TransformRows(zy, y, 1); err != nil {
		panic(err)
	}
	fmt.Println(m.Selection(), "landmarks:", m.Centres(), "features:", F)
	fmt.Println("exact on the landmarks to 1e-9:", worst < 1e-9)
	fmt.Println("within 0.01 between them:", math.Abs(dot(zx, zy)-k.Eval(x, y)) < 0.01)
	// Output:
	// given landmarks: 16 features: 16
	// exact on the landmarks to 1e-9: true
	// within 0.01 between them: true
}

// WithThreshold trades features for accuracy: landmarks on a fine grid are nearly dependent for a wide Gaussian, and
// a coarser threshold drops every landmark within t·max k(c, c) of the span of those kept.
func ExampleWithThreshold() {
	const M = 40
	L := make([]float64, M) // 40 landmarks on [0, 1]
	for i := range L {
		L[i] = float64(i) / (M - 1)
	}
	k := kernel.Gaussian{S: 1}
	fine, err := nystrom.FromLandmarks(k, L, M, 1)
	if err != nil {
		panic(err)
	}
	coarse, err := nystrom.FromLandmarks(k, L, M, 1, nystrom.WithThreshold(1e-4))
	if err != nil {
		panic(err)
	}
	// Every landmark's k(c, c) − ‖ψ(c)‖² is at most t = 1e-4 for the coarse map.
	z := make([]float64, M*coarse.Features())
	if err := coarse.TransformRows(z, L, M); err != nil {
		panic(err)
	}
	F := coarse.Features()
	var worst float64
	for i := range M {
		worst = max(worst, 1-dot(z[i*F:(i+1)*F], z[i*F:(i+1)*F]))
	}
	fmt.Println("fewer features at t = 1e-4:", coarse.Features() < fine.Features(), coarse.Features() < M/4)
	fmt.Println("residual at the landmarks ≤ 1e-4:", worst <= 1e-4)
	_, err = nystrom.FromLandmarks(k, L, M, 1, nystrom.WithThreshold(1))
	fmt.Println(err)
	// Output:
	// fewer features at t = 1e-4: true true
	// residual at the landmarks ≤ 1e-4: true
	// nystrom: threshold 1 must be in [0, 1)
}

// WithMaxBytes bounds the memory of the M×M arrays a map needs while it is built (3·8·M² bytes): a map beyond the
// budget is refused before anything is allocated.
func ExampleWithMaxBytes() {
	X, _ := sine(200, 1)
	_, err := nystrom.New(kernel.Gaussian{S: 0.5}, nystrom.Uniform{}, X, 200, 2, 100, 1, nystrom.WithMaxBytes(100_000))
	fmt.Println(err)
	_, err = nystrom.New(kernel.Gaussian{S: 0.5}, nystrom.Uniform{}, X, 200, 2, 100, 1, nystrom.WithMaxBytes(1<<20))
	fmt.Println("built within 1 MiB:", err == nil)
	// Output:
	// nystrom: M = 100 landmarks need 240000 bytes for K_MM and its eigendecomposition, over the budget of 100000 bytes (WithMaxBytes)
	// built within 1 MiB: true
}

// Params holds everything a map's features depend on besides the kernel: the landmarks and the normalization
// matrix, plus the pivots (Cholesky basis) or eigenvalues (eigen basis).
func ExampleMap_Params() {
	X, _ := sine(100, 1)
	m, err := nystrom.New(kernel.Gaussian{S: 0.5}, nystrom.KMeansPP{}, X, 100, 2, 10, 3)
	if err != nil {
		panic(err)
	}
	p := m.Params()
	fmt.Printf("%s, %s, seed %d: M = %d, d = %d, M' = %d\n", p.Selection, p.Basis, p.Seed, p.Centres, p.Dim, p.Features)
	fmt.Println(len(p.Landmarks), "landmark values,", len(p.Norm), "normalization values,", len(p.Pivots), "pivots,",
		len(p.Eigenvalues), "eigenvalues")
	// Output:
	// kmeans++, cholesky, seed 3: M = 10, d = 2, M' = 10
	// 20 landmark values, 100 normalization values, 10 pivots, 0 eigenvalues
}

// FromParams rebuilds a stored map without selecting or factorizing anything: here through JSON, the same features
// bit for bit. The parameters are checked against the kernel, so a map stored for one bandwidth refuses another.
func ExampleFromParams() {
	X, _ := sine(100, 1)
	k := kernel.Gaussian{S: 0.5}
	m, err := nystrom.New(k, nystrom.Uniform{}, X, 100, 2, 15, 1, nystrom.WithBasis(nystrom.Eigen))
	if err != nil {
		panic(err)
	}
	buf, err := json.Marshal(m.Params())
	if err != nil {
		panic(err)
	}
	var p nystrom.Params
	if err := json.Unmarshal(buf, &p); err != nil {
		panic(err)
	}
	back, err := nystrom.FromParams(k, p)
	if err != nil {
		panic(err)
	}
	z1, z2 := make([]float64, 5*m.Features()), make([]float64, 5*back.Features())
	if err := m.TransformRows(z1, X[:10], 5); err != nil {
		panic(err)
	}
	if err := back.TransformRows(z2, X[:10], 5); err != nil {
		panic(err)
	}
	fmt.Println(back.Basis(), back.Selection(), back.Features(), "features; same bits:", slices.Equal(z1, z2))
	_, err = nystrom.FromParams(kernel.Gaussian{S: 2}, p)
	fmt.Println("another bandwidth refused:", err != nil)
	// Output:
	// eigen uniform 15 features; same bits: true
	// another bandwidth refused: true
}

// TransformRows writes the n×M' feature matrix, on all cores; ⟨ψ(x), ψ(y)⟩ approximates k(x, y) where the data
// lie. Any learner that takes features can use it.
func ExampleMap_TransformRows() {
	X, _ := sine(300, 1)
	k := kernel.Gaussian{S: 0.5}
	m, err := nystrom.New(k, nystrom.KMeansPP{}, X, 300, 2, 30, 1)
	if err != nil {
		panic(err)
	}
	const n = 5
	F := m.Features()
	Z := make([]float64, n*F)
	if err := m.TransformRows(Z, X[:n*2], n); err != nil {
		panic(err)
	}
	var worst float64
	for i := range n {
		for j := range n {
			e := dot(Z[i*F:(i+1)*F], Z[j*F:(j+1)*F]) - k.Eval(X[2*i:2*i+2], X[2*j:2*j+2])
			worst = max(worst, math.Abs(e))
		}
	}
	fmt.Printf("%d rows × %d features; max |⟨ψ(x), ψ(y)⟩ − k(x, y)| < 1e-3: %v\n", n, F, worst < 1e-3)
	// Output: 5 rows × 30 features; max |⟨ψ(x), ψ(y)⟩ − k(x, y)| < 1e-3: true
}

// TransformBlock is the unchecked form for one block of rows on the calling goroutine, with reusable scratch for the
// kernel values (rows×Points(); the eigen basis uses it, the Cholesky basis does not need it).
func ExampleMap_TransformBlock() {
	X, _ := sine(100, 1)
	k := kernel.Gaussian{S: 0.5}
	m, err := nystrom.New(k, nystrom.Uniform{}, X, 100, 2, 12, 1, nystrom.WithBasis(nystrom.Eigen))
	if err != nil {
		panic(err)
	}
	const rows = 4
	proj := make([]float64, rows*m.Points())
	z := make([]float64, rows*m.Features())
	m.TransformBlock(z, X[:rows*2], rows, proj)
	ref := make([]float64, rows*m.Features())
	if err := m.TransformRows(ref, X[:rows*2], rows); err != nil {
		panic(err)
	}
	var diff float64
	for i := range z {
		diff = max(diff, math.Abs(z[i]-ref[i]))
	}
	fmt.Println(len(proj), "kernel values of scratch,", len(z), "features; as TransformRows:", diff < 1e-12)
	// Output: 48 kernel values of scratch, 48 features; as TransformRows: true
}

// Gradient differentiates the features. With nothing dropped, ⟨ψ(x), ψ(c)⟩ = k(x, c) for a landmark c, so the
// gradient of that inner product in x is ∇_x k(x, c) = −(x − c)/σ²·k(x, c).
func ExampleMap_Gradient() {
	const M, d = 6, 2
	L := []float64{0, 0, 1, 0, 0, 1, 1, 1, 0.5, 0.5, 0.2, 0.8}
	k := kernel.Gaussian{S: 0.7}
	m, err := nystrom.FromLandmarks(k, L, M, d)
	if err != nil {
		panic(err)
	}
	F := m.Features()
	x := []float64{0.3, 0.4}
	g := make([]float64, d*F) // block j holds ∂ψ(x)/∂x_j
	if err := m.Gradient(g, x, 1); err != nil {
		panic(err)
	}
	c := L[2:4] // the landmark (1, 0)
	zc := make([]float64, F)
	if err := m.TransformRows(zc, c, 1); err != nil {
		panic(err)
	}
	kxc := k.Eval(x, c)
	for j := range d {
		want := -(x[j] - c[j]) / (k.S * k.S) * kxc
		fmt.Printf("∂k/∂x_%d = %.3f: %v\n", j+1, want, math.Abs(dot(g[j*F:(j+1)*F], zc)-want) < 1e-9)
	}
	lap, err := nystrom.FromLandmarks(kernel.Laplacian{S: 1}, L, M, d)
	if err != nil {
		panic(err)
	}
	fmt.Println(lap.Gradient(g, x, 1))
	// Output:
	// ∂k/∂x_1 = 0.736: true
	// ∂k/∂x_2 = -0.421: true
	// nystrom: Gradient: the laplacian kernel has no first derivatives everywhere
}

// GradientProduct differentiates a model θᵀψ(x) without its derivative features. With θ = ψ(c) for a landmark c,
// θᵀψ(x) = k(x, c) (nothing dropped), so the gradient is ∇ₓk(x, c).
func ExampleMap_GradientProduct() {
	const M, d = 6, 2
	L := []float64{0, 0, 1, 0, 0, 1, 1, 1, 0.5, 0.5, 0.2, 0.8}
	k := kernel.Gaussian{S: 0.7}
	m, err := nystrom.FromLandmarks(k, L, M, d)
	if err != nil {
		panic(err)
	}
	c := L[2:4] // the landmark (1, 0)
	theta := make([]float64, m.Features())
	if err := m.TransformRows(theta, c, 1); err != nil {
		panic(err)
	}
	x := []float64{0.3, 0.4}
	g := make([]float64, d)
	if err := m.GradientProduct(g, x, 1, theta, 1); err != nil {
		panic(err)
	}
	kxc := k.Eval(x, c)
	for j := range d {
		want := -(x[j] - c[j]) / (k.S * k.S) * kxc
		fmt.Printf("∂k/∂x_%d = %.3f: %v\n", j+1, want, math.Abs(g[j]-want) < 1e-9)
	}
	// Output:
	// ∂k/∂x_1 = 0.736: true
	// ∂k/∂x_2 = -0.421: true
}

// Predict evaluates a ridge fit on the map's features; with P outputs dst holds n×P values, row after row.
func ExampleMap_Predict() {
	X, y := sine(400, 1)
	Y := make([]float64, 2*400) // two outputs: y and −2y
	for i, v := range y {
		Y[2*i], Y[2*i+1] = v, -2*v
	}
	m, err := nystrom.New(kernel.Gaussian{S: 0.3}, nystrom.KMeansPP{}, X, 400, 2, 40, 1)
	if err != nil {
		panic(err)
	}
	fit, err := learn.Ridge{Lambda: 1e-6, Intercept: true}.FitMap(m, X, 400, Y, 2)
	if err != nil {
		panic(err)
	}
	Xt, yt := sine(100, 2)
	pred := make([]float64, 100*2)
	if err := m.Predict(pred, fit, Xt, 100); err != nil {
		panic(err)
	}
	var e0, e1 float64
	for i, v := range yt {
		e0 += (pred[2*i] - v) * (pred[2*i] - v)
		e1 += (pred[2*i+1] + 2*v) * (pred[2*i+1] + 2*v)
	}
	fmt.Printf("RMSE below 0.1 and 0.2: %v %v\n", math.Sqrt(e0/100) < 0.1, math.Sqrt(e1/100) < 0.2)
	// Output: RMSE below 0.1 and 0.2: true true
}

// Fit solves the restricted kernel ridge problem by preconditioned conjugate gradients. A budget of iterations too
// small to reach Tol returns the last iterate with an error wrapping ErrNotConverged, which a caller can accept.
func ExampleFalkon_Fit() {
	X, Y := sine(500, 1)
	k := kernel.Gaussian{S: 0.5}
	idx, err := nystrom.Uniform{}.Select(k, X, 500, 2, 40, 1)
	if err != nil {
		panic(err)
	}
	C, err := nystrom.Gather(X, 500, 2, idx)
	if err != nil {
		panic(err)
	}
	fit, err := nystrom.Falkon{Lambda: 1e-4, Intercept: true}.Fit(k, C, 40, 2, X, 500, Y, 1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v: %d centres, under 50 iterations: %v, residual < 1e-6: %v, passes = iterations + 2: %v\n",
		fit.Preconditioner, fit.M, fit.Iterations < 50, fit.Residual < 1e-6, fit.Passes == fit.Iterations+2)

	short, err := nystrom.Falkon{Lambda: 1e-4, Intercept: true, MaxIter: 2}.Fit(k, C, 40, 2, X, 500, Y, 1)
	if errors.Is(err, nystrom.ErrNotConverged) {
		fmt.Println("not converged after", short.Iterations, "iterations; the fit is usable:", short.Alpha != nil)
	}
	// Output:
	// cholesky: 40 centres, under 50 iterations: true, residual < 1e-6: true, passes = iterations + 2: true
	// not converged after 2 iterations; the fit is usable: true
}

// Predict evaluates f(x) = αᵀk_M(x) + b. With the same centres and λ, FALKON solves the problem that ridge
// regression on Nyström features solves, so their predictions agree to the tolerance of CG.
func ExampleFalkonFit_Predict() {
	X, Y := sine(500, 1)
	Xt, _ := sine(50, 2)
	k := kernel.Gaussian{S: 0.5}
	idx, err := nystrom.Uniform{}.Select(k, X, 500, 2, 30, 1)
	if err != nil {
		panic(err)
	}
	C, err := nystrom.Gather(X, 500, 2, idx)
	if err != nil {
		panic(err)
	}
	const lambda = 1e-3
	fit, err := nystrom.Falkon{Lambda: lambda, Intercept: true, Tol: 1e-10}.Fit(k, C, 30, 2, X, 500, Y, 1)
	if err != nil {
		panic(err)
	}
	pf := make([]float64, 50)
	if err := fit.Predict(pf, Xt, 50); err != nil {
		panic(err)
	}

	m, err := nystrom.FromLandmarks(k, C, 30, 2)
	if err != nil {
		panic(err)
	}
	rf, err := learn.Ridge{Lambda: lambda, Intercept: true}.FitMap(m, X, 500, Y, 1)
	if err != nil {
		panic(err)
	}
	pr := make([]float64, 50)
	if err := m.Predict(pr, rf, Xt, 50); err != nil {
		panic(err)
	}
	fmt.Println("FALKON and Nyström ridge agree to 1e-6:", rmse(pf, pr) < 1e-6)
	// Output: FALKON and Nyström ridge agree to 1e-6: true
}

// Uniform sampling returns the indices of M distinct rows in increasing order, the same for a seed.
func ExampleUniform_Select() {
	X, _ := sine(50, 1)
	idx, err := nystrom.Uniform{}.Select(kernel.Gaussian{S: 1}, X, 50, 2, 5, 7)
	if err != nil {
		panic(err)
	}
	again, _ := nystrom.Uniform{}.Select(kernel.Gaussian{S: 1}, X, 50, 2, 5, 7)
	increasing := true
	for i := 1; i < len(idx); i++ {
		increasing = increasing && idx[i] > idx[i-1]
	}
	fmt.Println(len(idx), "indices, increasing:", increasing, "same for the seed:", slices.Equal(idx, again))
	// Output: 5 indices, increasing: true same for the seed: true
}

// k-means++ seeding spreads the landmarks over the data: on three far-apart clusters, three landmarks take one in
// each.
func ExampleKMeansPP_Select() {
	centres := [][2]float64{{0, 0}, {10, 0}, {0, 10}}
	X := make([]float64, 0, 60*2)
	for i := range 60 {
		c := centres[i%3]
		X = append(X, c[0]+0.1*math.Sin(float64(i)), c[1]+0.1*math.Cos(float64(i)))
	}
	idx, err := nystrom.KMeansPP{}.Select(kernel.Gaussian{S: 1}, X, 60, 2, 3, 1)
	if err != nil {
		panic(err)
	}
	seen := map[int]bool{}
	for _, i := range idx {
		seen[i%3] = true
	}
	fmt.Println("clusters covered:", len(seen))
	// Output: clusters covered: 3
}

// Ridge leverage scores favour rows that the kernel cannot represent from others: at λ = 0.01 (in the units of the
// n×n kernel matrix) the three isolated rows score close to 1 and the 200 rows of a tight crowd about 1/200 each, so
// leverage sampling takes the isolated rows, which uniform sampling takes with probability M/n each.
func ExampleLeverage_Select() {
	const n = 203
	X := make([]float64, 0, n*2)
	for i := range 200 { // a crowd near the origin
		X = append(X, 0.001*math.Sin(float64(i)), 0.001*math.Cos(float64(3*i)))
	}
	X = append(X, 5, 5, -5, 5, 5, -5) // three isolated rows: 200, 201, 202
	k := kernel.Gaussian{S: 1}
	isolated := func(s nystrom.Selector) int {
		idx, err := s.Select(k, X, n, 2, 20, 1)
		if err != nil {
			panic(err)
		}
		c := 0
		for _, i := range idx {
			if i >= 200 {
				c++
			}
		}
		return c
	}
	fmt.Println("isolated rows among 20 landmarks: leverage", isolated(nystrom.Leverage{Lambda: 0.01}),
		"uniform", isolated(nystrom.Uniform{}))
	// Output: isolated rows among 20 landmarks: leverage 3 uniform 1
}

// Gather copies the selected rows into an M×d matrix of landmarks.
func ExampleGather() {
	X := []float64{0, 0, 1, 10, 2, 20, 3, 30} // 4 rows, d = 2
	L, err := nystrom.Gather(X, 4, 2, []int{3, 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(L)
	_, err = nystrom.Gather(X, 4, 2, []int{4})
	fmt.Println(err)
	// Output:
	// [3 30 1 10]
	// nystrom.Gather: index 4 out of range [0, 4)
}

// SelectorByName maps the command-line names of the landmark selections to selectors.
func ExampleSelectorByName() {
	for _, name := range []string{"uniform", "kmeans++", "kmeanspp", "leverage"} {
		s, err := nystrom.SelectorByName(name)
		if err != nil {
			panic(err)
		}
		fmt.Println(name, "→", s.Name())
	}
	_, err := nystrom.SelectorByName("random")
	fmt.Println(err)
	// Output:
	// uniform → uniform
	// kmeans++ → kmeans++
	// kmeanspp → kmeans++
	// leverage → leverage
	// nystrom: unknown landmark selection "random" (have uniform, kmeans++, leverage)
}

// ParseBasis reads a basis name, as package rff does for Config.NystromBasis; "" is the default, Cholesky.
func ExampleParseBasis() {
	for _, name := range []string{"", "cholesky", "eigen"} {
		b, err := nystrom.ParseBasis(name)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%q → %v\n", name, b)
	}
	_, err := nystrom.ParseBasis("svd")
	fmt.Println(err)
	// Output:
	// "" → cholesky
	// "cholesky" → cholesky
	// "eigen" → eigen
	// nystrom: unknown basis "svd" (want cholesky or eigen)
}

// ForPrediction gives the features a prediction needs: a row mapped alone has the bits it has among other rows, and
// the features agree with the fitted map's to rounding (two summation orders of the normalization product).
func ExampleMap_ForPrediction() {
	X, _ := sine(200, 1)
	m, err := nystrom.New(kernel.Gaussian{S: 0.5}, nystrom.Uniform{}, X, 200, 2, 20, 42)
	if err != nil {
		panic(err)
	}
	p := m.ForPrediction()
	F := p.Features()
	all, one, fitted := make([]float64, 200*F), make([]float64, F), make([]float64, 200*F)
	if err := p.TransformRows(all, X, 200); err != nil {
		panic(err)
	}
	if err := p.TransformRows(one, X[2*10:2*11], 1); err != nil {
		panic(err)
	}
	if err := m.TransformRows(fitted, X, 200); err != nil {
		panic(err)
	}
	same := slices.EqualFunc(one, all[10*F:11*F], func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) })
	var diff, scale float64
	for i := range all {
		diff = math.Max(diff, math.Abs(all[i]-fitted[i]))
		scale = math.Max(scale, math.Abs(fitted[i]))
	}
	fmt.Println("row 11 alone has the bits of the batch:", same)
	fmt.Println("within 1e-10 of the fitted map's largest feature:", diff <= 1e-10*scale)
	// Output:
	// row 11 alone has the bits of the batch: true
	// within 1e-10 of the fitted map's largest feature: true
}
