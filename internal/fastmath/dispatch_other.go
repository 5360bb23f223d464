//go:build !amd64 || purego

package fastmath

// useAVX2 and useFMA are always false without the amd64 assembly.
var (
	useAVX2 = false
	useFMA  = false
)

func expVec(dst, x []float64, n int) int { return 0 }

func sincosVec(sin, cos, x, w []float64) bool { return sincosGeneric(sin, cos, x, w) }

func cosVec(dst, x, w []float64) bool { return cosGeneric(dst, x, w) }
