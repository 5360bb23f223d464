package dataset_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/rffkit/rff/dataset"
)

// CapBudget turns a requested memory budget into one the machine can honour: a budget it can hold is kept, and
// "no limit" (a negative budget) or more than the machine has becomes the machine's memory and swap when they are
// known.
func ExampleCapBudget() {
	fmt.Println(dataset.CapBudget(64<<20) == 64<<20)
	unlimited := dataset.CapBudget(-1)
	fmt.Println(unlimited > 0)
	m := dataset.MachineMemory()
	fmt.Println(m < 0 || (unlimited == m && dataset.CapBudget(math.MaxInt64) == m))
	// Output:
	// true
	// true
	// true
}

// MachineMemory is the most memory the process can ever hold; a tool can derive its default budget from it, with a
// fallback for systems where it is unknown (-1).
func ExampleMachineMemory() {
	budget := int64(1 << 30) // 1 GiB when the machine's memory is unknown
	if m := dataset.MachineMemory(); m > 0 {
		budget = m / 4
	}
	fmt.Println(budget > 0)
	m := dataset.MachineMemory()
	fmt.Println(m == -1 || m > 1<<20) // known, it is more than a MiB
	// Output:
	// true
	// true
}

// NewScalerAccumulatorFrom rebuilds an accumulator from statistics computed elsewhere: two workers each
// accumulate their part of the rows and send their Moments, here as JSON; the coordinator merges them and fits the
// same scaler as FitScaler on all the rows.
func ExampleNewScalerAccumulatorFrom() {
	x := []float64{
		1, 10,
		2, 30,
		3, 20,
		4, 60,
		5, 40,
		6, 50,
	}
	var messages [][]byte
	for _, part := range [][]float64{x[:6], x[6:]} { // three rows on each worker
		a := dataset.NewScalerAccumulator(2)
		if err := a.Add(part, 3); err != nil {
			log.Fatal(err)
		}
		b, err := json.Marshal(a.Moments())
		if err != nil {
			log.Fatal(err)
		}
		messages = append(messages, b)
	}

	var total *dataset.ScalerAccumulator
	for _, b := range messages {
		var m dataset.ScalerMoments
		if err := json.Unmarshal(b, &m); err != nil {
			log.Fatal(err)
		}
		a, err := dataset.NewScalerAccumulatorFrom(m)
		if err != nil {
			log.Fatal(err)
		}
		if total == nil {
			total = a
		} else if err := total.Merge(a); err != nil {
			log.Fatal(err)
		}
	}
	steps := []dataset.Step{dataset.StepStandardize}
	s, err := total.Scaler(steps)
	if err != nil {
		log.Fatal(err)
	}
	whole, err := dataset.FitScaler(x, 6, 2, steps)
	if err != nil {
		log.Fatal(err)
	}
	p, q := s.Params[0], whole.Params[0]
	fmt.Printf("%d rows, mean %.4g, std %.4g\n", total.Rows(), p.Shift, p.Scale)
	same := math.Abs(p.Scale[1]-q.Scale[1]) < 1e-12 && math.Abs(p.Shift[1]-q.Shift[1]) < 1e-12
	fmt.Println("same as FitScaler to 1e-12:", same)

	_, err = dataset.NewScalerAccumulatorFrom(dataset.ScalerMoments{N: 2, Mean: []float64{1}, M2: []float64{-1},
		Min: []float64{0}, Max: []float64{2}})
	fmt.Println(err != nil)
	// Output:
	// 6 rows, mean [3.5 35], std [1.708 17.08]
	// same as FitScaler to 1e-12: true
	// true
}

// Add feeds a block of rows, as they are read; a block with a NaN or infinite value is refused whole, naming its
// row counted from the first row ever added.
func ExampleScalerAccumulator_Add() {
	a := dataset.NewScalerAccumulator(3)
	blocks := [][]float64{
		{1, 2, 3, 4, 5, 6},           // rows 1–2
		{7, 8, 9, 1, math.Inf(1), 0}, // rows 3–4, one value infinite
		{0, 1, 2},                    // row 3 again, after the bad block was dropped
	}
	for _, b := range blocks {
		if err := a.Add(b, len(b)/3); err != nil {
			fmt.Println(err)
		}
	}
	m := a.Moments()
	fmt.Println(a.Rows(), "rows, min", m.Min, "max", m.Max)
	// Output:
	// preprocess: row 4, column 2: NaN/Inf not allowed
	// 3 rows, min [0 1 2] max [4 5 6]
}

