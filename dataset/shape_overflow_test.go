package dataset

import (
	"testing"

	"github.com/rffkit/rff/internal/misusetest"
)

// TestShapeOverflow: a row count whose product with the width of the data overflows int is an error — for the
// generators, whose size check once multiplied in int64 and let such a count through to a panic, for Classes.Code
// on a Data whose N does not match its targets, and for the scaler's fit and accumulator, whose checks once
// multiplied in int.
func TestShapeOverflow(t *testing.T) {
	wrapped := func(width int) int { // a count n whose product with width wraps around to a few values
		for L := 1; L < 64; L++ {
			if n := misusetest.WrappedCount(width, L); n > 0 {
				return n
			}
		}
		t.Fatalf("no wrapped count for width %d", width)
		return 0
	}
	curl, multi := wrapped(2*CurlFieldDim), wrapped(MultitaskDim+MultitaskOutputs)
	n := misusetest.WrappedCount(3, 2)
	bad := &Data{X: make([]float64, 2), N: n, D: 3, Y: make([]float64, 2)}
	classes := NewClasses([]string{"0", "1"}, true)
	misusetest.Check(t, []misusetest.Case{
		{"Generate curl-field", func() error { _, err := Generate("curl-field", curl, 1, 0); return err }, "exceed the limit"},
		{"GenerateCurlField", func() error { _, err := GenerateCurlField(curl, 1, 0); return err }, "exceed the limit"},
		{"Generate multitask", func() error { _, err := Generate("multitask", multi, 1, 0); return err }, "exceed the limit"},
		{"GenerateMultitask", func() error { _, err := GenerateMultitask(multi, 1, 0); return err }, "exceed the limit"},
		{"Classes.Code wrapped N", func() error { _, err := classes.Code(bad); return err }, "targets for"},
		{"Classes.Code negative N", func() error { _, err := classes.Code(&Data{N: -1}); return err }, "targets for"},
		{"FitScaler", func() error { _, err := FitScaler(bad.X, n, 3, []Step{StepStandardize}); return err }, "want n×d"},
		{"ScalerAccumulator.Add", func() error { return NewScalerAccumulator(3).Add(bad.X, n) }, "has 2 values"},
	})
}
