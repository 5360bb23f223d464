package model_test

import (
	"fmt"

	"github.com/rffkit/rff/model"
)

// A model file holds the configuration and the explicit parameters of the map; most programs use the root package
// rff, which builds these from a fit and predicts from them.
func ExampleEncode() {
	m := &model.Model{
		Header: model.Header{Task: "regression", Kernel: "gaussian", Sigma: 1, Rule: "g", Seed: 1, Points: 2,
			Dim: 3, Form: "cossin", Features: 4, Outputs: 1, Intercept: true, Lambda: 1e-4, PointsKind: "dense"},
		Theta:   []float64{0.1, 0.2, 0.3, 0.4},
		Bias:    []float64{2},
		Probe:   []float64{0.5, 0.5, 0.5, 0.5},
		Points:  map[string][]float64{"points": {1, 0, 0, 0, 1, 0}},
		Weights: []float64{0.5, 0.5},
	}
	b, err := model.Encode(m)
	if err != nil {
		panic(err)
	}
	back, err := model.Decode(b)
	fmt.Println(back.Version, back.Kernel, back.Rule, back.Theta, err)
	// Output: 2 gaussian g [0.1 0.2 0.3 0.4] <nil>
}
