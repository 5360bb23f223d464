package ovk

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/kernel"
)

// Kind names a family of operator-valued kernels.
type Kind int

const (
	// Decomposable is K(x,z) = k₀(x−z)·A with a scalar kernel k₀ and a p×p PSD matrix A (ORFF paper, Def. 7).
	Decomposable Kind = iota
	// CurlFree is K(x,z) = −∇∇ᵀk₀(x−z) with a Gaussian k₀ (Def. 8); p = d.
	CurlFree
	// DivFree is K(x,z) = (∇∇ᵀ − ΔI)k₀(x−z) with a Gaussian k₀ (Def. 8); p = d.
	DivFree
	// Helmholtz is the convex combination w·K^curl + (1−w)·K^div, 0 < w < 1; p = d.
	Helmholtz
)

// String returns the command-line name of the kind.
func (k Kind) String() string {
	switch k {
	case Decomposable:
		return "decomposable"
	case CurlFree:
		return "curl-free"
	case DivFree:
		return "div-free"
	case Helmholtz:
		return "helmholtz"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Names lists the command-line names accepted by [Parse].
func Names() []string { return []string{"decomposable", "curl-free", "div-free", "helmholtz"} }

// Kernel is an exact shift-invariant operator-valued kernel K: R^d × R^d → R^{p×p}. It is immutable and safe for
// concurrent use. Build it with [NewDecomposable], [NewCurlFree], [NewDivFree], [NewHelmholtz] or [Parse].
type Kernel struct {
	kind  Kind
	k0    kernel.Kernel // scalar kernel (Gaussian{σ} for curl/div/Helmholtz)
	sigma float64       // Gaussian bandwidth (curl/div/Helmholtz; the k₀ bandwidth when it has one)
	wc    float64       // weight of the curl-free part (1 curl, 0 div, w Helmholtz)
	// Decomposable only.
	p  int       // outputs
	a  []float64 // A, p×p row-major
	b  []float64 // B, p×pr row-major, BBᵀ = A (null directions dropped)
	pr int       // p' = rank of A
}

// psdTol is the relative tolerance below which an eigenvalue of A counts as zero (and above whose negative a
// matrix is rejected as not PSD): rounding in a computed covariance perturbs eigenvalues by O(p·ε·‖A‖).
func psdTol(p int) float64 { return 100 * float64(p) * 2.220446049250313e-16 }

// NewDecomposable returns the decomposable kernel K(x,z) = k₀(x,z)·A. A must be symmetric positive semi-definite
// (eigenvalues ≥ −100·p·ε·‖A‖₂), finite and not zero. The feature factor B (p×p', BBᵀ = A) is computed once:
// diag(√A_ii) without the zero entries for a diagonal A, and V·Λ^{1/2} over the eigenpairs with λ above the same
// tolerance otherwise, so p' = rank A. Any scalar kernel works for exact evaluation; ORFF maps ([New]) need a
// shift-invariant one (kernel.Spectral). It returns an error for a p×p matrix A whose size overflows int or exceeds
// the limit of one array (1 TiB).
func NewDecomposable(k0 kernel.Kernel, A mat.Symmetric) (*Kernel, error) {
	if k0 == nil || isNilPtr(k0) {
		return nil, errors.New("ovk: decomposable kernel needs a scalar kernel k₀")
	}
	if A == nil || isNilPtr(A) {
		return nil, errors.New("ovk: decomposable kernel needs a matrix A")
	}
	p := A.SymmetricDim()
	if p < 1 {
		return nil, errors.New("ovk: decomposable kernel: A is empty")
	}
	if _, err := size.Floats("ovk: decomposable kernel: A", p, p); err != nil {
		return nil, err
	}
	a := make([]float64, p*p)
	diagonal := true
	var maxAbs float64
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			v := A.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("ovk: decomposable kernel: A[%d,%d] is %v", i, j, v)
			}
			a[i*p+j] = v
			maxAbs = max(maxAbs, math.Abs(v))
			if i != j && v != 0 {
				diagonal = false
			}
		}
	}
	if maxAbs == 0 {
		return nil, errors.New("ovk: decomposable kernel: A is zero")
	}
	k := &Kernel{kind: Decomposable, k0: k0, p: p, a: a}
	if s, ok := k0.(kernel.Spectral); ok {
		k.sigma = s.Sigma()
	}
	if diagonal {
		var cols []int
		for i := 0; i < p; i++ {
			v := a[i*p+i]
			if v < -psdTol(p)*maxAbs {
				return nil, fmt.Errorf("ovk: decomposable kernel: A is not positive semi-definite (A[%d,%d] = %v)", i, i, v)
			}
			if v > psdTol(p)*maxAbs {
				cols = append(cols, i)
			}
		}
		k.pr = len(cols)
		k.b = make([]float64, p*k.pr)
		for c, i := range cols {
			k.b[i*k.pr+c] = math.Sqrt(a[i*p+i])
		}
		return k, nil
	}
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(p, a), true) {
		return nil, errors.New("ovk: decomposable kernel: eigendecomposition of A failed")
	}
	vals := eig.Values(nil)
	var V mat.Dense
	eig.VectorsTo(&V)
	lmax := 0.0
	for _, v := range vals {
		lmax = max(lmax, math.Abs(v))
	}
	var cols []int
	for i, v := range vals {
		if v < -psdTol(p)*lmax {
			return nil, fmt.Errorf("ovk: decomposable kernel: A is not positive semi-definite (eigenvalue %v, largest %v)", v, lmax)
		}
		if v > psdTol(p)*lmax {
			cols = append(cols, i)
		}
	}
	if len(cols) == 0 {
		return nil, errors.New("ovk: decomposable kernel: A has rank 0")
	}
	// Largest eigenvalue first, so that column 0 of B is the leading direction.
	for l, r := 0, len(cols)-1; l < r; l, r = l+1, r-1 {
		cols[l], cols[r] = cols[r], cols[l]
	}
	k.pr = len(cols)
	k.b = make([]float64, p*k.pr)
	for c, j := range cols {
		s := math.Sqrt(vals[j])
		for i := 0; i < p; i++ {
			k.b[i*k.pr+c] = V.At(i, j) * s
		}
	}
	return k, nil
}

