package learn

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
)

func TestChunkRows(t *testing.T) {
	// 16 MiB of features, a multiple of 256 rows in [256, 2048].
	for _, c := range []struct{ F, want int }{
		{1, 2048}, {48, 2048}, {1024, 2048}, {2048, 1024}, {3000, 512}, {4096, 512}, {8192, 256}, {20000, 256},
	} {
		if got := chunkRows(c.F); got != c.want {
			t.Errorf("chunkRows(%d) = %d, want %d", c.F, got, c.want)
		}
	}
}

// TestAccumulatorBatches: statistics accumulated from batches of any sizes equal those of all the features added
// at once (Stats.Add, itself checked against the definition). Every entry is the same n products summed in another
// order, so the difference is at most about n·ε times the sum of the absolute products (Higham's bound γ_n);
// relative to the (positive-dominated) sums that is ≤ 1e-12 here.
func TestAccumulatorBatches(t *testing.T) {
	const n, d, p = 5000, 3, 2
	X, Y := regression(n, d, p, 0.1, 21)
	m := gaussMap(t, d, 700, 1, 22) // F = 1400: chunks of 1280 rows, one Gram matrix
	want := mustStats(m.Features(), p)
	want.Add(features(t, m, X, n), Y, n)
	for _, cuts := range [][]int{{0, n}, {0, 1, n}, {0, 999, 1000, 4321, n}, {0, 2560, 2561, n}} {
		acc, err := NewAccumulator(m, p)
		if err != nil {
			t.Fatal(err)
		}
		var seen atomic.Int64
		acc.Progress = func(rows int) { seen.Add(int64(rows)) }
		for i := 0; i+1 < len(cuts); i++ {
			a, b := cuts[i], cuts[i+1]
			if err := acc.Add(X[a*d:b*d], b-a, Y[a*p:b*p]); err != nil {
				t.Fatal(err)
			}
		}
		got, err := acc.Stats()
		if err != nil {
			t.Fatal(err)
		}
		compareStats(t, "cuts "+strconv.Itoa(len(cuts)-1), got, want, 1e-12)
		if seen.Load() != n {
			t.Errorf("progress reported %d rows, want %d", seen.Load(), n)
		}
	}
}

// TestAccumulatorDeterministic: the same batches give bit-identical statistics for every GOMAXPROCS, with shards
// of rows (F = 600) and with one Gram matrix (F = 1200 ≥ sharedGramMin).
func TestAccumulatorDeterministic(t *testing.T) {
	for _, D := range []int{300, 600} {
		t.Run(strconv.Itoa(2*D), func(t *testing.T) { accumulatorDeterministic(t, D) })
	}
}

func accumulatorDeterministic(t *testing.T, D int) {
	const n, d, p = 6000, 4, 2
	X, Y := regression(n, d, p, 0.1, 23)
	m := gaussMap(t, d, D, 1.2, 24)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var ref map[string][]float64
	for _, procs := range []int{1, 2, 5} {
		runtime.GOMAXPROCS(procs)
		acc, err := NewAccumulator(m, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range [][2]int{{0, 2500}, {2500, 2501}, {2501, n}} {
			if err := acc.Add(X[c[0]*d:c[1]*d], c[1]-c[0], Y[c[0]*p:c[1]*p]); err != nil {
				t.Fatal(err)
			}
		}
		s, err := acc.Stats()
		if err != nil {
			t.Fatal(err)
		}
		v := statsVectors(s)
		if ref == nil {
			ref = v
			continue
		}
		for k := range ref {
			if !slices.Equal(v[k], ref[k]) {
				t.Errorf("GOMAXPROCS=%d: %s differs from GOMAXPROCS=1", procs, k)
			}
		}
	}
}

func TestAccumulatorErrors(t *testing.T) {
	m := gaussMap(t, 2, 4, 1, 1)
	if _, err := NewAccumulator(nil, 1); err == nil {
		t.Error("nil map: no error")
	}
	if _, err := NewAccumulator(m, 0); err == nil {
		t.Error("p = 0: no error")
	}
	acc, err := NewAccumulator(m, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.Add([]float64{0, math.NaN()}, 1, []float64{1}); err == nil {
		t.Error("NaN input: no error")
	}
	if err := acc.Add([]float64{0, 1, 2}, 1, []float64{1}); err == nil {
		t.Error("wrong length: no error")
	}
	if err := acc.Add([]float64{0, 1}, 1, []float64{1}); err != nil {
		t.Fatal(err)
	}
	s, err := acc.Stats()
	if err != nil || s.N != 1 {
		t.Fatalf("Stats: N = %v, err = %v; want N = 1 (the rejected batches add nothing)", s, err)
	}
	if err := acc.Add([]float64{0, 1}, 1, []float64{1}); err == nil {
		t.Error("Add after Stats: no error")
	}
	if _, err := acc.Stats(); err == nil {
		t.Error("Stats twice: no error")
	}
	empty, _ := NewAccumulator(m, 2)
	if s, err := empty.Stats(); err != nil || s.N != 0 || s.P != 2 {
		t.Errorf("no rows: %+v, %v; want empty statistics", s, err)
	}
}

// ExampleGramChunk: the rank-k updates of ZᵀZ take 16 MiB of features, at least 256 and at most 2048 rows.
func ExampleGramChunk() {
	for _, F := range []int{512, 2048, 8192} {
		fmt.Printf("F = %d: k = %d rows\n", F, GramChunk(F))
	}
	// Output:
	// F = 512: k = 2048 rows
	// F = 2048: k = 1024 rows
	// F = 8192: k = 256 rows
}

// TestMirrorUpperParallel: the parallel mirror writes the bits of Stats.Finish's serial one — every entry below the
// diagonal a copy of its transpose, the upper triangle untouched — for sizes around the tile and any GOMAXPROCS.
func TestMirrorUpperParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 3} {
		runtime.GOMAXPROCS(procs)
		for _, F := range []int{1, 2, mirrorTile - 1, mirrorTile, mirrorTile + 1, 3*mirrorTile + 5} {
			A := make([]float64, F*F)
			for i := range A {
				A[i] = float64(i) + 0.5
			}
			want := slices.Clone(A)
			mirrorUpper(want, F)
			mirrorUpperParallel(A, F)
			if !slices.Equal(A, want) {
				t.Errorf("GOMAXPROCS=%d, F=%d: the parallel mirror differs from mirrorUpper", procs, F)
			}
			for i := range F {
				for j := range i {
					if A[i*F+j] != float64(j*F+i)+0.5 {
						t.Fatalf("F=%d: A[%d][%d] = %v, want A[%d][%d]", F, i, j, A[i*F+j], j, i)
					}
				}
			}
		}
	}
}
