//go:build !amd64 || purego

package avx2

// Available is always false without the amd64 assembly.
var Available = false

// Kern4x12 is not available on this architecture; it panics.
func Kern4x12(kc int, a, b, c *float64, ldc int) {
	panic("avx2: Kern4x12 without the amd64 assembly")
}

// AxpyFMA is not available on this architecture; it panics.
func AxpyFMA(n int, a float64, x, y *float64) {
	panic("avx2: AxpyFMA without the amd64 assembly")
}

// Dots16FMA is not available on this architecture; it panics.
func Dots16FMA(k4 int, x, b *float64, ldb int, c *float64) {
	panic("avx2: Dots16FMA without the amd64 assembly")
}
