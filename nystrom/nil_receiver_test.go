package nystrom

import (
	"testing"

	"github.com/rffkit/rff/internal/misusetest"
	"github.com/rffkit/rff/kernel"
)

type zeroValue = misusetest.Zero

// TestNilReceiver: the accessors of a nil or zero Map return zero values instead of panicking.
func TestNilReceiver(t *testing.T) {
	var nilMap *Map
	for _, r := range []struct {
		name string
		m    *Map
	}{{"nil", nilMap}, {"zero", &Map{}}} {
		m := r.m
		misusetest.CheckZero(t, []zeroValue{
			{"Dim " + r.name, func() any { return m.Dim() }, 0},
			{"Features " + r.name, func() any { return m.Features() }, 0},
			{"Points " + r.name, func() any { return m.Points() }, 0},
			{"Centres " + r.name, func() any { return m.Centres() }, 0},
			{"Kernel " + r.name, func() any { return m.Kernel() }, kernel.Kernel(nil)},
			{"Landmarks " + r.name, func() any { return m.Landmarks() }, []float64(nil)},
			{"Eigenvalues " + r.name, func() any { return m.Eigenvalues() }, []float64(nil)},
			{"Pivots " + r.name, func() any { return m.Pivots() }, []float64(nil)},
			{"Basis " + r.name, func() any { return m.Basis() }, Cholesky},
			{"Threshold " + r.name, func() any { return m.Threshold() }, 0.0},
			{"Selection " + r.name, func() any { return m.Selection() }, ""},
			{"Seed " + r.name, func() any { return m.Seed() }, uint64(0)},
		})
	}
}
