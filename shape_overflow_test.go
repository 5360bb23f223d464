package rff

import (
	"path/filepath"
	"testing"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/misusetest"
)

// TestShapeOverflow: a row count whose product with the number of columns overflows is refused with an error by
// every prediction method and by Score, for every kind of stored model, and by Fit — never taken for a matching shape (a
// wrapped product once let such calls through to a panic).
func TestShapeOverflow(t *testing.T) {
	files, _ := filepath.Glob("testdata/v2/*.rff")
	tested := 0
	for _, f := range files {
		m, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		d := m.file.Dim
		n, L := 0, 1
		for ; L < 64 && n == 0; L++ {
			n = misusetest.WrappedCount(d, L)
		}
		L--
		if n == 0 {
			continue
		}
		tested++
		X := make([]float64, L)
		name := filepath.Base(f)
		misusetest.Check(t, []misusetest.Case{
			{name + "/PredictRows", func() error { _, err := m.PredictRows(X, n); return err }, ""},
			{name + "/PredictStd", func() error { _, err := m.PredictStd(X, n, true); return err }, ""},
			{name + "/Sample", func() error { _, err := m.Sample(X, n, 1, 1); return err }, ""},
			{name + "/Gradients", func() error { _, err := m.Gradients(X, n); return err }, ""},
			{name + "/Score", func() error {
				_, err := m.Score(&dataset.Data{X: X, N: n, D: d, Y: make([]float64, L), Names: m.Info().Inputs})
				return err
			}, ""},
		})
	}
	n := misusetest.WrappedCount(3, 2)
	data := &dataset.Data{X: make([]float64, 2), N: n, D: 3, Y: make([]float64, 2)}
	misusetest.Check(t, []misusetest.Case{
		{"Fit", func() error { _, err := Fit(Config{Points: 8, Sigma: 1, Lambda: 1e-3}, data); return err }, "values for"},
	})
	if tested < 5 {
		t.Errorf("only %d models have a column count with a wrapped row count", tested)
	}
}
