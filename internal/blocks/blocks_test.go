package blocks

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestShardPartition: for any n, S and chunk the shards are contiguous, cover [0, n) exactly once, and start on
// multiples of chunk.
func TestShardPartition(t *testing.T) {
	for _, n := range []int{0, 1, 255, 256, 257, 1000, 4097} {
		for _, S := range []int{1, 2, 3, 8, 16} {
			for _, chunk := range []int{1, 7, 256, 1024} {
				next := 0
				for s := range S {
					r0, r1 := Shard(n, S, s, chunk)
					if r0 != next || r1 < r0 || r1 > n {
						t.Fatalf("n=%d S=%d chunk=%d: shard %d is [%d, %d), previous ended at %d", n, S, chunk, s, r0, r1, next)
					}
					if r0 < n && r0%chunk != 0 {
						t.Fatalf("n=%d S=%d chunk=%d: shard %d starts at %d, not a multiple of the chunk", n, S, chunk, s, r0)
					}
					next = r1
				}
				if next != n {
					t.Fatalf("n=%d S=%d chunk=%d: shards end at %d", n, S, chunk, next)
				}
			}
		}
	}
	if Count(0) != 0 || Count(1) != 1 || Count(Rows) != 1 || Count(Rows+1) != 2 {
		t.Errorf("Count: %d %d %d %d", Count(0), Count(1), Count(Rows), Count(Rows+1))
	}
}

// affine is a toy Mapper: z = [x·a + j] for j < F, with Points() = 1 scratch value per row, which it records.
type affine struct{ d, F int }

func (m affine) Dim() int      { return m.d }
func (m affine) Features() int { return m.F }
func (m affine) Points() int   { return 1 }
func (m affine) TransformBlock(z, x []float64, rows int, proj []float64) {
	for r := range rows {
		var s float64
		for _, v := range x[r*m.d : (r+1)*m.d] {
			s += v
		}
		proj[r] = s
		for j := range m.F {
			z[r*m.F+j] = s + float64(j)
		}
	}
}

// TestMap: every row is mapped once, by its own shard, in row order within the shard, with the features of its
// inputs; with projOut the projections of every row are kept.
func TestMap(t *testing.T) {
	m := affine{d: 3, F: 4}
	for _, n := range []int{0, 1, 300, 1025} {
		X := make([]float64, n*m.d)
		for i := range X {
			X[i] = float64(i)
		}
		for _, keep := range []bool{false, true} {
			const S, chunk = 5, 64
			var proj []float64
			if keep {
				proj = make([]float64, n)
			}
			seen := make([]int, n)
			last := make([]int, S)
			for s := range last {
				last[s] = -1
			}
			var mu sync.Mutex
			Map(m, X, n, S, chunk, proj, func(s int, z []float64, r0, rows int) {
				if lo, hi := Shard(n, S, s, chunk); r0 < lo || r0+rows > hi {
					t.Errorf("chunk [%d, %d) outside shard %d = [%d, %d)", r0, r0+rows, s, lo, hi)
				}
				if r0 <= last[s] {
					t.Errorf("shard %d: chunk at %d after %d", s, r0, last[s])
				}
				last[s] = r0
				for r := range rows {
					i := r0 + r
					want := 3*float64(i*m.d) + 3
					for j := range m.F {
						if z[r*m.F+j] != want+float64(j) {
							t.Errorf("row %d feature %d = %v, want %v", i, j, z[r*m.F+j], want+float64(j))
							return
						}
					}
					mu.Lock()
					seen[i]++
					mu.Unlock()
				}
			})
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("n=%d: row %d mapped %d times", n, i, c)
				}
				if keep && proj[i] != 3*float64(i*m.d)+3 {
					t.Fatalf("n=%d: kept projection %d = %v", n, i, proj[i])
				}
			}
		}
	}
}

