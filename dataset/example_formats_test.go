package dataset_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/rffkit/rff/dataset"
)

// Open reads a file whether or not it is gzip-compressed; the compression is detected from the content, so a
// compressed file needs no ".gz" suffix.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "notes.txt")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	fmt.Fprint(zw, "compressed text\n")
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}

	r, err := dataset.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q\n", b)
	// Output: "compressed text\n"
}

// ParseFormat reads the name of a format as a command-line flag gives it.
func ExampleParseFormat() {
	for _, s := range []string{"svmlight", "TSV", ""} {
		f, err := dataset.ParseFormat(s)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%q → %v\n", s, f)
	}
	_, err := dataset.ParseFormat("xlsx")
	fmt.Println(err)
	// Output:
	// "svmlight" → libsvm
	// "TSV" → csv
	// "" → auto
	// unknown data format "xlsx" (want csv, libsvm, svmlight, idx or auto)
}

// GuessFormat looks only at the name, after stripping ".gz"; FormatAuto means that Load will look at the content.
func ExampleGuessFormat() {
	for _, name := range []string{"train.csv.gz", "a9a.svm", "train-images-idx3-ubyte", "data.bin"} {
		fmt.Println(name, dataset.GuessFormat(name))
	}
	// Output:
	// train.csv.gz csv
	// a9a.svm libsvm
	// train-images-idx3-ubyte idx
	// data.bin auto
}

// idxBytes encodes an unsigned-byte IDX array: the magic number 00 00 08 NN, the NN big-endian dimensions, then the
// elements.
func idxBytes(dims []uint32, values []byte) []byte {
	var buf bytes.Buffer
	buf.Write([]byte{0, 0, 0x08, byte(len(dims))})
	for _, d := range dims {
		binary.Write(&buf, binary.BigEndian, d)
	}
	buf.Write(values)
	return buf.Bytes()
}

// ReadIDX returns the elements of an IDX array in row-major order and its dimensions; here three 2×2 "images" of
// unsigned bytes.
func ExampleReadIDX() {
	data := idxBytes([]uint32{3, 2, 2}, []byte{
		0, 255, 255, 0,
		10, 20, 30, 40,
		1, 2, 3, 4,
	})
	x, dims, err := dataset.ReadIDX(bytes.NewReader(data), "images.idx")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(dims, len(x))
	fmt.Println("item 1:", x[4:8])

	// A file shorter than its header says is refused.
	_, _, err = dataset.ReadIDX(bytes.NewReader(data[:20]), "short.idx")
	fmt.Println(err != nil)
	// Output:
	// [3 2 2] 12
	// item 1: [10 20 30 40]
	// true
}

// LoadIDX reads an images file and a labels file, as MNIST is distributed, into one Data: every 2×2 image becomes
// a row of 4 columns.
func ExampleLoadIDX() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	images := filepath.Join(dir, "images-idx3-ubyte")
	labels := filepath.Join(dir, "labels-idx1-ubyte")
	if err := os.WriteFile(images, idxBytes([]uint32{3, 2, 2}, []byte{
		0, 255, 255, 0,
		255, 0, 0, 255,
		0, 0, 255, 255,
	}), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(labels, idxBytes([]uint32{3}, []byte{7, 1, 7}), 0o644); err != nil {
		log.Fatal(err)
	}

	d, err := dataset.LoadIDX(images, labels)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d×%d, columns %v, target %q\n", d.N, d.D, d.Names, d.TargetName)
	fmt.Println("row 2:", d.Row(2), "label", d.Y[2])
	// Output:
	// 3×4, columns [x1 x2 x3 x4], target "label"
	// row 2: [0 0 255 255] label 7
}

// ReadLibSVM densifies sparse "label index:value" lines: missing features are 0 and D is the largest index.
func ExampleReadLibSVM() {
	text := `# two classes, sparse features
+1 1:0.5 3:2
-1 2:1.5 # comment
+1 qid:4 3:-1 1:1
`
	d, err := dataset.ReadLibSVM(strings.NewReader(text), "small.libsvm")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.N, d.D, d.Names, d.TargetName)
	for i := range d.N {
		fmt.Println(d.Y[i], d.Row(i))
	}

	// Errors name the file and the line.
	_, err = dataset.ReadLibSVM(strings.NewReader("1 1:0.5\n2 3-1.0\n"), "bad.libsvm")
	fmt.Println(err)
	// Output:
	// 3 3 [x1 x2 x3] label
	// 1 [0.5 0 2]
	// -1 [0 1.5 0]
	// 1 [1 0 -1]
	// bad.libsvm:2: bad feature "3-1.0" (want index:value)
}

