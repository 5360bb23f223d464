package kernel

import "math"

// Derivatives of high order leave the float64 range in their factors long before the product does: Heₙ(u) and n!
// overflow from n ≈ 170 on, exp(−‖δ‖²/(2σ²)) and |1/(u−i)|ⁿ⁺¹ underflow, and Inf·0 is NaN. The Gaussian and Cauchy
// derivatives therefore check the factors of their ordinary evaluation and, when one has left the normal range,
// evaluate again with every factor held as m·2^e (m in [½, 1), e an int): exponents add exactly, so the result is
// rounded like the ordinary evaluation's and ±Inf or 0 only when the derivative itself is out of range.

// xfloat is m·2^e with m = 0 or ½ ≤ |m| < 1.
type xfloat struct {
	m float64
	e int
}

// xf returns x as an xfloat (x finite).
func xf(x float64) xfloat {
	m, e := math.Frexp(x)
	return xfloat{m, e}
}

// mul returns a·b.
func (a xfloat) mul(b xfloat) xfloat {
	m, e := math.Frexp(a.m * b.m)
	return xfloat{m, e + a.e + b.e}
}

// float returns the float64 nearest a (±Inf beyond the range, 0 or a subnormal below it).
func (a xfloat) float() float64 {
	if a.m == 0 {
		return 0
	}
	if a.e > 2000 {
		return math.Inf(int(math.Copysign(1, a.m)))
	}
	if a.e < -2000 {
		return math.Copysign(0, a.m)
	}
	return math.Ldexp(a.m, a.e)
}

// normal reports whether x is finite and, unless exactly 0, a normal float.
func normal(x float64) bool {
	a := math.Abs(x)
	return a == 0 || a >= 0x1p-1022 && a <= math.MaxFloat64
}

// positive reports whether x is a finite normal float, not 0.
func positive(x float64) bool { return x != 0 && normal(x) }

// xpow returns xⁿ for n ≥ 0 (x finite), by repeated squaring.
func xpow(x float64, n int) xfloat {
	r, b := xfloat{0.5, 1}, xf(x)
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			r = r.mul(b)
		}
		b = b.mul(b)
	}
	return r
}

// xexpNeg returns e^{−x} for x ≥ 0.
func xexpNeg(x float64) xfloat {
	if x <= 700 {
		return xf(math.Exp(-x))
	}
	if x > 1e15 { // beyond any derivative's growth: e^{−x} times at most 2^(10⁷)
		return xfloat{}
	}
	// x = k·ln 2 + r with 0 ≤ r < ln 2, ln 2 in two parts (k·ln2Hi is exact for k < 2^20; beyond, r has the
	// error x·ε that x itself carries).
	const ln2Hi, ln2Lo = 6.93147180369123816490e-01, 1.90821492927058770002e-10
	k := math.Floor(x / math.Ln2)
	r := (x - k*ln2Hi) - k*ln2Lo
	v := xf(math.Exp(-r))
	v.e -= int(k)
	return v
}

// hermiteHeX is Heₙ(u) (see hermiteHe) with the recurrence's values rescaled by a power of 2 whenever they grow
// large: the same roundings, no overflow.
func hermiteHeX(n int, u float64) xfloat {
	if n == 0 {
		return xfloat{0.5, 1}
	}
	h0, h1, e := 1.0, u, 0
	for j := 1; j < n; j++ {
		h0, h1 = h1, u*h1-float64(j)*h0
		if a := max(math.Abs(h0), math.Abs(h1)); a > 0x1p600 {
			_, s := math.Frexp(a)
			h0, h1, e = math.Ldexp(h0, -s), math.Ldexp(h1, -s), e+s
		}
	}
	r := xf(h1)
	r.e += e
	return r
}

// derivX is the Gaussian's ∂^α κ(δ)·sign (see Gaussian.Deriv) with every factor held as an xfloat.
func (k Gaussian) derivX(delta []float64, alpha []int, sign float64) float64 {
	v := xf(sign)
	var s2 float64
	for i, t := range delta {
		u := t / k.S
		s2 += u * u
		if n := alpha[i]; n > 0 {
			f := hermiteHeX(n, u).mul(xpow(1/k.S, n))
			if n%2 == 1 {
				f.m = -f.m
			}
			v = v.mul(f)
		}
	}
	if math.IsInf(s2, 0) {
		return math.Copysign(0, v.m)
	}
	return v.mul(xexpNeg(s2 / 2)).float()
}

// derivX is the Cauchy kernel's ∂^α κ(δ)·sign (see Cauchy.Deriv) with every factor held as an xfloat.
func (k Cauchy) derivX(delta []float64, alpha []int, sign float64) float64 {
	v := xf(sign)
	for i, t := range delta {
		u := t / k.S
		n := alpha[i]
		// w = 1/(u − i) = (u + i)/(u² + 1) = 2^ew·(wr + i·wi); w = 0 where u² overflows, far below any derivative.
		den := 1 + u*u
		wr, wi := u/den, 1/den
		_, ew := math.Frexp(max(math.Abs(wr), math.Abs(wi)))
		wr, wi = math.Ldexp(wr, -ew), math.Ldexp(wi, -ew)
		// w^{n+1} = 2^e·(pr + i·pi), rescaled by powers of 2 as it shrinks.
		pr, pi, e := wr, wi, ew
		for range n {
			pr, pi = pr*wr-pi*wi, pr*wi+pi*wr
			e += ew
			if a := max(math.Abs(pr), math.Abs(pi)); a != 0 && (a < 0x1p-600 || a > 0x1p600) {
				_, s := math.Frexp(a)
				pr, pi, e = math.Ldexp(pr, -s), math.Ldexp(pi, -s), e+s
			}
		}
		f := xf(pi)
		f.e += e
		f = f.mul(xfactorial(n)).mul(xpow(1/k.S, n))
		if n%2 == 1 {
			f.m = -f.m
		}
		v = v.mul(f)
	}
	return v.float()
}

// xfactorial returns n!.
func xfactorial(n int) xfloat {
	r := xfloat{0.5, 1}
	for j := 2; j <= n; j++ {
		r = r.mul(xf(float64(j)))
	}
	return r
}
