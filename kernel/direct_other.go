//go:build !amd64 || purego

package kernel

// useDirectAVX2 is always false without the amd64 assembly.
var useDirectAVX2 = false

func sqDistPanels(dst, x, yt []float64, d int) { sqDistPanelsGeneric(dst, x, yt, d) }
