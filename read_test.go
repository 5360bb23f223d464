package rff

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rffkit/rff/model"
)

// countingZeros is an endless stream of zeros after head that counts the bytes it gives.
type countingZeros struct {
	head []byte
	n    int64
}

func (c *countingZeros) Read(p []byte) (int, error) {
	k := copy(p, c.head)
	c.head = c.head[k:]
	clear(p[k:])
	c.n += int64(len(p))
	return len(p), nil
}

// ReadAtMost reads a model within its limit from every kind of reader, refuses one over it (knowing its length or
// not) without reading more than the limit and a byte, and refuses a stream that is not a model file after its
// first 16 bytes.
func TestReadAtMost(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "v2", "ridge-sr.rff"))
	if err != nil {
		t.Fatal(err)
	}
	size := int64(len(good))
	dir := t.TempDir()
	path := filepath.Join(dir, "m.rff")
	if err := os.WriteFile(path, good, 0o644); err != nil {
		t.Fatal(err)
	}
	shifted := filepath.Join(dir, "shifted") // ten bytes, then the model: read from offset 10
	if err := os.WriteFile(shifted, append([]byte("0123456789"), good...), 0o644); err != nil {
		t.Fatal(err)
	}
	readers := map[string]func(t *testing.T) io.Reader{
		"bytes.Reader": func(*testing.T) io.Reader { return bytes.NewReader(good) },
		"plain reader": func(*testing.T) io.Reader { return io.MultiReader(bytes.NewReader(good)) },
		"file": func(t *testing.T) io.Reader {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		},
		"file read from an offset": func(t *testing.T) io.Reader {
			f, err := os.Open(shifted)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			if _, err := f.Seek(10, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			return f
		},
	}
	for name, open := range readers {
		for _, c := range []struct {
			max  int64
			long bool
		}{{0, false}, {size, false}, {size + 1, false}, {size - 1, true}, {17, true}} {
			m, err := ReadAtMost(open(t), c.max)
			switch {
			case c.long && !errors.Is(err, ErrTooLong):
				t.Errorf("%s, limit %d of %d bytes: %v, want ErrTooLong", name, c.max, size, err)
			case !c.long && (err != nil || m.Info().Points == 0):
				t.Errorf("%s, limit %d of %d bytes: %v", name, c.max, size, err)
			}
		}
	}
	// An endless stream: refused at the limit (a good head) or after the head (anything else).
	for _, c := range []struct {
		name  string
		head  []byte
		max   int64
		want  error
		reads int64 // at most
	}{
		{"zeros", nil, 1 << 20, model.ErrMagic, 16},
		{"a model's head, then zeros", good[:16], 1 << 20, ErrTooLong, 1<<20 + 1<<16},
		{"a newer version's head", append([]byte(model.Magic), 0xff, 0, 0, 0, 0, 0, 0, 0), 1 << 20, model.ErrVersion, 16},
	} {
		r := &countingZeros{head: bytes.Clone(c.head)}
		if _, err := ReadAtMost(r, c.max); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		if r.n > c.reads {
			t.Errorf("%s: read %d bytes, want at most %d", c.name, r.n, c.reads)
		}
	}
	for _, short := range [][]byte{nil, good[:5], good[:15], good[:16], good[:100]} {
		if _, err := ReadAtMost(bytes.NewReader(short), 0); err == nil {
			t.Errorf("%d bytes of a model read", len(short))
		}
	}
}
