// Package gcpercent lowers the garbage collector's percentage (runtime/debug.SetGCPercent) for the duration of
// fits whose live heap is dominated by a few large matrices and whose only garbage is the scratch of the rows being
// mapped: with Go's default of 100 that garbage may grow the heap to twice the matrices. The setting is the
// process's, so overlapping fits share it: the first to start lowers it, the last to end restores the value the
// program had, and a program's own lower value (or GC off) is kept.
package gcpercent

import (
	"runtime/debug"
	"sync"
)

var (
	mu     sync.Mutex
	active int // fits running with the percentage lowered
	prev   int // the program's percentage before the first of them
)

// Lower sets the GC percentage to p unless the program's is already lower (or off), and returns the function that
// ends the lowering; call it once, when the fit ends.
func Lower(p int) (restore func()) {
	mu.Lock()
	if active == 0 {
		prev = debug.SetGCPercent(p)
		if prev < p { // the program's own is lower, or GC is off (−1)
			debug.SetGCPercent(prev)
		}
	}
	active++
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			if active--; active == 0 {
				debug.SetGCPercent(prev)
			}
		})
	}
}
