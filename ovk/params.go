package ovk

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// Params are the explicit parameters of a drawn ORFF map: everything Φ̃ depends on besides the kernel, so that a
// map rebuilt by [FromParams] never draws and computes the same bits. The points are the rule's explicit realization
// (rule.Stored: dense points or a structured operator's parameters). B holds B(ω_j) for every point (p×p' row-major
// each, point after point), or the one shared p×p' matrix of a decomposable kernel, so that a rebuilt map does not
// depend on an eigendecomposition's rounding or signs.
type Params struct {
	Rule   string      // name of the rule the points were drawn from (informative)
	Rank   int         // p', the columns of B(ω)
	Points rule.Stored // the points before Scale, their weights and the zero-node weight
	Scale  []float64   // per-point frequency multiplier (length Points.Len), or nil
	B      []float64   // B(ω_j) per point (n·p·p' values) or shared (p·p', decomposable)
}

// Params returns the explicit parameters of m (copies); the zero Params for a nil or zero Map.
func (m *Map) Params() Params {
	if m == nil || m.points == nil || m.r == nil {
		return Params{}
	}
	p := Params{Rule: m.r.Name(), Rank: m.pr, Points: rule.Store(m.points), B: append([]float64(nil), m.bs...)}
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
	pts, err := rule.Restore(p.Points)
	if err != nil {
		return nil, fmt.Errorf("ORFF map parameters: %w", err)
	}
	n, d := pts.Len(), pts.Dim()
	out, err := k.Outputs(d)
	if err != nil {
		return nil, fmt.Errorf("ORFF map parameters: %w", err)
	}
	want := k.pr
	switch k.kind {
	case CurlFree:
		want = 1
	case DivFree:
		want = d - 1
	case Helmholtz:
		want = d
	}
	if p.Rank != want {
		return nil, fmt.Errorf("ORFF map parameters: rank %d, kernel %s on %d inputs has rank %d", p.Rank, k.Name(), d, want)
	}
	if err := p.check(out, k.kind == Decomposable); err != nil {
		return nil, fmt.Errorf("ORFF map parameters: %w", err)
	}
	if err := feature.CheckScale(k.law(), p.Scale); err != nil {
		return nil, fmt.Errorf("ORFF map parameters for kernel %s: %w", k.Name(), err)
	}
	m := &Map{k: k, r: explicitRule(p.Rule), d: d, p: out, pr: p.Rank, n: n, points: pts}
	if p.Scale != nil {
		m.scale = append([]float64(nil), p.Scale...)
	}
	m.w = m.points.Weights()
	m.amp = make([]float64, n)
	for j, w := range m.w {
		m.amp[j] = math.Sqrt(w)
	}
	m.zero = pts.Zero()
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

// check validates the scales and B of p for a kernel with out outputs (rule.Restore checked the points).
func (p Params) check(out int, shared bool) error {
	n := p.Points.Len
	switch {
	case int64(n)*int64(out)*int64(p.Rank) > 1<<31:
		return fmt.Errorf("%d points with %d×%d matrices B are too many", n, out, p.Rank)
	case p.Scale != nil && len(p.Scale) != n:
		return fmt.Errorf("%d scales for %d points", len(p.Scale), n)
	case shared && !size.Is(len(p.B), out, p.Rank):
		return fmt.Errorf("B has %d values, want %d×%d", len(p.B), out, p.Rank)
	case !shared && !size.Is(len(p.B), n, out, p.Rank):
		return fmt.Errorf("B has %d values, want %d points × %d×%d", len(p.B), n, out, p.Rank)
	}
	for _, a := range [][]float64{p.Scale, p.B} {
		for _, v := range a {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("a map parameter is %v", v)
			}
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
