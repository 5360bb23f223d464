package feature

import (
	"runtime"
	"testing"

	"github.com/rffkit/rff/internal/numtest"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// TestScratchNotRetained: the per-goroutine scratch of TransformRows and Gradient is garbage when a call returns,
// so that calls in a loop (a prediction over many row blocks) hold at most one call's scratch after a collection.
func TestScratchNotRetained(t *testing.T) {
	const d, D, rows, calls = 4, 512, 512, 20
	m, err := New(kernel.Gaussian{S: 1}, rule.G{}, d, D, 1)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, rows*d)
	for i := range x {
		x[i] = float64(i%7) / 7
	}
	z, g := make([]float64, rows*m.Features()), make([]float64, rows*d*m.Features())
	workers := int64(runtime.GOMAXPROCS(0))
	oneCall := 8 * workers * blockRows * int64(D+m.Features()) // the most scratch one call allocates
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"TransformRows", func() error { return m.TransformRows(z, x, rows) }},
		{"Gradient", func() error { return m.Gradient(g, x, rows) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			grew := numtest.LiveGrowth(func() {
				for range calls {
					if e := c.call(); e != nil {
						err = e
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if grew > oneCall {
				t.Errorf("%d calls left %d bytes live after a collection; one call's scratch is at most %d", calls, grew, oneCall)
			}
		})
	}
}
