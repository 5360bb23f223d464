package model_test

import (
	"bytes"
	"fmt"

	"github.com/rffkit/rff/model"
)

func ExampleWrite() {
	m := &model.Model{
		Header: model.Header{Task: "regression", Kernel: "gaussian", Sigma: 1, Rule: "g", Seed: 1, Points: 2,
			Dim: 3, Form: "cossin", Features: 4, Outputs: 1, Intercept: true, Lambda: 1e-4},
		Theta: []float64{0.1, 0.2, 0.3, 0.4},
		Bias:  []float64{2},
		Probe: []float64{0.5, 0.5, 0.5, 0.5},
	}
	var buf bytes.Buffer
	if err := model.Write(&buf, m); err != nil {
		panic(err)
	}
	back, err := model.Decode(buf.Bytes())
	fmt.Println(back.Kernel, back.Rule, back.Theta, err)
	// Output: gaussian g [0.1 0.2 0.3 0.4] <nil>
}
