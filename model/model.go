package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"unicode"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/atomicfile"
	"github.com/rffkit/rff/internal/colnames"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
)

// Magic opens every model file.
const Magic = "RFFMODEL"

// Version is the format version this package writes; [Decode] reads every version from 1 to Version.
const Version = 2

// maxHeader, maxArray and maxArrays bound the header and the arrays of a file. The arrays are decoded as the file is
// read, before its checksum is verified at its end (nothing is returned before): an array is allocated at its length
// only when the file's known length (or the reader's limit) has room for it, so that a corrupt length makes the
// reader allocate about what the file gives, not what it claims (see Read).
const (
	maxHeader = 1 << 24
	maxArray  = 1 << 31
	maxArrays = 64
)

// Header is the configuration of a model, stored as JSON.
type Header struct {
	Task      string   `json:"task"`             // "regression", "classification" or "hermite" (regression learned from values and derivatives)
	Exact     bool     `json:"exact,omitempty"`  // exact kernel ridge regression instead of features
	Kernel    string   `json:"kernel"`           // kernel name (kernel.New)
	Sigma     float64  `json:"sigma,omitempty"`  // bandwidth σ (shift-invariant kernels)
	Rule      string   `json:"rule,omitempty"`   // rule name (rule.Parse)
	Seed      uint64   `json:"seed"`             // seed the map was drawn from
	Points    int      `json:"points,omitempty"` // number of points D drawn
	Dim       int      `json:"dim"`              // input dimension d
	Form      string   `json:"form,omitempty"`   // "cossin" or "cosphase"
	Features  int      `json:"features"`         // F, rows of Theta
	Outputs   int      `json:"outputs"`          // P, columns of Theta
	Intercept bool     `json:"intercept"`
	Lambda    float64  `json:"lambda"`
	Loss      string   `json:"loss,omitempty"`     // "squared", "hinge", "squared-hinge", "logistic"
	Encoding  string   `json:"encoding,omitempty"` // classification: "onehot" or "simplex"
	Labels    []string `json:"labels,omitempty"`   // class names, in class-index order
	Targets   []string `json:"targets,omitempty"`  // names of the target columns
	Names     []string `json:"names,omitempty"`    // names of the input columns
	// TargetColumn is the target's column in the training file when it was a CSV file without a header, counting
	// from 1 (0: a header named it, or another format): a file of the same layout is read with it.
	TargetColumn int `json:"target_column,omitempty"`
	// Preprocess is the preprocessing of the inputs, applied before the map.
	Preprocess *dataset.Scaler `json:"preprocess,omitempty"`
	// OVK names the operator-valued kernel of a vector-valued model ("decomposable", "curl-free", "div-free",
	// "helmholtz:w"); such a model has Outputs = p, Theta of length Features (θ of the ORFF map, Features = 2·D·p')
	// and Probe of length Outputs·Features (the map's Φ̃(probe)ᵀ). A is the p×p matrix of a decomposable kernel,
	// row-major; Rank (version 2) is p', the columns of B(ω).
	OVK  string    `json:"ovk,omitempty"`
	A    []float64 `json:"A,omitempty"`
	Rank int       `json:"rank,omitempty"`
	Zero float64   `json:"zero,omitempty"` // version 2: the zero-node weight w₀ of the rule
	// PosteriorN and PosteriorDF (version 2) are the rows and effective parameters of a posterior (NoiseVar).
	PosteriorN  int     `json:"posterior_n,omitempty"`
	PosteriorDF float64 `json:"posterior_df,omitempty"`
	// PointsKind (version 2) is how the points are stored: "dense", "sorf" or "sr-butterfly" (rule.Stored), or
	// "nystrom" for a Nyström map (see NystromKind).
	PointsKind string `json:"points_kind,omitempty"`
	// Landmarks, Threshold and Basis (Nyström maps) are how the landmarks were chosen ("uniform", "kmeans++",
	// "leverage"; informative), the relative threshold of the rank truncation, and the basis of the features
	// ("cholesky"; empty for the eigen basis, which files written before the choice use).
	Landmarks string         `json:"landmarks,omitempty"`
	Threshold float64        `json:"threshold,omitempty"`
	Basis     string         `json:"basis,omitempty"`
	Extra     map[string]any `json:"extra,omitempty"` // free-form provenance (data file, timings, …)
}

