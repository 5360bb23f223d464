package fastmath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

const piDigits = "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651328230664709384460955058223172535940812848111745028410270193852110555964462294895493038196"

// refSinCos returns sin x and cos x correctly rounded (to within far less than an ulp) from a 400-bit evaluation:
// exact reduction by a 660-bit π, then Taylor series. Valid for |x| < 2^100.
func refSinCos(x float64) (float64, float64) {
	const prec = 400
	pi, _, err := new(big.Float).SetPrec(660).Parse(piDigits, 10)
	if err != nil {
		panic(err)
	}
	halfPi := new(big.Float).SetPrec(660).Quo(pi, big.NewFloat(2))
	bx := new(big.Float).SetPrec(660).SetFloat64(x)
	q := new(big.Float).SetPrec(660).Quo(bx, halfPi)
	// k = round(q)
	qf, _ := q.Float64()
	kf := math.Round(qf)
	if math.Abs(qf-kf) > 0.49 {
		// close to a half-quadrant boundary: use the exact big value
		kq, _ := new(big.Float).Add(q, big.NewFloat(0.5)).Int(nil)
		kf, _ = new(big.Float).SetInt(kq).Float64()
	}
	k := new(big.Float).SetPrec(660).SetFloat64(kf)
	r := new(big.Float).SetPrec(prec).Sub(bx, new(big.Float).SetPrec(660).Mul(k, halfPi))
	// Taylor series.
	r2 := new(big.Float).SetPrec(prec).Mul(r, r)
	s := new(big.Float).SetPrec(prec).Set(r)
	c := new(big.Float).SetPrec(prec).SetFloat64(1)
	ts := new(big.Float).SetPrec(prec).Set(r)
	tc := new(big.Float).SetPrec(prec).SetFloat64(1)
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -380)
	for n := 1; n < 200; n++ {
		ts.Mul(ts, r2)
		ts.Quo(ts, big.NewFloat(float64((2*n)*(2*n+1))))
		ts.Neg(ts)
		tc.Mul(tc, r2)
		tc.Quo(tc, big.NewFloat(float64((2*n-1)*(2*n))))
		tc.Neg(tc)
		s.Add(s, ts)
		c.Add(c, tc)
		if new(big.Float).Abs(tc).Cmp(eps) < 0 && new(big.Float).Abs(ts).Cmp(eps) < 0 {
			break
		}
	}
	sf, _ := s.Float64()
	cf, _ := c.Float64()
	m := int64(kf) & 3
	if kf < 0 {
		m = int64(math.Mod(kf, 4)+4) & 3
	}
	switch m {
	case 1:
		sf, cf = cf, -sf
	case 2:
		sf, cf = -sf, -cf
	case 3:
		sf, cf = -cf, sf
	}
	return sf, cf
}

// edgeInputs are the special and boundary inputs of the accuracy tests.
func edgeInputs() []float64 {
	xs := []float64{0, math.Copysign(0, -1), 5e-324, -5e-324, 2.2250738585072014e-308, 1e-310, -1e-310, 1e-300, 1e-20,
		1e-8, 0.5, 1, math.Pi / 4, math.Nextafter(math.Pi/4, 1), math.Nextafter(math.Pi/4, 0), 2, 3, 10, 100, 1e3, 1e4,
		1e5, 1e6, Limit, -Limit, math.Nextafter(Limit, 0), math.Nextafter(Limit, math.Inf(1)),
		-math.Nextafter(Limit, math.Inf(1)), 2e6, 1e7, 1e9, 1e15, 1e22, 1e300, math.MaxFloat64, -math.MaxFloat64,
		math.Inf(1), math.Inf(-1), math.NaN(), 6381956970095103 * 0x1p797, // a hard case for reduction
	}
	// Multiples of π/2 and π/4 (rounded) and their neighbours, over the whole fast range.
	for _, k := range []float64{1, 2, 3, 4, 5, 6, 7, 8, 10, 100, 355, 1000, 12345, 65536, 100000, 500000, 999999, 1001000} {
		for _, f := range []float64{math.Pi / 2, math.Pi / 4} {
			x := k * f
			for _, v := range []float64{x, math.Nextafter(x, 0), math.Nextafter(x, math.Inf(1))} {
				xs = append(xs, v, -v)
			}
		}
	}
	// The doubles nearest to multiples of π/2 (the worst cases of the reduction for moderate arguments).
	xs = append(xs, 6381956970095103*0x1p-50, 5706563220133733*0x1p-37, 7074237752028440*0x1p-52)
	return xs
}