// Merge combines accumulators fed on different goroutines (or machines): the statistics agree with those of one
// accumulator fed every row, whatever the split.
func ExampleScalerAccumulator_Merge() {
	x := []float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3} // ten rows of one column
	one := dataset.NewScalerAccumulator(1)
	if err := one.Add(x, 10); err != nil {
		log.Fatal(err)
	}
	a, b := dataset.NewScalerAccumulator(1), dataset.NewScalerAccumulator(1)
	if err := a.Add(x[:7], 7); err != nil {
		log.Fatal(err)
	}
	if err := b.Add(x[7:], 3); err != nil {
		log.Fatal(err)
	}
	if err := a.Merge(b); err != nil {
		log.Fatal(err)
	}
	ma, mo := a.Moments(), one.Moments()
	fmt.Printf("merged: N = %d, mean %.4g, M2 %.4g, range [%g, %g]\n", ma.N, ma.Mean[0], ma.M2[0], ma.Min[0], ma.Max[0])
	same := math.Abs(ma.M2[0]-mo.M2[0]) < 1e-12 && math.Abs(ma.Mean[0]-mo.Mean[0]) < 1e-12
	fmt.Println("as one accumulator to 1e-12:", same)

	fmt.Println(a.Merge(dataset.NewScalerAccumulator(2)) != nil) // the column counts differ
	// Output:
	// merged: N = 10, mean 3.9, M2 54.9, range [1, 9]
	// as one accumulator to 1e-12: true
	// true
}

// Scaler fits a chain of steps on the rows added so far; a PCA step needs the co-moments, which only an
// accumulator that tracks its covariance holds.
func ExampleScalerAccumulator_Scaler() {
	a := dataset.NewScalerAccumulator(2)
	if err := a.Add([]float64{
		0, 100,
		5, 300,
		10, 200,
	}, 3); err != nil {
		log.Fatal(err)
	}
	s, err := a.Scaler([]dataset.Step{dataset.StepMinMax})
	if err != nil {
		log.Fatal(err)
	}
	x := []float64{2.5, 250}
	s.Apply(x, 1, 2)
	fmt.Println("minmax:", x)

	pca, err := dataset.ParseSteps("standardize,pca:1")
	if err != nil {
		log.Fatal(err)
	}
	_, err = a.Scaler(pca)
	fmt.Println(errors.Is(err, dataset.ErrPCAStream))
	// Output:
	// minmax: [0.25 0.75]
	// true
}

// Moments are the plain statistics an accumulator holds: the row count and, per column, the mean, the sum of
// squared deviations M2 and the extremes. The (population) variance is M2/N.
func ExampleScalerAccumulator_Moments() {
	a := dataset.NewScalerAccumulator(2)
	if err := a.Add([]float64{
		1, -2,
		3, 0,
		5, 8,
	}, 3); err != nil {
		log.Fatal(err)
	}
	m := a.Moments()
	fmt.Println("N:", m.N)
	fmt.Printf("mean %.4g, M2 %.4g, min %g, max %g\n", m.Mean, m.M2, m.Min, m.Max)
	fmt.Printf("variance %.4g\n", []float64{m.M2[0] / float64(m.N), m.M2[1] / float64(m.N)})
	// Output:
	// N: 3
	// mean [3 2], M2 [8 56], min [1 -2], max [5 8]
	// variance [2.667 18.67]
}

// TrackCovariance lets a streamed fit include a PCA step: the accumulator also collects the co-moment matrix, and
// its scaler projects like FitScaler's on all the rows. It must be called before the first row is added.
func ExampleScalerAccumulator_TrackCovariance() {
	x := []float64{ // five points near the line y = 2x
		0, 0.1,
		1, 1.9,
		2, 4.2,
		3, 5.8,
		4, 8.1,
	}
	steps, err := dataset.ParseSteps("standardize,pca:1")
	if err != nil {
		log.Fatal(err)
	}
	a := dataset.NewScalerAccumulator(2)
	if err := a.TrackCovariance(); err != nil {
		log.Fatal(err)
	}
	for _, block := range [][]float64{x[:4], x[4:]} {
		if err := a.Add(block, len(block)/2); err != nil {
			log.Fatal(err)
		}
	}
	streamed, err := a.Scaler(steps)
	if err != nil {
		log.Fatal(err)
	}
	whole, err := dataset.FitScaler(x, 5, 2, steps)
	if err != nil {
		log.Fatal(err)
	}
	u, v := streamed.Transform(x, 5, 2), whole.Transform(x, 5, 2)
	var diff float64
	for i := range u {
		diff = max(diff, math.Abs(math.Abs(u[i])-math.Abs(v[i])))
	}
	fmt.Printf("columns out: %d, variance kept %.4f, as FitScaler to 1e-9: %v\n", streamed.OutDim(),
		streamed.ExplainedVariance(), diff < 1e-9)

	fmt.Println(a.TrackCovariance() != nil) // rows were added already
	// Output:
	// columns out: 1, variance kept 0.9993, as FitScaler to 1e-9: true
	// true
}

