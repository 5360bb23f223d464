package feature

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/fastmath"
	"github.com/rffkit/rff/internal/finite"
	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// Form selects the nonlinearity of a shift-invariant kernel's map.
type Form int

const (
	// CosSin is [√w cos(ωᵀx), √w sin(ωᵀx)]: D points, 2D columns (the default, lower variance).
	CosSin Form = iota
	// CosPhase is √(2w) cos(ωᵀx + b), b ~ U[0, 2π): D points, D columns.
	CosPhase
)

// Map is a feature map ψ: R^d → R^F with k(x,y) ≈ ⟨ψ(x),ψ(y)⟩ + Offset().
type Map struct {
	kern   kernel.Kernel
	rule   rule.Rule
	form   Form
	d      int
	points rule.Points
	scale  []float64 // per-point frequency multiplier (shift-invariant kernels without a coordinate transform)
	amp    []float64 // per-point amplitude √(c·w_j)
	phase  []float64 // CosPhase only
	offset float64
	phi    func(float64) float64 // pointwise kernels only
	cols   int
	seed   uint64
	freqs  func() []float64 // Frequencies, computed once (GradientProduct)
}

// Option configures New.
type Option func(*Map)

// WithForm selects the cos/sin (default) or cos+phase form for shift-invariant kernels.
func WithForm(f Form) Option { return func(m *Map) { m.form = f } }

// New draws a feature map for kernel k with D points of rule r on inputs of dimension d, from seed.
// Shift-invariant kernels give 2D columns (cos/sin) or D (cos+phase); pointwise kernels give D columns.
// SR rules round D up to whole rules: Points() reports the number drawn.
//
// It returns an error for a nil kernel, rule or option, d < 1, D < 1, more than 2^31 point coordinates (D·d), a form
// other than CosSin and CosPhase, a shift-invariant kernel whose bandwidth is not positive and finite, and the
// errors of the rule.
func New(k kernel.Kernel, r rule.Rule, d, D int, seed uint64, opts ...Option) (*Map, error) {
	if isNil(k) || isNil(r) {
		return nil, errors.New("feature.New: kernel and rule are required")
	}
	if err := checkSizes("feature.New", d, D); err != nil {
		return nil, err
	}
	m := &Map{kern: k, rule: r, d: d, seed: seed}
	m.freqs = sync.OnceValue(m.Frequencies)
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("feature.New: option %d is nil", i+1)
		}
		o(m)
	}
	if m.form != CosSin && m.form != CosPhase {
		return nil, fmt.Errorf("feature.New: unknown form %d (want CosSin or CosPhase)", int(m.form))
	}
	rng := NewSource(seed)
	switch kk := k.(type) {
	case kernel.Spectral:
		p, s, err := DrawSpectral(kk.Law(), r, d, D, rng)
		if err != nil {
			return nil, fmt.Errorf("feature map %s/%s: %w", k.Name(), r.Name(), err)
		}
		n := p.Len()
		m.points, m.scale = p, s
		w := p.Weights()
		m.amp = make([]float64, n)
		f := 1.0
		if m.form == CosPhase {
			f = 2
			m.phase = make([]float64, n)
			for j := range m.phase {
				m.phase[j] = 2 * math.Pi * rng.Float64()
			}
			m.cols = n
		} else {
			m.cols = 2 * n
		}
		for j := range m.amp {
			m.amp[j] = math.Sqrt(f * w[j])
		}
		m.offset = p.Zero()
	case kernel.Pointwise:
		p, err := r.Draw(d, D, false, rng)
		if err != nil {
			return nil, fmt.Errorf("feature map %s/%s: %w", k.Name(), r.Name(), err)
		}
		m.points, m.phi = p, kk.Phi
		w := p.Weights()
		m.amp = make([]float64, p.Len())
		for j := range m.amp {
			m.amp[j] = math.Sqrt(kk.Factor() * w[j])
		}
		phi0 := kk.Phi(0)
		m.offset = kk.Factor() * p.Zero() * phi0 * phi0
		m.cols = p.Len()
	default:
		return nil, fmt.Errorf("feature map: kernel %s has neither a spectral law nor a pointwise form", k.Name())
	}
	return m, nil
}

// The accessors below describe an empty map (zero values, nil) for a nil *Map or a Map not made by [New] or
// [FromParams]; the methods that compute return an error for such a map.

// Dim is the input dimension d.
func (m *Map) Dim() int {
	if m == nil {
		return 0
	}
	return m.d
}

// Points is the number of points (frequencies) D actually drawn.
func (m *Map) Points() int {
	if m == nil || m.points == nil {
		return 0
	}
	return m.points.Len()
}

