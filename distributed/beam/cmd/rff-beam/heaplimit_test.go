package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/rffkit/rff/dataset"
)

// The budgets become the Go runtime's soft memory limit while a fit runs, unless GOMEMLIMIT is set: the checks
// count what the fit keeps, and the limit makes the collector free what it dropped before the heap outgrows them
// (with the default pacing the heap may reach twice what is live). On prism and direct the workers run in this
// process, so the limit is the driver's budget and the worker's together; on a remote runner only the driver's.
// No limit (-1) on either budget sets none, and run restores the previous limit after the command.
func TestBudgetsLimitHeap(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set: the environment's limit wins")
	}
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	half := dataset.DefaultMaxBytes()
	for _, c := range []struct {
		name           string
		runner         string
		worker, driver int64
		want           int64 // the limit after limitHeap; before when none is set
	}{
		{"prism", "prism", 512 << 20, 256 << 20, 768 << 20},
		{"direct", "direct", 512 << 20, 256 << 20, 768 << 20},
		{"prism defaults", "prism", 0, 0, 2 * half},
		{"remote runner", "dataflow", 512 << 20, 256 << 20, 256 << 20},
		{"no worker limit", "prism", -1, 256 << 20, before},
		{"no driver limit", "dataflow", 512 << 20, -1, before},
	} {
		t.Run(c.name, func(t *testing.T) {
			debug.SetMemoryLimit(before)
			limitHeap(c.runner, c.worker, c.driver)
			if got := debug.SetMemoryLimit(-1); got != c.want {
				t.Errorf("--worker-memory %d --max-memory %d on %s: limit %d, want %d", c.worker, c.driver, c.runner, got, c.want)
			}
		})
	}
	debug.SetMemoryLimit(before)
	dir := t.TempDir()
	glob := writeShards(t, dir, 100, "")
	if code, _, stderr := runCmd("fit", "--input", glob, "--out", filepath.Join(dir, "m.rff"), "-D", "8", "--sigma", "1", "--worker-memory", "512MiB", "--max-memory", "256MiB"); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("after the command the limit is %d, before it %d", got, before)
	}
}
