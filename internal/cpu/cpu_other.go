//go:build !amd64 || purego

package cpu

// AVX2, FMA and AVX512 are false without the amd64 assembly.
var (
	AVX2   = false
	FMA    = false
	AVX512 = false
)

// Name returns "", 0, 0: nothing is detected in this build.
func Name() (name string, family, model int) { return "", 0, 0 }

// isAsm is false: nothing is detected in this build.
const isAsm = false
