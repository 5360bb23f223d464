package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/rffkit/rff/dataset"
)

// Magic opens every model file.
const Magic = "RFFMODEL"

// Version is the format version this package writes and reads.
const Version = 1

// maxHeader and maxArray bound what a (possibly corrupt) file can make the decoder allocate.
const (
	maxHeader = 1 << 24
	maxArray  = 1 << 31
)

// Header is the configuration of a model, stored as JSON.
type Header struct {
	Task       string          `json:"task"`             // "regression", "classification" or "hermite" (regression learned from values and derivatives)
	Exact      bool            `json:"exact,omitempty"`  // exact kernel ridge regression instead of features
	Kernel     string          `json:"kernel"`           // kernel name (kernel.New)
	Sigma      float64         `json:"sigma,omitempty"`  // bandwidth σ (shift-invariant kernels)
	Rule       string          `json:"rule,omitempty"`   // rule name (rule.Parse)
	Seed       uint64          `json:"seed"`             // seed of the feature map
	Points     int             `json:"points,omitempty"` // number of points D requested
	Dim        int             `json:"dim"`              // input dimension d
	Form       string          `json:"form,omitempty"`   // "cossin" or "cosphase"
	Features   int             `json:"features"`         // F, rows of Theta
	Outputs    int             `json:"outputs"`          // P, columns of Theta
	Intercept  bool            `json:"intercept"`
	Lambda     float64         `json:"lambda"`
	Loss       string          `json:"loss,omitempty"`     // "squared", "hinge", "logistic"
	Encoding   string          `json:"encoding,omitempty"` // classification: "onehot", "pm1", "simplex"
	Labels     []string        `json:"labels,omitempty"`   // class names, in class-index order
	Targets    []string        `json:"targets,omitempty"`  // names of the target columns
	Names      []string        `json:"names,omitempty"`    // names of the input columns
	Preprocess *dataset.Scaler `json:"preprocess,omitempty"`
	// OVK names the operator-valued kernel of a vector-valued model (ovk.Parse: "decomposable", "curl-free",
	// "div-free", "helmholtz:w"); such a model has Outputs = p, Theta of length Features (θ of the ORFF map, Features
	// = 2·D·p') and Probe of length Outputs·Features (the map's Φ̃(probe)ᵀ). A is the p×p matrix of a decomposable
	// kernel, row-major.
	OVK   string         `json:"ovk,omitempty"`
	A     []float64      `json:"A,omitempty"`
	Extra map[string]any `json:"extra,omitempty"` // free-form provenance (data file, timings, …)
}

// Model is a fitted model: its header and its arrays.
type Model struct {
	Header
	Theta  []float64 // F×P
	Bias   []float64 // P
	Probe  []float64 // features of ProbeInput(d)
	TrainX []float64 // exact models: N×d training inputs
	Alpha  []float64 // exact models: N×P dual coefficients
}

// ProbeInput returns the fixed input whose features are stored in a model file to check the rebuilt map.
func ProbeInput(d int) []float64 {
	x := make([]float64, d)
	for i := range x {
		x[i] = math.Sin(float64(i+1)) * 0.75
	}
	return x
}

// Write encodes m to w.
func Write(w io.Writer, m *Model) error {
	if err := m.check(); err != nil {
		return err
	}
	hdr, err := json.Marshal(m.Header)
	if err != nil {
		return fmt.Errorf("model: encoding the header: %w", err)
	}
	var buf bytes.Buffer
	buf.WriteString(Magic)
	binary.Write(&buf, binary.LittleEndian, uint32(Version))
	binary.Write(&buf, binary.LittleEndian, uint32(len(hdr)))
	buf.Write(hdr)
	for _, a := range [][]float64{m.Theta, m.Bias, m.Probe, m.TrainX, m.Alpha} {
		binary.Write(&buf, binary.LittleEndian, uint64(len(a)))
		binary.Write(&buf, binary.LittleEndian, a)
	}
	sum := sha256.Sum256(buf.Bytes())
	buf.Write(sum[:])
	_, err = w.Write(buf.Bytes())
	return err
}

