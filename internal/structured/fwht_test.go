package structured

import (
	"math"
	"math/bits"
	"testing"
)

func TestNextPow2(t *testing.T) {
	for _, c := range []struct{ n, want int }{
		{1, 1}, {2, 2}, {3, 4}, {4, 4}, {5, 8}, {63, 64}, {64, 64}, {65, 128}, {784, 1024}, {1024, 1024},
	} {
		if got := NextPow2(c.n); got != c.want {
			t.Errorf("NextPow2(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

func denseHadamard(n int) []float64 {
	h := make([]float64, n*n)
	s := 1 / math.Sqrt(float64(n))
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if bits.OnesCount(uint(i&j))%2 == 0 {
				h[i*n+j] = s
			} else {
				h[i*n+j] = -s
			}
		}
	}
	return h
}

func TestFWHT(t *testing.T) {
	rng := newRNG(1)
	for n := 1; n <= 1024; n *= 2 {
		H := denseHadamard(n)
		for _, B := range []int{1, 3, 8} {
			x := randBlock(n, B, rng)
			orig := append([]float64(nil), x...)
			want := denseMul(H, n, n, x, B)
			FWHT(x, n, B)
			// Entries are O(1); the transform accumulates log2(n) rounding
			// errors of relative size ε per entry.
			if e := maxAbsDiff(x, want); e > 1e-12 {
				t.Errorf("n=%d B=%d: FWHT differs from dense H by %g", n, B, e)
			}
			for b := 0; b < B; b++ {
				var n0, n1 float64
				for i := 0; i < n; i++ {
					n0 += orig[i*B+b] * orig[i*B+b]
					n1 += x[i*B+b] * x[i*B+b]
				}
				if math.Abs(n1-n0) > 1e-12*n0 {
					t.Errorf("n=%d B=%d vector %d: norm² %g -> %g", n, B, b, n0, n1)
				}
			}
			FWHT(x, n, B)
			if e := maxAbsDiff(x, orig); e > 1e-12 {
				t.Errorf("n=%d B=%d: H·H·x differs from x by %g", n, B, e)
			}
		}
	}
}

func BenchmarkFWHT(b *testing.B) {
	const n, B = 1024, 64
	x := randBlock(n, B, newRNG(2))
	b.SetBytes(int64(8 * n * B))
	for b.Loop() {
		FWHT(x, n, B)
	}
}
