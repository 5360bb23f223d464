package bound

import (
	"fmt"
	"math"
	"strings"
)

// OVKConst holds the spectral constants of the Gaussian operator-valued kernels of Brault, Heinonen & d'Alché-Buc,
// "Random Fourier features for operator-valued kernels" (ACML 2016), §4.3, and docs/conventions.md §4: K(x,z) = E_ω[cos(ωᵀ(x−z))
// A(ω)], ω ~ N(0, I/σ²). Matrices that are multiples of the identity are given by that multiple.
//
//	               curl-free (A = ωωᵀ)        div-free (A = ‖ω‖²I − ωωᵀ)      decomposable (A constant)
//	E[A]           I/σ²                       (d−1)I/σ²                       A            (EA = ‖A‖₂)
//	V[A]           (d+1)I/σ⁴                  d(4d−3)I/σ⁴ (as printed)         0
//	V[A] exact     (d+1)I/σ⁴                  3(d−1)I/σ⁴                      0
//	‖‖A‖₂‖_ψ₁⁻¹    (σ²/2)(1 − 4^{−1/d})        (σ²/2)(1 − 4^{−1/d})             ln 2/‖A‖₂
//
// V[X] = E[(X − E X)²]. The printed div-free variance d(4d−3)/σ⁴ (paper §4.3; docs/conventions.md §8.9) is not the
// variance: A = ‖ω‖²P with P the projector on ω^⊥, so A² = ‖ω‖²A, E[A²] = (d+2)(d−1)I/σ⁴ and V[A] = 3(d−1)I/σ⁴
// (checked by Monte Carlo in the tests). The printed value is larger, so bounds that use it stay valid (looser).
// ‖A(ω)‖₂ = ‖ω‖² ~ Gamma(d/2, 2/σ²) for both curl- and div-free, whose MGF (1 − 2t/σ²)^{−d/2} equals 2 at
// t = (σ²/2)(1 − 4^{−1/d}) (the paper writes p = d outputs).
type OVKConst struct {
	Kind      string
	Outputs   int     // p: d for curl/div-free, the given output count for decomposable
	EA        float64 // E[A] = EA·I (‖A‖₂ for decomposable)
	VarA      float64 // ‖V[A]‖₂ as printed in the paper (docs/conventions.md §8.9)
	VarAExact float64 // ‖V[A]‖₂ computed exactly
	InvPsi1   float64 // ‖‖A(ω)‖₂‖_ψ₁⁻¹
	Psi1      float64 // ‖‖A(ω)‖₂‖_ψ₁
	KSup      float64 // ‖K‖_∞ = ‖K₀(0)‖₂ = ‖E[A]‖₂
	SigmaP2   float64 // σ_p² = E[‖ω‖²‖A(ω)‖₂²] of Theorem 10: d(d+2)(d+4)/σ⁶ (curl, div), ‖A‖₂²d/σ² (decomposable)
	M         float64 // m = 4(‖‖A‖₂‖_ψ₁ + ‖K‖_∞) of Theorem 10
}

// normKind maps the accepted spellings to "curl-free", "div-free" or "decomposable".
func normKind(kind string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(kind)) {
	case "curl-free", "curl", "curlfree":
		return "curl-free", nil
	case "div-free", "div", "divfree", "divergence-free":
		return "div-free", nil
	case "decomposable", "dec":
		return "decomposable", nil
	}
	return "", fmt.Errorf("bound: unknown operator-valued kernel %q (want curl-free, div-free or decomposable)", kind)
}

