package ovk

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/fastmath"
	"github.com/rffkit/rff/internal/finite"
	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// Map is an operator-valued random Fourier feature (ORFF) map Φ̃: R^d → R^{F×p}, F = 2·D·p', built from the D
// points of any rule (ORFF paper, Eq. (6) in its real form; docs/conventions.md §4). With the rule's weights w_j in place of 1/D,
//
//	Φ̃(x)ᵀ = [ √w_j cos(ω_jᵀx)·B(ω_j) | √w_j sin(ω_jᵀx)·B(ω_j) ]  (p × F),
//	K̃(x,z) = Φ̃(x)ᵀΦ̃(z) + Offset()·A = Σ_j w_j cos(ω_jᵀ(x−z))·A(ω_j) + w₀·A(0),
//
// and a model is f̃(x) = Φ̃(x)ᵀθ with θ ∈ R^F.
//
// Feature layout. Feature index f·p' + k, for the scalar column f ∈ [0, 2D) and k ∈ [0, p'), holds
// z_f(x)·B(ω_j)[·,k], where z(x) = [√w_j cos(ω_jᵀx)]_j ‖ [√w_j sin(ω_jᵀx)]_j is the scalar cos/sin feature vector of
// package feature (same columns, same order, same values for the same rule and seed) and j = f mod D. Reading θ as
// the row-major (2D)×p' matrix Θ with rows Θ_f, the model is f̃(x) = Σ_j B(ω_j)·(z_j(x)Θ_j + z_{D+j}(x)Θ_{D+j}); for
// a decomposable kernel f̃(x) = B·Θᵀ·z(x), i.e. the prediction matrix is Z·Θ·Bᵀ and the Kronecker product z(x)ᵀ⊗B is
// never formed. This orders the rows of the paper's ⊕_j [cos·Bᵀ; sin·Bᵀ] differently, which changes nothing in K̃.
//
// Zero node. SR rules have a node at ω = 0 with weight w₀ (of either sign, so it has no real feature). For curl-free,
// divergence-free and Helmholtz kernels A(0) = 0 and the node contributes nothing. For a decomposable kernel it
// contributes the constant w₀·A, reported by [Map.Offset] and added by [Map.Estimate]; a learner absorbs it with a
// per-output intercept.
//
// A Map is immutable after New, deterministic for its seed and safe for concurrent use.
type Map struct {
	k        *Kernel
	r        rule.Rule
	d, p, pr int
	n        int // number of points D
	points   rule.Points
	scale    []float64 // per-point frequency multiplier (nil when folded into the points)
	w        []float64 // weights w_j
	amp      []float64 // √w_j
	zero     float64   // zero-node weight w₀
	bs       []float64 // B(ω_j), p×p' row-major per point, at j·bstride
	bstride  int       // 0 for a decomposable kernel (one shared B)
	ab       []float64 // BBᵀ (decomposable)
	seed     uint64

	omegaOnce sync.Once
	omega     []float64 // D×d frequencies ω_j (New: eager for curl/div/Helmholtz; FromParams and decomposable: lazy)
}

