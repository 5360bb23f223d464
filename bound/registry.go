package bound

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Params are the inputs of [Compute], one struct for every theorem (the flags of `rff bound`). Set exactly one of
// Eps (to get the points needed) and M (to get the error guaranteed). Zero-valued optional fields take the defaults
// documented on each field; the defaults used are recorded in the Guarantee's Inputs and Notes.
type Params struct {
	// Dim is the input dimension d ≥ 1.
	Dim int `json:"d"`
	// Diameter is the diameter |S| (ℓ, |C|) of the compact set, > 0.
	Diameter float64 `json:"diameter"`
	// Kernel names the shift-invariant kernel whose spectral law gives the constants ([Spectrum]); default
	// "gaussian".
	Kernel string `json:"kernel,omitempty"`
	// Sigma is the kernel bandwidth σ_k; default sqrt(d/2) (γ = 1/d, the command-line default of package kernel).
	Sigma float64 `json:"sigma,omitempty"`
	// Nu is the Matérn smoothness when Kernel is "matern".
	Nu float64 `json:"nu,omitempty"`
	// Eps is the target error ε > 0 (solve for M).
	Eps float64 `json:"eps,omitempty"`
	// M is the number of points (frequencies, D in the papers) ≥ 1 (solve for Eps); the cos/sin map has 2M columns.
	M int `json:"m,omitempty"`
	// Delta is the failure probability δ ∈ (0, 1); the guarantee holds with probability ≥ 1 − δ.
	Delta float64 `json:"delta"`

	// R is the exponent r ≥ 1 of the L^r norm (ss-lr); +Inf gives the uniform bound.
	R float64 `json:"r,omitempty"`
	// P and Q are the derivative multi-indices of ∂^{p,q}k (ss-deriv*); nil means zero; length d otherwise.
	P []int `json:"p,omitempty"`
	Q []int `json:"q,omitempty"`

	// SecondMoment overrides σ² = E‖ω‖² (0: from the kernel).
	SecondMoment float64 `json:"second_moment,omitempty"`
	// T, T2, C2 override T_{p,q}, T_{2p,2q}, C_{2p,2q} of Theorem 4 (0: from the kernel, which must then have
	// bounded spectral support unless p = q = 0).
	T  float64 `json:"t_pq,omitempty"`
	T2 float64 `json:"t_2p2q,omitempty"`
	C2 float64 `json:"c_2p2q,omitempty"`
	// BernsteinVar and BernsteinL override σ² and L of Theorem 5's moment condition (0: [Spectrum.Bernstein]).
	BernsteinVar float64 `json:"bernstein_var,omitempty"`
	BernsteinL   float64 `json:"bernstein_l,omitempty"`
	// GradSup overrides D_{p,q,S} of Theorem 5 (0: its upper bound E_{p,q}); NormMoment overrides E_{p,q}
	// (0: from the kernel).
	GradSup    float64 `json:"grad_sup,omitempty"`
	NormMoment float64 `json:"norm_moment,omitempty"`
	// VarSup overrides sup Var[cos(ωᵀδ)] in Sutherland & Schneider's α_ε (0: [Spectrum.CosVarianceSup]).
	VarSup float64 `json:"var_sup,omitempty"`
	// Kappa, Mu, CurvM override κ, μ, M of Proposition 3.1 (0: 1, 1, max(½, ℓ²/(2σ²)) for cos/sin features).
	Kappa float64 `json:"kappa,omitempty"`
	Mu    float64 `json:"mu,omitempty"`
	CurvM float64 `json:"curv_m,omitempty"`
	// SigmaY (default 1) and Lambda0 (required) are σ_y and λ₀ = λ/n of Proposition 3.2 (krr).
	SigmaY  float64 `json:"sigma_y,omitempty"`
	Lambda0 float64 `json:"lambda0,omitempty"`
	// Features selects the kernel bound behind krr: "sr" (Proposition 3.1, default) or "rff" (its counterpart).
	Features string `json:"features,omitempty"`
	// OVK is the operator-valued kernel of orff: "curl-free" (default), "div-free" or "decomposable".
	OVK string `json:"ovk,omitempty"`
	// Outputs is p for a decomposable kernel (default 1); NormA is its ‖A‖₂ (default 1).
	Outputs int     `json:"outputs,omitempty"`
	NormA   float64 `json:"norm_a,omitempty"`
	// ExactVariance makes orff use the exact V[A] instead of the printed one (see [OVKConst]).
	ExactVariance bool `json:"exact_variance,omitempty"`
	// PrintedUBar makes orff use Theorem 10's ū literally as printed (see [ORFF]).
	PrintedUBar bool `json:"printed_u_bar,omitempty"`
}

