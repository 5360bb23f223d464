package bound

import (
	"fmt"
	"math"
)

// SSLinf is Theorem 1 of Sriperumbudur & Szabó (NeurIPS 2015), the uniform error on S×S (docs/conventions.md §7):
//
//	Λ^m( ‖k̂ − k‖_{L∞(S×S)} ≥ (h(d,|S|,σ) + √(2τ))/√m ) ≤ e^{−τ},
//	h(d,|S|,σ) = 32√(2d·log(2|S|+1)) + 32√(2d·log(σ+1)) + 16√(2d/log(2|S|+1)),
//
// where σ² = E‖ω‖² (see [SecondMoment]), |S| is the diameter of S, m the number of frequencies (2m cos/sin
// columns) and τ = log(1/δ). Error and Points are closed forms: ε = (h + √(2τ))/√m and m = ⌈((h + √(2τ))/ε)²⌉.
//
// Note: h is not monotone in |S| for small sets: its last term blows up as |S| → 0, and h decreases in |S| while
// log(2|S|+1) < ½, i.e. |S| < (√e − 1)/2 ≈ 0.324. The formula is implemented as printed; for such small sets the
// bound at |S| = 0.324 is smaller and also valid (a set of smaller diameter fits in one of larger diameter).
type SSLinf struct {
	Dim          int     // d ≥ 1
	Diameter     float64 // |S| > 0
	SecondMoment float64 // σ² = E‖ω‖² > 0 (finite)
}

func (t SSLinf) check() error {
	if err := checkDim(t.Dim); err != nil {
		return fmt.Errorf("ss-linf: %w", err)
	}
	if err := checkPositive("diameter |S|", t.Diameter); err != nil {
		return fmt.Errorf("ss-linf: %w", err)
	}
	if err := checkPositive("σ² = E‖ω‖²", t.SecondMoment); err != nil {
		return fmt.Errorf("ss-linf: %w", err)
	}
	return nil
}

// H returns h(d, |S|, σ) of Theorem 1.
func (t SSLinf) H() (float64, error) {
	if err := t.check(); err != nil {
		return 0, err
	}
	return ssH(float64(t.Dim), t.Diameter, math.Sqrt(t.SecondMoment)), nil
}

func ssH(d, diam, sigma float64) float64 {
	u := math.Log1p(2 * diam)
	return 32*math.Sqrt(2*d*u) + 32*math.Sqrt(2*d*math.Log1p(sigma)) + 16*math.Sqrt(2*d/u)
}

// radiusForm is shared by Theorems 1, 2 and 4, which all read Λ^m(err ≥ F·(H + T√(2τ))/√m) ≤ e^{−τ}.
type radiusForm struct{ F, H, T float64 }

func (r radiusForm) err(m float64, delta float64) float64 {
	return r.F * (r.H + r.T*math.Sqrt(-2*math.Log(delta))) / math.Sqrt(m)
}

// logProb: solve ε = F(H + T√(2τ))/√m for τ; P ≤ e^{−τ} (≤ 1 trivially when ε√m/F ≤ H).
func (r radiusForm) logProb(eps, m float64) float64 {
	x := (eps*math.Sqrt(m)/r.F - r.H) / r.T
	if x <= 0 {
		return 0
	}
	return -x * x / 2
}

func (r radiusForm) points(eps, delta float64) (int, error) {
	x := r.F * (r.H + r.T*math.Sqrt(-2*math.Log(delta))) / eps
	return pointsFor(func(m float64) bool { return r.err(m, delta) <= eps }, ceilGuess(x*x))
}

func (t SSLinf) form() (radiusForm, error) {
	h, err := t.H()
	if err != nil {
		return radiusForm{}, err
	}
	return radiusForm{F: 1, H: h, T: 1}, nil
}

// Prob returns e^{−τ} for the τ at which the Theorem 1 radius equals ε (1 if ε√m ≤ h).
func (t SSLinf) Prob(eps float64, m int) (float64, error) {
	return radiusProb(t.form, eps, m)
}

// Error returns (h + √(2τ))/√m, τ = log(1/δ).
func (t SSLinf) Error(m int, delta float64) (float64, error) {
	return radiusError(t.form, m, delta)
}

