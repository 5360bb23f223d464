package learn

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// posteriorCase builds a posterior on RFF features of a regression problem with its brute-force reference.
// The map is gaussMap(t, 3, D, 0.9, 8).
func posteriorCase(t *testing.T, n, D, P int, lambda float64, intercept bool) (p *Posterior, s *Stats, b *brute, F int) {
	t.Helper()
	const d = 3
	X, Y := regression(n, d, P, 0.3, 21)
	m := gaussMap(t, d, D, 0.9, 8)
	F = m.Features()
	Z := features(t, m, X, n)
	s = statsOf(t, Z, n, F, Y, P)
	p, err := NewPosterior(s, lambda, intercept)
	if err != nil {
		t.Fatal(err)
	}
	return p, s, newBrute(t, Z, n, F, Y, P, lambda, intercept), F
}

// augmented returns the rows×G design [Z 1] (or Z) of feature rows.
func augmented(Z []float64, rows, F int, intercept bool) *mat.Dense {
	G := F
	if intercept {
		G++
	}
	A := mat.NewDense(rows, G, nil)
	for r := range rows {
		for k := range F {
			A.Set(r, k, Z[r*F+k])
		}
		if intercept {
			A.Set(r, F, 1)
		}
	}
	return A
}

// frobRel returns ‖a − b‖_F/‖b‖_F.
func frobRel(a []float64, b mat.Matrix) float64 {
	r, c := b.Dims()
	var num, den float64
	for i := range r {
		for j := range c {
			v := b.At(i, j)
			num += (a[i*c+j] - v) * (a[i*c+j] - v)
			den += v * v
		}
	}
	return math.Sqrt(num / den)
}