// randomInputs returns n inputs log-uniform in magnitude over [2^lo, 2^hi), random sign.
func randomInputs(rng *rand.Rand, n int, lo, hi float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		x := math.Exp2(lo + (hi-lo)*rng.Float64())
		if rng.IntN(2) == 0 {
			x = -x
		}
		xs[i] = x
	}
	return xs
}

func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// withPath runs f with the AVX2 kernels disabled (false) or as detected (true).
func withPath(t testing.TB, vec bool, f func()) {
	t.Helper()
	old := useAVX2
	useAVX2 = vec && old
	defer func() { useAVX2 = old }()
	f()
}

// allInputs is the edge set plus random inputs over every scale of the fast range and beyond.
func allInputs() []float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := edgeInputs()
	xs = append(xs, randomInputs(rng, 20000, -30, 0)...)
	xs = append(xs, randomInputs(rng, 50000, 0, 8)...)
	xs = append(xs, randomInputs(rng, 20000, 8, 20.58)...)
	xs = append(xs, randomInputs(rng, 2000, 20.58, 60)...)
	for i := 0; i < 20000; i++ {
		xs = append(xs, 10*rng.NormFloat64())
	}
	rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	return xs
}

func TestSinCosAgainstMath(t *testing.T) {
	xs := allInputs()
	for _, vec := range []bool{false, true} {
		withPath(t, vec, func() {
			s := make([]float64, len(xs))
			c := make([]float64, len(xs))
			SinCos(s, c, xs)
			var maxErr float64
			for i, x := range xs {
				ws, wc := math.Sincos(x)
				if !inRange(x) {
					if !sameBits(s[i], ws) || !sameBits(c[i], wc) {
						t.Fatalf("vec=%v x=%v out of range: got (%v, %v), want math.Sincos (%v, %v)", vec, x, s[i], c[i], ws, wc)
					}
					continue
				}
				e := math.Max(math.Abs(s[i]-ws), math.Abs(c[i]-wc))
				if !(e <= 1e-15) {
					t.Fatalf("vec=%v x=%v (%b): got (%v, %v), math.Sincos (%v, %v), error %g", vec, x, x, s[i], c[i], ws, wc, e)
				}
				maxErr = math.Max(maxErr, e)
				if math.Abs(s[i]) > 1 || math.Abs(c[i]) > 1 {
					t.Fatalf("x=%v: |sin|, |cos| > 1: %v %v", x, s[i], c[i])
				}
			}
			t.Logf("vec=%v (AVX2 available: %v): %d inputs, max |fast − math.Sincos| = %.3g", vec, useAVX2, len(xs), maxErr)
		})
	}
}

// TestSinCosAccuracy measures the error against a 400-bit reference on edge inputs and random inputs.
func TestSinCosAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	xs := edgeInputs()
	n := 3000
	if testing.Short() {
		n = 300
	}
	xs = append(xs, randomInputs(rng, n, -20, 0)...)
	xs = append(xs, randomInputs(rng, n, 0, 6)...)
	xs = append(xs, randomInputs(rng, n, 6, 20.58)...)
	s := make([]float64, len(xs))
	c := make([]float64, len(xs))
	SinCos(s, c, xs)
	var maxErr, maxMath, maxUlp float64
	var worst float64
	for i, x := range xs {
		if !inRange(x) {
			continue
		}
		rs, rc := refSinCos(x)
		e := math.Max(math.Abs(s[i]-rs), math.Abs(c[i]-rc))
		if e > maxErr {
			maxErr, worst = e, x
		}
		ms, mc := math.Sincos(x)
		maxMath = math.Max(maxMath, math.Max(math.Abs(ms-rs), math.Abs(mc-rc)))
		for _, p := range [][2]float64{{s[i], rs}, {c[i], rc}} {
			if p[1] != 0 {
				u := math.Abs(p[0]-p[1]) / ulp(p[1])
				if math.Abs(p[1]) > 1e-3 { // relative error only where the value is not a cancellation residue
					maxUlp = math.Max(maxUlp, u)
				}
			}
		}
	}
	if maxErr > 1e-15 {
		t.Errorf("max absolute error %g at x = %v, want ≤ 1e-15", maxErr, worst)
	}
	if maxUlp > 2 { // the package documentation's claim
		t.Errorf("relative error %.2f ulp where |value| > 1e-3, want ≤ 2", maxUlp)
	}
	t.Logf("%d inputs: max absolute error %.3g (at x = %v), %.2f ulp where |value| > 1e-3; math.Sincos: %.3g", len(xs), maxErr, worst, maxUlp, maxMath)
}

