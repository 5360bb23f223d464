package rff

import (
	"errors"
	"math"
	"math/rand/v2"
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
