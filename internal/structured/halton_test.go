package structured

import (
	"math"
	"math/big"
	"testing"
)

func TestPrimes(t *testing.T) {
	isPrime := func(n int) bool {
		if n < 2 {
			return false
		}
		for f := 2; f*f <= n; f++ {
			if n%f == 0 {
				return false
			}
		}
		return true
	}
	for _, k := range []int{0, 1, 2, 5, 6, 7, 100, 1000} {
		ps := Primes(k)
		if len(ps) != k {
			t.Fatalf("Primes(%d) has %d entries", k, len(ps))
		}
		// The first k primes: consecutive primes starting at 2.
		next := 2
		for i, p := range ps {
			for !isPrime(next) {
				next++
			}
			if p != next {
				t.Fatalf("Primes(%d)[%d] = %d, want %d", k, i, p, next)
			}
			next++
		}
	}
	ps := Primes(10000)
	if len(ps) != 10000 || ps[9999] != 104729 { // the 10000th prime
		t.Errorf("Primes(10000): len %d, last %d, want 10000 primes ending in 104729", len(ps), ps[len(ps)-1])
	}
}

// radicalInverseExact is Σ_k digit_k · base^-(k+1) in exact rational
// arithmetic, rounded once to float64.
func radicalInverseExact(index uint64, base uint64) float64 {
	r := new(big.Rat)
	den := big.NewInt(1)
	bb := new(big.Int).SetUint64(base)
	for index > 0 {
		den.Mul(den, bb)
		r.Add(r, new(big.Rat).SetFrac(new(big.Int).SetUint64(index%base), new(big.Int).Set(den)))
		index /= base
	}
	f, _ := r.Float64()
	return f
}

func TestHaltonRadicalInverse(t *testing.T) {
	// Small cases written out by hand: index = Σ d_k b^k -> Σ d_k b^-(k+1).
	cases := []struct {
		base, index int
		want        float64
	}{
		{2, 1, 0.5}, {2, 2, 0.25}, {2, 3, 0.75}, {2, 4, 0.125}, {2, 5, 0.625}, {2, 6, 0.375}, {2, 7, 0.875},
		{3, 1, 1.0 / 3}, {3, 2, 2.0 / 3}, {3, 3, 1.0 / 9}, {3, 4, 1.0/9 + 1.0/3}, {3, 5, 1.0/9 + 2.0/3},
		{3, 9, 1.0 / 27}, {5, 7, 1.0/25 + 2.0/5}, {7, 48, 6.0/49 + 6.0/7},
	}
	for _, c := range cases {
		dst := make([]float64, 1)
		Halton(dst, c.index, []int{c.base})
		if math.Abs(dst[0]-c.want) > 1e-16 {
			t.Errorf("radical inverse of %d in base %d = %.17g, want %.17g", c.index, c.base, dst[0], c.want)
		}
	}
	// Multi-dimensional point and huge indices against exact arithmetic:
	// Horner's rule is accurate to a few ulps.
	bases := Primes(50)
	dst := make([]float64, len(bases))
	for _, idx := range []int{1, 2, 17, 1000, 123456789, 1 << 40, 1<<53 + 3, 1<<62 + 987654321, math.MaxInt64} {
		Halton(dst, idx, bases)
		for j, b := range bases {
			want := radicalInverseExact(uint64(idx), uint64(b))
			if want >= 1 {
				want = 1 - 0x1p-53 // the value is < 1; rounding may reach 1
			}
			if math.Abs(dst[j]-want) > 4*0x1p-53 || dst[j] >= 1 || dst[j] < 0 {
				t.Errorf("Halton(%d) base %d = %.17g, want %.17g", idx, b, dst[j], want)
			}
		}
	}
}

func TestHaltonSet(t *testing.T) {
	const D, d, skip = 4096, 20, 1000
	rng := newRNG(30)
	pts := HaltonSet(D, d, skip, rng)
	if len(pts) != D*d {
		t.Fatalf("HaltonSet returned %d values, want %d", len(pts), D*d)
	}
	for i, v := range pts {
		if !(v > 0 && v < 1) {
			t.Fatalf("point %d coordinate %d = %g is outside (0,1)", i/d, i%d, v)
		}
	}
	// A uniform variable has mean 1/2 and variance 1/12; a Halton sequence
	// is far better than iid, so 4 iid standard errors is a loose bound.
	tol := 4 / math.Sqrt(12*D)
	for j := 0; j < d; j++ {
		s := 0.0
		for i := 0; i < D; i++ {
			s += pts[i*d+j]
		}
		if m := s / D; math.Abs(m-0.5) > tol {
			t.Errorf("coordinate %d: mean %g, want 1/2 ± %g", j, m, tol)
		}
	}
	// Every point is the unshifted Halton point rotated by the same shift
	// U_j mod 1; recover U from point 0 and check it on other points.
	bases := Primes(d)
	raw0 := make([]float64, d)
	raw := make([]float64, d)
	Halton(raw0, skip+1, bases)
	frac := func(v float64) float64 { return v - math.Floor(v) }
	for _, i := range []int{1, 2, D - 1} {
		Halton(raw, skip+i+1, bases)
		for j := 0; j < d; j++ {
			u0 := frac(pts[j] - raw0[j])
			ui := frac(pts[i*d+j] - raw[j])
			if e := math.Abs(ui - u0); e > 1e-12 && math.Abs(e-1) > 1e-12 {
				t.Errorf("point %d coordinate %d: shift %g differs from point 0's %g", i, j, ui, u0)
			}
		}
	}
}