// MapDim is the input dimension of the map (or of the exact model's training rows): the number of columns the
// preprocessing produces, Dim unless it ends with a PCA step (0 for a nil Header).
func (h *Header) MapDim() int {
	if h == nil {
		return 0
	}
	if h.Preprocess != nil {
		return h.Preprocess.OutDim()
	}
	return h.Dim
}

// Model is a model file's content: its header and its arrays. Version is the format version it was read from (0 for
// a model built in memory).
type Model struct {
	Header
	Version int
	Theta   []float64 // "theta": F×P weights (ORFF: F)
	Bias    []float64 // "bias": P intercepts
	Probe   []float64 // "probe": features of ProbeInput(d)
	TrainX  []float64 // "train_x": exact models: N×d training inputs (preprocessed)
	Alpha   []float64 // "alpha": exact models: N×P dual coefficients
	// Points (version 2) holds the arrays of the rule's explicit realization, stored as "points/<name>": the dense
	// points ("points/points", D×d before Scale) or a structured operator's parameters (PointsKind; see
	// rule.Stored).
	Points  map[string][]float64
	Scale   []float64 // "scale": version 2: per-point frequency multipliers, or none
	Weights []float64 // "weights": version 2: the rule's weights w_j
	Phase   []float64 // "phase": version 2: phases of a cos+phase map
	B       []float64 // "b": version 2: ORFF B(ω_j), per point or shared (decomposable)
	// The posterior of a regression fitted with uncertainty (version 2): "posterior_factor" U (F×F, upper
	// triangular, A + NλI = UᵀU), "posterior_zmean" the feature mean z̄ (F), "noise_var" σ² per output (P).
	PosteriorFactor []float64
	PosteriorZMean  []float64
	NoiseVar        []float64
}

// MapDim is the MapDim of m's Header (0 for a nil Model).
func (m *Model) MapDim() int {
	if m == nil {
		return 0
	}
	return m.Header.MapDim()
}

// arrays lists the named arrays of version 2 in file order.
func (m *Model) arrays() []struct {
	name string
	a    *[]float64
} {
	return []struct {
		name string
		a    *[]float64
	}{
		{"theta", &m.Theta}, {"bias", &m.Bias}, {"probe", &m.Probe}, {"train_x", &m.TrainX}, {"alpha", &m.Alpha},
		{"scale", &m.Scale}, {"weights", &m.Weights}, {"phase", &m.Phase}, {"b", &m.B},
		{"posterior_factor", &m.PosteriorFactor}, {"posterior_zmean", &m.PosteriorZMean}, {"noise_var", &m.NoiseVar},
	}
}

// namedArray is an array as it is stored: its name and its values.
type namedArray struct {
	name string
	v    []float64
}

// named lists the arrays of a version-2 file in file order: the fixed ones that are present, then the points' arrays
// sorted by name.
func (m *Model) named() []namedArray {
	var out []namedArray
	for _, a := range m.arrays() {
		if *a.a != nil {
			out = append(out, namedArray{a.name, *a.a})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m.Points)) {
		out = append(out, namedArray{pointsPrefix + k, m.Points[k]})
	}
	return out
}

// pointsPrefix names the arrays of the points in a file.
const pointsPrefix = "points/"

// ProbeInput returns the fixed input whose features are stored in a model file to check the rebuilt map: d values
// (nil for a d below 0 or above the largest input dimension a model may have, 2²⁴).
func ProbeInput(d int) []float64 {
	if d < 0 || d > maxDim { // no model has such a dimension (Model.Check)
		return nil
	}
	x := make([]float64, d)
	for i := range x {
		x[i] = math.Sin(float64(i+1)) * 0.75
	}
	return x
}