// New draws an ORFF map for kernel k with D points of rule r on inputs of dimension d, from seed. Any rule works;
// SR rules round D up to whole rules ([Map.Points] reports the number drawn). A decomposable kernel needs a
// shift-invariant k₀ (kernel.Spectral), whose spectral law the frequencies follow; the curl-free, divergence-free
// and Helmholtz kernels use the law of the Gaussian of their σ, ω = z/σ for the rule's points z. The frequencies are
// drawn by feature.DrawSpectral from feature.NewSource(seed), as package feature draws them: an ORFF map and a
// scalar feature map of that law with the same rule and seed have the same frequencies, bit for bit.
//
// It returns an error for a nil kernel or rule, a kernel not made by this package's constructors, d < 1 (d < 2 for
// div-free and Helmholtz kernels), D < 1, more than 2^31 values in the points and their B(ω) (D·d·p'), and the
// rule's errors.
func New(k *Kernel, r rule.Rule, d, D int, seed uint64) (*Map, error) {
	if k == nil || r == nil || isNilPtr(r) {
		return nil, errors.New("ovk.New: kernel and rule are required")
	}
	p, err := k.Outputs(d)
	if err != nil {
		return nil, fmt.Errorf("ovk.New: %w", err)
	}
	if D < 1 {
		return nil, fmt.Errorf("ovk.New: number of points D must be at least 1, got %d", D)
	}
	var law kernel.Law
	if k.kind == Decomposable {
		s, ok := k.k0.(kernel.Spectral)
		if !ok {
			return nil, fmt.Errorf("ovk.New: ORFF needs a shift-invariant scalar kernel, %s has no spectral law", k.k0.Name())
		}
		law = s.Law()
	} else {
		law = kernel.Gaussian{S: k.sigma}.Law()
	}
	pr := k.pr
	switch k.kind {
	case CurlFree:
		pr = 1
	case DivFree:
		pr = d - 1
	case Helmholtz:
		pr = d
	}
	if v, ok := size.Mul(D, d, pr); !ok || v > 1<<31 {
		return nil, fmt.Errorf("ovk.New: %d points × %d × %d would need too much memory", D, d, pr)
	}
	pts, s, err := feature.DrawSpectral(law, r, d, D, feature.NewSource(seed))
	if err != nil {
		return nil, fmt.Errorf("ORFF map %s/%s: %w", k.Name(), r.Name(), err)
	}
	n := pts.Len()
	m := &Map{k: k, r: r, d: d, p: p, pr: pr, n: n, seed: seed}
	m.points, m.scale = pts, s
	m.w = pts.Weights()
	m.amp = make([]float64, n)
	for j, w := range m.w {
		m.amp[j] = math.Sqrt(w)
	}
	m.zero = pts.Zero()
	if k.kind == Decomposable {
		m.bs, m.bstride = k.b, 0
		m.ab = make([]float64, p*p)
		for a := 0; a < p; a++ {
			for b := 0; b < p; b++ {
				var v float64
				for c := 0; c < pr; c++ {
					v += k.b[a*pr+c] * k.b[b*pr+c]
				}
				m.ab[a*p+b] = v
			}
		}
		return m, nil
	}
	m.omegaOnce.Do(m.computeOmega)
	m.bstride = p * pr
	m.bs = make([]float64, n*m.bstride)
	for j := 0; j < n; j++ {
		fieldB(m.bs[j*m.bstride:(j+1)*m.bstride], m.omega[j*d:(j+1)*d], k.kind, k.wc)
	}
	return m, nil
}

// computeOmega materializes the frequencies ω_j (D×d).
func (m *Map) computeOmega() {
	W := rule.Dense(m.points)
	if m.scale != nil {
		for j, s := range m.scale {
			row := W[j*m.d : (j+1)*m.d]
			for i := range row {
				row[i] *= s
			}
		}
	}
	m.omega = W
}

// fieldB writes B(ω) (d×p', row-major) for the curl-free (p' = 1: B = ω), divergence-free (p' = d−1:
// B = ‖ω‖·Hᵀ) and Helmholtz (p' = d: B = ‖ω‖·P·diag(√w, √(1−w), …)) kernels. P = I − τuuᵀ, u = ω + s‖ω‖e₁,
// s = sign(ω₁), τ = 1/(‖ω‖(‖ω‖+|ω₁|)), is the Householder reflection with P·e₁ = −s·ω/‖ω‖; its other columns are an
// orthonormal basis H ᵀ of ω^⊥. So BBᵀ = ‖ω‖²(I − ω̂ω̂ᵀ) for div-free, with one reflection and no SVD.
func fieldB(dst, omega []float64, kind Kind, wc float64) {
	d := len(omega)
	if kind == CurlFree {
		copy(dst, omega)
		return
	}
	var r2 float64
	for _, v := range omega {
		r2 += v * v
	}
	clear(dst)
	if r2 == 0 {
		return // A(0) = 0
	}
	r := math.Sqrt(r2)
	s := 1.0
	if omega[0] < 0 {
		s = -1
	}
	tau := 1 / (r * (r + math.Abs(omega[0])))
	u0 := omega[0] + s*r
	u := func(i int) float64 {
		if i == 0 {
			return u0
		}
		return omega[i]
	}
	pcol := func(a, c int) float64 { // P[a,c]
		v := -tau * u(a) * u(c)
		if a == c {
			v++
		}
		return v
	}
	switch kind {
	case DivFree:
		for a := 0; a < d; a++ {
			for c := 1; c < d; c++ {
				dst[a*(d-1)+c-1] = r * pcol(a, c)
			}
		}
	case Helmholtz:
		sc, sd := math.Sqrt(wc)*r, math.Sqrt(1-wc)*r
		for a := 0; a < d; a++ {
			dst[a*d] = sc * pcol(a, 0)
			for c := 1; c < d; c++ {
				dst[a*d+c] = sd * pcol(a, c)
			}
		}
	}
}

