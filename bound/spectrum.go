package bound

import (
	"fmt"
	"math"
	"strings"
)

// Spectrum is the spectral law Λ of a shift-invariant kernel k(x,y) = E_{ω~Λ}[cos(ωᵀ(x−y))] with bandwidth σ in
// dimension d (the conventions of package kernel and docs/conventions.md §2), seen through the moments the theorems need.
//
// Kernels (σ = Sigma, c = 1/σ):
//   - "gaussian" (alias "rbf"): exp(−‖δ‖²/(2σ²)); Λ = N(0, c²I).
//   - "laplacian": exp(−‖δ‖₁/σ); Λ = iid Cauchy(0, c) per coordinate. No moment of order ≥ 1 is finite.
//   - "matern12", "matern32", "matern52", or "matern" with Nu: Matérn ν on ‖δ‖₂; Λ = multivariate Student-t
//     with 2ν degrees of freedom and scale c (ω = z·sqrt(2ν/g)·c, z ~ N(0,I), g ~ χ²_{2ν}). Moments of total order
//     j are finite iff j < 2ν.
//   - "cauchy": Π_i 1/(1+δ_i²/σ²); Λ = iid Laplace(0, c) per coordinate. Every moment is finite.
//   - "sinc": Π_i sin(δ_i/σ)/(δ_i/σ); Λ = uniform on the cube [−c, c]^d — the one kernel here with bounded spectral
//     support, as Theorem 4 of Sriperumbudur & Szabó requires for derivatives. (Not in package kernel.)
type Spectrum struct {
	Kernel string
	Dim    int
	Sigma  float64
	// Nu is the Matérn smoothness ν when Kernel is "matern" (set automatically for matern12/32/52).
	Nu float64
}

// NewSpectrum validates and normalizes a kernel name, dimension and bandwidth (nu is used only by "matern").
// The methods of a Spectrum built as a struct literal normalize and validate it the same way.
func NewSpectrum(kernel string, d int, sigma, nu float64) (Spectrum, error) {
	name := strings.ToLower(strings.TrimSpace(kernel))
	if name == "matern" && nu == 0 {
		return Spectrum{}, fmt.Errorf("bound: the matern kernel needs ν > 0")
	}
	if err := checkDim(d); err != nil {
		return Spectrum{}, err
	}
	if err := checkPositive("bandwidth σ", sigma); err != nil {
		return Spectrum{}, err
	}
	s := Spectrum{Kernel: name, Dim: d, Sigma: sigma}
	switch name {
	case "gaussian", "rbf":
		s.Kernel = "gaussian"
	case "laplacian", "cauchy", "sinc":
	case "matern12":
		s.Nu = 0.5
	case "matern32":
		s.Nu = 1.5
	case "matern52":
		s.Nu = 2.5
	case "matern":
		if err := checkPositive("Matérn ν", nu); err != nil {
			return Spectrum{}, err
		}
		s.Nu = nu
	default:
		return Spectrum{}, fmt.Errorf("bound: unknown kernel %q (want gaussian, laplacian, matern12, matern32, "+
			"matern52, matern, cauchy or sinc)", kernel)
	}
	return s, nil
}

// SecondMoment returns σ² = E‖ω‖² of the spectral law of the named kernel with bandwidth sigma in dimension d
// (the σ² of Sriperumbudur & Szabó, Theorem 1, and σ_p² of Rahimi & Recht and Sutherland & Schneider):
//
//	gaussian: d/σ²;  matern ν > 1: dν/((ν−1)σ²) (3d/σ² for ν = 3/2, 5d/(3σ²) for ν = 5/2);
//	cauchy: 2d/σ²;  sinc: d/(3σ²);  laplacian and matern ν ≤ 1: +Inf.
//
// When the moment is infinite it returns +Inf together with an error wrapping [ErrInfiniteMoment].
func SecondMoment(kernel string, d int, sigma float64) (float64, error) {
	s, err := NewSpectrum(kernel, d, sigma, 0)
	if err != nil {
		return 0, err
	}
	return s.SecondMoment()
}

