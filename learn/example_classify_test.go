package learn_test

import (
	"fmt"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/rule"
)

// threeClasses is n points of [−1, 1] labelled 0, 1 and 2 on the thirds of the interval.
func threeClasses(n int) (X []float64, labels []int) {
	X = make([]float64, n)
	labels = make([]int, n)
	for i := range n {
		X[i] = -1 + 2*float64(i)/float64(n-1)
		switch {
		case X[i] < -1.0/3:
			labels[i] = 0
		case X[i] < 1.0/3:
			labels[i] = 1
		default:
			labels[i] = 2
		}
	}
	return X, labels
}

// accuracy is the share of predicted labels equal to the true ones.
func accuracy(pred, labels []int) float64 {
	correct := 0
	for i, l := range labels {
		if pred[i] == l {
			correct++
		}
	}
	return float64(correct) / float64(len(labels))
}

// ExampleOneHot codes class labels as regression targets: a 1 in the label's column, and 0 (or −1 with pm)
// elsewhere. Two classes with pm give a single ±1 column.
func ExampleOneHot() {
	fmt.Println(learn.OneHot([]int{2, 0, 1}, 3, false)) // 3 rows × 3 classes
	fmt.Println(learn.OneHot([]int{2, 0, 1}, 3, true))
	fmt.Println(learn.OneHot([]int{1, 0, 0}, 2, true)) // 3 rows × 1 column
	// Output:
	// [0 0 1 1 0 0 0 1 0]
	// [-1 -1 1 1 -1 -1 -1 1 -1]
	// [1 -1 -1]
}

// ExampleArgmax decodes rows of scores into classes: the column of the largest score, or for a single column of
// two-class scores its sign.
func ExampleArgmax() {
	scores := []float64{ // 3 rows × 3 classes
		0.1, 0.7, 0.2,
		0.9, -0.3, 0.4,
		0.0, 0.2, 0.5,
	}
	fmt.Println(learn.Argmax(scores, 3, 3))
	fmt.Println(learn.Argmax([]float64{0.8, -0.1, 0.3}, 3, 2)) // one ±1 column
	// Output:
	// [1 0 2]
	// [1 0 1]
}

// ExampleSoftmax turns the scores of a classifier trained with the logistic loss into class probabilities.
func ExampleSoftmax() {
	scores := []float64{ // 2 rows × 3 classes
		2, 1, 0,
		0, 0, 0,
	}
	p, err := learn.Softmax(scores, 2, 3)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.3f\n", p)
	// Output: [0.665 0.245 0.090 0.333 0.333 0.333]
}

// ExampleSimplexEncode codes 3 classes as 2 targets: the columns of the simplex code, unit vectors of the plane
// 120° apart.
func ExampleSimplexEncode() {
	Y := learn.SimplexEncode([]int{0, 1, 2}, 3) // 3 rows × 2
	for i := range 3 {
		fmt.Printf("class %d: (%6.3f, %6.3f)\n", i, Y[2*i], Y[2*i+1])
	}
	// Output:
	// class 0: ( 1.000,  0.000)
	// class 1: (-0.500,  0.866)
	// class 2: (-0.500, -0.866)
}

// ExampleSimplexDecode decodes scores of a model fitted to simplex codes: each row goes to the class whose code
// vector it is most aligned with.
func ExampleSimplexDecode() {
	scores := []float64{ // 3 rows × 2 (k − 1 for k = 3)
		0.8, 0.1, // near (1, 0)
		-0.2, 0.5, // near (−0.5, 0.866)
		-0.4, -0.6, // near (−0.5, −0.866)
	}
	fmt.Println(learn.SimplexDecode(scores, 3, 3))
	// Output: [0 1 2]
}

// ExampleClassifier_Fit trains multinomial logistic regression on a feature matrix already in memory, here made by
// learn.Features, and classifies by the largest of the K scores.
func ExampleClassifier_Fit() {
	const n = 300
	X, labels := threeClasses(n)
	m, err := feature.New(kernel.Gaussian{S: 0.3}, rule.G{}, 1, 40, 1)
	if err != nil {
		panic(err)
	}
	F := m.Features()
	Z, err := learn.Features(m, X, n, 0) // n×F
	if err != nil {
		panic(err)
	}
	fit, err := learn.Classifier{Loss: learn.Logistic, Lambda: 1e-5}.Fit(Z, n, F, labels, 3)
	if err != nil {
		panic(err)
	}
	scores := make([]float64, n*3)
	fit.Predict(scores, Z, n)
	fmt.Println("training accuracy above 0.97:", accuracy(learn.Argmax(scores, n, 3), labels) > 0.97)
	test := make([]float64, 3*3)
	if err := fit.PredictMap(test, m, []float64{-0.8, 0, 0.8}, 3); err != nil {
		panic(err)
	}
	fmt.Println("classes of −0.8, 0, 0.8:", learn.Argmax(test, 3, 3))
	// Output:
	// training accuracy above 0.97: true
	// classes of −0.8, 0, 0.8: [0 1 2]
}

// ExampleCoding_Encode trains a squared-loss classifier — plain ridge regression on coded labels, from statistics
// alone — with the simplex coding, and decodes its scores as that coding does.
func ExampleCoding_Encode() {
	const n, K = 300, 3
	X, labels := threeClasses(n)
	m, err := feature.New(kernel.Gaussian{S: 0.3}, rule.G{}, 1, 40, 1)
	if err != nil {
		panic(err)
	}
	coding := learn.SimplexCoding
	P := coding.Outputs(K)
	Y := coding.Encode(labels, K) // n×P
	fit, err := learn.Ridge{Lambda: 1e-6, Intercept: true}.FitMap(m, X, n, Y, P)
	if err != nil {
		panic(err)
	}
	scores := make([]float64, n*P)
	if err := fit.PredictMap(scores, m, X, n); err != nil {
		panic(err)
	}
	fmt.Println("outputs:", P)
	fmt.Println("training accuracy above 0.97:", accuracy(learn.SimplexDecode(scores, n, K), labels) > 0.97)
	// Output:
	// outputs: 2
	// training accuracy above 0.97: true
}

// ExampleCoding_Outputs gives the number of regression outputs each coding needs for K classes.
func ExampleCoding_Outputs() {
	fmt.Println("one-hot:", learn.OneHotCoding.Outputs(10), "simplex:", learn.SimplexCoding.Outputs(10))
	// Output: one-hot: 10 simplex: 9
}