// Options.ReadCSV reads CSV text with the target and input columns chosen by name: a column that is not numeric,
// such as an identifier, is skipped without being parsed.
func ExampleOptions_ReadCSV() {
	text := "id,temp,humidity,wind,rain\n" +
		"A-17,21.5,0.40,3.2,0.0\n" +
		"B-02,18.0,0.85,5.1,2.5\n" +
		"C-33,25.2,0.30,1.0,0.0\n"
	opt := dataset.Options{Target: "rain", Columns: []string{"temp", "wind"}}
	d, err := opt.ReadCSV(strings.NewReader(text), "weather.csv")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.N, "rows, inputs", d.Names, "target", d.TargetName)
	for i := range d.N {
		fmt.Println(d.Row(i), d.Y[i])
	}

	// A budget smaller than the input refuses it before reading.
	_, err = dataset.Options{MaxBytes: 32}.ReadCSV(strings.NewReader(text), "weather.csv")
	var be *dataset.BudgetError
	fmt.Println(errors.As(err, &be), be.Budget)
	// Output:
	// 3 rows, inputs [temp wind] target rain
	// [21.5 3.2] 0
	// [18 5.1] 2.5
	// [25.2 1] 0
	// true 32
}

// Options.ReadLibSVM reads sparse "label index:value" lines; Width pads a test file whose last features are zero in
// every row to the width of the training data, and Target "none" drops the labels.
func ExampleOptions_ReadLibSVM() {
	text := "1 1:0.5 2:1\n-1 3:2\n"
	d, err := dataset.Options{Width: 5}.ReadLibSVM(strings.NewReader(text), "test.libsvm")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.N, "rows of", d.D, "features, labels", d.Y)
	fmt.Println(d.Row(1))

	u, err := dataset.Options{Target: "none"}.ReadLibSVM(strings.NewReader(text), "test.libsvm")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(u.D, "features, labels dropped:", u.Y == nil)
	// Output:
	// 2 rows of 5 features, labels [1 -1]
	// [0 0 2 0 0]
	// 3 features, labels dropped: true
}

// Options.ReadIDX reads an IDX array within a memory budget. The array is built here: the magic number 00 00 0D 02
// (float32 elements, two dimensions), the dimensions 2 and 3 as big-endian uint32, then the six elements,
// big-endian.
func ExampleOptions_ReadIDX() {
	var buf bytes.Buffer
	buf.Write([]byte{0, 0, 0x0D, 2})
	for _, v := range []any{uint32(2), uint32(3), []float32{0.5, -1, 2, 4, 0.25, 8}} {
		if err := binary.Write(&buf, binary.BigEndian, v); err != nil {
			log.Fatal(err)
		}
	}
	x, dims, err := dataset.Options{MaxBytes: 1 << 20}.ReadIDX(bytes.NewReader(buf.Bytes()), "features.idx")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(dims, x)

	// Six float64 values take 48 bytes: a budget of 40 refuses the array before reading it.
	_, _, err = dataset.Options{MaxBytes: 40}.ReadIDX(bytes.NewReader(buf.Bytes()), "features.idx")
	var be *dataset.BudgetError
	fmt.Println(errors.As(err, &be))
	// Output:
	// [2 3] [0.5 -1 2 4 0.25 8]
	// true
}

// Options.NewCSVStream streams CSV text from any reader; the target is chosen by Options.Target and MaxBytes bounds
// each block, so that a caller asking for too many rows at once is refused instead of running out of memory.
func ExampleOptions_NewCSVStream() {
	var text strings.Builder
	text.WriteString("label,a,b\n")
	for i := range 500 {
		fmt.Fprintf(&text, "%d,%d,%d\n", i%2, i, 10*i)
	}
	opt := dataset.Options{Target: "first", MaxBytes: 1 << 10}
	s, err := opt.NewCSVStream(strings.NewReader(text.String()), "pairs.csv")
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	b, err := s.Next(4)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Names, b.TargetName, b.Y)

	_, err = s.Next(1000) // a block of 1000 rows would exceed the 1 KiB budget
	var be *dataset.BudgetError
	fmt.Println(errors.As(err, &be), be.Budget)
	// Output:
	// [a b] label [0 1 0 1]
	// true 1024
}

