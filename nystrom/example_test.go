package nystrom_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/nystrom"
)

// sine returns n noisy samples of y = sin(4x₁) + x₂ on [0, 1]².
func sine(n int, seed uint64) (X, Y []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	X, Y = make([]float64, 2*n), make([]float64, n)
	for i := range n {
		X[2*i], X[2*i+1] = rng.Float64(), rng.Float64()
		Y[i] = math.Sin(4*X[2*i]) + X[2*i+1] + 0.05*rng.NormFloat64()
	}
	return X, Y
}

func rmse(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s / float64(len(a)))
}

// Nyström features on 50 landmarks chosen by k-means++, then ridge regression on them with package learn.
func Example() {
	X, Y := sine(2000, 1)
	Xt, Yt := sine(500, 2)
	k := kernel.Gaussian{S: 0.3}
	m, err := nystrom.New(k, nystrom.KMeansPP{}, X, 2000, 2, 50, 7)
	if err != nil {
		panic(err)
	}
	st, err := learn.Accumulate(m, X, 2000, Y, 1)
	if err != nil {
		panic(err)
	}
	fit, err := learn.Ridge{Lambda: 1e-6, Intercept: true}.Solve(st)
	if err != nil {
		panic(err)
	}
	pred := make([]float64, 500)
	if err := m.Predict(pred, fit, Xt, 500); err != nil {
		panic(err)
	}
	fmt.Printf("%d features on %d landmarks; test RMSE below 0.06: %v\n", m.Features(), m.Centres(), rmse(pred, Yt) < 0.06)
	// Output: 50 features on 50 landmarks; test RMSE below 0.06: true
}

// FALKON on 100 uniform centres: the same problem, solved by preconditioned conjugate gradients without forming the
// 2000×100 kernel matrix.
func ExampleFalkon() {
	X, Y := sine(2000, 1)
	Xt, Yt := sine(500, 2)
	k := kernel.Gaussian{S: 0.5}
	idx, err := nystrom.Uniform{}.Select(k, X, 2000, 2, 100, 3)
	if err != nil {
		panic(err)
	}
	C, err := nystrom.Gather(X, 2000, 2, idx)
	if err != nil {
		panic(err)
	}
	fit, err := nystrom.Falkon{Lambda: 1e-6, Intercept: true, Tol: 1e-8}.Fit(k, C, 100, 2, X, 2000, Y, 1)
	if err != nil {
		panic(err)
	}
	pred := make([]float64, 500)
	if err := fit.Predict(pred, Xt, 500); err != nil {
		panic(err)
	}
	fmt.Printf("converged in under 50 iterations: %v; test RMSE below 0.06: %v\n", fit.Iterations < 50, rmse(pred, Yt) < 0.06)
	// Output: converged in under 50 iterations: true; test RMSE below 0.06: true
}

// The two bases of Nyström features on the same landmarks, one of them repeated: the Cholesky basis (the default)
// drops the repeated landmark, the eigen basis keeps all landmarks and drops the null direction; the ridge
// predictions agree to rounding.
func ExampleWithBasis() {
	X, Y := sine(1000, 1)
	Xt, _ := sine(200, 2)
	L := append(append([]float64(nil), X[:2*30]...), X[:2]...) // 31 landmarks, the first one twice
	k := kernel.Gaussian{S: 0.3}
	predict := func(b nystrom.Basis) (*nystrom.Map, []float64) {
		m, err := nystrom.FromLandmarks(k, L, 31, 2, nystrom.WithBasis(b))
		if err != nil {
			panic(err)
		}
		st, err := learn.Accumulate(m, X, 1000, Y, 1)
		if err != nil {
			panic(err)
		}
		fit, err := learn.Ridge{Lambda: 1e-6, Intercept: true}.Solve(st)
		if err != nil {
			panic(err)
		}
		pred := make([]float64, 200)
		if err := m.Predict(pred, fit, Xt, 200); err != nil {
			panic(err)
		}
		return m, pred
	}
	b, err := nystrom.ParseBasis("cholesky")
	if err != nil {
		panic(err)
	}
	mc, pc := predict(b)
	me, pe := predict(nystrom.Eigen)
	fmt.Printf("%s: %d landmarks, %d features\n", mc.Basis(), mc.Centres(), mc.Features())
	fmt.Printf("%s: %d landmarks, %d features\n", me.Basis(), me.Centres(), me.Features())
	fmt.Println("same predictions to 1e-8:", rmse(pc, pe) < 1e-8)
	// Output:
	// cholesky: 30 landmarks, 30 features
	// eigen: 31 landmarks, 30 features
	// same predictions to 1e-8: true
}
