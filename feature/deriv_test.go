package feature

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

const eps = 0x1p-52

func allRulesForDeriv() []rule.Rule {
	var rs []rule.Rule
	for _, n := range rule.Names() {
		r, err := rule.Parse(n)
		if err != nil {
			panic(err)
		}
		rs = append(rs, r)
	}
	return rs
}

func shiftInvariantKernels(sigma float64) []kernel.Kernel {
	return []kernel.Kernel{kernel.Gaussian{S: sigma}, kernel.Matern{Nu: 2.5, S: sigma}, kernel.Laplacian{S: sigma},
		kernel.Cauchy{S: sigma}}
}

func unitIndex(d, i int) []int { p := make([]int, d); p[i] = 1; return p }

func addIndex(p, q []int) []int {
	out := make([]int, len(p))
	for i := range p {
		out[i] = p[i] + q[i]
	}
	return out
}

func indexOrder(p []int) int {
	n := 0
	for _, v := range p {
		n += v
	}
	return n
}

// TestDerivativeOrderZeroIsTransform: ∂⁰ψ is ψ, bit for bit, for every rule and both forms.
func TestDerivativeOrderZeroIsTransform(t *testing.T) {
	const d, n = 3, 5
	x := randRows(rand.New(rand.NewPCG(2, 2)), n, d, 0.7)
	for _, r := range allRulesForDeriv() {
		for _, form := range []Form{CosSin, CosPhase} {
			m, err := New(kernel.Matern{Nu: 2.5, S: 0.8}, r, d, 9, 4, WithForm(form))
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float64, n*m.Features())
			if err := m.TransformRows(want, x, n); err != nil {
				t.Fatal(err)
			}
			for _, p := range [][]int{nil, make([]int, d)} {
				got := make([]float64, len(want))
				if err := m.Derivative(got, x, n, p); err != nil {
					t.Fatal(err)
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%s form %d: Derivative(0)[%d] = %v, TransformRows %v", r.Name(), form, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestDerivativeFiniteDifferences: for every rule, kernel and form, ∂^{p+e_i}ψ matches the central difference in
// x_i of ∂^pψ (for p = 0 that is the map's own TransformRows, TestDerivativeOrderZeroIsTransform), for every p with
// |p| ≤ 2, to 1e-6 of each column's scale.
//
// Column j of ∂^pψ along x + t·e_i is g(t) = a_j ω_j^p·c(θ_j + ω_{ji}t), c one of ±cos, ±sin, so |g⁽³⁾| ≤ A·|ω_{ji}|³
// with A = |a_j ω_j^p|, and the central difference with step h has truncation error ≤ h²A|ω_{ji}|³/6. Rounding: θ_j
// = ω_jᵀx is computed with absolute error ≤ 4ε(Σ_k|ω_{jk}x_k| + 1) (a dot product and the frequency scaling; the
// structured rules add a few more operations, covered by the factor 4), and c and the products add ≤ 4ε relative,
// so each evaluation is off by ρ_j ≤ 4εA(Σ_k|ω_{jk}x_k| + 2), and the difference by ≤ ρ_j/h. h_j = ε^{1/3}/|ω_{ji}|
// balances the two, and each column is differenced with its own step.
func TestDerivativeFiniteDifferences(t *testing.T) {
	const d, n = 3, 3
	x := randRows(rand.New(rand.NewPCG(3, 5)), n, d, 0.7)
	var ps [][]int
	for a := 0; a <= 2; a++ {
		for b := 0; a+b <= 2; b++ {
			for c := 0; a+b+c <= 2; c++ {
				ps = append(ps, []int{a, b, c})
			}
		}
	}
	for _, k := range shiftInvariantKernels(0.9) {
		for _, r := range allRulesForDeriv() {
			for _, form := range []Form{CosSin, CosPhase} {
				m, err := New(k, r, d, 8, 11, WithForm(form))
				if err != nil {
					t.Fatal(err)
				}
				D, F := m.Points(), m.Features()
				W := m.Frequencies()
				amp := m.Weights()
				for j := range amp {
					if form == CosPhase {
						amp[j] = math.Sqrt(2 * amp[j])
					} else {
						amp[j] = math.Sqrt(amp[j])
					}
				}
				for _, p := range ps {
					for i := 0; i < d; i++ {
						p1 := addIndex(p, unitIndex(d, i))
						exact := make([]float64, n*F)
						if err := m.Derivative(exact, x, n, p1); err != nil {
							t.Fatal(err)
						}
						lo, hi := make([]float64, n*F), make([]float64, n*F)
						for col := 0; col < F; col++ {
							j := col % D
							w := W[j*d : (j+1)*d]
							A := amp[j]
							for l, pl := range p {
								A *= math.Pow(math.Abs(w[l]), float64(pl))
							}
							wi := math.Abs(w[i])
							if wi == 0 {
								continue // the column does not depend on x_i; checked exactly below
							}
							h := math.Cbrt(eps) / wi
							xs := append([]float64(nil), x...)
							for row := 0; row < n; row++ {
								xs[row*d+i] = x[row*d+i] - h
							}
							if err := m.Derivative(lo, xs, n, p); err != nil {
								t.Fatal(err)
							}
							for row := 0; row < n; row++ {
								xs[row*d+i] = x[row*d+i] + h
							}
							if err := m.Derivative(hi, xs, n, p); err != nil {
								t.Fatal(err)
							}
							for row := 0; row < n; row++ {
								var dot float64
								for l := 0; l < d; l++ {
									dot += math.Abs(w[l] * x[row*d+l])
								}
								rho := 4 * eps * A * (dot + h*wi + 2)
								tol := h*h*A*wi*wi*wi/6 + rho/h
								if tol > 1e-6*A*wi {
									t.Fatalf("%s/%s: tolerance %g above 1e-6 of the column scale %g", k.Name(), r.Name(), tol, A*wi)
								}
								fd := (hi[row*F+col] - lo[row*F+col]) / (2 * h)
								if e := exact[row*F+col]; math.Abs(fd-e) > tol {
									t.Errorf("%s/%s form %d p=%v ∂x_%d row %d col %d: exact %v, central difference %v (tol %g)",
										k.Name(), r.Name(), form, p, i+1, row, col, e, fd, tol)
								}
							}
						}
						for col := 0; col < F; col++ {
							if W[(col%D)*d+i] == 0 {
								for row := 0; row < n; row++ {
									if exact[row*F+col] != 0 {
										t.Errorf("%s/%s: ω_{ji} = 0 but the derivative column is %v", k.Name(), r.Name(), exact[row*F+col])
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestGradientBlocksAreDerivatives: block i of every Gradient row is Derivative with p = e_i, bit for bit.
func TestGradientBlocksAreDerivatives(t *testing.T) {
	const d, n = 4, 300 // more rows than one block, so several goroutines take part
	x := randRows(rand.New(rand.NewPCG(4, 4)), n, d, 0.7)
	for _, r := range []rule.Rule{rule.G{}, rule.SORF{}, rule.SR{Rotation: rule.Butterfly}} {
		for _, form := range []Form{CosSin, CosPhase} {
			m, err := New(kernel.Gaussian{S: 1.1}, r, d, 10, 5, WithForm(form))
			if err != nil {
				t.Fatal(err)
			}
			F := m.Features()
			g := make([]float64, n*d*F)
			if err := m.Gradient(g, x, n); err != nil {
				t.Fatal(err)
			}
			one := make([]float64, n*F)
			for i := 0; i < d; i++ {
				if err := m.Derivative(one, x, n, unitIndex(d, i)); err != nil {
					t.Fatal(err)
				}
				for row := 0; row < n; row++ {
					for c := 0; c < F; c++ {
						if a, b := g[row*d*F+i*F+c], one[row*F+c]; a != b {
							t.Fatalf("%s form %d: gradient row %d block %d col %d = %v, derivative %v", r.Name(), form, row, i, c, a, b)
						}
					}
				}
			}
		}
	}
}

// TestEstimateDerivSpectralForm: the inner product of derivative features equals the paper's estimator
// Σ_j w_j ω_j^p(−ω_j)^q h_{|p+q|}(ω_jᵀ(x−y)) (+ Offset() for p = q = 0) computed from Frequencies and Weights, and for
// p = q = 0 it is Estimate of the plain features. Both sides sum 2D products of terms bounded by w_j|ω_j^{p+q}|, with
// a few roundings per term (the angle θ = ωᵀx carries an absolute error ≤ 4ε(Σ|ω_k x_k| + 1)): tolerance
// Σ_j w_j|ω_j^{p+q}|·8ε(Σ_k|ω_{jk}|(|x_k|+|y_k|) + 2D).
func TestEstimateDerivSpectralForm(t *testing.T) {
	const d = 3
	rng := rand.New(rand.NewPCG(6, 1))
	pairs := [][2][]int{
		{nil, nil}, {unitIndex(d, 0), nil}, {nil, unitIndex(d, 1)}, {unitIndex(d, 0), unitIndex(d, 0)},
		{{2, 0, 1}, {0, 1, 0}}, {{1, 1, 1}, {0, 0, 2}},
	}
	for _, r := range []rule.Rule{rule.G{}, rule.SORF{}, rule.SR{Rotation: rule.Butterfly}, rule.SR{Rotation: rule.Haar}} {
		for _, k := range []kernel.Kernel{kernel.Gaussian{S: 0.9}, kernel.Cauchy{S: 0.9}} {
			m, err := New(k, r, d, 8, 3)
			if err != nil {
				t.Fatal(err)
			}
			W, w := m.Frequencies(), m.Weights()
			x, y := randRows(rng, 1, d, 0.6), randRows(rng, 1, d, 0.6)
			z := make([]float64, 2*m.Features())
			m.TransformBlock(z, append(append([]float64(nil), x...), y...), 2, nil)
			plain, err := m.Estimate(z[:m.Features()], z[m.Features():])
			if err != nil {
				t.Fatal(err)
			}
			for _, pq := range pairs {
				p, q := pq[0], pq[1]
				got, err := m.EstimateDeriv(x, y, p, q)
				if err != nil {
					t.Fatal(err)
				}
				alpha := make([]int, d)
				n, nq := 0, 0
				if p != nil {
					alpha = addIndex(alpha, p)
					n += indexOrder(p)
				}
				if q != nil {
					alpha = addIndex(alpha, q)
					nq = indexOrder(q)
					n += nq
				}
				var want, bound float64
				for j := range w {
					om := W[j*d : (j+1)*d]
					mono := 1.0
					var theta, size float64
					for i := range om {
						mono *= math.Pow(om[i], float64(alpha[i]))
						theta += om[i] * (x[i] - y[i])
						size += math.Abs(om[i]) * (math.Abs(x[i]) + math.Abs(y[i]))
					}
					h, _ := cycle(n, math.Cos(theta), math.Sin(theta))
					if nq%2 == 1 {
						h = -h
					}
					want += w[j] * mono * h
					bound += w[j] * math.Abs(mono) * 8 * eps * (size + 2*float64(len(w)))
				}
				if n == 0 {
					want += m.Offset()
					bound += 8 * eps * math.Abs(m.Offset())
					if math.Abs(got-plain) > bound {
						t.Errorf("%s/%s: EstimateDeriv(0,0) = %v, Estimate = %v", k.Name(), r.Name(), got, plain)
					}
				}
				if math.Abs(got-want) > bound {
					t.Errorf("%s/%s p=%v q=%v: features give %v, spectral form %v (tol %g)", k.Name(), r.Name(), p, q, got, want, bound)
				}
			}
		}
	}
}

// TestDerivativeUnbiased: for every rule that is unbiased for k, the mean over independent seeds of
// ⟨∂^pψ(x), ∂^qψ(y)⟩ is within 4 standard errors (estimated from the same runs) of the exact ∂^{p,q}k(x,y) from
// package kernel, for |p|+|q| = 1 and 2 and several pairs. The SR rules need d ≥ 3 for the estimator to have a
// variance (their weights are ∝ 1/ρ², ρ ~ χ_{d+2}, and E ρ⁻⁴ < ∞ iff d > 2). The Matérn 5/2 spectral law (Student-t,
// 5 degrees of freedom) has moments of order < 5: the standard error is consistent when E|ω|^{4(|p|+|q|)} < ∞, so
// only |p|+|q| = 1 is checked for it. SR(3,3) is exact for polynomials of degree ≤ 3, so at δ = 0 its second-order
// estimates have no spread at all and must match to rounding.
func TestDerivativeUnbiased(t *testing.T) {
	const d = 3
	seeds := 1500
	if testing.Short() {
		seeds = 600
	}
	rng := rand.New(rand.NewPCG(8, 8))
	xs := randRows(rng, 6, d, 0.6)
	e := func(i int) []int { return unitIndex(d, i) }
	first := [][2][]int{{e(0), nil}, {nil, e(1)}}
	second := [][2][]int{{e(0), e(0)}, {e(0), e(2)}, {{2, 0, 0}, nil}, {nil, {0, 1, 1}}, {e(1), e(1)}}
	type tc struct {
		k    kernel.Kernel
		r    rule.Rule
		form Form
		pqs  [][2][]int
	}
	both := append(append([][2][]int{}, first...), second...)
	var cases []tc
	for _, r := range []rule.Rule{rule.G{}, rule.ORF{}, rule.QMC{}, rule.SR{Rotation: rule.Haar}} {
		cases = append(cases, tc{kernel.Gaussian{S: 1.2}, r, CosSin, both})
	}
	cases = append(cases, tc{kernel.Gaussian{S: 1.2}, rule.G{}, CosPhase, both})
	cases = append(cases, tc{kernel.Matern{Nu: 2.5, S: 1.2}, rule.G{}, CosSin, first})
	const pairs = 3
	// Rows 2i, 2i+1 are the pair i (the last pair has y = x: δ = 0, where the even orders are spectral moments).
	pts := append([]float64(nil), xs...)
	copy(pts[(2*pairs-1)*d:], pts[(2*pairs-2)*d:(2*pairs-1)*d])
	for _, c := range cases {
		// The distinct multi-indices, each transformed once per seed for all rows.
		key := func(p []int) string { return fmt.Sprint(p) }
		idx := map[string]int{}
		var list [][]int
		for _, pq := range c.pqs {
			for _, p := range pq {
				if _, ok := idx[key(p)]; !ok {
					idx[key(p)] = len(list)
					list = append(list, p)
				}
			}
		}
		sum := make([]float64, pairs*len(c.pqs))
		sum2 := make([]float64, len(sum))
		abs := make([]float64, len(sum)) // Σ_seeds Σ_j |zx_j zy_j|, for the rounding bound
		var feats [][]float64
		for s := 0; s < seeds; s++ {
			m, err := New(c.k, c.r, d, 2*(d+1), uint64(1000+s), WithForm(c.form))
			if err != nil {
				t.Fatal(err)
			}
			F := m.Features()
			if feats == nil {
				feats = make([][]float64, len(list))
				for i := range feats {
					feats[i] = make([]float64, 2*pairs*F)
				}
			}
			for i, p := range list {
				if err := m.Derivative(feats[i], pts, 2*pairs, p); err != nil {
					t.Fatal(err)
				}
			}
			for pair := 0; pair < pairs; pair++ {
				for i, pq := range c.pqs {
					zx := feats[idx[key(pq[0])]][2*pair*F : (2*pair+1)*F]
					zy := feats[idx[key(pq[1])]][(2*pair+1)*F : (2*pair+2)*F]
					var v, a float64
					for j := range zx {
						v += zx[j] * zy[j]
						a += math.Abs(zx[j] * zy[j])
					}
					abs[pair*len(c.pqs)+i] += a
					sum[pair*len(c.pqs)+i] += v
					sum2[pair*len(c.pqs)+i] += v * v
				}
			}
		}
		for pair := 0; pair < pairs; pair++ {
			x, y := pts[2*pair*d:(2*pair+1)*d], pts[(2*pair+1)*d:(2*pair+2)*d]
			for i, pq := range c.pqs {
				want, err := kernel.Deriv(c.k, x, y, pq[0], pq[1])
				if err != nil {
					t.Fatal(err)
				}
				k := pair*len(c.pqs) + i
				mean := sum[k] / float64(seeds)
				se := math.Sqrt(math.Max(0, sum2[k]/float64(seeds)-mean*mean) / float64(seeds-1))
				// SR(3,3) integrates the degree-2 moments exactly (se = 0 at δ = 0): allow the rounding, per unit of
				// Σ|terms|: ≤ (F + 8)ε in one estimate (a length-F dot product, the cycle and the amplitudes), ≤ seeds·ε
				// for the running sum over seeds, and ≤ 16dε for the orthogonality of the Householder rotation.
				F := 2 * 2 * (d + 1)
				round := float64(F+8+seeds+16*d) * eps * abs[k] / float64(seeds)
				if math.Abs(mean-want) > 4*se+round {
					t.Errorf("%s/%s form %d pair %d p=%v q=%v: mean %v ± %v over %d seeds, exact %v (%.1f SE)",
						c.k.Name(), c.r.Name(), c.form, pair, pq[0], pq[1], mean, se, seeds, want, math.Abs(mean-want)/se)
				}
			}
		}
	}
}

func TestDerivativeErrors(t *testing.T) {
	const d = 2
	m, err := New(kernel.Gaussian{S: 1}, rule.G{}, d, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	ac, err := New(kernel.ArcCos{Order: 1}, rule.G{}, d, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	F := m.Features()
	x := []float64{0.1, 0.2, 0.3, 0.4}
	cases := []struct {
		name string
		m    *Map
		dst  []float64
		x    []float64
		rows int
		p    []int
	}{
		{"pointwise kernel", ac, make([]float64, 2*ac.Features()), x, 2, nil},
		{"short multi-index", m, make([]float64, 2*F), x, 2, []int{1}},
		{"negative order", m, make([]float64, 2*F), x, 2, []int{0, -1}},
		{"input length", m, make([]float64, 2*F), x[:3], 2, nil},
		{"output length", m, make([]float64, 2*F-1), x, 2, nil},
		{"negative rows", m, nil, nil, -1, nil},
		{"NaN input", m, make([]float64, 2*F), []float64{0, math.NaN(), 0, 0}, 2, nil},
	}
	for _, c := range cases {
		if err := c.m.Derivative(c.dst, c.x, c.rows, c.p); err == nil {
			t.Errorf("Derivative, %s: no error", c.name)
		}
	}
	if err := m.Gradient(make([]float64, 2*F), x, 2); err == nil {
		t.Error("Gradient with a Derivative-sized output: no error")
	}
	if err := ac.Gradient(make([]float64, 2*d*ac.Features()), x, 2); err == nil {
		t.Error("Gradient of a pointwise map: no error")
	}
	if _, err := m.EstimateDeriv(x[:2], x[2:], nil, []int{1, 1, 0}); err == nil {
		t.Error("EstimateDeriv with a long multi-index: no error")
	}
	if _, err := m.EstimateDeriv(x[:2], x[:1], nil, nil); err == nil {
		t.Error("EstimateDeriv with a short y: no error")
	}
	// Zero rows are fine.
	if err := m.Derivative(nil, nil, 0, []int{1, 0}); err != nil {
		t.Errorf("zero rows: %v", err)
	}
}

// BenchmarkGradient measures the gradient features of a block of rows (d blocks of 2D columns each).
func BenchmarkGradient(b *testing.B) {
	for _, d := range []int{5, 32} {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			const n, D = 1024, 256
			m, err := New(kernel.Gaussian{S: 1}, rule.G{}, d, D, 1)
			if err != nil {
				b.Fatal(err)
			}
			x := randRows(rand.New(rand.NewPCG(1, 1)), n, d, 1)
			dst := make([]float64, n*d*m.Features())
			b.ResetTimer()
			for range b.N {
				if err := m.Gradient(dst, x, n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
