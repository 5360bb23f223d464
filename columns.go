package rff

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rffkit/rff/dataset"
)

// Inputs returns the model's input columns of data in the model's order (n×d), matched by name: a permutation of
// the columns gives the same rows, extra columns are ignored, and a missing column is an error naming it. Data
// whose columns carry generated names (x1, x2, …: a file without a header) must have exactly the model's columns,
// in the model's order. Models without stored names, and data without column names, take the columns by position.
// A model input loaded as the data's target column is an error that says so.
func (m *Model) Inputs(data *dataset.Data) ([]float64, error) {
	if !m.ok() {
		return nil, errNoModel
	}
	if data == nil || data.N == 0 {
		return nil, fmt.Errorf("no data rows")
	}
	names, d := m.file.Names, m.file.Dim
	if names == nil || data.Names == nil || slices.Equal(data.Names, names) || generated(data.Names) {
		if data.D != d {
			return nil, fmt.Errorf("the data have %d input columns, the model takes %d%s", data.D, d, columnHint(names))
		}
		return data.X, nil
	}
	pos := make(map[string]int, len(data.Names))
	for j, n := range data.Names {
		if _, dup := pos[n]; dup {
			return nil, fmt.Errorf("column %q appears twice", n)
		}
		pos[n] = j
	}
	cols := make([]int, d)
	for j, n := range names {
		c, ok := pos[n]
		if !ok && n == data.TargetName {
			return nil, fmt.Errorf("column %q is an input of the model (%s) but was read as the target column", n, strings.Join(names, ", "))
		}
		if !ok {
			return nil, fmt.Errorf("no column %q: the model takes %s", n, strings.Join(names, ", "))
		}
		cols[j] = c
	}
	X := make([]float64, data.N*d)
	for i := range data.N {
		row := data.X[i*data.D : (i+1)*data.D]
		for j, c := range cols {
			X[i*d+j] = row[c]
		}
	}
	return X, nil
}

// targets returns the n×p target columns of a vector-valued model from data (loaded without a target column), by
// the names stored in the model.
func (m *Model) targets(data *dataset.Data) ([]float64, error) {
	p := m.file.Outputs
	Y := make([]float64, data.N*p)
	for a, name := range m.file.Targets {
		c := slices.Index(data.Names, name)
		if c < 0 {
			return nil, fmt.Errorf("no target column %q: the model predicts %s", name, strings.Join(m.file.Targets, ", "))
		}
		for i := range data.N {
			Y[i*p+a] = data.X[i*data.D+c]
		}
	}
	return Y, nil
}

func columnHint(names []string) string {
	if names == nil {
		return ""
	}
	return " (" + strings.Join(names, ", ") + ")"
}

// generated reports whether names are the names a loader gives columns without a header: x1, x2, …
func generated(names []string) bool {
	for j, n := range names {
		if n != "x"+strconv.Itoa(j+1) {
			return false
		}
	}
	return true
}

// splitColumns moves the columns named in names out of the inputs of data and returns them as an n×p matrix. The
// data must have been loaded without a target column.
func splitColumns(data *dataset.Data, names []string) ([]float64, error) {
	seen := map[int]bool{}
	var cols []int
	for _, f := range names {
		c := slices.Index(data.Names, f)
		if c < 0 {
			if v, err := strconv.Atoi(f); err == nil && v >= 1 && v <= data.D {
				c = v - 1
			}
		}
		if c < 0 {
			return nil, fmt.Errorf("no target column %q (columns: %s)", f, strings.Join(data.Names, ", "))
		}
		if seen[c] {
			return nil, fmt.Errorf("target column %q given twice", f)
		}
		seen[c] = true
		cols = append(cols, c)
	}
	if len(cols) >= data.D {
		return nil, fmt.Errorf("the targets take every column; no inputs are left")
	}
	p, d := len(cols), data.D-len(cols)
	Y := make([]float64, data.N*p)
	X := make([]float64, 0, data.N*d)
	for i := range data.N {
		row := data.X[i*data.D : (i+1)*data.D]
		for k, c := range cols {
			Y[i*p+k] = row[c]
		}
		for j, v := range row {
			if !seen[j] {
				X = append(X, v)
			}
		}
	}
	var in []string
	for j, n := range data.Names {
		if !seen[j] {
			in = append(in, n)
		}
	}
	for k, c := range cols {
		names[k] = data.Names[c]
	}
	*data = dataset.Data{X: X, N: data.N, D: d, Names: in}
	return Y, nil
}
