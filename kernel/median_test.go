package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rffkit/rff/internal/misusetest"
)

// bruteMedian is the median of the pairwise distances of the rows idx of X, computed independently of
// medianDistance: every pair (i, j), i < j, appended in a double loop, sorted, and the middle one (or the mean of
// the two middle ones).
func bruteMedian(X []float64, d int, idx []int, l1 bool) float64 {
	var all []float64
	for a := range idx {
		for b := a + 1; b < len(idx); b++ {
			var r float64
			for c := range d {
				t := X[idx[a]*d+c] - X[idx[b]*d+c]
				if l1 {
					r += math.Abs(t)
				} else {
					r += float64(t * t) // as sqDist: the product rounded, never fused
				}
			}
			if !l1 {
				r = math.Sqrt(r)
			}
			all = append(all, r)
		}
	}
	slices.Sort(all)
	c := len(all)
	if c%2 == 1 {
		return all[c/2]
	}
	return (all[c/2-1] + all[c/2]) / 2
}

// lattice returns the points of the grid {0, …, side−1}^d, row-major, scaled by h.
func lattice(side, d int, h float64) (X []float64, n int) {
	n = 1
	for range d {
		n *= side
	}
	X = make([]float64, 0, n*d)
	for i := range n {
		q := i
		for range d {
			X = append(X, h*float64(q%side))
			q /= side
		}
	}
	return X, n
}

