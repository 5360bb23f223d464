package finite

import (
	"fmt"
	"math"
	"runtime"
	"testing"
)

// reference is the plain definition Index must agree with.
func reference(x []float64) int {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return i
		}
	}
	return -1
}

// referenceBeyond is the plain definition of IndexBeyond.
func referenceBeyond(x []float64, limit float64) int {
	for i, v := range x {
		if math.IsNaN(v) || math.Abs(v) > limit {
			return i
		}
	}
	return -1
}

func TestIndex(t *testing.T) {
	const limit = 1e100
	cases := []struct {
		name      string
		find, ref func([]float64) int
		bad, good []float64 // values that must be found, and values that must not (the extremes of what passes)
	}{
		{"Index", Index, reference,
			[]float64{math.NaN(), math.Inf(1), math.Inf(-1)},
			[]float64{math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, math.Copysign(0, -1), 0, 1e-310, -1e308}},
		{"IndexBeyond", func(x []float64) int { return IndexBeyond(x, limit) }, func(x []float64) int { return referenceBeyond(x, limit) },
			[]float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Nextafter(limit, math.Inf(1)), -math.Nextafter(limit, math.Inf(1)), math.MaxFloat64},
			[]float64{limit, -limit, math.SmallestNonzeroFloat64, math.Copysign(0, -1), 0, 1, -1e99}},
	}
	for _, c := range cases {
		for _, n := range []int{0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 1000, parallelMin - 1, parallelMin, 3*parallelMin + 5} {
			x := make([]float64, n)
			for i := range x {
				x[i] = c.good[i%len(c.good)]
			}
			t.Run(fmt.Sprintf("%s/n=%d/none", c.name, n), func(t *testing.T) {
				if got := c.find(x); got != -1 {
					t.Fatalf("found %d, want -1", got)
				}
			})
			if n == 0 {
				continue
			}
			// Positions in the unrolled body, in the tail, at the ends and at the parallel split points.
			for _, at := range []int{0, n - 1, n / 2, n/2 - 1, n / 3, (n / 8) * 8, n % 8, (n / 4) * 4} {
				if at < 0 || at >= n {
					continue
				}
				for _, b := range c.bad {
					t.Run(fmt.Sprintf("%s/n=%d/at=%d/%v", c.name, n, at, b), func(t *testing.T) {
						old := x[at]
						x[at] = b
						defer func() { x[at] = old }()
						if got, want := c.find(x), c.ref(x); got != want || want != at {
							t.Fatalf("found %d, want %d", got, at)
						}
					})
				}
			}
			// Several bad values: the first one counts, also when a later part of a parallel scan has one.
			if n >= 3 {
				t.Run(fmt.Sprintf("%s/n=%d/first-of-many", c.name, n), func(t *testing.T) {
					y := append([]float64(nil), x...)
					y[n-1], y[n/2], y[n/3] = c.bad[0], c.bad[1], c.bad[2]
					if got, want := c.find(y), c.ref(y); got != want {
						t.Fatalf("found %d, want %d", got, want)
					}
				})
			}
		}
	}
}

// The parallel split must not depend on the number of cores: every GOMAXPROCS finds the same first index.
func TestIndexAnyCores(t *testing.T) {
	x := make([]float64, 4*parallelMin+3)
	x[3*parallelMin+1], x[4*parallelMin+2] = math.Inf(1), math.NaN()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, p := range []int{1, 2, 3, 7} {
		runtime.GOMAXPROCS(p)
		if got := Index(x); got != 3*parallelMin+1 {
			t.Errorf("GOMAXPROCS %d: Index = %d, want %d", p, got, 3*parallelMin+1)
		}
	}
}

// mnist is a slice the size of MNIST's training pixels.
func mnist() []float64 {
	x := make([]float64, 60000*784)
	for i := range x {
		x[i] = float64(i%256) / 255
	}
	return x
}

func BenchmarkIndex(b *testing.B) {
	x := mnist()
	b.SetBytes(int64(8 * len(x)))
	for b.Loop() {
		if Index(x) != -1 {
			b.Fatal("non-finite")
		}
	}
}

func BenchmarkIndexReference(b *testing.B) {
	x := mnist()
	b.SetBytes(int64(8 * len(x)))
	for b.Loop() {
		if reference(x) != -1 {
			b.Fatal("non-finite")
		}
	}
}
