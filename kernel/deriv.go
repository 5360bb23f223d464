package kernel

import (
	"errors"
	"fmt"
	"math"
)

// Differentiable is a shift-invariant kernel k(x,y) = κ(x−y) whose partial derivatives are known in closed form.
//
// For multi-indices p, q ∈ ℕ^d, ∂^{p,q}k(x,y) = ∂^{|p|}/∂x^p ∂^{|q|}/∂y^q k(x,y) (Sriperumbudur & Szabó 2015,
// "Kernel derivative approximation"; docs/conventions.md §6). Because k depends on x−y only,
//
//	∂^{p,q}k(x,y) = (−1)^{|q|} (∂^{p+q}κ)(x−y) = ∫ ω^p (−ω)^q h_{|p+q|}(ωᵀ(x−y)) dΛ(ω),   h_n = cos⁽ⁿ⁾,
//
// the second form being the spectral representation that random features estimate (package feature).
type Differentiable interface {
	Kernel
	// Deriv returns ∂^{p,q}k(x,y). p and q have length len(x) (nil means the zero multi-index); it returns an
	// error if a length does not match, an entry is negative, or |p|+|q| exceeds MaxOrder. A derivative beyond the
	// float64 range is ±Inf and one below it 0 or subnormal, correctly signed, even where a factor of its closed
	// form (a Hermite polynomial, a factorial, the kernel's value) leaves the range on its own.
	Deriv(x, y []float64, p, q []int) (float64, error)
	// MaxOrder is the largest total order |p|+|q| for which ∂^{p,q}k exists everywhere on R^d × R^d
	// (math.MaxInt when the kernel is infinitely differentiable).
	MaxOrder() int
}

// Deriv returns ∂^{p,q}k(x,y) for a [Differentiable] kernel; for p = q = 0 (or nil) it is k.Eval(x, y) for any
// kernel. It returns an error for a kernel without closed-form derivatives (the arc-cosine kernels) and for the
// user errors listed at [Differentiable].Deriv.
func Deriv(k Kernel, x, y []float64, p, q []int) (float64, error) {
	if isNil(k) {
		return 0, errors.New("kernel.Deriv: nil kernel")
	}
	if dk, ok := k.(Differentiable); ok {
		return dk.Deriv(x, y, p, q)
	}
	if len(x) != len(y) {
		return 0, fmt.Errorf("kernel %s: x has %d coordinates, y has %d", k.Name(), len(x), len(y))
	}
	n, err := pairOrder(k, p, q, len(x))
	if err != nil {
		return 0, err
	}
	if n > 0 {
		return 0, fmt.Errorf("kernel %s has no closed-form derivatives (order %d asked)", k.Name(), n)
	}
	return k.Eval(x, y), nil
}

// MaxDerivOrder is the largest order |p| a multi-index may have. Far beyond it no derivative of a kernel here fits
// in float64 (|∂ⁿk(0)| grows like n!/σⁿ or (n−1)!!/σⁿ, past 10³⁰⁸ from n ≈ 170 on at σ = 1), and the cost of
// evaluating one grows with the order.
const MaxDerivOrder = 1024

// MultiIndexOrder validates a multi-index p ∈ ℕ^d and returns its order |p| = Σ p_i. A nil p is the zero
// multi-index of any length. It returns an error if len(p) ≠ d, an entry is negative, or |p| > [MaxDerivOrder].
func MultiIndexOrder(p []int, d int) (int, error) {
	if p == nil {
		return 0, nil
	}
	if len(p) != d {
		return 0, fmt.Errorf("multi-index has %d entries, want %d (one per input coordinate)", len(p), d)
	}
	n := 0
	for i, v := range p {
		if v < 0 {
			return 0, fmt.Errorf("multi-index entry %d is %d; orders must be non-negative", i+1, v)
		}
		if v > MaxDerivOrder-n {
			return 0, fmt.Errorf("multi-index order exceeds %d (entry %d is %d)", MaxDerivOrder, i+1, v)
		}
		n += v
	}
	return n, nil
}

