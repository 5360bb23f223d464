package dataset

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

const epsilon = 2.220446049250313e-16

// fieldMoments returns M_k = (1/√D)Σ_j (|θ_j| + |θ_{D+j}|)·‖ω_j‖_∞^k, which bounds every k-th partial derivative of
// the potential f.
func fieldMoments(f *curlField, k int) float64 {
	const d, D = CurlFieldDim, CurlFieldPoints
	var s float64
	for j := 0; j < D; j++ {
		var om float64
		for _, w := range f.omega[j*d : (j+1)*d] {
			om = max(om, math.Abs(w))
		}
		s += (math.Abs(f.theta[j]) + math.Abs(f.theta[D+j])) * math.Pow(om, float64(k))
	}
	return s / math.Sqrt(D)
}

// TestCurlFieldGradient: the analytic gradient equals central differences of f within their error bound
// h²/6·M₃ + (2D)·ε·M₀/h (truncation, and rounding of the 2D-term sums), at random points of [−1,1]⁵.
func TestCurlFieldGradient(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		f := newCurlField(seed)
		g, err := GenerateCurlField(20, seed, 0)
		if err != nil {
			t.Fatal(err)
		}
		h := 1e-5
		tol := h*h/6*fieldMoments(f, 3) + 2*CurlFieldPoints*epsilon*fieldMoments(f, 0)/h
		var scale float64
		for _, v := range g.Y {
			scale = max(scale, math.Abs(v))
		}
		if tol > 1e-5*scale {
			t.Fatalf("finite-difference bound %v too loose for gradients of size %v", tol, scale)
		}
		x := make([]float64, CurlFieldDim)
		for i := 0; i < g.N; i++ {
			row := g.X[i*CurlFieldDim : (i+1)*CurlFieldDim]
			for b := 0; b < CurlFieldDim; b++ {
				copy(x, row)
				x[b] += h
				fp := f.value(x)
				x[b] -= 2 * h
				fm := f.value(x)
				fd := (fp - fm) / (2 * h)
				if got := g.Y[i*CurlFieldDim+b]; math.Abs(got-fd) > tol {
					t.Errorf("seed %d row %d: ∂f/∂x%d = %v, finite differences %v (bound %v)", seed, i, b+1, got, fd, tol)
				}
			}
		}
	}
}

// TestCurlFieldJacobianSymmetric: the Jacobian of the generated field, by central differences of the gradient, is
// symmetric (the field is a gradient, hence curl-free) within twice the finite-difference bound h²/6·M₄ + 2D·ε·M₁/h.
func TestCurlFieldJacobianSymmetric(t *testing.T) {
	const d = CurlFieldDim
	f := newCurlField(7)
	g, _ := GenerateCurlField(10, 7, 0)
	h := 1e-5
	tol := h*h/6*fieldMoments(f, 4) + 2*CurlFieldPoints*epsilon*fieldMoments(f, 1)/h
	x := make([]float64, d)
	gp, gm := make([]float64, d), make([]float64, d)
	for i := 0; i < g.N; i++ {
		J := make([]float64, d*d)
		var scale float64
		for b := 0; b < d; b++ {
			copy(x, g.X[i*d:(i+1)*d])
			x[b] += h
			f.gradient(gp, x)
			x[b] -= 2 * h
			f.gradient(gm, x)
			for a := 0; a < d; a++ {
				J[a*d+b] = (gp[a] - gm[a]) / (2 * h)
				scale = max(scale, math.Abs(J[a*d+b]))
			}
		}
		if 2*tol > 1e-4*scale {
			t.Fatalf("finite-difference bound %v too loose for a Jacobian of size %v", tol, scale)
		}
		for a := 0; a < d; a++ {
			for b := 0; b < a; b++ {
				if math.Abs(J[a*d+b]-J[b*d+a]) > 2*tol {
					t.Errorf("row %d: J[%d,%d] = %v, J[%d,%d] = %v", i, a, b, J[a*d+b], b, a, J[b*d+a])
				}
			}
		}
	}
}