type theorem struct {
	source, formula string
	build           func(p Params, g *Guarantee) (b Bound, methodM, methodEps string, err error)
}

const (
	closedForm = "closed form"
	search     = "monotone search"
)

const (
	thm4Source  = "Sriperumbudur & Szabó, Optimal rates for random Fourier features (NeurIPS 2015), Theorem 4"
	thm4Formula = "P(‖∂^{p,q}k − ∂^{p,q}k̂‖_{L∞(S×S)} ≥ (H + T_{p,q}√(2τ))/√m) ≤ e^{−τ}, H = 32√(2d·T_{2p,2q})" +
		"[√U + 1/(2√U) + √(log(√C_{2p,2q}+1))], U = log(2|S|/√T_{2p,2q} + 1)"
	thm5Source  = "Sriperumbudur & Szabó, Optimal rates for random Fourier features (NeurIPS 2015), Theorem 5"
	thm5Formula = "P(‖∂^{p,q}k − ∂^{p,q}k̂‖_{L∞(S×S)} ≥ ε) ≤ 2^{d−1}exp(−mε²/(8σ²(1+εL/(2σ²)))) + " +
		"F_d 2^{(4d−1)/(d+1)}[|S|(D_{p,q,S}+E_{p,q})/ε]^{d/(d+1)} exp(−mε²/(8(d+1)σ²(1+εL/(2σ²)))), " +
		"F_d = d^{−d/(d+1)} + d^{1/(d+1)}"
)