// Write encodes m to w in the current version, after [Model.Check].
func Write(w io.Writer, m *Model) error {
	if m == nil {
		return errors.New("model: nothing to write (nil model)")
	}
	b, err := Encode(m)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Encode returns the bytes of m in the current version, after [Model.Check].
func Encode(m *Model) ([]byte, error) {
	if m == nil {
		return nil, errors.New("model: nothing to encode (nil model)")
	}
	c := *m
	c.Version = Version
	if err := c.Check(); err != nil {
		return nil, err
	}
	hdr, err := json.Marshal(m.Header)
	if err != nil {
		return nil, fmt.Errorf("model: encoding the header: %w", err)
	}
	named := c.named()
	// One buffer of the file's exact size, the arrays written straight into it: a model's largest array (a
	// posterior's F×F factor) is held twice while it is written — in the model and in the file's bytes — not four
	// times, as a growing buffer and a copy per array would.
	n := len(Magic) + 4 + 4 + len(hdr) + 4 + sha256.Size
	for _, a := range named {
		n += 2 + len(a.name) + 8 + 8*len(a.v)
	}
	buf := make([]byte, 0, n)
	buf = append(buf, Magic...)
	buf = binary.LittleEndian.AppendUint32(buf, Version)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(hdr)))
	buf = append(buf, hdr...)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(named)))
	for _, a := range named {
		buf = binary.LittleEndian.AppendUint16(buf, uint16(len(a.name)))
		buf = append(buf, a.name...)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(len(a.v)))
		for _, v := range a.v {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
		}
	}
	sum := sha256.Sum256(buf)
	return append(buf, sum[:]...), nil
}

// Save writes m to the file path atomically: the model is encoded and checked first, then written to a temporary
// file in the same directory, synced and renamed over path. On any error path is left as it was.
func Save(path string, m *Model) error {
	b, err := Encode(m)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.Write(path, b)
}

// Load reads the model file at path (see [Read]).
func Load(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	m, err := Read(f, size, 0)
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
	ErrVersion   = errors.New("unsupported model format version")
)

// HeadSize is the length of a model file's fixed head: the magic, the format version and the header's length.
const HeadSize = 16

// CheckHead checks the first HeadSize bytes of a model file (b may be shorter, or longer: only its head is read): the
// magic, a format version this release reads, and a header length within the limit. A reader of a stream calls it
// before reading the rest, so that a stream that is not a model file costs no more than its head.
func CheckHead(b []byte) error {
	if len(b) < len(Magic) || string(b[:len(Magic)]) != Magic {
		return ErrMagic
	}
	if len(b) < HeadSize {
		return ErrTruncated
	}
	v := binary.LittleEndian.Uint32(b[8:])
	switch {
	case v < 1:
		return fmt.Errorf("%w: the file is version %d; this rff reads versions 1 to %d, and no rff writes version 0 (the file is damaged)", ErrVersion, v, Version)
	case v > Version:
		return fmt.Errorf("%w: the file is version %d; this rff reads versions 1 to %d (a newer rff wrote it)", ErrVersion, v, Version)
	}
	if binary.LittleEndian.Uint32(b[12:]) > maxHeader {
		return fmt.Errorf("%w: a header of %d bytes (at most %d)", ErrTruncated, binary.LittleEndian.Uint32(b[12:]), maxHeader)
	}
	return nil
}

// Decode parses a model file held in memory (any version from 1 to [Version]) and validates it ([Model.Check]). The
// model's arrays are copies: b may be reused.
func Decode(b []byte) (*Model, error) {
	return Read(bytes.NewReader(b), int64(len(b)), int64(len(b)))
}

