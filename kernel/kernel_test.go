package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randVec(rng *rand.Rand, d int, scale float64) []float64 {
	v := make([]float64, d)
	for i := range v {
		v[i] = scale * rng.NormFloat64()
	}
	return v
}

func allKernels(sigma float64) []Kernel {
	var ks []Kernel
	for _, n := range Names() {
		k, err := New(n, sigma)
		if err != nil {
			panic(err)
		}
		ks = append(ks, k)
	}
	return ks
}

// besselKHalf returns K_ν(z) for ν ∈ {1/2, 3/2, 5/2} from the closed forms of the modified Bessel function
// of half-integer order (Abramowitz & Stegun 10.2.17): K_{n+1/2}(z) = sqrt(π/(2z)) e^{-z} Σ_k (n+k)!/(k!(n-k)!) (2z)^{-k}.
func besselKHalf(nu, z float64) float64 {
	n := int(nu - 0.5)
	s := 0.0
	for k := 0; k <= n; k++ {
		s += float64(fact(n+k)) / float64(fact(k)*fact(n-k)) * math.Pow(2*z, -float64(k))
	}
	return math.Sqrt(math.Pi/(2*z)) * math.Exp(-z) * s
}

func fact(n int) int {
	if n <= 1 {
		return 1
	}
	return n * fact(n-1)
}

func TestExactAgainstIndependentFormulas(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		d := 1 + rng.IntN(6)
		sigma := 0.3 + 2*rng.Float64()
		x, y := randVec(rng, d, 1), randVec(rng, d, 1)
		r := math.Sqrt(sqDist(x, y))
		// Gaussian: product of one-dimensional Gaussians.
		want := 1.0
		for i := range x {
			want *= math.Exp(-(x[i] - y[i]) * (x[i] - y[i]) / (2 * sigma * sigma))
		}
		if got := (Gaussian{sigma}).Eval(x, y); math.Abs(got-want) > 1e-14 {
			t.Errorf("gaussian: got %v want %v", got, want)
		}
		// Laplacian: product of exp(-|δ_i|/σ).
		want = 1.0
		for i := range x {
			want *= math.Exp(-math.Abs(x[i]-y[i]) / sigma)
		}
		if got := (Laplacian{sigma}).Eval(x, y); math.Abs(got-want) > 1e-14 {
			t.Errorf("laplacian: got %v want %v", got, want)
		}
		// Matérn: the general Bessel form 2^{1-ν}/Γ(ν) z^ν K_ν(z), z = sqrt(2ν) r/σ.
		for _, nu := range []float64{0.5, 1.5, 2.5} {
			z := math.Sqrt(2*nu) * r / sigma
			want := math.Pow(2, 1-nu) / math.Gamma(nu) * math.Pow(z, nu) * besselKHalf(nu, z)
			if got := (Matern{nu, sigma}).Eval(x, y); math.Abs(got-want) > 1e-12 {
				t.Errorf("matern ν=%v: got %v want %v", nu, got, want)
			}
		}
		// Cauchy: product of 1/(1+t_i²), t_i = δ_i/σ.
		want = 1.0
		for i := range x {
			tt := (x[i] - y[i]) / sigma
			want *= 1 / (1 + tt*tt)
		}
		if got := (Cauchy{sigma}).Eval(x, y); math.Abs(got-want) > 1e-14 {
			t.Errorf("cauchy: got %v want %v", got, want)
		}
	}
}

func TestShiftInvariantBasics(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range allKernels(1.3) {
		x, y := randVec(rng, 5, 1), randVec(rng, 5, 1)
		if math.Abs(k.Eval(x, y)-k.Eval(y, x)) > 1e-15 {
			t.Errorf("%s not symmetric", k.Name())
		}
		if _, ok := k.(Spectral); ok {
			if math.Abs(k.Eval(x, x)-1) > 1e-15 {
				t.Errorf("%s: k(x,x)=%v, want 1", k.Name(), k.Eval(x, x))
			}
			shift := randVec(rng, 5, 1)
			xs, ys := make([]float64, 5), make([]float64, 5)
			for i := range xs {
				xs[i], ys[i] = x[i]+shift[i], y[i]+shift[i]
			}
			if math.Abs(k.Eval(x, y)-k.Eval(xs, ys)) > 1e-13 {
				t.Errorf("%s not shift-invariant", k.Name())
			}
		}
	}
}