// SecondMoment returns σ² = E‖ω‖² (see the function [SecondMoment]); +Inf and an error wrapping
// [ErrInfiniteMoment] when it is infinite.
func (s Spectrum) SecondMoment() (float64, error) {
	s, err := s.normalized()
	if err != nil {
		return 0, err
	}
	m, err := s.Moments(nil)
	if err != nil {
		return 0, err
	}
	if math.IsInf(m.NormSq, 1) {
		return m.NormSq, fmt.Errorf("bound: E‖ω‖² of the %s kernel: %w", s.describe(), ErrInfiniteMoment)
	}
	return m.NormSq, nil
}

func (s Spectrum) describe() string {
	if strings.HasPrefix(s.Kernel, "matern") {
		return fmt.Sprintf("Matérn ν=%g", s.Nu)
	}
	return s.Kernel
}

// normalized returns s passed through NewSpectrum (so struct literals behave like constructed values).
func (s Spectrum) normalized() (Spectrum, error) {
	nu := s.Nu
	if nu == 0 {
		switch strings.ToLower(strings.TrimSpace(s.Kernel)) {
		case "matern12":
			nu = 0.5
		case "matern32":
			nu = 1.5
		case "matern52":
			nu = 2.5
		}
	}
	return NewSpectrum(s.Kernel, s.Dim, s.Sigma, nu)
}

// BoundedSupport reports whether the spectral law has bounded support (only "sinc" here).
func (s Spectrum) BoundedSupport() bool {
	return strings.ToLower(strings.TrimSpace(s.Kernel)) == "sinc"
}

// Moments are the mixed spectral moments of one multi-index a (|ω^a| = Π_i |ω_i|^{a_i}) that the derivative
// theorems of Sriperumbudur & Szabó use. With a = p+q: Sup = T_{p,q}, NormSq = C_{p,q} (and with a = 2(p+q):
// Sup = T_{2p,2q}, NormSq = C_{2p,2q}), Norm = E_{p,q}. Infinite moments are +Inf (no error).
type Moments struct {
	// Abs is E|ω^a|.
	Abs float64
	// Norm is E[|ω^a|·‖ω‖₂] (E_{p,q} of Theorem 5).
	Norm float64
	// NormIsBound is true when Norm is the Cauchy–Schwarz upper bound sqrt(Abs·NormSq) instead of the exact value
	// (cauchy and sinc kernels in d > 1; the theorems stay valid since they increase with this moment).
	NormIsBound bool
	// NormSq is E[|ω^a|·‖ω‖₂²] (C_{p,q} of Theorem 4); with a = 0 it is σ² = E‖ω‖².
	NormSq float64
	// Sup is sup_{ω ∈ supp Λ} |ω^a| (T_{p,q} of Theorem 4): 1 for a = 0, +Inf for unbounded support.
	Sup float64
}

