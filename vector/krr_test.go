package vector

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/ovk"
)

// bruteExact solves (K + NλI)vec(α) = vec(Y) on the dense block Gram (centred with an intercept) with gonum and
// returns the predictions Σ_i K(x, x_i)(Hα)_i + b at T.
func bruteExact(t *testing.T, k *ovk.Kernel, X []float64, n, d int, Y []float64, lambda float64, icpt bool,
	T []float64, m int) (alpha, pred []float64) {
	t.Helper()
	p, _ := k.Outputs(d)
	np := n * p
	K := make([]float64, np*np)
	if err := ovk.Gram(K, k, X, n, X, n, d); err != nil {
		t.Fatal(err)
	}
	Km := mat.NewDense(np, np, K)
	yc := append([]float64(nil), Y...)
	ybar := make([]float64, p)
	var Kc mat.Dense
	Kc.CloneFrom(Km)
	if icpt {
		ybar = centreColumns(yc, n, p)
		// H⊗I_p as a dense matrix.
		H := mat.NewDense(np, np, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				v := -1 / float64(n)
				if i == j {
					v++
				}
				for a := 0; a < p; a++ {
					H.Set(i*p+a, j*p+a, v)
				}
			}
		}
		Kc.Product(H, Km, H)
	}
	for i := 0; i < np; i++ {
		Kc.Set(i, i, Kc.At(i, i)+float64(n)*lambda)
	}
	var a mat.VecDense
	if err := a.SolveVec(&Kc, mat.NewVecDense(np, yc)); err != nil {
		t.Fatal(err)
	}
	alpha = append([]float64(nil), a.RawVector().Data...)
	b := make([]float64, p)
	if icpt {
		centreColumns(alpha, n, p)
		// b = ȳ − mean_j (Kα)_j.
		Ka := make([]float64, np)
		gemm(false, false, np, 1, np, 1, K, alpha, 0, Ka)
		mean := centreColumns(Ka, n, p)
		for c := range b {
			b[c] = ybar[c] - mean[c]
		}
	}
	Kt := make([]float64, m*p*np)
	if err := ovk.Gram(Kt, k, T, m, X, n, d); err != nil {
		t.Fatal(err)
	}
	pred = make([]float64, m*p)
	gemm(false, false, m*p, 1, np, 1, Kt, alpha, 0, pred)
	for i := 0; i < m; i++ {
		for c := 0; c < p; c++ {
			pred[i*p+c] += b[c]
		}
	}
	return alpha, pred
}

// Exact decomposable OVK ridge (shifted systems and eigen route) equals the brute-force Np×Np solve with K₀⊗A, and
// so does the block-Gram solver; the curl-free and divergence-free block solvers match it too.
func TestKRRMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 21))
	const d, n, m, lambda = 2, 25, 7, 1e-2
	must := mustKernel(t)
	cases := []struct {
		name string
		k    *ovk.Kernel
	}{
		{"dec full rank", must(ovk.NewDecomposable(kernel.Gaussian{S: 0.7}, randPSD(rng, 3, 3)))},
		{"dec rank 1", must(ovk.NewDecomposable(kernel.Gaussian{S: 0.7}, randPSD(rng, 3, 1)))},
		{"dec 10 outputs (eigen route)", must(ovk.NewDecomposable(kernel.Gaussian{S: 0.7}, randPSD(rng, 10, 10)))},
		{"curl-free", must(ovk.NewCurlFree(0.7))},
		{"div-free", must(ovk.NewDivFree(0.7))},
		{"helmholtz", must(ovk.NewHelmholtz(0.7, 0.4))},
	}
	for _, c := range cases {
		p, _ := c.k.Outputs(d)
		X, Y := field(n, d, p, 0.1, 22)
		T, _ := field(m, d, p, 0, 23)
		for _, icpt := range []bool{false, true} {
			wantA, wantP := bruteExact(t, c.k, X, n, d, Y, lambda, icpt, T, m)
			fit, err := KRR{Kernel: c.k, Lambda: lambda, Intercept: icpt}.Fit(X, n, d, Y)
			if err != nil {
				t.Fatal(err)
			}
			if e := relDiff(fit.Alpha, wantA); e > 1e-9 {
				t.Errorf("%s intercept=%v: α differs from the brute-force solve by %.3g (%s)", c.name, icpt, e, fit.Stats.Method)
			}
			if e := relDiff(predictExact(t, fit, T, m), wantP); e > 1e-9 {
				t.Errorf("%s intercept=%v: predictions differ by %.3g", c.name, icpt, e)
			}
			if fit.Stats.Residual > 1e-10 {
				t.Errorf("%s: residual %.3g", c.name, fit.Stats.Residual)
			}
			if c.k.Kind() != ovk.Decomposable {
				continue
			}
			path, err := KRR{Kernel: c.k, Intercept: icpt}.FitPath(X, n, d, Y, []float64{lambda, 1})
			if err != nil {
				t.Fatal(err)
			}
			if path[0].Stats.Method != "eigen" {
				t.Errorf("%s: path method %q", c.name, path[0].Stats.Method)
			}
			if e := relDiff(predictExact(t, path[0], T, m), wantP); e > 1e-9 {
				t.Errorf("%s intercept=%v: eigen-route predictions differ by %.3g", c.name, icpt, e)
			}
			// The generic block-Gram solver on the same decomposable kernel.
			blk, err := KRR{Kernel: c.k, Intercept: icpt}.block("test", X, n, d, Y, p, []float64{lambda})
			if err != nil {
				t.Fatal(err)
			}
			if e := relDiff(predictExact(t, blk[0], T, m), wantP); e > 1e-9 {
				t.Errorf("%s intercept=%v: block-Gram predictions differ by %.3g", c.name, icpt, e)
			}
		}
	}
}

// The exact curl-free (and divergence-free) ridge solution zeroes the gradient of its objective
// J(α) = (1/N)‖K̃α − ỹ‖² + λαᵀK̃α, ∇J = (2/N)K̃((K̃ + NλI)α − ỹ).
func TestKRRGradientZero(t *testing.T) {
	const d, n, lambda = 3, 40, 1e-3
	must := mustKernel(t)
	for _, k := range []*ovk.Kernel{must(ovk.NewCurlFree(0.8)), must(ovk.NewDivFree(0.8))} {
		p, _ := k.Outputs(d)
		X, Y := field(n, d, p, 0.1, 24)
		for _, icpt := range []bool{false, true} {
			fit, err := KRR{Kernel: k, Lambda: lambda, Intercept: icpt}.Fit(X, n, d, Y)
			if err != nil {
				t.Fatal(err)
			}
			np := n * p
			K := make([]float64, np*np)
			if err := ovk.Gram(K, k, X, n, X, n, d); err != nil {
				t.Fatal(err)
			}
			y := append([]float64(nil), Y...)
			if icpt {
				centreBlockGram(K, n, p)
				centreColumns(y, n, p)
			}
			r := make([]float64, np)
			gemm(false, false, np, 1, np, 1, K, fit.Alpha, 0, r)
			for i := range r {
				r[i] += float64(n)*lambda*fit.Alpha[i] - y[i]
			}
			g := make([]float64, np)
			gemm(false, false, np, 1, np, 1, K, r, 2/float64(n), g)
			g0 := make([]float64, np)
			gemm(false, false, np, 1, np, 1, K, y, 2/float64(n), g0)
			if e := floats.Norm(g, 2) / floats.Norm(g0, 2); e > 1e-10 {
				t.Errorf("%s intercept=%v: relative gradient %.3g", k.Name(), icpt, e)
			}
		}
	}
}