// TestGramPSD checks that every Gram matrix on random points is symmetric positive semidefinite:
// its smallest eigenvalue is above −n·ε‖K‖ (rounding).
func TestGramPSD(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, d = 40, 3
	X := randVec(rng, n*d, 1)
	for _, k := range allKernels(0.9) {
		K := make([]float64, n*n)
		if err := Gram(K, k, X, n, X, n, d); err != nil {
			t.Fatal(err)
		}
		S := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if K[i*n+j] != K[j*n+i] {
					t.Fatalf("%s: Gram not symmetric", k.Name())
				}
				S.SetSym(i, j, K[i*n+j])
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(S, false) {
			t.Fatal("eigen failed")
		}
		vals := eig.Values(nil)
		if vals[0] < -1e-12*float64(n)*vals[n-1] {
			t.Errorf("%s: smallest eigenvalue %v", k.Name(), vals[0])
		}
	}
}

// TestSpectralLawCharacteristicFunction checks Bochner's identity κ(δ) = E[cos(ωᵀδ)] for every shift-invariant
// kernel with ω drawn from its Law: the Monte Carlo mean is within 4 standard errors of the exact kernel.
func TestSpectralLawCharacteristicFunction(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const samples = 100000
	for _, k := range allKernels(1.1) {
		sk, ok := k.(Spectral)
		if !ok {
			continue
		}
		for _, d := range []int{1, 3, 8} {
			delta := randVec(rng, d, 0.6)
			want := k.Eval(delta, make([]float64, d))
			w := make([]float64, d)
			var s, s2 float64
			for range samples {
				sk.Law().Sample(w, rng)
				var dot float64
				for i := range w {
					dot += w[i] * delta[i]
				}
				c := math.Cos(dot)
				s += c
				s2 += c * c
			}
			mean := s / samples
			se := math.Sqrt((s2/samples - mean*mean) / samples)
			if math.Abs(mean-want) > 4*se {
				t.Errorf("%s d=%d: E cos = %v ± %v, kernel %v", k.Name(), d, mean, se, want)
			}
		}
	}
}

// TestSpectralMoments checks second moments where they exist and medians where they do not.
func TestSpectralMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const sigma, d, samples = 0.7, 4, 200000
	type check struct {
		k    Spectral
		stat func(w []float64) float64 // statistic of one draw
		want float64
	}
	med := func(w []float64) float64 { // indicator |ω_1| ≤ 1/σ: probability 1/2 for Cauchy and t₁ marginals
		if math.Abs(w[0]) <= 1/sigma {
			return 1
		}
		return 0
	}
	sq := func(w []float64) float64 { return w[0] * w[0] }
	checks := []check{
		{Gaussian{sigma}, sq, 1 / (sigma * sigma)},
		{Cauchy{sigma}, sq, 2 / (sigma * sigma)},            // Laplace(0, b=1/σ): variance 2b²
		{Matern{2.5, sigma}, sq, 5.0 / 3 / (sigma * sigma)}, // t₅: variance 5/3 per coordinate
		{Laplacian{sigma}, med, 0.5},                        // Cauchy(0, 1/σ): median of |ω| is 1/σ
		{Matern{0.5, sigma}, med, 0.5},                      // t₁ marginal is Cauchy(0, 1/σ)
		{Matern{1.5, sigma}, func(w []float64) float64 { // t₃ marginal: P(|ω₁| ≤ 1/σ) = t3Within1
			if math.Abs(w[0]) <= 1/sigma {
				return 1
			}
			return 0
		}, t3Within1},
	}
	for _, c := range checks {
		w := make([]float64, d)
		var s, s2 float64
		for range samples {
			c.k.Law().Sample(w, rng)
			v := c.stat(w)
			s += v
			s2 += v * v
		}
		mean := s / samples
		se := math.Sqrt((s2/samples - mean*mean) / samples)
		if math.Abs(mean-c.want) > 4*se {
			t.Errorf("%s: statistic %v ± %v, want %v", c.k.Name(), mean, se, c.want)
		}
	}
}

// t3Within1 is P(|T| ≤ 1) for Student's t with 3 degrees of freedom: the CDF is
// F(t) = 1/2 + (1/π)[t/(√3(1+t²/3)) + atan(t/√3)], so P = 2F(1) − 1.
var t3Within1 = 2 * (1 / math.Pi) * (1/(math.Sqrt(3)*(1+1.0/3)) + math.Atan(1/math.Sqrt(3)))

