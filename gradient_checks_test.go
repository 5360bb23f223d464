package rff

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/model"
)

// TestInputScaleOffset: the factor that converts gradients between raw and preprocessed coordinates keeps its digits
// for a column with a large offset (timestamps in milliseconds: 1e12 + 86400·z). It was the difference of two
// preprocessed values, off by 2.6e-5 here and 2.5e-3 at 1e14.
func TestInputScaleOffset(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, offset := range []float64{1e12, 1e14} {
		for _, step := range []dataset.Step{dataset.StepStandardize, dataset.StepMinMax} {
			const n = 200
			x := make([]float64, n*2)
			for i := range n {
				x[2*i], x[2*i+1] = offset+86400*rng.NormFloat64(), rng.NormFloat64()
			}
			sc, err := dataset.FitScaler(x, n, 2, []dataset.Step{step})
			if err != nil {
				t.Fatal(err)
			}
			m := &Model{file: &model.Model{Header: model.Header{Dim: 2}}, scaler: sc}
			c := m.inputScale()
			want := 1 / sc.Params[0].Scale[0]
			if math.Abs(c[0]-want) > 4*0x1p-52*math.Abs(want) {
				t.Errorf("offset %g, %s: factor %v, want %v", offset, step, c[0], want)
			}
		}
	}
}

// TestGradientsNeedDerivatives: a model on random features of a kernel without first derivatives everywhere (the
// Laplacian, Matérn ν = 1/2) has differentiable features whose derivatives estimate nothing (their frequencies have
// no mean): its gradients are refused, as a Nyström model's are, and so is a Hermite fit of observed gradients with
// a kernel without second derivatives.
func TestGradientsNeedDerivatives(t *testing.T) {
	data := &dataset.Data{N: 40, D: 2, Names: []string{"a", "b"}}
	for i := range data.N {
		a, b := float64(i%7)/7, float64(i%5)/5
		data.X = append(data.X, a, b)
		data.Y = append(data.Y, math.Sin(3*a)+b)
	}
	for _, k := range []string{"laplacian", "matern12"} {
		m, err := Fit(Config{Kernel: k, Points: 16, Sigma: 1, Lambda: 1e-3}, data)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Gradients(data.X[:2], 1); !errors.Is(err, ErrNoGradient) {
			t.Errorf("%s: Gradients: %v, want ErrNoGradient", k, err)
		}
	}
	m, err := Fit(Config{Kernel: "matern32", Points: 16, Sigma: 1, Lambda: 1e-3}, data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Gradients(data.X[:2], 1); err != nil {
		t.Errorf("matern32: %v", err)
	}
	grads := make([]float64, data.N*2)
	if _, err := FitHermite(Config{Kernel: "laplacian", Points: 16, Sigma: 1, Lambda: 1e-3}, data, nil, grads); err == nil || !strings.Contains(err.Error(), "no second derivatives") {
		t.Errorf("hermite, laplacian: %v", err)
	}
	if _, err := FitHermite(Config{Kernel: "matern32", Points: 16, Sigma: 1, Lambda: 1e-3}, data, nil, grads); err != nil {
		t.Errorf("hermite, matern32: %v", err)
	}
}

// TestRawRowsChecked: Gradients, PredictStd, Sample and Jacobian name a NaN by its raw row, column and name, as
// PredictRows does — not by a column of the preprocessed rows behind a PCA step, with library prefixes.
func TestRawRowsChecked(t *testing.T) {
	data := &dataset.Data{N: 60, D: 4, Names: []string{"a", "b", "c", "d"}}
	for i := range data.N {
		row := []float64{float64(i % 7), float64(i % 5), float64(i % 3), float64(i % 11)}
		data.X = append(data.X, row...)
		data.Y = append(data.Y, math.Sin(row[0])+row[2])
	}
	m, err := Fit(Config{Points: 16, Sigma: 2, Lambda: 1e-3, Preprocess: "standardize,pca:3", Uncertainty: true}, data)
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{1, 2, math.NaN(), 4}
	want := "row 1, column 3 (c) is NaN"
	for name, call := range map[string]func() error{
		"Gradients":  func() error { _, err := m.Gradients(x, 1); return err },
		"PredictStd": func() error { _, err := m.PredictStd(x, 1, false); return err },
		"Sample":     func() error { _, err := m.Sample(x, 1, 2, 1); return err },
	} {
		if err := call(); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	ovk, err := Load("testdata/v2/ovk-curl.rff")
	if err != nil {
		t.Fatal(err)
	}
	xo := make([]float64, len(ovk.Info().Inputs))
	xo[len(xo)-1] = math.Inf(1)
	wantOVK := fmt.Sprintf("row 1, column %d (%s) is +Inf", len(xo), ovk.Info().Inputs[len(xo)-1])
	if _, err := ovk.Jacobian(xo); err == nil || err.Error() != wantOVK {
		t.Errorf("Jacobian: %v, want %q", err, wantOVK)
	}
}

// TestHermiteAllValuesMissing: a values column with no observed value (every entry NaN) is a fit on the gradients
// alone, as without values, not a refusal for the intercept it cannot have.
func TestHermiteAllValuesMissing(t *testing.T) {
	data := &dataset.Data{N: 30, D: 2, Names: []string{"a", "b"}}
	grads := make([]float64, 0, 60)
	vals := make([]float64, 30)
	for i := range data.N {
		a, b := float64(i%7)/7, float64(i%5)/5
		data.X = append(data.X, a, b)
		grads = append(grads, math.Cos(a), 1)
		vals[i] = math.NaN()
	}
	cfg := Config{Points: 16, Sigma: 1, Lambda: 1e-3}
	m, err := FitHermite(cfg, data, vals, grads)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := FitHermite(cfg, data, nil, grads)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := m.PredictRows(data.X[:2], 1)
	q, _ := ref.PredictRows(data.X[:2], 1)
	if p.Values[0] != q.Values[0] {
		t.Errorf("all-NaN values predict %v, no values %v", p.Values[0], q.Values[0])
	}
}

// A hermite fit refuses observed values and derivatives beyond 1e100, as a regression refuses such targets (their
// squares would overflow the statistics), naming the row (and for a derivative the column); unobserved entries
// (NaN) are not values.
func TestHermiteMagnitude(t *testing.T) {
	n := 30
	data := &dataset.Data{N: n, D: 2, Names: []string{"a", "b"}}
	values, grads := make([]float64, n), make([]float64, 2*n)
	for i := range n {
		a, b := math.Sin(float64(i)), math.Cos(float64(3*i))
		data.X = append(data.X, a, b)
		values[i] = math.Sin(a) + b
		grads[2*i], grads[2*i+1] = math.Cos(a), 1
	}
	values[4] = math.NaN() // unobserved
	cfg := Config{Points: 16, Sigma: 1, Lambda: 1e-3, Preprocess: "none"}
	if _, err := FitHermite(cfg, data, values, grads); err != nil {
		t.Fatalf("ordinary observations: %v", err)
	}
	bigV := slices.Clone(values)
	bigV[6] = 1e150
	bigG := slices.Clone(grads)
	bigG[2*7+1] = -1e300
	for _, c := range []struct {
		name         string
		values, grad []float64
		want         string
	}{
		{"value", bigV, grads, "row 7, the observed value is 1e+150"},
		{"derivative", values, bigG, "row 8, the observed derivative along column 2 (b) is -1e+300"},
	} {
		if _, err := FitHermite(cfg, data, c.values, c.grad); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
