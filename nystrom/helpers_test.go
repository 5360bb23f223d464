package nystrom

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/kernel"
)

// u is the unit roundoff of float64.
const u = 0x1p-53

// uniformData returns n×d inputs uniform on [0, 1)^d and n×p targets y = sin(Σ_j x_j·(j+1)) (+ output index) + noise.
func uniformData(n, d, p int, seed uint64) (X, Y []float64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	X = make([]float64, n*d)
	for i := range X {
		X[i] = rng.Float64()
	}
	Y = make([]float64, n*p)
	for i := range n {
		var s float64
		for j := range d {
			s += X[i*d+j] * float64(j+1)
		}
		for o := range p {
			Y[i*p+o] = math.Sin(s+float64(o)) + float64(o) + 0.1*rng.NormFloat64()
		}
	}
	return X, Y
}

// gram returns k(A, B) (na×nb) with kernel.Gram.
func gram(t testing.TB, k kernel.Kernel, A []float64, na int, B []float64, nb, d int) []float64 {
	t.Helper()
	out := make([]float64, na*nb)
	if err := kernel.Gram(out, k, A, na, B, nb, d); err != nil {
		t.Fatal(err)
	}
	return out
}

// directKRR solves the restricted kernel ridge regression problem densely, (K_NMᵀK_NM + NλK_MM)α = K_NMᵀY (centred
// when intercept: K_NM's columns and Y centred, b = ȳ − αᵀm̄), and returns the predictions at Xt and the condition
// number of the system matrix.
func directKRR(t testing.TB, k kernel.Kernel, C []float64, M, d int, X []float64, n int, Y []float64, p int,
	lambda float64, intercept bool, Xt []float64, nt int) (pred []float64, cond float64) {
	t.Helper()
	knm := mat.NewDense(n, M, gram(t, k, X, n, C, M, d))
	kmm := mat.NewDense(M, M, gram(t, k, C, M, C, M, d))
	y := mat.NewDense(n, p, append([]float64(nil), Y...))
	mean := make([]float64, M)
	ybar := make([]float64, p)
	if intercept {
		for a := range M {
			mean[a] = mat.Sum(knm.ColView(a)) / float64(n)
		}
		for j := range p {
			ybar[j] = mat.Sum(y.ColView(j)) / float64(n)
		}
		for i := range n {
			for a := range M {
				knm.Set(i, a, knm.At(i, a)-mean[a])
			}
			for j := range p {
				y.Set(i, j, y.At(i, j)-ybar[j])
			}
		}
	}
	var H mat.SymDense
	H.SymOuterK(1, knm.T())
	for a := range M {
		for b := a; b < M; b++ {
			H.SetSym(a, b, H.At(a, b)+float64(n)*lambda*kmm.At(a, b))
		}
	}
	var rhs mat.Dense
	rhs.Mul(knm.T(), y)
	var ch mat.Cholesky
	if !ch.Factorize(&H) {
		t.Fatal("direct solve: the system is not positive definite")
	}
	var alpha mat.Dense
	if err := ch.SolveTo(&alpha, &rhs); err != nil {
		t.Fatal(err)
	}
	var es mat.EigenSym
	if !es.Factorize(&H, false) {
		t.Fatal("eigenvalues failed")
	}
	v := es.Values(nil)
	cond = v[len(v)-1] / v[0]
	ktm := mat.NewDense(nt, M, gram(t, k, Xt, nt, C, M, d))
	var P mat.Dense
	P.Mul(ktm, &alpha)
	pred = make([]float64, nt*p)
	for i := range nt {
		for j := range p {
			b := 0.0
			if intercept {
				b = ybar[j]
				for a := range M {
					b -= alpha.At(a, j) * mean[a]
				}
			}
			pred[i*p+j] = P.At(i, j) + b
		}
	}
	return pred, cond
}

// relDiff returns ‖a − b‖/‖b‖.
func relDiff(a, b []float64) float64 {
	var num, den float64
	for i := range b {
		num += (a[i] - b[i]) * (a[i] - b[i])
		den += b[i] * b[i]
	}
	return math.Sqrt(num / den)
}

// allKernels returns every kernel of package kernel, with bandwidth sigma where it takes one.
func allKernels(t testing.TB, sigma float64) []kernel.Kernel {
	t.Helper()
	var out []kernel.Kernel
	for _, name := range kernel.Names() {
		k, err := kernel.New(name, sigma)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, k)
	}
	return out
}
