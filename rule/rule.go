package rule

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/size"
)

// Rule draws realizations of a cubature rule for N(0, I_d).
type Rule interface {
	// Name is the rule's command-line name.
	Name() string
	// Draw returns a realization with at least D points in dimension d (exactly D except for SR rules, which round
	// up to whole rules). even reports that the integrand satisfies f(ω) = f(−ω), which lets symmetric rules merge
	// each ±ω pair into one point.
	Draw(d, D int, even bool, rng *rand.Rand) (Points, error)
}

// Points is one realization of a rule.
type Points interface {
	// Dim is the dimension d of the points.
	Dim() int
	// Len is the number of points.
	Len() int
	// Weights returns the weights w_j (length Len); callers must not modify them.
	Weights() []float64
	// Zero returns the weight w₀ of the node at the origin (0 for rules without one; it may be negative).
	Zero() float64
	// Project computes dst[r*Len()+j] = ω_jᵀ x_r for a block of rows x (rows×d, row-major) into dst (rows×Len).
	// It is safe for concurrent use.
	Project(dst, x []float64, rows int)
}

// Dense returns the points as a Len×d row-major matrix: a copy for dense realizations, otherwise computed by
// projecting the identity, a block of rows at a time (memory Len×d for the result and O(Len + d) per row of the
// block). A nil p has no points: Dense returns nil.
func Dense(p Points) []float64 {
	if isNilPoints(p) {
		return nil
	}
	if dp, ok := p.(*densePoints); ok {
		return append([]float64(nil), dp.W...)
	}
	d, D := p.Dim(), p.Len()
	W := make([]float64, D*d)
	const block = 64
	eye := make([]float64, block*d)
	wt := make([]float64, block*D) // rows of Wᵀ
	for i0 := 0; i0 < d; i0 += block {
		B := min(block, d-i0)
		clear(eye[:B*d])
		for b := range B {
			eye[b*d+i0+b] = 1
		}
		p.Project(wt[:B*D], eye[:B*d], B)
		for b := range B {
			for j := 0; j < D; j++ {
				W[j*d+i0+b] = wt[b*D+j]
			}
		}
	}
	return W
}

// Names lists the command-line names of the rules.
func Names() []string {
	return []string{"g", "orf", "sorf", "qmc", "gq", "sr-butterfly", "sr-haar"}
}

// Parse returns the rule named s: g (alias rff), orf, sorf (alias rom), qmc, gq or gq:M (Gauss–Hermite degree M),
// sr-butterfly (alias b), sr-haar (alias h). Only gq takes a parameter after a colon; any other suffix is an error.
func Parse(s string) (Rule, error) {
	name, arg, hasArg := strings.Cut(strings.ToLower(strings.TrimSpace(s)), ":")
	var r Rule
	switch name {
	case "g", "rff", "gaussian":
		r = G{}
	case "orf":
		r = ORF{}
	case "sorf", "rom":
		r = SORF{}
	case "qmc", "halton":
		r = QMC{}
	case "gq":
		if !hasArg {
			return GQ{}, nil
		}
		m, err := strconv.Atoi(arg)
		if err != nil || m < 1 || m > MaxGQDegree {
			return nil, fmt.Errorf("rule %q: Gauss–Hermite degree must be an integer in 1..%d", s, MaxGQDegree)
		}
		return GQ{Degree: m}, nil
	case "sr-butterfly", "b", "sr":
		r = SR{Rotation: Butterfly}
	case "sr-haar", "h":
		r = SR{Rotation: Haar}
	default:
		return nil, fmt.Errorf("unknown rule %q (want one of %s, or gq:M)", s, strings.Join(Names(), ", "))
	}
	if hasArg {
		return nil, fmt.Errorf("rule %q: %s takes no parameter; write %s (only gq takes one, as gq:M with M in 1..64)", s, r.Name(), r.Name())
	}
	return r, nil
}

// ParseList parses a comma-separated list of rules.
func ParseList(s string) ([]Rule, error) {
	var out []Rule
	for _, f := range strings.Split(s, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		r, err := Parse(f)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no rule given")
	}
	return out, nil
}

