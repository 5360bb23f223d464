package learn

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// primalLinear solves ridge with the identity feature map directly with gonum: centre X and Y explicitly when
// intercept, solve (XcᵀXc + NλI)θ = XcᵀYc, b = ȳ − θᵀx̄, and predict on T.
func primalLinear(t *testing.T, X []float64, n, d int, Y []float64, p int, lambda float64, intercept bool, T []float64, m int) []float64 {
	t.Helper()
	xbar := make([]float64, d)
	ybar := make([]float64, p)
	if intercept {
		for i := range n {
			for j := range d {
				xbar[j] += X[i*d+j] / float64(n)
			}
			for j := range p {
				ybar[j] += Y[i*p+j] / float64(n)
			}
		}
	}
	xc := mat.NewDense(n, d, nil)
	yc := mat.NewDense(n, p, nil)
	for i := range n {
		for j := range d {
			xc.Set(i, j, X[i*d+j]-xbar[j])
		}
		for j := range p {
			yc.Set(i, j, Y[i*p+j]-ybar[j])
		}
	}
	var A, B, theta mat.Dense
	A.Mul(xc.T(), xc)
	for i := range d {
		A.Set(i, i, A.At(i, i)+float64(n)*lambda)
	}
	B.Mul(xc.T(), yc)
	if err := theta.Solve(&A, &B); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, m*p)
	for i := range m {
		for j := range p {
			v := ybar[j]
			for k := range d {
				v += (T[i*d+k] - xbar[k]) * theta.At(k, j)
			}
			out[i*p+j] = v
		}
	}
	return out
}

// TestKRRLinearEqualsPrimal: with the linear kernel k(x,y) = xᵀy the feature map is the identity, so exact KRR
// (with and without intercept) must equal primal ridge on Z = X — both the independent dense solve and
// learn.Ridge on the statistics of X. Both sides are backward-stable solves of well-conditioned systems: 1e-9.
func TestKRRLinearEqualsPrimal(t *testing.T) {
	const n, d, p, m = 40, 3, 2, 10
	X, Y := regression(n, d, p, 0.3, 31)
	T, _ := regression(m, d, 1, 0, 32)
	for _, intercept := range []bool{false, true} {
		for _, lambda := range []float64{1e-3, 0.5} {
			name := fmt.Sprintf("intercept=%v λ=%g", intercept, lambda)
			fit, err := KRR{Kernel: linear{}, Lambda: lambda, Intercept: intercept}.Fit(X, n, d, Y, p)
			if err != nil {
				t.Fatal(err)
			}
			if fit.Stats.Residual > 1e-10 {
				t.Errorf("%s: residual %.3g", name, fit.Stats.Residual)
			}
			got := make([]float64, m*p)
			fit.Predict(got, T, m)
			want := primalLinear(t, X, n, d, Y, p, lambda, intercept, T, m)
			if e := relDiff(got, want); e > 1e-9 {
				t.Errorf("%s: KRR differs from the primal solution by %.3g", name, e)
			}
			s := mustStats(d, p)
			s.Add(X, Y, n)
			rf, err := Ridge{Lambda: lambda, Intercept: intercept}.Solve(s)
			if err != nil {
				t.Fatal(err)
			}
			viaStats := make([]float64, m*p)
			rf.Predict(viaStats, T, m)
			if e := relDiff(viaStats, want); e > 1e-9 {
				t.Errorf("%s: Ridge differs from the primal solution by %.3g", name, e)
			}
			if intercept {
				for j := range p {
					var s float64
					for i := range n {
						s += fit.Alpha[i*p+j]
					}
					if math.Abs(s) > 1e-12 {
						t.Errorf("%s: Σα = %v, want 0", name, s)
					}
				}
			}
		}
	}
}