func allRows(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// TestMedianSigmaLattice: on points of a lattice, whose distances are known exactly, MedianSigma returns the median
// pairwise distance exactly (bit for bit) — the Euclidean one for the Gaussian, Matérn and Cauchy kernels, the ℓ1 one
// for the Laplacian — and on the 1-D lattice {0, …, n−1} it equals the value counted in closed form: n − k pairs
// lie at distance k.
func TestMedianSigmaLattice(t *testing.T) {
	// 1-D: closed form. With n = 10 there are 45 pairs, cumulative counts 9, 17, 24, …: the 23rd smallest is 3.
	// With n = 9 there are 36 pairs (8, 15, 21, …): the 18th and 19th smallest are both 3.
	for _, c := range []struct {
		n    int
		want float64
	}{{10, 3}, {9, 3}, {2, 1}, {3, 1}, {4, 1.5}} {
		X, _ := lattice(c.n, 1, 1)
		// Closed form by counting: distance k occurs n − k times.
		var all []float64
		for k := 1; k < c.n; k++ {
			for range c.n - k {
				all = append(all, float64(k))
			}
		}
		mid := (all[(len(all)-1)/2] + all[len(all)/2]) / 2 // all is ascending
		if mid != c.want {
			t.Fatalf("n=%d: counted median %v, want %v", c.n, mid, c.want)
		}
		if got := bruteMedian(X, 1, allRows(c.n), false); got != c.want {
			t.Fatalf("n=%d: brute-force median %v, closed form %v", c.n, got, c.want)
		}
		for _, name := range []string{"gaussian", "laplacian", "matern32", "cauchy"} {
			got, err := MedianSigma(name, X, c.n, 1, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("%s, 1-D lattice of %d points: σ = %v, want %v", name, c.n, got, c.want)
			}
		}
	}
	// 2-D and 3-D lattices with a spacing that is not a power of two.
	for _, c := range []struct{ side, d int }{{7, 2}, {5, 3}, {4, 3}} {
		X, n := lattice(c.side, c.d, 0.3)
		for _, name := range []string{"gaussian", "rbf", "laplacian", "matern12", "matern52", "cauchy"} {
			l1 := name == "laplacian"
			want := bruteMedian(X, c.d, allRows(n), l1)
			got, err := MedianSigma(name, X, n, c.d, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s on the %d^%d lattice: σ = %v, brute force %v", name, c.side, c.d, got, want)
			}
		}
	}
}

// TestMedianSigmaInvariance: the median heuristic is equivariant under scaling and invariant under translation and
// row permutation (exactly, for a power-of-two scale and a translation by integers on integer data).
func TestMedianSigmaInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n, d := 300, 5
	X := make([]float64, n*d)
	for i := range X {
		X[i] = float64(rng.IntN(41) - 20)
	}
	base, err := MedianSigma("gaussian", X, n, d, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	scaled := make([]float64, len(X))
	moved := make([]float64, len(X))
	for i, v := range X {
		scaled[i] = 4 * v
		moved[i] = v + 1000
	}
	perm := rng.Perm(n)
	permuted := make([]float64, 0, len(X))
	for _, i := range perm {
		permuted = append(permuted, X[i*d:(i+1)*d]...)
	}
	for _, c := range []struct {
		what string
		X    []float64
		want float64
	}{{"×4", scaled, 4 * base}, {"+1000", moved, base}, {"permuted", permuted, base}} {
		got, err := MedianSigma("gaussian", c.X, n, d, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s: σ = %v, want %v", c.what, got, c.want)
		}
	}
}

// TestMedianSigmaSubsample: with n > maxRows the rows are a deterministic sample without replacement: the same seed
// gives the same σ, which is exactly the brute-force median over the rows sampleRows picks; another seed picks
// other rows.
func TestMedianSigmaSubsample(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, d, m := 5000, 3, 150
	X := make([]float64, n*d)
	for i := range X {
		X[i] = rng.NormFloat64()
	}
	for _, name := range []string{"gaussian", "laplacian"} {
		a, err := MedianSigma(name, X, n, d, m, 42)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := MedianSigma(name, X, n, d, m, 42)
		if a != b {
			t.Errorf("%s: σ differs between two calls with the same seed: %v, %v", name, a, b)
		}
		want := bruteMedian(X, d, sampleRows(n, m, 42), name == "laplacian")
		if a != want {
			t.Errorf("%s: σ = %v, brute-force median of the sampled rows %v", name, a, want)
		}
	}
	i1, i2 := sampleRows(n, m, 42), sampleRows(n, m, 43)
	if slices.Equal(i1, i2) {
		t.Error("seeds 42 and 43 sample the same rows")
	}
	for _, idx := range [][]int{i1, i2} {
		if len(idx) != m {
			t.Fatalf("sampled %d rows, want %d", len(idx), m)
		}
		for k, i := range idx {
			if i < 0 || i >= n || (k > 0 && i <= idx[k-1]) {
				t.Fatalf("sample %v is not strictly increasing within [0, %d)", idx, n)
			}
		}
	}
}

// TestSampleRowsUniform: every row is included with probability m/n. Over R seeds the inclusion count of each row
// is Binomial(R, m/n); each of the n counts must lie within 4.5 standard deviations of R·m/n (a false alarm
// anywhere has probability below n·6.8e-6 ≈ 3e-4). A sampler that favoured the last rows — Floyd's algorithm
// without its collision rule, or a truncated shuffle — fails by tens of standard deviations.
func TestSampleRowsUniform(t *testing.T) {
	n, m, R := 50, 10, 20000
	counts := make([]int, n)
	for s := range R {
		for _, i := range sampleRows(n, m, uint64(s)) {
			counts[i]++
		}
	}
	p := float64(m) / float64(n)
	mean, sd := float64(R)*p, math.Sqrt(float64(R)*p*(1-p))
	for i, c := range counts {
		if z := (float64(c) - mean) / sd; math.Abs(z) > 4.5 {
			t.Errorf("row %d sampled %d times in %d draws, expected %.0f ± %.1f (z = %.1f)", i, c, R, mean, sd, z)
		}
	}
}

// TestMedianSigmaErrors: scale-free and unknown kernels, too few rows, bad lengths, NaN/Inf, all-equal rows, a
// median of 0, overflowing distances and out-of-range maxRows are errors, never panics.
func TestMedianSigmaErrors(t *testing.T) {
	ok := []float64{0, 1, 2, 3}
	same := []float64{1, 2, 1, 2, 1, 2}
	mostlySame := []float64{0, 0, 0, 0, 1} // 10 pairs, 6 of them at distance 0
	huge := []float64{-1e300, 1e300, 0}
	tiny := []float64{0, 1e-200, 3e-200} // squared distances underflow
	misusetest.Check(t, []misuse{
		{"arccos0", func() error { _, err := MedianSigma("arccos0", ok, 4, 1, 0, 1); return err }, "scale-free"},
		{"arccos1", func() error { _, err := MedianSigma("arccos1", ok, 4, 1, 0, 1); return err }, "scale-free"},
		{"unknown", func() error { _, err := MedianSigma("nope", ok, 4, 1, 0, 1); return err }, "unknown kernel"},
		{"n=1", func() error { _, err := MedianSigma("gaussian", ok[:1], 1, 1, 0, 1); return err }, "n ≥ 2"},
		{"d=0", func() error { _, err := MedianSigma("gaussian", nil, 4, 0, 0, 1); return err }, "d ≥ 1"},
		{"length", func() error { _, err := MedianSigma("gaussian", ok, 3, 2, 0, 1); return err }, "want 3 rows"},
		{"overflowing shape", func() error { _, err := MedianSigma("gaussian", ok, 1<<62, 1<<62, 0, 1); return err }, "rows"},
		{"NaN", func() error {
			_, err := MedianSigma("gaussian", []float64{0, math.NaN(), 1}, 3, 1, 0, 1)
			return err
		}, "row 2"},
		{"Inf", func() error { _, err := MedianSigma("laplacian", []float64{0, math.Inf(1)}, 2, 1, 0, 1); return err }, "+Inf"},
		{"all equal", func() error { _, err := MedianSigma("gaussian", same, 3, 2, 0, 1); return err }, "all 3 sampled rows are equal"},
		{"median 0", func() error { _, err := MedianSigma("gaussian", mostlySame, 5, 1, 0, 1); return err }, "coincide"},
		{"overflow", func() error { _, err := MedianSigma("gaussian", huge, 3, 1, 0, 1); return err }, "overflow"},
		{"underflow", func() error { _, err := MedianSigma("gaussian", tiny, 3, 1, 0, 1); return err }, "differ by at most 3e-200"},
		{"maxRows 1", func() error { _, err := MedianSigma("gaussian", ok, 4, 1, 1, 1); return err }, "maxRows"},
		{"maxRows < 0", func() error { _, err := MedianSigma("gaussian", ok, 4, 1, -5, 1); return err }, "maxRows"},
		{"maxRows huge", func() error { _, err := MedianSigma("gaussian", ok, 4, 1, MaxMedianRows+1, 1); return err }, "maxRows"},
	})
}

// The ℓ1 distances of the Laplacian kernel have no squares: rows that differ by 1e-200 have their median.
func TestMedianSigmaTinyLaplacian(t *testing.T) {
	s, err := MedianSigma("laplacian", []float64{0, 1e-200, 3e-200}, 3, 1, 0, 1)
	if err != nil || math.Abs(s-2e-200) > 1e-15*2e-200 {
		t.Fatalf("MedianSigma = %v, %v; want 2e-200", s, err)
	}
}

// TestSelectKth compares selectKth with a sort on arrays with distinct values, many ties, sorted and reversed
// orders, for every k, and with depths 0 and 1 its fallback to sorting after too many partitions.
func TestSelectKth(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	gen := map[string]func(n int) []float64{
		"distinct": func(n int) []float64 {
			a := make([]float64, n)
			for i := range a {
				a[i] = r.NormFloat64()
			}
			return a
		},
		"ties": func(n int) []float64 {
			a := make([]float64, n)
			for i := range a {
				a[i] = float64(r.IntN(3))
			}
			return a
		},
		"sorted": func(n int) []float64 {
			a := make([]float64, n)
			for i := range a {
				a[i] = float64(i)
			}
			return a
		},
		"reversed": func(n int) []float64 {
			a := make([]float64, n)
			for i := range a {
				a[i] = float64(n - i)
			}
			return a
		},
	}
	for name, g := range gen {
		t.Run(name, func(t *testing.T) {
			for _, n := range []int{1, 2, 3, 7, 64, 501} {
				a := g(n)
				want := slices.Sorted(slices.Values(a))
				for k, depth := range slices.Repeat([]int{-1, 0, 1}, n) {
					k /= 3
					b := slices.Clone(a)
					if depth < 0 {
						selectKth(b, k)
					} else {
						selectKthDepth(b, k, depth)
					}
					if b[k] != want[k] {
						t.Fatalf("n=%d k=%d: a[k] = %v, want %v", n, k, b[k], want[k])
					}
					if m := slices.Max(b[:k+1]); m > b[k] {
						t.Fatalf("n=%d k=%d: %v before the k-th value %v", n, k, m, b[k])
					}
					if m := slices.Min(b[k:]); m < b[k] {
						t.Fatalf("n=%d k=%d: %v after the k-th value %v", n, k, m, b[k])
					}
					if !slices.Equal(slices.Sorted(slices.Values(b)), want) {
						t.Fatalf("n=%d k=%d: not a permutation", n, k)
					}
				}
			}
		})
	}
}
