//go:build amd64 && !purego

package avx2

import "github.com/rffkit/rff/internal/cpu"

// Available reports whether the CPU has AVX2 and FMA3 and the OS saves the YMM
// registers; Kern4x12 may only be called when it is true.
var Available = cpu.FMA

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

// AxpyFMA sets y[i] = fma(a, x[i], y[i]) for i < n, each element exactly as math.FMA rounds it (the vector lanes
// are independent). n ≥ 0; x and y must hold n values (any pointer when n = 0). It must only be called when
// Available is true.
//
//go:noescape
func AxpyFMA(n int, a float64, x, y *float64)

// Dots16FMA sets c[j] (j < 16) to the fused multiply-add chain over the first 4·k4 terms of x·B[j], B's row j
// starting at b[j·ldb]: c[j] = fma(x[l], B[j][l], c[j]) for l = 0, 1, …, 4·k4−1 in order from +0 — the bits of
// math.FMA in that order (a caller continues the chains for the remaining terms). x must hold 4·k4 values and each of
// the 16 rows of B 4·k4 values. It must only be called when Available is true.
//
//go:noescape
func Dots16FMA(k4 int, x, b *float64, ldb int, c *float64)
