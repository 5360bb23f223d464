//go:build !purego

package kernel

import "github.com/rffkit/rff/internal/cpu"

// useQuantizeAVX2 selects the AVX2 kernel of quantizeRow; it is set once from CPUID (and flipped only by tests).
var useQuantizeAVX2 = cpu.AVX2

// quantizeAVX2 is quantizeRowGeneric on n values (n a multiple of 4, n > 0), four at a time; it returns the sum of
// the squares and whether every value was on the grid (the outputs are meaningless when one was not).
//
//go:noescape
func quantizeAVX2(out *float32, row *float64, shift, lo, hi *int32, n int, inv, s float64) (sq float64, ok bool)

// quantizeRow is quantizeRowGeneric, with the AVX2 kernel where the CPU has it (8 times faster).
func quantizeRow(out []float32, row []float64, shift, lo, hi []int32, inv, s float64) (float64, bool) {
	n := len(row)
	m := n &^ 3
	if !useQuantizeAVX2 || m == 0 {
		return quantizeRowGeneric(out, row, shift, lo, hi, inv, s)
	}
	out, shift, lo, hi = out[:n], shift[:n], lo[:n], hi[:n] // bounds checks for the kernel, which has none
	sq, ok := quantizeAVX2(&out[0], &row[0], &shift[0], &lo[0], &hi[0], m, inv, s)
	if !ok || m == n {
		return sq, ok
	}
	tail, ok := quantizeRowGeneric(out[m:], row[m:], shift[m:], lo[m:], hi[m:], inv, s)
	return sq + tail, ok // integers below 2⁵³: exact in any order
}
