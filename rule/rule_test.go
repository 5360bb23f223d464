package rule

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rffkit/rff/internal/structured"
)

func allRules() []Rule {
	return []Rule{G{}, ORF{}, SORF{}, QMC{}, GQ{}, GQ{Degree: 5}, SR{Butterfly}, SR{Haar}}
}

func newRng(a uint64) *rand.Rand { return rand.New(rand.NewPCG(a, a^0xabcdef)) }

// TestWeightsSumToOne: every rule integrates constants exactly, Σ_j w_j + w₀ = 1.
func TestWeightsSumToOne(t *testing.T) {
	for _, r := range allRules() {
		for _, d := range []int{1, 3, 8, 17} {
			for _, even := range []bool{true, false} {
				for _, D := range []int{1, 7, 2 * (d + 1), 50} {
					p, err := r.Draw(d, D, even, newRng(uint64(d*1000+D)))
					if err != nil {
						t.Fatal(err)
					}
					if p.Len() < D || p.Dim() != d || len(p.Weights()) != p.Len() {
						t.Fatalf("%s d=%d D=%d: Len=%d Dim=%d weights=%d", r.Name(), d, D, p.Len(), p.Dim(), len(p.Weights()))
					}
					if _, isSR := r.(SR); !isSR && p.Len() != D {
						t.Errorf("%s: Len=%d, want exactly %d", r.Name(), p.Len(), D)
					}
					s := p.Zero()
					for _, w := range p.Weights() {
						if !(w > 0) {
							t.Fatalf("%s: non-positive weight %v", r.Name(), w)
						}
						s += w
					}
					if math.Abs(s-1) > 1e-12 {
						t.Errorf("%s d=%d D=%d even=%v: Σw + w0 = %v", r.Name(), d, D, even, s)
					}
				}
			}
		}
	}
}

// TestSRCountsAndRounding: D = 2n(d+1) points are used exactly; other D round up to whole rules.
func TestSRCountsAndRounding(t *testing.T) {
	for _, d := range []int{1, 4, 16, 33} {
		for n := 1; n <= 3; n++ {
			D := 2 * n * (d + 1)
			for _, even := range []bool{true, false} {
				p, _ := SR{}.Draw(d, D, even, newRng(1))
				if p.Len() != D {
					t.Errorf("d=%d n=%d even=%v: Len %d, want %d", d, n, even, p.Len(), D)
				}
			}
		}
		p, _ := SR{}.Draw(d, d+2, true, newRng(2))
		if p.Len() != 2*(d+1) {
			t.Errorf("d=%d: D=d+2 (even) must round up to 2 rules, got %d points", d, p.Len())
		}
	}
}

// TestProjectMatchesDense checks every structured projection against an explicit matrix product.
func TestProjectMatchesDense(t *testing.T) {
	rng := newRng(3)
	for _, r := range allRules() {
		for _, d := range []int{1, 2, 5, 16, 37, 64} {
			for _, even := range []bool{true, false} {
				p, err := r.Draw(d, 3*d+5, even, newRng(uint64(d)))
				if err != nil {
					t.Fatal(err)
				}
				W := Dense(p)
				for _, rows := range []int{1, 3, 70, 130} {
					x := make([]float64, rows*d)
					for i := range x {
						x[i] = rng.NormFloat64()
					}
					got := make([]float64, rows*p.Len())
					p.Project(got, x, rows)
					for i := 0; i < rows; i++ {
						for j := 0; j < p.Len(); j++ {
							var want float64
							for k := 0; k < d; k++ {
								want += W[j*d+k] * x[i*d+k]
							}
							if math.Abs(got[i*p.Len()+j]-want) > 1e-12*(1+math.Abs(want)) {
								t.Fatalf("%s d=%d rows=%d: (%d,%d) = %v, want %v", r.Name(), d, rows, i, j, got[i*p.Len()+j], want)
							}
						}
					}
				}
			}
		}
	}
}

// TestProjectOneRowSameBits: a row projected alone (the one-vector paths of the structured operators) gives the
// bits it gets inside a block, so a prediction does not depend on how many rows are mapped together.
func TestProjectOneRowSameBits(t *testing.T) {
	rng := newRng(4)
	for _, r := range allRules() {
		for _, d := range []int{1, 2, 5, 16, 37, 64, 100} {
			for _, even := range []bool{true, false} {
				p, err := r.Draw(d, 3*d+5, even, newRng(uint64(d)))
				if err != nil {
					t.Fatal(err)
				}
				const rows = 70
				x := make([]float64, rows*d)
				for i := range x {
					x[i] = rng.NormFloat64()
				}
				D := p.Len()
				block, one := make([]float64, rows*D), make([]float64, D)
				p.Project(block, x, rows)
				for i := range rows {
					p.Project(one, x[i*d:(i+1)*d], 1)
					for j, v := range one {
						if math.Float64bits(v) != math.Float64bits(block[i*D+j]) {
							t.Fatalf("%s d=%d even=%v row %d: point %d is %v alone, %v in the block", r.Name(), d, even, i, j,
								v, block[i*D+j])
						}
					}
				}
			}
		}
	}
}