// uniqueKeys returns an error if an object of the JSON text hdr (outside the free-form "extra") has two keys that
// are equal or differ only in case (Unicode case folding, as encoding/json matches them): encoding/json matches keys to fields regardless of case and keeps the last
// value, other readers may keep the first, so such a header could mean different models to different readers.
// Malformed JSON is left to the decoder's own message.
func uniqueKeys(hdr []byte) error {
	dec := json.NewDecoder(bytes.NewReader(hdr))
	stop := errors.New("stop") // malformed or absurdly nested JSON: the decoder reports it
	var walk func(depth int) error
	walk = func(depth int) error {
		tok, err := dec.Token()
		if err != nil || depth > 64 {
			return stop
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]string{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return stop
				}
				key, _ := k.(string)
				if prev, dup := seen[foldKey(key)]; dup {
					return fmt.Errorf("the key %q appears twice (also as %q); a file written by rff has each key once", key, prev)
				}
				seen[foldKey(key)] = key
				if depth == 0 && key == "extra" {
					var skip json.RawMessage
					if dec.Decode(&skip) != nil {
						return stop
					}
					continue
				}
				if err := walk(depth + 1); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil { // '}'
				return stop
			}
		case json.Delim('['):
			for dec.More() {
				if err := walk(depth + 1); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil { // ']'
				return stop
			}
		}
		return nil
	}
	if err := walk(0); err != stop {
		return err
	}
	return nil
}

// foldKey maps every rune of s to the least rune of its Unicode simple case-folding orbit, so that two keys have the
// same foldKey exactly when encoding/json would match them to the same field (bytes.EqualFold: "ſ" is "s", "K" the
// Kelvin sign is "k").
func foldKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// maxDim bounds the input dimension and the number of outputs of a model.
const maxDim = 1 << 24

// Known values of the header's enumerations.
var (
	tasks     = []string{"regression", "classification", "hermite"}
	losses    = []string{"", "squared", "hinge", "squared-hinge", "logistic"}
	encodings = []string{"", "onehot", "simplex"}
	forms     = []string{"", "cossin", "cosphase"}
)

// distinctNames reports an empty name or one that repeats an earlier one: predictions match columns by name.
func distinctNames(names []string) error {
	switch bad, prev := colnames.Check(names); {
	case bad >= 0 && prev < 0:
		return fmt.Errorf("name %d is empty", bad+1)
	case bad >= 0:
		return fmt.Errorf("%q is both name %d and name %d", names[bad], prev+1, bad+1)
	}
	return nil
}