// OVKConstants returns the constants of the Gaussian curl-free, div-free or decomposable kernel with bandwidth
// sigma in dimension d (see [OVKConst]). normA = ‖A‖₂ is used (and required > 0) only for "decomposable"; its
// output count is then left 0 (set ORFF.Outputs).
func OVKConstants(kind string, d int, sigma, normA float64) (OVKConst, error) {
	k, err := normKind(kind)
	if err != nil {
		return OVKConst{}, err
	}
	if err := checkDim(d); err != nil {
		return OVKConst{}, fmt.Errorf("orff: %w", err)
	}
	if err := checkPositive("bandwidth σ", sigma); err != nil {
		return OVKConst{}, fmt.Errorf("orff: %w", err)
	}
	s2 := 1 / (sigma * sigma)
	x := float64(d)
	c := OVKConst{Kind: k, Outputs: d}
	switch k {
	case "curl-free":
		c.EA = s2
		c.VarA = (x + 1) * s2 * s2
		c.VarAExact = c.VarA
	case "div-free":
		if d < 2 {
			return OVKConst{}, fmt.Errorf("orff: the div-free kernel needs d ≥ 2 (it is zero for d = 1)")
		}
		c.EA = (x - 1) * s2
		c.VarA = x * (4*x - 3) * s2 * s2
		c.VarAExact = 3 * (x - 1) * s2 * s2
	case "decomposable":
		if err := checkPositive("‖A‖₂", normA); err != nil {
			return OVKConst{}, fmt.Errorf("orff: %w", err)
		}
		c.Outputs = 0
		c.EA = normA
		c.InvPsi1 = math.Ln2 / normA
		c.Psi1 = normA / math.Ln2
		c.KSup = normA
		c.SigmaP2 = normA * normA * x * s2
		c.M = 4 * (c.Psi1 + c.KSup)
		return c, nil
	}
	c.InvPsi1 = sigma * sigma / 2 * -math.Expm1(-math.Log(4)/x)
	c.Psi1 = 1 / c.InvPsi1
	c.KSup = c.EA
	c.SigmaP2 = x * (x + 2) * (x + 4) * s2 * s2 * s2
	c.M = 4 * (c.Psi1 + c.KSup)
	return c, nil
}

// ORFF is the uniform error bound of Theorem 10 of Brault et al. (ACML 2016) for the ORFF approximation K̃ of a
// Gaussian curl-free, div-free or decomposable kernel with D frequencies on a compact set C of diameter |C|:
//
//	P(‖K̃ − K‖_∞ ≥ ε) ≤ C_{d,p} (σ_p|C|/ε)^{2/(1+2/d)} · { exp(−ε²D/(8(d+2)(b + εū/6)))  if εū ≤ 2(e−1)b
//	                                                     { exp(−εD/((d+2)(e−1)ū))          otherwise,
//	b = D‖V_μ[K̃]‖_∞,  σ_p² = E‖ω‖²‖A(ω)‖₂²,  m = 4(‖‖A(ω)‖₂‖_ψ₁ + ‖K‖_∞),  ū = 2m log(2^{3/2}(m/b)²),
//	C_{d,p} = p((d/2)^{−d/(d+2)} + (d/2)^{2/(d+2)})2^{(6d+2)/(d+2)},
//
// with ‖·‖ the spectral norm. b is the sup over ‖δ‖ ≤ |C| of the Proposition 12 bound ([ORFF.Variance]), which does
// not depend on D.
//
// ū as printed is not dimensionally consistent: m scales like A (1/σ² for curl/div-free), b like A², so (m/b)²
// changes with the units of x (rescaling x rescales σ and changes the bound), and for small σ or large b it drops
// below 2^{−3/2}, making ū ≤ 0 (e.g. div-free, d = 3, σ = 0.7). The matrix Bernstein inequality the proof invokes
// (Koltchinskii) has U·log(U/σ_X) with U the ψ₁ norm and σ_X² the variance, i.e. log of (m/√b)² = m²/b. By default
// ū = 2m·log(2^{3/2}m²/b) is used (scale-invariant, positive in practice since b ≲ 2‖‖A‖‖²_ψ₁ + …); PrintedUBar
// selects the literal formula. (The proof sketch prints yet another ū = log(2(m/b)² + 1).)
//
// The bound is applied with b from Proposition 12, an upper bound on the true D‖V[K̃]‖_∞, as the paper does; since
// ū grows like log(1/b), the bound is not monotone in b and, for decomposable kernels (b → 0 as |C| → 0), it
// improves as |C| grows from 0 until b saturates (a few σ).
// Points is a closed form in each regime (the regime depends on ε only); Error is a monotone search (the bound
// is non-increasing in ε, with a downward jump where the regime changes).
type ORFF struct {
	Kind     string  // "curl-free", "div-free" or "decomposable"
	Dim      int     // input dimension d (= p for curl/div-free)
	Outputs  int     // p for decomposable (ignored otherwise)
	Sigma    float64 // bandwidth σ of the Gaussian k₀
	NormA    float64 // ‖A‖₂ for decomposable (ignored otherwise)
	Diameter float64 // |C|
	// ExactVariance uses the exact V[A] (3(d−1)/σ⁴ for div-free) instead of the printed one.
	ExactVariance bool
	// PrintedUBar uses ū = 2m·log(2^{3/2}(m/b)²) literally as printed instead of the scale-invariant
	// ū = 2m·log(2^{3/2}m²/b) (see the type documentation).
	PrintedUBar bool
}

