package dataset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// endless is a reader that repeats its row for ever.
type endless struct {
	row []byte
	off int
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], e.row[e.off:])
		n += k
		e.off = (e.off + k) % len(e.row)
	}
	return n, nil
}

// heapPeak runs f with the runtime's own collections off — as if the runtime let its heap grow to twice what is
// live, as it may by default, before collecting — and returns the most heap f's allocations took at any time,
// garbage included: the heap objects are sampled while f runs and once after it returns (with no collection, the
// heap only grows until f collects).
func heapPeak(t *testing.T, f func()) int64 {
	t.Helper()
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	base := read()
	var (
		mu   sync.Mutex
		peak int64
		wg   sync.WaitGroup
	)
	note := func(v int64) {
		mu.Lock()
		peak = max(peak, v-base)
		mu.Unlock()
	}
	done := make(chan struct{})
	wg.Go(func() {
		tick := time.NewTicker(100 * time.Microsecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				note(read())
			}
		}
	})
	f()
	note(read())
	close(done)
	wg.Wait()
	return peak
}

// TestEndlessInputHeap: a loader fed rows that never end refuses them once its arrays reach the memory budget, and
// meanwhile the heap it makes the process hold — its live arrays and the copies it has given up as they grew —
// stays within about the budget, even if the runtime does not collect on its own: the budget has the copies given
// up collected before they and the live arrays would exceed it. So a process refusing an input over its budget
// never holds much more than the budget.
func TestEndlessInputHeap(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's runtime allocates and collects differently")
	}
	const budget = 32 << 20
	o := Options{MaxBytes: budget}
	for _, c := range []struct {
		name string
		load func() error
	}{
		{"csv", func() error {
			_, err := o.ReadCSV(&endless{row: []byte("1,2,3,4,5,6,7,8,9,10\n")}, "endless.csv")
			return err
		}},
		{"csv labels", func() error {
			_, err := o.ReadCSV(&endless{row: []byte("1,2,a-class-label-of-some-length\n")}, "endless.csv")
			return err
		}},
		{"csv blank lines", func() error {
			_, err := o.ReadCSV(&endless{row: []byte("1,2\n\n\n\n\n\n\n\n")}, "endless.csv")
			return err
		}},
		{"libsvm", func() error {
			_, err := o.ReadLibSVM(&endless{row: []byte("1 1:0.5 2:0.25\n")}, "endless.svm")
			return err
		}},
		{"libsvm comments", func() error {
			_, err := o.ReadLibSVM(&endless{row: []byte("1 1:0.5 2:0.25 # a comment that makes the line long\n")}, "endless.svm")
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			peak := heapPeak(t, func() { err = c.load() })
			if be := (*BudgetError)(nil); !errors.As(err, &be) {
				t.Fatalf("err = %v, want a *BudgetError", err)
			}
			t.Logf("heap peak %s (%.2f × the budget)", formatBytes(peak), float64(peak)/budget)
			if peak > budget*13/10 {
				t.Errorf("the load took up to %s of heap, over 1.3 × the budget of %s", formatBytes(peak), formatBytes(budget))
			}
		})
	}
}

// TestIDXGrowthHeap: an IDX array read from a reader that does not tell its size grows as the elements arrive; when
// the budget has no room for the old copy of the array beside the new one, the array is allocated whole instead, so
// the heap stays within the budget. The elements are read as they are either way.
func TestIDXGrowthHeap(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's runtime allocates and collects differently")
	}
	const budget = 128 << 20
	const total = 120 << 20 / 8 // elements: 120 MiB as float64
	hdr := binary.BigEndian.AppendUint32([]byte{0, 0, idxUint8, 1}, total)
	var (
		x   []float64
		err error
	)
	peak := heapPeak(t, func() {
		x, _, err = Options{MaxBytes: budget}.ReadIDX(io.MultiReader(&onlyReader{bytes.NewReader(hdr)}, io.LimitReader(&endless{row: []byte{1, 2, 3}}, total)), "endless.idx")
	})
	if err != nil || len(x) != total || x[0] != 1 || x[total-1] != float64(1+(total-1)%3) {
		t.Fatalf("ReadIDX: %d elements, %v", len(x), err)
	}
	t.Logf("heap peak %s (%.2f × the budget)", formatBytes(peak), float64(peak)/budget)
	if peak > budget*13/10 {
		t.Errorf("the load took up to %s of heap, over 1.3 × the budget of %s", formatBytes(peak), formatBytes(budget))
	}
}