var registry = map[string]theorem{
	"ss-linf": {
		source: "Sriperumbudur & Szabó, Optimal rates for random Fourier features (NeurIPS 2015), Theorem 1",
		formula: "P(‖k̂−k‖_{L∞(S×S)} ≥ (h + √(2τ))/√m) ≤ e^{−τ}, h = 32√(2d·log(2|S|+1)) + 32√(2d·log(σ+1)) + " +
			"16√(2d/log(2|S|+1)), σ² = E‖ω‖², τ = log(1/δ)",
		build: buildSSLinf,
	},
	"ss-lr": {
		source: "Sriperumbudur & Szabó, Optimal rates for random Fourier features (NeurIPS 2015), Theorem 2",
		formula: "P(‖k̂−k‖_{L^r(S×S)} ≥ (π^{d/2}|S|^d/(2^dΓ(d/2+1)))^{2/r}(h + √(2τ))/√m) ≤ e^{−τ}, h as in " +
			"Theorem 1, τ = log(1/δ)",
		build: buildSSLr,
	},
	"ss-deriv": {
		source:  "Sriperumbudur & Szabó, Optimal rates for random Fourier features (NeurIPS 2015), Theorem 4 or 5",
		formula: "Theorem 4 when p = q = 0 or the spectral support is bounded, otherwise Theorem 5",
		build:   buildSSDerivAuto,
	},
	"ss-deriv-bounded":   {source: thm4Source, formula: thm4Formula, build: buildSSDerivBounded},
	"ss-deriv-unbounded": {source: thm5Source, formula: thm5Formula, build: buildSSDerivUnbounded},
	"rr": {
		source:  "Rahimi & Recht, Random features for large-scale kernel machines (NIPS 2007), Claim 1",
		formula: "P(sup|k̂−k| ≥ ε) ≤ 2^8 (σ_p·diam/ε)² exp(−mε²/(4(d+2))), σ_p² = E‖ω‖²",
		build:   buildRR,
	},
	"sutherland": {
		source: "Sutherland & Schneider, On the error of random Fourier features (UAI 2015), Proposition 1",
		formula: "P(sup|k̂−k| ≥ ε) ≤ β_d (σ_pℓ/ε)^{2d/(d+2)} exp(−Dε²/(8(d+2)α_ε)), D = 2m columns, " +
			"α_ε = min(1, sup ½+½k(2δ)−k(δ)² + ε/3), β_d = ((d/2)^{−d/(d+2)} + (d/2)^{2/(d+2)})2^{(6d+2)/(d+2)}",
		build: buildSutherland,
	},
	"quadrature": {
		source: "Munkhoeva, Kapushev, Burnaev & Oseledets, Quadrature-based features for kernel approximation " +
			"(NeurIPS 2018), Proposition 3.1",
		formula: "D ≥ 8M²(d+1)/ε² [(2/(1+1/d)) log(σ_p lκμ/ε) + log(β_d/δ)], β_d = (d^{−d/(d+1)} + " +
			"d^{1/(d+1)})2^{(6d+1)/(d+1)}(d/(d+1))^{d/(d+1)}",
		build: buildQuadrature,
	},
	"quadrature-rff": {
		source: "Munkhoeva et al. (NeurIPS 2018), RFF counterpart of Proposition 3.1 (after Sutherland & " +
			"Schneider 2015)",
		formula: "D ≥ 8(d+1)/ε² [(2/(1+1/d)) log(σ_p l/ε) + log(β_d/δ) + (d/(d+1)) log((3d+3)/(2d))]",
		build:   buildQuadratureRFF,
	},
	"krr": {
		source: "Munkhoeva et al. (NeurIPS 2018), Proposition 3.2 (after Sutherland & Schneider 2015)",
		formula: "P(|ĥ(x)−h(x)| ≥ ε) ≤ P(sup|k̂−k| ≥ λ₀²ε/(σ_y(λ₀+1))); with SR features D ≥ 8M²(d+1)σ_y²" +
			"((λ₀+1)/(λ₀²ε))² [(2/(1+1/d)) log(σ_yσ_p lκμ(λ₀+1)/(λ₀²ε)) + log(β_d/δ)]",
		build: buildKRR,
	},
	"orff": {
		source: "Brault, Heinonen & d'Alché-Buc, Random Fourier features for operator-valued kernels " +
			"(ACML 2016), Theorem 10 with Proposition 12",
		formula: "P(‖K̃−K‖_∞ ≥ ε) ≤ C_{d,p}(σ_p|C|/ε)^{2/(1+2/d)} exp(−ε²D/(8(d+2)(b+εū/6))) if εū ≤ 2(e−1)b, " +
			"else C_{d,p}(σ_p|C|/ε)^{2/(1+2/d)} exp(−εD/((d+2)(e−1)ū)); b = D‖V[K̃]‖_∞ (Prop. 12), " +
			"σ_p² = E‖ω‖²‖A(ω)‖², m = 4(‖‖A‖‖_ψ₁ + ‖K‖_∞), ū = 2m log(2^{3/2}m²/b) (printed: (m/b)²)",
		build: buildORFF,
	},
}

// Names lists the theorems [Compute] knows, in a stable order.
func Names() []string {
	return []string{"ss-linf", "ss-lr", "ss-deriv", "ss-deriv-bounded", "ss-deriv-unbounded", "rr", "sutherland",
		"quadrature", "quadrature-rff", "krr", "orff"}
}

