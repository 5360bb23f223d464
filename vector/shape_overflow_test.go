package vector

import (
	"testing"

	"github.com/rffkit/rff/internal/misusetest"
	"gonum.org/v1/gonum/mat"
)

// TestDecouplingMisuse: Decouple and Decoupling.Rotate return an error, not a panic, for a nil, zero or
// hand-assembled Decoupling, a row count whose product with the outputs overflows, and an A too large for any array.
func TestDecouplingMisuse(t *testing.T) {
	var nilDc *Decoupling
	Y := []float64{1, 2}
	misusetest.Check(t, []misusetest.Case{
		{"Decoupling.Rotate nil", func() error { _, err := nilDc.Rotate(Y, 1); return err }, "inconsistent"},
		{"Decoupling.Rotate zero", func() error { _, err := (&Decoupling{}).Rotate(nil, 0); return err }, "inconsistent"},
		{"Decoupling.Rotate wrapped rows", func() error {
			// n·3 wraps around to 2 in int arithmetic: the shape must not be taken for 2 values.
			dc, err := Decouple(mat.NewSymDense(3, []float64{2, 0, 0, 0, 1, 0, 0, 0, 1}))
			if err != nil {
				return nil
			}
			_, err = dc.Rotate(Y, misusetest.WrappedCount(3, 2))
			return err
		}, "values for"},
		{"Decouple of a p×p matrix whose size overflows", func() error {
			_, err := Decouple(mat.NewSymDense(1<<32, []float64{})) // gonum checks p·p = 0 in int arithmetic
			return err
		}, "vector.Decouple: A"},
		{"Decoupling.Rotate short W", func() error {
			_, err := (&Decoupling{P: 2, W: []float64{1}}).Rotate(Y, 1)
			return err
		}, "inconsistent"},
	})
}