// Options.OpenCSVStream opens a file (gzip-compressed or not) for reading in blocks, with the target column set by
// Options.Target; the file as a whole may be larger than memory.
func ExampleOptions_OpenCSVStream() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "readings.csv")
	if err := os.WriteFile(path, []byte("x;y;z\n1;2;3\n4;5;6\n7;8;9\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	s, err := dataset.Options{Target: "2"}.OpenCSVStream(path)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for {
		b, err := s.Next(2)
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(b.Names, b.X, b.TargetName, b.Y)
	}
	// Output:
	// [x z] [1 3 4 6] y [2 5]
	// [x z] [7 9] y [8]
}

// Next returns blocks of at most the rows asked for, then io.EOF. A bad row ends the stream with an error naming
// the file and line, after the blocks before it.
func ExampleCSVStream_Next() {
	text := "a,b,y\n1,2,0.5\n3,4,1.5\n5,6,2.5\n7,oops,3.5\n"
	s, err := dataset.NewCSVStream(strings.NewReader(text), "part.csv", "y")
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for {
		b, err := s.Next(2)
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Println(b.N, "rows:", b.X, b.Y)
	}
	// Output:
	// 2 rows: [1 2 3 4] [0.5 1.5]
	// part.csv:5: column 2: "oops" is not a number
}

// Parse reads single data lines with the layout learned from the first two lines of a file, as a worker of a
// distributed fit does; the features are appended to one reusable slice and the target comes back as written.
func ExampleCSVLineParser_Parse() {
	header, first := []byte("species;length;width"), []byte("setosa;5.1;3.5")
	layout, err := dataset.DetectCSVLayout("part-0.csv", header, first, "first")
	if err != nil {
		log.Fatal(err)
	}
	p, err := layout.Parser()
	if err != nil {
		log.Fatal(err)
	}
	var x []float64
	var targets []string
	for _, line := range []string{"setosa;5.1;3.5", `"virginica"; 6.3 ;3.3`} {
		var t string
		if x, t, err = p.Parse([]byte(line), x); err != nil {
			log.Fatal(err)
		}
		targets = append(targets, t)
	}
	fmt.Println(x, targets)

	_, _, err = p.Parse([]byte("setosa;4.9"), x)
	fmt.Println(err)
	// Output:
	// [5.1 3.5 6.3 3.3] [setosa virginica]
	// row has 2 fields, want 3
}

// Jacobian is the derivative of the preprocessing, the same at every point: diagonal for per-column steps (here
// 1/std after standardization), dense OutDim()×D after a PCA step. A model's gradients with respect to raw inputs
// are its gradients in the preprocessed space times this matrix.
func ExampleScaler_Jacobian() {
	x := []float64{
		0, 10,
		2, 30,
		4, 20,
		6, 40,
	}
	std, err := dataset.FitScaler(x, 4, 2, []dataset.Step{dataset.StepStandardize})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("standardize: %.4g\n", std.Jacobian())

	steps, err := dataset.ParseSteps("standardize,pca:1")
	if err != nil {
		log.Fatal(err)
	}
	pca, err := dataset.FitScaler(x, 4, 2, steps)
	if err != nil {
		log.Fatal(err)
	}
	J := pca.Jacobian()
	fmt.Printf("pca:1: %d×%d, |J| %.4g\n", pca.OutDim(), pca.D, []float64{math.Abs(J[0]), math.Abs(J[1])})
	// Output:
	// standardize: [0.4472 0 0 0.08944]
	// pca:1: 1×2, |J| [0.3162 0.06325]
}

// Validate checks a scaler decoded from a model file before it is used: a consistent one passes, a corrupted one
// (here a negative scale) is refused.
func ExampleScaler_Validate() {
	s, err := dataset.FitScaler([]float64{1, 2, 3, 4}, 2, 2, []dataset.Step{dataset.StepMinMax})
	if err != nil {
		log.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		log.Fatal(err)
	}
	var back dataset.Scaler
	if err := json.Unmarshal(b, &back); err != nil {
		log.Fatal(err)
	}
	fmt.Println(back.Validate())

	back.Params[0].Scale[1] = -2
	fmt.Println(back.Validate())
	// Output:
	// <nil>
	// preprocess: step 1 (minmax), column 2: bad parameters shift 2, scale -2
}
