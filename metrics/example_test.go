package metrics_test

import (
	"fmt"
	"math"

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

// RMSE is the root mean squared error: here the errors are 0, 0 and 3, so √(9/3) = √3.
func ExampleRMSE() {
	fmt.Printf("%.4f\n", metrics.RMSE([]float64{1, 2, 6}, []float64{1, 2, 3}))
	// A length mismatch gives NaN, not a panic.
	fmt.Println(metrics.RMSE([]float64{1, 2}, []float64{1, 2, 3}))
	// Output:
	// 1.7321
	// NaN
}

// MAE is the mean absolute error: (0.5 + 0 + 1)/3 = 0.5.
func ExampleMAE() {
	fmt.Println(metrics.MAE([]float64{1.5, 2, 2}, []float64{1, 2, 3}))
	// Output: 0.5
}

// R2 compares the squared error with the variance of the truth; predicting the mean of the truth scores 0, and a
// constant truth has no R².
func ExampleR2() {
	truth := []float64{1, 2, 3, 4}
	fmt.Println(metrics.R2([]float64{1, 2, 3, 5}, truth))
	fmt.Println(metrics.R2([]float64{2.5, 2.5, 2.5, 2.5}, truth))
	fmt.Println(metrics.R2([]float64{1, 2}, []float64{3, 3}))
	// Output:
	// 0.8
	// 0
	// NaN
}

// MultiR2 pools every output of a row-major n×p prediction: each output is centred on its own mean, and the
// squared errors and variances are summed over all of them.
func ExampleMultiR2() {
	// Three rows of two outputs; the second output is predicted exactly.
	truth := []float64{
		1, 10,
		2, 20,
		3, 30,
	}
	pred := []float64{
		1, 10,
		2, 20,
		5, 30,
	}
	// Σ error² = 4, Σ variance = 2 + 200.
	fmt.Printf("%.4f\n", metrics.MultiR2(pred, truth, 3, 2))
	// Output: 0.9802
}

// Accuracy is the fraction of predicted classes equal to the true ones.
func ExampleAccuracy() {
	fmt.Println(metrics.Accuracy([]int{0, 2, 1, 1}, []int{0, 2, 2, 1}))
	// Output: 0.75
}

// LogLoss is the mean −log of the probability a logistic model's scores give the true class: two rows of three
// equal scores give log 3 each.
func ExampleLogLoss() {
	scores := []float64{ // 2 rows × 3 classes
		0, 0, 0,
		5, 5, 5,
	}
	fmt.Printf("%.4f %.4f\n", metrics.LogLoss(scores, []int{0, 2}, 3), math.Log(3))
	// Output: 1.0986 1.0986
}

// CalibrationOf bins rows by the probability of their predicted class: here two rows at 0.9, one right and one
// wrong, so the bin's accuracy 0.5 is 0.4 below its confidence.
func ExampleCalibrationOf() {
	probs := []float64{0.9, 0.1, 0.1, 0.9} // 2 rows × 2 classes
	c, err := metrics.CalibrationOf(probs, []int{0, 0}, 2, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v %v %v %.2f\n", c.Rows, c.Confidence, c.Accuracy, c.Error)
	// Output: [2] [0.9] [0.5] 0.40
}
