package kernel

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/rffkit/rff/internal/finite"
	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/internal/size"
)

// DefaultMedianRows is the number of rows [MedianSigma] samples when maxRows is 0: 2000 rows, 1 999 000 pairs.
const DefaultMedianRows = 2000

// MaxMedianRows is the largest maxRows [MedianSigma] accepts: the 33 550 336 pairwise distances of 8192 rows take
// 268 MB.
const MaxMedianRows = 8192

// medianStream is the PCG stream of the row sample of MedianSigma (the seed is the caller's).
const medianStream = 0x6d656469616e // "median"

// MedianSigma returns the bandwidth σ that the median heuristic chooses for the kernel called name (a name [New]
// accepts) on the n rows of X (n×d, row-major): σ = the median of the pairwise distances r(x_i, x_j), i < j,
// of at most maxRows rows (docs/conventions.md §12.1).
//
// The distance is the one the kernel is a function of, divided by σ: the Euclidean ‖x−y‖ for the Gaussian
// exp(−‖δ‖²/(2σ²)) and the Matérn kernels, the ℓ1 distance ‖x−y‖₁ for the Laplacian exp(−‖δ‖₁/σ). The Cauchy
// kernel Π_i 1/(1+δ_i²/σ²) is a product over coordinates, and for small δ it is exp(−‖δ‖²/σ² + O(‖δ‖⁴/σ⁴)): it
// depends on δ through the Euclidean norm to second order, so its natural scale is the Euclidean distance too (at
// r = σ it is 1/2 when δ lies along one axis and tends to e⁻¹ when δ spreads over many coordinates). The one
// formula σ = median r is the convention of Gretton, Borgwardt, Rasch, Schölkopf & Smola (2012, "A kernel
// two-sample test", JMLR 13, in its experiments: the Gaussian exp(−‖δ‖²/(2σ²)) with σ the median distance between
// the points), analysed by Garreau, Jitkrittum & Kanagawa (2017, "Large sample analysis of the median heuristic"):
// at the typical distance the Gaussian equals e^{−1/2} ≈ 0.61, neither near 0 (a near-diagonal Gram matrix) nor
// near 1 (a near-constant one). On standardised data in high dimension, where ‖δ‖² concentrates near its mean 2d,
// this σ ≈ √(2d), that is γ = 1/(2σ²) ≈ 1/(4d): a kernel twice as wide as γ = 1/d (σ = √(d/2)), the default of the
// command-line tool and of scikit-learn's gamma='scale' on standardised data.
//
// When n > maxRows, maxRows distinct rows are sampled uniformly without replacement (Floyd's algorithm on a PCG
// stream of seed), so the result is the same for a seed on every run and machine; otherwise every row is used and
// seed is ignored. maxRows = 0 means DefaultMedianRows; it must otherwise lie in [2, MaxMedianRows]. The median of an
// even number of distances is the mean of the two middle ones.
//
// It returns an error for an unknown name, a scale-free kernel (the arc-cosine kernels, which have no σ), n < 2,
// d < 1, a length of X other than n·d, NaN or Inf in X, distances that overflow or underflow (rows that differ by
// less than about 1e-154), and a median distance of 0 (all sampled rows equal, or more than half of the sampled pairs
// coincide).
func MedianSigma(name string, X []float64, n, d int, maxRows int, seed uint64) (float64, error) {
	k, err := New(name, 1)
	if err != nil {
		return 0, fmt.Errorf("kernel.MedianSigma: %w", err)
	}
	var l1 bool
	switch k.(type) {
	case Gaussian, Matern, Cauchy:
	case Laplacian:
		l1 = true
	default:
		return 0, fmt.Errorf("kernel.MedianSigma: the %s kernel is scale-free: it has no bandwidth to choose", k.Name())
	}
	if n < 2 || d < 1 {
		return 0, fmt.Errorf("kernel.MedianSigma: need n ≥ 2 rows and d ≥ 1 columns, have n=%d, d=%d", n, d)
	}
	if !size.Is(len(X), n, d) {
		return 0, fmt.Errorf("kernel.MedianSigma: X has %d values, want %d rows × %d columns", len(X), n, d)
	}
	switch {
	case maxRows == 0:
		maxRows = DefaultMedianRows
	case maxRows < 2 || maxRows > MaxMedianRows:
		return 0, fmt.Errorf("kernel.MedianSigma: maxRows = %d: need 2 ≤ maxRows ≤ %d (0 means %d)", maxRows,
			MaxMedianRows, DefaultMedianRows)
	}
	if i := finite.Index(X); i >= 0 {
		return 0, fmt.Errorf("kernel.MedianSigma: X row %d, column %d is %v", i/d+1, i%d+1, X[i])
	}
	idx := sampleRows(n, maxRows, seed)
	med, maxDist := medianDistance(X, d, idx, l1)
	if med == 0 {
		// Rows that differ by less than 2⁻⁵¹⁰ have squared distances below the smallest normal float64: they
		// underflow, and rows that differ look equal.
		if s := spread(X, d, idx); s > 0 && s < 0x1p-510 {
			return 0, fmt.Errorf("kernel.MedianSigma: the %d sampled rows differ by at most %.3g in any column, too little for their squared distances in floating point: rescale the data", len(idx), s)
		}
	}
	switch {
	case math.IsInf(med, 0) || math.IsNaN(med):
		return 0, errors.New("kernel.MedianSigma: the pairwise distances overflow float64: rescale the data")
	case maxDist == 0:
		return 0, fmt.Errorf("kernel.MedianSigma: all %d sampled rows are equal: the median heuristic has no scale", len(idx))
	case med == 0:
		return 0, fmt.Errorf("kernel.MedianSigma: more than half of the pairs of the %d sampled rows coincide: the median distance is 0", len(idx))
	}
	return med, nil
}