// The accessors below describe an empty map (zero values, nil) for a nil *Map or one not made by [New] or
// [FromParams]; the methods that compute return an error for such a map.

// Dim is the input dimension d.
func (m *Map) Dim() int {
	if m == nil {
		return 0
	}
	return m.d
}

// Outputs is the output dimension p.
func (m *Map) Outputs() int {
	if m == nil {
		return 0
	}
	return m.p
}

// Rank is p', the number of columns of B(ω): rank A for a decomposable kernel, 1 for curl-free, d−1 for
// divergence-free, d for Helmholtz.
func (m *Map) Rank() int {
	if m == nil {
		return 0
	}
	return m.pr
}

// Points is the number of points (frequencies) D actually drawn.
func (m *Map) Points() int {
	if m == nil {
		return 0
	}
	return m.n
}

// Features is the number of features F = 2·D·p' (the length of θ; cos and sin for each of the D points).
func (m *Map) Features() int {
	if m == nil {
		return 0
	}
	return 2 * m.n * m.pr
}

// ScalarFeatures is 2D, the number of columns of the scalar cos/sin features z(x) (see [Map.ScalarBlock]).
func (m *Map) ScalarFeatures() int {
	if m == nil {
		return 0
	}
	return 2 * m.n
}

// Offset is the zero-node weight c in K̃(x,z) = Φ̃(x)ᵀΦ̃(z) + c·A for a decomposable kernel (w₀ of an SR rule, 0 for
// other rules); it is always 0 for curl-free, divergence-free and Helmholtz kernels, where A(0) = 0.
func (m *Map) Offset() float64 {
	if m != nil && m.k != nil && m.k.kind == Decomposable {
		return m.zero
	}
	return 0
}

// Kernel returns the operator-valued kernel being approximated.
func (m *Map) Kernel() *Kernel {
	if m == nil {
		return nil
	}
	return m.k
}

// Rule returns the rule the points were drawn from.
func (m *Map) Rule() rule.Rule {
	if m == nil {
		return nil
	}
	return m.r
}

// Seed returns the seed the map was drawn from.
func (m *Map) Seed() uint64 {
	if m == nil {
		return 0
	}
	return m.seed
}

// check returns an error, prefixed with where, if m is nil or was not made by New or FromParams.
func (m *Map) check(where string) error {
	if m == nil {
		return fmt.Errorf("%s: nil ORFF map", where)
	}
	if m.k == nil || m.points == nil || m.d < 1 || m.p < 1 || m.pr < 1 {
		return fmt.Errorf("%s: the ORFF map was not made by ovk.New or ovk.FromParams", where)
	}
	return nil
}

// project computes the scaled projections ω_jᵀx_r into proj (rows×D), reusing rule.Points.Project.
func (m *Map) project(proj, x []float64, rows int) []float64 {
	n := m.n
	if len(proj) < rows*n {
		proj = make([]float64, rows*n)
	}
	proj = proj[:rows*n]
	m.points.Project(proj, x, rows)
	if m.scale != nil {
		for r := 0; r < rows; r++ {
			t := proj[r*n : (r+1)*n]
			for j := range t {
				t[j] *= m.scale[j]
			}
		}
	}
	return proj
}

// scalar writes z = [√w_j cos t_j]_j ‖ [√w_j sin t_j]_j (length 2D) for the projections t (length D).
func (m *Map) scalar(z, t []float64) {
	n := m.n
	fastmath.SinCosWeighted(z[n:2*n], z[:n], t[:n], m.amp[:n]) // as package feature does, bit for bit
}

// ScalarBlock writes the scalar cos/sin features z(x_r) (rows × 2D, row-major; identical to package feature's map for
// the same kernel, rule and seed when the kernel is decomposable) for the rows x (rows×d). proj is scratch of length
// ≥ rows·D (nil to allocate). Inputs are not validated (it panics for a nil map or a slice too short). For a
// decomposable kernel the ORFF model is
// f̃(x) = B·Θᵀ·z(x) with B = Kernel().B().
func (m *Map) ScalarBlock(dst, x []float64, rows int, proj []float64) {
	proj = m.project(proj, x, rows)
	n2 := 2 * m.n
	for r := 0; r < rows; r++ {
		m.scalar(dst[r*n2:(r+1)*n2], proj[r*m.n:(r+1)*m.n])
	}
}

