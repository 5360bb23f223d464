package bound

import (
	"fmt"
	"math"
)

// QuadratureBeta returns β_d = (d^{−d/(d+1)} + d^{1/(d+1)})·2^{(6d+1)/(d+1)}·(d/(d+1))^{d/(d+1)} of Munkhoeva et
// al. (2018), Proposition 3.1, as printed. β_1 = 16, its maximum is β_86 ≈ 64.74, and β_d → 64 (the paper's remark).
func QuadratureBeta(d int) float64 {
	x := float64(d)
	return (math.Pow(x, -x/(x+1)) + math.Pow(x, 1/(x+1))) * math.Pow(2, (6*x+1)/(x+1)) * math.Pow(x/(x+1), x/(x+1))
}

// Quadrature is Proposition 3.1 of Munkhoeva, Kapushev, Burnaev & Oseledets, "Quadrature-based features for kernel
// approximation" (NeurIPS 2018): for the stochastic spherical–radial SR(3,3) features with D points on a compact set
// of diameter l,
//
//	P( sup_{x,y} |k̂(x,y) − k(x,y)| ≥ ε ) ≤ β_d (σ_p l κ μ/ε)^{2d/(d+1)} exp(−D ε²/(8M²(d+1))),
//	D ≥ 8M²(d+1)/ε² [ (2/(1+1/d)) log(σ_p l κ μ/ε) + log(β_d/δ) ],
//
// where |φ| ≤ κ, |φ'| ≤ μ, |(1 − f_xy(ρz))/ρ²| ≤ M for unit z and ρ ≥ 0, and β_d is [QuadratureBeta]. D counts
// points (2n(d+1) for n rules; the zero node adds a scalar offset, not a point); the cos/sin map has 2D columns.
// Points is the closed form above (checked against the probability); Error is a monotone search.
//
// Decisions (see the package documentation): σ_p is taken as sqrt(E‖ω‖²) = √d/σ_k (the quantity of the
// Sutherland–Schneider proof the proposition follows, and the conservative reading of the paper's "p = N(0, σ_p²I)");
// for the Gaussian kernel κ = μ = 1 and M = max(½, l²/(2σ_k²)): the paper's M = ½ holds only when l ≤ σ_k, since
// sup_ρ (1 − cos(ρ zᵀδ/σ_k))/ρ² = (zᵀδ)²/(2σ_k²).
type Quadrature struct {
	Dim          int
	Diameter     float64 // l > 0
	SecondMoment float64 // σ_p² > 0
	Kappa        float64 // κ ≥ sup|φ| > 0
	Mu           float64 // μ ≥ sup|φ'| > 0
	CurvM        float64 // M ≥ sup |(1 − f_xy(ρz))/ρ²| > 0
}

func (t Quadrature) check() error {
	if err := (RahimiRecht{t.Dim, t.Diameter, t.SecondMoment}).check(); err != nil {
		return fmt.Errorf("quadrature: %w", err)
	}
	for _, c := range []struct {
		n string
		v float64
	}{{"κ", t.Kappa}, {"μ", t.Mu}, {"M", t.CurvM}} {
		if err := checkPositive(c.n, c.v); err != nil {
			return fmt.Errorf("quadrature: %w", err)
		}
	}
	return nil
}

func (t Quadrature) logPre(eps float64) float64 {
	d := float64(t.Dim)
	return math.Log(QuadratureBeta(t.Dim)) +
		2*d/(d+1)*math.Log(math.Sqrt(t.SecondMoment)*t.Diameter*t.Kappa*t.Mu/eps)
}

func (t Quadrature) rate(eps float64) float64 {
	return eps * eps / (8 * t.CurvM * t.CurvM * float64(t.Dim+1))
}

func (t Quadrature) logProb(eps, m float64) float64 { return t.logPre(eps) - m*t.rate(eps) }

// Prob returns β_d(σ_p lκμ/ε)^{2d/(d+1)} exp(−Dε²/(8M²(d+1))).
func (t Quadrature) Prob(eps float64, m int) (float64, error) {
	return probCommon(t.check, t.logProb, eps, m)
}

// Error returns the smallest ε with Prob(ε, D) ≤ δ (bisection).
func (t Quadrature) Error(m int, delta float64) (float64, error) {
	return errorCommon(t.check, t.logProb, m, delta)
}

// Points returns ⌈8M²(d+1)/ε² [(2/(1+1/d)) log(σ_p lκμ/ε) + log(β_d/δ)]⌉ (at least 1).
func (t Quadrature) Points(eps, delta float64) (int, error) {
	return pointsCommon(t.check, t.logProb, func(eps, ld float64) float64 {
		return (t.logPre(eps) - ld) / t.rate(eps)
	}, eps, delta)
}

// QuadratureRFF is the random-Fourier-feature counterpart printed after Proposition 3.1 of Munkhoeva et al. (2018)
// (attributed there to Sutherland & Schneider, 2015), for D iid Gaussian points:
//
//	D ≥ 8(d+1)/ε² [ (2/(1+1/d)) log(σ_p l/ε) + log(β_d/δ) + (d/(d+1)) log((3d+3)/(2d)) ],
//
// i.e. P(sup|k̂ − k| ≥ ε) ≤ β_d ((3d+3)/(2d))^{d/(d+1)} (σ_p l/ε)^{2d/(d+1)} exp(−Dε²/(8(d+1))), with β_d of
// [QuadratureBeta] and σ_p² = E‖ω‖². D counts points, as printed ("number of samples"). Points is the closed form;
// Error is a monotone search.
type QuadratureRFF struct {
	Dim          int
	Diameter     float64
	SecondMoment float64
}

