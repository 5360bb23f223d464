package vector

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
)

// Simplex coding in a decomposable kernel: the paper's ORFF form (coded targets, A = CCᵀ = γI), its exact OVK form
// (A = I at λ/γ) and docs/conventions.md §5's form (one-hot targets, A = CᵀC) give the same scores up to the map f₃ = f₁·C/γ
// (+ 1/k with an intercept), for the exact solver and for ORFF; FitSimplex/Classify decode with learn.SimplexDecode.
func TestSimplexDecomposableEquivalence(t *testing.T) {
	const classes, d, n, nt, lambda = 4, 2, 60, 20, 1e-2
	q := classes - 1
	gamma := float64(classes) / float64(q)
	rng := rand.New(rand.NewPCG(30, 31))
	X := make([]float64, (n+nt)*d)
	for i := range X {
		X[i] = 2*rng.Float64() - 1
	}
	labels := make([]int, n)
	for i := range labels {
		x := X[i*d : (i+1)*d]
		labels[i] = int(math.Floor(2*(math.Atan2(x[1], x[0])+math.Pi)/math.Pi)) % classes
	}
	T := X[n*d:]
	X = X[:n*d]
	k0 := kernel.Gaussian{S: 0.5}
	must := mustKernel(t)
	k1, err := SimplexKernel(k0, classes)
	if err != nil {
		t.Fatal(err)
	}
	C := learn.SimplexCode(classes) // q×k
	Cm := mat.NewDense(q, classes, C)
	var CtC mat.Dense
	CtC.Mul(Cm.T(), Cm)
	k3 := must(ovk.NewDecomposable(k0, mat.NewSymDense(classes, mat.DenseCopyOf(&CtC).RawMatrix().Data)))
	Iq := mat.NewSymDense(q, nil)
	for i := 0; i < q; i++ {
		Iq.SetSym(i, i, 1)
	}
	k2 := must(ovk.NewDecomposable(k0, Iq))
	onehot := learn.OneHot(labels, classes, false)

	// f₁·C/γ (rows × k) from the q scores f₁, plus 1/k with an intercept: the one-hot bias also fits the mean 1/k
	// along 1, which CᵀC annihilates (a shift of every score that does not change the argmax).
	toOneHot := func(f1 []float64, rows int, icpt bool) []float64 {
		out := make([]float64, rows*classes)
		if icpt {
			for i := range out {
				out[i] = 1 / float64(classes)
			}
		}
		gemm(false, false, rows, classes, q, 1/gamma, f1, C, 1, out)
		return out
	}
	for _, icpt := range []bool{false, true} {
		// Exact.
		e1, err := KRR{Kernel: k1, Lambda: lambda, Intercept: icpt}.FitSimplex(X, n, d, labels, classes)
		if err != nil {
			t.Fatal(err)
		}
		e2, err := KRR{Kernel: k2, Lambda: lambda / gamma, Intercept: icpt}.FitSimplex(X, n, d, labels, classes)
		if err != nil {
			t.Fatal(err)
		}
		e3, err := KRR{Kernel: k3, Lambda: lambda, Intercept: icpt}.Fit(X, n, d, onehot)
		if err != nil {
			t.Fatal(err)
		}
		f1 := predictExact(t, e1, T, nt)
		if e := relDiff(predictExact(t, e2, T, nt), f1); e > 1e-10 {
			t.Errorf("exact intercept=%v: A = I at λ/γ differs from A = CCᵀ at λ by %.3g", icpt, e)
		}
		f3 := predictExact(t, e3, T, nt)
		if e := relDiff(f3, toOneHot(f1, nt, icpt)); e > 1e-9 {
			t.Errorf("exact intercept=%v: one-hot with A = CᵀC differs from f₁C/γ by %.3g", icpt, e)
		}
		cls, err := e1.Classify(T, nt)
		if err != nil {
			t.Fatal(err)
		}
		if want := learn.Argmax(f3, nt, classes); !slices.Equal(cls, want) {
			t.Errorf("exact intercept=%v: simplex decoding %v differs from the one-hot argmax %v", icpt, cls, want)
		}
		// ORFF, same scalar features for both kernels.
		m1 := mustMap(t, k1, rule.G{}, d, 30, 32)
		m3 := mustMap(t, k3, rule.G{}, d, 30, 32)
		o1, err := Ridge{Lambda: lambda, Intercept: icpt}.FitSimplex(m1, X, n, labels, classes)
		if err != nil {
			t.Fatal(err)
		}
		o3, err := Ridge{Lambda: lambda, Intercept: icpt}.Fit(m3, X, n, onehot)
		if err != nil {
			t.Fatal(err)
		}
		g1 := predictFit(t, o1, m1, T, nt)
		if e := relDiff(predictFit(t, o3, m3, T, nt), toOneHot(g1, nt, icpt)); e > 1e-9 {
			t.Errorf("ORFF intercept=%v: one-hot with A = CᵀC differs from f₁C/γ by %.3g", icpt, e)
		}
		ocls, err := o1.Classify(m1, T, nt)
		if err != nil {
			t.Fatal(err)
		}
		if want := learn.Argmax(predictFit(t, o3, m3, T, nt), nt, classes); !slices.Equal(ocls, want) {
			t.Errorf("ORFF intercept=%v: simplex decoding differs from the one-hot argmax", icpt)
		}
	}
}
