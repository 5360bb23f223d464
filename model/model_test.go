package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rffkit/rff/dataset"
)

func sample() *Model {
	sc, _ := dataset.FitScaler([]float64{1, 2, 3, 5, 4, 0}, 3, 2, []dataset.Step{dataset.StepStandardize})
	return &Model{
		Header: Header{Task: "classification", Kernel: "gaussian", Sigma: 1.5, Rule: "sr-butterfly", Seed: 42,
			Points: 6, Dim: 2, Form: "cossin", Features: 3, Outputs: 2, Intercept: true, Lambda: 1e-3,
			Encoding: "onehot", Labels: []string{"A", "B"}, Preprocess: sc},
		Theta: []float64{1, 2, 3, 4, 5, 6},
		Bias:  []float64{0.5, -0.5},
		Probe: []float64{0.1, 0.2, 0.3},
	}
}

func encode(t *testing.T, m *Model) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	m := sample()
	got, err := Decode(encode(t, m))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Theta, m.Theta) || !reflect.DeepEqual(got.Bias, m.Bias) || !reflect.DeepEqual(got.Probe, m.Probe) {
		t.Error("arrays differ after a round trip")
	}
	if !reflect.DeepEqual(got.Header.Preprocess, m.Header.Preprocess) || got.Header.Labels[1] != "B" || got.Seed != 42 {
		t.Errorf("header differs: %+v", got.Header)
	}
	path := filepath.Join(t.TempDir(), "m.rff")
	if err := Save(path, m); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Fatal(err)
	}
	ex := &Model{Header: Header{Task: "regression", Exact: true, Kernel: "laplacian", Sigma: 1, Dim: 2, Outputs: 1},
		Bias: []float64{3}, TrainX: []float64{1, 2, 3, 4}, Alpha: []float64{0.5, -0.5}}
	if got, err := Decode(encode(t, ex)); err != nil || !reflect.DeepEqual(got.Alpha, ex.Alpha) {
		t.Errorf("exact model round trip: %v", err)
	}
}

// TestCorrupted: every kind of damage gives its own clear error and never a panic.
func TestCorrupted(t *testing.T) {
	good := encode(t, sample())
	// Every truncation.
	for n := 0; n < len(good); n++ {
		if _, err := Decode(good[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
	// A flipped bit anywhere in the body is a checksum mismatch (after the version field).
	for _, i := range []int{20, len(good) / 2, len(good) - 40} {
		b := append([]byte(nil), good...)
		b[i] ^= 1
		if _, err := Decode(b); !errors.Is(err, ErrChecksum) {
			t.Errorf("flipped byte %d: %v, want checksum mismatch", i, err)
		}
	}
	b := append([]byte(nil), good...)
	b[0] = 'X'
	if _, err := Decode(b); !errors.Is(err, ErrMagic) {
		t.Errorf("bad magic: %v", err)
	}
	b = append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(b[8:], 99)
	if _, err := Decode(b); err == nil || !strings.Contains(err.Error(), "version 99") {
		t.Errorf("unknown version: %v", err)
	}
	if _, err := Decode(good[:len(good)-1]); err == nil {
		t.Error("missing checksum byte: no error")
	}
	bad := sample()
	bad.Theta = bad.Theta[:5]
	if err := Write(&bytes.Buffer{}, bad); err == nil {
		t.Error("inconsistent shapes must not be written")
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.rff")); err == nil {
		t.Error("missing file: no error")
	}
}

func FuzzDecode(f *testing.F) {
	var b bytes.Buffer
	Write(&b, sample())
	f.Add(b.Bytes())
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err == nil {
			if m.check() != nil {
				t.Fatal("decoded an inconsistent model")
			}
		}
	})
}
