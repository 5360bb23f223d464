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
	files = map[string]*Content{}
)

// ErrTooLarge is returned by Keep for an input longer than its limit.
var ErrTooLarge = errors.New("input over the memory budget")

// chunkSize is the size of the blocks a kept input is stored in. The content is read into blocks of this size, never
// copied into a larger array, so that reading an input of n bytes allocates about n bytes, where an array grown as
// the bytes arrive (io.ReadAll) would allocate, and hold at once, about twice as much.
const chunkSize = 1 << 20

// Content is the content of a kept input, stored in blocks of chunkSize bytes (the last one shorter). It is never
// modified once kept.
type Content struct {
	chunks [][]byte
	size   int64
}

// Size returns the number of bytes of the content.
func (c *Content) Size() int64 { return c.size }

// ReadAt reads len(p) bytes of the content from offset off (io.ReaderAt).
func (c *Content) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("spool: negative offset")
	}
	n := 0
	for n < len(p) && off < c.size {
		k := copy(p[n:], c.chunks[off/chunkSize][off%chunkSize:])
		n += k
		off += int64(k)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Reader returns a reader of the content from its start (Read, ReadAt, Seek and Size).
func (c *Content) Reader() *io.SectionReader { return io.NewSectionReader(c, 0, c.size) }

// Keep reads the whole of path into memory, when path names neither a regular file nor a directory, and keeps it for
// Get; it reads at most limit bytes (limit < 0: no limit) and returns an error wrapping ErrTooLarge beyond that. It
// reports whether it kept the input. A path kept already is not read again. Regular files, directories and paths
// that do not exist are left alone (reported false, nil): their readers open them as usual. Keep allocates the
// content in blocks of 1 MiB, never copied into a larger array, and for an input over the limit no more than the
// limit and the one byte that tells it is over.
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
	c, err := read(f, limit)
	if errors.Is(err, ErrTooLarge) {
		return false, fmt.Errorf("%s: more than %d bytes: %w", path, limit, err)
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	files[path] = c
	return true, nil
}

// read reads r to its end into blocks, or returns ErrTooLarge as soon as more than limit bytes (limit ≥ 0) have
// arrived: no block is allocated beyond the limit plus one byte.
func read(r io.Reader, limit int64) (*Content, error) {
	c := &Content{}
	for {
		room := int64(chunkSize)
		if limit >= 0 {
			room = min(room, limit+1-c.size) // ≥ 1: the loop ends once size > limit
		}
		buf := make([]byte, room)
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if n < len(buf)/2 { // a short last block: keep only its bytes
				buf = append([]byte(nil), buf[:n]...)
			}
			c.chunks = append(c.chunks, buf[:n:n])
			c.size += int64(n)
		}
		if limit >= 0 && c.size > limit {
			c.chunks = nil
			return nil, ErrTooLarge
		}
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return c, nil
		case err != nil:
			return nil, err
		}
	}
}

// Get returns the content kept for path, if any.
func Get(path string) (*Content, bool) {
	mu.Lock()
	defer mu.Unlock()
	c, ok := files[path]
	return c, ok
}
