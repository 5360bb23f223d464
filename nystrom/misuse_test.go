package nystrom

import (
	"math"
	"testing"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
)

// Misuse of the map and the selectors is refused with errors, not panics.
func TestMapRefuses(t *testing.T) {
	n, d := 40, 2
	X, _ := uniformData(n, d, 1, 70)
	k := kernel.Gaussian{S: 1}
	m, err := New(k, Uniform{}, X, n, d, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	nanX := append([]float64(nil), X...)
	nanX[3] = math.NaN()
	var nilMap *Map
	cases := map[string]func() error{
		"nil kernel":          func() error { _, err := New(nil, Uniform{}, X, n, d, 10, 1); return err },
		"nil selector":        func() error { _, err := New(k, nil, X, n, d, 10, 1); return err },
		"M > n":               func() error { _, err := New(k, KMeansPP{}, X, n, d, n+1, 1); return err },
		"M = 0":               func() error { _, err := New(k, Leverage{}, X, n, d, 0, 1); return err },
		"NaN input":           func() error { _, err := New(k, Uniform{}, nanX, n, d, 10, 1); return err },
		"short X":             func() error { _, err := New(k, Uniform{}, X[1:], n, d, 10, 1); return err },
		"negative λ":          func() error { _, err := Leverage{Lambda: -1}.Select(k, X, n, d, 5, 1); return err },
		"threshold 1":         func() error { _, err := New(k, Uniform{}, X, n, d, 10, 1, WithThreshold(1)); return err },
		"nil option":          func() error { _, err := New(k, Uniform{}, X, n, d, 10, 1, nil); return err },
		"budget":              func() error { _, err := New(k, Uniform{}, X, n, d, 10, 1, WithMaxBytes(100)); return err },
		"zero kernel matrix":  func() error { _, err := FromLandmarks(kernel.ArcCos{Order: 1}, make([]float64, 4), 2, d); return err },
		"NaN landmark":        func() error { _, err := FromLandmarks(k, nanX[:10*d], 10, d); return err },
		"transform nil map":   func() error { return nilMap.TransformRows(make([]float64, 10), X, n) },
		"transform short dst": func() error { return m.TransformRows(make([]float64, 3), X, n) },
		"transform NaN":       func() error { return m.TransformRows(make([]float64, n*m.Features()), nanX, n) },
		"predict nil fit":     func() error { return m.Predict(make([]float64, n), nil, X, n) },
		"predict other fit": func() error {
			return m.Predict(make([]float64, n), &learn.Fit{F: 3, P: 1, Theta: make([]float64, 3), Bias: make([]float64, 1)}, X, n)
		},
		"gather out of range": func() error { _, err := Gather(X, n, d, []int{n}); return err },
		"unknown selector":    func() error { _, err := SelectorByName("random"); return err },
	}
	for name, f := range cases {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
