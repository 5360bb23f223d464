//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPipesShareBudget: the pipes a command reads into memory share its memory budget, each taking what those read
// before it leave, and a pipe's bytes count in the budget of its load beside the data parsed from it.
func TestPipesShareBudget(t *testing.T) {
	dir := t.TempDir()
	rows := bytes.Repeat([]byte("1,2,3,4,5,6,7,8,9,10\n"), 30000) // 630000 bytes that parse to 2.6 MB
	fill := func(name string) string {
		return fifo(t, filepath.Join(dir, name), func(f *os.File) { f.Write(rows) })
	}
	release := func(p string) { // a writer still waiting for a reader
		if f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}

	data, test := fill("data"), fill("test")
	code, _, errOut := runCLI("fit", "--data", data, "--test-data", test, "--out", filepath.Join(dir, "m.rff"), "--max-memory", "1MiB")
	want := test + ": a pipe longer than the 408.7 KiB the memory budget of 1 MiB leaves beside the inputs read before it (615.2 KiB)"
	if code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("two pipes over the budget together: exit %d, %q; want %q", code, errOut, want)
	}
	release(test)

	// The test pipe stays in memory while the training pipe is parsed: its bytes count against that load.
	data = fill("data3")
	big := fifo(t, filepath.Join(dir, "test3"), func(f *os.File) { f.Write(bytes.Repeat(rows, 4)) })
	code, _, errOut = runCLI("fit", "--data", data, "--test-data", big, "--out", filepath.Join(dir, "m.rff"), "--max-memory", "5MiB")
	want = "the memory budget of 5 MiB leaves beside the other inputs read into memory (2.4 MiB)"
	if code != 2 || !strings.HasPrefix(errOut, "rff fit: "+data+":") || !strings.Contains(errOut, want) {
		t.Errorf("a pipe parsed while another is held: exit %d, %q; want %q", code, errOut, want)
	}

	data = fill("data2")
	code, _, errOut = runCLI("fit", "--data", data, "--out", filepath.Join(dir, "m.rff"), "--max-memory", "1MiB")
	want = ": the parsed data (with 615.2 KiB of input held in memory) needs at least"
	if code != 2 || !strings.HasPrefix(errOut, "rff fit: "+data+":") || !strings.Contains(errOut, want) {
		t.Errorf("a pipe whose parsed data exceeds what the budget leaves beside it: exit %d, %q; want %q", code, errOut, want)
	}
}
