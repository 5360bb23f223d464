//go:build !amd64 || purego

package structured

// useAVX2 is always false without the amd64 assembly; the stubs below are
// never called.
var useAVX2 = false

func hadamard2AVX2(r0, r1 *float64, n int)                          { panic("unreachable") }
func hadamard2ScaledAVX2(r0, r1 *float64, n int, s float64)         { panic("unreachable") }
func hadamard4AVX2(r0, r1, r2, r3 *float64, n int)                  { panic("unreachable") }
func hadamard4ScaledAVX2(r0, r1, r2, r3 *float64, n int, s float64) { panic("unreachable") }
func rot2toAVX2(y1, y2, x1, x2 *float64, n int, c, s float64)       { panic("unreachable") }
func rot4HiLoAVX2(y0, y1, y2, y3, x0, x1, x2, x3 *float64, n int, cH, sH, c0, s0, c1, s1 float64) {
	panic("unreachable")
}
func rot4LoHiAVX2(y0, y1, y2, y3, x0, x1, x2, x3 *float64, n int, cH, sH, c0, s0, c1, s1 float64) {
	panic("unreachable")
}
func bflyLowTAVX2(x, cos, sin, signs *float64, nb int, sign float64) { panic("unreachable") }
func bflyLowAVX2(x, cos, sin *float64, nb int, sign float64)         { panic("unreachable") }
func bflyLevelAVX2(x, cos, sin *float64, h, nb int, sign float64)    { panic("unreachable") }
func fwhtLowAVX2(x, signs *float64, nb int, scale float64)           { panic("unreachable") }
func gatherRows(dst, src *float64, idx *int32, n int)                { panic("unreachable") }
