//go:build !purego

package fastmath

import (
	"os"
	"strings"
	"testing"

	"github.com/rffkit/rff/internal/cpu"
)

// TestExpKernelChosen: on a CPU with AVX2 and FMA, and no GODEBUG narrowing what the Go runtime uses of it, the
// exponential's FMA kernel is chosen — the probe of math.Exp's branch must not switch it off.
func TestExpKernelChosen(t *testing.T) {
	if !cpu.AVX2 || !cpu.FMA || strings.Contains(os.Getenv("GODEBUG"), "cpu.") {
		t.Skip("no AVX2 and FMA, or GODEBUG narrows the CPU features")
	}
	if !useFMA {
		t.Error("the FMA exponential kernel is off on a CPU with AVX2 and FMA")
	}
}
