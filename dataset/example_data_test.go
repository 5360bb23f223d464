package dataset_test

import (
	"fmt"
	"log"
	"math"
	"strings"

	"github.com/rffkit/rff/dataset"
)

// smallData reads a small data set with string class labels.
func smallData() *dataset.Data {
	text := "height,weight,kind\n1.0,10,b\n2.0,20,a\n3.0,30,b\n4.0,40,c\n5.0,50,a\n"
	d, err := dataset.ReadCSV(strings.NewReader(text), "small.csv", "kind")
	if err != nil {
		log.Fatal(err)
	}
	return d
}

// Row gives one row of X without copying it.
func ExampleData_Row() {
	d := smallData()
	for i := range d.N {
		fmt.Println(d.Row(i), d.Target(i))
	}
	// Output:
	// [1 10] b
	// [2 20] a
	// [3 30] b
	// [4 40] c
	// [5 50] a
}

// Dense views X as a gonum matrix, sharing its memory.
func ExampleData_Dense() {
	d := smallData()
	m := d.Dense()
	r, c := m.Dims()
	fmt.Println(r, c, m.At(3, 1))
	m.Set(3, 1, 41)
	fmt.Println(d.Row(3))
	// Output:
	// 5 2 40
	// [4 41]
}

// Split gives the "first n rows to train, the rest to test" protocol.
func ExampleData_Split() {
	train, test := smallData().Split(3)
	fmt.Println(train.N, train.Y, train.Labels)
	fmt.Println(test.N, test.Y, test.Labels)
	// Output:
	// 3 [1 0 1] [a b c]
	// 2 [2 0] [a b c]
}

// Subset copies chosen rows, in the order given.
func ExampleData_Subset() {
	d := smallData().Subset([]int{4, 0})
	fmt.Println(d.N, d.X, d.Y)
	// Output: 2 [5 50 1 10] [0 1]
}

// Target gives the target of a row as text, whether the targets are labels or numbers.
func ExampleData_Target() {
	labelled := smallData()
	numeric, err := dataset.ReadCSV(strings.NewReader("x,y\n1,0.25\n2,3\n"), "numeric.csv", "y")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(labelled.Y[3], labelled.Target(3))
	fmt.Println(numeric.Y[0], numeric.Target(0))
	// Output:
	// 2 c
	// 0.25 0.25
}

// NewClasses codes raw targets as class indices: strings sort as strings, numbers numerically.
func ExampleNewClasses() {
	words := dataset.NewClasses([]string{"pear", "apple", "pear", "fig"}, false)
	fmt.Println(words.Labels)
	numbers := dataset.NewClasses([]string{"10", "9", "2.50", "9"}, true)
	fmt.Println(numbers.Labels)
	k, ok := numbers.Class("2.5")
	fmt.Println(k, ok)
	_, ok = numbers.Class("3")
	fmt.Println(ok)
	// Output:
	// [apple fig pear]
	// [2.5 9 10]
	// 0 true
	// false
}

// ClassesOf takes the classes of a training set; Code then codes the rows of a test set with them, and refuses a
// label the training set did not have.
func ExampleClassesOf() {
	train, err := dataset.ReadCSV(strings.NewReader("1,b\n2,a\n3,b\n"), "train.csv", "last")
	if err != nil {
		log.Fatal(err)
	}
	test, err := dataset.ReadCSV(strings.NewReader("4,b\n5,c\n"), "test.csv", "last")
	if err != nil {
		log.Fatal(err)
	}
	c := dataset.ClassesOf(train)
	fmt.Println(c.Labels)
	codes, err := c.Code(train)
	fmt.Println(codes, err)
	_, err = c.Code(test)
	fmt.Println(err)
	// Output:
	// [a b]
	// [1 0 1] <nil>
	// row 2: label "c" was not seen in training (classes: a, b)
}

// ClassesNamed rebuilds the classes stored in a model, in their stored order.
func ExampleClassesNamed() {
	c := dataset.ClassesNamed([]string{"spam", "ham"})
	k, ok := c.Class("ham")
	fmt.Println(k, ok)
	// Output: 1 true
}

// ParseSteps reads a chain of preprocessing steps as the --preprocess flag gives it.
func ExampleParseSteps() {
	steps, err := dataset.ParseSteps("Standardize, pca:0.99")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(steps)
	_, err = dataset.ParseSteps("standardize,scale")
	fmt.Println(err != nil)
	// Output:
	// [standardize pca:0.99]
	// true
}

