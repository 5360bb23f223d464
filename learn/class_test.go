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

// Softmax is exp(f_k)/Σ_j exp(f_j) within a few units of rounding where that formula does not overflow, is the same
// for scores shifted by any constant, and stays a distribution for scores far beyond exp's range.
func TestSoftmax(t *testing.T) {
	const u = 0x1p-53
	for _, tc := range []struct {
		name   string
		scores []float64
		want   []float64 // nil: exp(f)/Σexp(f) computed directly
	}{
		{"moderate", []float64{0.3, -1.2, 2.5, 0}, nil},
		{"equal", []float64{7, 7, 7}, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}},
		{"huge", []float64{1e300, -1e300, 1e300}, []float64{0.5, 0, 0.5}},
		{"far apart", []float64{800, 0}, []float64{1, 0}},
		{"two classes", []float64{math.Log(3), 0}, []float64{0.75, 0.25}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			K := len(tc.scores)
			want := tc.want
			if want == nil {
				sum := 0.0
				for _, v := range tc.scores {
					sum += math.Exp(v)
				}
				for _, v := range tc.scores {
					want = append(want, math.Exp(v)/sum)
				}
			}
			shifted := make([]float64, K)
			for j, v := range tc.scores {
				shifted[j] = v + 0.25 // exact for these scores' exponents, or absorbed
			}
			in := append(append([]float64(nil), tc.scores...), shifted...)
			got, err := Softmax(in, 2, K)
			if err != nil {
				t.Fatal(err)
			}
			for r := range 2 {
				for j := range K {
					g := got[r*K+j]
					// exp rounds to 1 ulp, the difference f_k − max f to 1 ulp of it, the sum and the quotient
					// to K + 1 ulps: a relative error of about (|f_k − max f| + K + 3)·u, and as much again for
					// the direct formula
					tol := 2 * (math.Abs(tc.scores[j]-slices.Max(tc.scores)) + float64(K) + 3) * u * want[j]
					if math.Abs(g-want[j]) > tol+1e-300 {
						t.Errorf("row %d class %d: %v, want %v (±%.2g)", r, j, g, want[j], tol)
					}
				}
			}
		})
	}
	for _, bad := range []struct {
		name          string
		scores        []float64
		rows, classes int
	}{
		{"one class", []float64{1, 2}, 2, 1},
		{"negative rows", nil, -1, 2},
		{"short", []float64{1, 2, 3}, 2, 2},
		{"NaN", []float64{1, math.NaN()}, 1, 2},
		{"Inf", []float64{math.Inf(1), 0}, 1, 2},
	} {
		if _, err := Softmax(bad.scores, bad.rows, bad.classes); err == nil {
			t.Errorf("%s: no error", bad.name)
		}
	}
}
