package feature

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/misusetest"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// TestShapeOverflow: Map.Transform refuses an input whose rows × columns overflow int — a gonum matrix built on a
// wrapped product (mat.NewDense checks r·c == len(data) in int arithmetic) or a Matrix reporting such dimensions —
// with an error, instead of panicking while it copies the input.
func TestShapeOverflow(t *testing.T) {
	const d = 4
	m, err := New(kernel.Gaussian{S: 1}, rule.G{}, d, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	F := m.Features()
	n := misusetest.WrappedCount(d, d) // n·d wraps around to 4 (one row), and so does n·F for F = 4
	if F != d {
		t.Fatalf("the map has %d features, want %d", F, d)
	}
	x := mat.NewDense(n, d, make([]float64, d))
	dst := func() *mat.Dense { return mat.NewDense(n, F, make([]float64, F)) }
	misusetest.Check(t, []misusetest.Case{
		{"Transform wrapped x and dst", func() error { return m.Transform(dst(), x) }, "feature map: Transform: input"},
		{"Transform wrapped x, empty dst", func() error { return m.Transform(&mat.Dense{}, x) }, "feature map: Transform"},
		{"Transform wrapped dimensions", func() error { return m.Transform(dst(), misusetest.Shape{R: n, C: d}) },
			"feature map: Transform: input"},
	})
}