// pairOrder validates p and q for inputs of dimension d and returns |p|+|q|.
func pairOrder(k Kernel, p, q []int, d int) (int, error) {
	np, err := MultiIndexOrder(p, d)
	if err != nil {
		return 0, fmt.Errorf("kernel %s: p: %w", k.Name(), err)
	}
	nq, err := MultiIndexOrder(q, d)
	if err != nil {
		return 0, fmt.Errorf("kernel %s: q: %w", k.Name(), err)
	}
	return np + nq, nil
}

// derivSetup checks the shared preconditions of every Deriv method and returns δ = x − y, α = p + q and the sign
// (−1)^{|q|} of ∂^{p,q}k(x,y) = (−1)^{|q|}(∂^α κ)(δ).
func derivSetup(k Differentiable, x, y []float64, p, q []int) (delta []float64, alpha []int, sign float64, err error) {
	d := len(x)
	if len(y) != d {
		return nil, nil, 0, fmt.Errorf("kernel %s: x has %d coordinates, y has %d", k.Name(), d, len(y))
	}
	if d == 0 {
		return nil, nil, 0, fmt.Errorf("kernel %s: empty input", k.Name())
	}
	n, err := pairOrder(k, p, q, d)
	if err != nil {
		return nil, nil, 0, err
	}
	if n > k.MaxOrder() {
		return nil, nil, 0, fmt.Errorf("kernel %s: derivative of total order %d does not exist (at most %d)",
			k.Name(), n, k.MaxOrder())
	}
	delta = make([]float64, d)
	alpha = make([]int, d)
	sign = 1
	for i := range delta {
		delta[i] = x[i] - y[i]
		if p != nil {
			alpha[i] += p[i]
		}
		if q != nil {
			alpha[i] += q[i]
			if q[i]%2 == 1 {
				sign = -sign
			}
		}
	}
	return delta, alpha, sign, nil
}

// MaxOrder is unlimited: the Gaussian is infinitely differentiable.
func (k Gaussian) MaxOrder() int { return math.MaxInt }

// Deriv returns ∂^{p,q}k(x,y) for the Gaussian kernel. The kernel factorizes over coordinates,
// κ(δ) = Π_i exp(−δ_i²/(2σ²)), and each factor has the closed-form derivatives
//
//	dⁿ/dtⁿ exp(−t²/(2σ²)) = (−1/σ)ⁿ Heₙ(t/σ) exp(−t²/(2σ²)),
//
// with Heₙ the probabilists' Hermite polynomials (He₀ = 1, He₁ = u, Heₙ₊₁ = u·Heₙ − n·Heₙ₋₁), so every order is
// available; ∂/∂y_i = −∂/∂x_i gives the sign (−1)^{|q|}.
func (k Gaussian) Deriv(x, y []float64, p, q []int) (float64, error) {
	delta, alpha, sign, err := derivSetup(k, x, y, p, q)
	if err != nil {
		return 0, err
	}
	if hasNaN(delta) { // as Eval
		return math.NaN(), nil
	}
	v, inRange := sign, true
	var s2 float64
	for i, t := range delta {
		u := t / k.S
		s2 += u * u
		if n := alpha[i]; n > 0 {
			h := hermiteHe(n, u)
			f := h * math.Pow(-1/k.S, float64(n))
			v *= f
			inRange = inRange && normal(f) && (f != 0 || h == 0) && normal(v)
		}
	}
	e := math.Exp(-s2 / 2)
	if r := v * e; inRange && positive(e) && normal(r) && (r != 0 || v == 0) {
		return r, nil
	}
	return k.derivX(delta, alpha, sign), nil
}

