package model

import (
	"testing"

	"github.com/rffkit/rff/internal/misusetest"
)

type zeroValue = misusetest.Zero

// TestNilReceiver: MapDim is 0 for a nil or zero Header or Model instead of a panic.
func TestNilReceiver(t *testing.T) {
	var (
		nilHeader *Header
		nilModel  *Model
	)
	misusetest.CheckZero(t, []zeroValue{
		{"Header.MapDim nil", func() any { return nilHeader.MapDim() }, 0},
		{"Header.MapDim zero", func() any { return (&Header{}).MapDim() }, 0},
		{"Model.MapDim nil", func() any { return nilModel.MapDim() }, 0},
		{"Model.MapDim zero", func() any { return (&Model{}).MapDim() }, 0},
	})
}