// Constants returns the [OVKConst] of o (with Outputs set for decomposable kernels).
func (o ORFF) Constants() (OVKConst, error) {
	c, err := OVKConstants(o.Kind, o.Dim, o.Sigma, o.NormA)
	if err != nil {
		return c, err
	}
	if c.Kind == "decomposable" {
		if o.Outputs < 1 {
			return c, fmt.Errorf("orff: decomposable kernels need the output count p ≥ 1, got %d", o.Outputs)
		}
		c.Outputs = o.Outputs
	}
	return c, nil
}

// Variance returns Proposition 12 of Brault et al. at ‖δ‖ = r, as a bound on D·‖V_μ[K̃₀(δ)]‖₂:
//
//	D‖V_μ[K̃₀(δ)]‖₂ ≤ ( ‖(K₀(2δ) + K₀(0))E_μ[A] − 2K₀(δ)²‖₂ + 2‖V_μ[A]‖₂ ) / 2,
//
// evaluated exactly for the Gaussian kernels of docs/conventions.md §4: every matrix is αI + βδδᵀ/‖δ‖², so the norm is the
// largest of |eigenvalue| along δ and across it. Divide by D for the variance of a D-frequency map.
// Note: the worked examples of paper §4.3 drop the K₀(0)E[A] term and, for decomposable kernels, print
// (1 + k₀(2δ))‖A‖₂/2 + k₀(δ)²; the Proposition as stated gives ‖A‖₂²|1 + k₀(2δ) − 2k₀(δ)²|/2, used here.
func (o ORFF) Variance(r float64) (float64, error) {
	c, err := o.Constants()
	if err != nil {
		return 0, err
	}
	if err := checkNonNeg("‖δ‖", r); err != nil {
		return 0, fmt.Errorf("orff: %w", err)
	}
	return o.variance(c, r), nil
}

func (o ORFF) variance(c OVKConst, r float64) float64 {
	s2 := 1 / (o.Sigma * o.Sigma)
	k := func(r float64) float64 { return math.Exp(-r * r * s2 / 2) }
	if c.Kind == "decomposable" {
		k1 := k(r)
		return o.NormA * o.NormA * math.Abs(1+k(2*r)-2*k1*k1) / 2
	}
	x := float64(o.Dim)
	// Eigenvalues of K₀(δ) along δ (par) and across δ (perp).
	par := func(r float64) float64 {
		if c.Kind == "curl-free" {
			return k(r) * s2 * (1 - r*r*s2)
		}
		return k(r) * s2 * (x - 1)
	}
	perp := func(r float64) float64 {
		if c.Kind == "curl-free" {
			return k(r) * s2
		}
		return k(r) * s2 * (x - 1 - r*r*s2)
	}
	e := c.EA
	mPar := (par(2*r)+e)*e - 2*par(r)*par(r)
	norm := math.Abs(mPar)
	if o.Dim > 1 {
		norm = math.Max(norm, math.Abs((perp(2*r)+e)*e-2*perp(r)*perp(r)))
	}
	v := c.VarA
	if o.ExactVariance {
		v = c.VarAExact
	}
	return (norm + 2*v) / 2
}

// VarianceSup returns b = sup_{‖δ‖ ≤ |C|} of [ORFF.Variance] (grid + golden-section search on [0, min(|C|, 40σ)],
// beyond which every Gaussian factor has underflowed, plus the value at |C|).
func (o ORFF) VarianceSup() (float64, error) {
	c, err := o.Constants()
	if err != nil {
		return 0, err
	}
	if err := checkPositive("diameter |C|", o.Diameter); err != nil {
		return 0, fmt.Errorf("orff: %w", err)
	}
	f := func(r float64) float64 { return o.variance(c, r) }
	return math.Max(maximize(f, 0, math.Min(o.Diameter, 40*o.Sigma)), f(o.Diameter)), nil
}