// TestSRButterflyPointsAreRotatedSimplex rebuilds ω_j = ±ρ_j Q v_j from the butterfly's dense matrix and the simplex,
// independently of Project, and checks the realization's points.
func TestSRButterflyPointsAreRotatedSimplex(t *testing.T) {
	for _, d := range []int{1, 3, 8, 13} {
		for _, even := range []bool{true, false} {
			p, _ := SR{Butterfly}.Draw(d, 4*(d+1), even, newRng(uint64(d+7)))
			sp := p.(*srButterfly)
			W := Dense(p)
			V := structured.Simplex(d)
			m := d + 1
			for k := 0; k < sp.t; k++ {
				Q := sp.bf[k].Dense()
				for j := 0; j < m; j++ {
					for i := 0; i < d; i++ {
						var qv float64 // (Q v_j)_i
						for l := 0; l < d; l++ {
							qv += Q[i*d+l] * V[l*m+j]
						}
						want := sp.rho[k*m+j] * qv
						if got := W[(k*sp.per+j)*d+i]; math.Abs(got-want) > 1e-12 {
							t.Fatalf("d=%d: point (%d,%d) coordinate %d = %v, want %v", d, k, j, i, got, want)
						}
						if !even {
							if got := W[(k*sp.per+m+j)*d+i]; math.Abs(got+want) > 1e-12 {
								t.Fatalf("d=%d: reflected point differs", d)
							}
						}
					}
				}
			}
		}
	}
}

// TestSRExactForCubics: every realization of SR(3,3) integrates every polynomial of degree ≤ 3 exactly.
// For f(w) = c + bᵀw + wᵀAw + Σ T_ijk w_i w_j w_k, E[f] = c + tr(A) under N(0, I). Even realizations (merged ±
// pairs) are only valid for even f, so they are checked on c + wᵀAw.
func TestSRExactForCubics(t *testing.T) {
	rng := newRng(5)
	for _, rot := range []Rotation{Butterfly, Haar} {
		for _, d := range []int{1, 2, 3, 4, 7, 10, 16, 33} {
			for _, even := range []bool{true, false} {
				for trial := 0; trial < 5; trial++ {
					p, _ := SR{rot}.Draw(d, (trial+1)*(d+1)*2, even, rng)
					c := rng.NormFloat64()
					b := make([]float64, d)
					A := make([]float64, d*d)
					T := make([]float64, d*d*d)
					var tr float64
					for i := range b {
						b[i] = rng.NormFloat64()
						for j := range d {
							A[i*d+j] = rng.NormFloat64()
						}
						tr += A[i*d+i]
					}
					for i := range T {
						T[i] = rng.NormFloat64()
					}
					f := func(w []float64) float64 {
						v := c
						for i := 0; i < d; i++ {
							for j := 0; j < d; j++ {
								v += A[i*d+j] * w[i] * w[j]
							}
						}
						if even {
							return v
						}
						for i := 0; i < d; i++ {
							v += b[i] * w[i]
							for j := 0; j < d; j++ {
								for k := 0; k < d; k++ {
									v += T[(i*d+j)*d+k] * w[i] * w[j] * w[k]
								}
							}
						}
						return v
					}
					W := Dense(p)
					est := p.Zero() * c
					scale := math.Abs(c) + math.Abs(tr)
					for j, w := range p.Weights() {
						fj := f(W[j*d : (j+1)*d])
						est += w * fj
						scale += w * math.Abs(fj)
					}
					if math.Abs(est-(c+tr)) > 1e-10*scale {
						t.Errorf("%s d=%d even=%v: rule gives %v, integral %v", SR{rot}.Name(), d, even, est, c+tr)
					}
				}
			}
		}
	}
}

// gridValue is the tensor Gauss–Hermite quadrature of cos(ωᵀδ), Π_i Σ_k a_k cos(x_k δ_i): what GQ is unbiased for.
func gridValue(m int, delta []float64) float64 {
	x, a := structured.GaussHermite(m)
	v := 1.0
	for _, di := range delta {
		var s float64
		for k := range x {
			s += a[k] * math.Cos(x[k]*di)
		}
		v *= s
	}
	return v
}

