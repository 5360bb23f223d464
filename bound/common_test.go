package bound

import (
	"math"
	"testing"
)

// bounds is one instance of every Bound, for the generic checks.
func bounds() map[string]Bound {
	q := Quadrature{Dim: 3, Diameter: 2, SecondMoment: 3, Kappa: 1, Mu: 1, CurvM: 2}
	return map[string]Bound{
		"ss-linf":            SSLinf{Dim: 3, Diameter: 2, SecondMoment: 3},
		"ss-lr":              SSLr{Dim: 2, Diameter: 1.5, SecondMoment: 2, R: 2},
		"ss-deriv-bounded":   SSDerivBounded{Dim: 2, Diameter: 3, T: 4, T2: 16, C2: 8.5},
		"ss-deriv-unbounded": SSDerivUnbounded{Dim: 2, Diameter: 1.5, BernsteinVar: 4, BernsteinL: 2.8, GradSup: 1.3, NormMoment: 1.3},
		"rr":                 RahimiRecht{Dim: 3, Diameter: 2, SecondMoment: 3},
		"sutherland":         SutherlandSchneider{Dim: 3, Diameter: 2, SecondMoment: 3, VarSup: 0.3},
		"quadrature":         q,
		"quadrature-rff":     QuadratureRFF{Dim: 3, Diameter: 2, SecondMoment: 3},
		"krr":                KRR{Kernel: q, SigmaY: 1.5, Lambda0: 0.3},
		"orff-curl":          ORFF{Kind: "curl-free", Dim: 3, Sigma: 1, Diameter: 2},
		"orff-div":           ORFF{Kind: "div-free", Dim: 3, Sigma: 1, Diameter: 2},
		"orff-dec":           ORFF{Kind: "decomposable", Dim: 3, Outputs: 4, Sigma: 1, NormA: 2, Diameter: 2},
	}
}

// TestInversion: m = Points(ε, δ) gives Error(m, δ) ≤ ε, and m−1 gives Error(m−1, δ) > ε; Prob agrees.
func TestInversion(t *testing.T) {
	for name, b := range bounds() {
		for _, delta := range []float64{0.1, 1e-3} {
			for _, eps := range []float64{0.02, 0.1, 0.37, 1.5} {
				m, err := b.Points(eps, delta)
				if err != nil {
					t.Errorf("%s: Points(%v, %v): %v", name, eps, delta, err)
					continue
				}
				e, err := b.Error(m, delta)
				if err != nil || e > eps {
					t.Errorf("%s ε=%v δ=%v: m = %d but Error(m) = %v, %v", name, eps, delta, m, e, err)
				}
				if p, _ := b.Prob(eps, m); p > delta*(1+1e-9) {
					t.Errorf("%s ε=%v δ=%v: Prob(ε, m=%d) = %v > δ", name, eps, delta, m, p)
				}
				if m > 1 {
					e1, err := b.Error(m-1, delta)
					if err != nil || !(e1 > eps) {
						t.Errorf("%s ε=%v δ=%v: m−1 = %d gives Error = %v, %v, not > ε", name, eps, delta, m-1,
							e1, err)
					}
					if p, _ := b.Prob(eps, m-1); p < delta*(1-1e-9) {
						t.Errorf("%s ε=%v δ=%v: Prob(ε, m−1) = %v < δ", name, eps, delta, p)
					}
				}
			}
			// And the other way round: ε = Error(m) gives Points(ε) ≤ m.
			for _, m := range []int{1, 10, 1000, 123457} {
				e, err := b.Error(m, delta)
				if err != nil {
					t.Errorf("%s: Error(%d): %v", name, m, err)
					continue
				}
				if mm, err := b.Points(e, delta); err != nil || mm > m {
					t.Errorf("%s m=%d δ=%v: Points(Error(m)) = %d, %v", name, m, delta, mm, err)
				}
			}
		}
	}
}

// increasing checks that f is strictly increasing (dir = +1) or decreasing (dir = −1) over xs.
func monotone(t *testing.T, what string, xs []float64, dir float64, f func(x float64) (float64, error)) {
	t.Helper()
	prev := math.NaN()
	for _, x := range xs {
		v, err := f(x)
		if err != nil {
			t.Errorf("%s at %v: %v", what, x, err)
			return
		}
		if !math.IsNaN(prev) && !(dir*(v-prev) > 0) {
			t.Errorf("%s not %s at %v: %v after %v", what, map[float64]string{1: "increasing", -1: "decreasing"}[dir],
				x, v, prev)
		}
		prev = v
	}
}

