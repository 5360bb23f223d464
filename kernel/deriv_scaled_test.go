package kernel

import (
	"fmt"
	"math"
	"math/big"
	"testing"
)

const bigPrec = 1024

func bigF(x float64) *big.Float { return new(big.Float).SetPrec(bigPrec).SetFloat64(x) }

// bigExpNeg returns e^{−x} for 0 ≤ x ≤ 10⁴ by the series of e^{x} (terms positive: no cancellation).
func bigExpNeg(x float64) *big.Float {
	sum, term, bx := bigF(1), bigF(1), bigF(x)
	for k := 1; ; k++ {
		term.Mul(term, bx).Quo(term, bigF(float64(k)))
		sum.Add(sum, term)
		if term.Sign() == 0 || float64(k) > x && term.MantExp(nil) < sum.MantExp(nil)-bigPrec {
			break
		}
	}
	return new(big.Float).SetPrec(bigPrec).Quo(bigF(1), sum)
}

// bigPowInt returns xⁿ.
func bigPowInt(x *big.Float, n int) *big.Float {
	r := bigF(1)
	for range n {
		r.Mul(r, x)
	}
	return r
}

// gaussianDeriv1 is dⁿ/dtⁿ exp(−t²/(2σ²)) = (−1/σ)ⁿ Heₙ(u) e^{−u²/2}, u = t/σ, exactly for the floats t and σ
// (Heₙ by its recurrence in 1024-bit arithmetic; u = t/σ rounded as the kernel rounds it).
func gaussianDeriv1(n int, t, s float64) *big.Float {
	u := t / s
	bu := bigF(u)
	h0, h1 := bigF(1), bigF(u)
	if n == 0 {
		h1 = h0
	}
	for j := 1; j < n; j++ {
		next := new(big.Float).SetPrec(bigPrec).Mul(bu, h1)
		next.Sub(next, new(big.Float).SetPrec(bigPrec).Mul(bigF(float64(j)), h0))
		h0, h1 = h1, next
	}
	r := h1.Mul(h1, bigPowInt(new(big.Float).SetPrec(bigPrec).Quo(bigF(-1), bigF(s)), n))
	return r.Mul(r, bigExpNeg(u*u/2))
}

// cauchyDeriv1 is dⁿ/dtⁿ 1/(1+t²/σ²) = σ⁻ⁿ(−1)ⁿ n! Im[(u+i)^{n+1}]/(u²+1)^{n+1}, u = t/σ, in 1024-bit arithmetic.
func cauchyDeriv1(n int, t, s float64) *big.Float {
	u := t / s
	bu := bigF(u)
	re, im := bigF(u), bigF(1) // (u+i)^k
	for range n {
		nre := new(big.Float).SetPrec(bigPrec).Sub(new(big.Float).SetPrec(bigPrec).Mul(re, bu), im)
		nim := new(big.Float).SetPrec(bigPrec).Add(new(big.Float).SetPrec(bigPrec).Mul(im, bu), re)
		re, im = nre, nim
	}
	den := bigPowInt(new(big.Float).SetPrec(bigPrec).Add(bigF(1), new(big.Float).SetPrec(bigPrec).Mul(bu, bu)), n+1)
	r := im.Quo(im, den)
	for j := 2; j <= n; j++ {
		r.Mul(r, bigF(float64(j)))
	}
	r.Mul(r, bigPowInt(new(big.Float).SetPrec(bigPrec).Quo(bigF(-1), bigF(s)), n))
	return r
}

// closeTo reports whether got is want rounded to float64 within an absolute error tol·scale (scale a big.Float):
// an overflowing want must give an infinity of its sign, and a want that rounds to 0 a zero.
func closeTo(got float64, want, scale *big.Float, tol float64) error {
	w, _ := want.Float64()
	if math.IsInf(w, 0) {
		if got != w {
			return fmt.Errorf("got %v, want %v (the derivative overflows)", got, w)
		}
		return nil
	}
	if math.IsNaN(got) || math.IsInf(got, 0) {
		return fmt.Errorf("got %v, want %v", got, w)
	}
	diff := new(big.Float).SetPrec(bigPrec).Sub(bigF(got), want)
	bound := new(big.Float).SetPrec(bigPrec).Mul(new(big.Float).Abs(scale), bigF(tol))
	if d := new(big.Float).Abs(diff); d.Cmp(bound) > 0 && d.Cmp(bigF(0x1p-1074)) > 0 {
		return fmt.Errorf("got %v, want %v (error %.3g, bound %.3g)", got, w, d, bound)
	}
	return nil
}