func checkSigma(sigma float64) error {
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return fmt.Errorf("ovk: bandwidth σ must be positive and finite, got %v", sigma)
	}
	return nil
}

// NewCurlFree returns the Gaussian curl-free kernel of bandwidth σ (docs/conventions.md §4):
//
//	K(x,z) = −∇∇ᵀk₀(δ) = (k₀(δ)/σ²)·(I − δδᵀ/σ²),   δ = x − z,  k₀(δ) = exp(−‖δ‖²/(2σ²)),
//
// with A(ω) = ωωᵀ, B(ω) = ω (p' = 1) and K(x,x) = I/σ².
func NewCurlFree(sigma float64) (*Kernel, error) {
	if err := checkSigma(sigma); err != nil {
		return nil, err
	}
	return &Kernel{kind: CurlFree, k0: kernel.Gaussian{S: sigma}, sigma: sigma, wc: 1}, nil
}

// NewDivFree returns the Gaussian divergence-free kernel of bandwidth σ (docs/conventions.md §4):
//
//	K(x,z) = (∇∇ᵀ − ΔI)k₀(δ) = (k₀(δ)/σ²)·(δδᵀ/σ² + (d − 1 − ‖δ‖²/σ²)·I),
//
// with A(ω) = ‖ω‖²I − ωωᵀ, B(ω) = ‖ω‖·Hᵀ (H a (d−1)×d orthonormal basis of ω^⊥, p' = d−1) and K(x,x) = (d−1)I/σ².
// It needs d ≥ 2.
func NewDivFree(sigma float64) (*Kernel, error) {
	if err := checkSigma(sigma); err != nil {
		return nil, err
	}
	return &Kernel{kind: DivFree, k0: kernel.Gaussian{S: sigma}, sigma: sigma, wc: 0}, nil
}

// NewHelmholtz returns w·K^curl + (1−w)·K^div for 0 ≤ w ≤ 1, both Gaussian of bandwidth σ. A convex combination of
// PSD kernels is PSD, and the pair can represent any field with a Helmholtz decomposition. w = 1 and w = 0 return
// the curl-free and divergence-free kernels themselves (Kind CurlFree or DivFree). For 0 < w < 1,
// A(ω) = w·ωωᵀ + (1−w)(‖ω‖²I − ωωᵀ) and B(ω) = ‖ω‖·P·diag(√w, √(1−w), …, √(1−w)) with P the Householder
// reflection mapping e₁ to ±ω/‖ω‖ (p' = d).
func NewHelmholtz(sigma, w float64) (*Kernel, error) {
	if err := checkSigma(sigma); err != nil {
		return nil, err
	}
	if !(w >= 0 && w <= 1) {
		return nil, fmt.Errorf("ovk: Helmholtz weight must be in [0, 1], got %v", w)
	}
	switch w {
	case 1:
		return NewCurlFree(sigma)
	case 0:
		return NewDivFree(sigma)
	}
	return &Kernel{kind: Helmholtz, k0: kernel.Gaussian{S: sigma}, sigma: sigma, wc: w}, nil
}