// TestMonotonicity: the guaranteed error decreases in m and increases in 1/δ for every bound; it increases in the
// diameter, the dimension and the spectral constants where the theorem says so.
func TestMonotonicity(t *testing.T) {
	ms := []float64{1, 10, 100, 1e3, 1e4, 1e5, 1e6}
	deltas := []float64{0.5, 0.1, 1e-2, 1e-4, 1e-8} // decreasing δ = increasing confidence
	for name, b := range bounds() {
		monotone(t, name+" in m", ms, -1, func(m float64) (float64, error) { return b.Error(int(m), 0.05) })
		monotone(t, name+" in 1/δ", deltas, 1, func(d float64) (float64, error) { return b.Error(5000, d) })
		monotone(t, name+" Points in 1/ε", []float64{2, 1, 0.5, 0.1, 0.01}, 1, func(e float64) (float64, error) {
			m, err := b.Points(e, 0.05)
			return float64(m), err
		})
	}
	diams := []float64{0.33, 0.5, 1, 2, 10, 1e3, 1e6} // Theorem 1's h is monotone in |S| only from (√e−1)/2 on
	dims := []float64{1, 2, 3, 5, 8, 13, 30}
	errAt := func(b Bound) (float64, error) { return b.Error(20000, 0.05) }
	type family struct {
		name string
		xs   []float64
		dir  float64
		f    func(x float64) Bound
	}
	fams := []family{
		{"ss-linf |S|", diams, 1, func(x float64) Bound { return SSLinf{3, x, 3} }},
		{"ss-linf d", dims, 1, func(x float64) Bound { return SSLinf{int(x), 2, x} }},
		{"ss-linf σ²", []float64{0.1, 1, 10, 100}, 1, func(x float64) Bound { return SSLinf{3, 2, x} }},
		{"ss-lr |S|", diams[1:], 1, func(x float64) Bound { return SSLr{3, x, 3, 2} }},
		{"ss-deriv-bounded |S|", diams, 1, func(x float64) Bound { return SSDerivBounded{2, x, 1, 1, 2} }},
		{"ss-deriv-bounded C2", []float64{0, 1, 10, 100}, 1, func(x float64) Bound { return SSDerivBounded{2, 3, 1, 1, x} }},
		{"ss-deriv-bounded d", dims, 1, func(x float64) Bound { return SSDerivBounded{int(x), 3, 2, 4, 8} }},
		{"ss-deriv-unbounded |S|", diams, 1, func(x float64) Bound { return SSDerivUnbounded{2, x, 4, 2.8, 1, 1} }},
		{"ss-deriv-unbounded d", dims, 1, func(x float64) Bound { return SSDerivUnbounded{int(x), 2, 4, 2.8, 1, 1} }},
		{"ss-deriv-unbounded σ²", []float64{0.5, 1, 4, 16}, 1, func(x float64) Bound { return SSDerivUnbounded{2, 2, x, 2.8, 1, 1} }},
		{"ss-deriv-unbounded L", []float64{0.5, 1, 4, 16}, 1, func(x float64) Bound { return SSDerivUnbounded{2, 2, 4, x, 1, 1} }},
		{"ss-deriv-unbounded E", []float64{0.1, 1, 4, 16}, 1, func(x float64) Bound { return SSDerivUnbounded{2, 2, 4, 2.8, x, x} }},
		{"rr ℓ", diams, 1, func(x float64) Bound { return RahimiRecht{3, x, 3} }},
		{"rr d", dims, 1, func(x float64) Bound { return RahimiRecht{int(x), 2, x} }},
		{"rr σ²", []float64{0.1, 1, 10, 100}, 1, func(x float64) Bound { return RahimiRecht{3, 2, x} }},
		{"sutherland ℓ", diams, 1, func(x float64) Bound { return SutherlandSchneider{3, x, 3, 0.3} }},
		{"sutherland d", dims, 1, func(x float64) Bound { return SutherlandSchneider{int(x), 2, x, 0.3} }},
		{"sutherland var", []float64{0, 0.1, 0.5, 1}, 1, func(x float64) Bound { return SutherlandSchneider{3, 2, 3, x} }},
		{"quadrature l", diams, 1, func(x float64) Bound { return Quadrature{3, x, 3, 1, 1, 0.5} }},
		{"quadrature d", dims, 1, func(x float64) Bound { return Quadrature{int(x), 2, x, 1, 1, 0.5} }},
		{"quadrature M", []float64{0.1, 0.5, 2, 8}, 1, func(x float64) Bound { return Quadrature{3, 2, 3, 1, 1, x} }},
		{"quadrature-rff l", diams, 1, func(x float64) Bound { return QuadratureRFF{3, x, 3} }},
		{"quadrature-rff d", dims, 1, func(x float64) Bound { return QuadratureRFF{int(x), 2, x} }},
		{"krr σ_y", []float64{0.1, 1, 10}, 1, func(x float64) Bound { return KRR{QuadratureRFF{3, 2, 3}, x, 0.5} }},
		{"krr λ₀", []float64{0.01, 0.1, 1, 10}, -1, func(x float64) Bound { return KRR{QuadratureRFF{3, 2, 3}, 1, x} }},
		{"orff curl |C|", diams, 1, func(x float64) Bound { return ORFF{Kind: "curl", Dim: 3, Sigma: 1, Diameter: x} }},
		{"orff div |C|", diams, 1, func(x float64) Bound { return ORFF{Kind: "div", Dim: 3, Sigma: 1, Diameter: x} }},
		{"orff dec |C|", []float64{5, 10, 1e3, 1e6}, 1, func(x float64) Bound {
			return ORFF{Kind: "dec", Dim: 3, Outputs: 2, NormA: 1, Sigma: 1, Diameter: x}
		}},
		{"orff dec ‖A‖", []float64{0.1, 1, 10}, 1, func(x float64) Bound {
			return ORFF{Kind: "dec", Dim: 3, Outputs: 2, NormA: x, Sigma: 1, Diameter: 2}
		}},
		{"orff dec p", []float64{1, 2, 5, 50}, 1, func(x float64) Bound {
			return ORFF{Kind: "dec", Dim: 3, Outputs: int(x), NormA: 1, Sigma: 1, Diameter: 2}
		}},
		{"orff curl d", dims[1:], 1, func(x float64) Bound {
			return ORFF{Kind: "curl", Dim: int(x), Sigma: 1, Diameter: 2}
		}},
	}
	for _, f := range fams {
		monotone(t, f.name, f.xs, f.dir, func(x float64) (float64, error) { return errAt(f.f(x)) })
	}
}

