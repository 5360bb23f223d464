package learn

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// smooth5 is the 5-D test function f(x) = sin(x₁ + x₂/2) + cos(x₃)·x₄/2 + 0.3·x₅² + 1 and its gradient.
func smooth5(x, g []float64) float64 {
	s, c := math.Sin(x[0]+x[1]/2), math.Cos(x[0]+x[1]/2)
	if g != nil {
		g[0], g[1] = c, c/2
		g[2], g[3] = -math.Sin(x[2])*x[3]/2, math.Cos(x[2])/2
		g[4] = 0.6 * x[4]
	}
	return s + math.Cos(x[2])*x[3]/2 + 0.3*x[4]*x[4] + 1
}

// featuresAndGradients returns the features (n×F) and their derivatives (n×d×F) of the n rows of X.
func featuresAndGradients(t *testing.T, m *feature.Map, X []float64, n int) (z, dz []float64) {
	t.Helper()
	F, d := m.Features(), m.Dim()
	z, dz = make([]float64, n*F), make([]float64, n*d*F)
	if err := m.TransformRows(z, X, n); err != nil {
		t.Fatal(err)
	}
	if err := m.Gradient(dz, X, n); err != nil {
		t.Fatal(err)
	}
	return z, dz
}

func hermiteData(n int, seed uint64) (X, Y, G []float64) {
	const d = 5
	rng := rand.New(rand.NewPCG(seed, 9))
	X, Y, G = make([]float64, n*d), make([]float64, n), make([]float64, n*d)
	for i := range n {
		for j := range d {
			X[i*d+j] = 2*rng.Float64() - 1
		}
		Y[i] = smooth5(X[i*d:(i+1)*d], G[i*d:(i+1)*d])
	}
	return X, Y, G
}

// TestHermiteGradientsHelp is the acceptance check of gradient-enhanced learning: on a smooth 5-D function, adding
// the gradient observations at the same 150 points lowers the test RMSE of the values by at least 2×. (Each point
// then carries 6 observations instead of 1; in 5 dimensions 150 values leave the function badly underdetermined.)
func TestHermiteGradientsHelp(t *testing.T) {
	const n, nt, d = 150, 1000, 5
	X, Y, G := hermiteData(n, 1)
	Xt, Yt, _ := hermiteData(nt, 2)
	m := gaussMap(t, d, 400, 1.5, 3)
	rmse := func(fit *Fit) float64 {
		p := make([]float64, nt)
		if err := fit.PredictMap(p, m, Xt, nt); err != nil {
			t.Fatal(err)
		}
		var s float64
		for i := range p {
			s += (p[i] - Yt[i]) * (p[i] - Yt[i])
		}
		return math.Sqrt(s / nt)
	}
	h := Hermite{Lambda: 1e-7, Intercept: true}
	vals, err := h.Fit(m, X, n, Y, nil)
	if err != nil {
		t.Fatal(err)
	}
	both, err := h.Fit(m, X, n, Y, G)
	if err != nil {
		t.Fatal(err)
	}
	rv, rb := rmse(vals), rmse(both)
	t.Logf("test RMSE: values only %.4g, values + gradients %.4g (%.1f×)", rv, rb, rv/rb)
	if rv < 2*rb {
		t.Errorf("gradients lowered the RMSE from %.4g to %.4g only (%.2f×, want ≥ 2×)", rv, rb, rv/rb)
	}
}

// TestHermiteOptimum checks the normal equations against the stacked least-squares problem written out explicitly:
// the gradient of the objective vanishes at the fit (relative to the size of its terms), with a mix of missing
// values and missing partial derivatives and a derivative weight w ≠ 1.
func TestHermiteOptimum(t *testing.T) {
	const n, d = 40, 5
	X, Y, G := hermiteData(n, 3)
	for i := 0; i < n; i += 3 {
		Y[i] = math.NaN()
	}
	for i := 1; i < n*d; i += 4 {
		G[i] = math.NaN()
	}
	m := gaussMap(t, d, 30, 1.2, 4)
	F := m.Features()
	const lambda, w = 1e-3, 0.5
	fit, err := Hermite{Lambda: lambda, Intercept: true, GradWeight: w}.Fit(m, X, n, Y, G)
	if err != nil {
		t.Fatal(err)
	}
	z, dz := featuresAndGradients(t, m, X, n)
	gTheta := make([]float64, F)
	var gBias, scale float64
	N := 0.0
	add := func(row []float64, bias, target, weight float64) {
		r := bias
		for k, v := range row {
			r += v * fit.Theta[k]
		}
		r -= target
		for k, v := range row {
			gTheta[k] += 2 * weight * r * v
			scale = math.Max(scale, math.Abs(2*weight*target*v))
		}
		if bias != 0 {
			gBias += 2 * weight * r
		}
		N++
	}
	for i := range n {
		if !math.IsNaN(Y[i]) {
			add(z[i*F:(i+1)*F], fit.Bias[0], Y[i], 1)
		}
		for j := range d {
			if g := G[i*d+j]; !math.IsNaN(g) {
				add(dz[(i*d+j)*F:(i*d+j+1)*F], 0, g, w)
			}
		}
	}
	var worst float64
	for k := range F {
		worst = math.Max(worst, math.Abs(gTheta[k]/N+2*lambda*fit.Theta[k]))
	}
	if worst > 1e-8*scale/N || math.Abs(gBias/N) > 1e-8*scale/N {
		t.Errorf("gradient of the objective at the fit: θ part %.3g, bias %.3g (scale %.3g)", worst, gBias/N, scale/N)
	}
}

