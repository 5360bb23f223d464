package feature

import (
	"math"
	"testing"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// TestFromParams: a map rebuilt from its explicit parameters gives the same features bit for bit, for every kernel,
// rule and form (structured rules keep their operators, dense rules their points).
func TestFromParams(t *testing.T) {
	const d, D, rows = 5, 24, 7
	x := make([]float64, rows*d)
	for i := range x {
		x[i] = math.Sin(float64(3*i+1)) * 1.3
	}
	for _, kn := range kernel.Names() {
		for _, rn := range rule.Names() {
			for _, form := range []Form{CosSin, CosPhase} {
				t.Run(kn+"/"+rn+"/"+[]string{"cossin", "cosphase"}[form], func(t *testing.T) {
					k, _ := kernel.New(kn, 1.7)
					r, _ := rule.Parse(rn)
					m, err := New(k, r, d, D, 11, WithForm(form))
					if err != nil {
						t.Fatal(err)
					}
					back, err := FromParams(k, m.Params())
					if err != nil {
						t.Fatal(err)
					}
					if back.Features() != m.Features() || back.Offset() != m.Offset() || back.Points() != m.Points() {
						t.Fatalf("shape or offset differs: %d/%d features, offset %v/%v", back.Features(), m.Features(), back.Offset(), m.Offset())
					}
					a, b := make([]float64, rows*m.Features()), make([]float64, rows*m.Features())
					m.TransformBlock(a, x, rows, nil)
					back.TransformBlock(b, x, rows, nil)
					for i := range a {
						if a[i] != b[i] {
							t.Fatalf("feature %d: %v rebuilt as %v", i, a[i], b[i])
						}
					}
				})
			}
		}
	}
}

// TestFromParamsRejects: inconsistent parameters are errors, never a panic or a silent default.
func TestFromParamsRejects(t *testing.T) {
	k := kernel.Gaussian{S: 1}
	m, err := New(k, rule.G{}, 3, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	good := m.Params()
	tests := []struct {
		name string
		edit func(p *Params)
	}{
		{"short W", func(p *Params) { p.Points.Arrays["points"] = p.Points.Arrays["points"][1:] }},
		{"NaN point", func(p *Params) { p.Points.Arrays["points"][2] = math.NaN() }},
		{"weights length", func(p *Params) { p.Points.Weights = p.Points.Weights[:2] }},
		{"negative weight", func(p *Params) { p.Points.Weights[0] = -1 }},
		{"scale length", func(p *Params) { p.Scale = []float64{1} }},
		{"phases on cos/sin", func(p *Params) { p.Phase = make([]float64, p.Points.Len) }},
		{"no phases on cos+phase", func(p *Params) { p.Form = CosPhase }},
		{"unknown form", func(p *Params) { p.Form = Form(9) }},
		{"zero points", func(p *Params) { p.Points.Len = 0 }},
		{"infinite zero node", func(p *Params) { p.Points.Zero = math.Inf(1) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := m.Params() // a fresh copy
			tc.edit(&p)
			if _, err := FromParams(k, p); err == nil {
				t.Error("accepted")
			}
		})
	}
	if _, err := FromParams(nil, good); err == nil {
		t.Error("nil kernel accepted")
	}
	if _, err := FromParams(kernel.ArcCos{Order: 1}, good); err == nil {
		t.Error("a scale on a pointwise kernel accepted")
	}
}
