package bound

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestSecondMomentHand(t *testing.T) {
	for _, c := range []struct {
		kernel string
		d      int
		sigma  float64
		want   float64
	}{
		{"gaussian", 3, 2, 3.0 / 4},
		{"rbf", 1, 0.5, 4},
		{"matern32", 2, 1, 2 * 1.5 / 0.5},       // dν/((ν−1)σ²)
		{"matern52", 4, 2, 4 * 2.5 / (1.5 * 4)}, // = 5d/(3σ²)
		{"cauchy", 3, 1, 6},                     // Laplace(0,1): E ω_i² = 2
		{"sinc", 2, 0.5, 2 * 4.0 / 3},           // uniform on [−2,2]: E ω_i² = 4/3
	} {
		got, err := SecondMoment(c.kernel, c.d, c.sigma)
		if err != nil || !near(got, c.want, 1e-14) {
			t.Errorf("%s d=%d σ=%v: %v, %v; want %v", c.kernel, c.d, c.sigma, got, err, c.want)
		}
	}
	for _, k := range []string{"laplacian", "matern12"} {
		got, err := SecondMoment(k, 3, 1)
		if !errors.Is(err, ErrInfiniteMoment) || !math.IsInf(got, 1) {
			t.Errorf("%s: %v, %v; want +Inf and ErrInfiniteMoment", k, got, err)
		}
	}
	// General Matérn ν: finite only for ν > 1.
	s, _ := NewSpectrum("matern", 2, 1, 1)
	if v, err := s.SecondMoment(); !math.IsInf(v, 1) || err == nil {
		t.Errorf("Matérn ν=1: %v, %v", v, err)
	}
	s, _ = NewSpectrum("matern", 2, 1, 4)
	if v, _ := s.SecondMoment(); !near(v, 2*4.0/3, 1e-14) {
		t.Errorf("Matérn ν=4: %v", v)
	}
	// A struct literal behaves like a constructed value.
	if v, err := (Spectrum{Kernel: "Matern32", Dim: 2, Sigma: 1}).SecondMoment(); err != nil || v != 6 {
		t.Errorf("struct literal matern32: %v, %v", v, err)
	}
	if _, err := (Spectrum{Kernel: "gaussian", Dim: 2}).Moments(nil); err == nil {
		t.Error("zero bandwidth accepted")
	}
	for _, bad := range []func() error{
		func() error { _, err := SecondMoment("polynomial", 2, 1); return err },
		func() error { _, err := SecondMoment("gaussian", 0, 1); return err },
		func() error { _, err := SecondMoment("gaussian", 2, -1); return err },
		func() error { _, err := NewSpectrum("matern", 2, 1, 0); return err },
	} {
		if bad() == nil {
			t.Error("invalid spectrum accepted")
		}
	}
}