// hermiteHe evaluates the probabilists' Hermite polynomial Heₙ(u) by its three-term recurrence.
func hermiteHe(n int, u float64) float64 {
	h0, h1 := 1.0, u
	if n == 0 {
		return h0
	}
	for j := 1; j < n; j++ {
		h0, h1 = h1, u*h1-float64(j)*h0
	}
	return h1
}

// MaxOrder is 0: the Laplacian exp(−‖δ‖₁/σ) is not differentiable where a coordinate of δ vanishes (and its
// Cauchy spectral law has no mean, so the derivative features would not have one either).
func (k Laplacian) MaxOrder() int { return 0 }

// Deriv returns k(x,y) for p = q = 0 and an error for any other order (see [Laplacian.MaxOrder]).
func (k Laplacian) Deriv(x, y []float64, p, q []int) (float64, error) {
	if _, _, _, err := derivSetup(k, x, y, p, q); err != nil {
		return 0, err
	}
	return k.Eval(x, y), nil
}

// MaxOrder is unlimited: the Cauchy kernel Π_i 1/(1+δ_i²/σ²) is infinitely differentiable (its Laplace spectral
// law has moments of every order).
func (k Cauchy) MaxOrder() int { return math.MaxInt }

// Deriv returns ∂^{p,q}k(x,y) for the Cauchy kernel. Each coordinate factor f(t) = 1/(1+t²/σ²) has, with u = t/σ,
//
//	f⁽ⁿ⁾(t) = σ⁻ⁿ (−1)ⁿ n! Im[(u − i)^{−(n+1)}],
//
// from 1/(1+u²) = Im[1/(u − i)].
func (k Cauchy) Deriv(x, y []float64, p, q []int) (float64, error) {
	delta, alpha, sign, err := derivSetup(k, x, y, p, q)
	if err != nil {
		return 0, err
	}
	if hasNaN(delta) { // as Eval
		return math.NaN(), nil
	}
	v, inRange := sign, true
	for i, t := range delta {
		u := t / k.S
		n := alpha[i]
		// w = 1/(u − i) = (u + i)/(u² + 1); raise to the power n+1 by repeated complex multiplication.
		den := 1 + u*u
		wr, wi := u/den, 1/den
		pr, pi := wr, wi
		fact := 1.0
		for j := 1; j <= n; j++ {
			pr, pi = pr*wr-pi*wi, pr*wi+pi*wr
			fact *= float64(j)
		}
		f := fact * pi * math.Pow(-1/k.S, float64(n))
		v *= f
		// A power of w that underflowed (to 0 or a subnormal, also in pr) or a factorial that overflowed: again
		// with scaled factors. Im w^{n+1} = 0 exactly only for u = 0 and n odd, where pr is ±1-sized.
		inRange = inRange && positive(fact) && normal(pi) && normal(pr) && (pi != 0 || positive(pr)) &&
			normal(f) && (f != 0 || pi == 0) && normal(v)
	}
	if inRange {
		return v, nil
	}
	return k.derivX(delta, alpha, sign), nil
}

// maternHalf reports whether ν is one of the supported half-integers 1/2, 3/2, 5/2, and returns n = ν − 1/2.
func (k Matern) maternHalf() (int, bool) {
	switch k.Nu {
	case 0.5:
		return 0, true
	case 1.5:
		return 1, true
	case 2.5:
		return 2, true
	}
	return 0, false
}

// MaxOrder is 2ν − 1 for ν ∈ {1/2, 3/2, 5/2}, that is 0, 2 and 4, and −1 (no derivative, not even the value)
// for an unsupported ν. The Matérn kernel of half-integer ν = n + 1/2 is C^{2n} at δ = 0 and no smoother: its
// Student-t spectral law with 2ν degrees of freedom has moments of order < 2ν only, and ∂^{p,q}k exists exactly
// when E|ω^{p+q}| < ∞ (for ν = 1/2, exp(−‖δ‖/σ) has a cone at 0). Away from δ = 0 the kernel is smooth, but
// Deriv reports only the orders that exist everywhere.
func (k Matern) MaxOrder() int {
	n, ok := k.maternHalf()
	if !ok {
		return -1
	}
	return 2 * n
}