// Check validates every field of m against every other: known enumerations, shapes of the arrays against the
// header's dimensions, finite numbers, names and labels. It does not rebuild the map (the root package does, and
// compares the probe features).
func (m *Model) Check() error {
	if m == nil {
		return errors.New("model: nil")
	}
	h := &m.Header
	switch {
	case !slices.Contains(tasks, h.Task):
		return fmt.Errorf("model: unknown task %q", h.Task)
	case !slices.Contains(losses, h.Loss):
		return fmt.Errorf("model: unknown loss %q", h.Loss)
	case !slices.Contains(encodings, h.Encoding):
		return fmt.Errorf("model: unknown encoding %q", h.Encoding)
	case !slices.Contains(forms, h.Form):
		return fmt.Errorf("model: unknown form %q", h.Form)
	case h.Dim < 1 || h.Outputs < 1 || h.Dim > maxDim || h.Outputs > maxDim:
		return fmt.Errorf("model: bad dimensions (d=%d, outputs=%d)", h.Dim, h.Outputs)
	case !(h.Lambda >= 0) || math.IsInf(h.Lambda, 0):
		return fmt.Errorf("model: λ = %v", h.Lambda)
	case !(h.Sigma >= 0) || math.IsInf(h.Sigma, 0):
		return fmt.Errorf("model: σ = %v", h.Sigma)
	case h.Kernel == "":
		return errors.New("model: no kernel")
	case !knownKernel(h.Kernel, 1):
		return fmt.Errorf("model: unknown kernel %q", h.Kernel)
	case !knownKernel(h.Kernel, h.Sigma):
		return fmt.Errorf("model: the %s kernel needs a bandwidth σ > 0 (σ = %v)", h.Kernel, h.Sigma)
	case len(m.Bias) != h.Outputs:
		return fmt.Errorf("model: %d biases for %d outputs", len(m.Bias), h.Outputs)
	case h.Names != nil && len(h.Names) != h.Dim:
		return fmt.Errorf("model: %d input names for %d inputs", len(h.Names), h.Dim)
	case h.TargetColumn < 0 || h.TargetColumn > h.Dim+1 || (h.TargetColumn > 0 && (h.OVK != "" || len(h.Targets) > 1)):
		return fmt.Errorf("model: target column %d of %d inputs and %d targets", h.TargetColumn, h.Dim, len(h.Targets))
	}
	for _, list := range []struct {
		what  string
		names []string
	}{{"input", h.Names}, {"target", h.Targets}} {
		if err := distinctNames(list.names); err != nil {
			return fmt.Errorf("model: %s names: %w", list.what, err)
		}
	}
	if err := m.checkKind(); err != nil {
		return err
	}
	if err := m.checkPosterior(); err != nil {
		return err
	}
	if err := m.checkClasses(); err != nil {
		return err
	}
	for _, a := range m.arrays() {
		for i, v := range *a.a {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("model: %s[%d] is %v", a.name, i, v)
			}
		}
	}
	for _, v := range append(append([]float64(nil), h.A...), h.Zero) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("model: a header number is %v", v)
		}
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

// knownKernel reports whether kernel.New accepts the name with bandwidth sigma: a kernel the reader can build
// (the shift-invariant ones need σ > 0; the arc-cosine kernels ignore it).
func knownKernel(name string, sigma float64) bool {
	_, err := kernel.New(name, sigma)
	return err == nil
}

// checkOVK checks the name of an operator-valued kernel (ovk.Parse, which the reader rebuilds the kernel with) and
// that A, which only the decomposable kernel has, is there exactly for that kernel.
func (m *Model) checkOVK() error {
	h := &m.Header
	// A placeholder A (1×1) lets Parse accept the decomposable kernel's name; the file's A is checked when the
	// kernel is rebuilt.
	k, err := ovk.Parse(h.OVK, 1, mat.NewSymDense(1, []float64{1}))
	switch {
	case err != nil:
		return fmt.Errorf("model: unknown operator-valued kernel %q", h.OVK)
	case (k.Kind() == ovk.Decomposable) != (h.A != nil):
		return fmt.Errorf("model: the %s kernel with %d values of A (the decomposable kernel needs A, the others have none)", h.OVK, len(h.A))
	}
	return nil
}

