package vector

import (
	"testing"

	"github.com/rffkit/rff/internal/misusetest"
)

// TestNilReceiver: Decoupling.Rotate returns an error, not a panic, for a nil, zero or hand-assembled Decoupling.
func TestNilReceiver(t *testing.T) {
	var nilDc *Decoupling
	Y := []float64{1, 2}
	misusetest.Check(t, []misusetest.Case{
		{"Decoupling.Rotate nil", func() error { _, err := nilDc.Rotate(Y, 1); return err }, "inconsistent"},
		{"Decoupling.Rotate zero", func() error { _, err := (&Decoupling{}).Rotate(nil, 0); return err }, "inconsistent"},
		{"Decoupling.Rotate short W", func() error {
			_, err := (&Decoupling{P: 2, W: []float64{1}}).Rotate(Y, 1)
			return err
		}, "inconsistent"},
	})
}
