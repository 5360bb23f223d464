package gcpercent

import (
	"runtime/debug"
	"sync"
	"testing"
)

// TestLowerNested: overlapping calls, in any order of their ends, leave the percentage at the lowest asked while any
// runs and restore the program's own value when the last one ends — also when they run concurrently; a program's
// lower setting (or GC off) is never raised.
func TestLowerNested(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	a := Lower(20)
	if got := current(); got != 20 {
		t.Fatalf("after Lower(20): %d", got)
	}
	b := Lower(20)
	a() // the first ends while the second runs
	if got := current(); got != 20 {
		t.Fatalf("one of two ended: %d, want 20 while the other runs", got)
	}
	b()
	if got := current(); got != 100 {
		t.Fatalf("both ended: %d, want the program's 100", got)
	}

	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() { Lower(20)() })
	}
	wg.Wait()
	if got := current(); got != 100 {
		t.Fatalf("after 50 concurrent calls: %d, want 100", got)
	}

	for _, own := range []int{10, -1} {
		debug.SetGCPercent(own)
		r := Lower(20)
		if got := current(); got != own {
			t.Errorf("program's %d raised to %d", own, got)
		}
		r()
		if got := current(); got != own {
			t.Errorf("program's %d not restored: %d", own, got)
		}
	}
}

// current reads the GC percentage without changing it.
func current() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}
