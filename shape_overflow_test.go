package rff

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
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

// TestHugeInputs: finite inputs far outside the training data (±1.7e308) give finite outputs or an error naming
// the row — from every prediction method, never NaN or Inf silently.
func TestHugeInputs(t *testing.T) {
	files, _ := filepath.Glob("testdata/v2/*.rff")
	for _, f := range files {
		m, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		d := m.file.Dim
		for _, v := range []float64{1.7e308, -1.7e308} {
			X := make([]float64, 3*d)
			for i := range X {
				X[i] = 0.25
			}
			X[d] = v // row 2, first column
			calls := map[string]func() ([]float64, error){
				"PredictRows": func() ([]float64, error) {
					p, err := m.PredictRows(X, 3)
					if err != nil {
						return nil, err
					}
					return p.Values, nil
				},
				"PredictStd": func() ([]float64, error) { return m.PredictStd(X, 3, true) },
				"Sample":     func() ([]float64, error) { return m.Sample(X, 3, 2, 1) },
				"Gradients":  func() ([]float64, error) { return m.Gradients(X, 3) },
				"Jacobian":   func() ([]float64, error) { return m.Jacobian(X[d : 2*d]) },
			}
			for name, call := range calls {
				out, err := call()
				switch {
				case errors.Is(err, ErrNoUncertainty) || errors.Is(err, ErrNoGradient):
				case err != nil:
					if re, ok := errors.AsType[*RowError](err); name != "Jacobian" && (!ok || re.Row != 2 || !strings.HasPrefix(err.Error(), "row 2: ")) {
						t.Errorf("%s %s(%g): %v, want a *RowError naming row 2", filepath.Base(f), name, v, err)
					}
				default:
					for i, y := range out {
						if math.IsNaN(y) || math.IsInf(y, 0) {
							t.Errorf("%s %s(%g): value %d is %v without an error", filepath.Base(f), name, v, i, y)
							break
						}
					}
				}
			}
		}
	}
}

// TestFitCSVMagnitude: FitCSV refuses inputs and regression targets too large for the statistics as Fit does,
// naming the same row, instead of failing at the solve on statistics that overflowed.
func TestFitCSVMagnitude(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, text, want string
	}{
		{"input", "a,b,y\n1,2,3\n4,5e120,6\n7,8,9\n", "row 2, column 2 (b) is 5e+120"},
		{"target", "a,b,y\n1,2,3\n4,5,6\n7,8,-6e200\n", "row 3, target y is -6e+200"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".csv")
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := Config{Points: 8, Sigma: 1, Lambda: 1e-3, Preprocess: "none"}
			data, err := dataset.Load(path, dataset.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, errFit := Fit(cfg, data)
			_, errCSV := FitCSV(cfg, path, StreamOptions{})
			for what, err := range map[string]error{"Fit": errFit, "FitCSV": errCSV} {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: %v, want an error with %q", what, err, c.want)
				}
			}
		})
	}
}
