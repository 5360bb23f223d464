//go:build !amd64 || purego

package cpu

// AVX2 and FMA are false without the amd64 assembly.
var (
	AVX2 = false
	FMA  = false
)

// isAsm is false: nothing is detected in this build.
const isAsm = false
