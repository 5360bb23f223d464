package learn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSimplexCode checks the defining properties of docs/conventions.md §8.1 for k = 2…20: k unit columns in R^{k−1} with pairwise
// inner products −1/(k−1) (to 1e-12: each entry is a product of at most k square roots and divisions).
func TestSimplexCode(t *testing.T) {
	for k := 2; k <= 20; k++ {
		C := SimplexCode(k)
		q := k - 1
		if len(C) != q*k {
			t.Fatalf("k=%d: %d entries, want %d", k, len(C), q*k)
		}
		col := func(j int) []float64 {
			c := make([]float64, q)
			for r := range q {
				c[r] = C[r*k+j]
			}
			return c
		}
		for i := range k {
			ci := col(i)
			for j := i; j < k; j++ {
				var dot float64
				for r, v := range col(j) {
					dot += v * ci[r]
				}
				want := -1 / float64(k-1)
				if i == j {
					want = 1
				}
				if math.Abs(dot-want) > 1e-12 {
					t.Errorf("k=%d: ⟨c_%d, c_%d⟩ = %v, want %v", k, i, j, dot, want)
				}
			}
		}
		// The columns sum to zero (regular simplex centred at the origin).
		for r := range q {
			var s float64
			for j := range k {
				s += C[r*k+j]
			}
			if math.Abs(s) > 1e-12 {
				t.Errorf("k=%d: row %d sums to %v", k, r, s)
			}
		}
	}
	if got := SimplexCode(2); !slices.Equal(got, []float64{1, -1}) {
		t.Errorf("C₂ = %v", got)
	}
}

func TestSimplexRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for k := 2; k <= 20; k++ {
		labels := make([]int, 200)
		for i := range labels {
			labels[i] = rng.IntN(k)
		}
		labels[0], labels[1] = 0, k-1
		Y := SimplexEncode(labels, k)
		if got := SimplexDecode(Y, len(labels), k); !slices.Equal(got, labels) {
			t.Errorf("k=%d: decode(encode(y)) ≠ y", k)
		}
		// Decoding is robust to noise smaller than half the gap 1 + 1/(k−1) between ⟨c_y, c_y⟩ and ⟨c_y, c_j⟩.
		for i := range Y {
			Y[i] += 0.1 / math.Sqrt(float64(k)) * (2*rng.Float64() - 1)
		}
		if got := SimplexDecode(Y, len(labels), k); !slices.Equal(got, labels) {
			t.Errorf("k=%d: noisy decode ≠ y", k)
		}
	}
}

func TestOneHotArgmax(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for classes := 2; classes <= 7; classes++ {
		labels := make([]int, 50)
		for i := range labels {
			labels[i] = rng.IntN(classes)
		}
		for _, pm := range []bool{false, true} {
			Y := OneHot(labels, classes, pm)
			cols := classes
			if pm && classes == 2 {
				cols = 1
			}
			if len(Y) != len(labels)*cols {
				t.Fatalf("classes=%d pm=%v: %d values", classes, pm, len(Y))
			}
			lo := 0.0
			if pm {
				lo = -1
			}
			for i, l := range labels {
				for j := range cols {
					want := lo
					if (cols == 1 && l == 1) || (cols > 1 && j == l) {
						want = 1
					}
					if Y[i*cols+j] != want {
						t.Fatalf("classes=%d pm=%v: Y[%d,%d] = %v, want %v", classes, pm, i, j, Y[i*cols+j], want)
					}
				}
			}
			if got := Argmax(Y, len(labels), classes); !slices.Equal(got, labels) {
				t.Errorf("classes=%d pm=%v: Argmax(OneHot(y)) ≠ y", classes, pm)
			}
		}
	}
	if got := Argmax([]float64{1, 3, 3, math.NaN(), 2, 0}, 2, 3); !slices.Equal(got, []int{1, 1}) {
		t.Errorf("ties/NaN: %v, want [1 1]", got)
	}
}

func TestLabelPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"OneHot out of range": func() { OneHot([]int{0, 3}, 3, false) },
		"OneHot negative":     func() { OneHot([]int{-1}, 3, false) },
		"SimplexEncode range": func() { SimplexEncode([]int{5}, 5) },
		"SimplexCode k = 1":   func() { SimplexCode(1) },
		"Argmax short":        func() { Argmax([]float64{1, 2}, 2, 3) },
		"SimplexDecode short": func() { SimplexDecode([]float64{1}, 2, 3) },
		"OneHot single class": func() { OneHot([]int{0}, 1, false) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