// spread is the largest difference between two of the rows idx of X (row-major, d columns) in one column.
func spread(X []float64, d int, idx []int) float64 {
	s := 0.0
	for j := range d {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, i := range idx {
			lo, hi = min(lo, X[i*d+j]), max(hi, X[i*d+j])
		}
		s = max(s, hi-lo)
	}
	return s
}

// sampleRows returns m distinct row indices of [0, n), ascending, drawn uniformly without replacement by Floyd's
// algorithm from a PCG stream of seed (every subset of size m equally likely); all n rows when n ≤ m.
func sampleRows(n, m int, seed uint64) []int {
	if n <= m {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	rng := rand.New(rand.NewPCG(seed, medianStream))
	chosen := make(map[int]bool, m)
	idx := make([]int, 0, m)
	for j := n - m; j < n; j++ {
		t := rng.IntN(j + 1)
		if chosen[t] {
			t = j
		}
		chosen[t] = true
		idx = append(idx, t)
	}
	slices.Sort(idx)
	return idx
}

// medianDistance returns the median and the largest of the pairwise distances (ℓ1 when l1, Euclidean otherwise)
// between the rows idx of X (d columns); idx has at least 2 entries. Rows are processed in parallel, each writing
// its own pairs.
func medianDistance(X []float64, d int, idx []int, l1 bool) (median, largest float64) {
	m := len(idx)
	dist := make([]float64, m*(m-1)/2)
	parallel.For(m-1, 0, func(i int) {
		x := X[idx[i]*d : (idx[i]+1)*d]
		off := i*(m-1) - i*(i-1)/2 // pairs (k, ·) of the rows k < i come first
		for j := i + 1; j < m; j++ {
			y := X[idx[j]*d : (idx[j]+1)*d]
			var r float64
			if l1 {
				for c, xc := range x {
					r += math.Abs(xc - y[c])
				}
			} else {
				r = math.Sqrt(sqDist(x, y))
			}
			dist[off+j-i-1] = r
		}
	})
	c := len(dist)
	k := (c - 1) / 2
	selectKth(dist, k)
	lo, hi := dist[k], dist[k]
	if c%2 == 0 {
		hi = slices.Min(dist[k+1:])
	}
	return lo + (hi-lo)/2, slices.Max(dist[k:])
}

// selectKth reorders a (no NaN) so that a[k] holds the value it would hold sorted, with a[:k] ≤ a[k] ≤ a[k+1:]:
// Hoare's selection with median-of-three pivots, expected O(len(a)) — a sort of the two million distances of 2000
// rows took ten times as long. After 2·log₂(len(a)) partitions that have not isolated k (an adversarial order) it
// sorts what is left, so the worst case is O(n log n).
func selectKth(a []float64, k int) {
	selectKthDepth(a, k, 2*bits.Len(uint(len(a))))
}

// selectKthDepth is selectKth with at most depth partitions before the sort.
func selectKthDepth(a []float64, k, depth int) {
	lo, hi := 0, len(a)-1
	for ; hi > lo; depth-- {
		if depth == 0 {
			slices.Sort(a[lo : hi+1])
			return
		}
		x, y, z := a[lo], a[lo+(hi-lo)/2], a[hi]
		p := max(min(x, y), min(max(x, y), z)) // the median of the three
		i, j := lo, hi
		for i <= j {
			for a[i] < p {
				i++
			}
			for a[j] > p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		// a[lo..j] ≤ p ≤ a[i..hi], and a[j+1..i-1] (if any) equal p.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}