// Compute evaluates the theorem called name (see [Names]) on p: the points needed for p.Eps when p.Eps is set,
// or the error guaranteed for p.M points otherwise, both at confidence 1 − p.Delta.
func Compute(name string, p Params) (Guarantee, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	th, ok := registry[key]
	if !ok {
		return Guarantee{}, fmt.Errorf("bound: unknown theorem %q (want one of %s)", name,
			strings.Join(Names(), ", "))
	}
	if err := checkDim(p.Dim); err != nil {
		return Guarantee{}, wrap(key, err)
	}
	if err := checkPositive("diameter", p.Diameter); err != nil {
		return Guarantee{}, wrap(key, err)
	}
	if err := checkDelta(p.Delta); err != nil {
		return Guarantee{}, wrap(key, err)
	}
	switch {
	case p.Eps != 0 && p.M != 0:
		return Guarantee{}, fmt.Errorf("bound %s: set either ε (to solve for m) or m (to solve for ε), not both", key)
	case p.Eps == 0 && p.M == 0:
		return Guarantee{}, fmt.Errorf("bound %s: set ε (to solve for m) or m (to solve for ε)", key)
	case p.M == 0:
		if err := checkEps(p.Eps); err != nil {
			return Guarantee{}, wrap(key, err)
		}
	default:
		if err := checkM(p.M); err != nil {
			return Guarantee{}, wrap(key, err)
		}
	}
	g := Guarantee{
		Theorem: key, Source: th.source, Formula: th.formula, Delta: p.Delta,
		Inputs:  map[string]float64{"d": float64(p.Dim), "diameter": p.Diameter, "delta": p.Delta},
		Derived: map[string]float64{"tau": -math.Log(p.Delta)},
	}
	b, methodM, methodEps, err := th.build(p, &g)
	if err != nil {
		return Guarantee{}, wrap(key, err)
	}
	if p.M == 0 {
		g.Inputs["eps"] = p.Eps
		m, err := b.Points(p.Eps, p.Delta)
		if err != nil {
			return Guarantee{}, wrap(key, err)
		}
		g.Eps, g.M, g.Solved, g.Method = p.Eps, m, "m", methodM
	} else {
		g.Inputs["m"] = float64(p.M)
		e, err := b.Error(p.M, p.Delta)
		if err != nil {
			return Guarantee{}, wrap(key, err)
		}
		g.Eps, g.M, g.Solved, g.Method = e, p.M, "eps", methodEps
	}
	if key == "quadrature" {
		g.Derived["rules"] = math.Ceil(float64(g.M) / float64(2*(p.Dim+1)))
	}
	return g, nil
}

// wrap prefixes err with "bound " and the theorem's name, once: the errors of the bounds and of the spectra may
// start with the name, or with "bound: ", already. The result unwraps to err.
func wrap(key string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "bound: ")
	for _, name := range append(Names(), "ss-deriv") { // a theorem may report through another's code (ss-deriv-bounded)
		if m, ok := strings.CutPrefix(msg, name+": "); ok {
			msg = m
			break
		}
	}
	return renamed{"bound " + key + ": " + msg, err}
}

// renamed is an error with another message than the error it wraps.
type renamed struct {
	msg string
	err error
}

func (e renamed) Error() string { return e.msg }
func (e renamed) Unwrap() error { return e.err }

// spectrum resolves the kernel and bandwidth defaults and records them.
func spectrum(p Params, g *Guarantee) (Spectrum, error) {
	kernel := p.Kernel
	if strings.TrimSpace(kernel) == "" {
		kernel = "gaussian"
	}
	sigma := p.Sigma
	if sigma == 0 {
		sigma = math.Sqrt(float64(p.Dim) / 2)
		addNote(g, fmt.Sprintf("σ defaulted to sqrt(d/2) = %.6g (γ = 1/d)", sigma))
	}
	s, err := NewSpectrum(kernel, p.Dim, sigma, p.Nu)
	if err != nil {
		return s, err
	}
	g.Kernel = s.Kernel
	g.Inputs["sigma"] = sigma
	if s.Nu != 0 {
		g.Inputs["nu"] = s.Nu
	}
	return s, nil
}

// addNote appends a note once.
func addNote(g *Guarantee, note string) {
	for _, n := range g.Notes {
		if n == note {
			return
		}
	}
	g.Notes = append(g.Notes, note)
}

// secondMoment returns σ² = E‖ω‖² (override or kernel) and records it.
func secondMoment(p Params, g *Guarantee) (float64, error) {
	if p.SecondMoment != 0 {
		if err := checkPositive("second moment", p.SecondMoment); err != nil {
			return 0, err
		}
		g.Inputs["second_moment"] = p.SecondMoment
		return p.SecondMoment, nil
	}
	s, err := spectrum(p, g)
	if err != nil {
		return 0, err
	}
	s2, err := s.SecondMoment()
	if err != nil {
		return 0, err
	}
	g.Derived["second_moment"] = s2
	return s2, nil
}

func buildSSLinf(p Params, g *Guarantee) (Bound, string, string, error) {
	s2, err := secondMoment(p, g)
	if err != nil {
		return nil, "", "", err
	}
	t := SSLinf{Dim: p.Dim, Diameter: p.Diameter, SecondMoment: s2}
	h, err := t.H()
	g.Derived["h"] = h
	return t, closedForm, closedForm, err
}