func TestCheckData(t *testing.T) {
	X := []float64{1, 2, 3, 4}
	Y := []float64{1, 2}
	if err := CheckData("w", X, 2, 2, Y, 1); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"X length", CheckData("w", X[:3], 2, 2, Y, 1), "X has 3 values"},
		{"Y length", CheckData("w", X, 2, 2, Y[:1], 1), "Y has 1 values"},
		{"NaN in X", CheckData("w", []float64{1, math.NaN(), 3, 4}, 2, 2, Y, 1), "X row 1, column 2 is NaN"},
		{"Inf in Y", CheckData("w", X, 2, 2, []float64{1, math.Inf(1)}, 1), "Y row 2, output 1 is +Inf"},
		{"bad d", CheckX("w", X, 2, 0), "need n ≥ 0 and d ≥ 1"},
		// n·d and n·p wrap to 0 in int arithmetic: empty slices must not pass for 2^62 rows.
		{"X n·d overflows", CheckX("w", nil, 1<<62, 4), "X has 0 values"},
		{"Y n·p overflows", CheckData("w", nil, 1<<62, 4, nil, 4), "X has 0 values"},
	} {
		if c.err == nil || !strings.HasPrefix(c.err.Error(), "w: ") || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, c.err, c.want)
		}
	}
}

// TestMapChunks: the chunks arrive in row order on the calling goroutine, each with the features of its rows;
// each sees every block of Rows rows (or the last, shorter one) exactly once, inside its chunk; with projOut the
// projections of every row are kept; the result does not depend on GOMAXPROCS.
func TestMapChunks(t *testing.T) {
	m := affine{d: 2, F: 3}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 5} {
		runtime.GOMAXPROCS(procs)
		for _, tc := range []struct{ n, chunk int }{{0, 256}, {1, 256}, {255, 512}, {1000, 512}, {1537, 768}, {3000, 1024}} {
			X := make([]float64, tc.n*m.d)
			for i := range X {
				X[i] = float64(i%7) - 3
			}
			for _, keep := range []bool{false, true} {
				var projOut []float64
				if keep {
					projOut = make([]float64, tc.n)
				}
				var mu sync.Mutex
				seen := make([]int, tc.n)
				next := 0
				MapChunks(m, X, tc.n, tc.chunk, projOut, func(z []float64, r0, rows int) {
					if r0%Rows != 0 || rows != min(Rows, tc.n-r0) || len(z) != rows*m.F {
						t.Errorf("block at row %d of %d rows (%d values)", r0, rows, len(z))
					}
					mu.Lock()
					defer mu.Unlock()
					for r := r0; r < r0+rows; r++ {
						seen[r]++
					}
				}, func(z []float64, r0, rows int) {
					if r0 != next || rows != min(tc.chunk, tc.n-r0) {
						t.Fatalf("n=%d chunk=%d: chunk [%d, %d), want it to start at %d", tc.n, tc.chunk, r0, r0+rows, next)
					}
					for r := r0; r < r0+rows; r++ {
						if seen[r] != 1 {
							t.Fatalf("row %d: each called %d times before its chunk", r, seen[r])
						}
						s := X[r*m.d] + X[r*m.d+1]
						for j := range m.F {
							if got := z[(r-r0)*m.F+j]; got != s+float64(j) {
								t.Fatalf("row %d feature %d = %v, want %v", r, j, got, s+float64(j))
							}
						}
					}
					next = r0 + rows
				})
				if next != tc.n {
					t.Errorf("n=%d chunk=%d: chunks ended at %d", tc.n, tc.chunk, next)
				}
				for r := range projOut {
					if projOut[r] != X[r*m.d]+X[r*m.d+1] {
						t.Fatalf("projection %d = %v", r, projOut[r])
					}
				}
			}
		}
	}
}

// TestBufSizes: a buffer of the scratch pools is exactly as long as asked, whatever was put back before — a core's
// projections never hold a chunk of features, so buffers of every size live only as many times as they are used.
func TestBufSizes(t *testing.T) {
	for _, sizes := range [][]int{{1 << 20, 256}, {256, 1 << 20}, {5000, 4999, 5001, 5000}} {
		t.Run(fmt.Sprint(sizes), func(t *testing.T) {
			for range 3 {
				for _, n := range sizes {
					b := getBuf(n)
					if len(*b) != n || cap(*b) != n {
						t.Fatalf("getBuf(%d): length %d, capacity %d", n, len(*b), cap(*b))
					}
					putBuf(b)
				}
			}
		})
	}
}

// TestCountRange: Count rounds up for every n, without overflowing near math.MaxInt, and is 0 for n ≤ 0.
func TestCountRange(t *testing.T) {
	for _, c := range []struct{ n, want int }{
		{-5, 0}, {0, 0}, {1, 1}, {Rows, 1}, {Rows + 1, 2}, {math.MaxInt, math.MaxInt/Rows + 1}, {math.MaxInt - 200, math.MaxInt/Rows + 1},
	} {
		if got := Count(c.n); got != c.want {
			t.Errorf("Count(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}
