package kernel

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/fastmath"
	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/internal/size"
)

// sqRadial is implemented by kernels that are a function of the squared Euclidean distance, κ(‖x−y‖²); Gram
// computes their distances with one matrix product.
type sqRadial interface {
	ofSqDist(r2 float64) float64
	ofSqDistRow(row, scratch []float64)
}

func (k Gaussian) ofSqDist(r2 float64) float64 { return math.Exp(-r2 / (2 * k.S * k.S)) }

func (k Matern) ofSqDist(r2 float64) float64 { return k.ofDist(math.Sqrt(r2)) }

// ofSqDistRow replaces the squared distances of row by ofSqDist of each, bit for bit, taking the exponentials four at
// a time (fastmath.Exp); scratch holds at least len(row) values. The Gaussian kernel needs no scratch.
func (k Gaussian) ofSqDistRow(row, _ []float64) {
	den := 2 * k.S * k.S // as ofSqDist divides
	for j, r2 := range row {
		row[j] = -r2 / den
	}
	fastmath.Exp(row, row)
}

// ofSqDistRow is Gaussian.ofSqDistRow for the Matérn kernels of ofDist: the exponent t (scratch) and e^{−t}, then
// the polynomial factor, the operations of ofDist in its order.
func (k Matern) ofSqDistRow(row, scratch []float64) {
	var c float64 // t = c·r/σ
	switch k.Nu {
	case 0.5:
		c = 1
	case 1.5:
		c = math.Sqrt(3)
	case 2.5:
		c = math.Sqrt(5)
	default:
		for j, r2 := range row {
			row[j] = k.ofSqDist(r2)
		}
		return
	}
	t := scratch[:len(row)]
	for j, r2 := range row {
		r := math.Sqrt(r2)
		r /= k.S
		if k.Nu != 0.5 {
			r = c * r
		}
		t[j], row[j] = r, -r
	}
	fastmath.Exp(row, row)
	switch k.Nu {
	case 1.5:
		for j, v := range t {
			if row[j] != 0 { // as ofDist: 0 where e^{−t} underflows, not Inf·0
				row[j] *= 1 + v
			}
		}
	case 2.5:
		for j, v := range t {
			if row[j] != 0 {
				row[j] *= 1 + v + v*v/3
			}
		}
	}
}

// directMaxDim is the input dimension below which Gram computes the squared distances of sqRadial kernels by the
// coordinate loop (gramDirect) instead of a matrix product: 32 with the AVX2 kernel, which takes sixteen centres at
// a time and is faster than the product up to there (BenchmarkGramDirect: 1024 rows, 500 centres, d = 8–24,
// 1.2–1.6× on a 2-core AMD Zen 3), 8 with the portable loop, which is as fast as the product only that far.
func directMaxDim() int {
	switch {
	case directDimOverride > 0:
		return directDimOverride
	case useDirectAVX2:
		return 32
	}
	return 8
}

// directDimOverride replaces directMaxDim's choice when positive (tests of the product path).
var directDimOverride int

// gramRelTol bounds the relative error Gram accepts in a squared distance obtained from a matrix product.
const gramRelTol = 1e-12