// Moments returns the mixed moments of the multi-index a (nil or all zeros: a = 0). a must have length 0 or d
// with non-negative entries.
//
// Closed forms, with c = 1/σ, M_a = E|ω^a| and κ = (|a|+d)/2:
//
//	gaussian: E|ω_i|^k = c^k 2^{k/2} Γ((k+1)/2)/√π;  NormSq = M_a c²(|a|+d);  Norm = M_a c √2 Γ(κ+½)/Γ(κ)
//	          (exact, from ‖ω‖ = (2√π)⁻¹∫₀^∞ (1−e^{−t‖ω‖²}) t^{−3/2} dt).
//	matern:   ω = z·sqrt(2ν/g)·c, so E|ω^a|‖ω‖^j = c^{|a|+j} (2ν)^{(|a|+j)/2} E[g^{−(|a|+j)/2}] E|z^a|‖z‖^j with
//	          E[g^{−t}] = 2^{−t} Γ(ν−t)/Γ(ν), finite iff t < ν.
//	cauchy:   E|ω_i|^k = k! c^k (Laplace); sinc: E|ω_i|^k = c^k/(k+1) (uniform), Sup = c^{|a|}.
//	laplacian: E|ω_i|^k = +Inf for k ≥ 1.
func (s Spectrum) Moments(a []int) (Moments, error) {
	s, err := s.normalized()
	if err != nil {
		return Moments{}, err
	}
	d := s.Dim
	// A nil a is the zero multi-index, handled without materializing d zeros: every closed form below is a product
	// (or sum) over the coordinates in which zero entries contribute a known factor, so the cost is O(len(a)), not
	// O(d) — d may be as large as an int allows.
	if a != nil && len(a) != d {
		return Moments{}, fmt.Errorf("bound: multi-index has length %d, want d = %d", len(a), d)
	}
	order := 0
	for _, ai := range a {
		if ai < 0 {
			return Moments{}, fmt.Errorf("bound: multi-index entries must be ≥ 0, got %v", a)
		}
		if ai > 2*maxOrder-order {
			return Moments{}, fmt.Errorf("bound: moments of order above %d are refused", 2*maxOrder)
		}
		order += ai
	}
	c := 1 / s.Sigma
	inf := math.Inf(1)
	switch s.Kernel {
	case "gaussian":
		abs, norm, nsq := gaussMixed(a, order, d)
		return Moments{
			Abs:    abs * math.Pow(c, float64(order)),
			Norm:   norm * math.Pow(c, float64(order+1)),
			NormSq: nsq * math.Pow(c, float64(order+2)),
			Sup:    supUnbounded(order),
		}, nil
	case "matern", "matern12", "matern32", "matern52":
		abs, norm, nsq := gaussMixed(a, order, d)
		n := 2 * s.Nu
		mix := func(j int) float64 { // c^t n^{t/2} E[g^{-t/2}], t = order + j
			t := float64(order+j) / 2
			if t >= s.Nu {
				return inf
			}
			lg1, _ := math.Lgamma(s.Nu - t)
			lg2, _ := math.Lgamma(s.Nu)
			return math.Pow(c, 2*t) * math.Pow(n, t) * math.Exp(-t*math.Ln2+lg1-lg2)
		}
		return Moments{Abs: abs * mix(0), Norm: norm * mix(1), NormSq: nsq * mix(2), Sup: supUnbounded(order)}, nil
	case "laplacian":
		m := Moments{Abs: 1, Norm: inf, NormSq: inf, Sup: supUnbounded(order)}
		if order > 0 {
			m.Abs = inf
		}
		return m, nil
	case "cauchy", "sinc":
		abs1 := func(k int) float64 { // E|ω_i|^k
			if s.Kernel == "cauchy" {
				return math.Gamma(float64(k)+1) * math.Pow(c, float64(k))
			}
			return math.Pow(c, float64(k)) / float64(k+1)
		}
		abs := 1.0
		for _, ai := range a {
			abs *= abs1(ai)
		}
		var nsq float64
		if a == nil {
			nsq = float64(d) * abs1(2) // d equal terms abs/abs1(0)·abs1(2), abs = abs1(0) = 1
		}
		for _, ai := range a {
			nsq += abs / abs1(ai) * abs1(ai+2)
		}
		m := Moments{Abs: abs, NormSq: nsq, Sup: supUnbounded(order)}
		if s.Kernel == "sinc" {
			m.Sup = math.Pow(c, float64(order))
		}
		if d == 1 {
			a0 := 0
			if a != nil {
				a0 = a[0]
			}
			m.Norm = abs1(a0 + 1)
		} else {
			m.Norm = math.Sqrt(abs * nsq)
			m.NormIsBound = true
		}
		return m, nil
	}
	return Moments{}, fmt.Errorf("bound: unknown kernel %q", s.Kernel)
}

func supUnbounded(order int) float64 {
	if order == 0 {
		return 1
	}
	return math.Inf(1)
}

// gaussAbs returns E|z|^k for z ~ N(0,1): 2^{k/2} Γ((k+1)/2)/√π.
func gaussAbs(k int) float64 {
	lg, _ := math.Lgamma(float64(k+1) / 2)
	return math.Exp(float64(k)/2*math.Ln2 + lg - 0.5*math.Log(math.Pi))
}