// TestUnbiased: over many independent realizations, the rule's estimate of E[cos(ωᵀδ)] = exp(−‖δ‖²/2) (even) and
// of E[relu(ωᵀx)relu(ωᵀy)] (odd) has a mean within 4 standard errors of the integral. GQ is checked against the
// tensor-grid value it is unbiased for; SORF, whose rows have the fixed norm √n, is checked at d = 200, where its
// O(1/d) bias is far below the resolution of the test.
func TestUnbiased(t *testing.T) {
	const seeds = 400
	for _, r := range allRules() {
		d := 6
		if _, ok := r.(SORF); ok {
			d = 200
		}
		rng := newRng(11)
		delta := make([]float64, d)
		x, y := make([]float64, d), make([]float64, d)
		for i := range delta {
			delta[i] = rng.NormFloat64() * 0.9 / math.Sqrt(float64(d))
			x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		var dd, xx, yy, xy float64
		for i := range delta {
			dd += delta[i] * delta[i]
			xx += x[i] * x[i]
			yy += y[i] * y[i]
			xy += x[i] * y[i]
		}
		wantCos := math.Exp(-dd / 2)
		if g, ok := r.(GQ); ok {
			m := g.Degree
			if m == 0 {
				m = 2
			}
			wantCos = gridValue(m, delta)
		}
		theta := math.Acos(xy / math.Sqrt(xx*yy))
		wantRelu := math.Sqrt(xx*yy) * (math.Sin(theta) + (math.Pi-theta)*math.Cos(theta)) / (2 * math.Pi)
		type target struct {
			even bool
			f    func(w []float64) float64
			f0   float64
			want float64
		}
		for _, tg := range []target{
			{true, func(w []float64) float64 { return math.Cos(dot(w, delta)) }, 1, wantCos},
			{false, func(w []float64) float64 { return math.Max(0, dot(w, x)) * math.Max(0, dot(w, y)) }, 0, wantRelu},
		} {
			if g, ok := r.(GQ); ok && !tg.even {
				_ = g // the grid value of the ReLU product has no closed form; GQ is covered by the even target
				continue
			}
			var s, s2 float64
			for seed := 0; seed < seeds; seed++ {
				p, err := r.Draw(d, 2*(d+1), tg.even, newRng(uint64(1000+seed)))
				if err != nil {
					t.Fatal(err)
				}
				W := Dense(p)
				est := p.Zero() * tg.f0
				for j, w := range p.Weights() {
					est += w * tg.f(W[j*d:(j+1)*d])
				}
				s += est
				s2 += est * est
			}
			mean := s / seeds
			se := math.Sqrt((s2/seeds - mean*mean) / seeds)
			if math.Abs(mean-tg.want) > 4*se+1e-15 {
				t.Errorf("%s even=%v: mean %v ± %v, want %v", r.Name(), tg.even, mean, se, tg.want)
			}
		}
	}
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestOrthogonalBlocks: ORF blocks are S·Q with orthogonal Q (rows orthogonal, norms χ_d draws); SORF blocks are
// √n times an orthogonal matrix (for d a power of two, W_blk W_blkᵀ = n I).
func TestOrthogonalBlocks(t *testing.T) {
	for _, d := range []int{1, 4, 16, 64} {
		for name, r := range map[string]Rule{"orf": ORF{}, "sorf": SORF{}} {
			p, _ := r.Draw(d, 3*d, true, newRng(uint64(d)))
			W := Dense(p)
			for blk := 0; blk < 3; blk++ {
				for i := 0; i < d; i++ {
					for j := 0; j < d; j++ {
						g := dot(W[(blk*d+i)*d:(blk*d+i+1)*d], W[(blk*d+j)*d:(blk*d+j+1)*d])
						ni := math.Sqrt(dot(W[(blk*d+i)*d:(blk*d+i+1)*d], W[(blk*d+i)*d:(blk*d+i+1)*d]))
						nj := math.Sqrt(dot(W[(blk*d+j)*d:(blk*d+j+1)*d], W[(blk*d+j)*d:(blk*d+j+1)*d]))
						want := 0.0
						if i == j {
							want = ni * nj
							if name == "sorf" && math.Abs(g-float64(d)) > 1e-12*float64(d) {
								t.Errorf("sorf d=%d: row norm² %v, want %d", d, g, d)
							}
						}
						if math.Abs(g-want) > 1e-12*ni*nj {
							t.Errorf("%s d=%d block %d: rows %d,%d inner product %v", name, d, blk, i, j, g)
						}
					}
				}
			}
		}
	}
}

func TestDeterminism(t *testing.T) {
	for _, r := range allRules() {
		a, _ := r.Draw(9, 40, true, newRng(42))
		b, _ := r.Draw(9, 40, true, newRng(42))
		c, _ := r.Draw(9, 40, true, newRng(43))
		wa, wb, wc := Dense(a), Dense(b), Dense(c)
		same, diff := true, false
		for i := range wa {
			same = same && wa[i] == wb[i]
			diff = diff || wa[i] != wc[i]
		}
		if !same {
			t.Errorf("%s: same seed, different points", r.Name())
		}
		if !diff {
			t.Errorf("%s: different seeds, same points", r.Name())
		}
	}
}

// TestParseSuffix: only gq takes a parameter after a colon; any other rule with a suffix is refused, naming the
// rule and the form that is accepted, rather than parsed as the plain rule.
func TestParseSuffix(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"g:5", "g takes no parameter"},
		{"rff:2", "g takes no parameter"},
		{"sr-butterfly:abc", "sr-butterfly takes no parameter"},
		{"b:3", "sr-butterfly takes no parameter"},
		{"sr-haar:1", "sr-haar takes no parameter"},
		{"qmc:xyz", "qmc takes no parameter"},
		{"orf:zzz", "orf takes no parameter"},
		{"sorf:", "sorf takes no parameter"},
		{"gq:3:junk", "Gauss–Hermite degree"},
		{"gq:", "Gauss–Hermite degree"},
	} {
		t.Run(c.in, func(t *testing.T) {
			r, err := Parse(c.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want an error", c.in, r.Name())
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.in) {
				t.Errorf("Parse(%q): %q, want it to name the input and say %q", c.in, err, c.want)
			}
		})
	}
	if _, err := ParseList("g,orf:zzz"); err == nil {
		t.Error(`ParseList("g,orf:zzz") must fail`)
	}
}

