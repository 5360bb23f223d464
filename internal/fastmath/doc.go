// Package fastmath evaluates sin and cos over slices quickly and accurately, for the cos/sin random-feature maps
// (package feature), where one row of D points needs D sines and D cosines, and exp over slices, for Gaussian kernel
// matrices (package kernel: Nyström features, FALKON, exact kernel ridge regression).
//
//	SinCos(sin, cos, x)             sin[i], cos[i] = sin x[i], cos x[i]
//	SinCosWeighted(sin, cos, x, w)  sin[i], cos[i] = w[i]·sin x[i], w[i]·cos x[i]   (a cos/sin feature row)
//	CosWeighted(dst, x, w)          dst[i] = w[i]·cos x[i]                          (the cos+phase form)
//	Exp(dst, x)                     dst[i] = math.Exp(x[i]), bit for bit
//
// The sections below are about sin and cos; Exp's documentation describes its own kernel, which repeats the
// operations of math.Exp (so its results are math.Exp's on every machine, whatever they are there).
//
// # Algorithm
//
// Range reduction (Cody & Waite, "Software Manual for the Elementary Functions", 1980): k = round(x·2/π), computed
// as (x·2/π + 1.5·2⁵²) − 1.5·2⁵² (round to nearest even); the low two bits of the shifted sum are the quadrant
// k mod 4. Then r = ((x − k·c₁) − k·c₂) − k·c₃ with π/2 ≈ c₁ + c₂ + c₃ split into 33 + 33 + 53 bits, so that k·c₁
// and k·c₂ are exact and x − k·c₁ is exact (Sterbenz) for |k| < 2²⁰. That holds for |x| ≤ Limit = 1.5·2²⁰ ≈ 1.57·10⁶.
// |r| ≤ π/4 (plus a few ulps).
//
// Polynomials: the minimax kernels of fdlibm (__kernel_sin, __kernel_cos; error below 2⁻⁵⁸ on [−π/4, π/4]),
//
//	sin r = r + r·z·P(z),  cos r = w + (((1 − w) − z/2) + z²·Q(z)),  z = r², w = 1 − z/2,
//
// with P and Q of degree 5 in z evaluated by Estrin's scheme, which has half the latency of Horner's. The bracket
// of cos recovers the rounding error of 1 − z/2. The quadrant then swaps sin and cos and flips signs with bit
// operations, with no branches. sin(±0) = ±0 and cos(±0) = 1 exactly.
//
// Slow path: when |x| > Limit, x is NaN or ±Inf, the element is recomputed with math.Sincos. That function reduces
// huge arguments with Payne–Hanek, so the result there is exactly math.Sincos(x) (NaN for NaN and ±Inf). The check
// costs one compare per element; the fix-up loop runs only when such an element was seen.
//
// # Accuracy
//
// The reduction error is at most two roundings of |r| < 1 (≤ 2⁻⁵³). The polynomial error is below 2⁻⁵⁸ and the
// evaluation adds about one rounding of the result. The absolute error is therefore below 3·10⁻¹⁶ on the fast
// range, well within the 1e-15 the tests enforce. Measured against a 400-bit reference on 120000 random inputs
// log-uniform over 2⁻³⁰ ≤ |x| < 1.57·10⁶, the edge inputs (±0, subnormals, multiples of π/4 and π/2 and their
// neighbouring doubles, values around Limit) and 20000 doubles next to k·π/2, k ≤ 10⁶, the maximum absolute error is
// 1.11·10⁻¹⁶ (2⁻⁵³), the same as math.Sincos. Where |sin| or |cos| > 10⁻³ the relative error stays within 2 ulp.
// The weighted variants add one rounding for the product with w[i].
//
// # Determinism and dispatch
//
// On amd64, the AVX2 kernels in sincos_amd64.s (four lanes) are used when CPUID and XGETBV report AVX2 and
// OS-enabled YMM state (package internal/cpu); the exponential's kernel also needs FMA, and is used only where
// math.Exp takes its own FMA branch (checked at start-up on an input where the two branches differ, since GODEBUG
// can narrow what the Go runtime uses of the CPU). Other machines use the portable Go kernel, and so
// does the purego build tag everywhere. Slice tails shorter than four elements always use the portable kernel.
// There is no AVX-512 kernel yet.
//
// Every path performs the same IEEE-754 double operations in the same order, each rounded once, and never fuses a
// multiply and an add. The Go code forbids fusion with explicit float64 conversions. Without them Go emits FMA on
// arm64, ppc64, s390x, riscv64 and on amd64 with GOAMD64=v3 (checked: the bit-identity tests pass with
// GOAMD64=v3). The AVX2 kernel uses separate VMULPD and VADDPD. The output is therefore bit-identical across the
// AVX2 and portable paths, across machines and architectures, and for any GOMAXPROCS, and a feature map gives the
// same features everywhere for a seed. It is not bit-identical to math.Sincos, which differs in the last bit on
// some inputs.
//
// FMA was left out on purpose. math.FMA is an intrinsic only where the CPU has FMA: on amd64 CPUs without it (and
// on 386) it runs in software, tens of times slower than a multiply and an add. A portable path built on math.FMA
// would thus have to be either slow or different, and fusing the seven constant multiply-add steps of the AVX2
// kernel saves only about a tenth of its time: not worth machine-dependent features.
//
// # Performance
//
// The AVX2 kernel is about five times as fast per element as math.Sincos in a loop; the portable kernel is about as
// fast as math.Sincos. BenchmarkSinCos measures them; docs/performance.md has figures for a named CPU.
package fastmath
