//go:build amd64 && !purego

package avx2

// Available reports whether the CPU has AVX2 and FMA3 and the OS saves the YMM
// registers; Kern4x12 may only be called when it is true.
var Available = hasAVX2FMA()

// hasAVX2FMA checks CPUID leaf 1 (FMA, OSXSAVE, AVX), XCR0 (XMM and YMM state
// enabled by the OS) and leaf 7 (AVX2).
func hasAVX2FMA() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if ecx1&fma == 0 || ecx1&osxsave == 0 || ecx1&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}

//go:noescape
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

//go:noescape
func xgetbv() (eax, edx uint32)

// Kern4x12 updates the 4×12 tile of C at c (row stride ldc) with the product
// of two packed panels, a (kc groups of MR values, one per row of the tile)
// and b (kc groups of NR values, one per column): for l = 0, 1, …, kc−1 in
// that order, C[r][s] = fma(a[l·MR+r], b[l·NR+s], C[r][s]), the tile being
// held in registers in between. So a long sum split over several calls gives
// the very bits of one call. kc ≥ 0; a must hold MR·kc values, b NR·kc, and c
// rows of 12 values at c, c+ldc, c+2ldc, c+3ldc. It must only be called when
// Available is true.
//
//go:noescape
func Kern4x12(kc int, a, b, c *float64, ldc int)
