//go:build !amd64 || purego

package kernel

// useQuantizeAVX2 is always false without the amd64 assembly.
var useQuantizeAVX2 = false

func quantizeRow(out []float32, row []float64, shift, lo, hi []int32, inv, s float64) (float64, bool) {
	return quantizeRowGeneric(out, row, shift, lo, hi, inv, s)
}