func TestQuantileTransforms(t *testing.T) {
	for _, z := range []float64{-37, -20, -8, -3, -1, -0.1, 0, 1e-9, 0.5, 2, 6, 9, 20, 37} {
		p := 0.5 * math.Erfc(-z/math.Sqrt2) // Φ(z)
		c := CauchyFromNormal(z)
		// Compare tails on the side where they are small, to keep relative precision.
		// F(c) = 1/2 + atan(c)/π; each tail is atan(1/|c|)/π, which keeps relative precision.
		fc := 0.5
		if z != 0 {
			fc = math.Atan(1/math.Abs(c)) / math.Pi
			p = 0.5 * math.Erfc(math.Abs(z)/math.Sqrt2)
		}
		if math.Abs(fc-p) > 1e-13*math.Max(p, 1e-300) && math.Abs(fc-p) > 1e-300 {
			t.Errorf("cauchy z=%v: tail %v want %v", z, fc, p)
		}
		l := LaplaceFromNormal(z)
		var fl float64 // tail probability on the side of z
		if l >= 0 {
			fl = 0.5 * math.Exp(-l)
		} else {
			fl = 0.5 * math.Exp(l)
		}
		q := 0.5 * math.Erfc(math.Abs(z)/math.Sqrt2)
		if math.Abs(fl-q) > 1e-13*q {
			t.Errorf("laplace z=%v: tail %v want %v", z, fl, q)
		}
		if CauchyFromNormal(-z) != -c || LaplaceFromNormal(-z) != -l {
			t.Errorf("transforms must be odd at z=%v", z)
		}
	}
}

func TestArcCosMonteCarlo(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const samples = 200000
	for _, order := range []int{0, 1} {
		k := ArcCos{order}
		for _, d := range []int{2, 5} {
			x, y := randVec(rng, d, 1), randVec(rng, d, 1)
			w := make([]float64, d)
			var s, s2 float64
			for range samples {
				for i := range w {
					w[i] = rng.NormFloat64()
				}
				var wx, wy float64
				for i := range w {
					wx += w[i] * x[i]
					wy += w[i] * y[i]
				}
				v := k.Factor() * k.Phi(wx) * k.Phi(wy)
				s += v
				s2 += v * v
			}
			mean := s / samples
			se := math.Sqrt((s2/samples - mean*mean) / samples)
			if want := k.Eval(x, y); math.Abs(mean-want) > 4*se {
				t.Errorf("arccos%d d=%d: MC %v ± %v, exact %v", order, d, mean, se, want)
			}
		}
	}
	// Diagonal: k₀(x,x) = 1, k₁(x,x) = ‖x‖²; zero vector: k₀ = 1/2 (Θ(0) = 1/2), k₁ = 0.
	x := []float64{3, 4}
	if v := (ArcCos{0}).Eval(x, x); math.Abs(v-1) > 1e-15 {
		t.Errorf("k0(x,x) = %v", v)
	}
	if v := (ArcCos{1}).Eval(x, x); math.Abs(v-25) > 1e-12 {
		t.Errorf("k1(x,x) = %v", v)
	}
	if v := (ArcCos{0}).Eval([]float64{0, 0}, x); v != 0.5 {
		t.Errorf("k0(0,x) = %v", v)
	}
	if v := (ArcCos{1}).Eval([]float64{0, 0}, x); v != 0 {
		t.Errorf("k1(0,x) = %v", v)
	}
}

// TestGramMatchesEval: at d = 4 Gram gives Eval's bits, for Matérn and the Gaussian (the direct path: the squared
// distances of the coordinate loop, then the kernel of a row) and for the Laplacian kernel (the arguments of a row,
// then fastmath.Exp), including σ small enough that most arguments leave Exp's fast range.
func TestGramMatchesEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const n, m, d = 37, 23, 4
	X, Y := randVec(rng, n*d, 1), randVec(rng, m*d, 1)
	for _, k := range []Kernel{Matern{1.5, 0.8}, Gaussian{S: 0.8}, Gaussian{S: 0.02}, Laplacian{S: 0.5}, Laplacian{S: 0.001}} {
		G, err := GramDense(k, mat.NewDense(n, d, X), mat.NewDense(m, d, Y))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			for j := 0; j < m; j++ {
				if e := k.Eval(X[i*d:(i+1)*d], Y[j*d:(j+1)*d]); math.Float64bits(G.At(i, j)) != math.Float64bits(e) {
					t.Fatalf("%s: Gram(%d,%d) = %v differs from Eval %v", k.Name(), i, j, G.At(i, j), e)
				}
			}
		}
	}
	k := Matern{1.5, 0.8}
	if _, err := GramDense(k, mat.NewDense(2, 3, nil), mat.NewDense(2, 4, nil)); err == nil {
		t.Error("mismatched dimensions must be an error")
	}
	if err := Gram(make([]float64, 3), k, X, n, Y, m, d); err == nil {
		t.Error("wrong dst length must be an error")
	}
}

