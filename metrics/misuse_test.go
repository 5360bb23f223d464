package metrics

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestMisuse: the scores never panic on inputs a caller can get wrong. Lengths that do not match make a score
// undefined (NaN, as the package documents for no rows); class indices outside the labels are counted as invalid
// rows instead of indexing out of range.
func TestMisuse(t *testing.T) {
	nan := func(name string, v float64) {
		t.Helper()
		if !math.IsNaN(v) {
			t.Errorf("%s = %v, want NaN", name, v)
		}
	}
	guard := func(name string, f func()) {
		t.Helper()
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("%s: panicked: %v", name, r)
			}
		}()
		f()
	}
	guard("RMSE short pred", func() { nan("RMSE", RMSE([]float64{1}, []float64{1, 2})) })
	guard("RMSE long pred", func() { nan("RMSE", RMSE([]float64{1, 2, 3}, []float64{1, 2})) })
	guard("MAE short pred", func() { nan("MAE", MAE(nil, []float64{1, 2})) })
	guard("R2 short pred", func() { nan("R2", R2([]float64{1}, []float64{1, 2})) })
	guard("MultiR2 n·p too large", func() { nan("MultiR2", MultiR2([]float64{1, 2}, []float64{1, 2}, 2, 2)) })
	guard("MultiR2 negative n", func() { nan("MultiR2", MultiR2(nil, nil, -1, 2)) })
	guard("MultiR2 n·p overflows", func() { nan("MultiR2", MultiR2(nil, nil, 1<<32, 1<<32)) })
	guard("Accuracy short pred", func() { nan("Accuracy", Accuracy([]int{1}, []int{1, 0})) })
	guard("ScoreRegression lengths", func() {
		r := ScoreRegression([]float64{1, 2, 3}, []float64{1, 2, 3, 4}, 2, 2, nil)
		nan("RMSE", r.RMSE)
		nan("R2", r.R2)
		if len(r.PerOutput) != 0 {
			t.Errorf("per-output scores of mismatched lengths: %+v", r.PerOutput)
		}
	})
	guard("ScoreRegression negative n", func() {
		r := ScoreRegression(nil, nil, -3, 2, nil)
		nan("RMSE", r.RMSE)
	})
	guard("ScoreClassification lengths", func() {
		c := ScoreClassification([]int{0}, []int{0, 1}, []string{"a", "b"})
		nan("Accuracy", c.Accuracy)
	})
	guard("ScoreClassification out of range", func() {
		c := ScoreClassification([]int{0, 5, 1, -1}, []int{0, 1, 7, 1}, []string{"a", "b"})
		if c.Invalid != 3 || c.N != 4 {
			t.Errorf("invalid rows %d of %d, want 3 of 4", c.Invalid, c.N)
		}
		// Only row 0 (true a, predicted a) is counted per class.
		if c.PerClass[0].Total != 1 || c.PerClass[0].Correct != 1 || c.PerClass[1].Total != 0 || c.Confusion[0][0] != 1 {
			t.Errorf("per-class counts %+v, confusion %v", c.PerClass, c.Confusion)
		}
		if math.Abs(c.Accuracy-0.25) > 1e-15 {
			t.Errorf("accuracy %v, want 1/4", c.Accuracy)
		}
		b, err := json.Marshal(c)
		if err != nil || !strings.Contains(string(b), `"invalid":3`) {
			t.Errorf("JSON %s (%v) does not report the invalid rows", b, err)
		}
	})
	if b, _ := json.Marshal(ScoreClassification([]int{0}, []int{0}, []string{"a"})); strings.Contains(string(b), "invalid") {
		t.Errorf("JSON of a clean score mentions invalid rows: %s", b)
	}
}
