// Package parallel runs independent work items on all cores. Items are handed out one at a time, in order, so
// uneven items balance; each item must only write state it owns, which keeps results independent of scheduling.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls work(i) for every i in [0, n) on up to workers goroutines (workers ≤ 0 means GOMAXPROCS), and returns
// when all calls have returned. With one worker the calls run in order on the calling goroutine.
func For(n, workers int, work func(i int)) {
	ForWorker(n, workers, func(_, i int) { work(i) })
}

// ForWorker is For that also passes the index w of the goroutine making the call, 0 ≤ w < min(workers, n), so
// that work can use per-goroutine scratch space (no two concurrent calls share a w).
func ForWorker(n, workers int, work func(w, i int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			work(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				work(w, i)
			}
		}()
	}
	wg.Wait()
}
