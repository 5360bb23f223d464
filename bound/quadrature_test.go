package bound

import (
	"math"
	"testing"
)

func TestQuadratureBeta(t *testing.T) {
	if !near(QuadratureBeta(1), 16, 1e-14) {
		t.Errorf("β_1 = %v, want 16", QuadratureBeta(1))
	}
	// The paper: "its maximum is β_86 ≈ 64.7 < 65, and lim β_d = 64".
	best := 1
	for d := 1; d < 5000; d++ {
		if QuadratureBeta(d) > QuadratureBeta(best) {
			best = d
		}
	}
	if best != 86 || math.Abs(QuadratureBeta(86)-64.74) > 0.005 || math.Abs(QuadratureBeta(1e6)-64) > 0.01 {
		t.Errorf("argmax %d, β_86 = %v, β_1e6 = %v", best, QuadratureBeta(86), QuadratureBeta(1e6))
	}
}

// TestQuadratureHand checks Proposition 3.1 against the printed RBF specialization
// D ≥ 2(d+1)/ε² [(2/(1+1/d)) log(σ_p l/ε) + log(β_d/δ)] (κ = μ = 1, M = ½, valid for l ≤ σ).
func TestQuadratureHand(t *testing.T) {
	for _, c := range []struct {
		d                    int
		l, sigma, eps, delta float64
	}{{4, 1, 2, 0.05, 0.01}, {16, 0.5, 0.5, 0.1, 0.1}, {2, 0.3, 1, 0.01, 0.001}} {
		d := float64(c.d)
		beta := (math.Pow(d, -d/(d+1)) + math.Pow(d, 1/(d+1))) * math.Pow(2, (6*d+1)/(d+1)) *
			math.Pow(d/(d+1), d/(d+1))
		sp := math.Sqrt(d) / c.sigma // σ_p = sqrt(E‖ω‖²)
		wantD := 2 * (d + 1) / (c.eps * c.eps) * (2/(1+1/d)*math.Log(sp*c.l/c.eps) + math.Log(beta/c.delta))
		g, err := Compute("quadrature", Params{Dim: c.d, Diameter: c.l, Sigma: c.sigma, Eps: c.eps, Delta: c.delta})
		if err != nil || g.M != int(math.Ceil(wantD)) {
			t.Errorf("%+v: M = %d, %v; want ⌈%v⌉", c, g.M, err, wantD)
		}
		if g.Derived["curv_m"] != 0.5 || g.Derived["rules"] != math.Ceil(float64(g.M)/(2*(d+1))) {
			t.Errorf("%+v: derived %v", c, g.Derived)
		}
		// Probability form at D.
		q := Quadrature{Dim: c.d, Diameter: c.l, SecondMoment: sp * sp, Kappa: 1, Mu: 1, CurvM: 0.5}
		D := 777
		want := beta * math.Pow(sp*c.l/c.eps, 2*d/(d+1)) * math.Exp(-float64(D)*c.eps*c.eps/(8*0.25*(d+1)))
		if p, _ := q.Prob(c.eps, D); !near(p, want, 1e-12) {
			t.Errorf("%+v: Prob = %v, want %v", c, p, want)
		}
	}
	// l > σ: M = l²/(2σ²) replaces the paper's ½.
	g, _ := Compute("quadrature", Params{Dim: 3, Diameter: 4, Sigma: 1, Eps: 0.1, Delta: 0.1})
	if g.Derived["curv_m"] != 8 || len(g.Notes) == 0 {
		t.Errorf("M = %v, notes %v", g.Derived["curv_m"], g.Notes)
	}
}

// TestQuadratureRFFHand checks the RFF counterpart against its printed formula.
func TestQuadratureRFFHand(t *testing.T) {
	const dd, l, sigma, eps, delta = 5, 2, 1.5, 0.07, 0.02
	d := float64(dd)
	beta := QuadratureBeta(dd)
	sp := math.Sqrt(d) / sigma
	wantD := 8 * (d + 1) / (eps * eps) * (2/(1+1/d)*math.Log(sp*l/eps) + math.Log(beta/delta) +
		d/(d+1)*math.Log((3*d+3)/(2*d)))
	g, err := Compute("quadrature-rff", Params{Dim: dd, Diameter: l, Sigma: sigma, Eps: eps, Delta: delta})
	if err != nil || g.M != int(math.Ceil(wantD)) {
		t.Errorf("M = %d, %v; want ⌈%v⌉", g.M, err, wantD)
	}
}

// TestKRRHand checks Proposition 3.2's printed D.
func TestKRRHand(t *testing.T) {
	const dd, l, sigma, eps, delta, sy, l0 = 3, 0.8, 1, 0.2, 0.05, 2.0, 0.5
	d := float64(dd)
	beta := QuadratureBeta(dd)
	sp, kappa, mu, M := math.Sqrt(d)/sigma, 1.0, 1.0, 0.5
	r := (l0 + 1) / (l0 * l0 * eps)
	wantD := 8 * M * M * (d + 1) * sy * sy * r * r *
		(2/(1+1/d)*math.Log(sy*sp*l*kappa*mu*(l0+1)/(l0*l0*eps)) + math.Log(beta/delta))
	g, err := Compute("krr", Params{Dim: dd, Diameter: l, Sigma: sigma, Eps: eps, Delta: delta, SigmaY: sy,
		Lambda0: l0})
	if err != nil || g.M != int(math.Ceil(wantD)) {
		t.Errorf("M = %d, %v; want ⌈%v⌉", g.M, err, wantD)
	}
	// The prediction error for D is the kernel error scaled by σ_y(λ₀+1)/λ₀².
	q := Quadrature{Dim: dd, Diameter: l, SecondMoment: sp * sp, Kappa: 1, Mu: 1, CurvM: 0.5}
	k := KRR{Kernel: q, SigmaY: sy, Lambda0: l0}
	ek, _ := q.Error(10000, delta)
	e, _ := k.Error(10000, delta)
	if !near(e, ek*sy*(l0+1)/(l0*l0), 1e-14) {
		t.Errorf("KRR error %v, kernel error %v", e, ek)
	}
}