// Points returns the smallest m with (h + √(2τ))/√m ≤ ε, i.e. ⌈((h + √(2τ))/ε)²⌉.
func (t SSLinf) Points(eps, delta float64) (int, error) {
	return radiusPoints(t.form, eps, delta)
}

func radiusProb(form func() (radiusForm, error), eps float64, m int) (float64, error) {
	r, err := form()
	if err != nil {
		return 0, err
	}
	if err := checkEps(eps); err != nil {
		return 0, err
	}
	if err := checkM(m); err != nil {
		return 0, err
	}
	return math.Exp(r.logProb(eps, float64(m))), nil
}

func radiusError(form func() (radiusForm, error), m int, delta float64) (float64, error) {
	r, err := form()
	if err != nil {
		return 0, err
	}
	if err := checkM(m); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	return r.err(float64(m), delta), nil
}

func radiusPoints(form func() (radiusForm, error), eps, delta float64) (int, error) {
	r, err := form()
	if err != nil {
		return 0, err
	}
	if err := checkEps(eps); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	return r.points(eps, delta)
}

// SSLr is Theorem 2 of Sriperumbudur & Szabó (NeurIPS 2015), the L^r error on S×S, 1 ≤ r < ∞:
//
//	Λ^m( ‖k̂ − k‖_{L^r(S×S)} ≥ V^{2/r}·(h(d,|S|,σ) + √(2τ))/√m ) ≤ e^{−τ},  V = π^{d/2}|S|^d/(2^d Γ(d/2+1)),
//
// V being the volume of a ball of diameter |S|, which bounds vol(S) (isodiametric inequality), so that
// ‖·‖_{L^r(S×S)} ≤ vol(S)^{2/r}‖·‖_{L∞(S×S)}; h is that of [SSLinf]. R = +Inf gives Theorem 1. Closed forms both
// ways, as for [SSLinf].
//
// Note: the factor V^{2/r} makes the bound non-monotone in d (ball volumes vanish as d grows) and in r (it
// decreases in r when V > 1, increases when V < 1).
type SSLr struct {
	Dim          int
	Diameter     float64
	SecondMoment float64
	R            float64 // r ≥ 1 (+Inf allowed)
}

// Factor returns V^{2/r} with V = π^{d/2}|S|^d/(2^d Γ(d/2+1)).
func (t SSLr) Factor() (float64, error) {
	if err := (SSLinf{t.Dim, t.Diameter, t.SecondMoment}).check(); err != nil {
		return 0, err
	}
	if !(t.R >= 1) {
		return 0, fmt.Errorf("ss-lr: r must be ≥ 1, got %v", t.R)
	}
	d := float64(t.Dim)
	lg, _ := math.Lgamma(d/2 + 1)
	logV := d/2*math.Log(math.Pi) + d*math.Log(t.Diameter) - d*math.Ln2 - lg
	return math.Exp(2 / t.R * logV), nil
}

func (t SSLr) form() (radiusForm, error) {
	f, err := t.Factor()
	if err != nil {
		return radiusForm{}, err
	}
	r, err := SSLinf{t.Dim, t.Diameter, t.SecondMoment}.form()
	r.F = f
	return r, err
}

// Prob returns e^{−τ} for the τ at which the Theorem 2 radius equals ε.
func (t SSLr) Prob(eps float64, m int) (float64, error) { return radiusProb(t.form, eps, m) }

// Error returns V^{2/r}(h + √(2τ))/√m.
func (t SSLr) Error(m int, delta float64) (float64, error) { return radiusError(t.form, m, delta) }

// Points returns ⌈(V^{2/r}(h + √(2τ))/ε)²⌉.
func (t SSLr) Points(eps, delta float64) (int, error) { return radiusPoints(t.form, eps, delta) }

