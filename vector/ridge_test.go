package vector

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/metrics"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
)

// Closed form / Cholesky = CG = L-BFGS: every solver reaches the same optimum to 1e-6 relative (measured worst 5e-9
// with the tolerances below), with cached scalar features and through ovk.Map.Predict/Adjoint.
func TestSolversAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const d, D, n, lambda = 3, 12, 80, 1e-3
	for _, k := range allKernels(t, rng) {
		for _, r := range []rule.Rule{rule.G{}, rule.SR{Rotation: rule.Butterfly}} {
			m := mustMap(t, k, r, d, D, 3)
			X, Y := field(n, d, m.Outputs(), 0.05, 4)
			for _, icpt := range []bool{false, true} {
				ref, err := Ridge{Lambda: lambda, Intercept: icpt, Solver: Cholesky}.Fit(m, X, n, Y)
				if err != nil {
					t.Fatal(err)
				}
				if ref.Stats.Residual > 1e-10 {
					t.Errorf("%s/%s: Cholesky residual %.3g", k.Name(), r.Name(), ref.Stats.Residual)
				}
				solvers := []Solver{CG, LBFGS}
				if k.Kind() == ovk.Decomposable {
					solvers = append(solvers, ClosedForm, Auto)
				}
				yScale := math.Sqrt(floats.Dot(Y, Y) / float64(len(Y)))
				for _, s := range solvers {
					tol := 1e-12
					if s == LBFGS {
						tol = 1e-11
					}
					// MaxBytes: 1 makes CG and L-BFGS recompute the features through ovk.Map.Predict/Adjoint.
					for _, limit := range []int64{0, 1} {
						if s != CG && s != LBFGS && limit == 1 {
							continue
						}
						fit, err := Ridge{Lambda: lambda, Intercept: icpt, Solver: s, Tol: tol, MaxIter: 5000, MaxBytes: limit}.Fit(m, X, n, Y)
						if err != nil {
							t.Fatalf("%s/%s/%v: %v", k.Name(), r.Name(), s, err)
						}
						if e := relDiff(fit.Theta, ref.Theta); e > 1e-6 {
							t.Errorf("%s/%s intercept=%v: %v θ differs from Cholesky by %.3g (%d iterations, residual %.3g)",
								k.Name(), r.Name(), icpt, s, e, fit.Stats.Iterations, fit.Stats.Residual)
						}
						for a := range fit.Bias {
							if e := math.Abs(fit.Bias[a]-ref.Bias[a]) / yScale; e > 1e-6 {
								t.Errorf("%s/%s: %v bias %d differs by %.3g", k.Name(), r.Name(), s, a, e)
							}
						}
						if fit.Stats.Method == "" || fit.Stats.Seconds <= 0 {
							t.Errorf("%v: stats not filled: %+v", s, fit.Stats)
						}
					}
				}
			}
		}
	}
}

