package kernel

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/misusetest"
)

// TestShapeOverflow: GramDense refuses an input whose rows × columns overflow int — a gonum matrix built on a
// wrapped product (mat.NewDense checks r·c == len(data) in int arithmetic) or a Matrix reporting such dimensions —
// or exceed the limit of one array, with an error, instead of panicking while it copies the input.
func TestShapeOverflow(t *testing.T) {
	const d = 1 << 62
	n := misusetest.WrappedCount(d, 0) // n·d wraps around to 0: mat.NewDense takes an empty slice for it
	X := mat.NewDense(n, d, []float64{})
	small := misusetest.Shape{R: 1, C: d}
	k := Gaussian{S: 1}
	misusetest.Check(t, []misusetest.Case{
		{"GramDense wrapped X", func() error { _, err := GramDense(k, X, small); return err }, "kernel.GramDense: X"},
		{"GramDense X beyond the size limit", func() error { _, err := GramDense(k, small, X); return err }, "kernel.GramDense: X"},
		{"GramDense wrapped dimensions", func() error { _, err := GramDense(k, misusetest.Shape{R: n, C: d}, small); return err },
			"kernel.GramDense: X"},
	})
}
