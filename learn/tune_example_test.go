package learn_test

import (
	"fmt"
	"math"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/rule"
)

// twoClasses is 300 points of [−1, 1] labelled by the sign of sin(3x) (three alternating intervals).
func twoClasses() (X []float64, labels []int) {
	X, Y := data(300)
	labels = make([]int, 300)
	for i, y := range Y {
		if y > 2 {
			labels[i] = 1
		}
	}
	return X, labels
}

// ExampleCrossValidateClasses chooses λ of a squared-loss classifier on held-out accuracy: the statistics give θ(λ)
// of every fold, and one pass over the held-out rows scores the whole grid.
func ExampleCrossValidateClasses() {
	X, labels := twoClasses()
	m, err := feature.New(kernel.Gaussian{S: 0.3}, rule.G{}, 1, 40, 1)
	if err != nil {
		panic(err)
	}
	grid := learn.LogGrid(1e-8, 1, 9)
	cv, err := learn.CrossValidateClasses(m, X, 300, labels, 2, learn.OneHotCoding, 5, grid, true)
	if err != nil {
		panic(err)
	}
	fmt.Println("best held-out accuracy above 0.95:", cv.Accuracy[cv.BestIndex] > 0.95)
	fmt.Println("λ scored:", len(cv.Correct), "of which the chosen one is in the grid:", cv.Best == grid[cv.BestIndex])
	// Output:
	// best held-out accuracy above 0.95: true
	// λ scored: 9 of which the chosen one is in the grid: true
}

// ExampleCrossValidateClassifier cross-validates a linear SVM on the features by refitting every fold.
func ExampleCrossValidateClassifier() {
	X, labels := twoClasses()
	m, err := feature.New(kernel.Gaussian{S: 0.3}, rule.G{}, 1, 40, 1)
	if err != nil {
		panic(err)
	}
	cv, err := learn.CrossValidateClassifier(learn.Classifier{Loss: learn.Hinge, Seed: 1}, m, X, 300, labels, 2, 5, []float64{1e-5, 1e-3, 1e-1})
	if err != nil {
		panic(err)
	}
	fmt.Println("best held-out accuracy above 0.95:", cv.Accuracy[cv.BestIndex] > 0.95)
	// Output:
	// best held-out accuracy above 0.95: true
}

// ExampleScoreLambdas scores a few λ around a choice by Cholesky factorisations: the same GCV as SelectLambda's
// eigendecomposition, to rounding.
func ExampleScoreLambdas() {
	X, Y := data(400)
	for i := range Y {
		Y[i] += 0.3 * math.Sin(1e3*float64(i))
	}
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 60, 2)
	if err != nil {
		panic(err)
	}
	s, err := learn.Accumulate(m, X, 400, Y, 1)
	if err != nil {
		panic(err)
	}
	grid := []float64{1e-5, 1e-4, 1e-3}
	a, err := learn.ScoreLambdas(s, grid, true)
	if err != nil {
		panic(err)
	}
	b, err := learn.SelectLambda(s, grid, true)
	if err != nil {
		panic(err)
	}
	fmt.Println("same choice:", a.BestGCV == b.BestGCV)
	fmt.Println("same GCV to 1e-8:", math.Abs(a.GCV[1]-b.GCV[1]) < 1e-8*b.GCV[1])
	// Output:
	// same choice: true
	// same GCV to 1e-8: true
}

// ExampleSelectLambdaScaled scores two outputs that share their features but not their penalty (output 2 is
// penalised ten times more): with the same targets, its best λ on its own is ten times smaller.
func ExampleSelectLambdaScaled() {
	X, y := data(200)
	for i := range y {
		y[i] += 0.2 * math.Sin(1e3*float64(i))
	}
	Y := make([]float64, 0, 400)
	for _, v := range y {
		Y = append(Y, v, v)
	}
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 30, 2)
	if err != nil {
		panic(err)
	}
	s, err := learn.Accumulate(m, X, 200, Y, 2)
	if err != nil {
		panic(err)
	}
	grid := learn.LogGrid(1e-8, 1e-1, 8)
	sel, err := learn.SelectLambdaScaled(s, grid, []float64{1, 10}, true)
	if err != nil {
		panic(err)
	}
	fmt.Println("criteria for", len(sel.GCV), "λ; mean effective parameters decrease with λ:", sel.DF[0] > sel.DF[7])
	// Output:
	// criteria for 8 λ; mean effective parameters decrease with λ: true
}

// ExampleCrossValidateScaled cross-validates two outputs penalised by λ and 10λ.
func ExampleCrossValidateScaled() {
	X, y := data(200)
	Y := make([]float64, 0, 400)
	for i, v := range y {
		Y = append(Y, v+0.2*math.Sin(1e3*float64(i)), v)
	}
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 30, 2)
	if err != nil {
		panic(err)
	}
	cv, err := learn.CrossValidateScaled(m, X, 200, Y, 2, 4, learn.LogGrid(1e-8, 1e-1, 8), []float64{1, 10}, true)
	if err != nil {
		panic(err)
	}
	fmt.Println("held-out MSE below the noise variance 0.02 / 2 + 0.01:", cv.MSE[cv.BestIndex] < 0.03)
	// Output:
	// held-out MSE below the noise variance 0.02 / 2 + 0.01: true
}