// Gram fills dst (n×m, row-major) with k(x_i, y_j), where X is n×d and Y is m×d, both row-major. It returns an
// error for a nil kernel or if a length does not match.
//
// For the Gaussian and Matérn kernels with d ≥ 32 (d ≥ 8 on CPUs without AVX2) the squared distances come from one
// matrix product (on the fast BLAS backend when it is loaded), ‖x−y‖² = ‖x‖² + ‖y‖² − 2xᵀy, instead of n·m loops
// over d coordinates. That form loses digits to cancellation when ‖x−y‖² ≪ ‖x‖² + ‖y‖²: the rounding error of the
// three terms is at most (2d+2)·u·(‖x‖² + ‖y‖²) (u = 2⁻⁵³; Higham's bound γ_d·Σ|a_k b_k| for each of ‖x‖², ‖y‖² and
// 2xᵀy ≤ ‖x‖² + ‖y‖², and two additions), so every pair where this bound exceeds 1e-12·‖x−y‖² — near and equal
// points, data far from the origin — is recomputed directly by the coordinate loop. Every squared distance is therefore within a relative 1e-12 (plus the loop's own few ulps) of
// the pairwise value, and a Gaussian entry within 1e-12·max_t t·e^{−t} < 4e-13 of it. Below that dimension the
// squared distances are the coordinate loop's, sixteen centres at a time (four per AVX2 register where the CPU has
// them, the same bits as the loop), and so are the Laplacian kernel's L1 distances, the Cauchy kernel's values and
// the arc-cosine kernels' inner products at every d where the CPU has AVX2; other kernels use the pairwise loop. Rows are computed in parallel on all cores.
//
// Data on a grid — every entry a small integer times one step, as pixels/255 or integer counts scaled by their
// maximum — take an exact path on the OpenBLAS backend (d ≥ 32, n and m ≥ 128): the squared distances are s²·R
// with R the exact integer ‖q_x − q_y‖², from single-precision products whose partial sums are integers below 2²⁴
// (exact in any order), at about 1.6 times the speed of the double-precision product on an AVX2 CPU, within the
// same 1e-12 of the pairwise value (docs/conventions.md §13.4). To form K(X, Y) for many X and the same Y, use
// Centres.
func Gram(dst []float64, k Kernel, X []float64, n int, Y []float64, m int, d int) error {
	if isNil(k) {
		return errors.New("kernel.Gram: nil kernel")
	}
	if d <= 0 || !size.Is(len(X), n, d) || !size.Is(len(Y), m, d) || !size.Is(len(dst), n, m) {
		return fmt.Errorf("kernel.Gram: shapes do not match (len X=%d, n=%d; len Y=%d, m=%d; d=%d; len dst=%d)",
			len(X), n, len(Y), m, d, len(dst))
	}
	c := newCentres(k, Y, m, d, false, n)
	c.gram(dst, X, n)
	return nil
}

// Centres are fixed points Y (m×d) against which kernel matrices K(X, Y) are formed again and again — the landmarks
// of Nyström features, the centres of FALKON: what Gram derives from Y alone (its squared norms, its form on a grid)
// is computed once. A Centres is safe for concurrent use.
type Centres struct {
	k      Kernel
	y      []float64
	m, d   int
	sq     sqRadial     // nil: the pairwise loop
	ny     []float64    // ‖y_j‖², for sq with a matrix product; ‖y_j‖ for the arc-cosine kernels
	yt     []float64    // Y in panels (transposePanels), for distances computed directly
	direct bool         // computed directly: sq (d < directMaxDim), Laplacian, Cauchy, arc-cosine
	mode   dirMode      // what direct computes per pair
	sigma  float64      // the bandwidth of the Laplacian or Cauchy kernel, for direct
	grid   *gridCentres // Y on a grid (see grid.go), or nil
	// rowExact: a row's kernel values have the same bits whatever the rows formed with it (ForPrediction, GramRows).
	rowExact bool
}

// NewCentres returns the centres Y (m×d, row-major; copied) of kernel k. It returns an error for a nil kernel, d ≤ 0
// or a length of Y that does not match.
func NewCentres(k Kernel, Y []float64, m, d int) (*Centres, error) {
	if isNil(k) {
		return nil, errors.New("kernel.NewCentres: nil kernel")
	}
	if d <= 0 || m < 0 || !size.Is(len(Y), m, d) {
		return nil, fmt.Errorf("kernel.NewCentres: shapes do not match (len Y=%d, m=%d, d=%d)", len(Y), m, d)
	}
	return newCentres(k, Y, m, d, true, -1), nil
}

