package learn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/linalg"
)

// TestRidgeOptimum checks first-order optimality of the ridge objective
// J(θ, b) = (1/N)‖Zθ + 1bᵀ − Y‖² + λ‖θ‖² directly from Z and Y held in memory:
// ∇θJ = (2/N)Zᵀ(Zθ + 1bᵀ − Y) + 2λθ = 0 and ∇bJ = (2/N)(Zθ + 1bᵀ − Y)ᵀ1 = 0.
// The gradient is a difference of terms of size ~ (2/N)‖ZᵀY‖; a backward-stable solve leaves a remainder of order
// ε·cond, far below 1e-8 of those terms for these well-conditioned problems.
func TestRidgeOptimum(t *testing.T) {
	const n, F = 60, 12
	for _, c := range []struct {
		p         int
		lambda    float64
		intercept bool
		solver    Solver
	}{
		{1, 1e-3, false, Cholesky}, {1, 1e-3, true, Cholesky}, {3, 0.1, false, Cholesky}, {3, 0.1, true, Cholesky},
		{3, 0, true, Cholesky}, {2, 0, false, Cholesky}, {3, 1e-2, true, CG}, {1, 1e-2, false, CG},
	} {
		t.Run(fmt.Sprintf("p=%d,λ=%g,intercept=%v,%v", c.p, c.lambda, c.intercept, c.solver), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.p), 11))
			Z := make([]float64, n*F)
			for i := range Z {
				Z[i] = 0.5 + rng.Float64() // non-zero mean: the intercept matters
			}
			Y := make([]float64, n*c.p)
			for i := range Y {
				Y[i] = 3 + rng.NormFloat64()
			}
			s := mustStats(F, c.p)
			for r0 := 0; r0 < n; r0 += 7 {
				r := min(7, n-r0)
				s.Add(Z[r0*F:(r0+r)*F], Y[r0*c.p:(r0+r)*c.p], r)
			}
			fit, err := Ridge{Lambda: c.lambda, Intercept: c.intercept, Solver: c.solver, Tol: 1e-13, MaxIter: 500}.Solve(s)
			if err != nil {
				t.Fatal(err)
			}
			if !c.intercept {
				for _, b := range fit.Bias {
					if b != 0 {
						t.Fatalf("bias %v without intercept", fit.Bias)
					}
				}
			}
			z := mat.NewDense(n, F, Z)
			y := mat.NewDense(n, c.p, Y)
			th := mat.NewDense(F, c.p, fit.Theta)
			var res mat.Dense // Zθ + 1bᵀ − Y
			res.Mul(z, th)
			for i := range n {
				for j := range c.p {
					res.Set(i, j, res.At(i, j)+fit.Bias[j]-y.At(i, j))
				}
			}
			var g, zty mat.Dense
			g.Mul(z.T(), &res)
			g.Scale(2/float64(n), &g)
			var reg mat.Dense
			reg.Scale(2*c.lambda, th)
			g.Add(&g, &reg)
			// Scale: the norms of the terms of ∇θJ, (2/N)(‖ZᵀZθ‖ + ‖Zᵀ1‖‖b‖ + ‖ZᵀY‖) + 2λ‖θ‖.
			zty.Mul(z.T(), y)
			scale := 2 / float64(n) * (mat.Norm(&zty, 2) + normZtZTheta(z, th) + floats2(s.SumZ)*floats2(fit.Bias))
			scale += 2 * c.lambda * mat.Norm(th, 2)
			t.Logf("grad rel %.3g", mat.Norm(&g, 2)/scale)
			if e := mat.Norm(&g, 2) / scale; e > 1e-8 {
				t.Errorf("‖∇θJ‖ = %.3g relative to its terms (want ≤ 1e-8)", e)
			}
			if c.intercept {
				for j := range c.p {
					var gb float64
					for i := range n {
						gb += res.At(i, j)
					}
					ysum := 0.0
					for i := range n {
						ysum += math.Abs(y.At(i, j))
					}
					if e := math.Abs(gb) / ysum; e > 1e-8 {
						t.Errorf("output %d: ∇bJ = %.3g relative to Σ|y| (want ≤ 1e-8)", j, e)
					}
				}
			}
			if fit.Stats.Residual > 1e-8 {
				t.Errorf("reported residual %.3g", fit.Stats.Residual)
			}
		})
	}
}