func ulp(x float64) float64 {
	x = math.Abs(x)
	return math.Nextafter(x, math.Inf(1)) - x
}

// TestPathsBitIdentical: the AVX2 kernels give the same bits as the portable ones for every input, every length
// (vector body + scalar tail) and every variant.
func TestPathsBitIdentical(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 path on this machine/build")
	}
	xs := allInputs()
	rng := rand.New(rand.NewPCG(5, 6))
	w := make([]float64, len(xs))
	for i := range w {
		w[i] = rng.Float64() + 0.01
	}
	run := func(vec bool) (s, c, sw, cw, cc []float64) {
		withPath(t, vec, func() {
			s, c = make([]float64, len(xs)), make([]float64, len(xs))
			sw, cw, cc = make([]float64, len(xs)), make([]float64, len(xs)), make([]float64, len(xs))
			SinCos(s, c, xs)
			SinCosWeighted(sw, cw, xs, w)
			CosWeighted(cc, xs, w)
		})
		return
	}
	s0, c0, sw0, cw0, cc0 := run(false)
	s1, c1, sw1, cw1, cc1 := run(true)
	for i, x := range xs {
		if !sameBits(s0[i], s1[i]) || !sameBits(c0[i], c1[i]) || !sameBits(sw0[i], sw1[i]) || !sameBits(cw0[i], cw1[i]) ||
			!sameBits(cc0[i], cc1[i]) {
			t.Fatalf("x=%v: generic (%v %v %v %v %v) ≠ AVX2 (%v %v %v %v %v)", x, s0[i], c0[i], sw0[i], cw0[i], cc0[i],
				s1[i], c1[i], sw1[i], cw1[i], cc1[i])
		}
	}
	// Every length and offset, including slices that end inside a vector.
	for n := 0; n <= 67; n++ {
		for off := 0; off < 4; off++ {
			x := xs[off : off+n]
			var a, b [2][]float64
			for p, vec := range []bool{false, true} {
				withPath(t, vec, func() {
					a[p], b[p] = make([]float64, n), make([]float64, n)
					SinCosWeighted(a[p], b[p], x, w[:n])
				})
			}
			for i := range x {
				if !sameBits(a[0][i], a[1][i]) || !sameBits(b[0][i], b[1][i]) {
					t.Fatalf("n=%d off=%d i=%d: paths differ", n, off, i)
				}
			}
		}
	}
}

// TestVariantsConsistent: the weighted variants are the weight times SinCos, rounded once, in-place calls work,
// and repeated calls give identical bits.
func TestVariantsConsistent(t *testing.T) {
	xs := allInputs()[:5003]
	rng := rand.New(rand.NewPCG(7, 8))
	w := make([]float64, len(xs))
	for i := range w {
		w[i] = 3 * rng.Float64()
		switch i % 7 { // weights beyond Limit and infinite ones: in place, their results must not be taken for inputs
		case 3:
			w[i] = 1e7 * (1 + rng.Float64())
		case 5:
			w[i] = math.Inf(1)
		}
	}
	for _, vec := range []bool{false, true} {
		withPath(t, vec, func() {
			n := len(xs)
			s, c := make([]float64, n), make([]float64, n)
			SinCos(s, c, xs)
			sw, cw, cc := make([]float64, n), make([]float64, n), make([]float64, n)
			SinCosWeighted(sw, cw, xs, w)
			CosWeighted(cc, xs, w)
			for i := range xs {
				if !sameBits(sw[i], w[i]*s[i]) || !sameBits(cw[i], w[i]*c[i]) || !sameBits(cc[i], w[i]*c[i]) {
					t.Fatalf("vec=%v x=%v: weighted variants inconsistent", vec, xs[i])
				}
			}
			// In place: sin = x, then cos = x, then CosWeighted dst = x.
			in := append([]float64(nil), xs...)
			c2 := make([]float64, n)
			SinCos(in, c2, in)
			in2 := append([]float64(nil), xs...)
			s2 := make([]float64, n)
			SinCosWeighted(s2, in2, in2, w)
			in3 := append([]float64(nil), xs...)
			CosWeighted(in3, in3, w)
			for i := range xs {
				if !sameBits(in[i], s[i]) || !sameBits(c2[i], c[i]) || !sameBits(s2[i], sw[i]) || !sameBits(in2[i], cw[i]) ||
					!sameBits(in3[i], cc[i]) {
					t.Fatalf("vec=%v x=%v: in-place result differs", vec, xs[i])
				}
			}
			s3, c3 := make([]float64, n), make([]float64, n)
			SinCos(s3, c3, xs)
			for i := range xs {
				if !sameBits(s3[i], s[i]) || !sameBits(c3[i], c[i]) {
					t.Fatalf("vec=%v: repeated call differs at x=%v", vec, xs[i])
				}
			}
		})
	}
}