func TestNew(t *testing.T) {
	for _, name := range Names() {
		k, err := New(name, 2)
		if err != nil {
			t.Fatal(err)
		}
		if k.Name() != name {
			t.Errorf("New(%q).Name() = %q", name, k.Name())
		}
	}
	for _, bad := range []struct {
		name  string
		sigma float64
	}{{"gaussian", 0}, {"gaussian", -1}, {"laplacian", math.Inf(1)}, {"matern12", math.NaN()}, {"poly", 1},
		{"matern32", 5e-324}, {"cauchy", 0x1p-1023}, {"gaussian", 0x1p-1022}, {"laplacian", 1e-300}, {"matern12", MinSigma / 2}} {
		if _, err := New(bad.name, bad.sigma); err == nil {
			t.Errorf("New(%q, %v) must fail", bad.name, bad.sigma)
		}
	}
	if _, err := New("gaussian", MinSigma); err != nil {
		t.Errorf("σ = MinSigma: %v", err)
	}
	if s := SigmaFromGamma(0.125); math.Abs(s-2) > 1e-15 {
		t.Errorf("SigmaFromGamma(1/8) = %v, want 2", s)
	}
}

// TestGramProductPath: for the Gaussian and Matérn kernels at d ≥ 8, Gram takes the squared distances from a matrix
// product and recomputes the pairs where cancellation could cost more than a relative 1e-12 (see Gram). So every
// squared distance is within 1e-12 relative (plus a few ulps of the loop) of the pairwise one, and each kernel
// value κ(r²) within |κ'(r²)|·1e-12·r² of Eval's: at most 1e-12·max_t t·e^{−t} < 4e-13 for the Gaussian, and
// for Matérn ν ≤ 5/2 (κ as a function of r², |r²κ'| ≤ r/2·|dκ/dr| ≤ 1) at most 1e-12. The cases include equal rows
// (distance exactly 0 → κ(0) = 1), near-duplicates, and data offset far from the origin, where the product form
// alone would lose every digit.
func TestGramProductPath(t *testing.T) {
	defer func(was int) { directDimOverride = was }(directDimOverride)
	directDimOverride = 8 // the product from d = 8 even where the direct path would take d < 32
	rng := rand.New(rand.NewPCG(15, 16))
	type data struct {
		name   string
		n, m   int
		d      int
		offset float64 // added to every coordinate
		jitter float64 // Y = first rows of X + jitter·noise (0: independent Y)
	}
	for _, c := range []data{
		{"independent", 41, 29, 8, 0, 0},
		{"d=50", 60, 33, 50, 0, 0},
		{"equal rows", 20, 20, 16, 0, 0},
		{"near duplicates", 25, 25, 32, 0, 1e-7},
		{"far from origin", 30, 30, 12, 1e4, 1e-3},
		{"d=784", 17, 9, 784, 0.5, 0},
	} {
		d := c.d
		X := randVec(rng, c.n*d, 1)
		var Y []float64
		switch {
		case c.name == "equal rows":
			Y = append([]float64(nil), X[:c.m*d]...)
		case c.jitter > 0:
			Y = append([]float64(nil), X[:c.m*d]...)
			for i := range Y {
				Y[i] += c.jitter * rng.NormFloat64()
			}
		default:
			Y = randVec(rng, c.m*d, 1)
		}
		for i := range X {
			X[i] += c.offset
		}
		for i := range Y {
			Y[i] += c.offset
		}
		for _, k := range []Kernel{Gaussian{S: math.Sqrt(float64(d))}, Gaussian{S: 0.3}, Matern{0.5, 2}, Matern{2.5, 1}} {
			if _, ok := k.(sqRadial); !ok {
				t.Fatalf("%s: not on the product path", k.Name())
			}
			K := make([]float64, c.n*c.m)
			if err := Gram(K, k, X, c.n, Y, c.m, d); err != nil {
				t.Fatal(err)
			}
			tol := 1e-12 + 8*0x1p-53 // the bound above plus a few ulps of κ ≤ 1
			for i := range c.n {
				for j := range c.m {
					want := k.Eval(X[i*d:(i+1)*d], Y[j*d:(j+1)*d])
					if e := math.Abs(K[i*c.m+j] - want); e > tol {
						t.Fatalf("%s, %s: K(%d,%d) = %.17g, Eval %.17g (|Δ| = %.3g > %.1g)", c.name, k.Name(), i, j,
							K[i*c.m+j], want, e, tol)
					}
					if c.name == "equal rows" && i == j && K[i*c.m+j] != 1 {
						t.Fatalf("%s: K(x, x) = %.17g, want exactly 1", k.Name(), K[i*c.m+j])
					}
				}
			}
		}
	}
}

