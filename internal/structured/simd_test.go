package structured

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// withAVX2 runs f with the SIMD kernels disabled (false) or as detected (true).
func withAVX2(t testing.TB, on bool, f func()) {
	t.Helper()
	old := useAVX2
	useAVX2 = on && old
	defer func() { useAVX2 = old }()
	f()
}

func sameBits(a, b []float64) int {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return i
		}
	}
	return -1
}

// edgeBlock is a random block salted with special values: ±0, subnormals, huge values, ±Inf and NaN.
func edgeBlock(n, B int, rng *rand.Rand) []float64 {
	x := randBlock(n, B, rng)
	special := []float64{0, math.Copysign(0, -1), 5e-324, -1e-310, 1e300, -1e300, math.MaxFloat64, math.Inf(1),
		math.Inf(-1), math.NaN(), 1e-300}
	for i := range x {
		if rng.IntN(50) == 0 {
			x[i] = special[rng.IntN(len(special))]
		} else if rng.IntN(10) == 0 {
			x[i] *= math.Exp2(float64(rng.IntN(200) - 100))
		}
	}
	return x
}

// refFWHT is the reference FWHT (the original implementation): radix-4 stages, one kernel call per row, portable
// kernels only.
func refFWHT(x []float64, n, B int) {
	if B <= 0 || n == 1 {
		return
	}
	x = x[:n*B]
	L := log2(n)
	scale := 1 / math.Sqrt(float64(n))
	h := 1
	if L%2 == 1 {
		for base := 0; base < n; base += 2 {
			r0, r1 := x[base*B:base*B+B], x[(base+1)*B:(base+1)*B+B]
			if L == 1 {
				hadamard2ScaledGeneric(r0, r1, scale)
			} else {
				hadamard2Generic(r0, r1)
			}
		}
		h = 2
	}
	for ; h < n; h *= 4 {
		last := 4*h == n
		for base := 0; base < n; base += 4 * h {
			for j := base; j < base+h; j++ {
				r0, r1 := x[j*B:j*B+B], x[(j+h)*B:(j+h)*B+B]
				r2, r3 := x[(j+2*h)*B:(j+2*h)*B+B], x[(j+3*h)*B:(j+3*h)*B+B]
				if last {
					hadamard4ScaledGeneric(r0, r1, r2, r3, scale)
				} else {
					hadamard4Generic(r0, r1, r2, r3)
				}
			}
		}
	}
}

// TestFWHTBitIdentical: FWHT on either path gives exactly the bits of the reference for every size n = 2^0…2^16
// and batch widths that exercise the SIMD body and the scalar tails, on random and special inputs.
func TestFWHTBitIdentical(t *testing.T) {
	rng := newRNG(11)
	for L := 0; L <= 16; L++ {
		n := 1 << L
		for _, B := range []int{1, 2, 3, 4, 5, 7, 8, 13, 64} {
			if n*B > 1<<20 && B != 1 && B != 3 && B != 64 {
				continue
			}
			if testing.Short() && n*B > 1<<18 {
				continue
			}
			x := edgeBlock(n, B, rng)
			want := append([]float64(nil), x...)
			refFWHT(want, n, B)
			for _, on := range []bool{false, true} {
				got := append([]float64(nil), x...)
				withAVX2(t, on, func() { FWHT(got, n, B) })
				if i := sameBits(got, want); i >= 0 {
					t.Fatalf("n=%d B=%d avx2=%v: FWHT[%d] = %v, reference %v", n, B, on && useAVX2, i, got[i], want[i])
				}
			}
		}
	}
}

// refRotate applies the rotation [[c, -s], [s, c]] to (v[p], v[q]) with one rounding per operation.
func refRotate(v []float64, p, q int, c, s float64) {
	a, b := v[p], v[q]
	v[p], v[q] = float64(c*a)-float64(s*b), float64(s*a)+float64(c*b)
}