// TransformBlock writes Φ̃(x_r)ᵀ (p × F, row-major) for each row x_r of x (rows×d) into dst, stacked: dst is the
// (rows·p)×F design matrix whose row r·p+a gives output a of row r, f̃(x_r)_a = dst[r·p+a,·]·θ (see [Map] for the
// column layout). proj is scratch of length ≥ rows·D (nil to allocate). Inputs are not validated (it panics for a nil
// map or a slice too short). It runs on the calling goroutine; [Map.TransformRows] splits the work over all cores.
func (m *Map) TransformBlock(dst, x []float64, rows int, proj []float64) {
	proj = m.project(proj, x, rows)
	n, p, pr := m.n, m.p, m.pr
	F := 2 * n * pr
	z := make([]float64, 2*n)
	for r := 0; r < rows; r++ {
		m.scalar(z, proj[r*n:(r+1)*n])
		out := dst[r*p*F : (r+1)*p*F]
		zc, zs := z[:n], z[n:2*n]
		for a := 0; a < p; a++ {
			row := out[a*F : (a+1)*F]
			rc, rs := row[:n*pr], row[n*pr:2*n*pr]
			if pr == 1 { // curl-free, or a rank-one A: one column of B per point
				for j, c := range zc {
					b := m.bs[j*m.bstride+a]
					rc[j] = c * b
					rs[j] = zs[j] * b
				}
				continue
			}
			for j, c := range zc {
				b := m.bs[j*m.bstride+a*pr : j*m.bstride+(a+1)*pr]
				oc, os := rc[j*pr:(j+1)*pr], rs[j*pr:(j+1)*pr]
				sj := zs[j]
				for k, bk := range b {
					oc[k] = c * bk
					os[k] = sj * bk
				}
			}
		}
	}
}

// blockRows is the number of rows one goroutine maps at a time.
const blockRows = 64

// adjointChunks is the number of partial sums Adjoint keeps (rows are split into this many consecutive chunks).
const adjointChunks = 16

// checkX validates the map and the rows x (rows×d); the error names the method where.
func (m *Map) checkX(where string, x []float64, rows int) error {
	if err := m.check(where); err != nil {
		return err
	}
	if rows < 0 {
		return fmt.Errorf("ORFF map: negative number of rows %d", rows)
	}
	if !size.Is(len(x), rows, m.d) {
		return fmt.Errorf("ORFF map: input has %d values, want %d rows × %d columns", len(x), rows, m.d)
	}
	if i := finite.Index(x); i >= 0 {
		return fmt.Errorf("ORFF map: row %d, column %d is %v", i/m.d+1, i%m.d+1, x[i])
	}
	return nil
}

// forBlocks runs work on blocks of blockRows rows in parallel, each with projection scratch for its rows (no more
// than the call has: a single row's prediction needs one row of it, not blockRows).
func (m *Map) forBlocks(rows int, work func(r0, nr int, proj []float64)) {
	blocks := (rows + blockRows - 1) / blockRows
	per := min(blockRows, rows)
	// Scratch per goroutine of this call (a sync.Pool made per call would stay reachable until two collections
	// later, keeping the scratch of every call in a loop alive).
	scratch := make([][]float64, runtime.GOMAXPROCS(0))
	parallel.ForWorker(blocks, len(scratch), func(w, b int) {
		if scratch[w] == nil {
			scratch[w] = make([]float64, per*m.n)
		}
		r0 := b * blockRows
		work(r0, min(blockRows, rows-r0), scratch[w])
	})
}

// TransformRows writes the (n·p)×F design matrix of the n rows of x (n×d, row-major) into dst (see
// [Map.TransformBlock]) using all cores. It returns an error if a length does not match or an input is not finite.
func (m *Map) TransformRows(dst, x []float64, n int) error {
	if err := m.checkX("ORFF map: TransformRows", x, n); err != nil {
		return err
	}
	pf := m.p * m.Features()
	if !size.Is(len(dst), n, pf) {
		return fmt.Errorf("ORFF map: output has %d values, want %d rows × %d outputs × %d features", len(dst), n, m.p, m.Features())
	}
	m.forBlocks(n, func(r0, nr int, proj []float64) {
		m.TransformBlock(dst[r0*pf:(r0+nr)*pf], x[r0*m.d:(r0+nr)*m.d], nr, proj)
	})
	return nil
}

