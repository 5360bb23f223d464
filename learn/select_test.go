package learn

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// statsOf accumulates the statistics of explicit features Z (n×F) and targets Y (n×P).
func statsOf(t testing.TB, Z []float64, n, F int, Y []float64, P int) *Stats {
	t.Helper()
	s, err := NewStats(F, P)
	if err != nil {
		t.Fatal(err)
	}
	s.Add(Z, Y, n)
	return s
}

// brute is the dense reference for one λ, computed from explicit matrices with no eigendecomposition and no
// sufficient statistics: the augmented design X = [Z 1] (or Z), the regularised Gram G = XᵀX + diag(Nλ…, 0), the
// coefficients G⁻¹XᵀY, the hat matrix H = XG⁻¹Xᵀ and the residuals (I − H)Y.
type brute struct {
	theta      *mat.Dense // F×P
	bias       []float64  // P
	Ginv       *mat.Dense // (F+1)×(F+1) or F×F
	df         float64    // tr H
	rss, q     []float64  // per output: ‖(I − H)y‖² and RSS + Nλ‖θ‖²
	gcv        float64
	aug        *mat.Dense // the design X
	n, F, P, G int
}

func newBrute(t testing.TB, Z []float64, n, F int, Y []float64, P int, lambda float64, intercept bool) *brute {
	t.Helper()
	G := F
	if intercept {
		G = F + 1
	}
	X := mat.NewDense(n, G, nil)
	for i := range n {
		for k := range F {
			X.Set(i, k, Z[i*F+k])
		}
		if intercept {
			X.Set(i, F, 1)
		}
	}
	_, inv := penalisedGramInverse(t, X, F, float64(n)*lambda)
	Ym := mat.NewDense(n, P, append([]float64(nil), Y...))
	var xty, coef, H, fitted mat.Dense
	xty.Mul(X.T(), Ym)
	coef.Mul(inv, &xty)
	var xg mat.Dense
	xg.Mul(X, inv)
	H.Mul(&xg, X.T())
	fitted.Mul(&H, Ym)
	b := &brute{Ginv: inv, aug: X, n: n, F: F, P: P, G: G, bias: make([]float64, P), rss: make([]float64, P), q: make([]float64, P)}
	b.theta = mat.DenseCopyOf(coef.Slice(0, F, 0, P))
	if intercept {
		for j := range P {
			b.bias[j] = coef.At(F, j)
		}
	}
	for i := range n {
		b.df += H.At(i, i)
		for j := range P {
			r := Y[i*P+j] - fitted.At(i, j)
			b.rss[j] += r * r
		}
	}
	var total float64
	for j := range P {
		total += b.rss[j]
		var tt float64
		for k := range F {
			tt += b.theta.At(k, j) * b.theta.At(k, j)
		}
		b.q[j] = b.rss[j] + float64(n)*lambda*tt
	}
	b.gcv = float64(n) * total / (float64(P) * (float64(n) - b.df) * (float64(n) - b.df))
	return b
}

// bruteLogEvidence is the log marginal likelihood of y (n values) under y = Zθ + b1 + ε, θ ~ N(0, σ²/(nλ)·I),
// ε ~ N(0, σ²I), computed from the dense n×n covariance C = σ²(I + ZZᵀ/(nλ)) of the raw (uncentred) features by a
// Cholesky factorisation. Without intercept it is log N(y; 0, C); with an intercept the bias has a flat prior and is
// integrated out in closed form:
//
//	log ∫ N(y; b1, C) db = −((n−1)/2) log 2π − ½ log|C| − ½ log(1ᵀC⁻¹1) − ½ [yᵀC⁻¹y − (1ᵀC⁻¹y)²/(1ᵀC⁻¹1)].
func bruteLogEvidence(t testing.TB, Z []float64, n, F int, y []float64, lambda, sigma2 float64, intercept bool) float64 {
	t.Helper()
	var e []float64
	if intercept {
		e = make([]float64, n)
		for i := range e {
			e[i] = 1
		}
	}
	return bruteLogEvidenceBias(t, Z, n, F, y, lambda, sigma2, e)
}

// bruteLogEvidenceBias is bruteLogEvidence with the bias entering row i with the coefficient e_i (y = Zθ + b·e + ε),
// e nil for no bias: the flat-prior integral replaces 1 by e.
func bruteLogEvidenceBias(t testing.TB, Z []float64, n, F int, y []float64, lambda, sigma2 float64, e []float64) float64 {
	t.Helper()
	Zm := mat.NewDense(n, F, append([]float64(nil), Z...))
	var zz mat.Dense
	zz.Mul(Zm, Zm.T())
	return bruteLogEvidenceGram(t, &zz, n, y, lambda, sigma2, e)
}