// refApplyExact is Q·v straight from the definition, one rotation pair at a time (as refApplyVec), with every
// product rounded: the SIMD and portable paths must reproduce it bit for bit.
func refApplyExact(q *Butterfly, v []float64) []float64 {
	d := q.D
	v = append([]float64(nil), v...)
	w := make([]float64, d)
	for r := 0; r < q.Reps; r++ {
		for i := range w {
			w[i] = v[q.Perm[i]]
		}
		copy(v, w)
		for h := q.N / 2; h >= 1; h /= 2 { // F_{L-1} first
			for k := 0; k*2*h < q.N; k++ {
				c, s := q.Cos[2*h*k+h-1], q.Sin[2*h*k+h-1]
				for j := 0; j < h; j++ {
					if p := 2*h*k + j; p+h < d {
						refRotate(v, p, p+h, c, s)
					}
				}
			}
		}
	}
	return v
}

// refApplyTExact is Qᵀ·v = (Pᵀ·Fᵀ)^Reps v: F_0ᵀ first, each rotation transposed, then the scatter Pᵀ.
func refApplyTExact(q *Butterfly, v []float64) []float64 {
	d := q.D
	v = append([]float64(nil), v...)
	w := make([]float64, d)
	for r := 0; r < q.Reps; r++ {
		for h := 1; h < q.N; h *= 2 {
			for k := 0; k*2*h < q.N; k++ {
				c, s := q.Cos[2*h*k+h-1], -q.Sin[2*h*k+h-1]
				for j := 0; j < h; j++ {
					if p := 2*h*k + j; p+h < d {
						refRotate(v, p, p+h, c, s)
					}
				}
			}
		}
		for i, pi := range q.Perm {
			w[pi] = v[i]
		}
		copy(v, w)
	}
	return v
}

// TestButterflyBitIdentical: Apply and ApplyT on either path give exactly the bits of the definition, for every
// d = 1…130, powers of two up to 2^16, ragged sizes, 1…3 repetitions and several batch widths.
func TestButterflyBitIdentical(t *testing.T) {
	rng := newRNG(12)
	var ds []int
	for d := 1; d <= 130; d++ {
		ds = append(ds, d)
	}
	ds = append(ds, 255, 256, 257, 511, 784, 1000, 1024, 3000, 4096, 7129, 16384, 65535, 65536)
	for _, d := range ds {
		q := NewButterfly(d, rng)
		for _, B := range []int{1, 3, 4, 8, 9, 64} {
			if d*B > 1<<17 && B > 4 {
				continue
			}
			if testing.Short() && d*B > 1<<15 {
				continue
			}
			reps := []int{1, 2, 3}
			if d > 1024 {
				reps = []int{1, 3}
			}
			for _, r := range reps {
				q.Reps = r
				x := edgeBlock(d, B, rng)
				wantA := make([]float64, d*B)
				wantT := make([]float64, d*B)
				v := make([]float64, d)
				for b := 0; b < B; b++ {
					for i := 0; i < d; i++ {
						v[i] = x[i*B+b]
					}
					a, at := refApplyExact(q, v), refApplyTExact(q, v)
					for i := 0; i < d; i++ {
						wantA[i*B+b], wantT[i*B+b] = a[i], at[i]
					}
				}
				for _, on := range []bool{false, true} {
					ga := append([]float64(nil), x...)
					gt := append([]float64(nil), x...)
					s := make([]float64, d*B)
					withAVX2(t, on, func() {
						q.Apply(ga, B, s)
						q.ApplyT(gt, B, s)
					})
					if i := sameBits(ga, wantA); i >= 0 {
						t.Fatalf("d=%d B=%d reps=%d avx2=%v: Apply[%d] = %v, definition %v", d, B, r, on && useAVX2, i, ga[i], wantA[i])
					}
					if i := sameBits(gt, wantT); i >= 0 {
						t.Fatalf("d=%d B=%d reps=%d avx2=%v: ApplyT[%d] = %v, definition %v", d, B, r, on && useAVX2, i, gt[i], wantT[i])
					}
				}
			}
		}
	}
}