// Transform writes the (n·p)×F design matrix of the rows of x (n×d) into dst, which must be (n·p)×F or empty (to be
// allocated). It returns an error for a nil map, destination or input, an input or destination whose size overflows
// int or exceeds the limit of one array (1 TiB), and as TransformRows.
func (m *Map) Transform(dst *mat.Dense, x mat.Matrix) error {
	if err := m.check("ORFF map: Transform"); err != nil {
		return err
	}
	if dst == nil {
		return errors.New("ORFF map: Transform: nil destination")
	}
	if x == nil || isNilPtr(x) {
		return errors.New("ORFF map: Transform: nil input matrix")
	}
	n, d := x.Dims()
	if d != m.d {
		return fmt.Errorf("ORFF map: input has %d columns, map was drawn for %d", d, m.d)
	}
	if _, err := size.Floats("ORFF map: Transform: input", n, d); err != nil {
		return err
	}
	F := m.Features()
	if _, err := size.Floats("ORFF map: Transform: destination", n, m.p, F); err != nil {
		return err
	}
	if dst.IsEmpty() {
		dst.ReuseAs(n*m.p, F)
	}
	if r, c := dst.Dims(); r != n*m.p || c != F {
		return fmt.Errorf("ORFF map: destination is %d×%d, want %d×%d", r, c, n*m.p, F)
	}
	xd := mat.DenseCopyOf(x).RawMatrix().Data
	if raw := dst.RawMatrix(); raw.Stride == F {
		return m.TransformRows(raw.Data[:n*m.p*F], xd, n)
	}
	out := make([]float64, n*m.p*F)
	if err := m.TransformRows(out, xd, n); err != nil {
		return err
	}
	dst.Copy(mat.NewDense(n*m.p, F, out))
	return nil
}

// Phi returns Φ̃(x) as an F×p matrix (the paper's orientation: f̃(x) = Φ̃(x)ᵀθ).
func (m *Map) Phi(x []float64) (*mat.Dense, error) {
	if err := m.checkX("ORFF map: Phi", x, 1); err != nil {
		return nil, err
	}
	F := m.Features()
	t := make([]float64, m.p*F)
	m.TransformBlock(t, x, 1, nil)
	return mat.DenseCopyOf(mat.NewDense(m.p, F, t).T()), nil
}

// Estimate returns the approximation K̃(x,z) = Σ_j w_j cos(ω_jᵀ(x−z))·A(ω_j) + w₀·A(0) (p×p; ORFF paper Eq. (7) with
// the rule's weights), equal to Φ̃(x)ᵀΦ̃(z) + Offset()·A. It costs O(D·d²) (O(D·d) for a decomposable kernel),
// without computing features.
func (m *Map) Estimate(x, z []float64) (*mat.SymDense, error) {
	if err := m.checkX("ORFF map: Estimate", x, 1); err != nil {
		return nil, err
	}
	if err := m.checkX("ORFF map: Estimate", z, 1); err != nil {
		return nil, err
	}
	out := make([]float64, m.p*m.p)
	delta := make([]float64, m.d)
	for i := range delta {
		delta[i] = x[i] - z[i]
	}
	m.estimate(out, delta, nil)
	return mat.NewSymDense(m.p, out), nil
}

// estimate writes K̃ for the difference delta into dst (p×p). proj is scratch of length ≥ D (nil to allocate).
func (m *Map) estimate(dst, delta, proj []float64) {
	t := m.project(proj, delta, 1)
	if m.k.kind == Decomposable {
		c := m.zero
		for j, v := range t {
			c += m.w[j] * math.Cos(v)
		}
		for i, v := range m.ab {
			dst[i] = c * v
		}
		return
	}
	m.omegaOnce.Do(m.computeOmega) // a map from FromParams computes its frequencies when first needed
	d := m.d
	wc, wd := m.k.wc, 1-m.k.wc
	clear(dst[:d*d])
	var tr float64
	for j, v := range t {
		c := m.w[j] * math.Cos(v)
		om := m.omega[j*d : (j+1)*d]
		var r2 float64
		for a, oa := range om {
			r2 += oa * oa
			ca := c * oa
			row := dst[a*d : a*d+a+1]
			for b := range row {
				row[b] += ca * om[b]
			}
		}
		tr += c * r2
	}
	// K̃ = wd·(Σc_j‖ω_j‖²)·I + (wc − wd)·Σ c_j ω_jω_jᵀ; only the lower triangle was accumulated.
	f := wc - wd
	for a := 0; a < d; a++ {
		for b := 0; b < a; b++ {
			dst[a*d+b] *= f
			dst[b*d+a] = dst[a*d+b]
		}
		dst[a*d+a] = f*dst[a*d+a] + wd*tr
	}
}