// TestMultitaskNoiseFree: without noise, y = Wφ(x) exactly for the W of the same seed; inputs lie in [0,1].
func TestMultitaskNoiseFree(t *testing.T) {
	g, err := GenerateMultitask(500, 11, 0)
	if err != nil {
		t.Fatal(err)
	}
	W := multitaskW(11)
	var phi [7]float64
	for i := 0; i < g.N; i++ {
		x := g.X[i*MultitaskDim : (i+1)*MultitaskDim]
		for _, v := range x {
			if v < 0 || v > 1 {
				t.Fatalf("input %v outside [0,1]", v)
			}
		}
		// φ(x) from the 1-based definition (x₁², x₄², x₁x₂, x₃x₅, x₂, x₄, 1).
		x1, x2, x3, x4, x5 := x[0], x[1], x[2], x[3], x[4]
		phi = [7]float64{x1 * x1, x4 * x4, x1 * x2, x3 * x5, x2, x4, 1}
		for tk := 0; tk < MultitaskOutputs; tk++ {
			var want float64
			for k := range phi {
				want += W[tk*7+k] * phi[k]
			}
			if got := g.Y[i*MultitaskOutputs+tk]; got != want {
				t.Fatalf("row %d output %d: y = %v, Wφ(x) = %v", i, tk, got, want)
			}
		}
	}
}

// TestMultitaskW: over many seeds, each entry W[t,k] has mean 0 and variance v_k, within 5 standard errors.
func TestMultitaskW(t *testing.T) {
	const seeds = 4000
	var s, s2 [MultitaskOutputs * 7]float64
	for seed := uint64(0); seed < seeds; seed++ {
		for i, w := range multitaskW(seed) {
			s[i] += w
			s2[i] += w * w
		}
	}
	for i := range s {
		v := multitaskVar[i%7]
		mean := s[i] / seeds
		if math.Abs(mean) > 5*math.Sqrt(v/seeds) {
			t.Errorf("W entry %d: mean %v, sd of the mean %v", i, mean, math.Sqrt(v/seeds))
		}
		// The sample second moment of N(0, v) has variance 2v²/seeds.
		if m2 := s2[i] / seeds; math.Abs(m2-v) > 5*v*math.Sqrt(2.0/seeds) {
			t.Errorf("W entry %d: variance %v, want %v", i, m2, v)
		}
	}
}

