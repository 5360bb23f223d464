package rff

import (
	"strings"
	"testing"

	"github.com/rffkit/rff/dataset"
)

// TestInputsGeneratedNames: a file without a header (columns x1, x2, …) must have exactly the model's input
// columns, in order — for a model fitted on such a file too: an extra column in front (an id, say) must not shift
// the inputs silently, which matching x1…x3 by name would do.
func TestInputsGeneratedNames(t *testing.T) {
	train := &dataset.Data{N: 40, D: 3, Names: []string{"x1", "x2", "x3"}}
	for i := range train.N {
		a, b, c := float64(i%7), float64(i%5), float64(i%3)
		train.X = append(train.X, a, b, c)
		train.Y = append(train.Y, a+b*c)
	}
	m, err := Fit(Config{Points: 16, Sigma: 2, Lambda: 1e-6}, train)
	if err != nil {
		t.Fatal(err)
	}
	same := &dataset.Data{N: 1, D: 3, Names: []string{"x1", "x2", "x3"}, X: []float64{1, 2, 3}}
	if X, err := m.Inputs(same); err != nil || len(X) != 3 {
		t.Fatalf("the model's own columns: %v, %v", X, err)
	}
	extra := &dataset.Data{N: 1, D: 4, Names: []string{"x1", "x2", "x3", "x4"}, X: []float64{99, 1, 2, 3}}
	if _, err := m.Inputs(extra); err == nil || !strings.Contains(err.Error(), "the data have 4 input columns, the model takes 3") {
		t.Errorf("a headerless file with 4 columns for a model of 3: %v", err)
	}
}

// TestInputsTargetIsInput: an input of the model loaded as the target column is named as such, not as missing.
func TestInputsTargetIsInput(t *testing.T) {
	train := &dataset.Data{N: 30, D: 2, Names: []string{"a", "b"}, TargetName: "y"}
	for i := range train.N {
		train.X = append(train.X, float64(i%7), float64(i%4))
		train.Y = append(train.Y, float64(i%7*i%4))
	}
	m, err := Fit(Config{Points: 16, Sigma: 1, Lambda: 1e-6}, train)
	if err != nil {
		t.Fatal(err)
	}
	data := &dataset.Data{N: 1, D: 2, Names: []string{"b", "y"}, X: []float64{1, 2}, TargetName: "a", Y: []float64{0}}
	if _, err := m.Inputs(data); err == nil || !strings.Contains(err.Error(), `column "a" is an input of the model (a, b) but was read as the target column`) {
		t.Errorf("got %v", err)
	}
}