// newCentres is NewCentres on checked arguments; Y is copied when own is set. rows is the number of rows the
// centres will meet (−1: unknown, many), for useGrid.
func newCentres(k Kernel, Y []float64, m, d int, own bool, rows int) *Centres {
	if own {
		Y = append([]float64(nil), Y[:m*d]...)
	}
	c := &Centres{k: k, y: Y[:m*d], m: m, d: d}
	if m > 0 && useDirectAVX2 {
		switch kk := k.(type) {
		case Laplacian:
			c.direct, c.mode, c.sigma, c.yt = true, dirL1, kk.S, transposePanels(Y, m, d)
			return c
		case Cauchy:
			c.direct, c.mode, c.sigma, c.yt = true, dirCauchy, kk.S, transposePanels(Y, m, d)
			return c
		case ArcCos:
			c.direct, c.mode, c.yt, c.ny = true, dirDot, transposePanels(Y, m, d), make([]float64, m)
			for j := range m {
				c.ny[j] = math.Sqrt(dot(Y[j*d:(j+1)*d], Y[j*d:(j+1)*d]))
			}
			return c
		}
	}
	if r, ok := k.(sqRadial); ok && m > 0 {
		c.sq = r
		grid := useGrid(m, d, rows)
		if d < directMaxDim() && !grid {
			c.direct, c.yt = true, transposePanels(Y, m, d)
			return c
		}
		c.ny = sqNorms(Y, m, d)
		if grid {
			c.grid = newGridCentres(Y, m, d)
		}
	}
	return c
}

// ForPrediction returns centres that form the same kernel values as c (sharing its points) with the same bits for a
// row whether it is formed alone or among other rows, as predictions need: no grid path (which applies from 128 rows
// on), and the products of the squared distances by linalg.MulRows instead of the BLAS, which may sum a product of
// many rows in another order than of one. It returns nil for a nil Centres.
func (c *Centres) ForPrediction() *Centres {
	if c == nil {
		return nil
	}
	return newRowExact(c.k, c.y, c.m, c.d)
}

// newRowExact is newCentres (Y not copied) for rows whose kernel values must not depend on the rows beside them.
func newRowExact(k Kernel, Y []float64, m, d int) *Centres {
	c := newCentres(k, Y, m, d, false, 0) // no rows: no grid path
	c.rowExact = true
	return c
}

// GramRows is Gram with the same bits for a row whether it is formed alone or among other rows (see
// Centres.ForPrediction), for the kernel values of predictions.
func GramRows(dst []float64, k Kernel, X []float64, n int, Y []float64, m int, d int) error {
	if isNil(k) {
		return errors.New("kernel.GramRows: nil kernel")
	}
	if d <= 0 || !size.Is(len(X), n, d) || !size.Is(len(Y), m, d) || !size.Is(len(dst), n, m) {
		return fmt.Errorf("kernel.GramRows: shapes do not match (len X=%d, n=%d; len Y=%d, m=%d; d=%d; len dst=%d)",
			len(X), n, len(Y), m, d, len(dst))
	}
	newRowExact(k, Y, m, d).gram(dst, X, n)
	return nil
}

// Points is the number of centres m (0 for a nil or zero Centres).
func (c *Centres) Points() int {
	if c == nil {
		return 0
	}
	return c.m
}

// Gram fills dst (n×m, row-major) with k(x_i, y_j) for the rows of X (n×d), exactly as the package's Gram does. It
// returns an error for a nil Centres or if a length does not match.
func (c *Centres) Gram(dst, X []float64, n int) error {
	if c == nil || isNil(c.k) {
		return errors.New("kernel.Centres.Gram: nil or zero Centres (use NewCentres)")
	}
	if !size.Is(len(X), n, c.d) || !size.Is(len(dst), n, c.m) {
		return fmt.Errorf("kernel.Centres.Gram: shapes do not match (len X=%d, n=%d, d=%d; len dst=%d, m=%d)",
			len(X), n, c.d, len(dst), c.m)
	}
	c.gram(dst, X, n)
	return nil
}