// TestPosteriorBruteForce: the posterior equals its definition computed densely. The covariance of the parameters
// (θ, b) is σ² times the inverse of the regularised Gram matrix of the augmented features, [[ZᵀZ + NλI, Zᵀ1],
// [1ᵀZ, N]]⁻¹ (F×F: (ZᵀZ + NλI)⁻¹ without intercept) to 1e-10; the mean is the ridge fit (θ̂, b̂) to 1e-10; DF is the
// trace of the hat matrix, σ² = RSS/(N − tr H) and the evidence's σ² = (RSS + Nλ‖θ̂‖²)/Ñ with the residuals of
// explicit matrices to 1e-9; and at new rows Covariance is X Cov Xᵀ and Std the square roots of its diagonal (plus
// σ² with noise) to 1e-10. DF and both σ² also agree with SelectLambda's at the same λ.
func TestPosteriorBruteForce(t *testing.T) {
	for _, intercept := range []bool{true, false} {
		const n, D, P, lambda = 80, 6, 2, 3e-3
		p, s, b, F := posteriorCase(t, n, D, P, lambda, intercept)
		if e := relErr(p.DF, b.df); e > 1e-9 {
			t.Errorf("intercept %v: DF = %v, tr H = %v", intercept, p.DF, b.df)
		}
		if e := frobRel(p.Fit.Theta, b.theta); e > 1e-10 {
			t.Errorf("intercept %v: θ̂ differs from the dense solution by %.2g", intercept, e)
		}
		for j := range P {
			if e := relErr(p.Fit.Bias[j], b.bias[j]); intercept && e > 1e-10 {
				t.Errorf("intercept %v: b̂_%d = %v, dense %v", intercept, j, p.Fit.Bias[j], b.bias[j])
			}
			want := b.rss[j] / (float64(n) - b.df)
			if e := relErr(p.NoiseVar[j], want); e > 1e-9 {
				t.Errorf("intercept %v: σ²_%d = %v, RSS/(N − tr H) = %v", intercept, j, p.NoiseVar[j], want)
			}
			nt := float64(n)
			if intercept {
				nt--
			}
			if e := relErr(p.EvidenceNoiseVar[j], b.q[j]/nt); e > 1e-9 {
				t.Errorf("intercept %v: evidence σ²_%d = %v, (RSS + Nλ‖θ‖²)/Ñ = %v", intercept, j, p.EvidenceNoiseVar[j], b.q[j]/nt)
			}
			C, err := p.ParamCovariance(j)
			if err != nil {
				t.Fatal(err)
			}
			var want2 mat.Dense
			want2.Scale(p.NoiseVar[j], b.Ginv)
			if e := frobRel(C, &want2); e > 1e-10 {
				t.Errorf("intercept %v, output %d: parameter covariance differs from σ²·inverse(regularised Gram) by %.2g", intercept, j, e)
			}
		}
		// Cross-check with the selection criteria at the same λ.
		sel, err := SelectLambda(s, []float64{lambda}, intercept)
		if err != nil {
			t.Fatal(err)
		}
		if e := relErr(sel.DF[0], p.DF); e > 1e-10 {
			t.Errorf("intercept %v: SelectLambda DF %v, posterior %v", intercept, sel.DF[0], p.DF)
		}
		for j := range P {
			if e := relErr(sel.NoiseVar[0][j], p.NoiseVar[j]); e > 1e-9 {
				t.Errorf("intercept %v: SelectLambda σ² %v, posterior %v", intercept, sel.NoiseVar[0][j], p.NoiseVar[j])
			}
			if e := relErr(sel.EvidenceNoiseVar[0][j], p.EvidenceNoiseVar[j]); e > 1e-9 {
				t.Errorf("intercept %v: SelectLambda evidence σ² %v, posterior %v", intercept, sel.EvidenceNoiseVar[0][j], p.EvidenceNoiseVar[j])
			}
		}

		// New rows: the predictive covariance and standard deviations.
		const rows = 7
		Xt, _ := regression(rows, 3, 1, 0, 77)
		Zt := features(t, gaussMap(t, 3, D, 0.9, 8), Xt, rows)
		Xa := augmented(Zt, rows, F, intercept)
		std := make([]float64, rows*P)
		stdNoise := make([]float64, rows*P)
		if err := p.Std(std, Zt, rows, false); err != nil {
			t.Fatal(err)
		}
		if err := p.Std(stdNoise, Zt, rows, true); err != nil {
			t.Fatal(err)
		}
		for j := range P {
			var cov, xc mat.Dense
			C, _ := p.ParamCovariance(j)
			G := F
			if intercept {
				G++
			}
			xc.Mul(Xa, mat.NewDense(G, G, C))
			cov.Mul(&xc, Xa.T())
			got := make([]float64, rows*rows)
			if err := p.Covariance(got, Zt, rows, j); err != nil {
				t.Fatal(err)
			}
			if e := frobRel(got, &cov); e > 1e-10 {
				t.Errorf("intercept %v, output %d: Covariance differs from X·Cov·Xᵀ by %.2g", intercept, j, e)
			}
			for a := range rows {
				for c := range rows {
					if got[a*rows+c] != got[c*rows+a] {
						t.Fatalf("Covariance is not symmetric at %d,%d", a, c)
					}
				}
			}
			for r := range rows {
				v := cov.At(r, r)
				if e := relErr(std[r*P+j], math.Sqrt(v)); e > 1e-10 {
					t.Errorf("intercept %v, row %d, output %d: std %v, want %v", intercept, r, j, std[r*P+j], math.Sqrt(v))
				}
				if e := relErr(stdNoise[r*P+j], math.Sqrt(v+p.NoiseVar[j])); e > 1e-10 {
					t.Errorf("intercept %v, row %d, output %d: std with noise %v, want %v", intercept, r, j,
						stdNoise[r*P+j], math.Sqrt(v+p.NoiseVar[j]))
				}
			}
		}
	}
}