// BenchmarkGram compares the product path with the pairwise loop (forced by a wrapper kernel that hides ofSqDist)
// on MNIST-sized inputs.
func BenchmarkGram(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d = 1000, 784
	X := randVec(rng, n*d, 1)
	K := make([]float64, n*n)
	for _, c := range []struct {
		name string
		k    Kernel
	}{{"product", Gaussian{S: 20}}, {"pairwise", pairwiseOnly{Gaussian{S: 20}}}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				if err := Gram(K, c.k, X, n, X, n, d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// pairwiseOnly hides a kernel's fast paths.
type pairwiseOnly struct{ Kernel }

// TestOfSqDistRow: the row form of the squared-distance kernels, which Gram's product path uses (exponentials
// four at a time by fastmath.Exp), equals ofSqDist element by element bit for bit, for the Gaussian and the three
// Matérn kernels, on distances from 0 to beyond Exp's fast range and row lengths that leave tails.
func TestOfSqDistRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, k := range []sqRadial{Gaussian{S: 0.05}, Gaussian{S: 0.7}, Gaussian{S: 3}, Matern{0.5, 0.01}, Matern{0.5, 2},
		Matern{1.5, 0.8}, Matern{2.5, 1}, Matern{2.5, 0.001}} {
		for _, n := range []int{1, 3, 4, 7, 64, 101} {
			r2 := make([]float64, n)
			for i := range r2 {
				r2[i] = 50 * rng.Float64() * rng.Float64()
			}
			r2[0] = 0
			row := append([]float64(nil), r2...)
			k.ofSqDistRow(row, make([]float64, n))
			for i, v := range r2 {
				if want := k.ofSqDist(v); math.Float64bits(row[i]) != math.Float64bits(want) {
					t.Fatalf("%s: r² = %v: row %v, ofSqDist %v", k.(Kernel).Name(), v, row[i], want)
				}
			}
		}
	}
}

// TestFarApart: points so far apart that their squared distance overflows (finite inputs of 1e160) have kernel value
// 0 — from Eval and from Gram on both of its paths (the coordinate loop below 32 dimensions, the matrix product
// above) — never Inf·0 = NaN from a Matérn kernel's polynomial factor.
func TestFarApart(t *testing.T) {
	for _, k := range []Kernel{Gaussian{S: 1}, Laplacian{S: 1}, Matern{0.5, 1}, Matern{1.5, 1}, Matern{2.5, 1}, Cauchy{S: 1}} {
		for _, d := range []int{1, 3, 40} {
			x, y := make([]float64, d), make([]float64, d)
			for i := range x {
				x[i], y[i] = 1e160, -1e160
			}
			if v := k.Eval(x, y); v != 0 {
				t.Errorf("%s, d = %d: Eval = %v, want 0", k.Name(), d, v)
			}
			X := append(append([]float64(nil), x...), y...) // rows x and y
			K := make([]float64, 4)
			if err := Gram(K, k, X, 2, X, 2, d); err != nil {
				t.Fatal(err)
			}
			if K[1] != 0 || K[2] != 0 {
				t.Errorf("%s, d = %d: Gram off-diagonal %v and %v, want 0", k.Name(), d, K[1], K[2])
			}
		}
	}
}
