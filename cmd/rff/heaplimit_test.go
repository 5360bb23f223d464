package main

import (
	"io"
	"os"
	"runtime/debug"
	"testing"
)

// A command's --max-memory becomes the Go runtime's soft memory limit while it runs (the collector then frees what
// the command dropped before the heap outgrows the budget), unless GOMEMLIMIT is set; run restores the limit after
// the command.
func TestMaxMemoryLimitsHeap(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set: the environment's limit wins")
	}
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	fs := newFlags("x", io.Discard, "")
	registerMemory(fs.FlagSet)
	if err := parseFlags(fs, []string{"--max-memory", "512MiB"}); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != 512<<20 {
		t.Errorf("after --max-memory 512MiB the runtime's limit is %d", got)
	}
	debug.SetMemoryLimit(before)
	if code, _, errOut := runCLI("generate", "multitask", "--n", "10", "--out", os.DevNull, "--max-memory", "256MiB"); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errOut)
	}
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("after the command the limit is %d, before it %d", got, before)
	}
}