// orffTerms are the prepared constants of Theorem 10.
type orffTerms struct {
	d, logC, sigmaP, diam, b, ubar float64
}

// Terms returns the constants of Theorem 10 by name: c_dp, sigma_p2, b, m_const (its m), u_bar, and e_a, v_a,
// v_a_exact, psi1_inv and k_sup.
func (o ORFF) Terms() (map[string]float64, error) {
	t, c, err := o.prepare()
	if err != nil {
		return nil, err
	}
	return map[string]float64{
		"c_dp": math.Exp(t.logC), "sigma_p2": c.SigmaP2, "b": t.b, "m_const": c.M, "u_bar": t.ubar,
		"e_a": c.EA, "v_a": c.VarA, "v_a_exact": c.VarAExact, "psi1_inv": c.InvPsi1, "k_sup": c.KSup,
	}, nil
}

func (o ORFF) prepare() (orffTerms, OVKConst, error) {
	c, err := o.Constants()
	if err != nil {
		return orffTerms{}, c, err
	}
	b, err := o.VarianceSup()
	if err != nil {
		return orffTerms{}, c, err
	}
	if !(b > 0) {
		return orffTerms{}, c, fmt.Errorf("orff: the variance bound b is %v; Theorem 10 needs b > 0", b)
	}
	ubar := 2 * c.M * math.Log(math.Pow(2, 1.5)*c.M*c.M/b)
	if o.PrintedUBar {
		ubar = 2 * c.M * math.Log(math.Pow(2, 1.5)*(c.M/b)*(c.M/b))
	}
	if !(ubar > 0) {
		return orffTerms{}, c, fmt.Errorf("orff: ū = %v ≤ 0 (m = %v, b = %v): Theorem 10 does not apply "+
			"(with PrintedUBar the printed ū = 2m·log(2^{3/2}(m/b)²) turns negative when b is large against m)",
			ubar, c.M, b)
	}
	return orffTerms{
		d:      float64(o.Dim),
		logC:   math.Log(float64(c.Outputs) * SutherlandBeta(o.Dim)),
		sigmaP: math.Sqrt(c.SigmaP2),
		diam:   o.Diameter,
		b:      b,
		ubar:   ubar,
	}, c, nil
}

func (t orffTerms) logPre(eps float64) float64 {
	return t.logC + 2*t.d/(t.d+2)*math.Log(t.sigmaP*t.diam/eps)
}

func (t orffTerms) rate(eps float64) float64 {
	if eps*t.ubar <= 2*(math.E-1)*t.b {
		return eps * eps / (8 * (t.d + 2) * (t.b + eps*t.ubar/6))
	}
	return eps / ((t.d + 2) * (math.E - 1) * t.ubar)
}

func (t orffTerms) logProb(eps, m float64) float64 { return t.logPre(eps) - m*t.rate(eps) }

// Prob returns the right-hand side of Theorem 10.
func (o ORFF) Prob(eps float64, m int) (float64, error) {
	t, _, err := o.prepare()
	if err != nil {
		return 0, err
	}
	return probCommon(func() error { return nil }, t.logProb, eps, m)
}

// Error returns the smallest ε with Prob(ε, D) ≤ δ (bisection).
func (o ORFF) Error(m int, delta float64) (float64, error) {
	t, _, err := o.prepare()
	if err != nil {
		return 0, err
	}
	return errorCommon(func() error { return nil }, t.logProb, m, delta)
}

// Points returns D = ⌈(log C_{d,p} + (2d/(d+2))log(σ_p|C|/ε) + log(1/δ))/rate(ε)⌉ with rate(ε) the exponent per
// frequency of the regime of ε (at least 1).
func (o ORFF) Points(eps, delta float64) (int, error) {
	t, _, err := o.prepare()
	if err != nil {
		return 0, err
	}
	return pointsCommon(func() error { return nil }, t.logProb, func(eps, ld float64) float64 {
		return (t.logPre(eps) - ld) / t.rate(eps)
	}, eps, delta)
}
