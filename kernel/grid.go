package kernel

import (
	"math"
	"runtime"
	"sync"

	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/parallel"
)

// Data on a grid. Images and other quantized measurements arrive as small integers times one step (pixels/255,
// counts/maximum): x = q·s with q an integer. For such inputs Gram computes every squared distance exactly as
// s²·R, R = ‖q_x − q_y‖² an integer, with single-precision matrix products that are exact because every product
// and partial sum is an integer below 2²⁴ in magnitude — on the OpenBLAS backend at about 1.6 times the rate of the
// double-precision product, and with no cancellation to control:
//
//   - the step s is the smallest nonzero |y| among the entries of Y (the centres); every entry v of X and Y must
//     satisfy |v − q·s| ≤ 3u·|v| (u = 2⁻⁵³) for q = round(v/s) with |q| ≤ gridMaxQ, else the usual path runs;
//   - the columns are shifted by the integer midpoints c_j of Y's column ranges (distances do not change), and cut
//     into consecutive chunks with Σ a_j·b_j ≤ 2²⁴, a_j and b_j the largest |q_j − c_j| over the rows of X and of Y:
//     within a chunk every partial sum of the single-precision product is an integer of magnitude at most 2²⁴,
//     exact in any order of summation; the chunks' sums are added in double precision (integers below 2⁵³, exact);
//   - R = ‖x'‖² + ‖y'‖² − 2x'ᵀy' is then exact, and the distance s·s·R has two roundings.
//
// The grid values q·s differ from the entries by at most 4u·|v| (the check's tolerance plus the rounding of q·s),
// so a coordinate difference, a nonzero multiple of s, moves by at most a relative 8u·gridMaxQ and a squared
// distance by 16u·gridMaxQ + 2u < 1e-12 = gramRelTol: the guarantee of the double-precision path.

// gridMaxQ bounds |q|: 16u·gridMaxQ + 2u stays below gramRelTol (and 8-bit data, |q| ≤ 255, passes).
const gridMaxQ = 512

// gridTol is the relative distance |v − q·s| ≤ gridTol·|v| within which an entry counts as on the grid.
const gridTol = 3 * 0x1p-53

// gridChunk bounds Σ a_j·b_j over the columns of one single-precision product: its partial sums are integers of
// magnitude at most 2²⁴, which float32 represents exactly.
const gridChunk = 1 << 24

// gridMinDim and gridMinRows are the smallest d and numbers of centres m and rows n (of a one-off Gram) for which the
// grid path runs: converting costs O((n+m)·d) against the product's O(n·m·d), and the product must be large enough
// for the single-precision kernel's speed to show.
const (
	gridMinDim  = 32
	gridMinRows = 128
)

// gridMode selects when Gram takes the grid path: gridAuto where single-precision products are fast (the OpenBLAS
// backend, linalg.FastFloat32) and the shapes are large enough; tests force it on or off.
var gridMode = gridAuto

const (
	gridAuto = iota
	gridOff
	gridAlways
)

// gridCentres is the grid form of the centres Y (m×d): the step, the shift c, the bound b_j = max |q_j − c_j| of
// each column, the shifted integers as float32 (m×d) and their squared norms (exact). It is not modified after
// newGridCentres returns.
type gridCentres struct {
	step, inv float64
	shift     []int32
	b         []int64
	q         []float32
	norms     []float64
}

// newGridCentres returns the grid form of Y (m×d), or nil when Y is not on a grid (or all zero).
func newGridCentres(Y []float64, m, d int) *gridCentres {
	s := math.Inf(1)
	for _, v := range Y[:m*d] {
		if a := math.Abs(v); a != 0 && a < s {
			s = a
		}
	}
	if !(s < math.Inf(1)) {
		return nil // all zero, or NaN
	}
	g := &gridCentres{step: s, inv: 1 / s, shift: make([]int32, d), b: make([]int64, d), q: make([]float32, m*d),
		norms: make([]float64, m)}
	lo, hi := make([]int32, d), make([]int32, d)
	if !g.quantize(g.q, nil, Y, m, d, lo, hi) { // the shift is still 0
		return nil
	}
	for j := range d {
		if lo[j] > hi[j] { // m = 0
			continue
		}
		g.shift[j] = lo[j] + (hi[j]-lo[j])/2
		g.b[j] = int64(max(hi[j]-g.shift[j], g.shift[j]-lo[j]))
	}
	for i := range m {
		row := g.q[i*d : (i+1)*d]
		var sq float64
		for j := range row {
			row[j] -= float32(g.shift[j])
			sq += float64(row[j]) * float64(row[j])
		}
		g.norms[i] = sq
	}
	return g
}

// quantize writes q − shift of the rows of A (rows×d) into dst as float32 and their squared norms into norms (when
// not nil), and sets lo and hi to the range of q − shift in each column; it reports false when an entry is not
// within gridTol of the grid or |q| > gridMaxQ. Rows are split among the cores.
func (g *gridCentres) quantize(dst []float32, norms []float64, A []float64, rows, d int, lo, hi []int32) bool {
	for j := range d {
		lo[j], hi[j] = math.MaxInt32, math.MinInt32
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, rows*d/(1<<15)))
	parts := 2 * workers
	plo, phi := make([][]int32, parts), make([][]int32, parts)
	bad := make([]bool, parts)
	s, inv := g.step, g.inv
	parallel.For(parts, workers, func(p int) {
		l, h := make([]int32, d), make([]int32, d)
		copy(l, lo)
		copy(h, hi)
		for i := p * rows / parts; i < (p+1)*rows/parts; i++ {
			sq, ok := quantizeRow(dst[i*d:(i+1)*d], A[i*d:(i+1)*d], g.shift, l, h, inv, s)
			if !ok {
				bad[p] = true
				return
			}
			if norms != nil {
				norms[i] = sq
			}
		}
		plo[p], phi[p] = l, h
	})
	for p := range parts {
		if bad[p] {
			return false
		}
		for j := range d {
			lo[j], hi[j] = min(lo[j], plo[p][j]), max(hi[j], phi[p][j])
		}
	}
	return true
}

