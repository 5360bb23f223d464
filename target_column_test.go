package rff

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rffkit/rff/dataset"
)

// TestTargetColumnHeaderless: a model fitted on a CSV file without a header whose target is not the last column
// reads files of the same layout with that column as the target (in memory and streamed), and a model whose target
// column is named like a keyword (last) reads it by that name's position — not the last column, which would score a
// feature as the target and feed the target to the model as an input.
func TestTargetColumnHeaderless(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	for i := range 40 {
		a, c := float64(i%7)/7, float64(i%5)/5
		b.WriteString(ftoa(3*a-c) + "," + ftoa(a) + "," + ftoa(c) + "\n") // y, a, c
	}
	path := filepath.Join(dir, "yfirst.csv")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(dir, "named.csv")
	if err := os.WriteFile(named, append([]byte("last,a,c\n"), b.Bytes()...), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Points: 32, Sigma: 1, Lambda: 1e-8}
	for _, c := range []struct {
		name, path, target, want string
		stream                   bool
	}{
		{"headerless", path, "first", "1", false},
		{"headerless streamed", path, "first", "1", true},
		{"a column named last", named, "1", "1", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var m *Model
			var err error
			if c.stream {
				m, err = FitCSV(cfg, c.path, StreamOptions{Target: c.target})
			} else {
				var data *dataset.Data
				if data, err = dataset.Load(c.path, dataset.Options{Target: c.target}); err != nil {
					t.Fatal(err)
				}
				m, err = Fit(cfg, data)
			}
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer // the target column survives the model file
			if err := m.Write(&buf); err != nil {
				t.Fatal(err)
			}
			if m, err = Read(&buf); err != nil {
				t.Fatal(err)
			}
			tgt, err := m.TargetOption(c.path, dataset.FormatAuto)
			if err != nil || tgt != c.want {
				t.Fatalf("TargetOption = %q, %v; want %q", tgt, err, c.want)
			}
			data, err := dataset.Load(c.path, dataset.Options{Target: tgt})
			if err != nil {
				t.Fatal(err)
			}
			s, err := m.Score(data)
			if err != nil {
				t.Fatal(err)
			}
			if s.Regression.R2 < 0.99 {
				t.Errorf("R² %g on the training file read with target %q: the wrong column", s.Regression.R2, tgt)
			}
		})
	}
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// TestTargetOptionSniffs: a LibSVM file whose name says nothing is read as LibSVM by Load, and TargetOption keeps its
// labels ("") as for any LibSVM file, instead of reading it as a CSV header and asking for its last column.
func TestTargetOptionSniffs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "noext")
	text := "3 1:1 2:2\n4 1:2 2:1\n7 1:3 2:3\n10 1:4 2:5\n11 1:5 2:4\n13 1:6 2:6\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := dataset.Load(path, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Fit(Config{Points: 8, Sigma: 1, Lambda: 1e-6}, data)
	if err != nil {
		t.Fatal(err)
	}
	if tgt, err := m.TargetOption(path, dataset.FormatAuto); err != nil || tgt != "" {
		t.Errorf("TargetOption = %q, %v; want \"\" (LibSVM keeps its labels)", tgt, err)
	}
}