func checkSize(name string, d, D int, rng *rand.Rand) error {
	if rng == nil {
		return fmt.Errorf("rule %s: a random source is required", name)
	}
	if d < 1 {
		return fmt.Errorf("rule %s: dimension must be at least 1, got %d", name, d)
	}
	if D < 1 {
		return fmt.Errorf("rule %s: number of points must be at least 1, got %d", name, D)
	}
	if n, ok := size.Mul(d, D); !ok || n > 1<<31 {
		return fmt.Errorf("rule %s: %d points in dimension %d are too many", name, D, d)
	}
	return nil
}

// MaxSquareDim is the largest dimension for which the rules that form d×d matrices (orf and sr-haar draw Haar
// rotations; Dense projects the identity) do so: 32768, an 8 GiB matrix.
const MaxSquareDim = 1 << 15

// checkSquare refuses a dimension whose d×d matrix would exceed MaxSquareDim.
func checkSquare(name string, d int) error {
	if d > MaxSquareDim {
		return fmt.Errorf("rule %s: dimension %d needs %d×%d rotations, more than the limit of %d; use sorf or sr-butterfly (O(d log d)) or g", name, d, d, d, MaxSquareDim)
	}
	return nil
}

// densePoints is a realization stored as an explicit D×d matrix, projected by GEMM.
type densePoints struct {
	d, n int
	W    []float64 // n×d row-major
	w    []float64
	zero float64
}

func newDense(W []float64, n, d int, w []float64, zero float64) *densePoints {
	if w == nil {
		w = uniform(n)
	}
	return &densePoints{d: d, n: n, W: W, w: w, zero: zero}
}

func uniform(n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = 1 / float64(n)
	}
	return w
}

func (p *densePoints) Dim() int           { return p.d }
func (p *densePoints) Len() int           { return p.n }
func (p *densePoints) Weights() []float64 { return p.w }
func (p *densePoints) Zero() float64      { return p.zero }
func (p *densePoints) Project(dst, x []float64, rows int) {
	// linalg.MulRows: a row's projections have the same bits whether it is projected alone or among others (a BLAS
	// may sum a product of many rows in another order than of one).
	linalg.MulRows(true, rows, p.n, p.d, x, p.d, p.W, p.d, dst, p.n)
}

// batch is the number of input rows a structured operator processes at once, in coordinate-major layout.
const batch = 64

var scratchPool sync.Pool

func getScratch(n int) *[]float64 {
	if v := scratchPool.Get(); v != nil {
		s := v.(*[]float64)
		if cap(*s) >= n {
			*s = (*s)[:n]
			return s
		}
	}
	s := make([]float64, n)
	return &s
}

// transposeIn copies rows r0..r0+B of x (row-major, width d) into xt (coordinate-major n×B, zero-padded for i ≥ d).
func transposeIn(xt, x []float64, r0, B, d, n int) {
	for b := 0; b < B; b++ {
		row := x[(r0+b)*d : (r0+b+1)*d]
		for i, v := range row {
			xt[i*B+b] = v
		}
	}
	clear(xt[d*B : n*B])
}

// transposeOut writes coordinate-major block y (m×B), row i scaled by s[i] (s may be nil), into columns
// col0..col0+m of rows r0..r0+B of dst (row-major, width D).
func transposeOut(dst, y []float64, s []float64, r0, B, m, col0, D int, sign float64) {
	if B == 1 { // one row: a contiguous run of dst, without the inner loop
		out := dst[r0*D+col0 : r0*D+col0+m]
		y = y[:m]
		if s == nil {
			for i, v := range y {
				out[i] = sign * v
			}
			return
		}
		s = s[:m]
		for i, v := range y {
			out[i] = sign * s[i] * v
		}
		return
	}
	for i := 0; i < m; i++ {
		yi := y[i*B : (i+1)*B]
		f := sign
		if s != nil {
			f *= s[i]
		}
		for b, v := range yi {
			dst[(r0+b)*D+col0+i] = f * v
		}
	}
}

// NewDense returns a realization with the explicit n×d point matrix W (row-major), weights w (nil = 1/n each) and
// zero-node weight zero. It lets callers transform the points of any rule (see [Dense]) and keep its weights.
func NewDense(W []float64, n, d int, w []float64, zero float64) Points {
	return newDense(W, n, d, w, zero)
}

// isNilPoints reports whether p is nil or a nil pointer in the interface.
func isNilPoints(p Points) bool {
	if p == nil {
		return true
	}
	v := reflect.ValueOf(p)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
