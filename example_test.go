package rff_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
)

// sine returns n rows of y = sin(3x₁) + x₂ on [−1, 1]².
func sine(n int) *dataset.Data {
	d := &dataset.Data{N: n, D: 2, Names: []string{"a", "b"}, TargetName: "y"}
	for i := range n {
		a, b := math.Sin(float64(7*i)), math.Cos(float64(5*i))
		d.X = append(d.X, a, b)
		d.Y = append(d.Y, math.Sin(3*a)+b)
	}
	return d
}

// Fit, save, load and predict: five calls.
func Example() {
	train, test := sine(500), sine(50)
	m, _ := rff.Fit(rff.Config{Sigma: 1, Points: 256, Lambda: 1e-8, Seed: 1}, train)
	path := filepath.Join(os.TempDir(), "example.rff")
	_ = m.Save(path)
	loaded, _ := rff.Load(path)
	score, _ := loaded.Score(test)
	fmt.Printf("test RMSE below 0.01: %v\n", score.Regression.RMSE < 0.01)
	// Output: test RMSE below 0.01: true
}

func ExampleModel_Predict() {
	m, err := rff.Fit(rff.Config{Task: "classification", Sigma: 1, Points: 128, Lambda: 1e-6, Seed: 1},
		&dataset.Data{X: []float64{-2, -1, -1.5, 1, 2, 1.5}, N: 6, D: 1, Y: []float64{0, 0, 0, 1, 1, 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := m.PredictRows([]float64{-1.8, 1.7}, 2)
	fmt.Println(p.Labels)
	// Output: [0 1]
}

func ExampleModel_Info() {
	m, _ := rff.Fit(rff.Config{Rule: "orf", Points: 64, Sigma: 2, Lambda: 1e-4}, sine(100))
	fmt.Println(m)
	// Output: regression: kernel gaussian (σ = 2), orf features (D = 64 points, 128 columns), λ = 0.0001, preprocessing [standardize]
}

func ExampleLoad() {
	m, err := rff.Load("testdata/v1/ridge-sr.rff") // a model file of an earlier format version
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Info().Inputs, m.Info().Version)
	// Output: [temp pressure humidity] 1
}
