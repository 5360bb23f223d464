package nystrom

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"

	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/internal/solve"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
)

// DefaultThreshold is the relative eigenvalue threshold of a Map: eigenvalues λ_j ≤ 1e-12·λ_max of K_MM are dropped.
// It sits a few orders of magnitude above the rounding of the eigendecomposition (about M·2⁻⁵³·λ_max), so that
// what is kept is the matrix's and not the rounding's. Dropping λ_j changes k̃(x, y) by (u_jᵀk_M(x))(u_jᵀk_M(y))/λ_j:
// at most λ_j at the landmarks, where k_M(x) is a column of K_MM, but away from them up to k(x, x) for a direction
// that a point off the landmarks' span excites (docs/conventions.md §13.1).
const DefaultThreshold = 1e-12

// DefaultMaxBytes is the default memory budget for the O(M²) arrays of a Map or a Falkon fit: 4 GiB.
const DefaultMaxBytes = 4 << 30

// Map is the Nyström feature map ψ(x) = Normᵀk_M(x) on M landmarks (see the package documentation): M' ≤ M
// features, ⟨ψ(x), ψ(y)⟩ = k_M(x)ᵀK_MM⁺k_M(y), in the Cholesky or the eigen basis. It is a learn.Mapper; its
// methods are safe for concurrent use.
type Map struct {
	kern      kernel.Kernel
	d, m, f   int       // input dimension, landmarks M, features M'
	landmarks []float64 // M×d
	// norm is M×M': U_r Λ_r^{-1/2} (Eigen; columns in decreasing order of eigenvalue) or U₁₁⁻¹ (Cholesky; M = M',
	// upper triangular with zeros below the diagonal).
	norm []float64
	tri  bool // norm is square and upper triangular: the features are a triangular product
	// diag holds the M' kept eigenvalues of K_MM, decreasing (Eigen), or the squared pivots U_jj² (Cholesky).
	diag      []float64
	basis     Basis
	threshold float64
	selection string
	seed      uint64
	// cent is the landmarks as kernel.Centres (their norms and grid form, computed once), made on first use.
	cent atomic.Pointer[kernel.Centres]
	// rowExact makes TransformBlock give a row the same bits whatever the block it is mapped in (ForPrediction).
	rowExact bool
}

// ForPrediction returns a map that computes the same features as m (sharing its arrays) with the same bits for a
// row whether it is mapped alone or among other rows, as predictions need (a server batches requests in any way;
// a file's rows and a single row should agree). Its normalization product runs in pure Go (linalg.MulRows) instead
// of the BLAS, which may sum a product of many rows in another order than of one; for the Cholesky basis that is a
// product with the triangular normalization by blocks of columns, more multiply-adds than the BLAS's triangular
// product, so fits keep m itself.
func (m *Map) ForPrediction() *Map {
	if m == nil {
		return nil
	}
	p := &Map{kern: m.kern, d: m.d, m: m.m, f: m.f, landmarks: m.landmarks, norm: m.norm, tri: m.tri, diag: m.diag,
		basis: m.basis, threshold: m.threshold, selection: m.selection, seed: m.seed, rowExact: true}
	p.cent.Store(m.centres().ForPrediction()) // kernel values whose rows do not depend on the rows beside them
	return p
}

// columnBlocks calls fn for each block of columns [j0, j1) of the normalization that transformExact multiplies
// at once, with the k rows of the normalization the block takes: every column and every row (the eigen basis), or
// blocks of exactColumns columns and the first j1 rows (the triangular factor of the Cholesky basis: feature j
// takes k_M's first j+1 entries, so the block [j0, j1) only k < j1; 0.56 of the full product's multiply-adds at
// M' = 1000).
func (m *Map) columnBlocks(fn func(j0, j1, k int)) {
	if !m.tri {
		fn(0, m.f, m.m)
		return
	}
	for j0 := 0; j0 < m.f; {
		j1 := min(m.f, j0+exactColumns)
		if m.f-j1 < linalg.GemmSerialMinDim {
			j1 = m.f // no block narrower than the packed kernel's least width
		}
		fn(j0, j1, j1)
		j0 = j1
	}
}