// bruteLogEvidenceGram is bruteLogEvidenceBias with the n×n matrix zz = ZZᵀ (a kernel matrix) given instead of Z.
func bruteLogEvidenceGram(t testing.TB, zz mat.Matrix, n int, y []float64, lambda, sigma2 float64, e []float64) float64 {
	t.Helper()
	C := mat.NewSymDense(n, nil)
	for a := range n {
		for b := a; b < n; b++ {
			v := sigma2 * zz.At(a, b) / (float64(n) * lambda)
			if a == b {
				v += sigma2
			}
			C.SetSym(a, b, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(C) {
		t.Fatal("brute-force covariance not positive definite")
	}
	logdet := ch.LogDet()
	yv := mat.NewVecDense(n, append([]float64(nil), y...))
	var ciy mat.VecDense
	if err := ch.SolveVecTo(&ciy, yv); err != nil {
		t.Fatal(err)
	}
	yCy := mat.Dot(yv, &ciy)
	if e == nil {
		return -0.5*float64(n)*math.Log(2*math.Pi) - 0.5*logdet - 0.5*yCy
	}
	one := mat.NewVecDense(n, append([]float64(nil), e...))
	var ci1 mat.VecDense
	if err := ch.SolveVecTo(&ci1, one); err != nil {
		t.Fatal(err)
	}
	oCo, oCy := mat.Dot(one, &ci1), mat.Dot(one, &ciy)
	return -0.5*float64(n-1)*math.Log(2*math.Pi) - 0.5*logdet - 0.5*math.Log(oCo) - 0.5*(yCy-oCy*oCy/oCo)
}

func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

// column returns output j of the n×P matrix Y.
func column(Y []float64, n, P, j int) []float64 {
	c := make([]float64, n)
	for i := range n {
		c[i] = Y[i*P+j]
	}
	return c
}

// TestSelectLambdaBruteForce: every criterion of SelectLambda equals its definition computed by brute force from
// explicit matrices to 1e-9 relative — df the trace of the hat matrix, GCV from the explicit residuals (I − H)y,
// the noise variances, and the log evidence the Gaussian log density of y with covariance σ²I + (σ²/(Nλ))ZZᵀ by a
// dense n×n Cholesky factorisation, with the bias integrated out under a flat prior — with and without intercept,
// for several outputs, and on a rank-deficient problem (F > N) whose centred ZᵀZ has numerically null eigenvalues.
// The evidence's σ² is also checked to maximise the brute-force evidence: moving it by ±0.1% lowers it. The dual
// form of SelectLambdaMap (the eigendecomposition of the N×N Z_cZ_cᵀ, chosen for F > 2N) meets the same checks.
func TestSelectLambdaBruteForce(t *testing.T) {
	for _, c := range []struct {
		name      string
		n, d, D   int
		P         int
		intercept bool
	}{
		{"tall, intercept", 60, 3, 5, 2, true},
		{"tall, no intercept", 60, 3, 5, 2, false},
		{"wide, intercept", 12, 2, 10, 1, true},
		{"wide, no intercept", 12, 2, 10, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			X, Y := regression(c.n, c.d, c.P, 0.3, 11)
			m := gaussMap(t, c.d, c.D, 0.8, 5)
			F := m.Features()
			Z := features(t, m, X, c.n)
			s := statsOf(t, Z, c.n, F, Y, c.P)
			grid := LogGrid(1e-5, 10, 13)
			primal, err := SelectLambda(s, grid, c.intercept)
			if err != nil {
				t.Fatal(err)
			}
			dual, err := selectRows(Z, c.n, F, Y, c.P, grid, c.intercept)
			if err != nil {
				t.Fatal(err)
			}
			for _, form := range []struct {
				name string
				sel  *Selection
			}{{"primal", primal}, {"dual", dual}} {
				sel := form.sel
				nt := float64(c.n)
				if c.intercept {
					nt--
				}
				bestG, bestE := 0, 0
				var gcvs, evs []float64
				for i, lambda := range grid {
					b := newBrute(t, Z, c.n, F, Y, c.P, lambda, c.intercept)
					check := func(what string, got, want float64) {
						t.Helper()
						if e := relErr(got, want); e > 1e-9 || math.IsNaN(got) {
							t.Errorf("%s, λ = %g: %s = %.15g, brute force %.15g (relative error %.2g)", form.name, lambda, what, got, want, e)
						}
					}
					check("df", sel.DF[i], b.df)
					check("GCV", sel.GCV[i], b.gcv)
					var ev float64
					for j := range c.P {
						check("noise variance", sel.NoiseVar[i][j], b.rss[j]/(float64(c.n)-b.df))
						sigma2 := b.q[j] / nt
						check("evidence noise variance", sel.EvidenceNoiseVar[i][j], sigma2)
						y := column(Y, c.n, c.P, j)
						e0 := bruteLogEvidence(t, Z, c.n, F, y, lambda, sigma2, c.intercept)
						for _, f := range []float64{0.999, 1.001} {
							if e := bruteLogEvidence(t, Z, c.n, F, y, lambda, f*sigma2, c.intercept); !(e < e0) {
								t.Errorf("λ = %g, output %d: σ² × %g gives a larger evidence %v ≥ %v", lambda, j, f, e, e0)
							}
						}
						ev += e0
					}
					check("log evidence", sel.LogEvidence[i], ev)
					gcvs, evs = append(gcvs, b.gcv), append(evs, ev)
					if b.gcv < gcvs[bestG] {
						bestG = i
					}
					if ev > evs[bestE] {
						bestE = i
					}
				}
				if sel.BestGCVIndex != bestG || sel.BestGCV != grid[bestG] {
					t.Errorf("best GCV at index %d (λ = %g), want %d", sel.BestGCVIndex, sel.BestGCV, bestG)
				}
				if sel.BestEvidenceIndex != bestE || sel.BestEvidence != grid[bestE] {
					t.Errorf("best evidence at index %d (λ = %g), want %d", sel.BestEvidenceIndex, sel.BestEvidence, bestE)
				}
			}
		})
	}
}

// bayesData draws n rows from the Bayesian model of SelectLambda: features Z with iid N(0.5, 1) entries (a non-zero
// mean, so that the intercept matters), θ ~ N(0, priorVar·I), b = 3 and y = Zθ + b + ε, ε ~ N(0, noiseVar).
func bayesData(n, F int, priorVar, noiseVar float64, seed uint64) (Z, Y []float64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	Z = make([]float64, n*F)
	for i := range Z {
		Z[i] = 0.5 + rng.NormFloat64()
	}
	theta := make([]float64, F)
	for k := range theta {
		theta[k] = math.Sqrt(priorVar) * rng.NormFloat64()
	}
	Y = make([]float64, n)
	for i := range n {
		v := 3.0
		for k, th := range theta {
			v += Z[i*F+k] * th
		}
		Y[i] = v + math.Sqrt(noiseVar)*rng.NormFloat64()
	}
	return Z, Y
}

// TestSelectLambdaRecoversTruth: on data drawn from the Bayesian model itself, with noise variance σ² and prior
// variance v per weight, the evidence is maximised near the true λ* = σ²/(N·v) (λ = α/(Nβ)) with its σ² near the
// true σ²; GCV, an estimate of the prediction risk, is minimised near λ* too, since under the model the posterior
// mean — ridge at λ* — is the estimator of least risk. The estimates vary from one data set to the next (log v̂ rests
// on F = 40 weights: a standard deviation near sqrt(2/F) ≈ 0.22 when they are well determined, more under strong
// shrinkage; the bias of the maximum-likelihood log v̂ is O(1/F)). Over S = 40 independent data sets the mean of
// log λ̂ (and of log σ̂²) must therefore lie within 4 standard errors of the truth, the standard error being the
// sample standard deviation over the data sets divided by √S (measured: about 0.04 for weak and 0.075 for strong
// shrinkage), and the estimates must bracket the truth. A λ convention off by a factor 2 (ln 2 ≈ 0.69) fails by
// 9 to 17 standard errors. The grid steps by 0.023 in log λ, far below the tolerance. Two regimes: strong
// shrinkage (λ* = 0.5, a weak signal) and weak shrinkage (λ* = 0.00625).
func TestSelectLambdaRecoversTruth(t *testing.T) {
	const S, F = 40, 40
	for _, c := range []struct {
		name               string
		n                  int
		priorVar, noiseVar float64
	}{
		{"strong shrinkage", 400, 0.005, 1},
		{"weak shrinkage", 1000, 0.04, 0.25},
	} {
		t.Run(c.name, func(t *testing.T) {
			truth := c.noiseVar / (float64(c.n) * c.priorVar)
			grid := LogGrid(truth/100, truth*100, 401)
			var ll, lg, ls []float64
			for seed := range uint64(S) {
				Z, Y := bayesData(c.n, F, c.priorVar, c.noiseVar, seed+1)
				sel, err := SelectLambda(statsOf(t, Z, c.n, F, Y, 1), grid, true)
				if err != nil {
					t.Fatal(err)
				}
				i := sel.BestEvidenceIndex
				for _, k := range []int{i, sel.BestGCVIndex} {
					if k == 0 || k == len(grid)-1 {
						t.Fatalf("seed %d: a criterion is best at the end of the grid, λ = %g", seed, grid[k])
					}
				}
				ll = append(ll, math.Log(sel.BestEvidence))
				lg = append(lg, math.Log(sel.BestGCV))
				ls = append(ls, math.Log(sel.EvidenceNoiseVar[i][0]))
			}
			for _, q := range []struct {
				what  string
				x     []float64
				truth float64
			}{{"evidence log λ", ll, math.Log(truth)}, {"GCV log λ", lg, math.Log(truth)}, {"evidence log σ²", ls, math.Log(c.noiseVar)}} {
				mean, sd, lo, hi := summary(q.x)
				se := sd / math.Sqrt(float64(len(q.x)))
				if math.Abs(mean-q.truth) > 4*se {
					t.Errorf("%s: mean over %d data sets %.4f, truth %.4f: off by %.1f standard errors (se %.4f)",
						q.what, S, mean, q.truth, math.Abs(mean-q.truth)/se, se)
				}
				if !(lo < q.truth && q.truth < hi) {
					t.Errorf("%s: the estimates [%.4f, %.4f] do not bracket the truth %.4f", q.what, lo, hi, q.truth)
				}
			}
		})
	}
}

// summary returns the mean, the sample standard deviation, the minimum and the maximum of x.
func summary(x []float64) (mean, sd, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range x {
		mean += v
		lo, hi = min(lo, v), max(hi, v)
	}
	mean /= float64(len(x))
	for _, v := range x {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(x)-1)), lo, hi
}

// TestSelectLambdaErrors: invalid statistics, grids and degenerate targets are errors, never panics.
func TestSelectLambdaErrors(t *testing.T) {
	Z := []float64{1, 0, 0, 1, 1, 1}
	good := statsOf(t, Z, 3, 2, []float64{1, 2, 4}, 1)
	constant := statsOf(t, Z, 3, 2, []float64{2, 2, 2}, 1)
	one := statsOf(t, Z[:2], 1, 2, []float64{1}, 1)
	nan := good.Clone()
	nan.ZtY[0] = math.NaN()
	call := func(s *Stats, grid []float64, intercept bool) func() error {
		return func() error { _, err := SelectLambda(s, grid, intercept); return err }
	}
	checkMisuse(t, []misuse{
		{"nil", call(nil, []float64{1}, true), "nil statistics"},
		{"NaN", call(nan, []float64{1}, true), "NaN"},
		{"empty grid", call(good, nil, true), "empty"},
		{"λ = 0", call(good, []float64{1, 0}, true), "λ = 0"},
		{"λ < 0", call(good, []float64{-1}, true), "λ = -1"},
		{"λ = Inf", call(good, []float64{math.Inf(1)}, true), "λ = +Inf"},
		{"λ = NaN", call(good, []float64{math.NaN()}, false), "λ = NaN"},
		{"constant target", call(constant, []float64{1}, true), "constant (its centred sum of squares is 0): every λ fits it exactly, so there is nothing to choose"},
		{"one row with intercept", call(one, []float64{1}, true), "at least 2 row(s), have 1"},
		{"no rows", call(statsOf(t, nil, 0, 2, nil, 1), []float64{1}, false), "at least 1 row(s), have 0"},
	})
}

// penalisedGramInverse returns A = XᵀX + t·D, D the identity on the first F columns of X and 0 on the others (an
// unpenalised intercept), and its inverse.
func penalisedGramInverse(t testing.TB, X *mat.Dense, F int, tpen float64) (A, inv *mat.Dense) {
	t.Helper()
	A, inv = new(mat.Dense), new(mat.Dense)
	A.Mul(X.T(), X)
	for k := range F {
		A.Set(k, k, A.At(k, k)+tpen)
	}
	if err := inv.Inverse(A); err != nil {
		t.Fatal(err)
	}
	return A, inv
}

// Targets whose squares fall below the normal float64 range are refused by everything that sums them (the λ
// criteria and the posterior's noise variance), not taken for constant or given a noise of 0; just above that range
// GCV chooses the λ it chooses for the unscaled targets and the noise variance scales with their square.
func TestTinyTargets(t *testing.T) {
	const n, d = 60, 2
	X, Y := regression(n, d, 1, 0.1, 3)
	m := gaussMap(t, d, 16, 1, 1)
	stats := func(c float64) *Stats {
		Yc := make([]float64, n)
		for i, y := range Y {
			Yc[i] = y * c
		}
		st, err := Accumulate(m, X, n, Yc, 1)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	lambdas := []float64{1e-6, 1e-4, 1e-2, 1}
	for _, c := range []float64{1e-160, 1e-170, 1e-200} {
		st := stats(c)
		_, err1 := SelectLambda(st, lambdas, true)
		_, err2 := ScoreLambdas(st, lambdas, true)
		_, err3 := NewPosterior(st, 1e-3, true)
		for i, err := range []error{err1, err2, err3} {
			if err == nil || !strings.Contains(err.Error(), "too small for their squares") {
				t.Errorf("targets × %g, call %d: %v, want a refusal", c, i+1, err)
			}
		}
	}
	// squares near 1e-304, normal: used
	if _, err := NewPosterior(stats(1e-152), 1e-3, true); err != nil {
		t.Errorf("targets × 1e-152: %v", err)
	}
	ref, err := SelectLambda(stats(1), lambdas, true)
	if err != nil {
		t.Fatal(err)
	}
	small, err := SelectLambda(stats(0x1p-490), lambdas, true) // exact scaling: the same criteria up to rounding
	if err != nil {
		t.Fatal(err)
	}
	if ref.BestGCVIndex != small.BestGCVIndex {
		t.Errorf("GCV chooses λ index %d for the targets and %d for them × 2⁻⁴⁹⁰", ref.BestGCVIndex, small.BestGCVIndex)
	}
	p1, err := NewPosterior(stats(1), 1e-3, true)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := NewPosterior(stats(0x1p-490), 1e-3, true)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p2.NoiseVar[0], p1.NoiseVar[0]*0x1p-980; math.Abs(got-want) > 1e-9*want {
		t.Errorf("noise variance %v, want %v (2⁻⁹⁸⁰ times the unscaled one)", got, want)
	}
}

// TestSelectLambdaMap: SelectLambdaMap's df and GCV equal their brute-force definitions (explicit hat matrix) to
// 1e-9, in the dual form (F > 2N) and in the primal, and its choices are SelectLambda's on the accumulated statistics.
// (In the dual the 170 numerically null directions of the 200×200 ZᵀZ never arise: there, SelectLambda's GCV is off
// by 2e-9 and the dual's by 3e-13.)
func TestSelectLambdaMap(t *testing.T) {
	for _, c := range []struct {
		name string
		n, D int
		dual bool
	}{{"dual", 30, 100, true}, {"primal", 300, 20, false}} {
		t.Run(c.name, func(t *testing.T) {
			const d, P = 2, 2
			X, Y := regression(c.n, d, P, 0.3, 3)
			m := gaussMap(t, d, c.D, 0.7, 4)
			F := m.Features()
			if got := dualCheaper(c.n, F); got != c.dual {
				t.Fatalf("dualCheaper(%d, %d) = %v", c.n, F, got)
			}
			Z := features(t, m, X, c.n)
			grid := LogGrid(1e-4, 1, 9)
			for _, intercept := range []bool{true, false} {
				got, err := SelectLambdaMap(m, X, c.n, Y, P, grid, intercept)
				if err != nil {
					t.Fatal(err)
				}
				for i, lambda := range grid {
					b := newBrute(t, Z, c.n, F, Y, P, lambda, intercept)
					if e := relErr(got.GCV[i], b.gcv); !(e <= 1e-9) {
						t.Errorf("intercept %v, λ = %g: GCV %.15g, brute force %.15g", intercept, lambda, got.GCV[i], b.gcv)
					}
					if e := relErr(got.DF[i], b.df); !(e <= 1e-9) {
						t.Errorf("intercept %v, λ = %g: df %.15g, brute force %.15g", intercept, lambda, got.DF[i], b.df)
					}
				}
				want, err := SelectLambda(statsOf(t, Z, c.n, F, Y, P), grid, intercept)
				if err != nil {
					t.Fatal(err)
				}
				if got.BestGCVIndex != want.BestGCVIndex || got.BestEvidenceIndex != want.BestEvidenceIndex {
					t.Errorf("intercept %v: choices %d, %d; from the statistics %d, %d", intercept, got.BestGCVIndex,
						got.BestEvidenceIndex, want.BestGCVIndex, want.BestEvidenceIndex)
				}
			}
		})
	}
}
