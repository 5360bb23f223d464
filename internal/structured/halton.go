package structured

import (
	"math"
	"math/rand/v2"
)

// Primes returns the first k primes (sieve of Eratosthenes).
func Primes(k int) []int {
	if k <= 0 {
		return nil
	}
	// p_k < k(ln k + ln ln k) for k >= 6 (Rosser–Schoenfeld).
	limit := 15
	if k >= 6 {
		fk := float64(k)
		limit = int(fk*(math.Log(fk)+math.Log(math.Log(fk)))) + 1
	}
	composite := make([]bool, limit+1)
	out := make([]int, 0, k)
	for i := 2; i <= limit && len(out) < k; i++ {
		if composite[i] {
			continue
		}
		out = append(out, i)
		for j := i * i; j <= limit; j += i {
			composite[j] = true
		}
	}
	return out
}

// radicalInverse returns Σ_k digit_k(index) · base^-(k+1), evaluated by
// Horner's rule from the most significant digit, which keeps the error within
// a couple of ulps for any index representable as an int.
func radicalInverse(index uint64, base uint64) float64 {
	var digits [64]uint64
	n := 0
	for index > 0 {
		digits[n] = index % base
		index /= base
		n++
	}
	fb := float64(base)
	r := 0.0
	for k := n - 1; k >= 0; k-- {
		r = (r + float64(digits[k])) / fb
	}
	if r >= 1 { // rounding for indices with more than 53 bits of digits
		r = 1 - 0x1p-53
	}
	return r
}

// Halton writes the Halton point with the given index (index >= 1) into dst:
// dst[j] = radical inverse of index in base bases[j], for j < len(dst).
func Halton(dst []float64, index int, bases []int) {
	if index < 0 {
		panic("structured: negative Halton index")
	}
	bases = bases[:len(dst)]
	for j, b := range bases {
		dst[j] = radicalInverse(uint64(index), uint64(b))
	}
}

// HaltonSet returns D points (row-major D×d) of a randomized Halton sequence:
// the points with indices skip+1, ..., skip+D in the first d prime bases, each
// coordinate shifted by an independent uniform U_j (drawn from rng) modulo 1
// (Cranley–Patterson rotation). Every point is then marginally uniform on
// [0,1)^d. A coordinate that comes out exactly 0 is replaced by the smallest
// positive float64, so that an inverse normal CDF stays finite.
func HaltonSet(D, d, skip int, rng *rand.Rand) []float64 {
	if D < 0 || d < 0 || skip < 0 {
		panic("structured: negative HaltonSet argument")
	}
	bases := Primes(d)
	shift := make([]float64, d)
	for j := range shift {
		shift[j] = rng.Float64()
	}
	out := make([]float64, D*d)
	for i := 0; i < D; i++ {
		p := out[i*d : i*d+d]
		Halton(p, skip+i+1, bases)
		for j := range p {
			v := p[j] + shift[j]
			if v >= 1 {
				v--
			}
			if v <= 0 {
				v = math.SmallestNonzeroFloat64
			}
			p[j] = v
		}
	}
	return out
}