// Save writes m to the file path.
func Save(path string, m *Model) error {
	var buf bytes.Buffer
	if err := Write(&buf, m); err != nil { // validate and encode before touching the file
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// Load reads the model file at path.
func Load(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Errors returned by Decode.
var (
	ErrMagic     = errors.New("not an rff model file (bad magic)")
	ErrTruncated = errors.New("model file is truncated")
	ErrChecksum  = errors.New("model file checksum mismatch (the file is corrupted)")
)

// Decode parses a model file held in memory.
func Decode(b []byte) (*Model, error) {
	if len(b) < len(Magic) || string(b[:len(Magic)]) != Magic {
		return nil, ErrMagic
	}
	if len(b) < 16 {
		return nil, ErrTruncated
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != Version {
		return nil, fmt.Errorf("model format version %d is not supported (this rff reads version %d)", v, Version)
	}
	if len(b) < 16+sha256.Size {
		return nil, ErrTruncated
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	hl := binary.LittleEndian.Uint32(b[12:])
	if hl > maxHeader || 16+int(hl) > len(body) {
		return nil, ErrTruncated
	}
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, ErrChecksum
	}
	m := &Model{}
	if err := json.Unmarshal(body[16:16+hl], &m.Header); err != nil {
		return nil, fmt.Errorf("model header: %w", err)
	}
	rest := body[16+hl:]
	for _, dst := range []*[]float64{&m.Theta, &m.Bias, &m.Probe, &m.TrainX, &m.Alpha} {
		if len(rest) < 8 {
			return nil, ErrTruncated
		}
		n := binary.LittleEndian.Uint64(rest)
		rest = rest[8:]
		if n > maxArray || uint64(len(rest)) < 8*n {
			return nil, ErrTruncated
		}
		a := make([]float64, n)
		for i := range a {
			a[i] = math.Float64frombits(binary.LittleEndian.Uint64(rest[8*i:]))
		}
		*dst = a
		rest = rest[8*n:]
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("model file has %d unexpected trailing bytes", len(rest))
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

// check validates the shapes the header promises.
func (m *Model) check() error {
	h := m.Header
	if h.Task != "regression" && h.Task != "classification" && h.Task != "hermite" {
		return fmt.Errorf("model: unknown task %q", h.Task)
	}
	if h.Dim < 1 || h.Outputs < 1 {
		return fmt.Errorf("model: bad dimensions (d=%d, outputs=%d)", h.Dim, h.Outputs)
	}
	if len(m.Bias) != h.Outputs {
		return fmt.Errorf("model: %d biases for %d outputs", len(m.Bias), h.Outputs)
	}
	if h.Exact {
		if len(m.TrainX)%h.Dim != 0 || len(m.Alpha) != len(m.TrainX)/h.Dim*h.Outputs {
			return fmt.Errorf("model: exact model arrays do not match (X %d values, α %d, d=%d, outputs=%d)", len(m.TrainX), len(m.Alpha), h.Dim, h.Outputs)
		}
	} else if h.OVK != "" {
		if h.Features < 1 || len(m.Theta) != h.Features || len(m.Probe) != h.Features*h.Outputs {
			return fmt.Errorf("model: ORFF weights do not match (θ %d values, probe %d, F=%d, outputs=%d)", len(m.Theta), len(m.Probe), h.Features, h.Outputs)
		}
	} else if h.Features < 1 || len(m.Theta) != h.Features*h.Outputs || len(m.Probe) != h.Features {
		return fmt.Errorf("model: weights do not match (θ %d values, probe %d, F=%d, outputs=%d)", len(m.Theta), len(m.Probe), h.Features, h.Outputs)
	}
	if h.A != nil && len(h.A) != h.Outputs*h.Outputs {
		return fmt.Errorf("model: A has %d values for %d outputs", len(h.A), h.Outputs)
	}
	if h.Task == "classification" && len(h.Labels) < 2 {
		return fmt.Errorf("model: a classifier needs at least 2 labels, has %d", len(h.Labels))
	}
	if h.Preprocess != nil {
		if err := h.Preprocess.Validate(); err != nil {
			return fmt.Errorf("model preprocessing: %w", err)
		}
		if h.Preprocess.D != h.Dim {
			return fmt.Errorf("model preprocessing is for %d columns, model for %d", h.Preprocess.D, h.Dim)
		}
	}
	return nil
}
