package ovk

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/rule"
)

// TestFromParams: an ORFF map rebuilt from its explicit parameters gives the same Φ̃ bit for bit, for every kernel
// and rule.
func TestFromParams(t *testing.T) {
	const d, D, rows = 3, 8, 4
	x := make([]float64, rows*d)
	for i := range x {
		x[i] = math.Cos(float64(2*i+1)) * 0.9
	}
	A := mat.NewSymDense(2, []float64{2, 0.5, 0.5, 1})
	for _, spec := range []string{"decomposable", "curl-free", "div-free", "helmholtz:0.3"} {
		for _, rn := range rule.Names() {
			t.Run(spec+"/"+rn, func(t *testing.T) {
				var a mat.Symmetric
				if spec == "decomposable" {
					a = A
				}
				k, err := Parse(spec, 0.8, a)
				if err != nil {
					t.Fatal(err)
				}
				m, err := New(k, mustRule(rn), d, D, 5)
				if err != nil {
					t.Fatal(err)
				}
				back, err := FromParams(k, m.Params())
				if err != nil {
					t.Fatal(err)
				}
				p, F := m.Outputs(), m.Features()
				u, v := make([]float64, rows*p*F), make([]float64, rows*p*F)
				m.TransformBlock(u, x, rows, nil)
				back.TransformBlock(v, x, rows, nil)
				for i := range u {
					if u[i] != v[i] {
						t.Fatalf("entry %d: %v rebuilt as %v", i, u[i], v[i])
					}
				}
				// The kernel estimate K̃(x, z) too (it reads the frequencies of the curl/div/Helmholtz kernels).
				ke, err := m.Estimate(x[:d], x[d:2*d])
				if err != nil {
					t.Fatal(err)
				}
				kb, err := back.Estimate(x[:d], x[d:2*d])
				if err != nil {
					t.Fatal(err)
				}
				if !mat.Equal(ke, kb) {
					t.Fatalf("estimate %v rebuilt as %v", mat.Formatted(ke), mat.Formatted(kb))
				}
			})
		}
	}
}

func TestFromParamsRejects(t *testing.T) {
	k, _ := NewCurlFree(1)
	m, err := New(k, rule.G{}, 3, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit func(p *Params)
	}{
		{"rank", func(p *Params) { p.Rank = 2 }},
		{"B length", func(p *Params) { p.B = p.B[1:] }},
		{"NaN in B", func(p *Params) { p.B[0] = math.NaN() }},
		{"W length", func(p *Params) { p.Points.Arrays["points"] = p.Points.Arrays["points"][1:] }},
		{"weights", func(p *Params) { p.Points.Weights = p.Points.Weights[:1] }},
		{"dimension", func(p *Params) { p.Points.Dim = 0 }},
		{"scales", func(p *Params) { p.Scale = p.Scale[1:] }},
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
}

func mustRule(name string) rule.Rule {
	r, err := rule.Parse(name)
	if err != nil {
		panic(err)
	}
	return r
}