// centres returns the landmarks as kernel.Centres, making them on the first call.
func (m *Map) centres() *kernel.Centres {
	if c := m.cent.Load(); c != nil {
		return c
	}
	c, err := kernel.NewCentres(m.kern, m.landmarks, m.m, m.d)
	if err != nil {
		panic("nystrom: " + err.Error()) // the map was checked (m.check)
	}
	m.cent.CompareAndSwap(nil, c)
	return m.cent.Load()
}

// An Option changes how New and FromLandmarks build a map.
type Option func(*options) error

type options struct {
	threshold float64
	maxBytes  int64
	basis     Basis
}

// WithThreshold sets the relative threshold t: in the eigen basis eigenvalues λ_j ≤ t·λ_max of K_MM are dropped, in
// the Cholesky basis landmarks whose residual pivot is ≤ t·max_j k(c_j, c_j). 0 keeps every positive eigenvalue or
// pivot (K_MM's rounding errors then enter the features); it must be in [0, 1).
func WithThreshold(t float64) Option {
	return func(o *options) error {
		if !(t >= 0 && t < 1) {
			return fmt.Errorf("nystrom: threshold %v must be in [0, 1)", t)
		}
		o.threshold = t
		return nil
	}
}

// WithMaxBytes sets the memory budget for the O(M²) arrays the map needs while it is built (K_MM, its eigenvectors
// and the normalization matrix: 3·8·M² bytes at most); 0 means DefaultMaxBytes, < 0 no limit.
func WithMaxBytes(b int64) Option {
	return func(o *options) error {
		o.maxBytes = b
		return nil
	}
}

// New chooses M landmarks among the n rows of X (n×d, row-major) with s and the given seed, and builds the Nyström
// map of kernel k on them. The map is the same for the same arguments, on every run and core count (on one
// linear-algebra backend).
func New(k kernel.Kernel, s Selector, X []float64, n, d, M int, seed uint64, opts ...Option) (*Map, error) {
	if s == nil {
		return nil, errors.New("nystrom.New: nil selector")
	}
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := checkBudget(M, o.maxBytes); err != nil {
		return nil, err
	}
	idx, err := s.Select(k, X, n, d, M, seed)
	if err != nil {
		return nil, err
	}
	L, err := Gather(X, n, d, idx)
	if err != nil {
		return nil, err
	}
	m, err := build(k, L, M, d, o)
	if err != nil {
		return nil, err
	}
	m.selection, m.seed = s.Name(), seed
	return m, nil
}

// FromLandmarks builds the Nyström map of kernel k on the M landmarks given as the rows of landmarks (M×d,
// row-major; copied).
func FromLandmarks(k kernel.Kernel, landmarks []float64, M, d int, opts ...Option) (*Map, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if M < 1 {
		return nil, fmt.Errorf("nystrom.FromLandmarks: M = %d landmarks, need at least 1", M)
	}
	if err := blocks.CheckX("nystrom.FromLandmarks: landmarks", landmarks, M, d); err != nil {
		return nil, err
	}
	if err := checkBudget(M, o.maxBytes); err != nil {
		return nil, err
	}
	m, err := build(k, append([]float64(nil), landmarks[:M*d]...), M, d, o)
	if err != nil {
		return nil, err
	}
	m.selection = "given"
	return m, nil
}

func buildOptions(opts []Option) (options, error) {
	o := options{threshold: DefaultThreshold}
	for _, f := range opts {
		if f == nil {
			return o, errors.New("nystrom: nil option")
		}
		if err := f(&o); err != nil {
			return o, err
		}
	}
	return o, nil
}

// checkBudget refuses maps whose three M×M arrays exceed the budget (0 = DefaultMaxBytes, < 0 none).
func checkBudget(M int, budget int64) error {
	if M < 1 {
		return nil
	}
	if _, err := size.Floats("nystrom: K_MM", M, M); err != nil {
		return err
	}
	if budget == 0 {
		budget = DefaultMaxBytes
	}
	need := 3 * 8 * float64(M) * float64(M)
	if budget > 0 && need > float64(budget) {
		return fmt.Errorf("nystrom: M = %d landmarks need %s for K_MM and its eigendecomposition, over the budget of %s (WithMaxBytes)",
			M, solve.Bytes(need), solve.Bytes(float64(budget)))
	}
	return nil
}

