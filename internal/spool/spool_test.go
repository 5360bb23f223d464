//go:build unix

package spool

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// TestKeep: a named pipe is read once and its content served to every Get; a regular file is left alone; an input
// over the limit is refused.
func TestKeep(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "a.csv")
	os.WriteFile(regular, []byte("x,y\n1,2\n"), 0o644)
	if kept, err := Keep(regular, -1); kept || err != nil {
		t.Errorf("regular file: kept %v, %v", kept, err)
	}
	if _, ok := Get(regular); ok {
		t.Error("a regular file was kept")
	}
	blocks := string(bytes.Repeat([]byte("0123456789abcdefghijklmnopqrstu\n"), 80000)) // 2.4 MiB, over several blocks
	for _, c := range []struct {
		name    string
		content string
		limit   int64
		tooBig  bool
	}{
		{"fifo", "a,b\n1.5,2.5\n", -1, false},
		{"exact", "12345", 5, false},
		{"over", "123456", 5, true},
		{"blocks", blocks, -1, false},
		{"blocks at the limit", blocks, int64(len(blocks)), false},
		{"blocks over", blocks, int64(len(blocks)) - 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			fifo := filepath.Join(dir, c.name)
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skip(err)
			}
			go func() {
				f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					return
				}
				f.Write([]byte(c.content))
				f.Close()
			}()
			kept, err := Keep(fifo, c.limit)
			if c.tooBig {
				if kept || !errors.Is(err, ErrTooLarge) {
					t.Errorf("kept %v, err %v; want ErrTooLarge", kept, err)
				}
				return
			}
			if !kept || err != nil {
				t.Fatalf("kept %v, err %v", kept, err)
			}
			for range 2 {
				got, ok := Get(fifo)
				if !ok {
					t.Fatal("Get: not kept")
				}
				b, err := io.ReadAll(got.Reader())
				if err != nil || string(b) != c.content || got.Size() != int64(len(c.content)) {
					t.Errorf("Get: %.40q (size %d), %v; want %.40q (size %d)", b, got.Size(), err, c.content, len(c.content))
				}
				for _, off := range []int{0, 1, len(c.content) / 2, 1<<20 - 3, 2<<20 - 1, len(c.content) - 2} { // across blocks
					if off < 0 || off > len(c.content) {
						continue
					}
					p := make([]byte, 7)
					n, err := got.ReadAt(p, int64(off))
					want := c.content[off:min(len(c.content), off+len(p))]
					if string(p[:n]) != want || (n < len(p)) != (err == io.EOF) {
						t.Errorf("ReadAt(%d): %q, %v; want %q", off, p[:n], err, want)
					}
				}
			}
			if kept, err := Keep(fifo, c.limit); !kept || err != nil { // not read again (it would block)
				t.Errorf("second Keep: %v, %v", kept, err)
			}
		})
	}
}

// TestKeepAllocation: an input that never ends is refused once it has given more than the limit, having allocated
// no more than the limit and the one block in which the limit falls — not an array grown (and copied) to about twice
// the limit as the bytes arrived. An input within the limit takes its size rounded up to a block.
func TestKeepAllocation(t *testing.T) {
	const limit = 16 << 20
	dir := t.TempDir()
	endless := filepath.Join(dir, "endless")
	if err := syscall.Mkfifo(endless, 0o644); err != nil {
		t.Skip(err)
	}
	go func() {
		f, err := os.OpenFile(endless, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		b := make([]byte, 1<<16)
		for { // until the reader closes the pipe
			if _, err := f.Write(b); err != nil {
				return
			}
		}
	}()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	kept, err := Keep(endless, limit)
	runtime.ReadMemStats(&after)
	if kept || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("kept %v, err %v; want ErrTooLarge", kept, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > limit+limit/4 {
		t.Errorf("refusing an endless input over a limit of %d bytes allocated %d bytes (%.2f × the limit)", limit, alloc, float64(alloc)/limit)
	}
}
