package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// readers are the ways a file reaches Read: as Decode, as a stream of unknown length (plain, or a byte at a time),
// of known length, and under a limit one byte above its length (as rff.ReadAtMost reads it).
var readers = []struct {
	name string
	read func(b []byte) (*Model, error)
}{
	{"Decode", Decode},
	{"stream", func(b []byte) (*Model, error) { return Read(io.MultiReader(bytes.NewReader(b)), -1, 0) }},
	{"byte stream", func(b []byte) (*Model, error) { return Read(iotest.OneByteReader(bytes.NewReader(b)), -1, 0) }},
	{"sized", func(b []byte) (*Model, error) { return Read(io.MultiReader(bytes.NewReader(b)), int64(len(b)), 0) }},
	{"limited", func(b []byte) (*Model, error) {
		return Read(io.MultiReader(bytes.NewReader(b)), -1, int64(len(b))+1)
	}},
	{"data and EOF together", func(b []byte) (*Model, error) {
		return Read(iotest.DataErrReader(bytes.NewReader(b)), -1, 0)
	}},
}

// sameAsRef checks that every reader decodes b as the whole-file decoder decodeRef does: the same model, or the
// same error.
func sameAsRef(t *testing.T, what string, b []byte) {
	t.Helper()
	want, wantErr := decodeRef(b)
	for _, r := range readers {
		got, err := r.read(b)
		switch {
		case (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()):
			t.Fatalf("%s, %s: error %v, want %v", what, r.name, err, wantErr)
		case err == nil && !reflect.DeepEqual(got, want):
			t.Fatalf("%s, %s: the model differs from the whole-file decoder's", what, r.name)
		}
	}
}

// withSum returns body followed by its checksum.
func withSum(body []byte) []byte {
	sum := sha256.Sum256(body)
	return append(bytes.Clone(body), sum[:]...)
}

// goodFiles are small well-formed files of every kind: the samples, and the version-1 and version-2 golden files.
func goodFiles(t *testing.T) map[string][]byte {
	files := map[string][]byte{"sample": encode(t, sample()), "nystrom": encode(t, nystromSample())}
	for _, dir := range []string{"../testdata/v1", "../testdata/v2"} {
		paths, _ := filepath.Glob(filepath.Join(dir, "*.rff"))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files[p] = b
		}
	}
	if len(files) < 10 {
		t.Fatalf("%d files", len(files))
	}
	return files
}

// TestReadMatchesDecode: the streaming reader, whatever the reader and what it knows of the length, decodes every
// file — whole, truncated, extended, with a byte changed (with its checksum fixed or not) in its head, at the start
// of its arrays or anywhere else — to the model or the error the whole-file decoder gives.
func TestReadMatchesDecode(t *testing.T) {
	for name, good := range goodFiles(t) {
		t.Run(strings.TrimPrefix(name, "../testdata/"), func(t *testing.T) {
			t.Parallel()
			readLikeDecode(t, name, good)
		})
	}
}

// readLikeDecode compares the readers with the whole-file decoder on the file good and its damaged forms.
func readLikeDecode(t *testing.T, name string, good []byte) {
	sameAsRef(t, name, good)
	body := good[:len(good)-sha256.Size]
	// Every byte of the head and of the first array's name and count, and a spread of the rest (fewer under the
	// race detector, which makes each decode slow).
	spread, first := 25, 30
	if raceEnabled || testing.Short() {
		spread, first = 5, 16
	}
	var at []int
	for i := 0; i < len(body); i += max(1, len(body)/spread) {
		at = append(at, i)
	}
	if hl := 16 + int(binary.LittleEndian.Uint32(good[12:])); hl+first < len(body) {
		for i := range first {
			at = append(at, i, hl+i)
		}
	}
	for _, n := range at {
		sameAsRef(t, name+" truncated", good[:n])
		sameAsRef(t, name+" body truncated", withSum(body[:n]))
	}
	for _, extra := range [][]byte{{0}, make([]byte, 31), make([]byte, 33), bytes.Repeat([]byte{0xff}, 100)} {
		sameAsRef(t, name+" extended", append(bytes.Clone(good), extra...))
		sameAsRef(t, name+" body extended", withSum(append(bytes.Clone(body), extra...)))
	}
	for _, i := range at {
		for _, mask := range []byte{0x01, 0x80} {
			b := bytes.Clone(good)
			b[i] ^= mask
			sameAsRef(t, name+" changed", b)
			c := bytes.Clone(body)
			c[i] ^= mask
			sameAsRef(t, name+" changed, checksum fixed", withSum(c))
		}
	}
}

// TestReadLargeArrays: arrays larger than Read's buffer and than the first capacity of an array grown as it arrives
// decode to the same values from every reader, and an array whose count claims more than the stream holds is refused
// as truncated without being allocated.
func TestReadLargeArrays(t *testing.T) {
	n := 3*growFrom + 5
	m := &Model{Header: Header{Task: "regression", Exact: true, Kernel: "gaussian", Sigma: 1, Dim: 1, Outputs: 1},
		TrainX: make([]float64, n), Alpha: make([]float64, n), Bias: []float64{0.5}}
	for i := range n {
		m.TrainX[i], m.Alpha[i] = math.Sin(float64(i)), float64(i)
	}
	good := encode(t, m)
	sameAsRef(t, "large", good)
	got, err := Decode(good)
	if err != nil || !reflect.DeepEqual(got.TrainX, m.TrainX) || !reflect.DeepEqual(got.Alpha, m.Alpha) {
		t.Fatalf("large arrays: %v", err)
	}
	// The count of train_x, the first array, claims 2³⁰ values: under a limit nothing is allocated for them.
	body := bytes.Clone(good[:len(good)-sha256.Size])
	at := bytes.Index(body, []byte("train_x")) + len("train_x")
	binary.LittleEndian.PutUint64(body[at:], 1<<30)
	bad := withSum(body)
	sameAsRef(t, "a count beyond the file", bad)
	before := totalAlloc()
	_, err = Read(io.MultiReader(bytes.NewReader(bad)), -1, int64(len(bad))+1)
	if !errors.Is(err, ErrTruncated) {
		t.Errorf("a count beyond the file: %v, want ErrTruncated", err)
	}
	if got := totalAlloc() - before; !raceEnabled && got > 1<<20 {
		t.Errorf("a count beyond the file allocated %d bytes", got)
	}
}

// TestReadErrors: an error of the reader is returned as it is, and a nil reader is refused.
func TestReadErrors(t *testing.T) {
	good := encode(t, sample())
	boom := errors.New("boom")
	for _, n := range []int{0, 10, 16, 100, len(good) - 1, len(good)} {
		r := io.MultiReader(bytes.NewReader(good[:n]), iotest.ErrReader(boom))
		if _, err := Read(r, -1, 0); err != boom {
			t.Errorf("error after %d bytes: %v, want it as it is", n, err)
		}
	}
	if _, err := Read(nil, -1, 0); err == nil {
		t.Error("nil reader accepted")
	}
}

// totalAlloc is the bytes allocated so far by the process.
func totalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// FuzzRead compares the streaming reader with the whole-file decoder on arbitrary bodies, with a valid checksum
// appended or not.
func FuzzRead(f *testing.F) {
	for _, m := range []*Model{sample(), nystromSample()} {
		good, _ := Encode(m)
		f.Add(good[:len(good)-sha256.Size], true)
	}
	f.Fuzz(func(t *testing.T, body []byte, sum bool) {
		if sum {
			body = withSum(body)
		}
		sameAsRef(t, "fuzzed", body)
	})
}
