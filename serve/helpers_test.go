package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rffkit/rff"
)

// golden is where the golden model files of every kind are (testdata/make-golden.sh says how each was fitted).
const golden = "../testdata/v2"

// copyModels copies golden model files into a new directory, each under the name given after "=" (or its own).
func copyModels(t testing.TB, specs ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, spec := range specs {
		src, dst, ok := strings.Cut(spec, "=")
		if !ok {
			dst = src
		}
		b, err := os.ReadFile(filepath.Join(golden, src+".rff"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst+".rff"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// replaceFile writes b to path atomically (temporary file and rename), as a careful deployment does.
func replaceFile(t testing.TB, path string, b []byte) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func loadGolden(t testing.TB, name string) *rff.Model {
	t.Helper()
	m, err := rff.Load(filepath.Join(golden, name+".rff"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// newTestServer serves dir on a loopback httptest server.
func newTestServer(t testing.TB, dir string, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts
}

// randomRows returns n×d normal values with a few of extreme magnitudes, exact in their shortest decimal form.
func randomRows(seed uint64, n, d int) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := make([]float64, n*d)
	for i := range X {
		X[i] = rng.NormFloat64()
		if rng.IntN(50) == 0 {
			X[i] *= 1e-8
		}
	}
	return X
}

// matrixBody is an inference request with X as one [n, d] tensor.
func matrixBody(X []float64, n, d int, datatype string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"id":"req-1","inputs":[{"name":"input","shape":[` + strconv.Itoa(n) + `,` + strconv.Itoa(d) +
		`],"datatype":"` + datatype + `","data":[`)
	bits := 64
	if datatype == "FP32" {
		bits = 32
	}
	for i, v := range X {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(v, 'g', -1, bits))
	}
	b.WriteString("]}]}")
	return b.Bytes()
}

// columnBody is an inference request with one [n] tensor per named column, in the order given by perm.
func columnBody(X []float64, n int, names []string, perm []int) []byte {
	d := len(names)
	type in struct {
		Name     string    `json:"name"`
		Shape    []int     `json:"shape"`
		Datatype string    `json:"datatype"`
		Data     []float64 `json:"data"`
	}
	var req struct {
		Inputs []in `json:"inputs"`
	}
	for _, j := range perm {
		col := make([]float64, n)
		for i := range col {
			col[i] = X[i*d+j]
		}
		req.Inputs = append(req.Inputs, in{names[j], []int{n}, "FP64", col})
	}
	b, _ := json.Marshal(req)
	return b
}

// inferResponse is the decoded response of an inference request.
type inferResponse struct {
	ModelName    string `json:"model_name"`
	ModelVersion string `json:"model_version"`
	ID           string `json:"id"`
	Outputs      []struct {
		Name     string          `json:"name"`
		Datatype string          `json:"datatype"`
		Shape    []int           `json:"shape"`
		Data     json.RawMessage `json:"data"`
	} `json:"outputs"`
	Error string `json:"error"`
}

func (r *inferResponse) floats(t testing.TB, name string) ([]float64, []int) {
	t.Helper()
	for _, o := range r.Outputs {
		if o.Name == name {
			if o.Datatype != "FP64" {
				t.Fatalf("output %s has datatype %s", name, o.Datatype)
			}
			var v []float64
			if err := json.Unmarshal(o.Data, &v); err != nil {
				t.Fatal(err)
			}
			return v, o.Shape
		}
	}
	t.Fatalf("no output %q in %+v", name, r.Outputs)
	return nil, nil
}

func (r *inferResponse) strings(t testing.TB, name string) ([]string, []int) {
	t.Helper()
	for _, o := range r.Outputs {
		if o.Name == name {
			var v []string
			if err := json.Unmarshal(o.Data, &v); err != nil {
				t.Fatal(err)
			}
			return v, o.Shape
		}
	}
	t.Fatalf("no output %q", name)
	return nil, nil
}

// do sends a request and returns the status code, the headers and the body.
func do(t testing.TB, c *http.Client, method, url string, body []byte, header ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1]) // a name given twice is sent twice
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// infer posts body to model name and decodes the answer, which must be 200.
func infer(t testing.TB, c *http.Client, base, name string, body []byte, header ...string) *inferResponse {
	t.Helper()
	code, _, b := do(t, c, http.MethodPost, base+"/v2/models/"+name+"/infer", body, header...)
	if code != http.StatusOK {
		t.Fatalf("infer %s: %d %s", name, code, b)
	}
	var r inferResponse
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("infer %s: %v in %s", name, err, b)
	}
	return &r
}

// sameBits compares two vectors bit for bit.
func sameBits(t testing.TB, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: value %d is %v (%#x), want %v (%#x)", what, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
		}
	}
}

// lockedWriter serializes writes to a buffer shared with the test.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func newTestLogger(buf *bytes.Buffer, mu *sync.Mutex) *slog.Logger {
	return slog.New(slog.NewTextHandler(lockedWriter{mu, buf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
