// Package spool keeps the content of inputs that cannot be read twice — a pipe, a terminal, /dev/stdin, a process
// substitution — so that a command that reads an input more than once (to guess its format, to find its header,
// then for its rows) reads the same bytes every time. The command line keeps its inputs (Keep) before it reads them;
// package dataset opens a kept input from memory (Get).
package spool

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

var (
	mu    sync.Mutex
	files = map[string][]byte{}
)

// ErrTooLarge is returned by Keep for an input longer than its limit.
var ErrTooLarge = errors.New("input over the memory budget")

// Keep reads the whole of path into memory, when path names neither a regular file nor a directory, and keeps it for
// Get; it reads at most limit bytes (limit < 0: no limit) and returns an error wrapping ErrTooLarge beyond that. It
// reports whether it kept the input. A path kept already is not read again. Regular files, directories and paths
// that do not exist are left alone (reported false, nil): their readers open them as usual.
func Keep(path string, limit int64) (bool, error) {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().IsRegular() || fi.IsDir() {
		return false, nil
	}
	mu.Lock()
	defer mu.Unlock()
	if _, ok := files[path]; ok {
		return true, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	r := io.Reader(f)
	if limit >= 0 {
		r = io.LimitReader(f, limit+1)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if limit >= 0 && int64(len(b)) > limit {
		return false, fmt.Errorf("%s: more than %d bytes: %w", path, limit, ErrTooLarge)
	}
	files[path] = b
	return true, nil
}

// Get returns the content kept for path, if any.
func Get(path string) ([]byte, bool) {
	mu.Lock()
	defer mu.Unlock()
	b, ok := files[path]
	return b, ok
}
