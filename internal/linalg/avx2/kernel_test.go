package avx2

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKern4x12 checks the kernel bit for bit against its definition written
// with math.FMA: the same operations in the same order.
func TestKern4x12(t *testing.T) {
	if !Available {
		t.Skip("no AVX2+FMA")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, kc := range []int{0, 1, 2, 3, 4, 5, 7, 8, 255, 256, 257} {
		for _, ldc := range []int{NR, NR + 1, 40} {
			a := make([]float64, MR*kc)
			b := make([]float64, NR*kc)
			for i := range a {
				a[i] = rng.NormFloat64()
			}
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			c := make([]float64, 3*ldc+NR+5)
			for i := range c {
				c[i] = rng.NormFloat64()
			}
			want := append([]float64(nil), c...)
			for r := 0; r < MR; r++ {
				for j := 0; j < NR; j++ {
					for l := 0; l < kc; l++ {
						want[r*ldc+j] = math.FMA(a[l*MR+r], b[l*NR+j], want[r*ldc+j])
					}
				}
			}
			got := append([]float64(nil), c...)
			var ap, bp *float64
			if kc > 0 {
				ap, bp = &a[0], &b[0]
			} else {
				ap, bp = new(float64), new(float64)
			}
			Kern4x12(kc, ap, bp, &got[0], ldc)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("kc=%d ldc=%d: c[%d] = %v, want %v", kc, ldc, i, got[i], want[i])
				}
			}
		}
	}
}

func BenchmarkKern4x12(b *testing.B) {
	if !Available {
		b.Skip("no AVX2+FMA")
	}
	const kc = 256
	a := make([]float64, MR*kc)
	bb := make([]float64, NR*kc)
	c := make([]float64, 4*NR)
	for range b.N {
		Kern4x12(kc, &a[0], &bb[0], &c[0], NR)
	}
	b.ReportMetric(2*MR*NR*kc*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// TestAxpyFMA: every element is math.FMA's, for lengths covering the 16-, 4- and 1-element loops, signed zeros and
// values whose fused and unfused results differ.
func TestAxpyFMA(t *testing.T) {
	if !Available {
		t.Skip("no AVX2+FMA")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 3, 4, 5, 15, 16, 17, 35, 100} {
		x, y := make([]float64, n+1), make([]float64, n+1)
		for i := range n + 1 {
			x[i], y[i] = 1+rng.Float64()*0x1p-30, -1-rng.Float64()*0x1p-30
		}
		if n > 2 {
			x[1], y[1] = -0.0, 0.0
			x[2], y[2] = 0.0, math.Copysign(0, -1)
		}
		a := 1 + 0x1p-40
		want := make([]float64, n+1)
		for i := range n {
			want[i] = math.FMA(a, x[i], y[i])
		}
		want[n] = y[n] // untouched
		AxpyFMA(n, a, &x[0], &y[0])
		for i := range n + 1 {
			if math.Float64bits(y[i]) != math.Float64bits(want[i]) {
				t.Fatalf("n=%d: y[%d] = %v, want %v", n, i, y[i], want[i])
			}
		}
	}
}

// TestDots16FMA: each of the 16 chains has math.FMA's bits over the terms in order, for several k and row strides
// (also rows of B that do not start on a vector boundary), with values whose fused and unfused sums differ.
func TestDots16FMA(t *testing.T) {
	if !Available {
		t.Skip("no AVX2+FMA")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, k4 := range []int{0, 1, 2, 7, 64} {
		for _, ldb := range []int{4 * k4, 4*k4 + 1, 4*k4 + 5} {
			k := 4 * k4
			x := make([]float64, k+1)
			b := make([]float64, 16*max(ldb, 1)+1)
			for i := range x {
				x[i] = 1 + rng.Float64()*0x1p-20
			}
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			off := 1 // rows off a 32-byte boundary
			c := make([]float64, 17)
			c[16] = 42
			var xp *float64
			if k > 0 {
				xp = &x[0]
			} else {
				xp = new(float64)
			}
			Dots16FMA(k4, xp, &b[off], ldb, &c[0])
			for j := range 16 {
				var want float64
				for l := range k {
					want = math.FMA(x[l], b[off+j*ldb+l], want)
				}
				if math.Float64bits(c[j]) != math.Float64bits(want) {
					t.Fatalf("k4=%d ldb=%d: c[%d] = %v, want %v", k4, ldb, j, c[j], want)
				}
			}
			if c[16] != 42 {
				t.Fatalf("k4=%d: wrote past 16 values", k4)
			}
		}
	}
}
