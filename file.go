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
// must reproduce the probe features stored in the file.
func Load(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := decode(b)
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
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, err
	}
	return decode(buf.Bytes())
}

func decode(b []byte) (*Model, error) {
	f, err := model.Decode(b)
	if err != nil {
		return nil, err
	}
	return fromFile(f)
}

// UseOpenBLAS switches the linear algebra of the whole program to OpenBLAS, opened at run time, when it is
// installed (and the environment variable RFF_BLAS does not ask for pure Go); otherwise everything stays in pure Go.
// Importing rff has no process-wide effect: this call is how a program opts in, once, early in main (before other
// goroutines run). The rff command does it at start-up.
func UseOpenBLAS() error { return linalg.UseEnv() }
