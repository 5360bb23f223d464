package bound

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/rffkit/rff/internal/misusetest"
)

// TestMisuse: every bound returns an error, never panics, for inputs a caller can get wrong — dimensions beyond
// MaxDim (where d+1 and d+2 overflow int at the top of its range), NaN and infinite constants, multi-indices of the
// wrong length, negative or absurd orders, a missing kernel bound.
func TestMisuse(t *testing.T) {
	huge := []int{MaxDim + 1, math.MaxInt}
	var cases []misusetest.Case
	add := func(name string, call func() error) {
		cases = append(cases, misusetest.Case{Name: name, Call: call}) // an empty Want: any error will do
	}
	for _, d := range huge {
		for _, b := range []struct {
			name string
			b    Bound
		}{
			{"SSLinf", SSLinf{Dim: d, Diameter: 1, SecondMoment: 1}},
			{"SSLr", SSLr{Dim: d, Diameter: 1, SecondMoment: 1, R: 2}},
			{"SSDerivBounded", SSDerivBounded{Dim: d, Diameter: 1, T: 1, T2: 1, C2: 1}},
			{"SSDerivUnbounded", SSDerivUnbounded{Dim: d, Diameter: 1, BernsteinVar: 1, BernsteinL: 4}},
			{"RahimiRecht", RahimiRecht{Dim: d, Diameter: 1, SecondMoment: 1}},
			{"SutherlandSchneider", SutherlandSchneider{Dim: d, Diameter: 1, SecondMoment: 1, VarSup: 0.5}},
			{"Quadrature", Quadrature{Dim: d, Diameter: 1, SecondMoment: 1, Kappa: 1, Mu: 1, CurvM: 0.5}},
			{"QuadratureRFF", QuadratureRFF{Dim: d, Diameter: 1, SecondMoment: 1}},
			{"ORFF", ORFF{Kind: "curl-free", Dim: d, Sigma: 1, Diameter: 1}},
			{"KRR over Quadrature", KRR{Kernel: Quadrature{Dim: d, Diameter: 1, SecondMoment: 1, Kappa: 1, Mu: 1, CurvM: 0.5},
				SigmaY: 1, Lambda0: 0.1}},
		} {
			b := b.b
			add(b2s(b, d, "Prob"), func() error { _, err := b.Prob(0.1, 100); return err })
			add(b2s(b, d, "Error"), func() error { _, err := b.Error(100, 0.1); return err })
			add(b2s(b, d, "Points"), func() error { _, err := b.Points(0.1, 0.1); return err })
		}
		add("NewSpectrum huge d", func() error { _, err := NewSpectrum("gaussian", d, 1, 0); return err })
		add("SecondMoment huge d", func() error { _, err := SecondMoment("cauchy", d, 1); return err })
		add("OVKConstants huge d", func() error { _, err := OVKConstants("div-free", d, 1, 1); return err })
		for _, name := range Names() {
			add("Compute "+name+" huge d", func() error {
				_, err := Compute(name, Params{Dim: d, Diameter: 1, Delta: 0.1, Eps: 0.1, Lambda0: 0.1, R: 2})
				return err
			})
		}
	}
	s := Spectrum{Kernel: "gaussian", Dim: 2, Sigma: 1}
	add("Moments length", func() error { _, err := s.Moments([]int{1}); return err })
	add("Moments negative", func() error { _, err := s.Moments([]int{-1, 0}); return err })
	add("Moments huge order", func() error { _, err := s.Moments([]int{math.MaxInt, math.MaxInt}); return err })
	add("Bernstein huge order", func() error { _, _, err := s.Bernstein([]int{math.MaxInt, 1}, nil); return err })
	add("Bernstein q length", func() error { _, _, err := s.Bernstein(nil, []int{1}); return err })
	add("Spectrum NaN σ", func() error {
		_, err := (Spectrum{Kernel: "gaussian", Dim: 2, Sigma: math.NaN()}).SecondMoment()
		return err
	})
	add("CosVarianceSup Inf", func() error { _, err := s.CosVarianceSup(math.Inf(1)); return err })
	add("KRR nil kernel", func() error { _, err := KRR{SigmaY: 1, Lambda0: 1}.Error(10, 0.1); return err })
	add("Compute NaN diameter", func() error {
		_, err := Compute("ss-linf", Params{Dim: 2, Diameter: math.NaN(), Delta: 0.1, Eps: 0.1})
		return err
	})
	add("Compute NaN ε", func() error {
		_, err := Compute("rr", Params{Dim: 2, Diameter: 1, Delta: 0.1, Eps: math.NaN()})
		return err
	})
	add("Compute derivative order", func() error {
		_, err := Compute("ss-deriv", Params{Dim: 2, Diameter: 1, Delta: 0.1, Eps: 0.1, Kernel: "sinc",
			P: []int{1 << 40, 0}})
		return err
	})
	misusetest.Check(t, cases)
}

func b2s(b Bound, d int, method string) string { return fmt.Sprintf("%T.%s d=%d", b, method, d) }

// TestLargeDimensionFast: every theorem evaluates in closed form in d, so dimensions up to MaxDim (a billion and
// beyond: the case of `rff bound --d 1000000000`, which took minutes when the zero multi-index was materialized d
// entries long) cost no more than small ones, and give finite, positive answers or an error — never a hang.
func TestLargeDimensionFast(t *testing.T) {
	start := time.Now()
	for _, d := range []int{1_000_000_000, MaxDim} {
		for _, kern := range []string{"gaussian", "cauchy", "sinc", "matern52", "laplacian"} {
			for _, name := range Names() {
				for _, p := range []Params{{Eps: 0.1}, {M: 1000}} {
					p.Dim, p.Diameter, p.Delta, p.Kernel, p.Lambda0, p.R = d, 1, 0.01, kern, 0.1, 2
					g, err := Compute(name, p)
					if err != nil {
						continue // a theorem that does not apply to this kernel, or more than 2^53 points
					}
					if math.IsNaN(g.Eps) || g.Eps < 0 || g.M < 1 {
						t.Errorf("d=%d %s %s %+v: ε = %v, m = %d", d, kern, name, p, g.Eps, g.M)
					}
				}
			}
		}
	}
	// Hundreds of evaluations that each cost microseconds; 10 s leaves room for a loaded machine and the race
	// detector, and is far below the minutes a single one took when the cost grew with d.
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("bounds at d up to 2^37 took %v", el)
	}
}
