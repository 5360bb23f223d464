package fastmath

import "math"

// Limit is the largest |x| handled by the vectorized fast path. Beyond it (and for NaN and ±Inf) every function of
// this package returns exactly what math.Sincos returns. Below it the quadrant count k = round(2x/π) stays under
// 2^20, so the Cody–Waite products k·c1 and k·c2 are exact.
const Limit = 0x1.8p20 // 1572864 ≈ 1.57·10⁶

// Cody–Waite split of π/2: c1 and c2 have at most 33 significant bits (k·c1 and k·c2 are exact for |k| < 2^20),
// c3 is the next 53 bits; π/2 − (c1+c2+c3) ≈ 1.0·10⁻³⁷.
const (
	twoOverPi = 0x1.45f306dc9c883p-1 // 2/π rounded to nearest
	pio2c1    = 0x1.921fb544p0       // 1.5707963267341256
	pio2c2    = 0x1.0b4611a6p-34     // 6.077100506303966e-11
	pio2c3    = 0x1.3198a2e037073p-69
	// roundMagic = 1.5·2^52: adding and subtracting it rounds |t| < 2^51 to the nearest integer (ties to even),
	// and the low bits of t + roundMagic hold that integer modulo 2^51.
	roundMagic = 0x1.8p52
)

// Minimax coefficients of fdlibm's __kernel_sin and __kernel_cos (error < 2^-58 on |r| ≤ π/4):
//
//	sin r ≈ r + r³(s1 + r²(s2 + … + r²·s6)),   cos r ≈ 1 − r²/2 + r⁴(c1 + r²(c2 + … + r²·c6)).
const (
	s1 = -1.66666666666666324348e-01 // 0xBFC5555555555549
	s2 = 8.33333333332248946124e-03  // 0x3F8111111110F8A6
	s3 = -1.98412698298579493134e-04 // 0xBF2A01A019C161D5
	s4 = 2.75573137070700676789e-06  // 0x3EC71DE357B1FE7D
	s5 = -2.50507602534068634195e-08 // 0xBE5AE5E68A2B9CEB
	s6 = 1.58969099521155010221e-10  // 0x3DE5D93A5ACFD57C

	c1 = 4.16666666666666019037e-02  // 0x3FA555555555554C
	c2 = -1.38888888888741095749e-03 // 0xBF56C16C16C15177
	c3 = 2.48015872894767294178e-05  // 0x3EFA01A019CB1590
	c4 = -2.75573143513906633035e-07 // 0xBE927E4F809C52AD
	c5 = 2.08757232129817482790e-09  // 0x3E21EE9EBDB4B1C4
	c6 = -1.13596475577881948265e-11 // 0xBDA8FAE9BE8838D4
)

// sincos1 is the scalar reference of the vector kernels: for |x| ≤ Limit it returns sin x and cos x by the same
// sequence of IEEE-754 double operations as the assembly, one rounding per operation. The explicit float64
// conversions forbid the compiler from fusing a multiply and an add into an FMA (which it does on arm64, ppc64,
// s390x, riscv64 and on amd64 with GOAMD64=v3): every path then gives the same bits on every machine.
// For |x| > Limit, NaN and ±Inf the result is meaningless; callers use math.Sincos there.
func sincos1(x float64) (sin, cos float64) {
	t := float64(x*twoOverPi) + roundMagic
	k := t - roundMagic
	q := math.Float64bits(t) // k mod 4 in the low two bits
	r := x - float64(k*pio2c1)
	r -= float64(k * pio2c2)
	r -= float64(k * pio2c3)
	z := float64(r * r)

	z2 := float64(z * z)

	// sin r = r + (z·r)·ps, ps = s1 + z·s2 + z²·(s3 + z·s4 + z²·(s5 + z·s6)) (Estrin's scheme: half the latency of
	// Horner's).
	ps := (float64(z*s2) + s1) + float64(z2*((float64(z*s4)+s3)+float64(z2*(float64(z*s6)+s5))))
	s := r + float64(float64(z*r)*ps)
	if x == 0 {
		s = x // keep the sign of zero: r + (z·r)·ps is +0 for r = −0
	}

	// cos r = w + (((1 − w) − z/2) + z·(z·pc)), w = 1 − z/2, pc = c1 + z·c2 + z²·(c3 + z·c4 + z²·(c5 + z·c6)): the
	// bracket recovers the rounding error of w.
	pc := (float64(z*c2) + c1) + float64(z2*((float64(z*c4)+c3)+float64(z2*(float64(z*c6)+c5))))
	hz := float64(0.5 * z)
	w := 1 - hz
	c := w + (((1 - w) - hz) + float64(z*float64(z*pc)))

	// Quadrant q: (sin, cos)(x) = (s, c), (c, −s), (−s, −c), (−c, s) for q = 0, 1, 2, 3.
	sb, cb := math.Float64bits(s), math.Float64bits(c)
	swap := -(q & 1)
	sinb := sb&^swap | cb&swap
	cosb := cb&^swap | sb&swap
	sinb ^= (q & 2) << 62
	cosb ^= ((q + 1) & 2) << 62
	return math.Float64frombits(sinb), math.Float64frombits(cosb)
}

// inRange reports whether x takes the fast path (false for NaN).
func inRange(x float64) bool { return math.Abs(x) <= Limit }

