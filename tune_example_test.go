package rff_test

import (
	"fmt"
	"math"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
)

// ExampleFit_tuneClassifier tunes σ and λ of a classifier on held-out accuracy (the default criterion of
// classification): 5-fold cross-validation from statistics, every λ of the grid scored by one more pass over the
// held-out rows.
func ExampleFit_tuneClassifier() {
	const n = 200
	data := &dataset.Data{N: n, D: 1, Names: []string{"x"}, TargetName: "class"}
	for i := range n {
		x := -1 + 2*float64(i)/(n-1)
		data.X = append(data.X, x)
		label := 0.0
		if math.Sin(3*x) > 0 {
			label = 1
		}
		data.Y = append(data.Y, label)
	}
	m, err := rff.Fit(rff.Config{Task: "classification", Points: 32, Tune: true, Lambdas: []float64{1e-6, 1e-3, 1}}, data)
	if err != nil {
		panic(err)
	}
	tr := m.Report().Tune
	best := 0.0
	for _, row := range tr.Scores {
		for _, v := range row {
			best = math.Max(best, v)
		}
	}
	fmt.Println(tr.Criterion, tr.Score, "higher is better:", tr.HigherIsBetter)
	fmt.Println("best held-out accuracy above 0.95:", best > 0.95)
	// Output:
	// cv CV accuracy higher is better: true
	// best held-out accuracy above 0.95: true
}
