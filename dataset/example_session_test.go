package dataset_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/rffkit/rff/dataset"
)

// ClassNumber names the class of a numeric target: numerically equal targets are one class, however a file writes
// them.
func ExampleClassNumber() {
	for _, v := range []float64{1, 1.0, 2.5, 0, -0.0, 1e21} {
		fmt.Print(dataset.ClassNumber(v), " ")
	}
	fmt.Println()
	// Output: 1 1 2.5 0 0 1e+21
}

// DetectFormat is the format Load reads a file in: from its name, or from its content when the name says nothing.
func ExampleDetectFormat() {
	dir, err := os.MkdirTemp("", "rff-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	files := map[string]string{"a.csv": "x,y\n1,2\n", "b": "1 1:0.5 3:2\n", "c": "x,y\n1,2\n"}
	for _, name := range []string{"a.csv", "b", "c"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(files[name]), 0o644); err != nil {
			log.Fatal(err)
		}
		f, err := dataset.DetectFormat(path)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(name, f)
	}
	// Output:
	// a.csv csv
	// b libsvm
	// c csv
}

// NewGzipReader reads a gzip file member after member, as the loaders do: concatenated members are one stream, and
// bytes after the last member that are not zero padding are an error.
func ExampleNewGzipReader() {
	member := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	for _, file := range [][]byte{
		append(member("a,b\n"), member("1,2\n")...),
		append(member("a,b\n"), "appended"...),
	} {
		r, err := dataset.NewGzipReader(bufio.NewReader(bytes.NewReader(file)))
		if err != nil {
			log.Fatal(err)
		}
		text, err := io.ReadAll(r)
		fmt.Printf("%q %v\n", text, err)
		r.Close()
	}
	// Output:
	// "a,b\n1,2\n" <nil>
	// "a,b\n" data after the end of the gzip stream (the file was appended to, or is damaged); recompress it
}