// SSDerivBounded is Theorem 4 of Sriperumbudur & Szabó (NeurIPS 2015): the uniform error of the RFF estimate
// ⟨φ^p(x), φ^q(y)⟩ of the kernel derivative ∂^{p,q}k on S×S when the spectral law has bounded support (or p = q = 0):
//
//	Λ^m( ‖∂^{p,q}k − ∂^{p,q}k̂‖_{L∞(S×S)} ≥ (H + T_{p,q}√(2τ))/√m ) ≤ e^{−τ},
//	H = 32√(2d·T_{2p,2q}) [ √U + 1/(2√U) + √(log(√C_{2p,2q} + 1)) ],  U = log(2|S|/√T_{2p,2q} + 1),
//
// with T_{p,q} = sup_{ω∈supp Λ}|ω^{p+q}| and C_{p,q} = E[|ω^{p+q}|·‖ω‖₂²] (see [Spectrum.Moments]). For p = q = 0
// (T = T2 = 1, C2 = σ²) it is exactly Theorem 1. Closed forms both ways.
type SSDerivBounded struct {
	Dim      int
	Diameter float64
	T        float64 // T_{p,q} > 0
	T2       float64 // T_{2p,2q} > 0
	C2       float64 // C_{2p,2q} ≥ 0
}

// H returns H(d, p, q, |S|) of Theorem 4.
func (t SSDerivBounded) H() (float64, error) {
	if err := checkDim(t.Dim); err != nil {
		return 0, fmt.Errorf("ss-deriv: %w", err)
	}
	for _, c := range []struct {
		n string
		v float64
	}{{"diameter |S|", t.Diameter}, {"T_{p,q}", t.T}, {"T_{2p,2q}", t.T2}} {
		if err := checkPositive(c.n, c.v); err != nil {
			return 0, fmt.Errorf("ss-deriv: %w", err)
		}
	}
	if err := checkNonNeg("C_{2p,2q}", t.C2); err != nil {
		return 0, fmt.Errorf("ss-deriv: %w", err)
	}
	d := float64(t.Dim)
	u := math.Log1p(2 * t.Diameter / math.Sqrt(t.T2))
	return 32 * math.Sqrt(2*d*t.T2) * (math.Sqrt(u) + 1/(2*math.Sqrt(u)) + math.Sqrt(math.Log1p(math.Sqrt(t.C2)))), nil
}

func (t SSDerivBounded) form() (radiusForm, error) {
	h, err := t.H()
	return radiusForm{F: 1, H: h, T: t.T}, err
}

// Prob returns e^{−τ} for the τ at which the Theorem 4 radius equals ε.
func (t SSDerivBounded) Prob(eps float64, m int) (float64, error) { return radiusProb(t.form, eps, m) }

// Error returns (H + T_{p,q}√(2τ))/√m.
func (t SSDerivBounded) Error(m int, delta float64) (float64, error) {
	return radiusError(t.form, m, delta)
}

// Points returns ⌈((H + T_{p,q}√(2τ))/ε)²⌉.
func (t SSDerivBounded) Points(eps, delta float64) (int, error) {
	return radiusPoints(t.form, eps, delta)
}

// SSDerivUnbounded is Theorem 5 of Sriperumbudur & Szabó (NeurIPS 2015): the uniform error of the derivative
// estimate when the spectral support is unbounded, under the Bernstein condition
// E|f(z;ω)|^M ≤ M!σ²L^{M−2}/2 (see [Spectrum.Bernstein]):
//
//	Λ^m(‖∂^{p,q}k − ∂^{p,q}k̂‖_{L∞(S×S)} ≥ ε) ≤ 2^{d−1} exp(−mε²/(8σ²(1 + εL/(2σ²))))
//	    + F_d 2^{(4d−1)/(d+1)} [|S|(D_{p,q,S} + E_{p,q})/ε]^{d/(d+1)} exp(−mε²/(8(d+1)σ²(1 + εL/(2σ²)))),
//
// F_d = d^{−d/(d+1)} + d^{1/(d+1)}, E_{p,q} = E[|ω^{p+q}|‖ω‖₂], D_{p,q,S} = sup_{z ∈ conv(S−S)} ‖∇_z ∂^{p,q}k(z)‖₂.
// D_{p,q,S} ≤ E_{p,q} always (differentiate under the integral and use Jensen), which is the default in [Compute].
// The bound is strictly decreasing in m and in ε, but has no closed-form inverse: Error and Points use a monotone
// search (bisection on ε; binary search on m from the sufficient m of each term ≤ δ/2).
type SSDerivUnbounded struct {
	Dim          int
	Diameter     float64
	BernsteinVar float64 // σ² of the Bernstein condition (> 0)
	BernsteinL   float64 // L of the Bernstein condition (> 0)
	GradSup      float64 // D_{p,q,S} ≥ 0
	NormMoment   float64 // E_{p,q} ≥ 0
}