// gram is Gram on checked arguments.
func (c *Centres) gram(dst, X []float64, n int) {
	if n == 0 || c.m == 0 {
		return
	}
	switch {
	case c.direct:
		c.gramDirect(dst, X, n)
		return
	case c.sq != nil:
		if c.grid == nil || !c.grid.gram(dst, c.sq, X, n, c.m, c.d) {
			gramSqRadial(dst, c.sq, X, n, c.y, c.ny, c.m, c.d, c.rowExact)
		}
		return
	}
	k, Y, m, d := c.k, c.y, c.m, c.d
	ek, isExp := k.(expKernel)
	parallel.For(n, 0, func(i int) {
		xi := X[i*d : (i+1)*d]
		row := dst[i*m : (i+1)*m]
		if isExp {
			for j := range row {
				row[j] = ek.expArg(xi, Y[j*d:(j+1)*d])
			}
			fastmath.Exp(row, row) // Eval's math.Exp, four at a time
			return
		}
		for j := range row {
			row[j] = k.Eval(xi, Y[j*d:(j+1)*d])
		}
	})
}

// gramDirect is gram for the values computed directly (distRow, the coordinate loop sixteen centres at a time): the
// squared distances of a squared-distance kernel with d < directMaxDim(), then the kernel of each row; the L1
// distances of the Laplacian kernel, then exp(−s/σ) of each as its Eval does; the Cauchy kernel itself; or the inner
// products of the arc-cosine kernels, then the kernel from them and the norms as Eval computes it.
func (c *Centres) gramDirect(dst, X []float64, n int) {
	m, d := c.m, c.d
	workers := runtime.GOMAXPROCS(0)
	scratch := make([][]float64, workers)
	_, isGauss := c.sq.(Gaussian)
	parallel.ForWorker(n, workers, func(w, i int) {
		row := dst[i*m : (i+1)*m]
		distRow(row, X[i*d:(i+1)*d], c.yt, c.y, m, d, c.mode, c.sigma)
		switch c.mode {
		case dirCauchy: // the kernel values themselves
			return
		case dirDot:
			ac := c.k.(ArcCos)
			xi := X[i*d : (i+1)*d]
			nx := math.Sqrt(dot(xi, xi))
			for j, xy := range row {
				row[j] = ac.ofDot(xy, nx, c.ny[j])
			}
			return
		case dirL1:
			for j, s := range row {
				row[j] = -s / c.sigma
			}
			fastmath.Exp(row, row) // Eval's math.Exp, four at a time
			return
		}
		if scratch[w] == nil && !isGauss {
			scratch[w] = make([]float64, m)
		}
		c.sq.ofSqDistRow(row, scratch[w])
	})
}

// expKernel is implemented by kernels whose Eval is math.Exp(expArg(x, y)) exactly (the Gaussian and Laplacian
// kernels): the pairwise path of Gram computes the arguments of a row and exponentiates them in one call. (Gram
// takes the Gaussian's squared distances directly or from a product, and the Laplacian kernel's distances directly
// where the CPU has AVX2, so only the Laplacian kernel elsewhere comes here.)
type expKernel interface {
	expArg(x, y []float64) float64
}

func (k Gaussian) expArg(x, y []float64) float64 { return -sqDist(x, y) / (2 * k.S * k.S) }

func (k Laplacian) expArg(x, y []float64) float64 { return -absDist(x, y) / k.S }

// absDist returns ‖x − y‖₁, summed in the order of the coordinates.
func absDist(x, y []float64) float64 {
	var s float64
	y = y[:len(x)]
	for i, xi := range x {
		s += math.Abs(xi - y[i])
	}
	return s
}