// quantizeRowGeneric quantizes one row: for each value v, q = round(v/s) (as v·inv, inv = 1/s, rounded to even),
// out = float32(q − shift) and lo, hi the running range of q − shift in each column; it returns the sum of the
// squares of q − shift (an integer below 2⁵³, exact) and false as soon as a value is not within gridTol of the grid
// or |q| > gridMaxQ (NaN and ±Inf included).
func quantizeRowGeneric(out []float32, row []float64, shift, lo, hi []int32, inv, s float64) (float64, bool) {
	var sq int64
	for j, v := range row {
		q := math.RoundToEven(v * inv)
		// The conversion keeps q·s rounded on its own (no fused multiply-add), as the AVX2 kernel computes it.
		if !(math.Abs(q) <= gridMaxQ) || !(math.Abs(v-float64(q*s)) <= gridTol*math.Abs(v)) {
			return 0, false
		}
		t := int32(q) - shift[j]
		out[j] = float32(t)
		lo[j], hi[j] = min(lo[j], t), max(hi[j], t)
		sq += int64(t) * int64(t)
	}
	return float64(sq), true
}

// chunks cuts the d columns into consecutive ranges [bounds[c], bounds[c+1]) over each of which Σ a_j·b_j ≤
// gridChunk, a_j = max(|lo_j|, |hi_j|) the bound of X's shifted column j. One column always fits: a_j ≤
// 2·gridMaxQ and b_j ≤ gridMaxQ, so a_j·b_j ≤ 2¹⁹.
func (g *gridCentres) chunks(lo, hi []int32) []int {
	bounds := []int{0}
	var sum int64
	for j, bj := range g.b {
		a := int64(max(-lo[j], hi[j]))
		if sum+a*bj > gridChunk {
			bounds = append(bounds, j)
			sum = 0
		}
		sum += a * bj
	}
	return append(bounds, len(g.b))
}

// gram fills dst (n×m) with the squared distances between the rows of X (n×d) and the centres s·s·R exactly, a
// block of rows at a time, and reports false (dst partly written) when a row of X is not on the centres' grid.
// Every row is then passed to k.ofSqDistRow.
func (g *gridCentres) gram(dst []float64, k sqRadial, X []float64, n, m, d int) bool {
	rows := max(1, min(n, (1<<21)/max(1, m+d)))
	buf := getGridBuf(rows*d + rows*m) // the rows' integers and their product with the centres' (8 MiB at most)
	defer gridBufs.Put(buf)
	xq, prod := (*buf)[:rows*d], (*buf)[rows*d:rows*(d+m)]
	nx := make([]float64, rows)
	lo, hi := make([]int32, d), make([]int32, d)
	var acc []float64 // the sum over chunks, when a block has several
	workers := runtime.GOMAXPROCS(0)
	scratch := make([][]float64, workers)
	_, isGauss := k.(Gaussian)
	s2 := g.step * g.step
	for r0 := 0; r0 < n; r0 += rows {
		b := min(rows, n-r0)
		if !g.quantize(xq, nx, X[r0*d:], b, d, lo, hi) {
			return false
		}
		bounds := g.chunks(lo, hi)
		for c := 0; c+1 < len(bounds); c++ {
			c0, c1 := bounds[c], bounds[c+1]
			linalg.Gemm32(false, true, b, m, c1-c0, 1, xq[c0:], d, g.q[c0:], d, 0, prod, m)
			if len(bounds) == 2 {
				break
			}
			if acc == nil {
				acc = make([]float64, rows*m)
			}
			for i, v := range prod[:b*m] {
				if c == 0 {
					acc[i] = float64(v)
				} else {
					acc[i] += float64(v)
				}
			}
		}
		parallel.ForWorker(b, workers, func(w, i int) {
			row := dst[(r0+i)*m : (r0+i+1)*m]
			if len(bounds) > 2 {
				for j, v := range acc[i*m : (i+1)*m] {
					row[j] = s2 * (nx[i] + g.norms[j] - 2*v)
				}
			} else {
				for j, v := range prod[i*m : (i+1)*m] {
					row[j] = s2 * (nx[i] + g.norms[j] - 2*float64(v))
				}
			}
			if scratch[w] == nil && !isGauss {
				scratch[w] = make([]float64, m)
			}
			k.ofSqDistRow(row, scratch[w])
		})
	}
	return true
}

// gridBufs keeps the float32 scratch of gridCentres.gram across calls: Nyström features and FALKON call it for
// block after block of rows, and fresh memory costs a page fault per 4 KiB at first touch.
var gridBufs sync.Pool

// getGridBuf returns a float32 buffer of length n from gridBufs, or a new one.
func getGridBuf(n int) *[]float32 {
	if b, ok := gridBufs.Get().(*[]float32); ok && cap(*b) >= n {
		*b = (*b)[:n]
		return b
	}
	b := make([]float32, n)
	return &b
}

// useGrid reports whether Gram should try the grid path for m centres in d dimensions met by the given number of
// rows (−1: unknown, as for Centres): converting the centres costs O(m·d), which pays over many rows only.
func useGrid(m, d, rows int) bool {
	switch gridMode {
	case gridOff:
		return false
	case gridAlways:
		return true
	}
	return linalg.FastFloat32() && d >= gridMinDim && m >= gridMinRows && (rows < 0 || rows >= gridMinRows)
}
