// Package parallel runs independent work items on all cores. Items are handed out one at a time, in order, so
// uneven items balance; each item must only write state it owns, which keeps results independent of scheduling.
package parallel

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// For calls work(i) for every i in [0, n) on up to workers goroutines (workers ≤ 0 means GOMAXPROCS), and returns
// when all calls have returned. With one worker the calls run in order on the calling goroutine.
//
// A panic in work never escapes on a worker goroutine (where nothing could recover it and it would end the
// process): the first one stops the hand-out of further items, For waits for the calls under way, and then panics
// on the calling goroutine with a [*Panic] holding the value and the worker's stack.
func For(n, workers int, work func(i int)) {
	ForWorker(n, workers, func(_, i int) { work(i) })
}

// ForWorker is For that also passes the index w of the goroutine making the call, 0 ≤ w < min(workers, n), so
// that work can use per-goroutine scratch space (no two concurrent calls share a w). Panics are handled as by For.
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
	var first atomic.Pointer[Panic]
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					first.CompareAndSwap(nil, &Panic{Value: v, Stack: debug.Stack()})
					next.Store(int64(n)) // no further items
				}
			}()
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
	if p := first.Load(); p != nil {
		panic(p)
	}
}

// Panic is the value For and ForWorker panic with, on the calling goroutine, when a work item panicked on a worker
// goroutine: the item's panic value and the stack of the worker where it happened.
type Panic struct {
	Value any
	Stack []byte
}

// Error returns the panic value and the worker's stack.
func (p *Panic) Error() string {
	return fmt.Sprintf("panic in a parallel work item: %v\n\nworker goroutine stack:\n%s", p.Value, p.Stack)
}

// Unwrap returns the panic value when it is an error (a runtime.Error, for example).
func (p *Panic) Unwrap() error {
	if err, ok := p.Value.(error); ok {
		return err
	}
	return nil
}
