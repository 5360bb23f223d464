package ovk

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// Params are the explicit parameters of a drawn ORFF map: everything Φ̃ depends on besides the kernel, so that a
// map rebuilt by [FromParams] never draws. Structured rules are stored as their dense points (see package feature's
// Params for what that means for rounding). B holds B(ω_j) for every point (p×p' row-major each, point after point),
// or the one shared p×p' matrix of a decomposable kernel, so that a rebuilt map does not depend on an
// eigendecomposition's rounding or signs.
type Params struct {
	Rule    string    // name of the rule the points were drawn from (informative)
	Dim     int       // input dimension d
	Points  int       // number of points n
	Rank    int       // p', the columns of B(ω)
	W       []float64 // n×d points, row-major, before Scale
	Scale   []float64 // per-point frequency multiplier (length n), or nil
	Weights []float64 // rule weights w_j (length n)
	Zero    float64   // zero-node weight w₀
	B       []float64 // B(ω_j) per point (n·p·p' values) or shared (p·p', decomposable)
}

// Params returns the explicit parameters of m (copies).
func (m *Map) Params() Params {
	p := Params{Rule: m.r.Name(), Dim: m.d, Points: m.n, Rank: m.pr, W: rule.Dense(m.points),
		Weights: append([]float64(nil), m.w...), Zero: m.zero, B: append([]float64(nil), m.bs...)}
	if m.scale != nil {
		p.Scale = append([]float64(nil), m.scale...)
	}
	return p
}

// explicitRule stands for the rule of a map rebuilt from its parameters: it keeps the name and cannot draw.
type explicitRule string

func (r explicitRule) Name() string { return string(r) }

func (r explicitRule) Draw(int, int, bool, *rand.Rand) (rule.Points, error) {
	return nil, fmt.Errorf("rule %s: a map rebuilt from stored points cannot draw new ones", string(r))
}

// FromParams rebuilds an ORFF map for kernel k from its explicit parameters, after checking them against each other
// and against k (its outputs on d inputs and the rank of B(ω)). The map's Seed is 0.
func FromParams(k *Kernel, p Params) (*Map, error) {
	if k == nil {
		return nil, errors.New("ovk.FromParams: kernel is required")
	}
	out, err := k.Outputs(p.Dim)
	if err != nil {
		return nil, fmt.Errorf("ORFF map parameters: %w", err)
	}
	want := k.pr
	switch k.kind {
	case CurlFree:
		want = 1
	case DivFree:
		want = p.Dim - 1
	case Helmholtz:
		want = p.Dim
	}
	if p.Rank != want {
		return nil, fmt.Errorf("ORFF map parameters: rank %d, kernel %s on %d inputs has rank %d", p.Rank, k.Name(), p.Dim, want)
	}
	if err := p.check(out, k.kind == Decomposable); err != nil {
		return nil, fmt.Errorf("ORFF map parameters: %w", err)
	}
	if err := feature.CheckScale(k.law(), p.Scale); err != nil {
		return nil, fmt.Errorf("ORFF map parameters for kernel %s: %w", k.Name(), err)
	}
	n, d := p.Points, p.Dim
	m := &Map{k: k, r: explicitRule(p.Rule), d: d, p: out, pr: p.Rank, n: n}
	m.points = rule.NewDense(append([]float64(nil), p.W...), n, d, append([]float64(nil), p.Weights...), p.Zero)
	if p.Scale != nil {
		m.scale = append([]float64(nil), p.Scale...)
	}
	m.w = m.points.Weights()
	m.amp = make([]float64, n)
	for j, w := range m.w {
		m.amp[j] = math.Sqrt(w)
	}
	m.zero = p.Zero
	m.bs = append([]float64(nil), p.B...)
	if k.kind == Decomposable {
		m.ab = make([]float64, out*out)
		for a := 0; a < out; a++ {
			for b := 0; b < out; b++ {
				var v float64
				for c := 0; c < m.pr; c++ {
					v += m.bs[a*m.pr+c] * m.bs[b*m.pr+c]
				}
				m.ab[a*out+b] = v
			}
		}
		return m, nil
	}
	m.bstride = out * m.pr
	return m, nil
}

// check validates the shapes and values of p for a kernel with out outputs.
func (p Params) check(out int, shared bool) error {
	n, d := p.Points, p.Dim
	switch {
	case d < 1 || n < 1 || p.Rank < 1:
		return fmt.Errorf("%d points in dimension %d with rank %d", n, d, p.Rank)
	case int64(n)*int64(d)*int64(p.Rank+1) > 1<<31:
		return fmt.Errorf("%d points in dimension %d are too many", n, d)
	case len(p.W) != n*d:
		return fmt.Errorf("%d point coordinates for %d points in dimension %d", len(p.W), n, d)
	case len(p.Weights) != n:
		return fmt.Errorf("%d weights for %d points", len(p.Weights), n)
	case p.Scale != nil && len(p.Scale) != n:
		return fmt.Errorf("%d scales for %d points", len(p.Scale), n)
	case shared && len(p.B) != out*p.Rank:
		return fmt.Errorf("B has %d values, want %d×%d", len(p.B), out, p.Rank)
	case !shared && len(p.B) != n*out*p.Rank:
		return fmt.Errorf("B has %d values, want %d points × %d×%d", len(p.B), n, out, p.Rank)
	case math.IsNaN(p.Zero) || math.IsInf(p.Zero, 0):
		return fmt.Errorf("zero-node weight %v", p.Zero)
	}
	for _, a := range [][]float64{p.W, p.Scale, p.B} {
		for _, v := range a {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("a map parameter is %v", v)
			}
		}
	}
	for _, w := range p.Weights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return fmt.Errorf("a weight is %v (weights are finite and ≥ 0)", w)
		}
	}
	return nil
}

// law is the spectral law the map's points follow: k₀'s for a decomposable kernel, the Gaussian's otherwise.
func (k *Kernel) law() kernel.Law {
	if s, ok := k.k0.(kernel.Spectral); ok && k.kind == Decomposable {
		return s.Law()
	}
	return kernel.Gaussian{S: k.sigma}.Law()
}