// TestGenerateDeterministic: same seed → identical data; another seed → different data; the noise leaves inputs and
// clean targets unchanged and has the requested standard deviation (within 5 standard errors of a sample sd);
// fewer rows give a prefix.
func TestGenerateDeterministic(t *testing.T) {
	for _, name := range Generators() {
		a, _ := Generate(name, 300, 5, 0)
		b, _ := Generate(name, 300, 5, 0)
		c, _ := Generate(name, 300, 6, 0)
		if !equal(a.X, b.X) || !equal(a.Y, b.Y) {
			t.Errorf("%s: same seed gave different data", name)
		}
		if equal(a.X, c.X) || equal(a.Y, c.Y) {
			t.Errorf("%s: different seeds gave identical data", name)
		}
		const s = 0.3
		noisy, _ := Generate(name, 300, 5, s)
		if !equal(a.X, noisy.X) {
			t.Errorf("%s: noise changed the inputs", name)
		}
		var ss float64
		for i := range a.Y {
			e := noisy.Y[i] - a.Y[i]
			ss += e * e
		}
		n := float64(len(a.Y))
		sd := math.Sqrt(ss / n)
		if math.Abs(sd-s) > 5*s/math.Sqrt(2*n) { // sd of a sample sd ≈ s/√(2n)
			t.Errorf("%s: noise sd %v, want %v", name, sd, s)
		}
		short, _ := Generate(name, 50, 5, s)
		if !equal(short.X, noisy.X[:len(short.X)]) || !equal(short.Y, noisy.Y[:len(short.Y)]) {
			t.Errorf("%s: 50 rows are not a prefix of 300 rows", name)
		}
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGenerateShapesAndCSV: shapes, names, input ranges, the CSV header, and an exact round trip through ReadCSV.
func TestGenerateShapesAndCSV(t *testing.T) {
	for _, tc := range []struct {
		name   string
		d, p   int
		lo, hi float64
		header string
	}{
		{"curl-field", 5, 5, -1, 1, "x1,x2,x3,x4,x5,y1,y2,y3,y4,y5"},
		{"multitask", 20, 4, 0, 1, "x1,x2,x3,x4,x5,x6,x7,x8,x9,x10,x11,x12,x13,x14,x15,x16,x17,x18,x19,x20,y1,y2,y3,y4"},
	} {
		g, err := Generate(tc.name, 40, 3, 0.1)
		if err != nil {
			t.Fatal(err)
		}
		if g.N != 40 || g.D != tc.d || g.P != tc.p || len(g.X) != 40*tc.d || len(g.Y) != 40*tc.p ||
			len(g.Names) != tc.d || len(g.TargetNames) != tc.p {
			t.Fatalf("%s: N=%d D=%d P=%d", tc.name, g.N, g.D, g.P)
		}
		for _, v := range g.X {
			if v < tc.lo || v > tc.hi {
				t.Fatalf("%s: input %v outside [%v,%v]", tc.name, v, tc.lo, tc.hi)
			}
		}
		var buf bytes.Buffer
		if err := g.WriteCSV(&buf); err != nil {
			t.Fatal(err)
		}
		if first, _, _ := strings.Cut(buf.String(), "\n"); first != tc.header {
			t.Errorf("%s: header %q, want %q", tc.name, first, tc.header)
		}
		back, err := ReadCSV(bytes.NewReader(buf.Bytes()), tc.name+".csv", "none")
		if err != nil {
			t.Fatal(err)
		}
		if back.N != g.N || back.D != g.D+g.P {
			t.Fatalf("%s: read back %d×%d", tc.name, back.N, back.D)
		}
		for i := 0; i < g.N; i++ {
			row := back.Row(i)
			if !equal(row[:g.D], g.X[i*g.D:(i+1)*g.D]) || !equal(row[g.D:], g.Y[i*g.P:(i+1)*g.P]) {
				t.Fatalf("%s: row %d does not round-trip", tc.name, i)
			}
		}
		// Output j is a single-target view with the right name and values.
		o, err := g.Output(g.P - 1)
		if err != nil {
			t.Fatal(err)
		}
		if o.TargetName != tc.header[strings.LastIndex(tc.header, ",")+1:] || o.Y[7] != g.Y[7*g.P+g.P-1] || o.D != g.D {
			t.Errorf("%s: Output gave target %q", tc.name, o.TargetName)
		}
		if _, err := g.Output(g.P); err == nil {
			t.Errorf("%s: Output(%d) must fail", tc.name, g.P)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	defer setMaxDense(1000)()
	for _, tc := range []struct {
		name  string
		gen   string
		n     int
		noise float64
		want  string
	}{
		{"unknown", "spiral", 10, 0, "unknown generator"},
		{"n=0", "curl-field", 0, 0, "at least 1"},
		{"n<0", "multitask", -5, 0, "at least 1"},
		{"negative noise", "curl-field", 10, -0.1, "noise"},
		{"NaN noise", "multitask", 10, math.NaN(), "noise"},
		{"Inf noise", "multitask", 10, math.Inf(1), "noise"},
		{"too large", "multitask", 100, 0, "limit"},
	} {
		_, err := Generate(tc.gen, tc.n, 1, tc.noise)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q does not mention %q", tc.name, err, tc.want)
		}
	}
}

// TestGenerateDispatch: Generate by name is the named generator.
func TestGenerateDispatch(t *testing.T) {
	a, _ := Generate("Curl-Field", 10, 9, 0.2)
	b, _ := GenerateCurlField(10, 9, 0.2)
	c, _ := Generate("multitask", 10, 9, 0.2)
	d, _ := GenerateMultitask(10, 9, 0.2)
	if !equal(a.Y, b.Y) || !equal(c.Y, d.Y) {
		t.Error("Generate does not dispatch to the named generator")
	}
}
