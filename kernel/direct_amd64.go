//go:build !purego

package kernel

import "github.com/rffkit/rff/internal/cpu"

// useDirectAVX2 selects the AVX2 kernel of sqDistPanels; it is set once from CPUID (and flipped only by tests).
var useDirectAVX2 = cpu.AVX2

// sqDistPanelsAVX2 is sqDistPanelsGeneric on panels > 0 panels of dirPanel centres, d > 0.
//
//go:noescape
func sqDistPanelsAVX2(dst, x, yt *float64, panels, d int)

func sqDistPanels(dst, x, yt []float64, d int) {
	panels := len(dst) / dirPanel
	if !useDirectAVX2 || panels == 0 || d == 0 {
		sqDistPanelsGeneric(dst, x, yt, d)
		return
	}
	_, _ = x[d-1], yt[panels*d*dirPanel-1] // bounds checks for the kernel, which has none
	sqDistPanelsAVX2(&dst[0], &x[0], &yt[0], panels, d)
}
