// Package finite finds NaN and infinite values in large slices quickly: the input checks of every fit, prediction
// and landmark selection scan the whole data matrix (47 million values for MNIST) before any work starts.
package finite

import (
	"math"
	"runtime"

	"github.com/rffkit/rff/internal/parallel"
)

// parallelMin is the length from which Index splits the scan among the cores (about 1 ms of work on one core).
const parallelMin = 1 << 20

// Index returns the index of the first NaN or ±Inf in x, or −1 when every value is finite. Slices of at least a
// million values are scanned on all cores.
func Index(x []float64) int { return scan(x, index) }

// IndexBeyond returns the index of the first value of x that is NaN or greater than limit in absolute value (±Inf
// for every finite limit), or −1 when there is none. Slices of at least a million values are scanned on all cores.
func IndexBeyond(x []float64, limit float64) int {
	return scan(x, func(x []float64) int { return beyond(x, limit) })
}

// scan runs find (the first index of a bad value in a slice, or −1) over x, on all cores from parallelMin values:
// x is cut into one part per core, and the first part with a bad value gives the answer.
func scan(x []float64, find func([]float64) int) int {
	if len(x) < parallelMin {
		return find(x)
	}
	parts := min(runtime.GOMAXPROCS(0), len(x)/(parallelMin/2))
	found := make([]int, parts)
	parallel.For(parts, parts, func(p int) {
		lo, hi := p*len(x)/parts, (p+1)*len(x)/parts
		found[p] = -1
		if i := find(x[lo:hi]); i >= 0 {
			found[p] = lo + i
		}
	})
	for _, i := range found {
		if i >= 0 {
			return i
		}
	}
	return -1
}

// index is Index on one goroutine: v·0 is ±0 for a finite v and NaN for NaN or ±Inf, so a sum of them is zero
// exactly when every value is finite. Four independent sums keep the adds in flight; only a slice that holds a
// non-finite value is scanned again, value by value, to find it.
func index(x []float64) int {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		s0 += v[0]*0 + v[4]*0
		s1 += v[1]*0 + v[5]*0
		s2 += v[2]*0 + v[6]*0
		s3 += v[3]*0 + v[7]*0
	}
	for ; i < len(x); i++ {
		s0 += x[i] * 0
	}
	if s0+s1+s2+s3 == 0 {
		return -1
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return i
		}
	}
	return -1 // not reached: a non-zero sum comes from a non-finite value
}

// beyond is IndexBeyond on one goroutine: two comparisons per value (both false for NaN), four values per test.
func beyond(x []float64, limit float64) int {
	i := 0
	for ; i+4 <= len(x); i += 4 {
		v := x[i : i+4 : i+4]
		if !(v[0] <= limit && v[0] >= -limit && v[1] <= limit && v[1] >= -limit &&
			v[2] <= limit && v[2] >= -limit && v[3] <= limit && v[3] >= -limit) {
			break
		}
	}
	for ; i < len(x); i++ {
		if !(x[i] <= limit && x[i] >= -limit) {
			return i
		}
	}
	return -1
}

// JSON returns x for encoding/json with every NaN and ±Inf as nil (null), which encoding/json cannot write as
// numbers: scores that could not be computed stay in their place.
func JSON(x []float64) []any {
	out := make([]any, len(x))
	for i, v := range x {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out[i] = v
		}
	}
	return out
}
