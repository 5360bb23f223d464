package structured

import (
	"math"
	"testing"
)

// quantileGrid covers the central region, both AS 241 breakpoints
// (|p-1/2| = 0.425 and r = sqrt(-log p) = 5) and both tails down to 1e-300.
func quantileGrid() []float64 {
	g := []float64{1e-300, 1e-10, 0.5, 1 - 1e-10, 0.075, 0.925, math.Exp(-25), 1 - math.Exp(-25), 1e-200, 1e-100}
	for e := -300.0; e <= -1; e += 0.5 {
		g = append(g, math.Pow(10, e))
	}
	for i := 1; i < 200; i++ {
		g = append(g, float64(i)/200)
	}
	for e := -1.0; e >= -15; e -= 0.5 {
		g = append(g, 1-math.Pow(10, e))
	}
	return g
}

// TestNormalQuantile checks Φ(NormalQuantile(p)) = p with Φ from math.Erfc,
// in the tail that holds p (for p > 1/2, 1-Φ(q) = Φ(-q) against 1-p, which is
// exact in floating point for p >= 1/2).
//
// Tolerance: relative 1e-13, widened where the problem is ill conditioned.
// Rounding q to float64 alone (relative error ε/2) changes Φ(q) by the
// relative amount κ·ε/2 with κ = |q|·φ(q)/Φ(-|q|) ≈ q² in the tails
// (≈ 1370 at p = 1e-300), so no float64 quantile can beat ~κε/2 there; the
// test allows 1e-13 + 8κε.
func TestNormalQuantile(t *testing.T) {
	const eps = 0x1p-52
	for _, p := range quantileGrid() {
		q := NormalQuantile(p)
		if math.IsInf(q, 0) || math.IsNaN(q) {
			t.Fatalf("NormalQuantile(%g) = %g", p, q)
		}
		var phi, target float64
		if p <= 0.5 {
			phi, target = 0.5*math.Erfc(-q/math.Sqrt2), p
		} else {
			phi, target = 0.5*math.Erfc(q/math.Sqrt2), 1-p
		}
		aq := math.Abs(q)
		kappa := aq * math.Exp(-q*q/2) / math.Sqrt(2*math.Pi) / (0.5 * math.Erfc(aq/math.Sqrt2))
		tol := 1e-13 + 8*kappa*eps
		if rel := math.Abs(phi-target) / target; rel > tol {
			t.Errorf("p=%g: q=%.17g, Φ(q) relative error %g > %g", p, q, rel, tol)
		}
		if p < 0.5 && !(q < 0) || p > 0.5 && !(q > 0) {
			t.Errorf("p=%g: q=%g has the wrong sign", p, q)
		}
	}
	if q := NormalQuantile(0.5); q != 0 {
		t.Errorf("NormalQuantile(0.5) = %g, want 0", q)
	}
	if q := NormalQuantile(0); !math.IsInf(q, -1) {
		t.Errorf("NormalQuantile(0) = %g, want -Inf", q)
	}
	if q := NormalQuantile(1); !math.IsInf(q, 1) {
		t.Errorf("NormalQuantile(1) = %g, want +Inf", q)
	}
	for _, p := range []float64{-0.1, 1.1, math.NaN()} {
		if q := NormalQuantile(p); !math.IsNaN(q) {
			t.Errorf("NormalQuantile(%g) = %g, want NaN", p, q)
		}
	}
}

// millsLogPhi returns log Φ(-t) for large t from Laplace's continued fraction
// Φ(-t)/φ(t) = 1/(t+1/(t+2/(t+3/(t+...)))), evaluated bottom-up (an
// independent route from the implementation's asymptotic series).
func millsLogPhi(t float64) float64 {
	f := t
	for k := 200; k >= 1; k-- {
		f = t + float64(k)/f
	}
	return -t*t/2 - 0.5*math.Log(2*math.Pi) - math.Log(f)
}

// TestNormalQuantileFarTail covers p below 1e-300 down to the smallest
// subnormal (HaltonSet's replacement for an exact 0). Φ(q) underflows there,
// so the check is on log Φ(q) = log p, whose absolute error is the relative
// error of Φ(q); the tolerance is the one of TestNormalQuantile (κ ≈ q²).
func TestNormalQuantileFarTail(t *testing.T) {
	const eps = 0x1p-52
	for _, p := range []float64{1e-300, 1e-301, 1e-305, 2.2250738585072014e-308, 1e-310, 1e-320, math.SmallestNonzeroFloat64} {
		q := NormalQuantile(p)
		if math.IsInf(q, 0) || math.IsNaN(q) || q >= -37 {
			t.Fatalf("NormalQuantile(%g) = %g", p, q)
		}
		tol := 1e-13 + 8*q*q*eps
		logp := math.Log(p*0x1p100) - 100*math.Ln2 // p may be subnormal
		if e := math.Abs(millsLogPhi(-q) - logp); e > tol {
			t.Errorf("p=%g: q=%.17g, log Φ(q) off by %g > %g", p, q, e, tol)
		}
	}
	// Monotone across the switch at 1e-300.
	prev := math.Inf(-1)
	for _, p := range []float64{1e-320, 1e-310, 0.99999e-300, 1e-300, 1.00001e-300, 1e-299} {
		q := NormalQuantile(p)
		if !(q > prev) {
			t.Errorf("NormalQuantile not increasing at p=%g: %g after %g", p, q, prev)
		}
		prev = q
	}
}

// TestNormalQuantileSymmetry: Φ⁻¹(1-p) = -Φ⁻¹(p) where 1-p is exact.
func TestNormalQuantileSymmetry(t *testing.T) {
	for i := 1; i < 64; i++ {
		p := float64(i) / 128 // 1-p is exact
		a, b := NormalQuantile(p), NormalQuantile(1-p)
		if math.Abs(a+b) > 4e-16*math.Abs(a) {
			t.Errorf("p=%g: Φ⁻¹(p) = %.17g, Φ⁻¹(1-p) = %.17g", p, a, b)
		}
	}
}