// TestMomentsMonteCarlo checks the closed-form mixed moments against Monte Carlo (4 standard errors).
func TestMomentsMonteCarlo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 200000
	for _, c := range []struct {
		kernel string
		nu     float64
		a      []int
		sample func(w []float64)
	}{
		{"gaussian", 0, []int{1, 0, 2}, func(w []float64) {
			for i := range w {
				w[i] = rng.NormFloat64() / 1.5
			}
		}},
		{"matern", 6, []int{1, 1}, func(w []float64) {
			var g float64
			for i := 0; i < 12; i++ {
				z := rng.NormFloat64()
				g += z * z
			}
			for i := range w {
				w[i] = rng.NormFloat64() * math.Sqrt(12/g) / 1.5
			}
		}},
		{"cauchy", 0, []int{2}, func(w []float64) {
			for i := range w {
				w[i] = rng.ExpFloat64() / 1.5
				if rng.IntN(2) == 0 {
					w[i] = -w[i]
				}
			}
		}},
		{"sinc", 0, []int{0, 3}, func(w []float64) {
			for i := range w {
				w[i] = (2*rng.Float64() - 1) / 1.5
			}
		}},
	} {
		d := len(c.a)
		kname := c.kernel
		s, err := NewSpectrum(kname, d, 1.5, c.nu)
		if err != nil {
			t.Fatal(err)
		}
		mom, err := s.Moments(c.a)
		if err != nil {
			t.Fatal(err)
		}
		w := make([]float64, d)
		var s0, s1, s2, q0, q1, q2 float64
		for i := 0; i < n; i++ {
			c.sample(w)
			p, n2 := 1.0, 0.0
			for j := range w {
				p *= math.Pow(math.Abs(w[j]), float64(c.a[j]))
				n2 += w[j] * w[j]
			}
			v0, v1, v2 := p, p*math.Sqrt(n2), p*n2
			s0, s1, s2 = s0+v0, s1+v1, s2+v2
			q0, q1, q2 = q0+v0*v0, q1+v1*v1, q2+v2*v2
		}
		check := func(name string, sum, sq, want float64, upper bool) {
			mean := sum / n
			se := math.Sqrt((sq/n - mean*mean) / n)
			if upper {
				if mean > want+4*se {
					t.Errorf("%s %v %s: Monte Carlo %v ± %v above the bound %v", kname, c.a, name, mean, se, want)
				}
				return
			}
			if math.Abs(mean-want) > 4*se {
				t.Errorf("%s %v %s: Monte Carlo %v ± %v, closed form %v", kname, c.a, name, mean, se, want)
			}
		}
		check("E|ω^a|", s0, q0, mom.Abs, false)
		check("E|ω^a|‖ω‖", s1, q1, mom.Norm, mom.NormIsBound)
		check("E|ω^a|‖ω‖²", s2, q2, mom.NormSq, false)
	}
	// Gaussian, d = 2, a = (1,0): E|ω₁|‖ω‖ = 4/π exactly; d = 3: 3/2.
	s, _ := NewSpectrum("gaussian", 2, 1, 0)
	if m, _ := s.Moments([]int{1, 0}); !near(m.Norm, 4/math.Pi, 1e-14) {
		t.Errorf("E|ω₁|‖ω‖ = %v, want 4/π", m.Norm)
	}
	// Supports: sinc is bounded (T = c^{|a|}), the others are not (a ≠ 0).
	s, _ = NewSpectrum("sinc", 2, 0.25, 0)
	if m, _ := s.Moments([]int{1, 2}); m.Sup != 64 || !s.BoundedSupport() {
		t.Errorf("sinc sup = %v", m.Sup)
	}
	s, _ = NewSpectrum("gaussian", 2, 1, 0)
	if m, _ := s.Moments([]int{1, 0}); !math.IsInf(m.Sup, 1) || s.BoundedSupport() {
		t.Errorf("gaussian sup = %v", m.Sup)
	}
	if _, err := s.Moments([]int{1}); err == nil {
		t.Error("wrong multi-index length accepted")
	}
	if _, err := s.Moments([]int{1, -1}); err == nil {
		t.Error("negative multi-index accepted")
	}
}

