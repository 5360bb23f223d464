//go:build !purego

package structured

// useAVX2 selects the AVX2 kernels of simd_amd64.s; it is set once at
// start-up from CPUID (and flipped only by tests).
var useAVX2 = hasAVX2()

// hasAVX2 reports whether the CPU supports AVX2 and the OS saves the YMM
// registers.
func hasAVX2() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if ecx1&osxsave == 0 || ecx1&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 { // XMM and YMM state enabled
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}

//go:noescape
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

//go:noescape
func xgetbv() (eax, edx uint32)

// The kernels process n values (n > 0, a multiple of 4) of each row.

//go:noescape
func hadamard2AVX2(r0, r1 *float64, n int)

//go:noescape
func hadamard2ScaledAVX2(r0, r1 *float64, n int, s float64)

//go:noescape
func hadamard4AVX2(r0, r1, r2, r3 *float64, n int)

//go:noescape
func hadamard4ScaledAVX2(r0, r1, r2, r3 *float64, n int, s float64)

//go:noescape
func rot2toAVX2(y1, y2, x1, x2 *float64, n int, c, s float64)

//go:noescape
func rot4HiLoAVX2(y0, y1, y2, y3, x0, x1, x2, x3 *float64, n int, cH, sH, c0, s0, c1, s1 float64)

//go:noescape
func rot4LoHiAVX2(y0, y1, y2, y3, x0, x1, x2, x3 *float64, n int, cH, sH, c0, s0, c1, s1 float64)