// gaussMixed returns E|z^a|, E|z^a|‖z‖ and E|z^a|‖z‖² for z ~ N(0, I_d).
func gaussMixed(a []int, order, d int) (abs, norm, normSq float64) {
	abs = 1
	for _, ai := range a {
		abs *= gaussAbs(ai)
	}
	kappa := float64(order+d) / 2
	lg1, _ := math.Lgamma(kappa + 0.5)
	lg2, _ := math.Lgamma(kappa)
	norm = abs * math.Sqrt2 * math.Exp(lg1-lg2)
	normSq = abs * float64(order+d)
	return abs, norm, normSq
}

// Bernstein returns constants (variance σ_B², scale L) for which the moment condition (*)₂ of Sriperumbudur &
// Szabó's Theorem 5 holds for the derivative ∂^{p,q}:
//
//	E|f(z;ω)|^M ≤ M! σ_B² L^{M−2}/2 for all M ≥ 2,   f(z;ω) = ∂^{p,q}k(z) − ω^p(−ω)^q h_{|p+q|}(ωᵀz).
//
// Derivation (a = p+q, |f| ≤ |E g| + |g| with |g| ≤ |ω^a|, so E|f|^M ≤ 2^M E|ω^a|^M by Jensen):
//   - |a| = 0, any kernel: |f| ≤ 2 and E f² ≤ 1, so (Remark 5) σ_B² = 1, L = 4.
//   - sinc (bounded support): |f| ≤ 2T_{p,q}, E f² ≤ E ω^{2a}, so σ_B² = E ω^{2a}, L = 4T_{p,q}.
//   - gaussian, |a| = 1: E|ω_i|^M = c^M 2^{M/2}Γ((M+1)/2)/√π gives σ_B² = 4c², L = 2√2·c.
//   - gaussian, |a| = 2: E|ω^a|^M ≤ E|ω_i|^{2M} = c^{2M}(2M−1)!! and (2M)!/(M!)² ≤ 4^M give σ_B² = 32c⁴, L = 4c².
//   - cauchy, |a| = 1: E|ω_i|^M = M! c^M gives σ_B² = 8c², L = 2c.
//
// Otherwise the moments of |ω^a| grow faster than M!·L^M (gaussian |a| ≥ 3, cauchy |a| ≥ 2) or are infinite
// (laplacian, matern), the condition fails and Bernstein returns an error.
func (s Spectrum) Bernstein(p, q []int) (variance, L float64, err error) {
	if s, err = s.normalized(); err != nil {
		return 0, 0, err
	}
	a, order, err := addIndex(p, q, s.Dim)
	if err != nil {
		return 0, 0, err
	}
	if order == 0 {
		return 1, 4, nil
	}
	c := 1 / s.Sigma
	switch {
	case s.Kernel == "sinc":
		m2, err := s.Moments(doubled(a))
		if err != nil {
			return 0, 0, err
		}
		return m2.Abs, 4 * math.Pow(c, float64(order)), nil
	case s.Kernel == "gaussian" && order == 1:
		return 4 * c * c, 2 * math.Sqrt2 * c, nil
	case s.Kernel == "gaussian" && order == 2:
		return 32 * math.Pow(c, 4), 4 * c * c, nil
	case s.Kernel == "cauchy" && order == 1:
		return 8 * c * c, 2 * c, nil
	}
	return 0, 0, fmt.Errorf("bound: the Bernstein moment condition of Theorem 5 fails for the %s kernel with "+
		"|p+q| = %d (the moments of |ω^{p+q}| grow too fast or are infinite)", s.describe(), order)
}

// doubled returns 2a (nil for nil, the zero multi-index).
func doubled(a []int) []int {
	if a == nil {
		return nil
	}
	a2 := make([]int, len(a))
	for i, v := range a {
		a2[i] = 2 * v
	}
	return a2
}

// maxOrder is the largest order |p| (and |q|) of a derivative multi-index, as kernel.MaxDerivOrder: far beyond it no
// moment or derivative of these kernels fits in float64.
const maxOrder = 1024

