package linalg

import (
	"math"
	"math/rand/v2"
	"testing"
)

// withBackend runs f once per available backend ("go", and "openblas" when the
// library loads), restoring the backend in force before.
func withBackend(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, name := range []string{PureGo, OpenBLAS} {
		t.Run(name, func(t *testing.T) {
			restore := switchTo(t, name)
			defer restore()
			f(t)
		})
	}
}

// switchTo selects a backend for a test or benchmark, skipping when OpenBLAS is
// not available, and returns a function that restores the previous one.
func switchTo(tb testing.TB, name string) func() {
	tb.Helper()
	prev := active.Load()
	if err := Use(name); err != nil {
		tb.Skipf("backend %s: %v", name, err)
	}
	return func() { active.Store(prev) }
}

func randSlice(rng *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = rng.Float64()*2 - 1
	}
	return s
}

// randMat returns r×c values with stride ld ≥ c; the padding holds pad.
func randMat(rng *rand.Rand, r, c, ld int, pad float64) []float64 {
	if r == 0 {
		return nil
	}
	s := make([]float64, (r-1)*ld+c)
	for i := range s {
		if i%ld < c {
			s[i] = rng.Float64()*2 - 1
		} else {
			s[i] = pad
		}
	}
	return s
}

// spd returns a random symmetric positive definite n×n matrix (stride ld) with
// condition number around n.
func spd(rng *rand.Rand, n, ld int) []float64 {
	b := randSlice(rng, n*n)
	a := make([]float64, max(0, (n-1)*ld+n))
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < n; p++ {
				s += b[p*n+i] * b[p*n+j]
			}
			if i == j {
				s += float64(n)
			}
			a[i*ld+j] = s
		}
	}
	return a
}

// sameNaN compares two slices element by element with a relative tolerance;
// NaN must match NaN (padding sentinels).
func maxDiff(t *testing.T, got, want []float64, tol float64, what string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: length %d, want %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if math.IsNaN(w) || math.IsNaN(g) {
			if math.IsNaN(w) != math.IsNaN(g) {
				t.Fatalf("%s: element %d = %v, want %v", what, i, g, w)
			}
			continue
		}
		if math.Abs(g-w) > tol*(1+math.Abs(w)) {
			t.Fatalf("%s: element %d = %v, want %v (diff %.3g)", what, i, g, w, g-w)
		}
	}
}

func clone(s []float64) []float64 { return append([]float64(nil), s...) }
