package rff

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestInfoCopies: the slices of Info are the caller's — writing into them changes neither the model's Info nor its
// predictions (a model is immutable and shared by concurrent callers).
func TestInfoCopies(t *testing.T) {
	files, _ := filepath.Glob("testdata/v2/*.rff")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			m, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			before := m.Info()
			X := make([]float64, 3*len(before.Inputs))
			p0, err := m.PredictRows(X, 3)
			if err != nil {
				t.Fatal(err)
			}
			scribble := m.Info()
			for _, s := range [][]string{scribble.Inputs, scribble.Targets, scribble.Labels} {
				for i := range s {
					s[i] = "scribbled"
				}
			}
			after := m.Info()
			if !slices.Equal(after.Inputs, before.Inputs) || !slices.Equal(after.Targets, before.Targets) || !slices.Equal(after.Labels, before.Labels) {
				t.Errorf("Info after writing into an earlier Info: %+v, want %+v", after, before)
			}
			p1, err := m.PredictRows(X, 3)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p1.Labels, p0.Labels) {
				t.Errorf("labels %v, want %v", p1.Labels, p0.Labels)
			}
		})
	}
}