// The normal equations assembled from the scalar statistics equal Σ_i Φ̃(x_i)Φ̃(x_i)ᵀ and Σ_i Φ̃(x_i)y_i computed
// from the design matrix of ovk.Map.TransformRows, centred or not, for every kernel and rule.
func TestNormalEquationsMatchDesign(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const d, D, n = 3, 6, 40
	for _, k := range allKernels(t, rng) {
		for _, name := range rule.Names() {
			r, err := rule.Parse(name)
			if err != nil {
				t.Fatal(err)
			}
			m := mustMap(t, k, r, d, D, 7)
			p, F := m.Outputs(), m.Features()
			X, Y := field(n, d, p, 0.1, 8)
			design := make([]float64, n*p*F)
			if err := m.TransformRows(design, X, n); err != nil {
				t.Fatal(err)
			}
			s, err := Accumulate(m, X, n, Y)
			if err != nil {
				t.Fatal(err)
			}
			for _, icpt := range []bool{false, true} {
				phi := append([]float64(nil), design...)
				yc := append([]float64(nil), Y...)
				if icpt {
					// Subtract Φ̄ᵀ (p×F) from every p×F block and ȳ from every target.
					mean := make([]float64, p*F)
					for i := 0; i < n; i++ {
						for j, v := range phi[i*p*F : (i+1)*p*F] {
							mean[j] += v / float64(n)
						}
					}
					for i := 0; i < n; i++ {
						for j := range mean {
							phi[i*p*F+j] -= mean[j]
						}
					}
					centreColumns(yc, n, p)
				}
				G := make([]float64, F*F)
				gemm(true, false, F, F, n*p, 1, phi, phi, 0, G)
				h := make([]float64, F)
				gemm(true, false, F, 1, n*p, 1, phi, yc, 0, h)
				if !icpt { // the cached design-matrix operator of CG and L-BFGS equals the map's Predict and Adjoint
					lin := newCachedDesign(m, mapFactors(m), X, n)
					theta := make([]float64, F)
					for i := range theta {
						theta[i] = math.Sin(float64(i))
					}
					got, want := make([]float64, n*p), make([]float64, n*p)
					_ = lin.predict(got, theta)
					if err := m.Predict(want, X, n, theta); err != nil {
						t.Fatal(err)
					}
					if e := relDiff(got, want); e > 1e-13 {
						t.Errorf("%s/%s: cached predict differs by %.3g", k.Name(), name, e)
					}
					ga, wa := make([]float64, F), make([]float64, F)
					_ = lin.adjoint(ga, Y)
					if err := m.Adjoint(wa, X, n, Y); err != nil {
						t.Fatal(err)
					}
					if e := relDiff(ga, wa); e > 1e-13 {
						t.Errorf("%s/%s: cached adjoint differs by %.3g", k.Name(), name, e)
					}
				}
				Gs, hs := normalEquations(mapFactors(m), s, icpt)
				if e := relDiff(Gs, G); e > 1e-12 {
					t.Errorf("%s/%s intercept=%v: ΦᵀΦ differs by %.3g", k.Name(), name, icpt, e)
				}
				if e := relDiff(hs, h); e > 1e-12 {
					t.Errorf("%s/%s intercept=%v: ΦᵀY differs by %.3g", k.Name(), name, icpt, e)
				}
			}
		}
	}
}

// A decomposable ORFF with A = I is p independent scalar ridge regressions on the same features (package feature's
// map for the same scalar kernel, rule and seed).
func TestDecomposableIdentityEqualsIndependentRidge(t *testing.T) {
	const d, D, n, p = 3, 20, 120, 4
	k0 := kernel.Gaussian{S: 0.8}
	A := mat.NewSymDense(p, nil)
	for i := 0; i < p; i++ {
		A.SetSym(i, i, 1)
	}
	k := mustKernel(t)(ovk.NewDecomposable(k0, A))
	X, Y := field(n, d, p, 0.1, 9)
	Xt, _ := field(50, d, p, 0, 10)
	for _, r := range []rule.Rule{rule.G{}, rule.ORF{}, rule.SR{Rotation: rule.Haar}} {
		m := mustMap(t, k, r, d, D, 11)
		fm, err := feature.New(k0, r, d, D, 11)
		if err != nil {
			t.Fatal(err)
		}
		sf, err := learn.Accumulate(fm, X, n, Y, p)
		if err != nil {
			t.Fatal(err)
		}
		so, err := Accumulate(m, X, n, Y)
		if err != nil {
			t.Fatal(err)
		}
		if relDiff(so.ZtZ, sf.ZtZ) != 0 || relDiff(so.ZtY, sf.ZtY) != 0 {
			t.Fatalf("%s: scalar ORFF statistics differ from package feature's", r.Name())
		}
		for _, icpt := range []bool{false, true} {
			ridge, err := learn.Ridge{Lambda: 1e-3, Intercept: icpt}.Solve(sf)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float64, 50*p)
			if err := ridge.PredictMap(want, fm, Xt, 50); err != nil {
				t.Fatal(err)
			}
			for _, s := range []Solver{ClosedForm, Cholesky} {
				fit, err := Ridge{Lambda: 1e-3, Intercept: icpt, Solver: s}.Fit(m, X, n, Y)
				if err != nil {
					t.Fatal(err)
				}
				if e := relDiff(predictFit(t, fit, m, Xt, 50), want); e > 1e-10 {
					t.Errorf("%s intercept=%v %v: predictions differ from independent ridges by %.3g", r.Name(), icpt, s, e)
				}
			}
			path, err := Ridge{Intercept: icpt}.FitPath(m, X, n, Y, []float64{1e-3, 1e-2})
			if err != nil {
				t.Fatal(err)
			}
			if path[0].Stats.Method != "eigen" {
				t.Errorf("path method %q, want eigen", path[0].Stats.Method)
			}
			if e := relDiff(predictFit(t, path[0], m, Xt, 50), want); e > 1e-9 {
				t.Errorf("%s intercept=%v: eigen path differs from independent ridges by %.3g", r.Name(), icpt, e)
			}
		}
	}
}

