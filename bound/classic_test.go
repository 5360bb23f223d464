package bound

import (
	"math"
	"testing"
)

// TestRahimiRechtHand compares Claim 1 with the printed formula.
func TestRahimiRechtHand(t *testing.T) {
	for _, c := range []struct {
		d             int
		l, sp2, eps   float64
		m             int
		delta         float64
		wantPointsEps float64
	}{
		{3, 2, 3, 0.2, 5000, 0.01, 0.1},
		{1, 10, 0.5, 0.05, 100000, 0.1, 0.3},
		{20, 1, 40, 0.5, 1000, 0.001, 0.2},
	} {
		d := float64(c.d)
		want := 256 * math.Pow(math.Sqrt(c.sp2)*c.l/c.eps, 2) * math.Exp(-float64(c.m)*c.eps*c.eps/(4*(d+2)))
		b := RahimiRecht{Dim: c.d, Diameter: c.l, SecondMoment: c.sp2}
		p, err := b.Prob(c.eps, c.m)
		if err != nil || !near(p, want, 1e-12) {
			t.Errorf("%+v: Prob = %v, %v; want %v", c, p, err, want)
		}
		e := c.wantPointsEps
		wantM := int(math.Ceil(4 * (d + 2) / (e * e) * math.Log(256*c.sp2*c.l*c.l/(e*e*c.delta))))
		m, err := b.Points(e, c.delta)
		if err != nil || m != wantM {
			t.Errorf("%+v: Points = %v, %v; want %v", c, m, err, wantM)
		}
		// Error inverts Prob: Prob(Error(m), m) = δ.
		em, _ := b.Error(c.m, c.delta)
		if p, _ := b.Prob(em, c.m); !near(p, c.delta, 1e-9) {
			t.Errorf("%+v: Prob(Error(m)) = %v, want δ", c, p)
		}
	}
}

// TestSutherlandHand compares Proposition 1 of Sutherland & Schneider with its printed formula (D = 2m columns).
func TestSutherlandHand(t *testing.T) {
	// β_d: β_1 = 12, maximum β_64 = 66, limit 64.
	if !near(SutherlandBeta(1), 12, 1e-14) || !near(SutherlandBeta(64), 66, 1e-12) {
		t.Errorf("β_1 = %v, β_64 = %v", SutherlandBeta(1), SutherlandBeta(64))
	}
	for d := 1; d < 2000; d++ {
		if SutherlandBeta(d) > 66+1e-12 {
			t.Errorf("β_%d = %v > 66", d, SutherlandBeta(d))
		}
	}
	const (
		dd, l, sp2, vs, eps, delta = 4, 3, 2.5, 0.2, 0.1, 0.05
		m                          = 20000
	)
	d := float64(dd)
	beta := (math.Pow(d/2, -d/(d+2)) + math.Pow(d/2, 2/(d+2))) * math.Pow(2, (6*d+2)/(d+2))
	alpha := math.Min(1, vs+eps/3)
	D := 2.0 * m
	want := beta * math.Pow(math.Sqrt(sp2)*l/eps, 2*d/(d+2)) * math.Exp(-D*eps*eps/(8*(d+2)*alpha))
	b := SutherlandSchneider{Dim: dd, Diameter: l, SecondMoment: sp2, VarSup: vs}
	p, err := b.Prob(eps, m)
	if err != nil || !near(p, want, 1e-12) {
		t.Fatalf("Prob = %v, %v; want %v", p, err, want)
	}
	wantD := 8 * (d + 2) * alpha / (eps * eps) * (2/(1+2/d)*math.Log(math.Sqrt(sp2)*l/eps) + math.Log(beta/delta))
	mm, _ := b.Points(eps, delta)
	if mm != int(math.Ceil(wantD/2)) {
		t.Errorf("Points = %d, want ⌈D/2⌉ = %v", mm, math.Ceil(wantD/2))
	}
	// α_ε saturates at 1.
	if a := (SutherlandSchneider{VarSup: 0.9}).Alpha(0.6); a != 1 {
		t.Errorf("α = %v, want 1", a)
	}
}