// outOfRange returns the indices and values of the elements of x that the vector kernels leave to math.Sincos
// (nil when there are none). A weighted kernel writing into x itself overwrites the in-range elements with results
// that may be out of range in turn (|w[i]| > Limit), so which elements to fix is read before it runs.
func outOfRange(x []float64) (idx []int, val []float64) {
	for i, v := range x {
		if !inRange(v) {
			idx, val = append(idx, i), append(val, v)
		}
	}
	return idx, val
}

// SinCos sets sin[i], cos[i] = sin(x[i]), cos(x[i]) for every i < len(x). sin and cos must be at least as long as
// x; either may be x itself (the same slice, not an overlapping one). The absolute error is below 1e-15 for every
// input (below 3e-16 by the package documentation's analysis); for |x| > Limit, NaN and ±Inf the result is
// math.Sincos(x).
func SinCos(sin, cos, x []float64) {
	n := len(x)
	sin, cos = sin[:n], cos[:n]
	if bad := sincosVec(sin, cos, x, nil); bad {
		for i, v := range x {
			if !inRange(v) {
				sin[i], cos[i] = math.Sincos(v)
			}
		}
	}
}

// SinCosWeighted sets sin[i] = w[i]·sin(x[i]) and cos[i] = w[i]·cos(x[i]) for every i < len(x): the layout of a
// cos/sin feature row with amplitudes w. Lengths and aliasing as for SinCos; w must be at least as long as x.
// The product with w[i] is one extra rounding.
func SinCosWeighted(sin, cos, x, w []float64) {
	n := len(x)
	sin, cos, w = sin[:n], cos[:n], w[:n]
	if n > 0 && (&sin[0] == &x[0] || &cos[0] == &x[0]) {
		idx, val := outOfRange(x)
		sincosVec(sin, cos, x, w)
		for k, i := range idx {
			s, c := math.Sincos(val[k])
			sin[i], cos[i] = w[i]*s, w[i]*c
		}
		return
	}
	if bad := sincosVec(sin, cos, x, w); bad {
		for i, v := range x {
			if !inRange(v) {
				s, c := math.Sincos(v)
				sin[i], cos[i] = w[i]*s, w[i]*c
			}
		}
	}
}

// CosWeighted sets dst[i] = w[i]·cos(x[i]) for every i < len(x) (the cos+phase feature form). dst and w must be at
// least as long as x; dst may be x itself.
func CosWeighted(dst, x, w []float64) {
	n := len(x)
	dst, w = dst[:n], w[:n]
	if n > 0 && &dst[0] == &x[0] {
		idx, val := outOfRange(x)
		cosVec(dst, x, w)
		for k, i := range idx {
			dst[i] = w[i] * math.Cos(val[k])
		}
		return
	}
	if bad := cosVec(dst, x, w); bad {
		for i, v := range x {
			if !inRange(v) {
				dst[i] = w[i] * math.Cos(v)
			}
		}
	}
}

// sincosGeneric is the portable kernel: it fills sin and cos (weighted by w unless w is nil) for the in-range
// elements of x and reports whether any element was out of range; those are left for the caller to fix. The loop
// body is sincos1 written out (the compiler does not inline it); TestGenericMatchesScalar keeps them equal.
func sincosGeneric(sin, cos, x, w []float64) (bad bool) {
	n := len(x)
	sin, cos = sin[:n], cos[:n]
	if w != nil {
		w = w[:n]
	}
	for i := 0; i < n; i++ {
		v := x[i]
		if !inRange(v) {
			bad = true
			continue
		}
		t := float64(v*twoOverPi) + roundMagic
		k := t - roundMagic
		q := math.Float64bits(t)
		r := v - float64(k*pio2c1)
		r -= float64(k * pio2c2)
		r -= float64(k * pio2c3)
		z := float64(r * r)
		z2 := float64(z * z)
		ps := (float64(z*s2) + s1) + float64(z2*((float64(z*s4)+s3)+float64(z2*(float64(z*s6)+s5))))
		s := r + float64(float64(z*r)*ps)
		if v == 0 {
			s = v
		}
		pc := (float64(z*c2) + c1) + float64(z2*((float64(z*c4)+c3)+float64(z2*(float64(z*c6)+c5))))
		hz := float64(0.5 * z)
		wz := 1 - hz
		c := wz + (((1 - wz) - hz) + float64(z*float64(z*pc)))
		sb, cb := math.Float64bits(s), math.Float64bits(c)
		swap := -(q & 1)
		sinb := (sb&^swap | cb&swap) ^ (q&2)<<62
		cosb := (cb&^swap | sb&swap) ^ ((q+1)&2)<<62
		if w != nil {
			sin[i], cos[i] = w[i]*math.Float64frombits(sinb), w[i]*math.Float64frombits(cosb)
		} else {
			sin[i], cos[i] = math.Float64frombits(sinb), math.Float64frombits(cosb)
		}
	}
	return bad
}

// cosGeneric is the portable kernel of CosWeighted, with the contract of sincosGeneric.
func cosGeneric(dst, x, w []float64) (bad bool) {
	n := len(x)
	dst, w = dst[:n], w[:n]
	for i, v := range x {
		if !inRange(v) {
			bad = true
			continue
		}
		_, c := sincos1(v)
		dst[i] = w[i] * c
	}
	return bad
}
