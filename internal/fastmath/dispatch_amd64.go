//go:build !purego

package fastmath

import (
	"math"

	"github.com/rffkit/rff/internal/cpu"
)

// useAVX2 selects the AVX2 kernels; it is set once at start-up from CPUID (and flipped only by tests).
var useAVX2 = cpu.AVX2

// useFMA selects the AVX2 + FMA exponential kernel: exactly where math.Exp takes its own FMA branch (AVX and FMA),
// whose operations the kernel repeats.
var useFMA = cpu.FMA && cpu.AVX2 && expAgrees()

// expAgrees reports whether the kernel gives math.Exp's bits where math.Exp's FMA branch and its plain one differ
// (x = −445.2351487486162): math.Exp chooses its branch from the Go runtime's view of the CPU, which GODEBUG (cpu.fma
// =off, cpu.avx=off) can narrow, and internal/cpu reads the CPU itself.
func expAgrees() bool {
	x := [4]float64{-445.2351487486162, -445.2351487486162, -445.2351487486162, -445.2351487486162}
	var d [4]float64
	return expAVX2(&d[0], &x[0], 4) == 4 && math.Float64bits(d[0]) == math.Float64bits(math.Exp(x[0]))
}

// expAVX2 computes dst[i] = exp(x[i]) for i < n (n a multiple of 4) four at a time, and stops before the first group
// of four with an element outside [ExpLo, ExpHi] (or NaN), which it leaves unwritten. It returns the number of
// elements done.
//
//go:noescape
func expAVX2(dst, x *float64, n int) (done int)

func expVec(dst, x []float64, n int) int { return expAVX2(&dst[0], &x[0], n) }

// sincosAVX2 processes n elements (n a multiple of 4, n ≥ 0) with the kernel of sincos1; w may be nil. It
// returns whether an element was out of range; for such an element it stores x[i] into both outputs, so the
// input survives when an output aliases x.
//
//go:noescape
func sincosAVX2(sin, cos, x, w *float64, n int) (bad bool)

// cosAVX2 is sincosAVX2 for w·cos only (w not nil).
//
//go:noescape
func cosAVX2(dst, x, w *float64, n int) (bad bool)

func sincosVec(sin, cos, x, w []float64) bool {
	n := len(x)
	m := n &^ 3
	if !useAVX2 || m == 0 {
		return sincosGeneric(sin, cos, x, w)
	}
	var wp *float64
	if w != nil {
		w = w[:n]
		wp = &w[0]
	}
	sin, cos = sin[:n], cos[:n]
	bad := sincosAVX2(&sin[0], &cos[0], &x[0], wp, m)
	if m < n {
		var wt []float64
		if w != nil {
			wt = w[m:]
		}
		bad = sincosGeneric(sin[m:], cos[m:], x[m:], wt) || bad
	}
	return bad
}

func cosVec(dst, x, w []float64) bool {
	n := len(x)
	m := n &^ 3
	if !useAVX2 || m == 0 {
		return cosGeneric(dst, x, w)
	}
	dst, w = dst[:n], w[:n]
	bad := cosAVX2(&dst[0], &x[0], &w[0], m)
	if m < n {
		bad = cosGeneric(dst[m:], x[m:], w[m:]) || bad
	}
	return bad
}
