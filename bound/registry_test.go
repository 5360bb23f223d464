package bound

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestComputeEveryTheorem runs every registered theorem both ways and checks it against the typed bound.
func TestComputeEveryTheorem(t *testing.T) {
	base := Params{Dim: 3, Diameter: 2, Sigma: 1.2, Delta: 0.01, R: 2, P: []int{1, 0, 0}, Lambda0: 0.2}
	s2 := 3 / (1.2 * 1.2)
	direct := map[string]Bound{
		"ss-linf":            SSLinf{3, 2, s2},
		"ss-lr":              SSLr{3, 2, s2, 2},
		"ss-deriv-bounded":   nil, // Gaussian derivatives are unbounded: tested for an error below
		"rr":                 RahimiRecht{3, 2, s2},
		"quadrature":         Quadrature{3, 2, s2, 1, 1, 2 * 2 / (2 * 1.2 * 1.2)},
		"quadrature-rff":     QuadratureRFF{3, 2, s2},
		"krr":                KRR{Quadrature{3, 2, s2, 1, 1, 2 * 2 / (2 * 1.2 * 1.2)}, 1, 0.2},
		"orff":               ORFF{Kind: "curl-free", Dim: 3, Sigma: 1.2, Diameter: 2},
		"sutherland":         SutherlandSchneider{3, 2, s2, 0.5 * math.Pow(1-math.Exp(-4/1.44), 2)},
		"ss-deriv":           SSDerivUnbounded{3, 2, 4 / 1.44, 2 * math.Sqrt2 / 1.2, 1.5 / 1.44, 1.5 / 1.44},
		"ss-deriv-unbounded": SSDerivUnbounded{3, 2, 4 / 1.44, 2 * math.Sqrt2 / 1.2, 1.5 / 1.44, 1.5 / 1.44},
	}
	if len(direct) != len(Names()) {
		t.Fatalf("test covers %d theorems, registry has %d", len(direct), len(Names()))
	}
	for _, name := range Names() {
		p := base
		p.Eps = 0.3
		g, err := Compute(name, p)
		b := direct[name]
		if b == nil {
			if err == nil || !strings.Contains(err.Error(), "bounded spectral support") {
				t.Errorf("%s: err = %v, want the bounded-support error", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want, _ := b.Points(0.3, 0.01)
		if g.M != want || g.Solved != "m" || g.Eps != 0.3 || g.Theorem != name || g.Source == "" ||
			g.Formula == "" || g.Method == "" || g.Inputs["eps"] != 0.3 || g.Inputs["delta"] != 0.01 {
			t.Errorf("%s: %+v, want M = %d", name, g, want)
		}
		p.Eps, p.M = 0, g.M
		g2, err := Compute(name, p)
		wantE, _ := b.Error(g.M, 0.01)
		if err != nil || !near(g2.Eps, wantE, 1e-12) || g2.Solved != "eps" || g2.Eps > 0.3 {
			t.Errorf("%s: Error %v, %v; want %v", name, g2.Eps, err, wantE)
		}
		if s := g2.String(); !strings.Contains(s, name) || !strings.Contains(s, "0.99") {
			t.Errorf("String() = %q", s)
		}
	}
}

func TestComputeDefaultsAndOverrides(t *testing.T) {
	// σ defaults to sqrt(d/2) and is recorded.
	g, err := Compute("ss-linf", Params{Dim: 8, Diameter: 1, Delta: 0.1, M: 100})
	if err != nil || g.Inputs["sigma"] != 2 || g.Derived["second_moment"] != 2 || len(g.Notes) != 1 ||
		g.Kernel != "gaussian" {
		t.Errorf("defaults: %+v, %v", g, err)
	}
	// An explicit second moment overrides the kernel (even an infinite-moment one).
	g, err = Compute("ss-linf", Params{Dim: 2, Diameter: 1, Delta: 0.1, M: 100, Kernel: "laplacian", SecondMoment: 5})
	want, _ := SSLinf{2, 1, 5}.Error(100, 0.1)
	if err != nil || g.Eps != want {
		t.Errorf("override: %v, %v; want %v", g.Eps, err, want)
	}
	// Matérn 3/2 through the registry: σ² = 3d/σ².
	g, _ = Compute("rr", Params{Dim: 2, Diameter: 1, Sigma: 1, Kernel: "matern32", Delta: 0.1, Eps: 0.1})
	if g.Derived["second_moment"] != 6 {
		t.Errorf("matern32 second moment %v", g.Derived["second_moment"])
	}
	// Decomposable ORFF defaults.
	g, err = Compute("orff", Params{Dim: 2, Diameter: 1, Sigma: 1, Delta: 0.1, Eps: 0.5, OVK: "decomposable"})
	if err != nil || g.Inputs["outputs"] != 1 || g.Inputs["norm_a"] != 1 {
		t.Errorf("decomposable defaults: %+v, %v", g, err)
	}
	// krr with RFF features.
	g, err = Compute("krr", Params{Dim: 2, Diameter: 1, Sigma: 1, Delta: 0.1, Eps: 0.5, Lambda0: 1, Features: "rff"})
	wantM, _ := KRR{QuadratureRFF{2, 1, 2}, 1, 1}.Points(0.5, 0.1)
	if err != nil || g.M != wantM {
		t.Errorf("krr rff: %v, %v; want %v", g.M, err, wantM)
	}
	// Sinc derivatives through Theorem 4, and explicit T/T2/C2.
	g, err = Compute("ss-deriv-bounded", Params{Dim: 1, Diameter: 1, Delta: 0.1, M: 10, T: 2, T2: 4, C2: 3})
	wantE, _ := SSDerivBounded{1, 1, 2, 4, 3}.Error(10, 0.1)
	if err != nil || g.Eps != wantE {
		t.Errorf("explicit Theorem 4 constants: %v, %v; want %v", g.Eps, err, wantE)
	}
}

// TestComputeErrors: errors, not panics, for every invalid input.
func TestComputeErrors(t *testing.T) {
	ok := Params{Dim: 2, Diameter: 1, Sigma: 1, Delta: 0.1, Eps: 0.1, R: 2, Lambda0: 1}
	for _, c := range []struct {
		name string
		mod  func(p *Params)
		is   error
	}{
		{"nope", func(p *Params) {}, nil},
		{"ss-linf", func(p *Params) { p.Dim = 0 }, nil},
		{"ss-linf", func(p *Params) { p.Diameter = 0 }, nil},
		{"ss-linf", func(p *Params) { p.Diameter = math.NaN() }, nil},
		{"ss-linf", func(p *Params) { p.Delta = 0 }, nil},
		{"ss-linf", func(p *Params) { p.Delta = 1.5 }, nil},
		{"ss-linf", func(p *Params) { p.Eps = -1 }, nil},
		{"ss-linf", func(p *Params) { p.Eps = 0 }, nil},
		{"ss-linf", func(p *Params) { p.M = 10 }, nil},
		{"ss-linf", func(p *Params) { p.Eps, p.M = 0, -3 }, nil},
		{"ss-linf", func(p *Params) { p.Kernel = "laplacian" }, ErrInfiniteMoment},
		{"ss-linf", func(p *Params) { p.Kernel = "matern12" }, ErrInfiniteMoment},
		{"ss-linf", func(p *Params) { p.Kernel = "polynomial" }, nil},
		{"ss-linf", func(p *Params) { p.Sigma = -1 }, nil},
		{"ss-lr", func(p *Params) { p.R = 0 }, nil},
		{"ss-lr", func(p *Params) { p.R = 0.5 }, nil},
		{"ss-deriv", func(p *Params) { p.P = []int{3, 0} }, nil},  // Gaussian |a| = 3: no Bernstein condition
		{"ss-deriv", func(p *Params) { p.P = []int{1} }, nil},     // wrong length
		{"ss-deriv", func(p *Params) { p.Q = []int{-1, 1} }, nil}, // negative
		{"ss-deriv", func(p *Params) { p.P, p.Kernel = []int{1, 0}, "laplacian" }, nil},
		{"ss-deriv-bounded", func(p *Params) { p.P = []int{1, 0} }, nil}, // Gaussian support is unbounded
		{"ss-deriv-bounded", func(p *Params) { p.T = -1 }, nil},
		{"quadrature", func(p *Params) { p.Kernel = "matern32" }, nil},
		{"krr", func(p *Params) { p.Lambda0 = 0 }, nil},
		{"krr", func(p *Params) { p.Lambda0 = -1 }, nil},
		{"krr", func(p *Params) { p.SigmaY = -1 }, nil},
		{"krr", func(p *Params) { p.Features = "qmc" }, nil},
		{"orff", func(p *Params) { p.OVK = "div-free"; p.Dim = 1 }, nil},
		{"orff", func(p *Params) { p.OVK = "helmholtz" }, nil},
		{"orff", func(p *Params) { p.Kernel = "laplacian" }, nil},
		{"sutherland", func(p *Params) { p.VarSup = 2 }, nil},
	} {
		p := ok
		c.mod(&p)
		_, err := Compute(c.name, p)
		if err == nil {
			t.Errorf("%s with %+v: no error", c.name, p)
			continue
		}
		if c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%s: %v does not wrap %v", c.name, err, c.is)
		}
		if strings.Count(err.Error(), ": ") > 1 && slices.ContainsFunc(append(Names(), "ss-deriv"), func(n string) bool {
			return strings.Contains(err.Error(), ": "+n+": ")
		}) || strings.Contains(err.Error(), ": bound: ") {
			t.Errorf("%s: %q names the theorem or the package twice", c.name, err)
		}
	}
}
