package feature

import (
	"math"
	"strings"
	"testing"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// TestFromParams: a map rebuilt from its explicit parameters gives the same features — bit for bit for rules whose
// points are dense, and within the rounding of the structured operators (orthogonal stages, so each perturbs a
// projection by at most a few ulps of ‖ω_j‖·‖x‖) for sorf and sr-butterfly.
func TestFromParams(t *testing.T) {
	const d, D, rows = 5, 24, 7
	x := make([]float64, rows*d)
	for i := range x {
		x[i] = math.Sin(float64(3*i+1)) * 1.3
	}
	structured := map[string]bool{"sorf": true, "sr-butterfly": true}
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
					W, amp := m.Frequencies(), m.Weights()
					for i := range a {
						if !structured[rn] || strings.HasPrefix(kn, "laplacian") || kn == "cauchy" {
							if a[i] != b[i] {
								t.Fatalf("feature %d: %v rebuilt as %v", i, a[i], b[i])
							}
							continue
						}
						r, c := i/m.Features(), i%m.Features()
						j := c % m.Points()
						var wn, xn float64
						for q := 0; q < d; q++ {
							wn += W[j*d+q] * W[j*d+q]
							xn += x[r*d+q] * x[r*d+q]
						}
						tol := math.Sqrt(2*amp[j]) * 64 * float64(d) * 0x1p-52 * math.Sqrt(wn*xn)
						if math.Abs(a[i]-b[i]) > tol {
							t.Fatalf("feature %d: %v rebuilt as %v (tolerance %.3g)", i, a[i], b[i], tol)
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
		{"short W", func(p *Params) { p.W = p.W[1:] }},
		{"NaN point", func(p *Params) { p.W[2] = math.NaN() }},
		{"weights length", func(p *Params) { p.Weights = p.Weights[:2] }},
		{"negative weight", func(p *Params) { p.Weights[0] = -1 }},
		{"scale length", func(p *Params) { p.Scale = []float64{1} }},
		{"phases on cos/sin", func(p *Params) { p.Phase = make([]float64, p.Points) }},
		{"no phases on cos+phase", func(p *Params) { p.Form = CosPhase }},
		{"unknown form", func(p *Params) { p.Form = Form(9) }},
		{"zero points", func(p *Params) { p.Points = 0 }},
		{"infinite zero node", func(p *Params) { p.Zero = math.Inf(1) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := good
			p.W = append([]float64(nil), good.W...)
			p.Weights = append([]float64(nil), good.Weights...)
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