// TestButterflyApplyTSigned: ApplyTSigned is the signs multiplied in, then ApplyT, bit for bit on either path, for
// one vector (where the AVX2 path fuses the products into its first pass) and for blocks.
func TestButterflyApplyTSigned(t *testing.T) {
	rng := newRNG(14)
	for _, d := range []int{1, 2, 3, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 100, 784, 1024} {
		q := NewButterfly(d, rng)
		signs := make([]float64, d)
		for i := range signs {
			signs[i] = float64(1 - 2*rng.IntN(2))
		}
		signs[0] = -1 // at least one sign that changes the vector, also for d = 1
		for _, B := range []int{1, 3, 8} {
			for _, reps := range []int{1, 2} {
				q.Reps = reps
				x := edgeBlock(d, B, rng)
				want := append([]float64(nil), x...)
				for i := range want {
					want[i] *= signs[i/B]
				}
				withAVX2(t, false, func() { q.ApplyT(want, B, make([]float64, d*B)) })
				for _, on := range []bool{false, true} {
					got := append([]float64(nil), x...)
					withAVX2(t, on, func() { q.ApplyTSigned(got, B, make([]float64, d*B), signs) })
					if i := sameBits(got, want); i >= 0 {
						t.Fatalf("d=%d B=%d reps=%d avx2=%v: value %d is %v, want %v", d, B, reps, on && useAVX2, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestFWHTSigned: FWHTSigned is the signs multiplied in, then FWHT, bit for bit on either path, for one vector
// (where the AVX2 path fuses the products into its first pass) and for blocks.
func TestFWHTSigned(t *testing.T) {
	rng := newRNG(15)
	for L := 0; L <= 12; L++ {
		n := 1 << L
		signs := make([]float64, n)
		for i := range signs {
			signs[i] = float64(1 - 2*rng.IntN(2))
		}
		signs[0] = -1 // at least one sign that changes the vector, also for n = 1
		for _, B := range []int{1, 3, 8} {
			x := edgeBlock(n, B, rng)
			want := append([]float64(nil), x...)
			for i := range want {
				want[i] *= signs[i/B]
			}
			withAVX2(t, false, func() { FWHT(want, n, B) })
			for _, on := range []bool{false, true} {
				got := append([]float64(nil), x...)
				withAVX2(t, on, func() { FWHTSigned(got, n, B, signs) })
				if i := sameBits(got, want); i >= 0 {
					t.Fatalf("n=%d B=%d avx2=%v: value %d is %v, want %v", n, B, on && useAVX2, i, got[i], want[i])
				}
			}
		}
	}
}

// TestKernelsBitIdentical drives every kernel directly at lengths 0…70 and unaligned offsets, in place and out of
// place, against its portable version.
func TestKernelsBitIdentical(t *testing.T) {
	if !useAVX2 {
		t.Skip("no SIMD path on this machine/build")
	}
	rng := newRNG(13)
	ang := func() (float64, float64) { a := 2 * math.Pi * rng.Float64(); return math.Cos(a), math.Sin(a) }
	for n := 0; n <= 70; n++ {
		for off := 0; off < 3; off++ {
			src := make([][]float64, 8)
			for i := range src {
				src[i] = edgeBlock(n+off, 1, rng)[off:]
			}
			cp := func() [][]float64 {
				c := make([][]float64, 8)
				for i := range c {
					c[i] = append([]float64(nil), src[i]...)
				}
				return c
			}
			cH, sH := ang()
			c0, s0 := ang()
			c1, s1 := ang()
			sc := 1 / math.Sqrt(float64(n+1))
			kernels := []struct {
				name      string
				fast, ref func(r [][]float64)
			}{
				{"hadamard2", func(r [][]float64) { hadamard2(r[0], r[1]) }, func(r [][]float64) { hadamard2Generic(r[0], r[1]) }},
				{"hadamard2Scaled", func(r [][]float64) { hadamard2Scaled(r[0], r[1], sc) },
					func(r [][]float64) { hadamard2ScaledGeneric(r[0], r[1], sc) }},
				{"hadamard4", func(r [][]float64) { hadamard4(r[0], r[1], r[2], r[3]) },
					func(r [][]float64) { hadamard4Generic(r[0], r[1], r[2], r[3]) }},
				{"hadamard4Scaled", func(r [][]float64) { hadamard4Scaled(r[0], r[1], r[2], r[3], sc) },
					func(r [][]float64) { hadamard4ScaledGeneric(r[0], r[1], r[2], r[3], sc) }},
				{"rot2", func(r [][]float64) { rot2(r[0], r[1], c0, s0) }, func(r [][]float64) { rot2Generic(r[0], r[1], c0, s0) }},
				{"rot2to", func(r [][]float64) { rot2to(r[0], r[1], r[2], r[3], c0, s0) },
					func(r [][]float64) { rot2toGeneric(r[0], r[1], r[2], r[3], c0, s0) }},
				{"rot4HiLo", func(r [][]float64) { rot4HiLo(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], cH, sH, c0, s0, c1, s1) },
					func(r [][]float64) {
						rot4HiLoGeneric(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], cH, sH, c0, s0, c1, s1)
					}},
				{"rot4HiLo/inplace", func(r [][]float64) { rot4HiLo(r[0], r[1], r[2], r[3], r[0], r[1], r[2], r[3], cH, sH, c0, s0, c1, s1) },
					func(r [][]float64) {
						rot4HiLoGeneric(r[0], r[1], r[2], r[3], r[0], r[1], r[2], r[3], cH, sH, c0, s0, c1, s1)
					}},
				{"rot4LoHi", func(r [][]float64) { rot4LoHi(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], cH, sH, c0, s0, c1, s1) },
					func(r [][]float64) {
						rot4LoHiGeneric(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], cH, sH, c0, s0, c1, s1)
					}},
				{"rot4LoHi/inplace", func(r [][]float64) { rot4LoHi(r[0], r[1], r[2], r[3], r[0], r[1], r[2], r[3], cH, sH, c0, s0, c1, s1) },
					func(r [][]float64) {
						rot4LoHiGeneric(r[0], r[1], r[2], r[3], r[0], r[1], r[2], r[3], cH, sH, c0, s0, c1, s1)
					}},
			}
			for _, k := range kernels {
				a, b := cp(), cp()
				k.fast(a)
				k.ref(b)
				for i := range a {
					if j := sameBits(a[i], b[i]); j >= 0 {
						t.Fatalf("%s n=%d off=%d: row %d value %d: %v ≠ %v", k.name, n, off, i, j, a[i][j], b[i][j])
					}
				}
			}
		}
	}
}

// BenchmarkFWHTPaths times FWHT on a 64-wide batch (the rule package's block) and on one vector (B = 1) per path;
// ns/elem is per value of the n×B block for the whole transform.
func BenchmarkFWHTPaths(b *testing.B) {
	for _, c := range []struct{ n, B int }{{256, 64}, {1024, 64}, {4096, 64}, {1024, 1}} {
		n, B := c.n, c.B
		x := randBlock(n, B, newRNG(2))
		for _, on := range []bool{false, true} {
			name := fmt.Sprintf("n=%d/B=%d/%s", n, B, pathName(on))
			b.Run(name, func(b *testing.B) {
				withAVX2(b, on, func() {
					for b.Loop() {
						FWHT(x, n, B)
					}
				})
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*B), "ns/elem")
			})
		}
	}
}

// BenchmarkButterflyPaths times Apply and ApplyT (d = 784, 64-wide batch, the default 3 repetitions) per path, and
// for one vector (B = 1, the narrow path).
func BenchmarkButterflyPaths(b *testing.B) {
	for _, c := range []struct{ d, B int }{{256, 64}, {784, 64}, {784, 1}} {
		d, B := c.d, c.B
		rng := newRNG(8)
		q := NewButterfly(d, rng)
		x := randBlock(d, B, rng)
		s := make([]float64, d*B)
		for _, on := range []bool{false, true} {
			b.Run(fmt.Sprintf("Apply/d=%d/B=%d/%s", d, B, pathName(on)), func(b *testing.B) {
				withAVX2(b, on, func() {
					for b.Loop() {
						q.Apply(x, B, s)
					}
				})
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rotationElements(q)*B), "ns/rotation")
			})
			b.Run(fmt.Sprintf("ApplyT/d=%d/B=%d/%s", d, B, pathName(on)), func(b *testing.B) {
				withAVX2(b, on, func() {
					for b.Loop() {
						q.ApplyT(x, B, s)
					}
				})
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rotationElements(q)*B), "ns/rotation")
			})
		}
	}
}

func pathName(on bool) string {
	if on && useAVX2 {
		return "avx2"
	}
	return "generic"
}