// TestDerivHighOrders: derivatives of every order up to MaxDerivOrder per index are exact to the rounding of their
// evaluation — the ordinary one or, where a factor leaves the float64 range, the one with scaled factors — against
// 1024-bit evaluations of their closed forms; out-of-range derivatives are ±Inf or 0, never NaN. Tolerances: n
// steps of a recurrence each add a relative rounding error of a few ε to the dominant term (16(n+1)ε relative to
// the magnitude of the terms: at u = 0 and beyond the largest root of Heₙ the terms do not cancel; the Cauchy
// power's magnitude is n!σ⁻ⁿ|u+i|^{n+1}/(u²+1)^{n+1}).
func TestDerivHighOrders(t *testing.T) {
	const eps = 0x1p-53
	for _, s := range []float64{1, 0.7, 3} {
		g, c := Gaussian{S: s}, Cauchy{S: s}
		for _, n := range []int{0, 1, 7, 60, 170, 171, 250, 400, 1024} {
			tol := 16 * float64(n+1) * eps
			// Gaussian at u = 0 (Heₙ(0) from exact integer steps, then roundings) and beyond the largest root of
			// Heₙ (< 2√n): far enough that e^{−u²/2} underflows alone for the larger n.
			for _, u := range []float64{0, 2*math.Sqrt(float64(n)) + 2, 45, 60} {
				if u != 0 && u < 2*math.Sqrt(float64(n))+2 {
					continue
				}
				x := u * s
				want := gaussianDeriv1(n, x, s)
				got, err := g.Deriv([]float64{x}, []float64{0}, []int{n}, nil)
				if err == nil {
					err = closeTo(got, want, want, tol)
				}
				if err != nil {
					t.Errorf("gaussian σ=%v n=%d u=%v: %v", s, n, u, err)
				}
			}
			for _, u := range []float64{0, 0.3, 1, 3, 40, 1e5} {
				x := u * s
				want := cauchyDeriv1(n, x, s)
				w2 := 1 + u*u
				scale := new(big.Float).SetPrec(bigPrec).Quo(bigF(math.Pow(math.Sqrt(w2), float64(n+1))), bigPowInt(bigF(w2), n+1))
				for j := 2; j <= n; j++ {
					scale.Mul(scale, bigF(float64(j)))
				}
				scale.Mul(scale, bigPowInt(bigF(1/s), n))
				if math.IsInf(math.Pow(math.Sqrt(w2), float64(n+1)), 0) {
					scale = new(big.Float).Abs(want)
				}
				got, err := c.Deriv([]float64{x}, []float64{0}, []int{n}, nil)
				if err == nil {
					err = closeTo(got, want, scale, tol)
				}
				if err != nil {
					t.Errorf("cauchy σ=%v n=%d u=%v: %v", s, n, u, err)
				}
			}
		}
	}
	// Mixed orders p and q in two coordinates: never NaN, and the ∂/∂y sign rule holds through the scaled path.
	for _, k := range []Differentiable{Gaussian{S: 1}, Cauchy{S: 1}} {
		for _, n := range []int{100, 300, 511} {
			for _, d := range []float64{0, 0.5, 3, 40, 1e3} {
				x, y := []float64{d, -d}, []float64{0, 0}
				a, err1 := k.Deriv(x, y, []int{n, 1}, []int{n, 0})
				b, err2 := k.Deriv(x, y, []int{2 * n, 0}, []int{0, 1})
				if err1 != nil || err2 != nil || math.IsNaN(a) || math.IsNaN(b) ||
					math.Float64bits(a) != math.Float64bits(math.Pow(-1, float64(n))*-b) && !(a == 0 && b == 0) {
					t.Errorf("%s n=%d δ=%v: ∂^{(n,1),(n,0)} = %v (%v), ∂^{(2n,0),(0,1)} = %v (%v); want equal up to (−1)^{n+1}",
						k.Name(), n, d, a, err1, b, err2)
				}
			}
		}
	}
}