// Parse builds a kernel from its command-line name: "decomposable" (alias "dec"; Gaussian k₀ of bandwidth σ and the
// given A, which is then required), "curl-free" (alias "curl"), "div-free" (aliases "div", "divergence-free"), or
// "helmholtz[:w]" with the curl-free weight w (default 0.5). A is ignored by the other kinds.
func Parse(spec string, sigma float64, A mat.Symmetric) (*Kernel, error) {
	name, arg, hasArg := strings.Cut(strings.ToLower(strings.TrimSpace(spec)), ":")
	if hasArg && name != "helmholtz" {
		return nil, fmt.Errorf("ovk: kernel %q takes no parameter", spec)
	}
	switch name {
	case "decomposable", "dec":
		if err := checkSigma(sigma); err != nil {
			return nil, err
		}
		return NewDecomposable(kernel.Gaussian{S: sigma}, A)
	case "curl-free", "curl", "curlfree":
		return NewCurlFree(sigma)
	case "div-free", "div", "divergence-free", "divfree":
		return NewDivFree(sigma)
	case "helmholtz":
		w := 0.5
		if hasArg {
			v, err := strconv.ParseFloat(arg, 64)
			if err != nil {
				return nil, fmt.Errorf("ovk: Helmholtz weight %q is not a number", arg)
			}
			w = v
		}
		return NewHelmholtz(sigma, w)
	}
	return nil, fmt.Errorf("ovk: unknown operator-valued kernel %q (want one of %s)", spec, strings.Join(Names(), ", "))
}

// The accessors below describe an empty kernel (zero values, nil) for a nil *Kernel or one not made by the
// constructors; the methods that compute return an error for such a kernel ([Kernel.Outputs], [Kernel.At]) or, for
// the unchecked Eval, panic.

// Kind returns the kernel family.
func (k *Kernel) Kind() Kind {
	if k == nil {
		return Decomposable
	}
	return k.kind
}

// Name is the command-line name: "decomposable", "curl-free", "div-free" or "helmholtz:w".
func (k *Kernel) Name() string {
	if k == nil {
		return "<nil>"
	}
	if k.kind == Helmholtz {
		return "helmholtz:" + strconv.FormatFloat(k.wc, 'g', -1, 64)
	}
	return k.kind.String()
}

// Scalar returns k₀ (Gaussian{σ} for the curl-free, divergence-free and Helmholtz kernels).
func (k *Kernel) Scalar() kernel.Kernel {
	if k == nil {
		return nil
	}
	return k.k0
}

// Sigma returns the Gaussian bandwidth σ (for a decomposable kernel, k₀'s bandwidth, or 0 if it has none).
func (k *Kernel) Sigma() float64 {
	if k == nil {
		return 0
	}
	return k.sigma
}

// Weight returns the weight of the curl-free part: 1 for CurlFree, 0 for DivFree, w for Helmholtz, NaN for
// Decomposable.
func (k *Kernel) Weight() float64 {
	if k == nil || k.kind == Decomposable {
		return math.NaN()
	}
	return k.wc
}

// A returns a copy of the matrix A of a decomposable kernel, or nil for the other kinds.
func (k *Kernel) A() *mat.SymDense {
	if k.check() != nil || k.kind != Decomposable {
		return nil
	}
	return mat.NewSymDense(k.p, append([]float64(nil), k.a...))
}

// B returns a copy of the p×p' factor B of a decomposable kernel (BBᵀ = A up to the dropped null directions), or
// nil for the other kinds, whose B(ω) depends on the frequency.
func (k *Kernel) B() *mat.Dense {
	if k.check() != nil || k.kind != Decomposable {
		return nil
	}
	return mat.NewDense(k.p, k.pr, append([]float64(nil), k.b...))
}

// Outputs returns the output dimension p for inputs of dimension d: the size of A for a decomposable kernel, d for
// the others. It returns an error if the kernel cannot be used in dimension d (d < 1; d < 2 for div-free and
// Helmholtz kernels, whose divergence-free part is zero on the line), and for a nil kernel or one not made by the
// constructors.
func (k *Kernel) Outputs(d int) (int, error) {
	if err := k.check(); err != nil {
		return 0, err
	}
	if d < 1 {
		return 0, fmt.Errorf("ovk: input dimension must be at least 1, got %d", d)
	}
	switch k.kind {
	case Decomposable:
		return k.p, nil
	case DivFree, Helmholtz:
		if d < 2 {
			return 0, fmt.Errorf("ovk: %s kernel needs input dimension d ≥ 2, got %d", k.Name(), d)
		}
	}
	return d, nil
}

