package ovk

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// unbiasedRules are the rules whose ORFF estimate is unbiased for a Gaussian spectral law (SORF's rows have the
// fixed norm √n and GQ's points lie on the Gauss–Hermite grid: both are biased and are left out of the convergence
// test; they are covered by the structural tests).
var unbiasedRules = []rule.Rule{rule.G{}, rule.ORF{}, rule.QMC{}, rule.SR{Rotation: rule.Butterfly}, rule.SR{Rotation: rule.Haar}}

// specNorm is the spectral norm (largest singular value) by gonum's SVD, independent of the package's eigenvalue route.
// (gonum's mat.Norm(·, 2) is the Frobenius norm.)
func specNorm(t testing.TB, a mat.Matrix) float64 {
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDNone) {
		t.Fatal("SVD failed")
	}
	return svd.Values(nil)[0]
}

func seedList(n int, base uint64) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = base + uint64(i)
	}
	return s
}

// TestConvergence: K̃ → K as D grows. For each kernel kind, unbiased rule and pair (x, z) of [−1,1]⁴ (the domain of
// Fig. 1A), the per-draw variance is estimated over S seeds at a small D₀ (EmpiricalVariance); the points of these
// rules are independent across blocks/rules, so E‖K̃ − K‖_F² = tr V(D₀)·D₀/D at D points. With D = 10⁴, the
// spectral error ‖K̃ − K‖₂ ≤ ‖K̃ − K‖_F must be below 4× that predicted root mean square (a 4-σ margin for a
// Frobenius norm that is close to Gaussian at this D). SupError over the pairs must be the largest of them.
func TestConvergence(t *testing.T) {
	if testing.Short() {
		t.Skip("D = 10⁴ convergence check")
	}
	const d, D0, D, S, pairs = 4, 60, 10000, 200, 6
	rng := newRng(20)
	X := make([]float64, pairs*d)
	Z := make([]float64, pairs*d)
	for i := range X {
		X[i] = 2*rng.Float64() - 1
		Z[i] = 2*rng.Float64() - 1
	}
	kernels := []*Kernel{
		mustK(t)(NewDecomposable(kernel.Gaussian{S: 1}, randPSD(rng, 3, 3))),
		mustK(t)(NewCurlFree(1)),
		mustK(t)(NewDivFree(1)),
		mustK(t)(NewHelmholtz(1, 0.5)),
	}
	for _, k := range kernels {
		for _, r := range unbiasedRules {
			m := mustMap(t, k, r, d, D, 12345)
			var worst, ratio float64
			for i := 0; i < pairs; i++ {
				x, z := X[i*d:(i+1)*d], Z[i*d:(i+1)*d]
				V, err := EmpiricalVariance(k, r, d, D0, x, z, seedList(S, 1000))
				if err != nil {
					t.Fatal(err)
				}
				pred := math.Sqrt(mat.Trace(V) * D0 / D)
				Kt, _ := m.Estimate(x, z)
				Ke, _ := k.At(x, z)
				var E mat.Dense
				E.Sub(Kt, Ke)
				e := specNorm(t, &E)
				worst = max(worst, e)
				ratio = max(ratio, e/pred)
				if e > 4*pred {
					t.Errorf("%s/%s pair %d: ‖K̃ − K‖₂ = %.3g at D = %d, above 4× the predicted %.3g", k.Name(), r.Name(), i, e, D, pred)
				}
			}
			t.Logf("%s/%s: sup error %.3g at D = %d, largest error/predicted %.2f", k.Name(), r.Name(), worst, D, ratio)
			sup, err := SupError(m, X, Z, pairs)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(sup-worst) > 1e-12*worst {
				t.Errorf("%s/%s: SupError %v, largest pair error %v", k.Name(), r.Name(), sup, worst)
			}
		}
	}
}

