package rff

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/model"
)

// plainReader hides everything of a reader but Read, as a pipe or a wrapping reader (a counting one) does: its
// length is unknown.
type plainReader struct{ r io.Reader }

func (p plainReader) Read(b []byte) (int, error) { return p.r.Read(b) }

// allocated returns the bytes f allocates (TotalAlloc: garbage included).
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestLoadMemory: loading a model file allocates its arrays once, about the file's length, whatever the reader
// (a file, a file seen as a plain stream under a limit as rff predict reads it, a byte slice), and the model loaded
// is the saved one bit for bit; a stream over the limit is refused having allocated next to nothing. Reading the
// whole file into memory and decoding it besides, or a buffer grown by doubling, allocates two to four times the
// file's length.
func TestLoadMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's runtime allocates besides")
	}
	// A regression fitted with uncertainty: its posterior factor, F×F = 2048² values (32 MiB), is most of the file.
	X := make([]float64, 2000*3)
	Y := make([]float64, 2000)
	for i := range Y {
		for j := range 3 {
			X[3*i+j] = math.Sin(float64(7*i + 3*j + 1))
		}
		Y[i] = math.Cos(X[3*i]) + X[3*i+1]*X[3*i+2]
	}
	data := &dataset.Data{X: X, Y: Y, N: 2000, D: 3}
	fitted, err := Fit(Config{Points: 1024, Rule: "g", Lambda: 1e-3, Sigma: 1, Uncertainty: true}, data)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "big.rff")
	if err := fitted.Save(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := fitted.file
	size := uint64(len(b))
	if size < 32<<20 {
		t.Fatalf("the model file has %d bytes, want at least 32 MiB", size)
	}
	// The arrays (8 bytes a value: the file's length but for its header), the map rebuilt from the points (small
	// here), a read buffer and bookkeeping.
	bound := size + size/16 + 1<<20
	open := func(t *testing.T) *os.File {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	for _, c := range []struct {
		name string
		load func(t *testing.T) (*Model, error)
	}{
		{"Load", func(*testing.T) (*Model, error) { return Load(path) }},
		{"ReadAtMost of a file", func(t *testing.T) (*Model, error) { return ReadAtMost(open(t), int64(2*size)) }},
		{"ReadAtMost of a stream", func(t *testing.T) (*Model, error) {
			return ReadAtMost(plainReader{open(t)}, int64(2*size))
		}},
		{"ReadAtMost of a stream at the limit", func(t *testing.T) (*Model, error) {
			return ReadAtMost(plainReader{open(t)}, int64(size))
		}},
		{"Read of a byte slice", func(*testing.T) (*Model, error) { return Read(bytes.NewReader(b)) }},
	} {
		var m *Model
		var err error
		got := allocated(func() { m, err = c.load(t) })
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		t.Logf("%s: %d bytes allocated for a file of %d (%.3f times)", c.name, got, size, float64(got)/float64(size))
		if got > bound {
			t.Errorf("%s: loading a model of %d bytes allocated %d bytes (%.2f times), want at most %d",
				c.name, size, got, float64(got)/float64(size), bound)
		}
		if m.file.Version != model.Version || !sameBits(m.file, want) {
			t.Errorf("%s: the model loaded differs from the file's", c.name)
		}
	}
	// A stream longer than the limit (the file under half its length, a model's head followed by endless zeros, as
	// from a pipe or a device): refused once the limit is passed, having allocated none of the arrays the limit
	// cannot hold.
	for _, c := range []struct {
		name string
		r    io.Reader
		max  int64
	}{
		{"the file under half its length", plainReader{open(t)}, int64(size / 2)},
		{"a model's head, then zeros", &countingZeros{head: bytes.Clone(b[:model.HeadSize])}, 16 << 20},
	} {
		var err error
		got := allocated(func() { _, err = ReadAtMost(c.r, c.max) })
		if !errors.Is(err, ErrTooLong) {
			t.Errorf("%s: %v, want ErrTooLong", c.name, err)
		}
		t.Logf("%s: refused having allocated %d bytes", c.name, got)
		if got > 1<<20 {
			t.Errorf("%s: refused having allocated %d bytes, want at most 1 MiB", c.name, got)
		}
	}
}

// sameBits reports whether two model files hold the same header and the same arrays, bit for bit (whatever the
// version they were read from).
func sameBits(a, b *model.Model) bool {
	eq := func(x, y []float64) bool {
		if len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return false
			}
		}
		return true
	}
	if len(a.Points) != len(b.Points) {
		return false
	}
	for k, p := range a.Points {
		if !eq(p, b.Points[k]) {
			return false
		}
	}
	ha, errA := json.Marshal(a.Header)
	hb, errB := json.Marshal(b.Header)
	return errA == nil && errB == nil && bytes.Equal(ha, hb) && eq(a.Theta, b.Theta) && eq(a.Bias, b.Bias) && eq(a.Probe, b.Probe) &&
		eq(a.TrainX, b.TrainX) && eq(a.Alpha, b.Alpha) && eq(a.Scale, b.Scale) && eq(a.Weights, b.Weights) &&
		eq(a.Phase, b.Phase) && eq(a.B, b.B) && eq(a.PosteriorFactor, b.PosteriorFactor) &&
		eq(a.PosteriorZMean, b.PosteriorZMean) && eq(a.NoiseVar, b.NoiseVar)
}

// TestLoadMemoryNystrom: a Nyström model's map is rebuilt on the arrays read from the file, not on copies of them:
// loading allocates about the file's length once.
func TestLoadMemoryNystrom(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's runtime allocates besides")
	}
	const d = 10 // spread rows: K_MM of full rank at this σ, all 1500 landmarks kept
	X := make([]float64, 3000*d)
	Y := make([]float64, 3000)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range Y {
		for j := range d {
			X[d*i+j] = rng.Float64()
		}
		Y[i] = math.Cos(X[d*i]) + X[d*i+1]*X[d*i+2]
	}
	fitted, err := Fit(Config{Map: "nystrom", Centres: 1500, Lambda: 1e-3, Sigma: 0.5, Preprocess: "none"}, &dataset.Data{X: X, Y: Y, N: 3000, D: d})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := fitted.Write(&buf); err != nil {
		t.Fatal(err)
	}
	size := uint64(buf.Len())
	if size < 16<<20 {
		t.Fatalf("the model file has %d bytes, want at least 16 MiB (M×M normalization)", size)
	}
	var m *Model
	got := allocated(func() { m, err = Read(bytes.NewReader(buf.Bytes())) })
	if err != nil {
		t.Fatal(err)
	}
	if bound := size + size/16 + 1<<20; got > bound {
		t.Errorf("loading a %d-byte Nyström model allocated %d bytes (%.2f×), want at most %d", size, got, float64(got)/float64(size), bound)
	}
	p1, err := fitted.PredictRows(X[:100*d], 100)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := m.PredictRows(X[:100*d], 100)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p1.Values {
		if p1.Values[i] != p2.Values[i] {
			t.Fatalf("prediction %d: %v from the fitted model, %v from the loaded one", i, p1.Values[i], p2.Values[i])
		}
	}
}