// Eval writes K(x,z) into dst (p×p, row-major), with p = Outputs(len(x)). Inputs are not validated (see [Kernel.At]
// for a checked version); x and z must have the same length. It panics for a nil kernel, one not made by the
// constructors (the zero Kernel), or a slice too short.
func (k *Kernel) Eval(dst, x, z []float64) { k.eval(dst, k.outputs(len(x)), x, z) }

func (k *Kernel) outputs(d int) int {
	if k.kind == Decomposable {
		return k.p
	}
	return d
}

// eval writes K(x,z) into the p×p block of dst with row stride ld.
func (k *Kernel) eval(dst []float64, ld int, x, z []float64) {
	if k.kind == Decomposable {
		p := k.p
		v := k.k0.Eval(x, z)
		for i := 0; i < p; i++ {
			row := dst[i*ld : i*ld+p]
			ai := k.a[i*p : (i+1)*p]
			for j := range row {
				row[j] = v * ai[j]
			}
		}
		return
	}
	d := len(x)
	s2 := k.sigma * k.sigma
	var r2 float64
	z = z[:d]
	for i, xi := range x {
		t := xi - z[i]
		r2 += t * t
	}
	f := math.Exp(-r2/(2*s2)) / s2
	wc, wd := k.wc, 1-k.wc
	// K = f·[(wc + wd(d−1−r²/σ²))I + (wd − wc)δδᵀ/σ²]
	diag := f * (wc + wd*(float64(d-1)-r2/s2))
	off := f * (wd - wc) / s2
	for i := 0; i < d; i++ {
		row := dst[i*ld : i*ld+d]
		di := x[i] - z[i]
		for j := range row {
			row[j] = off*(di*(x[j]-z[j])) + 0 // δ_iδ_j first: exact symmetry; + 0 turns −0 into 0
		}
		row[i] += diag
	}
}

// At returns K(x,z) as a p×p symmetric matrix, or an error if the lengths differ or the kernel cannot be used in
// dimension len(x).
func (k *Kernel) At(x, z []float64) (*mat.SymDense, error) {
	if len(x) != len(z) {
		return nil, fmt.Errorf("ovk: points have %d and %d coordinates", len(x), len(z))
	}
	p, err := k.Outputs(len(x))
	if err != nil {
		return nil, err
	}
	out := make([]float64, p*p)
	k.eval(out, p, x, z)
	return mat.NewSymDense(p, out), nil
}

// Gram fills dst ((n·p)×(m·p), row-major) with the block Gram matrix of X (n×d, row-major) against Z (m×d):
// dst[(i·p+a)·m·p + j·p + b] = K(x_i, z_j)[a,b], so block (i,j) is K(x_i, z_j). With Z = X it is the Np×Np Gram
// of vector-valued kernel ridge regression, PSD for every kernel here. Rows are computed in parallel. It returns an
// error if a length does not match.
func Gram(dst []float64, k *Kernel, X []float64, n int, Z []float64, m int, d int) error {
	if k == nil {
		return errors.New("ovk.Gram: nil kernel")
	}
	p, err := k.Outputs(d)
	if err != nil {
		return fmt.Errorf("ovk.Gram: %w", err)
	}
	if !size.Is(len(X), n, d) || !size.Is(len(Z), m, d) || !size.Is(len(dst), n, p, m, p) {
		return fmt.Errorf("ovk.Gram: shapes do not match (len X=%d, n=%d; len Z=%d, m=%d; d=%d, p=%d; len dst=%d, want %d)",
			len(X), n, len(Z), m, d, p, len(dst), n*p*m*p)
	}
	ld := m * p
	parallel.For(n, 0, func(i int) {
		xi := X[i*d : (i+1)*d]
		for j := 0; j < m; j++ {
			k.eval(dst[i*p*ld+j*p:], ld, xi, Z[j*d:(j+1)*d])
		}
	})
	return nil
}