func buildSSLr(p Params, g *Guarantee) (Bound, string, string, error) {
	s2, err := secondMoment(p, g)
	if err != nil {
		return nil, "", "", err
	}
	if p.R == 0 {
		return nil, "", "", fmt.Errorf("set r ≥ 1 for the L^r bound")
	}
	t := SSLr{Dim: p.Dim, Diameter: p.Diameter, SecondMoment: s2, R: p.R}
	f, err := t.Factor()
	if err != nil {
		return nil, "", "", err
	}
	if !math.IsInf(p.R, 1) {
		g.Inputs["r"] = p.R
	}
	h, _ := SSLinf{p.Dim, p.Diameter, s2}.H()
	g.Derived["h"], g.Derived["volume_factor"] = h, f
	return t, closedForm, closedForm, nil
}

func derivIndex(p Params, g *Guarantee) ([]int, int, error) {
	a, order, err := addIndex(p.P, p.Q, p.Dim)
	if err != nil {
		return nil, 0, err
	}
	g.Derived["order"] = float64(order)
	return a, order, nil
}

func buildSSDerivAuto(p Params, g *Guarantee) (Bound, string, string, error) {
	_, order, err := derivIndex(p, g)
	if err != nil {
		return nil, "", "", err
	}
	bounded := order == 0 || p.T != 0
	if !bounded {
		s, err := spectrum(p, g)
		if err != nil {
			return nil, "", "", err
		}
		bounded = s.BoundedSupport()
	}
	if bounded {
		g.Source, g.Formula = thm4Source, thm4Formula
		return buildSSDerivBounded(p, g)
	}
	g.Source, g.Formula = thm5Source, thm5Formula
	return buildSSDerivUnbounded(p, g)
}

func buildSSDerivBounded(p Params, g *Guarantee) (Bound, string, string, error) {
	a, order, err := derivIndex(p, g)
	if err != nil {
		return nil, "", "", err
	}
	t := SSDerivBounded{Dim: p.Dim, Diameter: p.Diameter, T: p.T, T2: p.T2, C2: p.C2}
	if p.T == 0 || p.T2 == 0 || p.C2 == 0 {
		s, err := spectrum(p, g)
		if err != nil {
			return nil, "", "", err
		}
		if order > 0 && !s.BoundedSupport() {
			return nil, "", "", fmt.Errorf("Theorem 4 needs a bounded spectral support for derivatives: the %s "+
				"kernel's is unbounded (use ss-deriv-unbounded, the sinc kernel, or give T, T2 and C2)", s.describe())
		}
		m1, err := s.Moments(a)
		if err != nil {
			return nil, "", "", err
		}
		m2, err := s.Moments(doubled(a))
		if err != nil {
			return nil, "", "", err
		}
		if t.T == 0 {
			t.T = m1.Sup
		}
		if t.T2 == 0 {
			t.T2 = m2.Sup
		}
		if t.C2 == 0 {
			t.C2 = m2.NormSq
		}
		if math.IsInf(t.C2, 1) {
			return nil, "", "", fmt.Errorf("C_{2p,2q} = E|ω^{2(p+q)}|‖ω‖² of the %s kernel: %w", s.describe(),
				ErrInfiniteMoment)
		}
	}
	h, err := t.H()
	if err != nil {
		return nil, "", "", err
	}
	g.Derived["t_pq"], g.Derived["t_2p2q"], g.Derived["c_2p2q"], g.Derived["h"] = t.T, t.T2, t.C2, h
	return t, closedForm, closedForm, nil
}