// TestKnownNonMonotone documents where a printed bound is not monotone (see the package documentation).
func TestKnownNonMonotone(t *testing.T) {
	// Theorem 1's h decreases in |S| below (√e − 1)/2.
	a, _ := SSLinf{3, 0.05, 3}.H()
	b, _ := SSLinf{3, 0.3, 3}.H()
	if !(a > b) {
		t.Errorf("h(0.05) = %v should exceed h(0.3) = %v", a, b)
	}
	// Theorem 2's volume factor vanishes as d grows.
	f5, _ := SSLr{5, 1, 1, 2}.Factor()
	f40, _ := SSLr{40, 1, 1, 2}.Factor()
	if !(f40 < f5) {
		t.Errorf("volume factor d=40 %v should be below d=5 %v", f40, f5)
	}
	// Theorem 10 for a decomposable kernel improves as |C| grows from 0: b (Proposition 12) starts at 0 and ū grows
	// like log(1/b), so the bound with b → 0 is worse.
	e1, _ := ORFF{Kind: "dec", Dim: 3, Outputs: 2, NormA: 1, Sigma: 1, Diameter: 0.33}.Error(20000, 0.05)
	e2, _ := ORFF{Kind: "dec", Dim: 3, Outputs: 2, NormA: 1, Sigma: 1, Diameter: 2}.Error(20000, 0.05)
	if !(e1 > e2) {
		t.Errorf("decomposable: error at |C| = 0.33 %v should exceed that at |C| = 2 %v", e1, e2)
	}
}

// TestInvalidInputs: errors, not panics, for impossible arguments.
func TestInvalidInputs(t *testing.T) {
	for name, b := range bounds() {
		for _, c := range []struct {
			what string
			err  error
		}{
			{"m = 0", func() error { _, err := b.Error(0, 0.1); return err }()},
			{"δ = 0", func() error { _, err := b.Error(10, 0); return err }()},
			{"δ = 1", func() error { _, err := b.Points(0.1, 1); return err }()},
			{"δ NaN", func() error { _, err := b.Points(0.1, math.NaN()); return err }()},
			{"ε = 0", func() error { _, err := b.Points(0, 0.1); return err }()},
			{"ε < 0", func() error { _, err := b.Prob(-1, 10); return err }()},
			{"ε = +Inf", func() error { _, err := b.Points(math.Inf(1), 0.1); return err }()},
		} {
			if c.err == nil {
				t.Errorf("%s: %s accepted", name, c.what)
			}
		}
	}
	for _, b := range []Bound{
		SSLinf{0, 1, 1}, SSLinf{2, 0, 1}, SSLinf{2, 1, math.Inf(1)}, SSLr{2, 1, 1, 0.5}, SSLr{2, 1, 1, math.NaN()},
		SSDerivBounded{2, 1, 0, 1, 1}, SSDerivBounded{2, 1, 1, 1, -1}, SSDerivUnbounded{2, 1, 0, 1, 1, 1},
		SSDerivUnbounded{2, 1, 1, 1, 0, 0}, RahimiRecht{-1, 1, 1}, SutherlandSchneider{2, 1, 1, 1.5},
		Quadrature{2, 1, 1, 0, 1, 1}, QuadratureRFF{2, -1, 1}, KRR{nil, 1, 1}, KRR{QuadratureRFF{2, 1, 1}, 1, 0},
		ORFF{Kind: "weird", Dim: 2, Sigma: 1, Diameter: 1}, ORFF{Kind: "div", Dim: 1, Sigma: 1, Diameter: 1},
		ORFF{Kind: "dec", Dim: 2, Sigma: 1, NormA: 1, Diameter: 1}, ORFF{Kind: "curl", Dim: 2, Sigma: 1},
	} {
		if _, err := b.Error(100, 0.1); err == nil {
			t.Errorf("%#v accepted", b)
		}
	}
}