// TestVarianceAtZero: at δ = 0 the G-rule estimate is (1/D)Σ_j A(ω_j), so V[K̃] = V[A]/D: (d+1)I/(σ⁴D) for the
// curl-free kernel and 3(d−1)I/(σ⁴D) for the divergence-free one (see TestMomentsOfA). EmpiricalVariance's mean
// diagonal must match within 5 standard errors (estimated from the per-seed squared errors), equal the mean of the
// per-seed (K̃ − K)², and VarianceNorm must be its largest eigenvalue.
func TestVarianceAtZero(t *testing.T) {
	const d, D0, S, sigma = 4, 10, 2000, 0.8
	x := []float64{0.3, -0.2, 0.5, 0.1}
	seeds := seedList(S, 1)
	s4 := math.Pow(sigma, 4)
	for _, tc := range []struct {
		k    *Kernel
		want float64
	}{
		{mustK(t)(NewCurlFree(sigma)), float64(d+1) / (s4 * D0)},
		{mustK(t)(NewDivFree(sigma)), 3 * float64(d-1) / (s4 * D0)},
	} {
		V, err := EmpiricalVariance(tc.k, rule.G{}, d, D0, x, x, seeds)
		if err != nil {
			t.Fatal(err)
		}
		exact, _ := tc.k.At(x, x)
		// Per-seed mean diagonal of (K̃ − K)², for the standard error.
		var s, s2 float64
		mean := make([]float64, d*d)
		for _, seed := range seeds {
			m := mustMap(t, tc.k, rule.G{}, d, D0, seed)
			Kt, _ := m.Estimate(x, x)
			var E, E2 mat.Dense
			E.Sub(Kt, exact)
			E2.Mul(&E, &E)
			v := mat.Trace(&E2) / d
			s += v
			s2 += v * v
			for a := 0; a < d; a++ {
				for b := 0; b < d; b++ {
					mean[a*d+b] += E2.At(a, b) / S
				}
			}
		}
		mv := s / S
		se := math.Sqrt((s2/S - mv*mv) / S)
		got := mat.Trace(V) / d
		if math.Abs(got-tc.want) > 5*se {
			t.Errorf("%s: mean diagonal of V = %v ± %v, want V[A]/D = %v", tc.k.Name(), got, se, tc.want)
		}
		if math.Abs(got-mv) > 1e-12*mv {
			t.Errorf("%s: EmpiricalVariance %v, mean of per-seed squares %v", tc.k.Name(), got, mv)
		}
		for a := 0; a < d; a++ {
			for b := 0; b < d; b++ {
				if math.Abs(V.At(a, b)-mean[a*d+b]) > 1e-12*mv {
					t.Fatalf("%s: V[%d,%d] = %v, mean of squares %v", tc.k.Name(), a, b, V.At(a, b), mean[a*d+b])
				}
			}
		}
		nrm, err := VarianceNorm(tc.k, rule.G{}, d, D0, x, x, seeds)
		if err != nil {
			t.Fatal(err)
		}
		var eig mat.EigenSym
		eig.Factorize(V, false)
		vals := eig.Values(nil)
		if math.Abs(nrm-vals[d-1]) > 1e-12*nrm {
			t.Errorf("%s: VarianceNorm %v, largest eigenvalue %v", tc.k.Name(), nrm, vals[d-1])
		}
	}
}

// TestSupErrorIsMax: SupError is the largest spectral norm ‖K̃(x_i,z_i) − K(x_i,z_i)‖₂ over the pairs (computed here
// with gonum's norm on Estimate − At), for every kind and rule.
func TestSupErrorIsMax(t *testing.T) {
	rng := newRng(21)
	const d, pairs = 4, 15
	X := make([]float64, pairs*d)
	Z := make([]float64, pairs*d)
	for i := range X {
		X[i] = 2*rng.Float64() - 1
		Z[i] = 2*rng.Float64() - 1
	}
	for _, k := range testKernels(t, rng, d) {
		for _, r := range allRules(t) {
			m := mustMap(t, k, r, d, 20, 1)
			var worst float64
			for i := 0; i < pairs; i++ {
				x, z := X[i*d:(i+1)*d], Z[i*d:(i+1)*d]
				Kt, _ := m.Estimate(x, z)
				Ke, _ := k.At(x, z)
				var E mat.Dense
				E.Sub(Kt, Ke)
				worst = max(worst, specNorm(t, &E))
			}
			sup, err := SupError(m, X, Z, pairs)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(sup-worst) > 1e-12*worst {
				t.Errorf("%s/%s: SupError %v, largest pair error %v", k.Name(), r.Name(), sup, worst)
			}
		}
	}
}
