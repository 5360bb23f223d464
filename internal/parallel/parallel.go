// Package parallel runs independent work items on all cores. Items are handed out one at a time, so uneven items
// balance; each item must only write state it owns, which keeps results independent of scheduling.
package parallel

import (
	"runtime"
	"sync"
)

// For calls work(i) for every i in [0, n) on up to workers goroutines (workers ≤ 0 means GOMAXPROCS), and returns
// when all calls have returned. With one worker the calls run in order on the calling goroutine.
func For(n, workers int, work func(i int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			work(i)
		}
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				work(i)
			}
		}()
	}
	wg.Wait()
}
