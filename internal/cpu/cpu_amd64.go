//go:build amd64 && !purego

package cpu

// AVX2 reports whether the CPU implements AVX2 and the OS saves the YMM registers.
var AVX2 = hasAVX2()

// FMA reports whether AVX2 holds and the CPU implements FMA3 (VFMADD…PD on YMM registers).
var FMA = AVX2 && hasFMA()

// hasAVX2 checks CPUID leaf 1 (OSXSAVE, AVX), XCR0 (XMM and YMM state enabled by the OS) and leaf 7 (AVX2).
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
	if xcr0, _ := xgetbv(); xcr0&6 != 6 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}

// hasFMA checks CPUID leaf 1 for FMA3.
func hasFMA() bool {
	_, _, ecx1, _ := cpuid(1, 0)
	return ecx1&(1<<12) != 0
}

//go:noescape
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

//go:noescape
func xgetbv() (eax, edx uint32)

// isAsm is true where the detection above runs.
const isAsm = true