// build forms K_MM and factorizes it in the basis of o: the pivoted Cholesky factorization or the eigendecomposition,
// keeping the pivots or eigenpairs above the threshold.
func build(k kernel.Kernel, L []float64, M, d int, o options) (*Map, error) {
	if k == nil {
		return nil, errors.New("nystrom: nil kernel")
	}
	K := make([]float64, M*M)
	if err := kernel.Gram(K, k, L, M, L, M, d); err != nil {
		return nil, fmt.Errorf("nystrom: %w", err)
	}
	for i, v := range K {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("nystrom: kernel %s is %v between landmarks %d and %d", k.Name(), v, i/M+1, i%M+1)
		}
	}
	if o.basis == Cholesky {
		return buildCholesky(k, L, K, M, d, o)
	}
	vals, vecs, err := linalg.EigenSym(M, K)
	if err != nil {
		return nil, fmt.Errorf("nystrom: eigendecomposition of K_MM: %w", err)
	}
	K = nil
	top := vals[M-1]
	if !(top > 0) {
		return nil, fmt.Errorf("nystrom: the kernel matrix of the %d landmarks has no positive eigenvalue (largest %g)", M, top)
	}
	cut := o.threshold * top
	var keep []int // indices into vals, decreasing
	for j := M - 1; j >= 0; j-- {
		if vals[j] > cut && vals[j] > 0 {
			keep = append(keep, j)
		}
	}
	f := len(keep)
	norm := make([]float64, M*f)
	eig := make([]float64, f)
	for c, j := range keep {
		eig[c] = vals[j]
	}
	parallel.For(M, 0, func(i int) {
		row := vecs[i*M : (i+1)*M]
		out := norm[i*f : (i+1)*f]
		for c, j := range keep {
			out[c] = row[j] / math.Sqrt(vals[j])
		}
	})
	return &Map{kern: k, d: d, m: M, f: f, landmarks: L, norm: norm, diag: eig, basis: Eigen, threshold: o.threshold}, nil
}

// The accessors below describe an empty map (zero values, nil) for a nil *Map or a Map not made by [New],
// [FromLandmarks] or [FromParams]; the methods that compute return an error for such a map.

// Dim is the input dimension d.
func (m *Map) Dim() int {
	if m == nil {
		return 0
	}
	return m.d
}

// Features is the number of features M' ≤ M: the eigenvalues of K_MM above the threshold (Eigen), or the landmarks
// kept (Cholesky, where Features = Centres).
func (m *Map) Features() int {
	if m == nil {
		return 0
	}
	return m.f
}

// Points is the scratch per row that TransformBlock needs: the M kernel values k_M(x) in the eigen basis and for a
// ForPrediction map, none in the Cholesky basis otherwise, which forms them in its output.
func (m *Map) Points() int {
	if m == nil || (m.tri && !m.rowExact) {
		return 0
	}
	return m.m
}

// Centres is the number of landmarks M the features are computed from: in the Cholesky basis the landmarks the
// pivoting kept, which can be fewer than were chosen.
func (m *Map) Centres() int {
	if m == nil {
		return 0
	}
	return m.m
}

// Kernel is the map's kernel.
func (m *Map) Kernel() kernel.Kernel {
	if m == nil {
		return nil
	}
	return m.kern
}

// Landmarks returns a copy of the landmarks (M×d, row-major).
func (m *Map) Landmarks() []float64 {
	if m == nil {
		return nil
	}
	return append([]float64(nil), m.landmarks...)
}

// Eigenvalues returns the M' eigenvalues of K_MM that were kept, in decreasing order, in the eigen basis; nil in the
// Cholesky basis.
func (m *Map) Eigenvalues() []float64 {
	if m == nil || m.basis != Eigen {
		return nil
	}
	return append([]float64(nil), m.diag...)
}