func (t SSDerivUnbounded) check() error {
	if err := checkDim(t.Dim); err != nil {
		return fmt.Errorf("ss-deriv-unbounded: %w", err)
	}
	for _, c := range []struct {
		n string
		v float64
	}{{"diameter |S|", t.Diameter}, {"Bernstein σ²", t.BernsteinVar}, {"Bernstein L", t.BernsteinL}} {
		if err := checkPositive(c.n, c.v); err != nil {
			return fmt.Errorf("ss-deriv-unbounded: %w", err)
		}
	}
	if err := checkNonNeg("D_{p,q,S}", t.GradSup); err != nil {
		return fmt.Errorf("ss-deriv-unbounded: %w", err)
	}
	if err := checkNonNeg("E_{p,q}", t.NormMoment); err != nil {
		return fmt.Errorf("ss-deriv-unbounded: %w", err)
	}
	if t.GradSup+t.NormMoment == 0 {
		return fmt.Errorf("ss-deriv-unbounded: D_{p,q,S} + E_{p,q} must be positive")
	}
	return nil
}

// Fd returns F_d = d^{−d/(d+1)} + d^{1/(d+1)} (F_1 = 2, decreasing in d).
func Fd(d int) float64 {
	x := float64(d)
	return math.Pow(x, -x/(x+1)) + math.Pow(x, 1/(x+1))
}

// terms returns the log-coefficients and the rates (per point) of the two exponential terms of Theorem 5 at ε.
func (t SSDerivUnbounded) terms(eps float64) (logC1, r1, logC2, r2 float64) {
	d := float64(t.Dim)
	s2 := t.BernsteinVar
	den := 8 * s2 * (1 + eps*t.BernsteinL/(2*s2))
	r1 = eps * eps / den
	r2 = r1 / (d + 1)
	logC1 = (d - 1) * math.Ln2
	logC2 = math.Log(Fd(t.Dim)) + (4*d-1)/(d+1)*math.Ln2 +
		d/(d+1)*math.Log(t.Diameter*(t.GradSup+t.NormMoment)/eps)
	return
}

func (t SSDerivUnbounded) logProb(eps, m float64) float64 {
	c1, r1, c2, r2 := t.terms(eps)
	return logSumExp(c1-m*r1, c2-m*r2)
}

// Prob returns the right-hand side of Theorem 5.
func (t SSDerivUnbounded) Prob(eps float64, m int) (float64, error) {
	if err := t.check(); err != nil {
		return 0, err
	}
	if err := checkEps(eps); err != nil {
		return 0, err
	}
	if err := checkM(m); err != nil {
		return 0, err
	}
	return math.Exp(t.logProb(eps, float64(m))), nil
}

// Error returns the smallest ε with Prob(ε, m) ≤ δ (bisection).
func (t SSDerivUnbounded) Error(m int, delta float64) (float64, error) {
	if err := t.check(); err != nil {
		return 0, err
	}
	if err := checkM(m); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	ld := math.Log(delta)
	return epsFor(func(e float64) bool { return t.logProb(e, float64(m)) <= ld })
}

// Points returns the smallest m with Prob(ε, m) ≤ δ (binary search below the m at which each term is ≤ δ/2).
func (t SSDerivUnbounded) Points(eps, delta float64) (int, error) {
	if err := t.check(); err != nil {
		return 0, err
	}
	if err := checkEps(eps); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	ld := math.Log(delta)
	c1, r1, c2, r2 := t.terms(eps)
	guess := math.Max((c1-ld+math.Ln2)/r1, (c2-ld+math.Ln2)/r2)
	return pointsFor(func(m float64) bool { return t.logProb(eps, m) <= ld }, ceilGuess(guess))
}
