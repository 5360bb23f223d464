package bound

import (
	"math"
	"testing"
)

func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Max(math.Abs(want), 1e-300)
}

// TestSSLinfHand compares Theorem 1 with the printed formula evaluated by hand.
func TestSSLinfHand(t *testing.T) {
	cases := []struct {
		d          int
		S, sigma2  float64
		m          int
		delta, eps float64
	}{
		{3, 2, 3 / 2.25, 1000, 0.01, 0.5},
		{1, 0.5, 1, 50, 0.1, 2},
		{10, 100, 10.0 / 4, 1e6, 1e-3, 0.05},
	}
	for _, c := range cases {
		d, S := float64(c.d), c.S
		h := 32*math.Sqrt(2*d*math.Log(2*S+1)) + 32*math.Sqrt(2*d*math.Log(math.Sqrt(c.sigma2)+1)) +
			16*math.Sqrt(2*d/math.Log(2*S+1))
		tau := math.Log(1 / c.delta)
		wantEps := (h + math.Sqrt(2*tau)) / math.Sqrt(float64(c.m))
		wantM := int(math.Ceil(math.Pow((h+math.Sqrt(2*tau))/c.eps, 2)))

		b := SSLinf{Dim: c.d, Diameter: c.S, SecondMoment: c.sigma2}
		gh, _ := b.H()
		if !near(gh, h, 1e-13) {
			t.Errorf("%+v: h = %v, want %v", c, gh, h)
		}
		e, err := b.Error(c.m, c.delta)
		if err != nil || !near(e, wantEps, 1e-13) {
			t.Errorf("%+v: Error = %v, %v; want %v", c, e, err, wantEps)
		}
		m, err := b.Points(c.eps, c.delta)
		if err != nil || m != wantM {
			t.Errorf("%+v: Points = %v, %v; want %v", c, m, err, wantM)
		}
		// Prob at the guaranteed radius is δ.
		p, err := b.Prob(wantEps, c.m)
		if err != nil || !near(p, c.delta, 1e-9) {
			t.Errorf("%+v: Prob(radius) = %v, %v; want δ = %v", c, p, err, c.delta)
		}
	}
	// A literal, computed independently (Python): d=3, |S|=2, σ²=3/2.25, m=1000, δ=0.01.
	e, _ := SSLinf{3, 2, 3 / 2.25}.Error(1000, 0.01)
	if !near(e, 6.389209360301494, 1e-13) {
		t.Errorf("literal check: %v", e)
	}
}

// TestSSLrHand compares Theorem 2 with the printed formula.
func TestSSLrHand(t *testing.T) {
	for _, c := range []struct {
		d    int
		S, r float64
	}{{2, 1.5, 2}, {3, 0.8, 1}, {5, 4, 4}} {
		d, S, r := float64(c.d), c.S, c.r
		sigma2 := d / 2
		h := 32*math.Sqrt(2*d*math.Log(2*S+1)) + 32*math.Sqrt(2*d*math.Log(math.Sqrt(sigma2)+1)) +
			16*math.Sqrt(2*d/math.Log(2*S+1))
		vol := math.Pow(math.Pi, d/2) * math.Pow(S, d) / (math.Pow(2, d) * math.Gamma(d/2+1))
		tau := math.Log(1 / 0.05)
		want := math.Pow(vol, 2/r) * (h + math.Sqrt(2*tau)) / math.Sqrt(500)
		b := SSLr{Dim: c.d, Diameter: c.S, SecondMoment: sigma2, R: c.r}
		e, err := b.Error(500, 0.05)
		if err != nil || !near(e, want, 1e-12) {
			t.Errorf("%+v: Error = %v, %v; want %v", c, e, err, want)
		}
		m, _ := b.Points(0.3, 0.05)
		wantM := int(math.Ceil(math.Pow(math.Pow(vol, 2/r)*(h+math.Sqrt(2*tau))/0.3, 2)))
		if m != wantM {
			t.Errorf("%+v: Points = %d, want %d", c, m, wantM)
		}
	}
	// r = ∞ is Theorem 1.
	a, _ := SSLr{4, 3, 2, math.Inf(1)}.Error(100, 0.1)
	b, _ := SSLinf{4, 3, 2}.Error(100, 0.1)
	if a != b {
		t.Errorf("r = ∞: %v, Theorem 1: %v", a, b)
	}
}