// GramDense returns the block Gram matrix K(X, Z) ((n·p)×(m·p), see [Gram]) as a gonum matrix. It returns an error
// for a nil kernel or matrix, an empty matrix, column counts that differ, and an input or result beyond the size
// limit of one array (1 TiB) or whose size overflows int.
func GramDense(k *Kernel, X, Z mat.Matrix) (*mat.Dense, error) {
	if k == nil {
		return nil, errors.New("ovk.GramDense: nil kernel")
	}
	if X == nil || Z == nil || isNilPtr(X) || isNilPtr(Z) {
		return nil, errors.New("ovk.GramDense: nil matrix")
	}
	n, d := X.Dims()
	m, dz := Z.Dims()
	if n < 1 || d < 1 || m < 1 || dz < 1 {
		return nil, fmt.Errorf("ovk.GramDense: empty matrix (X is %d×%d, Z is %d×%d)", n, d, m, dz)
	}
	if d != dz {
		return nil, fmt.Errorf("ovk.GramDense: X has %d columns, Z has %d", d, dz)
	}
	if _, err := size.Floats("ovk.GramDense: X", n, d); err != nil {
		return nil, err
	}
	if _, err := size.Floats("ovk.GramDense: Z", m, d); err != nil {
		return nil, err
	}
	p, err := k.Outputs(d)
	if err != nil {
		return nil, fmt.Errorf("ovk.GramDense: %w", err)
	}
	if _, err := size.Floats("ovk.GramDense: Gram matrix", n, p, m, p); err != nil {
		return nil, err
	}
	out := make([]float64, n*p*m*p)
	if err := Gram(out, k, mat.DenseCopyOf(X).RawMatrix().Data, n, mat.DenseCopyOf(Z).RawMatrix().Data, m, d); err != nil {
		return nil, err
	}
	return mat.NewDense(n*p, m*p, out), nil
}

// OutputCovariance returns the empirical covariance (1/(n−1))Σ_i (y_i − ȳ)(y_i − ȳ)ᵀ of the n×p targets Y
// (row-major): the usual choice of A for a decomposable kernel when no prior on the outputs is known (ORFF paper,
// after Def. 7). It needs n ≥ 2 and finite values.
func OutputCovariance(Y []float64, n, p int) (*mat.SymDense, error) {
	if n < 2 || p < 1 || !size.Is(len(Y), n, p) {
		return nil, fmt.Errorf("ovk.OutputCovariance: need n ≥ 2 rows of p ≥ 1 outputs, got n=%d, p=%d, len=%d", n, p, len(Y))
	}
	mean := make([]float64, p)
	for i := 0; i < n; i++ {
		for a, v := range Y[i*p : (i+1)*p] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("ovk.OutputCovariance: row %d, output %d is %v", i+1, a+1, v)
			}
			mean[a] += v
		}
	}
	for a := range mean {
		mean[a] /= float64(n)
	}
	c := make([]float64, p*p)
	r := make([]float64, p)
	for i := 0; i < n; i++ {
		for a, v := range Y[i*p : (i+1)*p] {
			r[a] = v - mean[a]
		}
		for a := 0; a < p; a++ {
			for b := a; b < p; b++ {
				c[a*p+b] += r[a] * r[b]
			}
		}
	}
	for a := 0; a < p; a++ {
		for b := a; b < p; b++ {
			c[a*p+b] /= float64(n - 1)
			c[b*p+a] = c[a*p+b]
		}
	}
	return mat.NewSymDense(p, c), nil
}

// check returns an error for a nil kernel or one not made by the constructors (a zero Kernel, say).
func (k *Kernel) check() error {
	if k == nil {
		return errors.New("ovk: nil operator-valued kernel")
	}
	switch k.kind {
	case Decomposable:
		if k.k0 == nil || k.p < 1 || k.pr < 1 || len(k.a) != k.p*k.p || len(k.b) != k.p*k.pr {
			return errors.New("ovk: the decomposable kernel was not made by ovk.NewDecomposable or ovk.Parse")
		}
	case CurlFree, DivFree, Helmholtz:
		if checkSigma(k.sigma) != nil || !(k.wc >= 0 && k.wc <= 1) || k.k0 == nil {
			return fmt.Errorf("ovk: the %s kernel was not made by ovk.New%s or ovk.Parse", k.kind, constructor(k.kind))
		}
	default:
		return fmt.Errorf("ovk: unknown kernel kind %d", int(k.kind))
	}
	return nil
}

// constructor names the constructor of a kind.
func constructor(k Kind) string {
	switch k {
	case CurlFree:
		return "CurlFree"
	case DivFree:
		return "DivFree"
	}
	return "Helmholtz"
}

// isNilPtr reports whether v holds a nil pointer.
func isNilPtr(v any) bool {
	r := reflect.ValueOf(v)
	return r.Kind() == reflect.Pointer && r.IsNil()
}
