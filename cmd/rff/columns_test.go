package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadColumns: the --values/--gradients and --A files read numbers as the data readers do — decimal and
// hexadecimal numbers, NaN or an empty field for an unobserved entry — and refuse digit separators and infinities
// with one line naming the line, column and cell; a first line that is not numbers is a header.
func TestReadColumns(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) string {
		p := filepath.Join(dir, "c.csv")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	nan := math.NaN()
	for _, c := range []struct {
		name, text string
		n, cols    int
		want       []float64
		err        string
	}{
		{"header and numbers", "v,g\n1,0x1p1\n,NaN\n1e-400,-2.5\n", 3, 2, []float64{1, 2, nan, nan, 0, -2.5}, ""},
		{"a header with digit separators", "1_0\n5\n", 1, 1, []float64{5}, ""},
		{"digit separators in a row", "v\n1\n2_0\n", 2, 1, nil, `c.csv:3: column 1: "2_0" is not a number`},
		{"infinity", "v,g\n1,2\n3,-inf\n", 2, 2, nil, `c.csv:3: column 2: "-inf" is infinite`},
		{"overflow", "v\n1e400\n", 1, 1, nil, `"1e400" is infinite`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := readColumns(write(c.text), c.n, c.cols, "--values")
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("%v, want one line with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, c.want, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
	for _, c := range []struct {
		name, text string
		want       []float64
		err        string
	}{
		{"decimal and hexadecimal", "2,0x1p-1\n0.5,2\n", []float64{2, 0.5, 0.5, 2}, ""},
		{"digit separators", "1,1_0\n1_0,1\n", nil, `row 1: "1_0" is not a finite number`},
		{"NaN", "1,NaN\nNaN,1\n", nil, `row 1: "NaN" is not a finite number`},
	} {
		t.Run("A/"+c.name, func(t *testing.T) {
			got, err := readMatrix(write(c.text))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("%v, want %q", err, c.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, c.want) {
				t.Errorf("got %v, %v; want %v", got, err, c.want)
			}
		})
	}
}
