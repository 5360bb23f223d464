//go:build !amd64 || purego

package kernel

// useDirectAVX2 is always false without the amd64 assembly.
var useDirectAVX2 = false

func distPanels(dst, x, yt []float64, d int, mode dirMode, sigma float64) {
	distPanelsGeneric(dst, x, yt, d, mode, sigma)
}