// The decomposable closed form (shifted systems and eigen path) equals the brute-force solution of the Kronecker
// system (ZᵀZ⊗BᵀB + NλI)vec(Θ) = vec(ZᵀYB), formed here only.
func TestDecomposableClosedFormKronecker(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	const d, D, n, p, lambda = 2, 8, 30, 3, 1e-2
	for _, rank := range []int{3, 2} {
		k := mustKernel(t)(ovk.NewDecomposable(kernel.Gaussian{S: 0.7}, randPSD(rng, p, rank)))
		m := mustMap(t, k, rule.G{}, d, D, 14)
		X, Y := field(n, d, p, 0.1, 15)
		F2, pr := 2*D, m.Rank()
		Z := make([]float64, n*F2)
		m.ScalarBlock(Z, X, n, nil)
		B := k.B()
		for _, icpt := range []bool{false, true} {
			zc := append([]float64(nil), Z...)
			yc := append([]float64(nil), Y...)
			if icpt {
				centreColumns(zc, n, F2)
				centreColumns(yc, n, p)
			}
			Zm := mat.NewDense(n, F2, zc)
			var ZtZ, ZtYB, ZtY, BtB mat.Dense
			ZtZ.Mul(Zm.T(), Zm)
			ZtY.Mul(Zm.T(), mat.NewDense(n, p, yc))
			ZtYB.Mul(&ZtY, B)
			BtB.Mul(B.T(), B)
			var kron mat.Dense
			kron.Kronecker(&ZtZ, &BtB) // row (f,k) = f·p'+k: the layout of θ
			for i := 0; i < F2*pr; i++ {
				kron.Set(i, i, kron.At(i, i)+float64(n)*lambda)
			}
			rhs := mat.NewVecDense(F2*pr, mat.DenseCopyOf(&ZtYB).RawMatrix().Data)
			var want mat.VecDense
			if err := want.SolveVec(&kron, rhs); err != nil {
				t.Fatal(err)
			}
			for _, s := range []Solver{ClosedForm, Cholesky} {
				fit, err := Ridge{Lambda: lambda, Intercept: icpt, Solver: s}.Fit(m, X, n, Y)
				if err != nil {
					t.Fatal(err)
				}
				if e := relDiff(fit.Theta, want.RawVector().Data); e > 1e-9 {
					t.Errorf("rank %d intercept=%v %v: Θ differs from the Kronecker solve by %.3g", rank, icpt, s, e)
				}
			}
			path, err := Ridge{Intercept: icpt}.FitPath(m, X, n, Y, []float64{lambda, 10 * lambda})
			if err != nil {
				t.Fatal(err)
			}
			if e := relDiff(path[0].Theta, want.RawVector().Data); e > 1e-9 {
				t.Errorf("rank %d intercept=%v: eigen path Θ differs from the Kronecker solve by %.3g", rank, icpt, e)
			}
			if path[0].Stats.Residual > 1e-10 {
				t.Errorf("eigen path Stein residual %.3g", path[0].Stats.Residual)
			}
		}
	}
}

