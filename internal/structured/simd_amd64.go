//go:build !purego

package structured

import "github.com/rffkit/rff/internal/cpu"

// useAVX2 selects the AVX2 kernels of simd_amd64.s; it is set once at
// start-up from CPUID (and flipped only by tests).
var useAVX2 = cpu.AVX2

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

// The single-vector butterfly kernels (butterfly.go, applyVec): the low levels
// 0–3 on nb blocks of 16 values (bflyLowTAVX2 in ascending order for Fᵀ,
// bflyLowAVX2 descending for F), and one level of half h (a multiple of 8) on
// its first nb blocks. cos and sin point at the butterfly's first angle;
// bflyLowTAVX2 first multiplies the values by signs unless it is nil.

//go:noescape
func bflyLowTAVX2(x, cos, sin, signs *float64, nb int, sign float64)

//go:noescape
func bflyLowAVX2(x, cos, sin *float64, nb int, sign float64)

//go:noescape
func bflyLevelAVX2(x, cos, sin *float64, h, nb int, sign float64)

// fwhtLowAVX2 runs the Walsh–Hadamard stages of halves 1, 2, 4 and 8 on nb
// blocks of 16 values of one vector, first multiplying them by signs unless it
// is nil, and multiplies the results by scale.
//
//go:noescape
func fwhtLowAVX2(x, signs *float64, nb int, scale float64)

// gatherRows sets dst[i] = src[idx[i]] for i < n (a positive multiple of 4);
// every index must lie in src.
//
//go:noescape
func gatherRows(dst, src *float64, idx *int32, n int)
