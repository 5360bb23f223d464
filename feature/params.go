package feature

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// Params are the explicit parameters of a drawn map: everything its features depend on besides the kernel. A map
// rebuilt from them by [FromParams] computes the features without drawing anything, so a saved model never depends on
// the random stream of the program that reads it.
//
// The points are stored as the rule's explicit realization (rule.Stored): dense points, or the parameters of a
// structured operator (sorf, sr-butterfly). A rebuilt map computes the same bits as the map it was taken from.
type Params struct {
	Rule   string      // name of the rule the points were drawn from (informative)
	Form   Form        // CosSin or CosPhase (shift-invariant kernels)
	Points rule.Stored // the points before Scale (ω_j = Scale_j·W_j), their weights and the zero-node weight
	Scale  []float64   // per-point frequency multiplier (length Points.Len), or nil
	Phase  []float64   // CosPhase phases b_j (length Points.Len), or nil
}

// Params returns the explicit parameters of m (copies: m is not shared); the zero Params for a nil or zero Map.
func (m *Map) Params() Params {
	if m == nil || m.points == nil {
		return Params{}
	}
	n := m.points.Len()
	p := Params{Rule: m.rule.Name(), Form: m.form, Points: rule.Store(m.points)}
	if m.scale != nil {
		p.Scale = append([]float64(nil), m.scale[:n]...)
	}
	if m.phase != nil {
		p.Phase = append([]float64(nil), m.phase[:n]...)
	}
	if m.phi != nil {
		p.Form = CosSin // pointwise maps have one form
	}
	return p
}

// explicitRule stands for the rule of a map rebuilt from its parameters: it keeps the name and cannot draw.
type explicitRule string

func (r explicitRule) Name() string { return string(r) }

func (r explicitRule) Draw(int, int, bool, *rand.Rand) (rule.Points, error) {
	return nil, fmt.Errorf("rule %s: a map rebuilt from stored points cannot draw new ones", string(r))
}

// FromParams rebuilds a map for kernel k from its explicit parameters, after checking them against each other and
// against k (lengths, finiteness, a form the kernel supports). The map's Seed is 0 and its Rule only carries the
// name.
func FromParams(k kernel.Kernel, p Params) (*Map, error) {
	if k == nil {
		return nil, errors.New("feature.FromParams: kernel is required")
	}
	pts, err := rule.Restore(p.Points)
	if err != nil {
		return nil, fmt.Errorf("feature map parameters: %w", err)
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("feature map parameters: %w", err)
	}
	n, d := pts.Len(), pts.Dim()
	m := &Map{kern: k, rule: explicitRule(p.Rule), form: p.Form, d: d, points: pts}
	m.freqs = sync.OnceValue(m.Frequencies)
	w, zero := pts.Weights(), pts.Zero()
	m.amp = make([]float64, n)
	switch kk := k.(type) {
	case kernel.Spectral:
		if err := CheckScale(kk.Law(), p.Scale); err != nil {
			return nil, fmt.Errorf("feature map parameters for kernel %s: %w", k.Name(), err)
		}
		if p.Scale != nil {
			m.scale = append([]float64(nil), p.Scale...)
		}
		f := 1.0
		if p.Form == CosPhase {
			if p.Phase == nil {
				return nil, errors.New("feature map parameters: a cos+phase map needs its phases")
			}
			f, m.phase, m.cols = 2, append([]float64(nil), p.Phase...), n
		} else {
			if p.Phase != nil {
				return nil, errors.New("feature map parameters: phases given for a cos/sin map")
			}
			m.cols = 2 * n
		}
		for j, wj := range w {
			m.amp[j] = math.Sqrt(f * wj)
		}
		m.offset = zero
	case kernel.Pointwise:
		if p.Scale != nil || p.Phase != nil || p.Form != CosSin {
			return nil, fmt.Errorf("feature map parameters: kernel %s takes no scale, phase or form", k.Name())
		}
		m.phi = kk.Phi
		for j, wj := range w {
			m.amp[j] = math.Sqrt(kk.Factor() * wj)
		}
		phi0 := kk.Phi(0)
		m.offset = kk.Factor() * zero * phi0 * phi0
		m.cols = n
	default:
		return nil, fmt.Errorf("feature.FromParams: kernel %s has neither a spectral law nor a pointwise form", k.Name())
	}
	return m, nil
}

// CheckScale checks stored per-point scales against a kernel's spectral law, as [New] sets them: none when the law
// transforms the points coordinatewise (Laplacian, Cauchy), one positive scale per point when it mixes them
// (Matérn), and exactly law.Scale (1/σ) for every point otherwise. It is how a stored map is tied to the kernel and
// bandwidth it was drawn for.
func CheckScale(law kernel.Law, scale []float64) error {
	switch {
	case law.Coord != nil:
		if scale != nil {
			return errors.New("per-point scales given for a law that transforms the points")
		}
	case scale == nil:
		return errors.New("the per-point scales are missing")
	case law.Mixing != nil:
		for _, s := range scale {
			if !(s > 0) {
				return fmt.Errorf("a per-point scale is %v", s)
			}
		}
	default:
		for _, s := range scale {
			if s != law.Scale {
				return fmt.Errorf("a point is scaled by %v, the bandwidth gives %v", s, law.Scale)
			}
		}
	}
	return nil
}

// check validates the scales, phases and form against the points (which rule.Restore checked).
func (p Params) check() error {
	n := p.Points.Len
	switch {
	case p.Scale != nil && len(p.Scale) != n:
		return fmt.Errorf("%d scales for %d points", len(p.Scale), n)
	case p.Phase != nil && len(p.Phase) != n:
		return fmt.Errorf("%d phases for %d points", len(p.Phase), n)
	case p.Form != CosSin && p.Form != CosPhase:
		return fmt.Errorf("unknown form %d", p.Form)
	}
	for _, a := range [][]float64{p.Scale, p.Phase} {
		for _, v := range a {
			if !isFinite(v) {
				return fmt.Errorf("a point parameter is %v", v)
			}
		}
	}
	return nil
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
