package rff

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rffkit/rff/internal/atomicfile"
	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/model"
)

// Save writes m to the file path in the current model format, atomically (a temporary file in the same directory,
// synced, then renamed): an existing file at path survives any failure.
func (m *Model) Save(path string) error {
	if !m.ok() {
		return errNoModel
	}
	b, err := m.encode()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.Write(path, b)
}

// Write writes m to w in the current model format.
func (m *Model) Write(w io.Writer) error {
	if !m.ok() {
		return errNoModel
	}
	if w == nil {
		return errors.New("rff: Model.Write: nil writer")
	}
	b, err := m.encode()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// encode returns the bytes of m in the current format. A model read from a version-1 file is written with its map's
// explicit parameters.
func (m *Model) encode() ([]byte, error) {
	f := *m.file
	if f.Version == 1 && !f.Exact {
		if m.fmap != nil {
			setMap(&f.Header, &f, m.fmap, f.Form)
		} else {
			setORFF(&f.Header, &f, m.omap)
		}
	}
	f.Version = model.Version
	return model.Encode(&f)
}

// Load reads the model file at path (any format version this release reads) and checks it: the map is rebuilt and
// must reproduce the probe features stored in the file. The map of a version-1 file is redrawn from its seed, and
// refused with a *RedrawError before anything is drawn when the redraw would be out of proportion to the map or
// would need more than the default memory budget (see ReadAtMost).
func Load(path string) (*Model, error) {
	if path == "" {
		return nil, errors.New("rff.Load: no path given")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := ReadAtMost(f, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Read reads a model from r, like Load.
func Read(r io.Reader) (*Model, error) {
	if r == nil {
		return nil, errors.New("rff.Read: nil reader")
	}
	return ReadAtMost(r, 0)
}

// ErrTooLong is returned (wrapped) by ReadAtMost for a stream longer than its limit.
var ErrTooLong = errors.New("longer than the limit")

// ReadAtMost reads a model from r like Read, reading at most max bytes (max ≤ 0: no limit): a longer stream is
// refused with an error wrapping ErrTooLong once max + 1 bytes have arrived, so that a device or an endless pipe
// cannot fill the memory. The first 16 bytes are checked before the rest is read: a stream that is not a model
// file is refused after them. The model is decoded as it is read (see model.Read): its arrays are allocated once at
// their length and filled straight from the stream, so that reading it takes about its length in memory, never a
// copy of the stream besides. A reader that knows its length (an *os.File, a *bytes.Reader, …) and is longer than
// max is refused unread.
//
// A version-1 file stores the seed of its map instead of its points, so its length bounds neither the memory nor
// the work of redrawing them: before anything is drawn, the redraw's memory is estimated (the map it keeps, and
// the temporary arrays of drawing it, as a fit estimates them) and refused with a *RedrawError when the temporary
// arrays exceed both 256 MiB and 32 times the map (a header asking for a few points in a large dimension, such as
// orf with d = 8000 and D = 1, which draws a whole 8000×8000 rotation for one point: no fit chooses that, and the
// file is damaged or crafted), or when the map and its temporary arrays exceed max bytes, the same budget as the
// stream's (max ≤ 0: dataset.DefaultMaxBytes, half of the memory available, the default budget of a fit).
func ReadAtMost(r io.Reader, max int64) (*Model, error) {
	if r == nil {
		return nil, errors.New("rff.ReadAtMost: nil reader")
	}
	var head [model.HeadSize]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	if err := model.CheckHead(head[:n]); err != nil {
		return nil, err
	}
	size := int64(-1)
	switch v := r.(type) {
	case interface{ Len() int }:
		size = int64(v.Len())
	case interface {
		Stat() (os.FileInfo, error)
		Seek(int64, int) (int64, error)
	}:
		if fi, err := v.Stat(); err == nil && fi.Mode().IsRegular() {
			if pos, err := v.Seek(0, io.SeekCurrent); err == nil && pos <= fi.Size() {
				size = fi.Size() - pos
			}
		}
	}
	if max > 0 && size > max-int64(len(head)) {
		return nil, fmt.Errorf("the model has %d bytes, %w of %d bytes", size+int64(len(head)), ErrTooLong, max)
	}
	src := &counter{r: r}
	limit := int64(0)
	if max > 0 {
		src.r, limit = io.LimitReader(r, max-int64(len(head))+1), max+1
	}
	if size >= 0 {
		size += int64(len(head))
	}
	f, err := model.Read(io.MultiReader(bytes.NewReader(head[:]), src), size, limit)
	if max > 0 && int64(len(head))+src.n > max {
		return nil, fmt.Errorf("the model is %w of %d bytes", ErrTooLong, max)
	}
	if err != nil {
		return nil, err
	}
	return fromFile(f, max)
}

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// UseOpenBLAS switches the linear algebra of the whole program to OpenBLAS, opened at run time, when it is
// installed (and the environment variable RFF_BLAS does not ask for pure Go); otherwise everything stays in pure Go.
// Importing rff has no process-wide effect: this call is how a program opts in, once, early in main (before other
// goroutines run). The rff command does it at start-up.
func UseOpenBLAS() error { return linalg.UseEnv() }
