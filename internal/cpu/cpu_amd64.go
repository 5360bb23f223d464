//go:build amd64 && !purego

package cpu

import "strings"

// AVX2 reports whether the CPU implements AVX2 and the OS saves the YMM registers.
var AVX2 = hasAVX2()

// FMA reports whether AVX2 holds and the CPU implements FMA3 (VFMADD…PD on YMM registers).
var FMA = AVX2 && hasFMA()

// AVX512 reports whether AVX2 and FMA hold, the CPU implements AVX-512 F, CD, DQ, BW and VL (what OpenBLAS's
// SkylakeX kernels use) and the OS saves the opmask and ZMM registers.
var AVX512 = FMA && hasAVX512()

// hasAVX512 checks CPUID leaf 7 (EBX bits 16, 17, 28, 30, 31) and XCR0 (opmask, ZMM_Hi256, Hi16_ZMM).
func hasAVX512() bool {
	_, ebx7, _, _ := cpuid(7, 0)
	const need = 1<<16 | 1<<17 | 1<<28 | 1<<30 | 1<<31
	xcr0, _ := xgetbv()
	return ebx7&need == need && xcr0&0xe6 == 0xe6
}

// Name returns the processor brand string (CPUID leaves 0x80000002–4; virtual machines often shorten it) and the
// family and model numbers of leaf 1 (extended family and model added as the vendors define them), or "" and 0, 0
// where the leaves are missing.
func Name() (name string, family, model int) {
	if maxExt, _, _, _ := cpuid(0x80000000, 0); maxExt >= 0x80000004 {
		var b []byte
		for leaf := uint32(0x80000002); leaf <= 0x80000004; leaf++ {
			a, bx, c, d := cpuid(leaf, 0)
			for _, r := range []uint32{a, bx, c, d} {
				b = append(b, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
			}
		}
		name = strings.TrimSpace(strings.TrimRight(string(b), "\x00"))
	}
	eax, _, _, _ := cpuid(1, 0)
	family = int(eax>>8) & 0xf
	model = int(eax>>4) & 0xf
	if family == 0xf {
		family += int(eax>>20) & 0xff
	}
	if family == 0x6 || family >= 0xf {
		model += int(eax>>16) & 0xf << 4
	}
	return name, family, model
}

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