// Features is the number of output columns (2D for cos/sin, D otherwise).
func (m *Map) Features() int {
	if m == nil {
		return 0
	}
	return m.cols
}

// Offset is the constant c in k̂(x,y) = ⟨ψ(x),ψ(y)⟩ + c (the SR zero node; 0 for rules without one).
func (m *Map) Offset() float64 {
	if m == nil {
		return 0
	}
	return m.offset
}

// Kernel returns the kernel being approximated.
func (m *Map) Kernel() kernel.Kernel {
	if m == nil {
		return nil
	}
	return m.kern
}

// Rule returns the rule the points were drawn from.
func (m *Map) Rule() rule.Rule {
	if m == nil {
		return nil
	}
	return m.rule
}

// Seed returns the seed the map was drawn from.
func (m *Map) Seed() uint64 {
	if m == nil {
		return 0
	}
	return m.seed
}

// Form returns the nonlinearity form of a shift-invariant map.
func (m *Map) Form() Form {
	if m == nil {
		return CosSin
	}
	return m.form
}

// check returns an error, prefixed with where, if m is nil or was not made by New or FromParams.
func (m *Map) check(where string) error {
	if m == nil {
		return fmt.Errorf("%s: nil feature map", where)
	}
	if m.points == nil || m.kern == nil {
		return fmt.Errorf("%s: the feature map was not made by feature.New or feature.FromParams", where)
	}
	return nil
}

// Estimate returns k̂(x,y) = ⟨zx, zy⟩ + Offset() for two feature vectors of length Features(). It returns an error
// for a nil map or vectors of another length.
func (m *Map) Estimate(zx, zy []float64) (float64, error) {
	if err := m.check("feature map: Estimate"); err != nil {
		return 0, err
	}
	if len(zx) != m.cols || len(zy) != m.cols {
		return 0, fmt.Errorf("feature map: Estimate: feature vectors have %d and %d values, want %d features",
			len(zx), len(zy), m.cols)
	}
	s := m.offset
	for i, v := range zx {
		s += v * zy[i]
	}
	return s, nil
}

// blockRows is the number of rows one goroutine maps at a time.
const blockRows = 256

// TransformBlock maps rows x (rows×d, row-major) into dst (rows×Features()) on the calling goroutine.
// proj is scratch of length ≥ rows×Points() (nil to allocate). It is ProjectBlock followed by ActivateBlock. This
// is the unchecked hot path: it panics if m is nil or a slice is too short ([Map.TransformRows] checks).
func (m *Map) TransformBlock(dst, x []float64, rows int, proj []float64) {
	n := m.points.Len()
	if len(proj) < rows*n {
		proj = make([]float64, rows*n)
	}
	proj = proj[:rows*n]
	m.ProjectBlock(proj, x, rows)
	m.ActivateBlock(dst, proj, rows)
}

// ProjectBlock sets proj (rows×Points(), row-major) to the projections ⟨w_j, x⟩ of the rows x (rows×d), scaled
// by the rule's per-point scale when it has one: the arguments of the cos/sin (or φ) of the features. It holds
// Points() values per row against Features() = 2·Points() for cos/sin maps, which makes it the compact form in
// which the mixed-precision ridge solver keeps the features of a data set. Inputs are not validated: it panics if m
// is nil or a slice is too short.
func (m *Map) ProjectBlock(proj, x []float64, rows int) {
	n := m.points.Len()
	proj = proj[:rows*n]
	// In blocks of blockRows rows, as TransformRows hands them to the cores: a BLAS may compute a row of a product
	// of 256 rows and of 1000 rows in different orders (OpenBLAS's AVX-512 kernels do), and one call on many rows
	// must give the bits TransformRows gives on any number of cores.
	for r0 := 0; r0 < rows; r0 += blockRows {
		r := min(blockRows, rows-r0)
		m.points.Project(proj[r0*n:(r0+r)*n], x[r0*m.d:(r0+r)*m.d], r)
	}
	if m.scale != nil {
		s := m.scale[:n]
		for r := range rows {
			p := proj[r*n : (r+1)*n]
			for j := range p {
				p[j] *= s[j]
			}
		}
	}
}

// ActivateBlock sets dst (rows×Features()) to the features of rows whose projections ProjectBlock computed in proj
// (rows×Points()); proj is not modified. ProjectBlock then ActivateBlock gives the bits of TransformBlock. Inputs
// are not validated: it panics if m is nil or a slice is too short.
func (m *Map) ActivateBlock(dst, proj []float64, rows int) {
	n := m.points.Len()
	amp := m.amp[:n]
	for r := range rows {
		p := proj[r*n : (r+1)*n]
		out := dst[r*m.cols : (r+1)*m.cols]
		switch {
		case m.phi != nil:
			for j, t := range p {
				out[j] = amp[j] * m.phi(t)
			}
		case m.form == CosPhase:
			ph := m.phase[:n]
			for j, t := range p {
				out[j] = amp[j] * math.Cos(t+ph[j])
			}
		default:
			fastmath.SinCosWeighted(out[n:2*n], out[:n], p, amp)
		}
	}
}