// TestRidgeConvergesToKRR: random-feature ridge with the same λ and intercept converges to exact KRR as the number
// of points D grows, at the Monte Carlo rate D^{-1/2} (a factor 1/2 per fourfold D). The test asks for a decrease
// by at least 25% at each step and a total decrease by at least 3 over D = 50 → 3200 (theory: 8), averaged over
// seeds. Rules: plain Gaussian (G) and SR(3,3) with Haar rotations (whose zero-node offset the intercept absorbs).
// SR with butterfly rotations is left out: its kernel estimate carries a bias of ~2% of ‖K‖ that does not shrink
// with D (measured at d = 3 and 4; none at d = 2), so it converges to a slightly different model.
func TestRidgeConvergesToKRR(t *testing.T) {
	const n, d, p, m = 200, 3, 1, 100
	const sigma, lambda = 1.0, 1e-3
	X, Y := regression(n, d, p, 0.1, 41)
	T, _ := regression(m, d, 1, 0, 42)
	k := kernel.Gaussian{S: sigma}
	exact, err := KRR{Kernel: k, Lambda: lambda, Intercept: true}.Fit(X, n, d, Y, p)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, m*p)
	exact.Predict(want, T, m)
	Ds := []int{50, 200, 800, 3200}
	seeds := 3
	if raceEnabled {
		Ds, seeds = Ds[:3], 2
	}
	for _, r := range []rule.Rule{rule.G{}, rule.SR{Rotation: rule.Haar}} {
		t.Run(r.Name(), func(t *testing.T) {
			errs := make([]float64, len(Ds))
			for i, D := range Ds {
				for seed := range seeds {
					fm, err := feature.New(k, r, d, D, uint64(100+seed))
					if err != nil {
						t.Fatal(err)
					}
					// n = 200 rows span at most 200 directions: CG converges in ≲ 200 iterations whatever F is.
					fit, err := Ridge{Lambda: lambda, Intercept: true, Tol: 1e-8, MaxIter: 2000}.SolveMatrixFree(fm, X, n, Y, p)
					if err != nil {
						t.Fatal(err)
					}
					got := make([]float64, m*p)
					if err := fit.PredictMap(got, fm, T, m); err != nil {
						t.Fatal(err)
					}
					errs[i] += relDiff(got, want) / float64(seeds)
				}
			}
			t.Logf("D = %v: relative prediction gap to exact KRR %.3g", Ds, errs)
			for i := 1; i < len(errs); i++ {
				if errs[i] > 0.75*errs[i-1] {
					t.Errorf("D = %d → %d: gap %.3g → %.3g does not decrease by 25%%", Ds[i-1], Ds[i], errs[i-1], errs[i])
				}
			}
			if len(errs) == 4 && errs[3] > errs[0]/3 {
				t.Errorf("gap falls only from %.3g to %.3g over D = 50 → 3200", errs[0], errs[3])
			}
		})
	}
}

func TestKRRErrors(t *testing.T) {
	X, Y := regression(20, 2, 1, 0.1, 51)
	g := kernel.Gaussian{S: 1}
	for _, c := range []struct {
		name string
		k    KRR
	}{
		{"memory limit", KRR{Kernel: g, Lambda: 1, MaxBytes: 8*20*20 - 1}},
		{"nil kernel", KRR{Lambda: 1}},
		{"λ < 0", KRR{Kernel: g, Lambda: -1}},
		{"intercept with λ = 0", KRR{Kernel: g, Lambda: 0, Intercept: true}},
		// K = XXᵀ has rank 2 < 20: singular without regularisation.
		{"singular", KRR{Kernel: linear{}, Lambda: 0}},
	} {
		if _, err := c.k.Fit(X, 20, 2, Y, 1); err == nil {
			t.Errorf("%s: no error", c.name)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
	if _, err := (KRR{Kernel: g, Lambda: 1, MaxBytes: 8 * 20 * 20}).Fit(X, 20, 2, Y, 1); err != nil {
		t.Errorf("Gram exactly at the limit: %v", err)
	}
	// λ = 0 with a strictly positive-definite Gram (Gaussian kernel, distinct points) interpolates the data.
	fit, err := KRR{Kernel: g, Lambda: 0}.Fit(X, 20, 2, Y, 1)
	if err != nil {
		t.Fatal(err)
	}
	pred := make([]float64, 20)
	fit.Predict(pred, X, 20)
	if e := relDiff(pred, Y); e > 1e-6 {
		t.Errorf("λ = 0 does not interpolate: %.3g", e)
	}
}
