//go:build unix

package spool

import (
	"errors"
	"os"
	"path/filepath"
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
	for _, c := range []struct {
		name    string
		content string
		limit   int64
		tooBig  bool
	}{
		{"fifo", "a,b\n1.5,2.5\n", -1, false},
		{"exact", "12345", 5, false},
		{"over", "123456", 5, true},
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
				if b, ok := Get(fifo); !ok || string(b) != c.content {
					t.Errorf("Get = %q, %v; want %q", b, ok, c.content)
				}
			}
			if kept, err := Keep(fifo, c.limit); !kept || err != nil { // not read again (it would block)
				t.Errorf("second Keep: %v, %v", kept, err)
			}
		})
	}
}
