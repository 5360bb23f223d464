//go:build !purego

package kernel

import "github.com/rffkit/rff/internal/cpu"

// useDirectAVX2 selects the AVX2 kernel of distPanels; it is set once from CPUID (and flipped only by tests).
var useDirectAVX2 = cpu.AVX2

// distPanelsAVX2 is distPanelsGeneric on panels > 0 panels of dirPanel centres, d > 0.
//
//go:noescape
func distPanelsAVX2(dst, x, yt *float64, panels, d int, mode dirMode, sigma float64)

func distPanels(dst, x, yt []float64, d int, mode dirMode, sigma float64) {
	panels := len(dst) / dirPanel
	if !useDirectAVX2 || panels == 0 || d == 0 {
		distPanelsGeneric(dst, x, yt, d, mode, sigma)
		return
	}
	_, _ = x[d-1], yt[panels*d*dirPanel-1] // bounds checks for the kernel, which has none
	distPanelsAVX2(&dst[0], &x[0], &yt[0], panels, d, mode, sigma)
}