// Pivots returns the squared pivots U_jj² of the pivoted Cholesky factorization in the Cholesky basis (the residual
// k(c_j, c_j) − k̃(c_j, c_j) of landmark j given the landmarks before it, in the pivoting's order); nil in the eigen
// basis.
func (m *Map) Pivots() []float64 {
	if m == nil || m.basis != Cholesky {
		return nil
	}
	return append([]float64(nil), m.diag...)
}

// Basis is the basis of the map's features.
func (m *Map) Basis() Basis {
	if m == nil {
		return Cholesky
	}
	return m.basis
}

// Threshold is the relative threshold the map was built with.
func (m *Map) Threshold() float64 {
	if m == nil {
		return 0
	}
	return m.threshold
}

// Selection names how the landmarks were chosen: a Selector's name, "given" (FromLandmarks) or what Params recorded.
func (m *Map) Selection() string {
	if m == nil {
		return ""
	}
	return m.selection
}

// Seed is the seed the landmarks were selected with (0 for given landmarks).
func (m *Map) Seed() uint64 {
	if m == nil {
		return 0
	}
	return m.seed
}

// TransformBlock maps rows x (rows×d, row-major) into dst (rows×Features()) on the calling goroutine (kernel.Gram and
// the matrix product may use other cores). proj is scratch of length ≥ rows×Points() (nil to allocate) for the
// kernel values k_M(x) of the eigen basis and of a ForPrediction map; the Cholesky basis otherwise forms them in dst
// and does not use it. This is the
// unchecked hot path: it panics if m is nil or zero or a slice is too short; TransformRows checks.
func (m *Map) TransformBlock(dst, x []float64, rows int, proj []float64) {
	if rows == 0 {
		return
	}
	if m.rowExact {
		m.transformExact(dst, x, rows, proj)
		return
	}
	if m.tri { // M = M': the kernel values go into dst and the triangular product runs in place
		kx := dst[:rows*m.f]
		if err := m.centres().Gram(kx, x[:rows*m.d], rows); err != nil {
			panic("nystrom: TransformBlock: " + err.Error())
		}
		linalg.Blas{}.Dtrmm(blas.Right, blas.Upper, blas.NoTrans, blas.NonUnit, rows, m.f, 1, m.norm, m.f, kx, m.f)
		return
	}
	if len(proj) < rows*m.m {
		proj = make([]float64, rows*m.m)
	}
	kx := proj[:rows*m.m]
	if err := m.centres().Gram(kx, x[:rows*m.d], rows); err != nil {
		panic("nystrom: TransformBlock: " + err.Error())
	}
	linalg.Gemm(false, false, rows, m.f, m.m, 1, kx, m.m, m.norm, m.f, 0, dst[:rows*m.f], m.f)
}

// transformExact is TransformBlock of a ForPrediction map: the kernel values of the rows into proj (or a buffer),
// then their product with the normalization by linalg.MulRows.
func (m *Map) transformExact(dst, x []float64, rows int, proj []float64) {
	if len(proj) < rows*m.m {
		proj = make([]float64, rows*m.m)
	}
	kx := proj[:rows*m.m]
	if err := m.centres().Gram(kx, x[:rows*m.d], rows); err != nil {
		panic("nystrom: TransformBlock: " + err.Error())
	}
	m.columnBlocks(func(j0, j1, k int) {
		linalg.MulRows(false, rows, j1-j0, k, kx, m.m, m.norm[j0:], m.f, dst[j0:], m.f)
	})
}

// exactColumns is the width of the column blocks in which transformExact multiplies by a triangular normalization.
const exactColumns = 128

// TransformRows maps the n rows of x (n×d) into dst (n×Features()), a block of rows at a time on all cores. It
// returns an error for a nil or zero map, shapes that do not match, and NaN or infinite inputs.
func (m *Map) TransformRows(dst, x []float64, n int) error {
	if err := m.check(); err != nil {
		return err
	}
	if err := blocks.CheckX("nystrom: TransformRows", x, n, m.d); err != nil {
		return err
	}
	if !size.Is(len(dst), n, m.f) {
		return fmt.Errorf("nystrom: TransformRows: len dst = %d, want %d×%d", len(dst), n, m.f)
	}
	rows := m.blockRows()
	nb := (n + rows - 1) / rows
	parallel.For(nb, 0, func(b int) {
		r0 := b * rows
		r := min(rows, n-r0)
		m.TransformBlock(dst[r0*m.f:(r0+r)*m.f], x[r0*m.d:(r0+r)*m.d], r, nil)
	})
	return nil
}