func buildSSDerivUnbounded(p Params, g *Guarantee) (Bound, string, string, error) {
	a, _, err := derivIndex(p, g)
	if err != nil {
		return nil, "", "", err
	}
	t := SSDerivUnbounded{Dim: p.Dim, Diameter: p.Diameter, BernsteinVar: p.BernsteinVar, BernsteinL: p.BernsteinL,
		GradSup: p.GradSup, NormMoment: p.NormMoment}
	var s Spectrum
	needKernel := t.BernsteinVar == 0 || t.BernsteinL == 0 || t.NormMoment == 0
	if needKernel {
		if s, err = spectrum(p, g); err != nil {
			return nil, "", "", err
		}
	}
	if t.BernsteinVar == 0 || t.BernsteinL == 0 {
		v, l, err := s.Bernstein(p.P, p.Q)
		if err != nil {
			return nil, "", "", err
		}
		if t.BernsteinVar == 0 {
			t.BernsteinVar = v
		}
		if t.BernsteinL == 0 {
			t.BernsteinL = l
		}
	}
	if t.NormMoment == 0 {
		m, err := s.Moments(a)
		if err != nil {
			return nil, "", "", err
		}
		if math.IsInf(m.Norm, 1) {
			return nil, "", "", fmt.Errorf("E_{p,q} = E|ω^{p+q}|‖ω‖ of the %s kernel: %w", s.describe(),
				ErrInfiniteMoment)
		}
		t.NormMoment = m.Norm
		if m.NormIsBound {
			g.Notes = append(g.Notes, "E_{p,q} replaced by its Cauchy–Schwarz upper bound (still a valid bound)")
		}
	}
	if t.GradSup == 0 {
		t.GradSup = t.NormMoment
		g.Notes = append(g.Notes, "D_{p,q,S} replaced by its upper bound E_{p,q} (still a valid bound)")
	}
	g.Derived["bernstein_var"], g.Derived["bernstein_l"] = t.BernsteinVar, t.BernsteinL
	g.Derived["d_pqs"], g.Derived["e_pq"], g.Derived["f_d"] = t.GradSup, t.NormMoment, Fd(p.Dim)
	return t, search, search, t.check()
}

func buildRR(p Params, g *Guarantee) (Bound, string, string, error) {
	s2, err := secondMoment(p, g)
	if err != nil {
		return nil, "", "", err
	}
	return RahimiRecht{Dim: p.Dim, Diameter: p.Diameter, SecondMoment: s2}, closedForm, search, nil
}

func buildSutherland(p Params, g *Guarantee) (Bound, string, string, error) {
	s2, err := secondMoment(p, g)
	if err != nil {
		return nil, "", "", err
	}
	v := p.VarSup
	if v == 0 {
		s, err := spectrum(p, g)
		if err != nil {
			return nil, "", "", err
		}
		if v, err = s.CosVarianceSup(p.Diameter); err != nil {
			return nil, "", "", err
		}
	}
	t := SutherlandSchneider{Dim: p.Dim, Diameter: p.Diameter, SecondMoment: s2, VarSup: v}
	g.Derived["var_sup"], g.Derived["beta_d"] = v, SutherlandBeta(p.Dim)
	g.Notes = append(g.Notes, "the paper's D counts columns (2 per frequency); m here counts frequencies (D = 2m)")
	return t, closedForm, search, t.check()
}

// gaussianOnly resolves the spectrum and requires the Gaussian kernel.
func gaussianOnly(p Params, g *Guarantee, what string) (Spectrum, error) {
	s, err := spectrum(p, g)
	if err != nil {
		return s, err
	}
	if s.Kernel != "gaussian" {
		return s, fmt.Errorf("%s assumes a Gaussian spectral law (kernel gaussian), got %s; use sutherland or "+
			"ss-linf for other kernels", what, s.describe())
	}
	return s, nil
}

func quadratureBound(p Params, g *Guarantee) (Quadrature, error) {
	s, err := gaussianOnly(p, g, "Proposition 3.1")
	if err != nil {
		return Quadrature{}, err
	}
	s2, err := secondMoment(p, g)
	if err != nil {
		return Quadrature{}, err
	}
	t := Quadrature{Dim: p.Dim, Diameter: p.Diameter, SecondMoment: s2, Kappa: p.Kappa, Mu: p.Mu, CurvM: p.CurvM}
	if t.Kappa == 0 {
		t.Kappa = 1
	}
	if t.Mu == 0 {
		t.Mu = 1
	}
	if t.CurvM == 0 {
		l := p.Diameter / s.Sigma
		t.CurvM = math.Max(0.5, l*l/2)
		if t.CurvM > 0.5 {
			g.Notes = append(g.Notes, fmt.Sprintf("M = ℓ²/(2σ²) = %.6g: the paper's M = 1/2 holds only for ℓ ≤ σ",
				t.CurvM))
		}
	}
	g.Derived["kappa"], g.Derived["mu"], g.Derived["curv_m"] = t.Kappa, t.Mu, t.CurvM
	g.Derived["beta_d"] = QuadratureBeta(p.Dim)
	return t, t.check()
}

