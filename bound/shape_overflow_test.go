package bound

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/rffkit/rff/internal/misusetest"
)

// TestShapeOverflow: a multi-index shorter than a huge dimension d is refused before anything of length d is
// allocated: at d = MaxDim the entries of p+q alone would take 1 TiB, which no recover can catch.
func TestShapeOverflow(t *testing.T) {
	// small reports an allocation of more than 64 MiB by call as an error (which Want then does not match).
	small := func(call func() error) func() error {
		return func() error {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := call()
			runtime.ReadMemStats(&after)
			if a := after.TotalAlloc - before.TotalAlloc; a > 64<<20 {
				return fmt.Errorf("allocated %d bytes (error %v)", a, err)
			}
			return err
		}
	}
	const want = "multi-index of length 1"
	cases := []misusetest.Case{
		{"Spectrum.Bernstein p", small(func() error {
			_, _, err := Spectrum{Kernel: "gaussian", Dim: MaxDim, Sigma: 1}.Bernstein([]int{1}, nil)
			return err
		}), want},
		{"Spectrum.Bernstein q", small(func() error {
			_, _, err := Spectrum{Kernel: "gaussian", Dim: MaxDim, Sigma: 1}.Bernstein(nil, []int{1})
			return err
		}), want},
	}
	for _, name := range []string{"ss-deriv", "ss-deriv-bounded", "ss-deriv-unbounded"} {
		p := Params{Dim: MaxDim, Diameter: 1, Delta: 0.01, Kernel: "gaussian", M: 1000, P: []int{1}}
		cases = append(cases, misusetest.Case{Name: "Compute " + name, Call: small(func() error {
			_, err := Compute(name, p)
			return err
		}), Want: want})
	}
	misusetest.Check(t, cases)
}