// Gradient writes the derivatives of the features at the rows x (rows×d) into dst (rows×d×Features(): dst[(i·d +
// j)·F + c] = ∂ψ_c/∂x_j at row i): ∂ψ/∂x_j = Normᵀ ∂k_M(x)/∂x_j (Λ^{-1/2}Uᵀ in the eigen basis, U⁻ᵀ in the
// Cholesky basis), from the kernel's closed-form derivatives
// ∂k(x, c_m)/∂x_j (kernel.Gradient: O(d) per landmark for the Gaussian, Cauchy and Matérn kernels, so a row costs
// O(d·M) for them plus the product with the normalization). It returns an error for a kernel without first
// derivatives everywhere (the Laplacian kernel and the arc-cosine kernels), shapes that do not match, and NaN or
// infinite inputs. With it a Nyström map is a learn.GradientMapper, so learn.Fit.PredictGradients differentiates
// models fitted on it.
func (m *Map) Gradient(dst, x []float64, rows int) error {
	if err := m.check(); err != nil {
		return err
	}
	if err := blocks.CheckX("nystrom: Gradient", x, rows, m.d); err != nil {
		return err
	}
	if !size.Is(len(dst), rows, m.d, m.f) {
		return fmt.Errorf("nystrom: Gradient: len dst = %d, want %d×%d×%d", len(dst), rows, m.d, m.f)
	}
	d, F := m.d, m.f
	return m.rowGradients("Gradient", x, rows, func(i int, g []float64) {
		linalg.GemmSerial(false, false, d, F, m.m, 1, g, m.m, m.norm, F, 0, dst[i*d*F:(i+1)*d*F], F)
	})
}

// GradientProduct writes the gradients of the P functions f_a(x) = Σ_c θ[c·P + a]·ψ_c(x) (theta F×P: the
// coefficients of a model on this map) at the rows x (rows×d) into dst (rows×d×P, dst[(i·d + j)·P + a] = ∂f_a/∂x_j
// at row i): the features are ψ(x) = Nᵀk_M(x) with N the M×F normalization, so with u = Nθ (M×P, once per call)
// ∇f_a(x) = Σ_l ∇ₓk(x, c_l)·u_la, and a row costs its M kernel gradients (kernel.Gradient) and d·M·P
// multiply-adds, not the d·F derivative features of Gradient and their product with θ. A row gets the same bits alone as among other rows. Errors as Gradient's, and
// for a theta that is not F×P or P < 1.
func (m *Map) GradientProduct(dst, x []float64, rows int, theta []float64, P int) error {
	if err := m.check(); err != nil {
		return err
	}
	if P < 1 || !size.Is(len(theta), m.f, P) {
		return fmt.Errorf("nystrom: GradientProduct: theta has %d values, want %d features × P = %d outputs", len(theta), m.f, P)
	}
	if err := blocks.CheckX("nystrom: GradientProduct", x, rows, m.d); err != nil {
		return err
	}
	if !size.Is(len(dst), rows, m.d, P) {
		return fmt.Errorf("nystrom: GradientProduct: len dst = %d, want %d×%d×%d", len(dst), rows, m.d, P)
	}
	if err := m.differentiable("GradientProduct"); err != nil || rows == 0 {
		return err
	}
	d, M, F := m.d, m.m, m.f
	u := make([]float64, M*P) // the normalization times θ
	linalg.MulRows(false, M, P, F, m.norm, F, theta, P, u, P)
	return m.rowGradients("GradientProduct", x, rows, func(i int, g []float64) {
		linalg.MulRows(false, d, P, M, g, M, u, P, dst[i*d*P:(i+1)*d*P], P)
	})
}