// TestPredictGradients checks the model gradient against central differences of the model's values; the
// truncation error of a central difference with step h is h²/6·|f‴| ≤ h²/6·Σ|θ_j|‖ω_j‖³, far below the
// tolerance for h = 1e-4.
func TestPredictGradients(t *testing.T) {
	const n, d = 20, 5
	X, Y, G := hermiteData(n, 5)
	m := gaussMap(t, d, 50, 1, 6)
	fit, err := Hermite{Lambda: 1e-4, Intercept: true}.Fit(m, X, n, Y, G)
	if err != nil {
		t.Fatal(err)
	}
	grad := make([]float64, n*d)
	if err := fit.PredictGradients(grad, m, X, n); err != nil {
		t.Fatal(err)
	}
	const h = 1e-4
	for i := range n {
		for j := range d {
			xp := append([]float64(nil), X[i*d:(i+1)*d]...)
			xm := append([]float64(nil), xp...)
			xp[j] += h
			xm[j] -= h
			var fp, fm [1]float64
			fit.PredictMap(fp[:], m, xp, 1)
			fit.PredictMap(fm[:], m, xm, 1)
			if fd := (fp[0] - fm[0]) / (2 * h); math.Abs(fd-grad[i*d+j]) > 1e-6*(1+math.Abs(fd)) {
				t.Fatalf("row %d, ∂_%d: analytic %.10g, central difference %.10g", i, j+1, grad[i*d+j], fd)
			}
		}
	}
}

