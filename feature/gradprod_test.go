package feature

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// TestGradientProduct: GradientProduct is Gradient's derivative features times θ, for every rule, the shift-invariant
// kernels with derivatives, both forms and several outputs, over more rows than one block. Both sum the same 2D
// terms θ·√w_j·ω_ji·(cos or sin) in different orders, so they differ by at most a few rounding errors of the sum of
// the terms' magnitudes S: |Δ| ≤ (2D + d + 8)·2⁻⁵²·S, S = Σ_j (|θ_j| + |θ_{D+j}|)·√w_j·|ω_ji|.
func TestGradientProduct(t *testing.T) {
	const d, D, rows = 5, 40, 300
	rng := rand.New(rand.NewPCG(8, 9))
	x := make([]float64, rows*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	for _, r := range allRulesForDeriv() {
		for _, k := range []kernel.Kernel{kernel.Gaussian{S: 1.3}, kernel.Matern{Nu: 2.5, S: 0.8}, kernel.Cauchy{S: 2}} {
			for _, form := range []Form{CosSin, CosPhase} {
				for _, P := range []int{1, 3} {
					t.Run(fmt.Sprintf("%s/%s/form=%d/P=%d", r.Name(), k.Name(), form, P), func(t *testing.T) {
						m, err := New(k, r, d, D, 5, WithForm(form))
						if err != nil {
							t.Fatal(err)
						}
						F, n := m.Features(), m.Points()
						theta := make([]float64, F*P)
						for i := range theta {
							theta[i] = rng.NormFloat64()
						}
						got := make([]float64, rows*d*P)
						if err := m.GradientProduct(got, x, rows, theta, P); err != nil {
							t.Fatal(err)
						}
						dz := make([]float64, rows*d*F)
						if err := m.Gradient(dz, x, rows); err != nil {
							t.Fatal(err)
						}
						omega := m.Frequencies()
						w := m.Weights()
						for r := range rows {
							for i := range d {
								for a := range P {
									var want, S float64
									for c := range F {
										want += dz[(r*d+i)*F+c] * theta[c*P+a]
									}
									for j := range n {
										th := math.Abs(theta[j*P+a])
										if form == CosSin {
											th += math.Abs(theta[(n+j)*P+a])
										}
										S += th * math.Sqrt(2*w[j]) * math.Abs(omega[j*d+i])
									}
									tol := float64(2*n+d+8) * 0x1p-52 * S
									if g := got[(r*d+i)*P+a]; !(math.Abs(g-want) <= tol) {
										t.Fatalf("row %d, ∂/∂x_%d, output %d: %v, derivative features × θ %v (± %.3g)", r, i, a, g, want, tol)
									}
								}
							}
						}
						// A row alone: the bits it has among the others.
						one := make([]float64, d*P)
						for _, r := range []int{0, 257, rows - 1} {
							if err := m.GradientProduct(one, x[r*d:(r+1)*d], 1, theta, P); err != nil {
								t.Fatal(err)
							}
							for i, v := range one {
								if math.Float64bits(v) != math.Float64bits(got[r*d*P+i]) {
									t.Fatalf("row %d alone: value %d is %v, among %d rows %v", r, i, v, rows, got[r*d*P+i])
								}
							}
						}
					})
				}
			}
		}
	}
}

// TestGradientProductErrors: the errors of Gradient, and a θ of the wrong shape.
func TestGradientProductErrors(t *testing.T) {
	m, err := New(kernel.Gaussian{S: 1}, rule.G{}, 3, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	arc, err := New(kernel.ArcCos{Order: 1}, rule.G{}, 3, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	F := m.Features()
	x, theta := []float64{1, 2, 3}, make([]float64, F)
	for _, c := range []struct {
		name string
		err  error
	}{
		{"nil map", (*Map)(nil).GradientProduct(make([]float64, 3), x, 1, theta, 1)},
		{"arc-cosine", arc.GradientProduct(make([]float64, 3), x, 1, make([]float64, arc.Features()), 1)},
		{"short theta", m.GradientProduct(make([]float64, 3), x, 1, theta[:F-1], 1)},
		{"P = 0", m.GradientProduct(nil, x, 1, nil, 0)},
		{"short dst", m.GradientProduct(make([]float64, 2), x, 1, theta, 1)},
		{"NaN input", m.GradientProduct(make([]float64, 3), []float64{1, math.NaN(), 3}, 1, theta, 1)},
		{"negative rows", m.GradientProduct(nil, nil, -1, theta, 1)},
	} {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}