func normZtZTheta(z *mat.Dense, th *mat.Dense) float64 {
	var a, b mat.Dense
	a.Mul(z, th)
	b.Mul(z.T(), &a)
	return mat.Norm(&b, 2)
}

func floats2(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

// TestSolversAgree: Cholesky, CG on the statistics and matrix-free CG solve the same positive-definite system;
// with CG run to a relative residual of 1e-12 the solutions differ by at most cond·1e-12 ≪ 1e-6.
func TestSolversAgree(t *testing.T) {
	const n, d, p = 700, 4, 2
	X, Y := regression(n, d, p, 0.1, 12)
	m := gaussMap(t, d, 40, 1.2, 13)
	s, err := Accumulate(m, X, n, Y, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, intercept := range []bool{false, true} {
		for _, lambda := range []float64{1e-4, 1e-2} {
			r := Ridge{Lambda: lambda, Intercept: intercept, Tol: 1e-12, MaxIter: 5000}
			chol, err := r.Solve(s)
			if err != nil {
				t.Fatal(err)
			}
			r.Solver = CG
			cg, err := r.Solve(s)
			if err != nil {
				t.Fatal(err)
			}
			free, err := r.SolveMatrixFree(m, X, n, Y, p)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("intercept=%v λ=%g", intercept, lambda)
			t.Logf("%s: chol %+v cg %+v free %+v dθ %.2g %.2g", name, chol.Stats, cg.Stats, free.Stats, relDiff(cg.Theta, chol.Theta), relDiff(free.Theta, chol.Theta))
			for _, f := range []*Fit{cg, free} {
				if e := relDiff(f.Theta, chol.Theta); e > 1e-6 {
					t.Errorf("%s: %s θ differs from Cholesky by %.3g", name, f.Stats.Method, e)
				}
				if e := relDiff(f.Bias, chol.Bias); e > 1e-6 {
					t.Errorf("%s: %s bias differs from Cholesky by %.3g", name, f.Stats.Method, e)
				}
				if f.Stats.Iterations == 0 || f.Stats.Residual > 1e-10 {
					t.Errorf("%s: %s stats %+v", name, f.Stats.Method, f.Stats)
				}
			}
			// Predictions through the map agree with the explicit features.
			pm := make([]float64, n*p)
			if err := chol.PredictMap(pm, m, X, n); err != nil {
				t.Fatal(err)
			}
			pz := make([]float64, n*p)
			chol.Predict(pz, features(t, m, X, n), n)
			if e := relDiff(pm, pz); e > 1e-14 {
				t.Errorf("%s: PredictMap differs from Predict by %.3g", name, e)
			}
		}
	}
}

func TestCGNotConverged(t *testing.T) {
	const n, d, p = 300, 3, 1
	X, Y := regression(n, d, p, 0.1, 14)
	m := gaussMap(t, d, 30, 1, 15)
	s, err := Accumulate(m, X, n, Y, p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Ridge{Lambda: 1e-6, Solver: CG, MaxIter: 2, Tol: 1e-14}.Solve(s)
	if !errors.Is(err, ErrNotConverged) {
		t.Fatalf("error %v, want ErrNotConverged", err)
	}
	if f == nil || f.Stats.Iterations != 2 {
		t.Fatalf("fit %+v", f)
	}
}

func TestRidgeErrors(t *testing.T) {
	const F, p = 5, 1
	s := mustStats(F, p)
	if _, err := (Ridge{Lambda: 1}).Solve(s); err == nil {
		t.Error("N = 0: no error")
	}
	// Rank-deficient Z (two identical columns) with λ = 0 is singular.
	rng := rand.New(rand.NewPCG(1, 2))
	Z := make([]float64, 20*F)
	for i := range 20 {
		for j := range F {
			Z[i*F+j] = rng.NormFloat64()
		}
		Z[i*F+1] = Z[i*F]
	}
	Y := make([]float64, 20)
	for i := range Y {
		Y[i] = rng.NormFloat64()
	}
	s.Add(Z, Y, 20)
	if _, err := (Ridge{Lambda: 0}).Solve(s); err == nil {
		t.Error("λ = 0 with a singular system: no error")
	}
	if _, err := (Ridge{Lambda: 1e-3}).Solve(s); err != nil {
		t.Errorf("λ > 0 with a rank-deficient Z: %v", err)
	}
	for _, l := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := (Ridge{Lambda: l}).Solve(s); err == nil {
			t.Errorf("λ = %v: no error", l)
		}
	}
	bad := s.Clone()
	bad.ZtY[0] = math.NaN()
	if _, err := (Ridge{Lambda: 1}).Solve(bad); err == nil {
		t.Error("NaN statistics: no error")
	}
}

// TestSolveInPlace: SolveInPlace does the arithmetic of Solve in the statistics' own storage, so the two fits are
// bit-for-bit equal (finished or unfinished statistics, with and without intercept), and the consumed statistics
// refuse every further use with an error instead of returning garbage.
func TestSolveInPlace(t *testing.T) {
	const n, F, p = 90, 17, 2
	rng := rand.New(rand.NewPCG(5, 6))
	Z := make([]float64, n*F)
	for i := range Z {
		Z[i] = 0.3 + rng.Float64()
	}
	Y := make([]float64, n*p)
	for i := range Y {
		Y[i] = rng.NormFloat64()
	}
	for _, c := range []struct {
		finish, intercept bool
		solver            Solver
	}{{true, true, Cholesky}, {false, true, Cholesky}, {true, false, Cholesky}, {false, false, CG}} {
		t.Run(fmt.Sprintf("finish=%v,intercept=%v,%v", c.finish, c.intercept, c.solver), func(t *testing.T) {
			s := mustStats(F, p)
			s.Add(Z, Y, n)
			if c.finish {
				s.Finish()
			}
			r := Ridge{Lambda: 1e-4, Intercept: c.intercept, Solver: c.solver}
			want, err := r.Solve(s)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.SolveInPlace(s)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want.Theta {
				if got.Theta[i] != want.Theta[i] {
					t.Fatalf("θ[%d] = %v in place, %v copied", i, got.Theta[i], want.Theta[i])
				}
			}
			for j := range want.Bias {
				if got.Bias[j] != want.Bias[j] {
					t.Fatalf("bias[%d] = %v in place, %v copied", j, got.Bias[j], want.Bias[j])
				}
			}
			if got.Stats.Residual != want.Stats.Residual {
				t.Errorf("residual %v in place, %v copied", got.Stats.Residual, want.Stats.Residual)
			}
			if c.solver == CG {
				if _, err := r.Solve(s); err != nil {
					t.Errorf("CG leaves the statistics valid, but Solve after SolveInPlace: %v", err)
				}
				return
			}
			if _, err := r.Solve(s); err == nil {
				t.Error("Solve on consumed statistics: no error")
			}
			if err := mustStats(F, p).Merge(s); err == nil {
				t.Error("Merge of consumed statistics: no error")
			}
		})
	}
}

// TestRidgeProgress: Ridge.Progress sees every row exactly once, in both precisions, and observing the fit does not
// change it: θ and b are the bits of the same fit without Progress.
func TestRidgeProgress(t *testing.T) {
	const n, D, P = 1100, 64, 3
	m, X, Y := mixedProblem(t, n, D)
	for _, prec := range []Precision{Double, Mixed} {
		r := Ridge{Lambda: 1e-4, Intercept: true, Precision: prec}
		want, err := r.FitMap(m, X, n, Y, P)
		if err != nil {
			t.Fatal(err)
		}
		var rows, calls atomic.Int64 // called from several goroutines at once
		r.Progress = func(k int) { rows.Add(int64(k)); calls.Add(1) }
		got, err := r.FitMap(m, X, n, Y, P)
		if err != nil {
			t.Fatal(err)
		}
		if rows.Load() != n || calls.Load() < 1 {
			t.Errorf("%v: Progress saw %d rows in %d calls, want %d rows", prec, rows.Load(), calls.Load(), n)
		}
		if !slices.Equal(got.Theta, want.Theta) || !slices.Equal(got.Bias, want.Bias) {
			t.Errorf("%v: the fit with Progress differs from the fit without", prec)
		}
	}
}

// opaqueMap hides the concrete type of a *feature.Map, so the learners take their generic Mapper paths.
type opaqueMap struct{ m *feature.Map }

func (o opaqueMap) Dim() int      { return o.m.Dim() }
func (o opaqueMap) Features() int { return o.m.Features() }
func (o opaqueMap) Points() int   { return o.m.Points() }
func (o opaqueMap) TransformBlock(z, x []float64, rows int, proj []float64) {
	o.m.TransformBlock(z, x, rows, proj)
}

// TestAnyMapper checks that FitMap, PredictMap, CrossValidate and Features accept any Mapper and give, through a
// map whose concrete type they cannot see, the bits they give for the *feature.Map itself: the same rows are mapped
// by the same code and reduced in the same order.
func TestAnyMapper(t *testing.T) {
	const n, d, D, p = 300, 3, 24, 2
	X, Y := regression(n, d, p, 0.1, 7)
	m := gaussMap(t, d, D, 1, 3)
	for _, tc := range []struct {
		name string
		run  func(Mapper) ([]float64, error)
	}{
		{"FitMap+PredictMap", func(mp Mapper) ([]float64, error) {
			fit, err := Ridge{Lambda: 1e-3, Intercept: true}.FitMap(mp, X, n, Y, p)
			if err != nil {
				return nil, err
			}
			out := make([]float64, n*p)
			return out, fit.PredictMap(out, mp, X, n)
		}},
		{"CrossValidate", func(mp Mapper) ([]float64, error) {
			cv, err := CrossValidate(mp, X, n, Y, p, 3, []float64{1e-4, 1e-2}, true)
			if err != nil {
				return nil, err
			}
			return cv.MSE, nil
		}},
		{"Features", func(mp Mapper) ([]float64, error) { return Features(mp, X, n, 0) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := tc.run(m)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tc.run(opaqueMap{m})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("through an opaque Mapper: %v, want %v", got[:min(4, len(got))], want[:min(4, len(want))])
			}
		})
	}
}

// TestPredictReadsThetaInPlace: predicting a few rows of a fit with many outputs reads Θ where it lies — no copy of
// its F×P values per call (a 26-class model at F = 8192 would copy 1.7 MB for every single-row request) — wherever
// the product's bits do not depend on Θ's layout, and gives the bits of the product with Θᵀ.
func TestPredictReadsThetaInPlace(t *testing.T) {
	const F, P = 512, 26
	if !linalg.MulRowsLayoutFree(P, F) {
		t.Skip("the product's bits depend on the layout on this CPU: Θ is transposed")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	f := &Fit{F: F, P: P, Theta: make([]float64, F*P), Bias: make([]float64, P), Intercept: true}
	for i := range f.Theta {
		f.Theta[i] = rng.NormFloat64()
	}
	for i := range f.Bias {
		f.Bias[i] = rng.NormFloat64()
	}
	z := make([]float64, 3*F)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	dst := make([]float64, 3*P)
	for _, rows := range []int{1, 3} {
		if a := testing.AllocsPerRun(20, func() { f.Predict(dst, z, rows) }); a != 0 {
			t.Errorf("%d rows: %v allocations per call, want 0", rows, a)
		}
		thetaT := make([]float64, P*F)
		for l := range F {
			for j := range P {
				thetaT[j*F+l] = f.Theta[l*P+j]
			}
		}
		want := make([]float64, rows*P)
		linalg.MulRows(true, rows, P, F, z, F, thetaT, F, want, P)
		f.Predict(dst, z, rows)
		for i := range want {
			if w := want[i] + f.Bias[i%P]; math.Float64bits(dst[i]) != math.Float64bits(w) {
				t.Fatalf("%d rows, output %d: %v, the product with Θᵀ gives %v", rows, i, dst[i], w)
			}
		}
	}
}