// Deriv returns ∂^{p,q}k(x,y) for the Matérn kernel with ν ∈ {1/2, 3/2, 5/2}, for |p|+|q| ≤ MaxOrder (0, 2, 4).
//
// The kernel is radial, κ(δ) = φ(r), r = ‖δ‖, with φ(r) = e^{−ar}P(ar), a = √(2ν)/σ, P = 1, 1 + t, 1 + t + t²/3.
// Writing κ(δ) = F(s) with s = ‖δ‖²/2, so that d/ds = (1/r)d/dr, the multivariate chain rule gives
//
//	∂^α κ(δ) = Σ_{j ≤ α/2} Π_i [α_i! / (j_i! (α_i − 2j_i)! 2^{j_i})] δ^{α−2j} F^{(|α|−|j|)}(s),
//
// and each F⁽ᵐ⁾ = ((1/r)d/dr)ᵐ φ is a^{2m}e^{−ar} times a Laurent polynomial in t = ar with integer coefficients
// (up to the common denominator 3 for ν = 5/2), computed exactly so that the cancellations that make the
// derivatives exist at δ = 0 are exact. Terms are evaluated as Π_i (δ_i/r)^{β_i} · t^{|β|+k} so that no
// intermediate quantity is singular near δ = 0; at δ = 0 only the terms with β = 0 and k = 0 survive (the others
// vanish for the orders that exist).
func (k Matern) Deriv(x, y []float64, p, q []int) (float64, error) {
	if _, ok := k.maternHalf(); !ok {
		return 0, fmt.Errorf("kernel %s: only ν ∈ {1/2, 3/2, 5/2} are supported", k.Name())
	}
	delta, alpha, sign, err := derivSetup(k, x, y, p, q)
	if err != nil {
		return 0, err
	}
	if hasNaN(delta) { // as Eval
		return math.NaN(), nil
	}
	return sign * k.radialDeriv(delta, alpha), nil
}

// laurent is e^{−t}·Σ_k c[k−lo] t^k in the scaled variable t = a·r, with integer coefficients (exact in float64).
type laurent struct {
	lo int
	c  []float64
}

// maternPsi returns ψ with φ(r) = ψ(ar)/den, ψ(t) = e^{−t}·(integer polynomial), and a = √(2ν)/σ:
// ν=1/2: ψ = e^{−t}; ν=3/2: e^{−t}(1 + t); ν=5/2: e^{−t}(3 + 3t + t²), den = 3.
func (k Matern) maternPsi() (psi laurent, den, a float64) {
	n, _ := k.maternHalf()
	a = math.Sqrt(2*k.Nu) / k.S
	switch n {
	case 0:
		return laurent{0, []float64{1}}, 1, a
	case 1:
		return laurent{0, []float64{1, 1}}, 1, a
	}
	return laurent{0, []float64{3, 3, 1}}, 3, a
}

// next applies (1/t)d/dt to e^{−t}Σ c_k t^k: the coefficient c_k contributes k·c_k to t^{k−2} and −c_k to t^{k−1}.
// Integer coefficients stay integers, so cancellations are exact.
func (l laurent) next() laurent {
	out := laurent{lo: l.lo - 2, c: make([]float64, len(l.c)+1)}
	for i, c := range l.c {
		kk := l.lo + i
		out.c[kk-2-out.lo] += float64(kk) * c
		out.c[kk-1-out.lo] -= c
	}
	// Trim leading zeros so that lo is the true lowest power (this decides which terms vanish at r = 0).
	for len(out.c) > 1 && out.c[0] == 0 {
		out.c = out.c[1:]
		out.lo++
	}
	return out
}

