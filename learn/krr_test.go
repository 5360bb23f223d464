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

// TestKRRSelectLambdaBruteForce: the criteria of KRR.SelectLambda equal their definitions for exact kernel ridge
// regression, computed independently — the residuals from the predictions of KRR.Fit at each λ, df = [1 +]
// tr(K̃(K̃ + NλI)⁻¹) from a dense inverse (K̃ = HKH with an intercept), GCV = N·ΣRSS/(P(N − df)²), and the log
// evidence the Gaussian log density of y with covariance σ²(I + K/(Nλ)) (the bias integrated out under a flat prior)
// at the selection's σ², which must maximise it — to a tolerance of 64·cond(K̃ + NλI)·ε (times ‖y‖/‖y − ŷ‖ for
// the GCV, whose brute-force residuals cancel).
func TestKRRSelectLambdaBruteForce(t *testing.T) {
	const n, d, p = 40, 3, 2
	X, Y := regression(n, d, p, 0.3, 5)
	kern := kernel.Gaussian{S: 0.7}
	grid := LogGrid(1e-6, 1, 7)
	for _, intercept := range []bool{true, false} {
		t.Run(fmt.Sprintf("intercept=%v", intercept), func(t *testing.T) {
			sel, err := KRR{Kernel: kern, Intercept: intercept}.SelectLambda(X, n, d, Y, p, grid)
			if err != nil {
				t.Fatal(err)
			}
			K := make([]float64, n*n)
			if err := kernel.Gram(K, kern, X, n, X, n, d); err != nil {
				t.Fatal(err)
			}
			Kt := append([]float64(nil), K...)
			var e []float64
			if intercept {
				centreGram(Kt, n)
				e = make([]float64, n)
				for i := range e {
					e[i] = 1
				}
			}
			N := float64(n)
			bestG, bestE := 0, 0
			gcvs, evs := make([]float64, len(grid)), make([]float64, len(grid))
			for li, lambda := range grid {
				fit, err := KRR{Kernel: kern, Lambda: lambda, Intercept: intercept}.Fit(X, n, d, Y, p)
				if err != nil {
					t.Fatal(err)
				}
				pred := make([]float64, n*p)
				fit.Predict(pred, X, n)
				var rss float64
				for i, v := range pred {
					rss += (Y[i] - v) * (Y[i] - v)
				}
				A := mat.NewDense(n, n, append([]float64(nil), Kt...))
				for i := range n {
					A.Set(i, i, A.At(i, i)+N*lambda)
				}
				var inv, H mat.Dense
				if err := inv.Inverse(A); err != nil {
					t.Fatal(err)
				}
				H.Mul(mat.NewDense(n, n, Kt), &inv)
				df := mat.Trace(&H)
				if intercept {
					df++
				}
				tol := 64 * mat.Cond(A, 2) * 0x1p-52
				check := func(what string, got, want float64) {
					t.Helper()
					if r := relErr(got, want); !(r <= tol) {
						t.Errorf("λ = %g: %s = %.15g, definition %.15g (relative %.2g > %.2g)", lambda, what, got, want, r, tol)
					}
				}
				check("df", sel.DF[li], df)
				gcvs[li] = N * rss / (float64(p) * (N - df) * (N - df))
				// The residuals y − Kα lose ‖y‖/‖y − Kα‖ of their relative accuracy to cancellation.
				var yy float64
				for _, v := range Y {
					yy += v * v
				}
				if r := relErr(sel.GCV[li], gcvs[li]); !(r <= tol*(1+math.Sqrt(yy/rss))) {
					t.Errorf("λ = %g: GCV = %.15g, definition %.15g (relative %.2g > %.2g)", lambda, sel.GCV[li], gcvs[li], r, tol*(1+math.Sqrt(yy/rss)))
				}
				for j := range p {
					y := column(Y, n, p, j)
					s2 := sel.EvidenceNoiseVar[li][j]
					ev := bruteLogEvidenceGram(t, mat.NewDense(n, n, K), n, y, lambda, s2, e)
					for _, f := range []float64{0.999, 1.001} {
						if v := bruteLogEvidenceGram(t, mat.NewDense(n, n, K), n, y, lambda, f*s2, e); !(v < ev) {
							t.Errorf("λ = %g, output %d: σ² × %g gives a larger evidence %v ≥ %v", lambda, j, f, v, ev)
						}
					}
					evs[li] += ev
				}
				check("log evidence", sel.LogEvidence[li], evs[li])
				if gcvs[li] < gcvs[bestG] {
					bestG = li
				}
				if evs[li] > evs[bestE] {
					bestE = li
				}
			}
			if sel.BestGCVIndex != bestG || sel.BestEvidenceIndex != bestE {
				t.Errorf("best indices GCV %d, evidence %d; definitions %d, %d", sel.BestGCVIndex, sel.BestEvidenceIndex, bestG, bestE)
			}
		})
	}
}

// TestKRRSelectLambdaErrors: a nil kernel, bad data, an empty or non-positive grid, a constant target and a Gram
// matrix beyond MaxBytes are refused with errors.
func TestKRRSelectLambdaErrors(t *testing.T) {
	X, Y := regression(10, 2, 1, 0.1, 3)
	k := KRR{Kernel: kernel.Gaussian{S: 1}, Intercept: true}
	for _, c := range []struct {
		name string
		k    KRR
		Y    []float64
		grid []float64
	}{
		{"nil kernel", KRR{}, Y, []float64{1}},
		{"short Y", k, Y[:5], []float64{1}},
		{"empty grid", k, Y, nil},
		{"zero λ", k, Y, []float64{0}},
		{"constant", k, make([]float64, 10), []float64{1}},
		{"memory", KRR{Kernel: kernel.Gaussian{S: 1}, MaxBytes: 100}, Y, []float64{1}},
	} {
		if _, err := c.k.SelectLambda(X, 10, 2, c.Y, 1, c.grid); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}