// TestPosteriorSamples: the K joint draws of Sample converge to the posterior: at each of the rows and outputs the
// sample mean lies within 4 standard errors sqrt(C_aa/K) of the posterior mean (the ridge prediction), each sample
// covariance entry within 4 standard errors sqrt((C_aa·C_bb + C_ab²)/K) of Covariance's entry (the variance of a
// product of two jointly Gaussian centred variables), and the two outputs are uncorrelated within
// 4·sqrt(C_aa·C_bb/K). With K = 20000, dropping the intercept's own noise σe/√N from the draws, or its coupling
// −z̄ᵀ(θ − θ̂) to the weights, moves sample covariances by 13 to 350 standard errors. Sample is deterministic for a
// seed, and SampleMap and StdMap on the inputs equal Sample and Std on their features.
func TestPosteriorSamples(t *testing.T) {
	for _, intercept := range []bool{true, false} {
		const n, D, P, lambda = 50, 5, 2, 1e-2
		p, _, _, _ := posteriorCase(t, n, D, P, lambda, intercept)
		const rows, K = 5, 20000
		m := gaussMap(t, 3, D, 0.9, 8)
		Xt, _ := regression(rows, 3, 1, 0, 78)
		Zt := features(t, m, Xt, rows)
		dst := make([]float64, K*rows*P)
		if err := p.Sample(dst, Zt, rows, K, 7); err != nil {
			t.Fatal(err)
		}
		mean := make([]float64, rows*P)
		p.Fit.Predict(mean, Zt, rows)
		at := func(k, r, j int) float64 { return dst[(k*rows+r)*P+j] }
		for j := range P {
			C := make([]float64, rows*rows)
			if err := p.Covariance(C, Zt, rows, j); err != nil {
				t.Fatal(err)
			}
			avg := make([]float64, rows)
			for r := range rows {
				for k := range K {
					avg[r] += at(k, r, j)
				}
				avg[r] /= K
				if se := math.Sqrt(C[r*rows+r] / K); math.Abs(avg[r]-mean[r*P+j]) > 4*se {
					t.Errorf("intercept %v, output %d, row %d: sample mean %v, posterior mean %v (%.1f standard errors)",
						intercept, j, r, avg[r], mean[r*P+j], math.Abs(avg[r]-mean[r*P+j])/se)
				}
			}
			for a := range rows {
				for b := a; b < rows; b++ {
					var s float64
					for k := range K {
						s += (at(k, a, j) - avg[a]) * (at(k, b, j) - avg[b])
					}
					s /= K - 1
					c := C[a*rows+b]
					se := math.Sqrt((C[a*rows+a]*C[b*rows+b] + c*c) / K)
					if math.Abs(s-c) > 4*se {
						t.Errorf("intercept %v, output %d, rows %d,%d: sample covariance %.6g, posterior %.6g (%.1f standard errors)",
							intercept, j, a, b, s, c, math.Abs(s-c)/se)
					}
				}
			}
		}
		// Independence of the outputs.
		C0, C1 := make([]float64, rows*rows), make([]float64, rows*rows)
		_ = p.Covariance(C0, Zt, rows, 0)
		_ = p.Covariance(C1, Zt, rows, 1)
		for a := range rows {
			var m0, m1, s float64
			for k := range K {
				m0 += at(k, a, 0)
				m1 += at(k, a, 1)
			}
			m0, m1 = m0/K, m1/K
			for k := range K {
				s += (at(k, a, 0) - m0) * (at(k, a, 1) - m1)
			}
			s /= K - 1
			if se := math.Sqrt(C0[a*rows+a] * C1[a*rows+a] / K); math.Abs(s) > 4*se {
				t.Errorf("intercept %v, row %d: outputs correlated, covariance %.3g (%.1f standard errors)", intercept, a, s, math.Abs(s)/se)
			}
		}

		// Determinism and the mapped forms.
		again := make([]float64, len(dst))
		if err := p.SampleMap(again, m, Xt, rows, K, 7); err != nil {
			t.Fatal(err)
		}
		if d := relDiff(again, dst); d > 1e-13 {
			t.Errorf("intercept %v: SampleMap differs from Sample on the features by %.2g", intercept, d)
		}
		if err := p.Sample(again, Zt, rows, K, 7); err != nil {
			t.Fatal(err)
		}
		for i := range again {
			if again[i] != dst[i] {
				t.Fatalf("intercept %v: Sample with the same seed differs at %d", intercept, i)
			}
		}
		if err := p.Sample(again, Zt, rows, K, 8); err != nil {
			t.Fatal(err)
		}
		if relDiff(again, dst) == 0 {
			t.Errorf("intercept %v: seeds 7 and 8 give the same samples", intercept)
		}
		s1, s2 := make([]float64, rows*P), make([]float64, rows*P)
		_ = p.Std(s1, Zt, rows, true)
		if err := p.StdMap(s2, m, Xt, rows, true); err != nil {
			t.Fatal(err)
		}
		if d := relDiff(s2, s1); d > 1e-13 {
			t.Errorf("intercept %v: StdMap differs from Std by %.2g", intercept, d)
		}
	}
}

