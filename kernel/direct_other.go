//go:build !amd64 || purego

package kernel

// useDirectAVX2 is always false without the amd64 assembly.
var useDirectAVX2 = false

func distPanels(dst, x, yt []float64, d int, l1 bool) { distPanelsGeneric(dst, x, yt, d, l1) }