// gramSqRadial is Gram for a sqRadial kernel through dst = X·Yᵀ (see Gram for the error control); ny holds ‖y_j‖².
// With rowExact the product is linalg.MulRows's, whose rows do not depend on the rows beside them.
func gramSqRadial(dst []float64, k sqRadial, X []float64, n int, Y, ny []float64, m, d int, rowExact bool) {
	nx := sqNorms(X, n, d)
	if rowExact { // blocks of rows on all cores: MulRows gives a row its bits whatever block it is in
		parallel.For(blocks.Count(n), 0, func(b int) {
			r0 := b * blocks.Rows
			r := min(blocks.Rows, n-r0)
			linalg.MulRows(true, r, m, d, X[r0*d:], d, Y, d, dst[r0*m:], m)
		})
	} else {
		linalg.Gemm(false, true, n, m, d, 1, X, d, Y, d, 0, dst, m)
	}
	c := float64(2*d+2) * 0x1p-53 / gramRelTol
	_, isGauss := k.(Gaussian)
	workers := runtime.GOMAXPROCS(0)
	scratch := make([][]float64, workers)
	parallel.ForWorker(n, workers, func(w, i int) {
		xi := X[i*d : (i+1)*d]
		row := dst[i*m : (i+1)*m]
		for j, g := range row {
			s := nx[i] + ny[j]
			r2 := s - 2*g
			if r2 <= c*s {
				r2 = sqDist(xi, Y[j*d:(j+1)*d])
			}
			row[j] = r2
		}
		if scratch[w] == nil && !isGauss {
			scratch[w] = make([]float64, m)
		}
		k.ofSqDistRow(row, scratch[w])
	})
}

// sqNorms returns ‖x_i‖² for the n rows of X (n×d).
func sqNorms(X []float64, n, d int) []float64 {
	out := make([]float64, n)
	for i := range out {
		var s float64
		for _, v := range X[i*d : (i+1)*d] {
			s += v * v
		}
		out[i] = s
	}
	return out
}

// GramDense returns the exact Gram matrix K(X, Y) (rows of X against rows of Y) as a gonum matrix. It returns an
// error for a nil kernel or matrix, an empty matrix, column counts that differ, or an input or n×m result beyond the
// size limit of one array (1 TiB) or whose size overflows int.
func GramDense(k Kernel, X, Y mat.Matrix) (*mat.Dense, error) {
	if isNil(k) {
		return nil, errors.New("kernel.GramDense: nil kernel")
	}
	if isNilMatrix(X) || isNilMatrix(Y) {
		return nil, errors.New("kernel.GramDense: nil matrix")
	}
	n, d := X.Dims()
	m, dy := Y.Dims()
	if n < 1 || d < 1 || m < 1 || dy < 1 {
		return nil, fmt.Errorf("kernel.GramDense: empty matrix (X is %d×%d, Y is %d×%d)", n, d, m, dy)
	}
	if d != dy {
		return nil, fmt.Errorf("kernel.GramDense: X has %d columns, Y has %d", d, dy)
	}
	if _, err := size.Floats("kernel.GramDense: X", n, d); err != nil {
		return nil, err
	}
	if _, err := size.Floats("kernel.GramDense: Y", m, d); err != nil {
		return nil, err
	}
	if _, err := size.Floats("kernel.GramDense: Gram matrix", n, m); err != nil {
		return nil, err
	}
	x := mat.DenseCopyOf(X).RawMatrix().Data
	y := mat.DenseCopyOf(Y).RawMatrix().Data
	out := make([]float64, n*m)
	if err := Gram(out, k, x, n, y, m, d); err != nil {
		return nil, err
	}
	return mat.NewDense(n, m, out), nil
}

// isNil reports whether k is nil or a nil pointer (a kernel implemented on a pointer type, passed as nil).
func isNil(k Kernel) bool {
	if k == nil {
		return true
	}
	v := reflect.ValueOf(k)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// isNilMatrix reports whether a is nil or a nil pointer.
func isNilMatrix(a mat.Matrix) bool {
	if a == nil {
		return true
	}
	v := reflect.ValueOf(a)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
