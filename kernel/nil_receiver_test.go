package kernel

import (
	"testing"

	"github.com/rffkit/rff/internal/misusetest"
)

type zeroValue = misusetest.Zero

// TestNilReceiver: the accessors of package kernel describe a nil or zero Centres by zero values instead of
// panicking.
func TestNilReceiver(t *testing.T) {
	var nilCentres *Centres
	misusetest.CheckZero(t, []zeroValue{
		{"Centres.Points nil", func() any { return nilCentres.Points() }, 0},
		{"Centres.Points zero", func() any { return (&Centres{}).Points() }, 0},
	})
}
