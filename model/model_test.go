package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rffkit/rff/dataset"
)

// sample is a consistent version-2 classifier on 3 cos/sin points in 2 dimensions.
func sample() *Model {
	sc, _ := dataset.FitScaler([]float64{1, 2, 3, 5, 4, 0}, 3, 2, []dataset.Step{dataset.StepStandardize})
	return &Model{
		Header: Header{Task: "classification", Kernel: "gaussian", Sigma: 1.5, Rule: "sr-butterfly", Seed: 42,
			Points: 3, Dim: 2, Form: "cossin", Features: 6, Outputs: 2, Intercept: true, Lambda: 1e-3,
			Encoding: "onehot", Labels: []string{"A", "B"}, Names: []string{"u", "v"}, Preprocess: sc, Zero: 0.25,
			PointsKind: "dense"},
		Theta:   []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
		Bias:    []float64{0.5, -0.5},
		Probe:   []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6},
		Points:  map[string][]float64{"points": {1, 0, 0, 1, -1, 1}},
		Scale:   []float64{0.5, 0.5, 0.5},
		Weights: []float64{0.25, 0.25, 0.25},
	}
}

// encodeRaw writes m in the current layout without checking it: a checksum-valid file with whatever content.
func encodeRaw(t *testing.T, m *Model) []byte {
	t.Helper()
	hdr, err := json.Marshal(m.Header)
	if err != nil {
		t.Fatal(err)
	}
	b := append([]byte(Magic), binary.LittleEndian.AppendUint32(nil, Version)...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(hdr)))
	b = append(b, hdr...)
	named := m.named()
	b = binary.LittleEndian.AppendUint32(b, uint32(len(named)))
	for _, a := range named {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(a.name)))
		b = append(b, a.name...)
		b = binary.LittleEndian.AppendUint64(b, uint64(len(a.v)))
		for _, v := range a.v {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

func encode(t *testing.T, m *Model) []byte {
	t.Helper()
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	m := sample()
	b := encode(t, m)
	if !bytes.Equal(b, encodeRaw(t, m)) {
		t.Fatal("Encode and the documented layout differ")
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != Version {
		t.Errorf("version %d", got.Version)
	}
	if !reflect.DeepEqual(m.named(), got.named()) {
		t.Error("arrays differ after a round trip")
	}
	if !reflect.DeepEqual(got.Header, m.Header) {
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

// TestVersion1Golden: every version-1 file written by the last release that wrote version 1 still decodes.
func TestVersion1Golden(t *testing.T) {
	files, _ := filepath.Glob("../testdata/v1/*.rff")
	if len(files) < 10 {
		t.Fatalf("found %d golden version-1 files", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			m, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			if m.Version != 1 {
				t.Errorf("version %d", m.Version)
			}
		})
	}
}

// TestInconsistent: files whose checksum is valid but whose fields contradict each other are errors.
func TestInconsistent(t *testing.T) {
	tests := []struct {
		name string
		edit func(m *Model)
	}{
		{"exact on a feature model", func(m *Model) { m.Exact = true }},
		{"ovk on a scalar model", func(m *Model) { m.OVK = "curl-free" }},
		{"A on a scalar model", func(m *Model) { m.A = []float64{1, 0, 0, 1} }},
		{"NaN weight", func(m *Model) { m.Theta[3] = math.NaN() }},
		{"infinite point", func(m *Model) { m.Points["points"][0] = math.Inf(1) }},
		{"unknown points kind", func(m *Model) { m.PointsKind = "spiral" }},
		{"points arrays of another kind", func(m *Model) { m.PointsKind = "sorf" }},
		{"extra points array", func(m *Model) { m.Points["rho"] = []float64{1} }},
		{"unknown form", func(m *Model) { m.Form = "cosine" }},
		{"unknown task", func(m *Model) { m.Task = "ranking" }},
		{"unknown loss", func(m *Model) { m.Loss = "huber" }},
		{"unknown encoding", func(m *Model) { m.Encoding = "binary" }},
		{"cosphase without phases", func(m *Model) { m.Form = "cosphase" }},
		{"phases on cos/sin", func(m *Model) { m.Phase = []float64{0, 1, 2} }},
		{"points vs W", func(m *Model) { m.Header.Points = 4 }},
		{"weights length", func(m *Model) { m.Weights = m.Weights[:2] }},
		{"theta length", func(m *Model) { m.Theta = m.Theta[:11] }},
		{"probe length", func(m *Model) { m.Probe = m.Probe[:5] }},
		{"no map parameters", func(m *Model) { m.Points, m.Weights = nil, nil }},
		{"outputs vs labels", func(m *Model) { m.Labels = []string{"A", "B", "C"} }},
		{"duplicate label", func(m *Model) { m.Labels = []string{"A", "A"} }},
		{"simplex outputs", func(m *Model) { m.Encoding = "simplex" }},
		{"names length", func(m *Model) { m.Names = []string{"u"} }},
		{"duplicate input name", func(m *Model) { m.Names = []string{m.Names[0], m.Names[0]} }},
		{"empty input name", func(m *Model) { m.Names = []string{m.Names[0], ""} }},
		{"duplicate target name", func(m *Model) { m.Targets = []string{"t", "t"} }},
		{"preprocessing width", func(m *Model) { m.Dim = 3; m.Points["points"] = make([]float64, 9); m.Names = nil }},
		{"negative λ", func(m *Model) { m.Lambda = -1 }},
		{"negative σ", func(m *Model) { m.Sigma = -1 }},
		{"no kernel", func(m *Model) { m.Kernel = "" }},
		{"exact arrays on a feature model", func(m *Model) { m.TrainX = []float64{1, 2} }},
		{"B on a scalar model", func(m *Model) { m.B = []float64{1} }},
		{"labels on regression", func(m *Model) { m.Task = "regression" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := sample()
			tc.edit(m)
			if _, err := Decode(encodeRaw(t, m)); err == nil {
				t.Error("decoded")
			}
			if _, err := Encode(m); err == nil {
				t.Error("encoded")
			}
		})
	}
	// A field this reader does not know is refused in version 2.
	b := encodeRaw(t, sample())
	if _, err := Decode(b); err != nil {
		t.Fatalf("the unmodified sample does not decode: %v", err)
	}
	hl := binary.LittleEndian.Uint32(b[12:])
	hdr := string(b[16 : 16+hl])
	hdr = strings.Replace(hdr, `{"task"`, `{"futuristic":1,"task"`, 1)
	body := append(append(append([]byte(nil), b[:12]...), binary.LittleEndian.AppendUint32(nil, uint32(len(hdr)))...), hdr...)
	body = append(body, b[16+hl:len(b)-32]...)
	sum := sha256.Sum256(body)
	if _, err := Decode(append(body, sum[:]...)); err == nil || !strings.Contains(err.Error(), "futuristic") {
		t.Errorf("unknown header field: %v", err)
	}
}

// TestCorrupted: every kind of damage gives its own clear error and never a panic.
func TestCorrupted(t *testing.T) {
	good := encode(t, sample())
	for n := 0; n < len(good); n++ {
		if _, err := Decode(good[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
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
	for v, why := range map[uint32]string{0: "damaged", 99: "a newer rff wrote it"} {
		b = append([]byte(nil), good...)
		binary.LittleEndian.PutUint32(b[8:], v)
		if _, err := Decode(b); !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), why) {
			t.Errorf("version %d: %v, want ErrVersion saying %q", v, err, why)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.rff")); err == nil {
		t.Error("missing file: no error")
	}
	if err := Write(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil model written")
	}
}

// TestSaveAtomic: a model that fails its check, or a destination that cannot be written, leaves the old file as it
// was and no temporary file behind.
func TestSaveAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.rff")
	if err := Save(path, sample()); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(path)
	bad := sample()
	bad.Theta = bad.Theta[:3]
	if err := Save(path, bad); err == nil {
		t.Fatal("an inconsistent model was saved")
	}
	if err := Save(filepath.Join(dir, "missing", "m.rff"), sample()); err == nil {
		t.Fatal("saved into a missing directory")
	}
	now, _ := os.ReadFile(path)
	if !bytes.Equal(old, now) {
		t.Error("the old model changed")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries, want the model only", len(entries))
	}
}

// FuzzDecode feeds arbitrary bodies with a valid checksum appended, so that the fuzzer reaches the header and array
// parsers and the consistency checks instead of stopping at the checksum: decoding never panics, and whatever decodes
// passes Check and re-encodes to a file that decodes to the same model.
func FuzzDecode(f *testing.F) {
	for _, m := range []*Model{sample(), nystromSample()} {
		good, _ := Encode(m)
		f.Add(good[:len(good)-sha256.Size])
	}
	for _, g := range []string{"ridge-sr", "ovk-curl", "exact", "cls-simplex"} {
		if b, err := os.ReadFile("../testdata/v1/" + g + ".rff"); err == nil {
			f.Add(b[:len(b)-sha256.Size])
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		sum := sha256.Sum256(body)
		m, err := Decode(append(append([]byte(nil), body...), sum[:]...))
		if err != nil {
			return
		}
		if err := m.Check(); err != nil {
			t.Fatalf("decoded an inconsistent model: %v", err)
		}
		if m.Version != Version {
			return // version 1 is re-encoded only after its map is made explicit, by the root package
		}
		b, err := Encode(m)
		if err != nil {
			t.Fatalf("a decoded model does not encode: %v", err)
		}
		back, err := Decode(b)
		if err != nil || !reflect.DeepEqual(back.Header, m.Header) {
			t.Fatalf("round trip: %v", err)
		}
	})
}
