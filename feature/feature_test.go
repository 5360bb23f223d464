package feature

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

func kernels(sigma float64) []kernel.Kernel {
	var ks []kernel.Kernel
	for _, n := range kernel.Names() {
		k, err := kernel.New(n, sigma)
		if err != nil {
			panic(err)
		}
		ks = append(ks, k)
	}
	return ks
}

// unbiasedRules are the rules whose estimate is exactly unbiased for every kernel (SORF has an O(1/d) bias and GQ
// is unbiased for its grid, both tested in package rule).
var unbiasedRules = []rule.Rule{rule.G{}, rule.ORF{}, rule.QMC{}, rule.SR{Rotation: rule.Butterfly}, rule.SR{Rotation: rule.Haar}}

func randRows(rng *rand.Rand, n, d int, s float64) []float64 {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = s * rng.NormFloat64()
	}
	return x
}

// TestUnbiasedEveryPair: for every kernel × rule pair, the mean of k̂(x,y) over 300 seeds is within 4 standard
// errors of the exact kernel, for two pairs of points.
func TestUnbiasedEveryPair(t *testing.T) {
	const d, seeds = 5, 300
	rng := rand.New(rand.NewPCG(1, 1))
	pts := randRows(rng, 4, d, 0.5)
	for _, k := range kernels(1.2) {
		for _, r := range unbiasedRules {
			for _, form := range []Form{CosSin, CosPhase} {
				if _, ok := k.(kernel.Pointwise); ok && form == CosPhase {
					continue
				}
				for pair := 0; pair < 2; pair++ {
					x, y := pts[2*pair*d:(2*pair+1)*d], pts[(2*pair+1)*d:(2*pair+2)*d]
					want := k.Eval(x, y)
					var s, s2 float64
					for seed := 0; seed < seeds; seed++ {
						m, err := New(k, r, d, 2*(d+1), uint64(seed), WithForm(form))
						if err != nil {
							t.Fatal(err)
						}
						z := make([]float64, 2*m.Features())
						m.TransformBlock(z, append(append([]float64{}, x...), y...), 2, nil)
						v, err := m.Estimate(z[:m.Features()], z[m.Features():])
						if err != nil {
							t.Fatal(err)
						}
						s += v
						s2 += v * v
					}
					mean := s / seeds
					se := math.Sqrt(math.Max(s2/seeds-mean*mean, 0) / seeds)
					if math.Abs(mean-want) > 4*se+1e-12 {
						t.Errorf("%s × %s (form %d, pair %d): mean %v ± %v, exact %v", k.Name(), r.Name(), form, pair, mean, se, want)
					}
				}
			}
		}
	}
}

// TestDiagonalExact: for a shift-invariant kernel, k̂(x,x) = Σ_j w_j (cos² + sin²) + w₀ = 1 for every rule and
// every realization, because the weights and the zero node sum to one.
func TestDiagonalExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, k := range kernels(0.7) {
		if _, ok := k.(kernel.Spectral); !ok {
			continue
		}
		for _, name := range rule.Names() {
			r, _ := rule.Parse(name)
			m, err := New(k, r, 7, 40, 9)
			if err != nil {
				t.Fatal(err)
			}
			x := randRows(rng, 1, 7, 1)
			z := make([]float64, m.Features())
			m.TransformBlock(z, x, 1, nil)
			if v, err := m.Estimate(z, z); err != nil || math.Abs(v-1) > 1e-12 {
				t.Errorf("%s × %s: k̂(x,x) = %v (%v), want 1", k.Name(), name, v, err)
			}
		}
	}
}