// rowGradients computes, for each row i of x (rows×d) on all cores, the kernel's gradients at the landmarks,
// g[j·M + l] = ∂k(x_i, c_l)/∂x_j (d×M, scratch of the goroutine), and passes them to each. It returns an error,
// naming the method where, for a kernel without first derivatives everywhere and for a row whose derivatives fail.
func (m *Map) rowGradients(where string, x []float64, rows int, each func(i int, g []float64)) error {
	if err := m.differentiable(where); err != nil || rows == 0 {
		return err
	}
	d, M := m.d, m.m
	errs := make([]error, rows)
	workers := min(rows, runtime.GOMAXPROCS(0))
	gs := make([][]float64, workers) // per goroutine: the d×M gradients, and one landmark's
	parallel.ForWorker(rows, workers, func(w, i int) {
		if gs[w] == nil {
			gs[w] = make([]float64, d*M+d)
		}
		if errs[i] = m.kernelGradients(gs[w][:d*M], gs[w][d*M:], x[i*d:(i+1)*d]); errs[i] == nil {
			each(i, gs[w][:d*M])
		}
	})
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("nystrom: %s: row %d: %w", where, i+1, err)
		}
	}
	return nil
}

// differentiable returns an error, naming the method where, if the map's kernel has no first derivatives
// everywhere.
func (m *Map) differentiable(where string) error {
	if dk, ok := m.kern.(kernel.Differentiable); !ok || dk.MaxOrder() < 1 {
		return fmt.Errorf("nystrom: %s: the %s kernel has no first derivatives everywhere", where, m.kern.Name())
	}
	return nil
}

// kernelGradients writes g[j·M + l] = ∂k(x, c_l)/∂x_j (d×M) for the row x, with gl (length d) as scratch.
func (m *Map) kernelGradients(g, gl, x []float64) error {
	d, M := m.d, m.m
	for l := range M {
		if err := kernel.Gradient(m.kern, gl, x, m.landmarks[l*d:(l+1)*d]); err != nil {
			return err
		}
		for j, v := range gl {
			g[j*M+l] = v
		}
	}
	return nil
}

// blockRows is the rows per block of TransformRows and Predict: about 8 MiB of kernel values, at least 16 rows.
func (m *Map) blockRows() int { return max(16, min(blocks.Rows*4, (1<<20)/max(1, m.m))) }

// check reports a nil or zero map.
func (m *Map) check() error {
	if m == nil || m.kern == nil || m.m < 1 || m.f < 1 {
		return errors.New("nystrom: nil or zero map")
	}
	return nil
}

// Predict writes the predictions of a ridge fit on the map's features (learn.Ridge.Solve on the statistics of
// learn.Accumulate(m, …)) for the n rows of X (n×d) into dst (n×P), mapping a block of rows at a time with the
// features of ForPrediction: a row gets the same bits alone as among other rows.
func (m *Map) Predict(dst []float64, f *learn.Fit, X []float64, n int) error {
	if err := m.check(); err != nil {
		return err
	}
	if f == nil || f.F != m.f || f.P < 1 || !size.Is(len(f.Theta), f.F, f.P) || len(f.Bias) != f.P {
		return errors.New("nystrom: Predict: the fit is not a ridge fit on this map's features")
	}
	if err := blocks.CheckX("nystrom: Predict", X, n, m.d); err != nil {
		return err
	}
	if !size.Is(len(dst), n, f.P) {
		return fmt.Errorf("nystrom: Predict: len dst = %d, want %d×%d", len(dst), n, f.P)
	}
	pm := m // a row's bits whatever the rows beside it
	if !m.rowExact {
		pm = m.ForPrediction()
	}
	rows := m.blockRows()
	nb := (n + rows - 1) / rows
	parallel.For(nb, 0, func(b int) {
		r0 := b * rows
		r := min(rows, n-r0)
		z := make([]float64, r*m.f)
		pm.transformExact(z, X[r0*m.d:(r0+r)*m.d], r, nil)
		f.Predict(dst[r0*f.P:(r0+r)*f.P], z, r)
	})
	return nil
}