// checkKind checks the arrays that the kind of model (exact, ORFF, scalar features) needs and forbids the others.
func (m *Model) checkKind() error {
	h := &m.Header
	v2 := m.Version != 1
	mapArrays := m.Points != nil || h.PointsKind != "" || m.Scale != nil || m.Weights != nil || m.Phase != nil || m.B != nil
	if h.OVK != "" {
		if h.Task != "regression" {
			return fmt.Errorf("model: an operator-valued kernel (%s) on a %s model", h.OVK, h.Task)
		}
		if h.Kernel != "gaussian" {
			return fmt.Errorf("model: an operator-valued kernel needs the Gaussian scalar kernel, not %q", h.Kernel)
		}
		if err := m.checkOVK(); err != nil {
			return err
		}
		if h.A != nil && !size.Is(len(h.A), h.Outputs, h.Outputs) {
			return fmt.Errorf("model: A has %d values for %d outputs", len(h.A), h.Outputs)
		}
	} else if h.A != nil || h.Rank != 0 || m.B != nil {
		return errors.New("model: a scalar model with operator-valued parameters (A, rank or B)")
	}
	if h.PointsKind == NystromKind || h.Rule == NystromKind || h.Landmarks != "" || h.Threshold != 0 || h.Basis != "" {
		return m.checkNystrom()
	}
	if h.Exact {
		switch {
		case m.Theta != nil || m.Probe != nil || mapArrays:
			return errors.New("model: an exact model with feature-map arrays (theta, probe or map parameters)")
		case h.Rule != "" || h.Points != 0 || h.Features != 0 || h.Form != "":
			return errors.New("model: an exact model with a feature-map configuration (rule, points, features or form)")
		case h.MapDim() < 1 || len(m.TrainX) == 0 || len(m.TrainX)%h.MapDim() != 0 || len(m.Alpha) != len(m.TrainX)/h.MapDim()*h.Outputs:
			return fmt.Errorf("model: exact model arrays do not match (X %d values, α %d, d=%d, outputs=%d)", len(m.TrainX), len(m.Alpha), h.MapDim(), h.Outputs)
		case h.Task == "hermite":
			return errors.New("model: a hermite model is not exact")
		}
		return nil
	}
	if m.TrainX != nil || m.Alpha != nil {
		return errors.New("model: a feature model with exact-model arrays (train_x, alpha)")
	}
	if h.Rule == "" || h.Points < 1 || h.Features < 1 {
		return fmt.Errorf("model: a feature model needs a rule, points and features (rule %q, %d points, %d features)", h.Rule, h.Points, h.Features)
	}
	// A version-1 map is redrawn from the rule; a version-2 map is rebuilt from its stored points, but its rule still
	// says what they are: either way it must be one the reader knows.
	if _, err := rule.Parse(h.Rule); err != nil {
		return fmt.Errorf("model: unknown rule %q", h.Rule)
	}
	probe, theta := h.Features, h.Features*h.Outputs
	if h.OVK != "" {
		probe, theta = h.Features*h.Outputs, h.Features
	}
	if len(m.Theta) != theta || len(m.Probe) != probe {
		return fmt.Errorf("model: weights do not match (θ %d values, probe %d, F=%d, outputs=%d)", len(m.Theta), len(m.Probe), h.Features, h.Outputs)
	}
	if !v2 {
		if mapArrays {
			return errors.New("model: a version-1 file with map parameters")
		}
		return nil
	}
	n, d := h.Points, h.MapDim()
	switch {
	case d < 1:
		return fmt.Errorf("model: map dimension %d", d)
	case int64(n)*int64(d) > maxArray:
		return fmt.Errorf("model: %d points in dimension %d", n, d)
	case len(m.Weights) != n:
		return fmt.Errorf("model: %d weights for %d points", len(m.Weights), n)
	case m.Scale != nil && len(m.Scale) != n:
		return fmt.Errorf("model: %d scales for %d points", len(m.Scale), n)
	case (h.Form == "cosphase") != (m.Phase != nil):
		return fmt.Errorf("model: form %q with %d phases", h.Form, len(m.Phase))
	case m.Phase != nil && len(m.Phase) != n:
		return fmt.Errorf("model: %d phases for %d points", len(m.Phase), n)
	}
	if err := m.checkPoints(); err != nil {
		return err
	}
	if h.OVK != "" {
		if h.Rank < 1 || h.Features != 2*n*h.Rank || h.Form == "cosphase" {
			return fmt.Errorf("model: ORFF with %d features, %d points, rank %d, form %q", h.Features, n, h.Rank, h.Form)
		}
		want := n * h.Outputs * h.Rank
		if h.A != nil {
			want = h.Outputs * h.Rank
		}
		if len(m.B) != want {
			return fmt.Errorf("model: B has %d values, want %d", len(m.B), want)
		}
		return nil
	}
	if m.B != nil {
		return errors.New("model: B on a scalar map")
	}
	return nil
}