func TestParse(t *testing.T) {
	for _, n := range Names() {
		r, err := Parse(n)
		if err != nil {
			t.Fatal(err)
		}
		if r.Name() != n {
			t.Errorf("Parse(%q).Name() = %q", n, r.Name())
		}
	}
	for alias, want := range map[string]string{"RFF": "g", "rom": "sorf", "B": "sr-butterfly", "h": "sr-haar", "gq:5": "gq:5", "gq:2": "gq"} {
		r, err := Parse(alias)
		if err != nil || r.Name() != want {
			t.Errorf("Parse(%q) = %v, %v; want %s", alias, r, err, want)
		}
	}
	for _, bad := range []string{"", "nope", "gq:0", "gq:x", "gq:100"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) must fail", bad)
		}
	}
	rs, err := ParseList("g, orf,sr-butterfly")
	if err != nil || len(rs) != 3 {
		t.Errorf("ParseList: %v %v", rs, err)
	}
	if _, err := ParseList(" , "); err == nil {
		t.Error("empty list must fail")
	}
	for _, r := range allRules() {
		if _, err := r.Draw(0, 5, true, newRng(1)); err == nil {
			t.Errorf("%s: d=0 must fail", r.Name())
		}
		if _, err := r.Draw(3, 0, true, newRng(1)); err == nil {
			t.Errorf("%s: D=0 must fail", r.Name())
		}
	}
}

// TestButterflyBias: SR(3,3) is unbiased only for Haar-distributed rotations. A single butterfly (B·P) repeated
// three times, as in the reference code, biases the Gaussian kernel estimate by about 0.5% of k at ‖δ‖ ≈ 1 for
// d = 3 (some 12 standard errors at 3000 seeds) and 0.15% for d = 4; three independent butterflies with random
// signs must stay within 4 standard errors.
func TestButterflyBias(t *testing.T) {
	const seeds = 3000
	for _, d := range []int{3, 4} {
		delta := make([]float64, d)
		for i := range delta {
			delta[i] = 1.2 * math.Sin(float64(i+1)) / math.Sqrt(float64(d))
		}
		want := math.Exp(-dot(delta, delta) / 2)
		var s, s2 float64
		for seed := 0; seed < seeds; seed++ {
			p, _ := SR{Butterfly}.Draw(d, 8*(d+1), true, newRng(uint64(seed)))
			W := Dense(p)
			est := p.Zero()
			for j, w := range p.Weights() {
				est += w * math.Cos(dot(W[j*d:(j+1)*d], delta))
			}
			s += est
			s2 += est * est
		}
		m := s / seeds
		se := math.Sqrt((s2/seeds - m*m) / seeds)
		if math.Abs(m-want) > 4*se {
			t.Errorf("d=%d: mean %v ± %v, kernel %v (bias %.2g)", d, m, se, want, m-want)
		}
	}
}

// SR.Rules of a dimension or a D below 1 is 0 (no rule), not a division by zero.
func TestSRRulesDegenerate(t *testing.T) {
	for _, c := range [][2]int{{0, 8}, {-1, 8}, {3, 0}, {3, -2}} {
		for _, even := range []bool{true, false} {
			if got := (SR{}).Rules(c[0], c[1], even); got != 0 {
				t.Errorf("Rules(%d, %d, %v) = %d, want 0", c[0], c[1], even, got)
			}
		}
	}
}
