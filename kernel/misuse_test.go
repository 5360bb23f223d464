package kernel

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/misusetest"
)

// misuse is one call a caller can get wrong: it must return an error whose message contains want, and never panic.
type misuse = misusetest.Case

// nilPtrKernel is a kernel implemented on a pointer, passed as a nil pointer.
type nilPtrKernel struct{ s float64 }

func (k *nilPtrKernel) Eval(x, y []float64) float64 { return k.s }
func (k *nilPtrKernel) Name() string                { return "ptr" }

// TestMisuse: the exported functions of package kernel return errors, not panics, for arguments a caller can get
// wrong: nil kernels and matrices, lengths that do not match (also when a product of sizes overflows int), sizes no
// machine can hold, and absurd derivative orders.
func TestMisuse(t *testing.T) {
	g := Gaussian{S: 1}
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	var nilPtr *nilPtrKernel
	big := 1 << 32 // big·big wraps to 0 in int arithmetic
	misusetest.Check(t, []misuse{
		{"Gram nil kernel", func() error { return Gram(make([]float64, 4), nil, x[:4], 2, x[:4], 2, 2) }, "kernel"},
		{"Gram nil kernel d ≥ 8", func() error { return Gram(make([]float64, 4), nil, x, 2, x, 2, 8) }, "kernel"},
		{"Gram nil pointer kernel", func() error { return Gram(make([]float64, 4), nilPtr, x[:4], 2, x[:4], 2, 2) }, "kernel"},
		{"Gram short X", func() error { return Gram(make([]float64, 4), g, x[:3], 2, x[:4], 2, 2) }, "shapes"},
		{"Gram short dst", func() error { return Gram(make([]float64, 3), g, x[:4], 2, x[:4], 2, 2) }, "shapes"},
		{"Gram d = 0", func() error { return Gram(nil, g, nil, 2, nil, 2, 0) }, "shapes"},
		{"Gram negative n", func() error { return Gram(nil, g, nil, -1, nil, 1, 1) }, "shapes"},
		{"Gram overflowing n·d", func() error { return Gram(nil, g, nil, big, nil, 0, big) }, "shapes"},
		{"NewCentres nil kernel", func() error { _, err := NewCentres(nil, x[:4], 2, 2); return err }, "kernel"},
		{"NewCentres short Y", func() error { _, err := NewCentres(g, x[:3], 2, 2); return err }, "shapes"},
		{"NewCentres d = 0", func() error { _, err := NewCentres(g, nil, 2, 0); return err }, "shapes"},
		{"NewCentres overflowing m·d", func() error { _, err := NewCentres(g, nil, big, big); return err }, "shapes"},
		{"Centres.Gram nil", func() error { var c *Centres; return c.Gram(make([]float64, 4), x[:4], 2) }, "nil"},
		{"Centres.Gram zero", func() error { return (&Centres{}).Gram(make([]float64, 4), x[:4], 2) }, "NewCentres"},
		{"Centres.Gram short X", func() error {
			c, _ := NewCentres(g, x[:4], 2, 2)
			return c.Gram(make([]float64, 4), x[:3], 2)
		}, "shapes"},
		{"Centres.Gram short dst", func() error {
			c, _ := NewCentres(g, x[:4], 2, 2)
			return c.Gram(make([]float64, 3), x[:4], 2)
		}, "shapes"},
		{"GramDense nil kernel", func() error {
			_, err := GramDense(nil, mat.NewDense(2, 2, x[:4]), mat.NewDense(2, 2, x[:4]))
			return err
		}, "kernel"},
		{"GramDense nil X", func() error { _, err := GramDense(g, nil, mat.NewDense(2, 2, x[:4])); return err }, "nil"},
		{"GramDense nil Y", func() error { _, err := GramDense(g, mat.NewDense(2, 2, x[:4]), nil); return err }, "nil"},
		{"GramDense empty", func() error { _, err := GramDense(g, &mat.Dense{}, &mat.Dense{}); return err }, "empty"},
		{"GramDense columns", func() error {
			_, err := GramDense(g, mat.NewDense(2, 2, x[:4]), mat.NewDense(1, 4, x[:4]))
			return err
		}, "columns"},
		{"GramDense too large", func() error {
			_, err := GramDense(g, hugeRows{1 << 24, 2}, hugeRows{1 << 24, 2}) // 2^48 entries
			return err
		}, "GiB"},
		{"Deriv nil kernel", func() error { _, err := Deriv(nil, x[:2], x[:2], nil, nil); return err }, "kernel"},
		{"Deriv nil pointer kernel", func() error { _, err := Deriv(nilPtr, x[:2], x[:2], nil, nil); return err }, "kernel"},
		{"Deriv lengths", func() error { _, err := Deriv(g, x[:2], x[:3], nil, nil); return err }, "coordinates"},
		{"Deriv arccos lengths", func() error { _, err := Deriv(ArcCos{1}, x[:2], x[:3], nil, nil); return err }, "coordinates"},
		{"Deriv p length", func() error { _, err := Deriv(g, x[:2], x[:2], []int{1}, nil); return err }, "entries"},
		{"Deriv negative order", func() error { _, err := Deriv(g, x[:2], x[:2], []int{-1, 0}, nil); return err }, "negative"},
		{"Deriv huge Gaussian order", func() error {
			_, err := Deriv(g, x[:2], x[:2], []int{math.MaxInt32, 0}, nil)
			return err
		}, "order"},
		{"Deriv huge Cauchy order", func() error {
			_, err := Deriv(Cauchy{S: 1}, x[:1], x[:1], []int{1 << 30}, []int{1 << 30})
			return err
		}, "order"},
		{"MultiIndexOrder overflow", func() error {
			_, err := MultiIndexOrder([]int{math.MaxInt, math.MaxInt}, 2)
			return err
		}, "order"},
		{"New NaN σ", func() error { _, err := New("gaussian", math.NaN()); return err }, "σ"},
		{"New unknown", func() error { _, err := New("nope", 1); return err }, "unknown"},
	})
}

// hugeRows is a mat.Matrix that reports a large shape and holds no data: only its Dims may be called.
type hugeRows struct{ r, c int }

func (h hugeRows) Dims() (int, int)    { return h.r, h.c }
func (h hugeRows) At(i, j int) float64 { panic("hugeRows.At called: the size check came too late") }
func (h hugeRows) T() mat.Matrix       { return mat.Transpose{Matrix: h} }
