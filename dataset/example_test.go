package dataset_test

import (
	"compress/gzip"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/rffkit/rff/dataset"
)

func ExampleLoad() {
	// A small gzip-compressed CSV file with a header and a class column;
	// Load detects the compression from the content, not from the name.
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "flowers.csv")
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	fmt.Fprint(zw, "length,width,species\n5.1,3.5,setosa\n7.0,3.2,versicolor\n6.3,3.3,virginica\n4.9,3.0,setosa\n")
	zw.Close()
	f.Close()

	d, err := dataset.Load(path, dataset.Options{Target: "species"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d×%d features %v, target %q\n", d.N, d.D, d.Names, d.TargetName)
	fmt.Println("row 1:", d.Row(1))
	fmt.Println("labels:", d.Labels)
	fmt.Println("y:", d.Y)
	// Output:
	// 4×2 features [length width], target "species"
	// row 1: [7 3.2]
	// labels: [setosa versicolor virginica]
	// y: [0 1 2 0]
}

func ExampleReadCSV() {
	// Data laid out like LETTER (invented values): no header, the class letter in the first column.
	text := "T,2.5,80,0.25\nI,5.5,120,0.75\nD,4.5,110,0.5\n"
	d, err := dataset.ReadCSV(strings.NewReader(text), "letter.csv", "first")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.N, d.D, d.Names, d.Labels, d.Y)

	// Errors name the file, the line and the column.
	_, err = dataset.ReadCSV(strings.NewReader("1,2,3\n4,abc,6\n"), "x.csv", "")
	fmt.Println(err)
	// Output:
	// 3 3 [x1 x2 x3] [D I T] [2 1 0]
	// x.csv:2: column 2: "abc" is not a number
}

func ExampleFitScaler() {
	train, err := dataset.ReadCSV(strings.NewReader("x,z,y\n1,10,0\n2,20,1\n3,60,0\n"), "train.csv", "y")
	if err != nil {
		log.Fatal(err)
	}
	steps, err := dataset.ParseSteps("minmax,maxscale")
	if err != nil {
		log.Fatal(err)
	}
	s, err := dataset.FitScaler(train.X, train.N, train.D, steps)
	if err != nil {
		log.Fatal(err)
	}
	s.Apply(train.X, train.N, train.D)
	fmt.Println("train:", train.X)

	// New data get the maps fitted on the training data.
	test := []float64{4, 35}
	s.Apply(test, 1, 2)
	fmt.Println("test:", test)
	// Output:
	// train: [0 0 0.5 0.2 1 1]
	// test: [1.5 0.5]
}

func ExampleSubsample() {
	// Seeded random sources give the same subsample on every run.
	a := dataset.Subsample(rand.New(rand.NewPCG(1, 2)), 1000, 5)
	b := dataset.Subsample(rand.New(rand.NewPCG(1, 2)), 1000, 5)
	fmt.Println(len(a), fmt.Sprint(a) == fmt.Sprint(b))
	// Output: 5 true
}
