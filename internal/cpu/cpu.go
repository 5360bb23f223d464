// Package cpu reports, once at start-up, which x86-64 vector extensions the assembly kernels of rff may use: the
// CPU must implement them (CPUID) and the operating system must save the YMM registers across context switches
// (XGETBV). The kernels of internal/fastmath and internal/structured need AVX2; the matrix micro-kernel of
// internal/linalg/avx2 needs AVX2 and FMA3. On other architectures, and with the purego build tag, everything is
// false and the portable code runs.
package cpu
