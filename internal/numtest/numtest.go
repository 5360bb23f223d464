// Package numtest holds the numerical comparisons shared by the packages' tests.
package numtest

import (
	"math"
	"runtime"
)

// RelDiff returns the relative difference ‖a − b‖₂/‖b‖₂ of two vectors (‖a − b‖₂ when b = 0), and +Inf when their
// lengths differ.
func RelDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var num, den float64
	for i := range a {
		num += (a[i] - b[i]) * (a[i] - b[i])
		den += b[i] * b[i]
	}
	if den == 0 {
		return math.Sqrt(num)
	}
	return math.Sqrt(num / den)
}

// LiveGrowth returns how much the live heap grew over a call of f, measured after one garbage collection: what f
// left reachable. f runs once before, so that what it allocates once (lazily built tables) is not counted, and
// three collections clear what anything before it left in the runtime's pools.
func LiveGrowth(f func()) int64 {
	var before, after runtime.MemStats
	f()
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&before)
	f()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}