// TestSignsAndIdentities: sin(−0) = −0, cos(0) = 1, odd/even symmetry, and sin² + cos² = 1 to rounding.
func TestSignsAndIdentities(t *testing.T) {
	xs := allInputs()
	for _, vec := range []bool{false, true} {
		withPath(t, vec, func() {
			neg := make([]float64, len(xs))
			for i, x := range xs {
				neg[i] = -x
			}
			s, c := make([]float64, len(xs)), make([]float64, len(xs))
			sn, cn := make([]float64, len(xs)), make([]float64, len(xs))
			SinCos(s, c, xs)
			SinCos(sn, cn, neg)
			for i, x := range xs {
				if !inRange(x) {
					continue
				}
				// Symmetry holds exactly except where round(2x/π) ties to even differently for ±x: never, since
				// the rounding is symmetric.
				if s[i] != -sn[i] || c[i] != cn[i] {
					t.Fatalf("vec=%v x=%v: sin/cos not odd/even: (%v %v) vs (%v %v)", vec, x, s[i], c[i], sn[i], cn[i])
				}
				if e := math.Abs(s[i]*s[i] + c[i]*c[i] - 1); e > 4e-16 {
					t.Fatalf("vec=%v x=%v: sin²+cos²−1 = %g", vec, x, e)
				}
			}
			z := []float64{0, math.Copysign(0, -1), 0, 0}
			zs, zc := make([]float64, 4), make([]float64, 4)
			SinCos(zs, zc, z)
			if math.Float64bits(zs[0]) != 0 || math.Float64bits(zs[1]) != 1<<63 || zc[0] != 1 || zc[1] != 1 {
				t.Fatalf("vec=%v: sincos(±0) = %v %v %v %v", vec, zs[0], zs[1], zc[0], zc[1])
			}
		})
	}
}

// TestGenericMatchesScalar: the unrolled portable loop is sincos1, bit for bit.
func TestGenericMatchesScalar(t *testing.T) {
	xs := allInputs()
	s, c := make([]float64, len(xs)), make([]float64, len(xs))
	sincosGeneric(s, c, xs, nil)
	for i, x := range xs {
		if !inRange(x) {
			continue
		}
		ws, wc := sincos1(x)
		if !sameBits(s[i], ws) || !sameBits(c[i], wc) {
			t.Fatalf("x=%v: sincosGeneric (%v, %v) ≠ sincos1 (%v, %v)", x, s[i], c[i], ws, wc)
		}
	}
}

// TestNoAllocation: the kernels never allocate.
func TestNoAllocation(t *testing.T) {
	x := allInputs()[:1001]
	w := make([]float64, len(x))
	s, c := make([]float64, len(x)), make([]float64, len(x))
	for _, f := range []func(){
		func() { SinCos(s, c, x) },
		func() { SinCosWeighted(s, c, x, w) },
		func() { CosWeighted(c, x, w) },
	} {
		if n := testing.AllocsPerRun(10, f); n != 0 {
			t.Errorf("%g allocations per call", n)
		}
	}
}

// FuzzSinCos: for any input, both paths agree bit for bit and are within 1e-15 of math.Sincos (equal to it
// outside the fast range).
func FuzzSinCos(f *testing.F) {
	for _, x := range edgeInputs() {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		in := []float64{x, -x, x, x, x / 3}
		var s, c [2][]float64
		for p, vec := range []bool{false, true} {
			withPath(t, vec, func() {
				s[p], c[p] = make([]float64, len(in)), make([]float64, len(in))
				SinCos(s[p], c[p], in)
			})
		}
		for i, v := range in {
			if !sameBits(s[0][i], s[1][i]) || !sameBits(c[0][i], c[1][i]) {
				t.Fatalf("x=%v: paths differ", v)
			}
			ws, wc := math.Sincos(v)
			if !inRange(v) {
				if !sameBits(s[0][i], ws) || !sameBits(c[0][i], wc) {
					t.Fatalf("x=%v: not math.Sincos out of range", v)
				}
				continue
			}
			if e := math.Max(math.Abs(s[0][i]-ws), math.Abs(c[0][i]-wc)); !(e <= 1e-15) {
				t.Fatalf("x=%v: error %g", v, e)
			}
		}
	})
}
