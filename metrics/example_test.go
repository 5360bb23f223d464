package metrics_test

import (
	"fmt"

	"github.com/rffkit/rff/metrics"
)

func ExampleScoreRegression() {
	r := metrics.ScoreRegression([]float64{1.5, 2, 3}, []float64{1, 2, 3}, 3, 1, nil)
	fmt.Printf("RMSE %.3f, MAE %.3f, R² %.3f\n", r.RMSE, r.MAE, r.R2)
	// Output: RMSE 0.289, MAE 0.167, R² 0.875
}

func ExampleScoreClassification() {
	c := metrics.ScoreClassification([]int{0, 1, 1}, []int{0, 1, 0}, []string{"cat", "dog"})
	fmt.Println(c.Accuracy, c.Confusion)
	// Output: 0.6666666666666666 [[1 1] [0 1]]
}

func ExampleSummarize() {
	s := metrics.Summarize([]float64{0.9, 1.0, 1.1})
	fmt.Printf("%.2f ± %.3f\n", s.Mean, s.CI95[1]-s.Mean)
	// Output: 1.00 ± 0.113
}