// radialDeriv returns ∂^α κ(δ) by the formula documented at [Matern.Deriv], for any order when δ ≠ 0 (the
// caller enforces MaxOrder, which is what makes the value at δ = 0 well defined).
//
// With t = a·r and F⁽ᵐ⁾(s) = a^{2m}Ψ_m(t)/den, Ψ_m = ((1/t)d/dt)ᵐψ, a term δ^β F⁽ᵐ⁾ with |β| = |α| − 2J and
// m = |α| − J is u^β·a^{|α|}·t^{|β|}Ψ_m(t)/den, u = δ/r: every term carries the same a^{|α|}.
func (k Matern) radialDeriv(delta []float64, alpha []int) float64 {
	psi, den, a := k.maternPsi()
	total := 0
	for _, v := range alpha {
		total += v
	}
	// Ψ_m for m = 0..total.
	F := make([]laurent, total+1)
	F[0] = psi
	for m := 1; m <= total; m++ {
		F[m] = F[m-1].next()
	}
	var r2 float64
	for _, t := range delta {
		r2 += t * t
	}
	r := math.Sqrt(r2)
	if math.IsInf(r2, 0) { // the squares overflow: r from the scaled coordinates (δ finite, the caller checked)
		var big float64
		for _, t := range delta {
			big = max(big, math.Abs(t))
		}
		var s2 float64
		for _, t := range delta {
			s2 += (t / big) * (t / big)
		}
		r = big * math.Sqrt(s2)
	}
	t := a * r
	// Far from the diagonal e^{−t} underflows while t^pw and a^|α| may overflow: each term is then taken whole in
	// logarithms, e^{|α|·ln a + pw·ln t − t}, which underflows to the zero (or subnormal) the derivative is.
	far := t > 700
	// U[J] = Σ_{|j|=J} Π_i α_i!/(j_i!(α_i−2j_i)!2^{j_i}) u_i^{α_i−2j_i}, u = δ/r (u = 0 at δ = 0), by convolution.
	U := []float64{1}
	for i, ai := range alpha {
		if ai == 0 {
			continue
		}
		u := 0.0
		if r > 0 {
			u = delta[i] / r
		}
		f := make([]float64, ai/2+1)
		for j := range f {
			f[j] = factorial(ai) / (factorial(j) * factorial(ai-2*j) * math.Pow(2, float64(j))) * ipow(u, ai-2*j)
		}
		next := make([]float64, len(U)+len(f)-1)
		for J, uv := range U {
			for j, fv := range f {
				next[J+j] += uv * fv
			}
		}
		U = next
	}
	var sum float64
	for J, uJ := range U {
		if uJ == 0 {
			continue
		}
		m := total - J
		B := total - 2*J
		l := F[m]
		for i, c := range l.c {
			if c == 0 {
				continue
			}
			pw := B + l.lo + i
			switch {
			case far:
				sum += uJ * c * math.Exp(float64(total)*math.Log(a)+float64(pw)*math.Log(t)-t)
			case r > 0:
				sum += uJ * c * ipowSigned(t, pw)
			case pw == 0:
				sum += uJ * c
			case pw < 0:
				return math.NaN() // only reachable above MaxOrder
			}
		}
	}
	if far {
		return sum / den
	}
	return sum * math.Pow(a, float64(total)) / den * math.Exp(-t)
}

func factorial(n int) float64 {
	f := 1.0
	for j := 2; j <= n; j++ {
		f *= float64(j)
	}
	return f
}

// ipow returns x^n for n ≥ 0 with 0⁰ = 1.
func ipow(x float64, n int) float64 {
	v := 1.0
	for ; n > 0; n-- {
		v *= x
	}
	return v
}

func ipowSigned(x float64, n int) float64 {
	if n >= 0 {
		return ipow(x, n)
	}
	return 1 / ipow(x, -n)
}

// hasNaN reports whether v holds a NaN (x − y of an input with NaN, or of two infinities of one sign).
func hasNaN(v []float64) bool {
	for _, t := range v {
		if math.IsNaN(t) {
			return true
		}
	}
	return false
}