// TestBernsteinCondition verifies E|f|^M ≤ 2^M E|ω^a|^M ≤ M!σ²L^{M−2}/2 for M = 2…30 from the exact moments.
func TestBernsteinCondition(t *testing.T) {
	for _, c := range []struct {
		kernel string
		p, q   []int
	}{
		{"gaussian", []int{1, 0}, nil},
		{"gaussian", []int{1, 0}, []int{0, 1}},
		{"gaussian", []int{2, 0}, nil},
		{"cauchy", nil, []int{0, 1}},
		{"sinc", []int{2, 0}, []int{1, 1}},
		{"laplacian", nil, nil},
	} {
		s, _ := NewSpectrum(c.kernel, 2, 0.8, 0)
		v, L, err := s.Bernstein(c.p, c.q)
		if err != nil {
			t.Fatalf("%s %v %v: %v", c.kernel, c.p, c.q, err)
		}
		a, order, _ := addIndex(c.p, c.q, 2)
		for M := 2; M <= 30; M++ {
			var lhs float64
			switch {
			case order == 0:
				lhs = math.Pow(2, float64(M-2)) // |f| ≤ 2, E f² ≤ 1
			case s.BoundedSupport():
				// |f| ≤ 2T = L/2 and E f² ≤ E ω^{2a} = σ²: E|f|^M ≤ (L/2)^{M−2}σ² (Remark 5).
				mm, _ := s.Moments(a)
				if !near(L, 4*mm.Sup, 1e-14) {
					t.Errorf("sinc: L = %v, want 4T = %v", L, 4*mm.Sup)
				}
				lhs = math.Pow(L/2, float64(M-2)) * v
			default:
				aM := []int{M * a[0], M * a[1]}
				mm, _ := s.Moments(aM)
				lhs = math.Pow(2, float64(M)) * mm.Abs
			}
			rhs := math.Gamma(float64(M)+1) * v * math.Pow(L, float64(M-2)) / 2
			if lhs > rhs*(1+1e-12) {
				t.Errorf("%s %v %v M=%d: %v > %v", c.kernel, c.p, c.q, M, lhs, rhs)
			}
		}
	}
	for _, c := range []struct {
		kernel string
		p      []int
	}{{"gaussian", []int{2, 1}}, {"cauchy", []int{1, 1}}, {"laplacian", []int{1, 0}}, {"matern52", []int{0, 1}}} {
		s, _ := NewSpectrum(c.kernel, 2, 1, 0)
		if _, _, err := s.Bernstein(c.p, nil); err == nil {
			t.Errorf("%s %v: the Bernstein condition should fail", c.kernel, c.p)
		}
	}
}

// TestCosVarianceSup compares the closed forms with a brute-force maximum of ½ + ½k(2δ) − k(δ)².
func TestCosVarianceSup(t *testing.T) {
	const l, sigma = 1.3, 0.9
	brute := func(k func(r float64) float64) float64 {
		var best float64
		for i := 0; i <= 200000; i++ {
			r := l * float64(i) / 200000
			best = math.Max(best, 0.5+0.5*k(2*r)-k(r)*k(r))
		}
		return best
	}
	g, _ := NewSpectrum("gaussian", 3, sigma, 0)
	v, _ := g.CosVarianceSup(l)
	want := 0.5 * math.Pow(1-math.Exp(-l*l/(sigma*sigma)), 2)
	if !near(v, want, 1e-14) || !near(v, brute(func(r float64) float64 { return math.Exp(-r * r / (2 * sigma * sigma)) }), 1e-9) {
		t.Errorf("gaussian: %v, want %v", v, want)
	}
	m, _ := NewSpectrum("matern32", 3, sigma, 0)
	v, _ = m.CosVarianceSup(l)
	k32 := func(r float64) float64 { t := math.Sqrt(3) * r / sigma; return (1 + t) * math.Exp(-t) }
	if b := brute(k32); v < b || v > b*(1+1e-9) {
		t.Errorf("matern32: %v, brute force %v", v, b)
	}
	// Laplacian: along the diagonal ‖δ‖₁ = √d‖δ‖₂; k(2δ) = k(δ)².
	lp, _ := NewSpectrum("laplacian", 4, sigma, 0)
	v, _ = lp.CosVarianceSup(l)
	kd := math.Exp(-2 * l / sigma) // ‖δ‖₁ = √4·l
	if !near(v, 0.5+0.5*kd*kd-kd*kd, 1e-14) {
		t.Errorf("laplacian: %v", v)
	}
	c, _ := NewSpectrum("cauchy", 2, 1, 0)
	if v, _ := c.CosVarianceSup(l); v != 1 {
		t.Errorf("cauchy: %v, want the trivial 1", v)
	}
}
