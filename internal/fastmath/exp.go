package fastmath

import "math"

// ExpLo and ExpHi bound the vectorized fast path of Exp: inputs in [ExpLo, ExpHi] give normal results 2^k·(1 + y)
// with k + 1023 in [1, 2046]. Outside (and for NaN) the element is computed by math.Exp itself.
const (
	ExpLo = -708.0
	ExpHi = 709.0
)

// Exp sets dst[i] = math.Exp(x[i]) for every i < len(x), bit for bit. dst must be at least as long as x and may be
// x itself (the same slice, not an overlapping one).
//
// On amd64 with AVX2 and FMA, math.Exp runs the FMA branch of Go's assembly (Shibata's method from SLEEF: k =
// round(x·log₂e), r = (x − k·ln2_hi − k·ln2_lo)/16 by two fused multiply-adds, the Taylor polynomial of e^r − 1 to
// degree 8 by Horner's rule with fused multiply-adds, four squarings (1 + y)² − 1 = y·(y + 2), the last fused with
// the + 1, and the scaling by 2^k). The AVX2 kernel does the same operations in the same order on four lanes, so
// its results equal math.Exp's; groups of four with an element outside [ExpLo, ExpHi] or NaN, slice tails and
// every other machine call math.Exp. In a Gaussian kernel matrix this is about eight times as fast as a loop of
// math.Exp (BenchmarkExp).
func Exp(dst, x []float64) {
	n := len(x)
	dst = dst[:n]
	i := 0
	for useFMA && n-i >= 4 {
		i += expVec(dst[i:], x[i:], (n-i)&^3)
		if n-i < 4 {
			break
		}
		// The group at i holds an element outside the fast range: math.Exp for its four elements.
		for j := i; j < i+4; j++ {
			dst[j] = math.Exp(x[j])
		}
		i += 4
	}
	for ; i < n; i++ {
		dst[i] = math.Exp(x[i])
	}
}