// TestPosteriorErrors: invalid arguments are errors, never panics.
func TestPosteriorErrors(t *testing.T) {
	X, Y := regression(20, 3, 1, 0.1, 1)
	m := gaussMap(t, 3, 4, 1, 2)
	F := m.Features()
	Z := features(t, m, X, 20)
	s := statsOf(t, Z, 20, F, Y, 1)
	p, err := NewPosterior(s, 1e-2, true)
	if err != nil {
		t.Fatal(err)
	}
	broken := *p
	broken.NoiseVar = []float64{math.NaN()}
	short := *p
	short.Factor = short.Factor[:3]
	other := gaussMap(t, 3, 5, 1, 2)
	buf := make([]float64, 1000)
	checkMisuse(t, []misuse{
		{"nil stats", func() error { _, err := NewPosterior(nil, 1, true); return err }, "nil statistics"},
		{"λ = 0", func() error { _, err := NewPosterior(s, 0, true); return err }, "λ"},
		{"λ = NaN", func() error { _, err := NewPosterior(s, math.NaN(), false); return err }, "λ"},
		{"one row", func() error { _, err := NewPosterior(statsOf(t, Z[:F], 1, F, Y[:1], 1), 1, true); return err }, "rows"},
		{"nil posterior", func() error { return (*Posterior)(nil).Std(buf, Z, 1, false) }, "nil posterior"},
		{"NaN noise", func() error { return broken.Std(buf, Z, 1, false) }, "NoiseVar"},
		{"short factor", func() error { return short.Std(buf, Z, 1, false) }, "Factor"},
		{"short Z", func() error { return p.Std(buf, Z[:5], 1, false) }, "Z has"},
		{"dst", func() error { return p.Std(buf[:3], Z, 2, false) }, "dst"},
		{"negative rows", func() error { return p.Std(buf, Z, -1, false) }, "rows"},
		{"output", func() error { return p.Covariance(buf[:4], Z, 2, 1) }, "output"},
		{"cov dst", func() error { return p.Covariance(buf[:3], Z, 2, 0) }, "dst"},
		{"param output", func() error { _, err := p.ParamCovariance(-1); return err }, "output"},
		{"K = 0", func() error { return p.Sample(buf, Z, 1, 0, 1) }, "K ≥ 1"},
		{"huge K, short dst", func() error { return p.Sample(buf, Z, 1, 1<<50, 1) }, "dst"},
		{"K overflow", func() error { return p.Sample(buf, Z, 1, math.MaxInt/2, 1) }, "dst"},
		{"sample dst", func() error { return p.Sample(buf[:3], Z, 2, 2, 1) }, "dst"},
		{"map features", func() error { return p.StdMap(buf[:20], other, X, 20, false) }, "features"},
		{"nil map", func() error { return p.SampleMap(buf, nil, X, 20, 1, 1) }, "nil feature map"},
		{"NaN input", func() error {
			Xn := append([]float64(nil), X...)
			Xn[4] = math.NaN()
			return p.StdMap(buf[:20], m, Xn, 20, false)
		}, "is NaN"},
	})
}

// TestPosteriorDFManyFeatures: with F = 600 features the trace of (A + NλI)⁻¹ is gathered over three blocks of rows
// of U⁻¹; DF and σ² still equal SelectLambda's, computed from the eigenvalues, to 1e-9, at λ values where DF ranges
// from about 180 to 0.1. Both computations lose about κ·ε to rounding, κ the condition number of A + NλI; every row of
// cos/sin features has ‖z‖² = 1, so μ_max ≤ tr A ≤ N and κ ≤ 1 + 1/λ ≤ 1e5 + 1 on this grid: κ·ε ≈ 2e-11. (At
// λ = 1e-9 the two differ by 2e-7, as κ ≈ 1e9 predicts.)
func TestPosteriorDFManyFeatures(t *testing.T) {
	const n, d, D, P = 900, 4, 300, 1
	X, Y := regression(n, d, P, 0.2, 31)
	m := gaussMap(t, d, D, 0.7, 9)
	s, err := Accumulate(m, X, n, Y, P)
	if err != nil {
		t.Fatal(err)
	}
	grid := []float64{1e-5, 1e-3, 1e-1, 10}
	for _, intercept := range []bool{true, false} {
		sel, err := SelectLambda(s, grid, intercept)
		if err != nil {
			t.Fatal(err)
		}
		for i, lambda := range grid {
			p, err := NewPosterior(s, lambda, intercept)
			if err != nil {
				t.Fatal(err)
			}
			if e := relErr(p.DF, sel.DF[i]); e > 1e-9 {
				t.Errorf("intercept %v, λ = %g: DF %v, from the eigenvalues %v (relative error %.2g)", intercept, lambda, p.DF, sel.DF[i], e)
			}
			if e := relErr(p.NoiseVar[0], sel.NoiseVar[i][0]); e > 1e-9 {
				t.Errorf("intercept %v, λ = %g: σ² %v, from the eigenvalues %v (relative error %.2g)", intercept, lambda,
					p.NoiseVar[0], sel.NoiseVar[i][0], e)
			}
		}
	}
}
