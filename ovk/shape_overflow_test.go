package ovk

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/misusetest"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// wrappedSym is a symmetric n×n matrix of ones that exists only through its dimension.
type wrappedSym struct{ n int }

func (w wrappedSym) Dims() (int, int)    { return w.n, w.n }
func (w wrappedSym) At(i, j int) float64 { return 1 }
func (w wrappedSym) T() mat.Matrix       { return w }
func (w wrappedSym) SymmetricDim() int   { return w.n }

// TestShapeOverflow: the functions taking gonum matrices refuse a matrix whose size overflows int — one built on a
// wrapped product (gonum checks r·c == len(data) in int arithmetic) or one reporting such dimensions — with an error,
// instead of panicking while they copy or index it.
func TestShapeOverflow(t *testing.T) {
	const d = 4
	I4 := mat.NewSymDense(d, []float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1})
	k, err := NewDecomposable(kernel.Gaussian{S: 1}, I4) // p = 4 outputs
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(k, rule.G{}, d, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	F := m.Features()
	n := misusetest.WrappedCount(d, d) // n·d and n·p wrap around to 4: one row of x, 4 rows of the design matrix
	x := mat.NewDense(n, d, make([]float64, d))
	dst := func() *mat.Dense { return mat.NewDense(d, F, nil) }

	k1, err := NewDecomposable(kernel.Gaussian{S: 1}, mat.NewSymDense(1, []float64{1})) // p = 1
	if err != nil {
		t.Fatal(err)
	}
	const wide = 1 << 62
	nw := misusetest.WrappedCount(wide, 0) // nw·wide wraps around to 0
	X := mat.NewDense(nw, wide, []float64{})
	small := misusetest.Shape{R: 1, C: wide}

	const big = 1 << 32 // big·big wraps around to 0
	gaussian := kernel.Gaussian{S: 1}
	misusetest.Check(t, []misusetest.Case{
		{"Map.Transform wrapped x", func() error { return m.Transform(dst(), x) }, "ORFF map: Transform: input"},
		{"Map.Transform wrapped dimensions", func() error { return m.Transform(dst(), misusetest.Shape{R: n, C: d}) },
			"ORFF map: Transform: input"},
		{"GramDense wrapped X", func() error { _, err := GramDense(k1, X, small); return err }, "ovk.GramDense: X"},
		{"GramDense X beyond the size limit", func() error { _, err := GramDense(k1, small, X); return err }, "ovk.GramDense: X"},
		{"GramDense wrapped dimensions", func() error { _, err := GramDense(k1, misusetest.Shape{R: nw, C: wide}, small); return err },
			"ovk.GramDense: X"},
		{"NewDecomposable wrapped A", func() error {
			_, err := NewDecomposable(gaussian, mat.NewSymDense(big, []float64{}))
			return err
		}, "decomposable kernel: A"},
		{"NewDecomposable wrapped dimension", func() error { _, err := NewDecomposable(gaussian, wrappedSym{big}); return err },
			"decomposable kernel: A"},
		{"Parse wrapped A", func() error { _, err := Parse("decomposable", 1, wrappedSym{big}); return err },
			"decomposable kernel: A"},
	})
}
