//go:build unix

package dataset

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/rffkit/rff/internal/spool"
)

// TestPipeHeap: a data file given as a pipe, which the command line reads into memory once (package spool) before
// loading it, counts in the budget of its load while it is held there: a pipe under the budget whose parsed data
// exceeds it is refused with the heap — the pipe's bytes, the parsed arrays and the copies given up — within about
// the budget, not the pipe's bytes beside a whole budget of parsed data.
func TestPipeHeap(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's runtime allocates and collects differently")
	}
	const budget = 16 << 20
	row := []byte("1,2,3,4,5,6,7,8,9,10\n") // 21 bytes that parse to 90 bytes of arrays
	content := bytes.Repeat(row, budget/2/len(row))
	p := filepath.Join(t.TempDir(), "pipe.csv")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	go func() {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		f.Write(content)
	}()
	var err error
	peak := heapPeak(t, func() {
		if _, err = spool.Keep(p, budget); err != nil {
			return
		}
		_, err = Load(p, Options{MaxBytes: budget})
	})
	if be := (*BudgetError)(nil); !errors.As(err, &be) {
		t.Fatalf("err = %v, want a *BudgetError", err)
	}
	t.Logf("%v; heap peak %s (%.2f × the budget)", err, formatBytes(peak), float64(peak)/budget)
	if peak > budget*13/10 {
		t.Errorf("keeping and loading the pipe took up to %s of heap, over 1.3 × the budget of %s", formatBytes(peak), formatBytes(budget))
	}
}