// Apply maps data by the fitted steps in place: here minmax, fitted on training rows, then applied to new rows.
func ExampleScaler_Apply() {
	train := []float64{
		0, 100,
		2, 300,
		4, 200,
	}
	steps, err := dataset.ParseSteps("minmax")
	if err != nil {
		log.Fatal(err)
	}
	s, err := dataset.FitScaler(train, 3, 2, steps)
	if err != nil {
		log.Fatal(err)
	}
	x := []float64{
		1, 150,
		5, 400,
	}
	s.Apply(x, 2, 2)
	fmt.Println(x)
	// Output: [0.25 0.25 1.25 1.5]
}

// Invert maps preprocessed values back, e.g. predictions of a model fitted on standardized targets.
func ExampleScaler_Invert() {
	y := []float64{10, 20, 30, 40}
	steps, err := dataset.ParseSteps("standardize")
	if err != nil {
		log.Fatal(err)
	}
	s, err := dataset.FitScaler(y, 4, 1, steps)
	if err != nil {
		log.Fatal(err)
	}
	z := s.Transform(y, 4, 1)
	fmt.Printf("standardized: %.4f\n", z)
	s.Invert(z, 4, 1)
	ok := true
	for i := range y {
		ok = ok && math.Abs(z[i]-y[i]) < 1e-12
	}
	fmt.Println("back within 1e-12:", ok)
	// Output:
	// standardized: [-1.3416 -0.4472 0.4472 1.3416]
	// back within 1e-12: true
}

// A ScalerAccumulator fits a scaler block by block; the result agrees with FitScaler on all the rows.
func ExampleNewScalerAccumulator() {
	x := []float64{
		1, 5,
		2, 7,
		3, 6,
		4, 9,
		5, 8,
	}
	a := dataset.NewScalerAccumulator(2)
	for _, block := range [][]float64{x[:4], x[4:]} { // two rows, then three
		if err := a.Add(block, len(block)/2); err != nil {
			log.Fatal(err)
		}
	}
	steps := []dataset.Step{dataset.StepStandardize}
	streamed, err := a.Scaler(steps)
	if err != nil {
		log.Fatal(err)
	}
	whole, err := dataset.FitScaler(x, 5, 2, steps)
	if err != nil {
		log.Fatal(err)
	}
	p, q := streamed.Params[0], whole.Params[0]
	same := true
	for j := range 2 {
		same = same && math.Abs(p.Shift[j]-q.Shift[j]) < 1e-12 && math.Abs(p.Scale[j]-q.Scale[j]) < 1e-12
	}
	fmt.Println(a.Rows(), "rows; mean", p.Shift, "; same as FitScaler:", same)
	// Output: 5 rows; mean [3 7] ; same as FitScaler: true
}

// FitScalerStream fits the preprocessing on a whole CSV stream in one pass; the callback sees every block, here to
// collect the class labels.
func ExampleFitScalerStream() {
	text := "a,b,class\n1,4,x\n3,8,y\n5,6,x\n7,2,z\n9,0,y\n"
	s, err := dataset.NewCSVStream(strings.NewReader(text), "train.csv", "class")
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	seen := map[string]bool{}
	scaler, err := dataset.FitScalerStream(s, []dataset.Step{dataset.StepMinMax}, 2, func(b *dataset.Data) error {
		for i := range b.N {
			seen[s.Target(i)] = true
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(seen), "classes")
	x := []float64{5, 4}
	scaler.Apply(x, 1, 2)
	fmt.Println(x)
	// Output:
	// 3 classes
	// [0.5 0.5]
}

// Classes.Code gives every row's class index for classes stored in a model: a label it does not know is an error
// that names the row.
func ExampleClasses_Code() {
	c := dataset.ClassesNamed([]string{"cat", "dog"})
	d := &dataset.Data{N: 3, D: 1, X: []float64{1, 2, 3}, Y: []float64{1, 0, 1}, Labels: []string{"cat", "dog"}}
	fmt.Println(c.Code(d)) // Y indexes the data's own Labels: dog, cat, dog
	d.Labels = []string{"cat", "bird"}
	_, err := c.Code(d)
	fmt.Println(err)
	// Output:
	// [1 0 1] <nil>
	// row 1: label "bird" was not seen in training (classes: cat, dog)
}
