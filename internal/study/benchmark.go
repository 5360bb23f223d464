package study

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rffkit/rff/dataset"
)

// Benchmark is one of the papers' real datasets with its files under the data directory, its task and its
// train/test split.
type Benchmark struct {
	Name string
	// Task is "classification" or "regression".
	Task string
	// Train is the number of leading rows of the single file that form the training split (the rest is the test
	// split); 0 for datasets shipped as separate train and test files.
	Train int
	// Standardize is set for Powerplant, whose columns the quadrature paper standardizes before dividing by the
	// global maximum (docs/conventions.md §10).
	Standardize bool

	files   []string // train (and test) files, relative to the data directory
	labels  []string // IDX label files
	target  string   // CSV target column
	divisor float64  // fixed scale (MNIST pixels/255); 0 means the paper's global maximum of the training split

	// rows, test and dim are the size of the dataset as distributed (all rows and the test rows of the given split
	// of a single-file dataset, the test file's rows otherwise; the inputs' dimension), and classes its number of
	// classes (0 for regression): what the memory estimates of the studies charge for it.
	rows, test, dim, classes int
}

// loadFactor is the peak of Benchmark.Load over the bytes of the data it returns (the text or bytes read, the
// parsed rows and their scaled copy): measured 2 for MNIST, 2–3.5 for the CSV datasets.
const loadFactor = 2.5

// dataBytes is the memory of the benchmark's rows, inputs and target, once loaded.
func (b Benchmark) dataBytes() float64 { return floats(float64(b.rows), float64(b.dim)+1) }

// trainRows is the number of training rows of the split Load makes by default.
func (b Benchmark) trainRows() int {
	if b.Train > 0 {
		return b.Train
	}
	return b.rows - b.test
}

// Benchmarks lists the datasets of the quadrature paper's experiments, with the training splits of
// docs/conventions.md §10 (Powerplant: first 8500 rows; LETTER: first 10000; USPS and MNIST: their given splits).
func Benchmarks() []Benchmark {
	return []Benchmark{
		{Name: "powerplant", Task: "regression", Train: 8500, Standardize: true,
			files: []string{"powerplant/Folds5x2_pp.csv"}, target: "last", rows: 9568, test: 1068, dim: 4},
		{Name: "letter", Task: "classification", Train: 10000,
			files: []string{"letter/letter-recognition.data"}, target: "first", rows: 20000, test: 10000, dim: 16,
			classes: 26},
		{Name: "usps", Task: "classification",
			files: []string{"usps/usps_train_derived.csv.gz", "usps/usps_test_derived.csv.gz"}, target: "first",
			rows: 9298, test: 2007, dim: 256, classes: 10},
		{Name: "mnist", Task: "classification", divisor: 255,
			files:  []string{"mnist/train-images-idx3-ubyte.gz", "mnist/t10k-images-idx3-ubyte.gz"},
			labels: []string{"mnist/train-labels-idx1-ubyte.gz", "mnist/t10k-labels-idx1-ubyte.gz"},
			rows:   70000, test: 10000, dim: 784, classes: 10},
	}
}

// Lookup returns the benchmark called name.
func Lookup(name string) (Benchmark, error) {
	var names []string
	for _, b := range Benchmarks() {
		if b.Name == name {
			return b, nil
		}
		names = append(names, b.Name)
	}
	return Benchmark{}, fmt.Errorf("unknown dataset %q (have %s)", name, strings.Join(names, ", "))
}

// ErrNoData reports that the data directory (or a file in it) is missing; tests skip on it.
var ErrNoData = errors.New("dataset files not found")

// Split is a benchmark loaded, preprocessed and split, with class indices for classification.
type Split struct {
	Benchmark
	Train, Test *dataset.Data
	// Classes are the class names, sorted; TrainClass and TestClass index them (classification only).
	Classes               []string
	TrainClass, TestClass []int
	// Scaler is the preprocessing fitted on the training split and applied to both.
	Scaler *dataset.Scaler
}

// Load reads the benchmark from dir (the data directory), splits it (train > 0 overrides the benchmark's
// training size for single-file datasets) and applies the paper's preprocessing fitted on the training split:
// standardization for Powerplant, then division by the global maximum of the training split (MNIST: by 255).
// It returns an error wrapping ErrNoData when a file is missing.
func (b Benchmark) Load(dir string, train int) (*Split, error) {
	read := func(i int) (*dataset.Data, error) {
		path := filepath.Join(dir, b.files[i])
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("%s: %w (%v)", b.Name, ErrNoData, err)
		}
		opt := dataset.Options{Target: b.target}
		if b.labels != nil {
			opt.Labels = filepath.Join(dir, b.labels[i])
		}
		return dataset.Load(path, opt)
	}
	s := &Split{Benchmark: b}
	var err error
	if len(b.files) == 2 {
		if s.Train, err = read(0); err != nil {
			return nil, err
		}
		if s.Test, err = read(1); err != nil {
			return nil, err
		}
	} else {
		all, err := read(0)
		if err != nil {
			return nil, err
		}
		n := b.Train
		if train > 0 {
			n = train
		}
		if n >= all.N {
			return nil, fmt.Errorf("%s: a training split of %d rows leaves no test rows (%d in all)", b.Name, n, all.N)
		}
		s.Train, s.Test = all.Split(n)
	}
	var steps []dataset.Step
	if b.Standardize {
		steps = append(steps, dataset.StepStandardize)
	}
	if b.divisor == 0 {
		steps = append(steps, dataset.StepMaxScale)
	}
	if s.Scaler, err = dataset.FitScaler(s.Train.X, s.Train.N, s.Train.D, steps); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name, err)
	}
	for _, d := range []*dataset.Data{s.Train, s.Test} {
		x := append([]float64(nil), d.X...)
		s.Scaler.Apply(x, d.N, d.D)
		if b.divisor != 0 {
			for i := range x {
				x[i] /= b.divisor
			}
		}
		d.X = x
	}
	if b.Task == "classification" {
		classes := dataset.ClassesOf(s.Train)
		s.Classes = classes.Labels
		if s.TrainClass, err = classes.Code(s.Train); err != nil {
			return nil, fmt.Errorf("%s train: %w", b.Name, err)
		}
		if s.TestClass, err = classes.Code(s.Test); err != nil {
			return nil, fmt.Errorf("%s test: %w", b.Name, err)
		}
	}
	return s, nil
}
