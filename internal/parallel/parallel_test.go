package parallel

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// TestForVisitsEachOnce: every index is visited exactly once, for any worker count (run with -race).
func TestForVisitsEachOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 7, 100} {
		for _, n := range []int{0, 1, 5, 1000} {
			counts := make([]int32, n)
			For(n, workers, func(i int) { atomic.AddInt32(&counts[i], 1) })
			for i, c := range counts {
				if c != 1 {
					t.Fatalf("workers=%d n=%d: index %d visited %d times", workers, n, i, c)
				}
			}
		}
	}
}

// TestForWorkerIndices: every item runs once, and no two concurrent calls share a worker index.
func TestForWorkerIndices(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 16} {
		const n = 2000
		busy := make([]atomic.Int32, workers)
		counts := make([]int32, n)
		ForWorker(n, workers, func(w, i int) {
			if w < 0 || w >= workers {
				t.Errorf("worker index %d outside [0, %d)", w, workers)
				return
			}
			if busy[w].Add(1) != 1 {
				t.Errorf("worker index %d used by two calls at once", w)
			}
			atomic.AddInt32(&counts[i], 1)
			busy[w].Add(-1)
		})
		for i, c := range counts {
			if c != 1 {
				t.Fatalf("workers=%d: item %d ran %d times", workers, i, c)
			}
		}
	}
}

func ExampleForWorker() {
	// One scratch buffer per goroutine.
	scratch := make([][]int, 2)
	sums := make([]int, 4)
	ForWorker(len(sums), 2, func(w, i int) {
		scratch[w] = append(scratch[w][:0], i, i*i)
		sums[i] = scratch[w][0] + scratch[w][1]
	})
	fmt.Println(sums)
	// Output: [0 2 6 12]
}

func ExampleFor() {
	squares := make([]int, 5)
	For(len(squares), 0, func(i int) { squares[i] = i * i })
	fmt.Println(squares)
	// Output: [0 1 4 9 16]
}