func TestShapesAndOffsets(t *testing.T) {
	g, _ := kernel.New("gaussian", 1)
	for _, tc := range []struct {
		k          kernel.Kernel
		r          rule.Rule
		form       Form
		d, D       int
		points     int
		cols       int
		zeroOffset bool
	}{
		{g, rule.G{}, CosSin, 4, 10, 10, 20, true},
		{g, rule.G{}, CosPhase, 4, 10, 10, 10, true},
		{g, rule.SR{}, CosSin, 4, 10, 10, 20, false},
		{g, rule.SR{}, CosSin, 4, 11, 15, 30, false}, // rounded up to 3 rules of d+1 points
		{kernel.ArcCos{Order: 1}, rule.SR{}, CosSin, 4, 10, 10, 10, true},
		{kernel.ArcCos{Order: 0}, rule.SR{}, CosSin, 4, 10, 10, 10, false},
		{kernel.ArcCos{Order: 0}, rule.ORF{}, CosSin, 4, 10, 10, 10, true},
	} {
		m, err := New(tc.k, tc.r, tc.d, tc.D, 1, WithForm(tc.form))
		if err != nil {
			t.Fatal(err)
		}
		if m.Points() != tc.points || m.Features() != tc.cols || m.Dim() != tc.d {
			t.Errorf("%s/%s: points %d cols %d, want %d %d", tc.k.Name(), tc.r.Name(), m.Points(), m.Features(), tc.points, tc.cols)
		}
		if (m.Offset() == 0) != tc.zeroOffset {
			t.Errorf("%s/%s: offset %v", tc.k.Name(), tc.r.Name(), m.Offset())
		}
	}
}

// TestDeterministicAndParallel: the same seed gives bit-identical features whether mapped by one goroutine or by
// all cores; another seed gives different features. Run with -race.
func TestDeterministicAndParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const n, d = 1000, 12
	x := randRows(rng, n, d, 1)
	for _, name := range rule.Names() {
		r, _ := rule.Parse(name)
		for _, k := range []kernel.Kernel{kernel.Gaussian{S: 2}, kernel.Laplacian{S: 2}, kernel.ArcCos{Order: 1}} {
			a, _ := New(k, r, d, 64, 77)
			b, _ := New(k, r, d, 64, 77)
			c, _ := New(k, r, d, 64, 78)
			za := make([]float64, n*a.Features())
			zb := make([]float64, n*b.Features())
			zc := make([]float64, n*c.Features())
			if err := a.TransformRows(za, x, n); err != nil {
				t.Fatal(err)
			}
			b.TransformBlock(zb, x, n, nil)
			if err := c.TransformRows(zc, x, n); err != nil {
				t.Fatal(err)
			}
			diff := false
			for i := range za {
				if za[i] != zb[i] {
					t.Fatalf("%s/%s: parallel and serial features differ at %d", k.Name(), name, i)
				}
				diff = diff || za[i] != zc[i]
			}
			if !diff {
				t.Errorf("%s/%s: different seeds gave identical features", k.Name(), name)
			}
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	m, _ := New(kernel.Gaussian{S: 1}, rule.SR{}, 20, 200, 5)
	rng := rand.New(rand.NewPCG(4, 4))
	x := randRows(rng, 300, 20, 1)
	want := make([]float64, 300*m.Features())
	m.TransformBlock(want, x, 300, nil)
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			got := make([]float64, 300*m.Features())
			_ = m.TransformRows(got, x, 300)
			for i := range got {
				if got[i] != want[i] {
					t.Error("concurrent Transform differs")
					break
				}
			}
			done <- true
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}

func TestErrors(t *testing.T) {
	m, _ := New(kernel.Gaussian{S: 1}, rule.G{}, 3, 5, 1)
	if err := m.TransformRows(make([]float64, 10), make([]float64, 6), 2); err == nil {
		t.Error("wrong output length must fail")
	}
	if err := m.TransformRows(make([]float64, 20), make([]float64, 5), 2); err == nil {
		t.Error("wrong input length must fail")
	}
	x := []float64{1, 2, math.NaN(), 4, 5, 6}
	if err := m.TransformRows(make([]float64, 20), x, 2); err == nil {
		t.Error("NaN must fail")
	}
	if err := m.Transform(&mat.Dense{}, mat.NewDense(2, 4, nil)); err == nil {
		t.Error("wrong input width must fail")
	}
	if _, err := New(nil, rule.G{}, 3, 5, 1); err == nil {
		t.Error("nil kernel must fail")
	}
	if _, err := New(kernel.Gaussian{S: 1}, rule.G{}, 0, 5, 1); err == nil {
		t.Error("d = 0 must fail")
	}
	var dst mat.Dense
	if err := m.Transform(&dst, mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})); err != nil {
		t.Fatal(err)
	}
	if r, c := dst.Dims(); r != 2 || c != 10 {
		t.Errorf("Transform allocated %d×%d", r, c)
	}
}
