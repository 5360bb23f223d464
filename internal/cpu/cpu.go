// Package cpu reports, once at start-up, which x86-64 vector extensions the assembly kernels of rff may use: the
// CPU must implement them (CPUID) and the operating system must save the YMM registers across context switches
// (XGETBV). The kernels of internal/fastmath and internal/structured need AVX2 (fastmath's exponential also FMA3);
// the matrix micro-kernel of internal/linalg/avx2 needs AVX2 and FMA3. On other architectures, and with the purego build tag, everything is
// false and the portable code runs.
package cpu

// Features lists the extensions the kernels may use, in this order: "avx2", "fma", "avx512" (F, CD, DQ, BW and VL).
func Features() []string {
	var f []string
	for _, c := range []struct {
		ok   bool
		name string
	}{{AVX2, "avx2"}, {FMA, "fma"}, {AVX512, "avx512"}} {
		if c.ok {
			f = append(f, c.name)
		}
	}
	return f
}
