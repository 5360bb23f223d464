package parallel

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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

// TestForPanicReachesCaller: a panicking work item does not end the process on its worker goroutine; For panics on
// the calling goroutine with a *Panic carrying the value and the worker's stack, after every call under way has
// returned, and stops handing out items.
func TestForPanicReachesCaller(t *testing.T) {
	for _, workers := range []int{2, 4, 16} {
		var started atomic.Int32
		func() {
			defer func() {
				v := recover()
				p, ok := v.(*Panic)
				if !ok {
					t.Fatalf("workers=%d: recovered %T %v, want *Panic", workers, v, v)
				}
				if p.Value != "boom" {
					t.Errorf("workers=%d: panic value %v, want boom", workers, p.Value)
				}
				if !strings.Contains(string(p.Stack), "parallel") || !strings.Contains(p.Error(), "boom") {
					t.Errorf("workers=%d: stack or message does not locate the panic: %s", workers, p.Error())
				}
			}()
			For(1000000, workers, func(i int) {
				started.Add(1)
				if i == 3 {
					panic("boom")
				}
				// The other items take a little time, as real work does: a worker that ran them all while the panicking
				// one was descheduled would otherwise finish a million empty items in milliseconds on a busy
				// machine, and the test would say nothing about For.
				time.Sleep(time.Microsecond)
			})
			t.Fatalf("workers=%d: For returned normally after a panicking item", workers)
		}()
		// Items handed out before the panic was seen still run; not all 1000000 of them.
		if n := started.Load(); n >= 1000000 {
			t.Errorf("workers=%d: all %d items ran after a panic", workers, n)
		}
	}
}

// TestForPanicUnwrap: a runtime error panicking in a worker stays reachable with errors.As.
func TestForPanicUnwrap(t *testing.T) {
	defer func() {
		p, ok := recover().(*Panic)
		if !ok {
			t.Fatal("no *Panic")
		}
		var re runtime.Error
		if !errors.As(p, &re) {
			t.Errorf("%v does not unwrap to a runtime.Error", p.Value)
		}
	}()
	var s []int
	For(8, 4, func(i int) { _ = s[i] })
}
