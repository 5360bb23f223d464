// Package numtest holds the numerical comparisons shared by the packages' tests.
package numtest

import "math"

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