func buildQuadrature(p Params, g *Guarantee) (Bound, string, string, error) {
	t, err := quadratureBound(p, g)
	if err != nil {
		return nil, "", "", err
	}
	g.Notes = append(g.Notes, "D counts SR points, 2(d+1) per rule (derived \"rules\" = ⌈D/(2(d+1))⌉)")
	return t, closedForm, search, nil
}

func buildQuadratureRFF(p Params, g *Guarantee) (Bound, string, string, error) {
	if _, err := gaussianOnly(p, g, "the RFF counterpart of Proposition 3.1"); err != nil {
		return nil, "", "", err
	}
	s2, err := secondMoment(p, g)
	if err != nil {
		return nil, "", "", err
	}
	g.Derived["beta_d"] = QuadratureBeta(p.Dim)
	return QuadratureRFF{Dim: p.Dim, Diameter: p.Diameter, SecondMoment: s2}, closedForm, search, nil
}

func buildKRR(p Params, g *Guarantee) (Bound, string, string, error) {
	if p.Lambda0 == 0 {
		return nil, "", "", errors.New("set λ₀ = λ/n > 0 for the kernel ridge bound (Params.Lambda0; rff bound --lambda0)")
	}
	sy := p.SigmaY
	if sy == 0 {
		sy = 1
		g.Notes = append(g.Notes, "σ_y defaulted to 1 (standardized labels)")
	}
	var kb Bound
	switch strings.ToLower(strings.TrimSpace(p.Features)) {
	case "", "sr", "quadrature":
		t, err := quadratureBound(p, g)
		if err != nil {
			return nil, "", "", err
		}
		kb = t
	case "rff", "g":
		b, _, _, err := buildQuadratureRFF(p, g)
		if err != nil {
			return nil, "", "", err
		}
		kb = b
		g.Formula = "P(|ĥ(x)−h(x)| ≥ ε) ≤ P(sup|k̂−k| ≥ λ₀²ε/(σ_y(λ₀+1))), with the RFF counterpart of " +
			"Proposition 3.1 for the kernel error"
	default:
		return nil, "", "", fmt.Errorf("unknown features %q for krr (want sr or rff)", p.Features)
	}
	t := KRR{Kernel: kb, SigmaY: sy, Lambda0: p.Lambda0}
	c, err := t.Scale()
	if err != nil {
		return nil, "", "", err
	}
	g.Inputs["sigma_y"], g.Inputs["lambda0"], g.Derived["kernel_eps_scale"] = sy, p.Lambda0, c
	return t, closedForm, search, nil
}

func buildORFF(p Params, g *Guarantee) (Bound, string, string, error) {
	s, err := gaussianOnly(p, g, "the ORFF constants of docs/conventions.md §4")
	if err != nil {
		return nil, "", "", err
	}
	kind := p.OVK
	if strings.TrimSpace(kind) == "" {
		kind = "curl-free"
		g.Notes = append(g.Notes, "operator-valued kernel defaulted to curl-free")
	}
	o := ORFF{Kind: kind, Dim: p.Dim, Outputs: p.Outputs, Sigma: s.Sigma, NormA: p.NormA, Diameter: p.Diameter,
		ExactVariance: p.ExactVariance, PrintedUBar: p.PrintedUBar}
	if k, _ := normKind(kind); k == "decomposable" {
		if o.Outputs == 0 {
			o.Outputs = 1
			g.Notes = append(g.Notes, "output count p defaulted to 1")
		}
		if o.NormA == 0 {
			o.NormA = 1
			g.Notes = append(g.Notes, "‖A‖₂ defaulted to 1")
		}
		g.Inputs["outputs"], g.Inputs["norm_a"] = float64(o.Outputs), o.NormA
	}
	terms, err := o.Terms()
	if err != nil {
		return nil, "", "", err
	}
	for k, v := range terms {
		g.Derived[k] = v
	}
	if p.PrintedUBar {
		g.Notes = append(g.Notes, "ū = 2m·log(2^{3/2}(m/b)²) as printed (not scale-invariant)")
	} else {
		g.Notes = append(g.Notes, "ū = 2m·log(2^{3/2}m²/b), the scale-invariant reading of the printed (m/b)²")
	}
	if p.ExactVariance {
		g.Notes = append(g.Notes, "exact V[A] used (3(d−1)/σ⁴ for div-free instead of the printed d(4d−3)/σ⁴)")
	}
	return o, closedForm, search, nil
}