// TransformRows maps the n rows of x (n×d, row-major) into dst (n×Features(), row-major) using all cores.
// It returns an error for a nil map, n < 0, lengths that do not match or an input that is NaN or infinite.
func (m *Map) TransformRows(dst, x []float64, n int) error {
	if err := m.check("feature map: TransformRows"); err != nil {
		return err
	}
	if n < 0 {
		return fmt.Errorf("feature map: negative number of rows %d", n)
	}
	if !size.Is(len(x), n, m.d) {
		return fmt.Errorf("feature map: input has %d values, want %d rows × %d columns", len(x), n, m.d)
	}
	if !size.Is(len(dst), n, m.cols) {
		return fmt.Errorf("feature map: output has %d values, want %d rows × %d features", len(dst), n, m.cols)
	}
	if i := finite.Index(x); i >= 0 {
		return fmt.Errorf("feature map: row %d, column %d is %v", i/m.d+1, i%m.d+1, x[i])
	}
	blocks := (n + blockRows - 1) / blockRows
	// Scratch per goroutine of this call, garbage when it returns (a sync.Pool made per call stays reachable from
	// the runtime's pools until two collections later, so calls in a loop would keep all their scratch alive).
	scratch := make([][]float64, runtime.GOMAXPROCS(0))
	parallel.ForWorker(blocks, len(scratch), func(w, b int) {
		if scratch[w] == nil {
			scratch[w] = make([]float64, blockRows*m.points.Len())
		}
		r0 := b * blockRows
		rows := min(blockRows, n-r0)
		m.TransformBlock(dst[r0*m.cols:(r0+rows)*m.cols], x[r0*m.d:(r0+rows)*m.d], rows, scratch[w])
	})
	return nil
}

// Transform maps the rows of x (n×d) into dst, which must be n×Features() (or empty, to be allocated). It returns
// an error for a nil map, destination or input, an input or destination whose size overflows int or exceeds the
// limit of one array (1 TiB), and as TransformRows.
func (m *Map) Transform(dst *mat.Dense, x mat.Matrix) error {
	if err := m.check("feature map: Transform"); err != nil {
		return err
	}
	if dst == nil {
		return errors.New("feature map: Transform: nil destination")
	}
	if isNil(x) {
		return errors.New("feature map: Transform: nil input matrix")
	}
	n, d := x.Dims()
	if d != m.d {
		return fmt.Errorf("feature map: input has %d columns, map was drawn for %d", d, m.d)
	}
	if _, err := size.Floats("feature map: Transform: input", n, d); err != nil {
		return err
	}
	if _, err := size.Floats("feature map: Transform: destination", n, m.cols); err != nil {
		return err
	}
	if dst.IsEmpty() {
		dst.ReuseAs(n, m.cols)
	}
	if r, c := dst.Dims(); r != n || c != m.cols {
		return fmt.Errorf("feature map: destination is %d×%d, want %d×%d", r, c, n, m.cols)
	}
	xd := mat.DenseCopyOf(x).RawMatrix()
	raw := dst.RawMatrix()
	if raw.Stride != m.cols {
		out := make([]float64, n*m.cols)
		if err := m.TransformRows(out, xd.Data, n); err != nil {
			return err
		}
		dst.Copy(mat.NewDense(n, m.cols, out))
		return nil
	}
	return m.TransformRows(raw.Data[:n*m.cols], xd.Data, n)
}

// maxCoords is the largest number of point coordinates D·d a map is drawn with (the limit of package rule).
const maxCoords = 1 << 31

// checkSizes validates the dimension d and number of points D of a map to be drawn; where prefixes the message.
func checkSizes(where string, d, D int) error {
	if d < 1 {
		return fmt.Errorf("%s: input dimension must be at least 1, got %d", where, d)
	}
	if D < 1 {
		return fmt.Errorf("%s: number of points D must be at least 1, got %d", where, D)
	}
	if n, ok := size.Mul(D, d); !ok || n > maxCoords {
		return fmt.Errorf("%s: %d points in dimension %d are too many (at most 2^31 coordinates)", where, D, d)
	}
	return nil
}

// isNil reports whether v is nil or a nil pointer (an interface holding one).
func isNil(v any) bool {
	if v == nil {
		return true
	}
	r := reflect.ValueOf(v)
	return r.Kind() == reflect.Pointer && r.IsNil()
}