// addIndex returns p+q (each nil or of length d) and its order |p+q|; nil (the zero multi-index, without
// materializing d zeros) when both are nil. It refuses |p| or |q| above 1024. The lengths are checked before the d
// entries of p+q are allocated, so a short multi-index with a huge d is an error, not a huge allocation.
func addIndex(p, q []int, d int) ([]int, int, error) {
	if p == nil && q == nil {
		return nil, 0, nil
	}
	for _, v := range [][]int{p, q} {
		if v != nil && len(v) != d {
			return nil, 0, fmt.Errorf("bound: multi-index of length %d, want d = %d", len(v), d)
		}
	}
	a := make([]int, d)
	for _, v := range [][]int{p, q} {
		if v == nil {
			continue
		}
		n := 0
		for i, vi := range v {
			if vi < 0 {
				return nil, 0, fmt.Errorf("bound: multi-index entry %d is %d; entries must be ≥ 0", i+1, vi)
			}
			if vi > maxOrder-n {
				return nil, 0, fmt.Errorf("bound: multi-index order exceeds %d", maxOrder)
			}
			n += vi
			a[i] += vi
		}
	}
	order := 0
	for _, ai := range a {
		order += ai
	}
	return a, order, nil
}

// CosVarianceSup returns sup over δ with ‖δ‖₂ ≤ diameter of Var[cos(ωᵀδ)] = ½ + ½k(2δ) − k(δ)², the quantity
// inside Sutherland & Schneider's α_ε = min(1, sup Var + ε/3). X − X lies in the ball of radius |X|, so the sup
// over that ball bounds the sup over X.
//
//	gaussian: ½(1 − e^{−ℓ²/σ²})² (closed form, increasing in ℓ);
//	laplacian: k(2δ) = k(δ)², so ½(1 − e^{−2√d·ℓ/σ}) (max of ‖δ‖₁ on the ball is √d·ℓ);
//	matern: maximized numerically over r = ‖δ‖ ∈ [0, ℓ] (dense grid + golden-section refinement);
//	cauchy, sinc: 1 (the trivial bound; α_ε is then 1).
func (s Spectrum) CosVarianceSup(diameter float64) (float64, error) {
	s, err := s.normalized()
	if err != nil {
		return 0, err
	}
	if err := checkPositive("diameter", diameter); err != nil {
		return 0, err
	}
	l := diameter / s.Sigma
	switch s.Kernel {
	case "gaussian":
		t := -math.Expm1(-l * l)
		return 0.5 * t * t, nil
	case "laplacian":
		return -0.5 * math.Expm1(-2*math.Sqrt(float64(s.Dim))*l), nil
	case "matern", "matern12", "matern32", "matern52":
		k := maternRadial(s.Nu)
		if k == nil {
			return 1, nil
		}
		v := func(r float64) float64 { kr := k(r); return 0.5 + 0.5*k(2*r) - kr*kr }
		return maximize(v, 0, l), nil
	}
	return 1, nil
}

// maternRadial returns the Matérn ν ∈ {1/2, 3/2, 5/2} profile in r = ‖δ‖/σ (nil for other ν).
func maternRadial(nu float64) func(float64) float64 {
	switch nu {
	case 0.5:
		return func(r float64) float64 { return math.Exp(-r) }
	case 1.5:
		return func(r float64) float64 { t := math.Sqrt(3) * r; return (1 + t) * math.Exp(-t) }
	case 2.5:
		return func(r float64) float64 { t := math.Sqrt(5) * r; return (1 + t + t*t/3) * math.Exp(-t) }
	}
	return nil
}

// maximize returns max of f on [lo, hi]: a grid of 4097 points, then golden-section refinement around the best.
func maximize(f func(float64) float64, lo, hi float64) float64 {
	const n = 4096
	best, bi := math.Inf(-1), 0
	step := (hi - lo) / n
	for i := 0; i <= n; i++ {
		if v := f(lo + float64(i)*step); v > best {
			best, bi = v, i
		}
	}
	a := lo + float64(max(bi-1, 0))*step
	b := lo + float64(min(bi+1, n))*step
	g := (math.Sqrt(5) - 1) / 2
	for i := 0; i < 100 && b-a > 1e-15*(1+math.Abs(a)); i++ {
		c, d := b-g*(b-a), a+g*(b-a)
		if f(c) >= f(d) {
			b = d
		} else {
			a = c
		}
		if v := f((a + b) / 2); v > best {
			best = v
		}
	}
	return best
}