// A λ path equals separate fits, for the decomposable eigen route and the Cholesky route of other kernels.
func TestPathMatchesFits(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 17))
	const d, D, n = 3, 10, 60
	lambdas := []float64{1e-4, 1e-3, 1e-1}
	for _, k := range allKernels(t, rng) {
		m := mustMap(t, k, rule.G{}, d, D, 18)
		X, Y := field(n, d, m.Outputs(), 0.1, 19)
		path, err := Ridge{Intercept: true}.FitPath(m, X, n, Y, lambdas)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range lambdas {
			fit, err := Ridge{Lambda: l, Intercept: true}.Fit(m, X, n, Y)
			if err != nil {
				t.Fatal(err)
			}
			if e := relDiff(path[i].Theta, fit.Theta); e > 1e-8 {
				t.Errorf("%s λ=%g: path θ differs from the fit by %.3g", k.Name(), l, e)
			}
			if e := relDiff(path[i].Bias, fit.Bias); e > 1e-8 {
				t.Errorf("%s λ=%g: path bias differs by %.3g", k.Name(), l, e)
			}
			if path[i].Lambda != l {
				t.Errorf("path[%d].Lambda = %g", i, path[i].Lambda)
			}
		}
	}
}

// A curl-free model's predicted field has a symmetric Jacobian and a divergence-free model's a traceless one, for
// every rule.
func TestFieldStructure(t *testing.T) {
	g, err := dataset.GenerateCurlField(120, 1, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	must := mustKernel(t)
	rng := rand.New(rand.NewPCG(25, 26))
	pts := make([]float64, 5*g.D)
	for i := range pts {
		pts[i] = 2*rng.Float64() - 1
	}
	for _, k := range []*ovk.Kernel{must(ovk.NewCurlFree(0.4)), must(ovk.NewDivFree(0.4))} {
		for _, name := range rule.Names() {
			r, err := rule.Parse(name)
			if err != nil {
				t.Fatal(err)
			}
			m := mustMap(t, k, r, g.D, 12, 27)
			fit, err := Ridge{Lambda: 1e-4, Intercept: true}.Fit(m, g.X, g.N, g.Y)
			if err != nil {
				t.Fatal(err)
			}
			J := make([]float64, g.D*g.D)
			for q := 0; q < 5; q++ {
				if err := fit.Jacobian(J, m, pts[q*g.D:(q+1)*g.D]); err != nil {
					t.Fatal(err)
				}
				scale := math.Max(1, floats.Norm(J, math.Inf(1)))
				if k.Kind() == ovk.CurlFree {
					for a := 0; a < g.D; a++ {
						for b := 0; b < a; b++ {
							if e := math.Abs(J[a*g.D+b] - J[b*g.D+a]); e > 1e-8*scale {
								t.Errorf("%s: curl-free Jacobian not symmetric: |J%d%d − J%d%d| = %.3g", name, a, b, b, a, e)
							}
						}
					}
				} else {
					var tr float64
					for a := 0; a < g.D; a++ {
						tr += J[a*g.D+a]
					}
					if math.Abs(tr) > 1e-8*scale {
						t.Errorf("%s: divergence-free Jacobian has trace %.3g", name, tr)
					}
				}
			}
		}
	}
}

// On the curl-free field (docs/conventions.md §9), curl-free ORFF's test R² rises with D and approaches exact curl-free OVK ridge
// with the same λ: every fourfold increase of D must raise R² and shrink the gap by at least 0.05 (measured gaps at
// N = 200: about 0.45, 0.37, 0.18 for D = 50, 200, 800, averaged over seeds). ORFF converges slowly here: the
// curl-free A(ω) = ωωᵀ has relative variance (d+1) per feature (paper §4.3), so D must exceed N by far.
func TestCurlFieldApproachesExact(t *testing.T) {
	const n, nt, lambda = 200, 200, 1e-2
	g, err := dataset.GenerateCurlField(n+nt, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	d := g.D
	X, Y := g.X[:n*d], g.Y[:n*d]
	T, YT := g.X[n*d:], g.Y[n*d:]
	k := mustKernel(t)(ovk.NewCurlFree(dataset.CurlFieldSigma))
	exact, err := KRR{Kernel: k, Lambda: lambda, Intercept: true}.Fit(X, n, d, Y)
	if err != nil {
		t.Fatal(err)
	}
	r2Exact := metrics.MultiR2(predictExact(t, exact, T, nt), YT, nt, d)
	Ds := []int{50, 200, 800}
	seeds := 3
	if testing.Short() {
		seeds = 1
	}
	r2 := make([]float64, len(Ds))
	for i, D := range Ds {
		for s := 0; s < seeds; s++ {
			m := mustMap(t, k, rule.G{}, d, D, 100+uint64(s))
			fit, err := Ridge{Lambda: lambda, Intercept: true}.Fit(m, X, n, Y)
			if err != nil {
				t.Fatal(err)
			}
			r2[i] += metrics.MultiR2(predictFit(t, fit, m, T, nt), YT, nt, d) / float64(seeds)
		}
	}
	t.Logf("exact R² %.4f; ORFF R² %.4f at D = %v", r2Exact, r2, Ds)
	for i := 1; i < len(Ds); i++ {
		if !(r2[i] > r2[i-1]+0.05) {
			t.Errorf("R² does not rise with D: %.4f at D=%d, %.4f at D=%d", r2[i-1], Ds[i-1], r2[i], Ds[i])
		}
		if gap, prev := r2Exact-r2[i], r2Exact-r2[i-1]; !(gap >= -0.05 && gap < prev-0.05) {
			t.Errorf("the gap to exact OVK does not shrink: %.4f at D=%d, %.4f at D=%d", prev, Ds[i-1], gap, Ds[i])
		}
	}
}

// Acceptance (learning): on the curl-free field with N = 5000 training and 2000 test points, σ = 0.4 and
// D = 1600 points, curl-free ORFF ridge reaches test R² ≥ 0.8 and the fitted field is curl-free. About 20 s with
// gonum's pure-Go BLAS (accumulating ZᵀZ, 5000×3200², dominates), a few seconds with OpenBLAS; skipped with -short.
// The comparison with exact curl-free OVK at N = 5000 needs a 25000×25000 block Gram (5 GB) and is reported, not
// tested.
func TestAcceptanceCurlField(t *testing.T) {
	if testing.Short() {
		t.Skip("N = 5000, D = 1600: run without -short")
	}
	const n, nt, D, lambda = 5000, 2000, 1600, 1e-5
	g, err := dataset.GenerateCurlField(n+nt, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	d := g.D
	k := mustKernel(t)(ovk.NewCurlFree(0.4))
	m := mustMap(t, k, rule.G{}, d, D, 1)
	fit, err := Ridge{Lambda: lambda, Intercept: true}.Fit(m, g.X[:n*d], n, g.Y[:n*d])
	if err != nil {
		t.Fatal(err)
	}
	r2 := metrics.MultiR2(predictFit(t, fit, m, g.X[n*d:], nt), g.Y[n*d:], nt, d)
	t.Logf("curl-free ORFF, N = %d, D = %d, λ = %g: test R² %.4f (%s, %.1f s)", n, D, lambda, r2, fit.Stats.Method,
		fit.Stats.Seconds)
	if !(r2 >= 0.8) { // NaN (a constant target or a prediction of another shape) fails too
		t.Errorf("test R² %.4f < 0.8", r2)
	}
	J := make([]float64, d*d)
	for q := 0; q < 20; q++ {
		if err := fit.Jacobian(J, m, g.X[(n+q)*d:(n+q+1)*d]); err != nil {
			t.Fatal(err)
		}
		scale := floats.Norm(J, math.Inf(1))
		for a := 0; a < d; a++ {
			for b := 0; b < a; b++ {
				if e := math.Abs(J[a*d+b] - J[b*d+a]); e > 1e-8*scale {
					t.Fatalf("the fitted field is not curl-free: |J%d%d − J%d%d| = %.3g (scale %.3g)", a, b, b, a, e, scale)
				}
			}
		}
	}
}
