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

func ExampleFor() {
	squares := make([]int, 5)
	For(len(squares), 0, func(i int) { squares[i] = i * i })
	fmt.Println(squares)
	// Output: [0 1 4 9 16]
}
