//go:build !amd64 || purego

package fastmath

// useAVX2 is always false without the amd64 assembly.
var useAVX2 = false

func sincosVec(sin, cos, x, w []float64) bool { return sincosGeneric(sin, cos, x, w) }

func cosVec(dst, x, w []float64) bool { return cosGeneric(dst, x, w) }