func (t QuadratureRFF) check() error {
	if err := (RahimiRecht{t.Dim, t.Diameter, t.SecondMoment}).check(); err != nil {
		return fmt.Errorf("quadrature-rff: %w", err)
	}
	return nil
}

func (t QuadratureRFF) logPre(eps float64) float64 {
	d := float64(t.Dim)
	return math.Log(QuadratureBeta(t.Dim)) + d/(d+1)*math.Log((3*d+3)/(2*d)) +
		2*d/(d+1)*math.Log(math.Sqrt(t.SecondMoment)*t.Diameter/eps)
}

func (t QuadratureRFF) logProb(eps, m float64) float64 {
	return t.logPre(eps) - m*eps*eps/(8*float64(t.Dim+1))
}

// Prob returns β_d((3d+3)/(2d))^{d/(d+1)}(σ_p l/ε)^{2d/(d+1)} exp(−Dε²/(8(d+1))).
func (t QuadratureRFF) Prob(eps float64, m int) (float64, error) {
	return probCommon(t.check, t.logProb, eps, m)
}

// Error returns the smallest ε with Prob(ε, D) ≤ δ (bisection).
func (t QuadratureRFF) Error(m int, delta float64) (float64, error) {
	return errorCommon(t.check, t.logProb, m, delta)
}

// Points returns the printed D (at least 1).
func (t QuadratureRFF) Points(eps, delta float64) (int, error) {
	return pointsCommon(t.check, t.logProb, func(eps, ld float64) float64 {
		return 8 * float64(t.Dim+1) / (eps * eps) * (t.logPre(eps) - ld)
	}, eps, delta)
}

// KRR is Proposition 3.2 of Munkhoeva et al. (2018) (after Sutherland & Schneider, 2015): kernel ridge regression
// with centred labels (σ_y² = (1/n)Σy_i²) and regularization λ = nλ₀ predicts, with an approximate kernel of uniform
// error ε_k, within |ĥ(x) − h(x)| ≤ σ_y(λ₀+1)ε_k/λ₀². Hence
//
//	P(|ĥ(x) − h(x)| ≥ ε) ≤ P(‖k̂ − k‖_∞ ≥ λ₀²ε/(σ_y(λ₀+1))),
//
// and any uniform kernel bound gives the points needed for prediction error ε. With Kernel a [Quadrature] this is
// the printed D ≥ 8M²(d+1)σ_y²((λ₀+1)/(λ₀²ε))² [(2/(1+1/d)) log(σ_yσ_p lκμ(λ₀+1)/(λ₀²ε)) + log(β_d/δ)].
// The factor (λ₀+1) assumes |k| ≤ 1 (true for every normalized shift-invariant kernel); for ‖k_x‖_∞ ≤ κ the
// derivation gives (λ₀+κ). Error and Points inherit their method (closed form or search) from Kernel.
type KRR struct {
	Kernel  Bound   // a uniform bound on sup|k̂ − k| (e.g. Quadrature, QuadratureRFF, SSLinf)
	SigmaY  float64 // σ_y > 0, root mean square of the centred labels
	Lambda0 float64 // λ₀ = λ/n > 0
}

// Scale returns c = λ₀²/(σ_y(λ₀+1)): a kernel error c·ε gives a prediction error ε.
func (t KRR) Scale() (float64, error) {
	if t.Kernel == nil {
		return 0, fmt.Errorf("krr: no kernel bound")
	}
	if err := checkPositive("σ_y", t.SigmaY); err != nil {
		return 0, fmt.Errorf("krr: %w", err)
	}
	if err := checkPositive("λ₀", t.Lambda0); err != nil {
		return 0, fmt.Errorf("krr: %w", err)
	}
	return t.Lambda0 * t.Lambda0 / (t.SigmaY * (t.Lambda0 + 1)), nil
}

// Prob returns Kernel.Prob(cε, m).
func (t KRR) Prob(eps float64, m int) (float64, error) {
	c, err := t.Scale()
	if err != nil {
		return 0, err
	}
	if err := checkEps(eps); err != nil {
		return 0, err
	}
	return t.Kernel.Prob(c*eps, m)
}

// Error returns Kernel.Error(m, δ)/c.
func (t KRR) Error(m int, delta float64) (float64, error) {
	c, err := t.Scale()
	if err != nil {
		return 0, err
	}
	e, err := t.Kernel.Error(m, delta)
	return e / c, err
}

// Points returns Kernel.Points(cε, δ).
func (t KRR) Points(eps, delta float64) (int, error) {
	c, err := t.Scale()
	if err != nil {
		return 0, err
	}
	if err := checkEps(eps); err != nil {
		return 0, err
	}
	m, err := t.Kernel.Points(c*eps, delta)
	if err != nil {
		return m, err
	}
	// Error divides by c, this multiplies: the two roundings (fused differently on some CPUs) can put Error(m) a unit
	// of rounding to either side of ε. A few steps make m the smallest count whose Error is ≤ ε, as Error computes it.
	for range 4 {
		if e, err := t.Error(m, delta); err != nil || e <= eps {
			break
		}
		m++
	}
	for range 4 {
		if m <= 1 {
			break
		}
		if e, err := t.Error(m-1, delta); err != nil || e > eps {
			break
		}
		m--
	}
	return m, nil
}