// TestSSDerivBoundedHand checks Theorem 4 for the sinc kernel (uniform spectrum on [−c,c]^d) by hand, and its
// reduction to Theorem 1 at p = q = 0.
func TestSSDerivBoundedHand(t *testing.T) {
	// d = 2, σ = 0.5 (c = 2), p = (1,0), q = (0,1): a = (1,1).
	c := 2.0
	T := c * c                                            // sup |ω1 ω2|
	T2 := math.Pow(c, 4)                                  // sup ω1² ω2²
	C2 := 2 * (math.Pow(c, 4) / 5) * (math.Pow(c, 2) / 3) // E ω1²ω2²(ω1²+ω2²) = 2·E ω⁴·E ω²
	S := 3.0
	U := math.Log(2*S/math.Sqrt(T2) + 1)
	H := 32 * math.Sqrt(2*2*T2) * (math.Sqrt(U) + 1/(2*math.Sqrt(U)) + math.Sqrt(math.Log(math.Sqrt(C2)+1)))
	tau := math.Log(1 / 0.01)
	want := (H + T*math.Sqrt(2*tau)) / math.Sqrt(2000)

	g, err := Compute("ss-deriv", Params{Dim: 2, Diameter: S, Kernel: "sinc", Sigma: 0.5, P: []int{1, 0},
		Q: []int{0, 1}, M: 2000, Delta: 0.01})
	if err != nil || !near(g.Eps, want, 1e-12) {
		t.Fatalf("Compute: %v, %v; want %v", g.Eps, err, want)
	}
	if g.Derived["t_pq"] != T || g.Derived["t_2p2q"] != T2 || !near(g.Derived["c_2p2q"], C2, 1e-14) || g.Method != closedForm {
		t.Errorf("derived constants %v", g.Derived)
	}
	b := SSDerivBounded{Dim: 2, Diameter: S, T: T, T2: T2, C2: C2}
	m, _ := b.Points(0.5, 0.01)
	if wantM := int(math.Ceil(math.Pow((H+T*math.Sqrt(2*tau))/0.5, 2))); m != wantM {
		t.Errorf("Points = %d, want %d", m, wantM)
	}
	// p = q = 0: T = T2 = 1, C2 = σ² gives Theorem 1 exactly.
	for _, s2 := range []float64{0.3, 2, 7} {
		e4, _ := SSDerivBounded{Dim: 3, Diameter: 1.7, T: 1, T2: 1, C2: s2}.Error(321, 0.02)
		e1, _ := SSLinf{Dim: 3, Diameter: 1.7, SecondMoment: s2}.Error(321, 0.02)
		if !near(e4, e1, 1e-14) {
			t.Errorf("Theorem 4 at p=q=0: %v, Theorem 1: %v", e4, e1)
		}
	}
}

// TestSSDerivUnboundedHand checks Theorem 5's right-hand side by hand for the Gaussian kernel, ∂/∂x₁ (d = 2).
func TestSSDerivUnboundedHand(t *testing.T) {
	const (
		d, S, m, eps = 2, 1.5, 5000, 0.4
	)
	s2, L := 4.0, 2*math.Sqrt2 // Bernstein constants for |p+q| = 1, σ_k = 1
	E := 4 / math.Pi           // E|ω₁|‖ω‖ for ω ~ N(0, I₂)
	D := E                     // D_{p,q,S} ≤ E_{p,q}
	F2 := math.Pow(2, -2.0/3) + math.Pow(2, 1.0/3)
	want := math.Pow(2, d-1)*math.Exp(-m*eps*eps/(8*s2*(1+eps*L/(2*s2)))) +
		F2*math.Pow(2, (4.0*d-1)/(d+1))*math.Pow(S*(D+E)/eps, 2.0/3)*
			math.Exp(-m*eps*eps/(8*(d+1)*s2*(1+eps*L/(2*s2))))
	b := SSDerivUnbounded{Dim: d, Diameter: S, BernsteinVar: s2, BernsteinL: L, GradSup: D, NormMoment: E}
	p, err := b.Prob(eps, m)
	if err != nil || !near(p, want, 1e-12) {
		t.Fatalf("Prob = %v, %v; want %v", p, err, want)
	}
	// The registry derives the same constants from the kernel.
	g, err := Compute("ss-deriv", Params{Dim: 2, Diameter: S, Sigma: 1, P: []int{1, 0}, Eps: eps, Delta: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if !near(g.Derived["e_pq"], E, 1e-14) || g.Derived["bernstein_var"] != s2 || g.Derived["bernstein_l"] != L {
		t.Errorf("derived %v", g.Derived)
	}
	want2, _ := b.Points(eps, 0.05)
	if g.M != want2 || g.Method != search {
		t.Errorf("Compute M = %d (%s), want %d", g.M, g.Method, want2)
	}
	if !near(Fd(2), F2, 1e-15) || Fd(1) != 2 {
		t.Errorf("F_2 = %v (want %v), F_1 = %v (want 2)", Fd(2), F2, Fd(1))
	}
	for k := 1; k < 50; k++ {
		if Fd(k+1) >= Fd(k) {
			t.Errorf("F_d not decreasing at d = %d", k)
		}
	}
}
