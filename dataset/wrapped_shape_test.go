package dataset

import (
	"testing"

	"github.com/rffkit/rff/internal/misusetest"
)

// TestWrappedShape: a row count whose product with the columns overflows is an error, not a shape that matches.
func TestWrappedShape(t *testing.T) {
	n := misusetest.WrappedCount(3, 2)
	if n == 0 || n*3 != 2 {
		t.Fatalf("misusetest.WrappedCount(3, 2) = %d", n)
	}
	x := []float64{1, 2}
	misusetest.Check(t, []misusetest.Case{
		{"FitScaler", func() error { _, err := FitScaler(x, n, 3, []Step{StepStandardize}); return err }, "want n×d"},
		{"ScalerAccumulator.Add", func() error { return NewScalerAccumulator(3).Add(x, n) }, "has 2 values"},
	})
}