func TestHermiteErrors(t *testing.T) {
	m := gaussMap(t, 2, 10, 1, 1)
	X := []float64{0, 0, 1, 1}
	nan := math.NaN()
	cases := []struct {
		name       string
		h          Hermite
		vals, grad []float64
	}{
		{"lambda", Hermite{}, []float64{1, 2}, nil},
		{"none", Hermite{Lambda: 1}, nil, nil},
		{"all missing", Hermite{Lambda: 1}, []float64{nan, nan}, nil},
		{"intercept without values", Hermite{Lambda: 1, Intercept: true}, nil, []float64{1, 2, 3, 4}},
		{"value count", Hermite{Lambda: 1}, []float64{1}, nil},
		{"gradient count", Hermite{Lambda: 1}, nil, []float64{1, 2, 3}},
		{"inf", Hermite{Lambda: 1}, []float64{math.Inf(1), 1}, nil},
		{"weight", Hermite{Lambda: 1, GradWeight: -1}, []float64{1, 2}, nil},
	}
	for _, c := range cases {
		if _, err := c.h.Fit(m, X, 2, c.vals, c.grad); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// TestHermiteSelectLambdaBruteForce: SelectLambda's GCV and evidence equal their definitions (the evidence: see
// below); the GCV its definition evaluated on the explicit stacked
// matrix — rows [z(x_i), 1] for observed values and [√w·∂_j z(x_i), 0] for observed derivatives, the hat matrix
// H = X(XᵀX + NλD)⁻¹Xᵀ with D = I except 0 for the unpenalised bias column, GCV = N‖(I − H)y‖²/(N − tr H)² — to
// the rounding of the two solves, a small multiple of cond(XᵀX + NλD)·ε.
func TestHermiteSelectLambdaBruteForce(t *testing.T) {
	const n, d = 12, 5
	X, Y, Gr := hermiteData(n, 4)
	Y[3], Gr[7], Gr[20] = math.NaN(), math.NaN(), math.NaN() // unobserved entries are skipped
	m := gaussMap(t, d, 8, 1.5, 5)
	F := m.Features()
	lambdas := []float64{1e-3, 1e-2, 1e-1}
	for _, tc := range []struct {
		intercept bool
		w         float64
	}{{true, 0}, {false, 0}, {true, 2}} {
		h := Hermite{Intercept: tc.intercept, GradWeight: tc.w}
		sel, err := h.SelectLambda(m, X, n, Y, Gr, lambdas)
		if err != nil {
			t.Fatal(err)
		}
		got, best := sel.GCV, sel.BestGCVIndex
		w := tc.w
		if w == 0 {
			w = 1
		}
		z, dz := featuresAndGradients(t, m, X, n)
		var rows, y []float64
		for i := range n {
			if !math.IsNaN(Y[i]) {
				rows = append(append(rows, z[i*F:(i+1)*F]...), 1)
				y = append(y, Y[i])
			}
		}
		for i := range n {
			for j := range d {
				if g := Gr[i*d+j]; !math.IsNaN(g) {
					for _, v := range dz[(i*d+j)*F : (i*d+j+1)*F] {
						rows = append(rows, math.Sqrt(w)*v)
					}
					rows = append(rows, 0)
					y = append(y, math.Sqrt(w)*g)
				}
			}
		}
		N := len(y)
		cols := F + 1
		if !tc.intercept { // drop the bias column
			var r []float64
			for i := range N {
				r = append(r, rows[i*(F+1):i*(F+1)+F]...)
			}
			rows, cols = r, F
		}
		Xs := mat.NewDense(N, cols, rows)
		ys := mat.NewVecDense(N, y)
		bestWant := 0
		want := make([]float64, len(lambdas))
		for li, lambda := range lambdas {
			A, Ainv := penalisedGramInverse(t, Xs, F, float64(N)*lambda)
			var H, T mat.Dense
			T.Mul(Xs, Ainv)
			H.Mul(&T, Xs.T())
			var fit mat.VecDense
			fit.MulVec(&H, ys)
			var rss float64
			for i := range N {
				r := y[i] - fit.AtVec(i)
				rss += r * r
			}
			df := mat.Trace(&H)
			want[li] = float64(N) * rss / ((float64(N) - df) * (float64(N) - df))
			if want[li] < want[bestWant] {
				bestWant = li
			}
			tol := 16 * mat.Cond(A, 2) * 0x1p-52
			if d := math.Abs(got[li]-want[li]) / want[li]; !(d <= tol) {
				t.Errorf("intercept %v, w %g, λ = %g: GCV %.15g, definition %.15g (relative %.3g > %.3g)",
					tc.intercept, tc.w, lambda, got[li], want[li], d, tol)
			}
		}
		if best != bestWant {
			t.Errorf("intercept %v, w %g: best index %d, definition %d (GCV %v)", tc.intercept, tc.w, best, bestWant, want)
		}
		// The evidence: the Gaussian log density of the stacked targets with covariance σ²(I + ZZᵀ/(Nλ)), the bias
		// integrated out under a flat prior on the value rows only (e the value-row indicator), at the selection's
		// σ², which must maximise it (±0.1% lowers it).
		var Zs, e []float64
		for i := range N {
			Zs = append(Zs, rows[i*cols:i*cols+F]...)
			if tc.intercept {
				e = append(e, rows[i*cols+F])
			}
		}
		bestEv := 0
		evs := make([]float64, len(lambdas))
		for li, lambda := range lambdas {
			s2 := sel.EvidenceNoiseVar[li][0]
			evs[li] = bruteLogEvidenceBias(t, Zs, N, F, y, lambda, s2, e)
			if d := relErr(sel.LogEvidence[li], evs[li]); !(d <= 1e-9) {
				t.Errorf("intercept %v, w %g, λ = %g: log evidence %.15g, definition %.15g (relative %.3g)",
					tc.intercept, tc.w, lambda, sel.LogEvidence[li], evs[li], d)
			}
			for _, f := range []float64{0.999, 1.001} {
				if v := bruteLogEvidenceBias(t, Zs, N, F, y, lambda, f*s2, e); !(v < evs[li]) {
					t.Errorf("intercept %v, w %g, λ = %g: σ² × %g gives a larger evidence %v ≥ %v", tc.intercept, tc.w, lambda, f, v, evs[li])
				}
			}
			if evs[li] > evs[bestEv] {
				bestEv = li
			}
		}
		if sel.BestEvidenceIndex != bestEv {
			t.Errorf("intercept %v, w %g: best evidence index %d, definition %d (%v)", tc.intercept, tc.w, sel.BestEvidenceIndex, bestEv, evs)
		}
	}
}

// TestPredictGradientsCost: a model on a feature map is differentiated through the map's GradientProduct, not its
// d·F derivative features: a row's gradient allocates about a row of projections, features and their products
// (and the frequencies once), not the d·F = 400 000 values (3.2 MB) of its derivative features.
func TestPredictGradientsCost(t *testing.T) {
	const d, D = 100, 2000
	m, err := feature.New(kernel.Gaussian{S: 3}, rule.G{}, d, D, 1)
	if err != nil {
		t.Fatal(err)
	}
	F := m.Features()
	f := &Fit{F: F, P: 1, Theta: make([]float64, F), Bias: make([]float64, 1)}
	for i := range f.Theta {
		f.Theta[i] = math.Cos(float64(i))
	}
	x := make([]float64, d)
	dst := make([]float64, d)
	if err := f.PredictGradients(dst, m, x, 1); err != nil { // the frequencies, once
		t.Fatal(err)
	}
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	if err := f.PredictGradients(dst, m, x, 1); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&b)
	if got, bound := b.TotalAlloc-a.TotalAlloc, uint64(8*(2*F+2*D+d)+64<<10); got > bound {
		t.Errorf("one row's gradient allocated %d bytes, want at most %d", got, bound)
	}
}