// CSVHeader reads only the first lines of a file, so that a caller can pick the target column by name before
// loading it.
func ExampleCSVHeader() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "sensors.csv")
	if err := os.WriteFile(path, []byte("temp;pressure;output\n21.5;1003;0.7\n22.0;998;0.9\n"), 0o644); err != nil {
		log.Fatal(err)
	}

	names, cols, err := dataset.CSVHeader(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(names, cols)

	// A file without a header gives nil names.
	if err := os.WriteFile(path, []byte("1,2\n3,4\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	names, cols, err = dataset.CSVHeader(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(names == nil, cols)
	// Output:
	// [temp pressure output] 3
	// true 2
}

// DetectCSVLayout learns the delimiter, header and target column from the first two lines; the parser of the
// layout then reads single lines, as a worker of a distributed fit does.
func ExampleDetectCSVLayout() {
	layout, err := dataset.DetectCSVLayout("part-0.csv", []byte("a,b,label"), []byte("1,2,yes"), "label")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("delimiter %q, %d features %v, target %q\n", layout.Delim, layout.D(), layout.Names(), layout.TargetName())

	p, err := layout.Parser()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.IsHeader([]byte("a,b,label")))
	var x []float64
	for _, line := range []string{"1,2,yes", "3.5,-1,no"} {
		var target string
		if x, target, err = p.Parse([]byte(line), x); err != nil {
			log.Fatal(err)
		}
		fmt.Println(x, target)
	}
	_, _, err = p.Parse([]byte("1,abc,no"), nil)
	fmt.Println(err)
	// Output:
	// delimiter ',', 2 features [a b], target "label"
	// true
	// [1 2] yes
	// [1 2 3.5 -1] no
	// column 2: "abc" is not a number
}

// ParseTarget tells numeric targets from class labels.
func ExampleParseTarget() {
	for _, s := range []string{"2.5", "-1", "yes", "NaN"} {
		v, numeric := dataset.ParseTarget(s)
		fmt.Println(s, v, numeric)
	}
	// Output:
	// 2.5 2.5 true
	// -1 -1 true
	// yes NaN false
	// NaN NaN true
}

// OpenCSVStream reads a file in blocks of rows, so that it never has to fit in memory.
func ExampleOpenCSVStream() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "big.csv")
	var text strings.Builder
	text.WriteString("u,v,y\n")
	for i := range 10 {
		fmt.Fprintf(&text, "%d,%d,%d\n", i, 2*i, i%3)
	}
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
		log.Fatal(err)
	}

	s, err := dataset.OpenCSVStream(path, "y")
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	var sum float64
	for {
		b, err := s.Next(4)
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("block of %d rows, first %v\n", b.N, b.Row(0))
		for _, y := range b.Y {
			sum += y
		}
	}
	fmt.Println(s.Rows(), "rows, numeric target:", s.Numeric(), "sum", sum)
	// Output:
	// block of 4 rows, first [0 0]
	// block of 4 rows, first [4 8]
	// block of 2 rows, first [8 16]
	// 10 rows, numeric target: true sum 9
}

// NewCSVStream streams from any reader. Each block of string labels has its own Labels; Target gives the raw
// strings, which stay consistent across blocks.
func ExampleNewCSVStream() {
	text := "0.1,red\n0.7,blue\n0.4,red\n0.9,green\n"
	s, err := dataset.NewCSVStream(strings.NewReader(text), "colours.csv", "last")
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for {
		b, err := s.Next(3)
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		for i := range b.N {
			fmt.Print(s.Target(i), " ")
		}
		fmt.Println(b.Labels)
	}
	// Output:
	// red blue red [blue red]
	// green [green]
}

// DefaultMaxBytes is the memory budget of a load when Options.MaxBytes is 0; it depends on the machine, and is at
// least 256 MiB. A smaller budget refuses a file that needs more, with a *BudgetError.
func ExampleDefaultMaxBytes() {
	fmt.Println(dataset.DefaultMaxBytes() >= 256<<20)

	opt := dataset.Options{MaxBytes: 64}
	_, err := opt.ReadCSV(strings.NewReader(strings.Repeat("1,2,3,4\n", 100)), "wide.csv")
	var be *dataset.BudgetError
	fmt.Println(errors.As(err, &be), be.Budget)
	// Output:
	// true
	// true 64
}