// checkPoints checks that the points' arrays are those of their kind, with the sizes that the number of points and
// the dimension fix where they fix them (rule.Restore checks the rest when the map is rebuilt).
func (m *Model) checkPoints() error {
	h := &m.Header
	names, ok := rule.StoredArrays[h.PointsKind]
	if !ok {
		return fmt.Errorf("model: unknown points kind %q", h.PointsKind)
	}
	if len(m.Points) != len(names) {
		return fmt.Errorf("model: %d arrays of points for kind %s, want %v", len(m.Points), h.PointsKind, names)
	}
	for _, n := range names {
		if _, ok := m.Points[n]; !ok {
			return fmt.Errorf("model: points of kind %s need the array %q", h.PointsKind, n)
		}
	}
	if p := m.Points["points"]; h.PointsKind == "dense" && !size.Is(len(p), h.Points, h.MapDim()) {
		return fmt.Errorf("model: %d point coordinates for %d points in dimension %d", len(p), h.Points, h.MapDim())
	}
	for _, k := range slices.Sorted(maps.Keys(m.Points)) { // in order: the same file, the same error
		a := m.Points[k]
		for i, v := range a {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("model: points/%s[%d] is %v", k, i, v)
			}
		}
	}
	return nil
}

// checkPosterior checks the posterior of a model fitted with uncertainty: all or none of its arrays, with the
// sizes of a single scalar map's features, on a regression.
func (m *Model) checkPosterior() error {
	h := &m.Header
	if m.PosteriorFactor == nil && m.PosteriorZMean == nil && m.NoiseVar == nil && h.PosteriorN == 0 && h.PosteriorDF == 0 {
		return nil
	}
	F := h.Features
	switch {
	case h.Task != "regression" || h.Exact || h.OVK != "":
		return fmt.Errorf("model: a posterior on a %s model (only regression on scalar features has one)", h.Task)
	case !size.Is(len(m.PosteriorFactor), F, F) || len(m.PosteriorZMean) != F || len(m.NoiseVar) != h.Outputs:
		return fmt.Errorf("model: posterior arrays of %d, %d and %d values for F = %d, P = %d", len(m.PosteriorFactor), len(m.PosteriorZMean), len(m.NoiseVar), F, h.Outputs)
	case h.PosteriorN < 2 || !(h.PosteriorDF > 0) || h.PosteriorDF >= float64(h.PosteriorN):
		return fmt.Errorf("model: posterior of %d rows with %v effective parameters", h.PosteriorN, h.PosteriorDF)
	}
	for _, v := range m.NoiseVar {
		if !(v >= 0) {
			return fmt.Errorf("model: a noise variance is %v", v)
		}
	}
	return nil
}

// checkClasses checks labels, encoding and loss against the task and the outputs.
func (m *Model) checkClasses() error {
	h := &m.Header
	if h.Task != "classification" {
		if h.Labels != nil || h.Encoding != "" || (h.Loss != "" && h.Loss != "squared") {
			return fmt.Errorf("model: a %s model with class labels, an encoding or the %q loss", h.Task, h.Loss)
		}
		if h.Targets != nil && len(h.Targets) != h.Outputs {
			return fmt.Errorf("model: %d target names for %d outputs", len(h.Targets), h.Outputs)
		}
		return nil
	}
	K := len(h.Labels)
	if K < 2 {
		return fmt.Errorf("model: a classifier needs at least 2 labels, has %d", K)
	}
	seen := map[string]bool{}
	for _, l := range h.Labels {
		if seen[l] {
			return fmt.Errorf("model: label %q appears twice", l)
		}
		seen[l] = true
	}
	want := K
	if h.Encoding == "simplex" {
		want = K - 1
		if h.Loss != "" && h.Loss != "squared" {
			return fmt.Errorf("model: simplex coding with the %s loss", h.Loss)
		}
	}
	if h.Outputs != want {
		return fmt.Errorf("model: %d outputs for %d classes (%s coding)", h.Outputs, K, h.Encoding)
	}
	return nil
}
