package model

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/nystrom"
)

// resign returns the file b with its header replaced by edit(header), the header length and the checksum rewritten:
// a hand-edited file that only the consistency checks can refuse.
func resign(t *testing.T, b []byte, edit func(hdr string) string) []byte {
	t.Helper()
	hl := binary.LittleEndian.Uint32(b[12:])
	hdr := edit(string(b[16 : 16+hl]))
	out := append(append([]byte(nil), b[:12]...), binary.LittleEndian.AppendUint32(nil, uint32(len(hdr)))...)
	out = append(out, hdr...)
	out = append(out, b[16+hl:len(b)-sha256.Size]...)
	sum := sha256.Sum256(out)
	return append(out, sum[:]...)
}

// replaceOnce is an edit that replaces old by new in the header, failing the test if old is not there.
func replaceOnce(t *testing.T, old, repl string) func(string) string {
	return func(hdr string) string {
		if !strings.Contains(hdr, old) {
			t.Fatalf("the header has no %s: %s", old, hdr)
		}
		return strings.Replace(hdr, old, repl, 1)
	}
}

// golden reads a golden model file of the root package.
func golden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/" + name + ".rff")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(b); err != nil {
		t.Fatalf("the unmodified %s does not decode: %v", name, err)
	}
	return b
}

// TestHeaderChecks: a re-signed file whose header names what the reader does not know (a rule, a kernel, an
// operator-valued kernel), contradicts itself, or carries bytes after its JSON object is refused with its own message;
// the unmodified models load.
func TestHeaderChecks(t *testing.T) {
	tests := []struct {
		name  string
		model func() *Model
		edit  func(m *Model)
		want  string
	}{
		{"unknown rule", sample, func(m *Model) { m.Rule = "foo" }, `unknown rule "foo"`},
		{"Gauss–Hermite degree out of range", sample, func(m *Model) { m.Rule = "gq:99" }, `unknown rule "gq:99"`},
		{"unknown kernel", sample, func(m *Model) { m.Kernel = "gaussion" }, `unknown kernel "gaussion"`},
		{"no bandwidth", sample, func(m *Model) { m.Sigma = 0 }, "needs a bandwidth σ > 0"},
		{"unknown kernel of an exact model", exactSample, func(m *Model) { m.Kernel = "polynomial" }, `unknown kernel "polynomial"`},
		{"unknown kernel of a Nyström map", nystromSample, func(m *Model) { m.Kernel = "foo" }, `unknown kernel "foo"`},
		{"decomposable kernel without A", nystromSample, func(m *Model) { m.OVK = "decomposable" }, "the decomposable kernel with 0 values of A"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Decode(encode(t, tc.model())); err != nil {
				t.Fatalf("the unmodified model does not decode: %v", err)
			}
			m := tc.model()
			tc.edit(m)
			if _, err := Decode(encodeRaw(t, m)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decode: %v, want an error with %q", err, tc.want)
			}
			if _, err := Encode(m); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Encode: %v, want an error with %q", err, tc.want)
			}
		})
	}

	// Edits of the header's text, on the sample and on golden files of both versions.
	edits := []struct {
		name string
		file func(t *testing.T) []byte
		edit func(t *testing.T) func(string) string
		want string // "" for an edit that must still load
	}{
		{"object after the header", encodeSample, func(t *testing.T) func(string) string {
			return func(h string) string { return h + `{"rule":"foo"}` }
		}, "bytes after its JSON object"},
		{"stray byte after the header", encodeSample, func(t *testing.T) func(string) string {
			return func(h string) string { return h + " x" }
		}, `1 bytes after its JSON object ("x")`},
		{"second object in version 1", goldenFile("v1/ridge-g"), func(t *testing.T) func(string) string {
			return func(h string) string { return h + `{"task":"hermite"}` }
		}, "bytes after its JSON object"},
		{"white space after the header", encodeSample, func(t *testing.T) func(string) string {
			return func(h string) string { return h + " \t\r\n " }
		}, ""},
		{"unknown rule in version 1", goldenFile("v1/ridge-g"), func(t *testing.T) func(string) string {
			return replaceOnce(t, `"rule":"g"`, `"rule":"foo"`)
		}, `unknown rule "foo"`},
		{"unknown rule of an ORFF map", goldenFile("v2/ovk-curl"), func(t *testing.T) func(string) string {
			return replaceOnce(t, `"rule":"sr-butterfly"`, `"rule":"foo"`)
		}, `unknown rule "foo"`},
		{"alias of a known rule", goldenFile("v1/ridge-g"), func(t *testing.T) func(string) string {
			return replaceOnce(t, `"rule":"g"`, `"rule":"rff"`)
		}, ""},
		{"unknown operator-valued kernel", goldenFile("v2/ovk-curl"), func(t *testing.T) func(string) string {
			return replaceOnce(t, `"ovk":"curl-free"`, `"ovk":"spiral"`)
		}, `unknown operator-valued kernel "spiral"`},
		{"Helmholtz weight above 1", goldenFile("v2/ovk-helmholtz"), func(t *testing.T) func(string) string {
			return replaceOnce(t, `"ovk":"helmholtz:0.7"`, `"ovk":"helmholtz:1.5"`)
		}, `unknown operator-valued kernel "helmholtz:1.5"`},
		{"A on the curl-free kernel", goldenFile("v1/ovk-curl"), func(t *testing.T) func(string) string {
			return replaceOnce(t, `"ovk":"curl-free"`, `"ovk":"curl-free","A":[1]`)
		}, "the curl-free kernel with 1 values of A"},
		{"a key twice", goldenFile("v2/ridge-g"), func(t *testing.T) func(string) string {
			return replaceOnce(t, `"rule":"g"`, `"rule":"g","rule":"foo"`)
		}, `the key "rule" appears twice`},
		{"a key twice in another case", goldenFile("v2/ridge-g"), func(t *testing.T) func(string) string {
			return replaceOnce(t, `"rule":"g"`, `"rule":"g","RULE":"gq"`)
		}, `the key "RULE" appears twice (also as "rule")`},
		{"a key twice in version 1", goldenFile("v1/ridge-g"), func(t *testing.T) func(string) string {
			return replaceOnce(t, `"rule":"g"`, `"Rule":"sorf","rule":"g"`)
		}, `the key "rule" appears twice (also as "Rule")`},
		{"a key twice under Unicode case folding", goldenFile("v2/ridge-g"), func(t *testing.T) func(string) string {
			return replaceOnce(t, `"task":"regression"`, `"task":"regression","taſk":"hermite"`)
		}, `the key "taſk" appears twice (also as "task")`},
		{"the Kelvin sign", goldenFile("v2/ridge-g"), func(t *testing.T) func(string) string {
			return replaceOnce(t, `"kernel":"laplacian"`, `"kernel":"laplacian","Kernel":"cauchy"`)
		}, `appears twice (also as "kernel")`},
		{"a key twice in the preprocessing", goldenFile("v2/ridge-g"), func(t *testing.T) func(string) string {
			return replaceOnce(t, `"preprocess":{`, `"preprocess":{"D":1,`)
		}, `appears twice`},
		{"keys of the free-form provenance", goldenFile("v2/ridge-g"), func(t *testing.T) func(string) string {
			return replaceOnce(t, `"points_kind":"dense"}`, `"points_kind":"dense","extra":{"rule":1,"x":{"rule":2}}}`)
		}, ""},
		{"two keys alike in the provenance", goldenFile("v2/ridge-g"), func(t *testing.T) func(string) string {
			return replaceOnce(t, `"points_kind":"dense"}`, `"points_kind":"dense","extra":{"rule":1,"Rule":2,"x":{"a":1}}}`)
		}, ""},
		{"unknown preprocessing step", goldenFile("v2/ridge-g"), func(t *testing.T) func(string) string {
			return func(h string) string {
				return strings.ReplaceAll(h, `"standardize"`, `"whiten"`)
			}
		}, "whiten"},
	}
	for _, tc := range edits {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(resign(t, tc.file(t), tc.edit(t)))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Decode: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// exactSample is a consistent exact kernel ridge regression.
func exactSample() *Model {
	return &Model{Header: Header{Task: "regression", Exact: true, Kernel: "laplacian", Sigma: 1, Dim: 2, Outputs: 1},
		Bias: []float64{3}, TrainX: []float64{1, 2, 3, 4}, Alpha: []float64{0.5, -0.5}}
}

func encodeSample(t *testing.T) []byte { return encode(t, sample()) }

func goldenFile(name string) func(t *testing.T) []byte {
	return func(t *testing.T) []byte { return golden(t, name) }
}

// TestNystromArraysAgree: the stored arrays of a Nyström map that depend on each other must agree — in the Cholesky
// basis each pivot U_jj² with the diagonal 1/U_jj of norm (to a few rounding errors) and with the threshold, in the
// eigen basis each eigenvalue with the threshold and with its column of norm (to the eigensolver's orthogonality).
func TestNystromArraysAgree(t *testing.T) {
	pivot := func(j int, f func(float64) float64) func(m *Model) {
		return func(m *Model) { m.Points["pivots"][j] = f(m.Points["pivots"][j]) }
	}
	tests := []struct {
		name  string
		model func() *Model
		edit  func(m *Model)
		want  string // "" for an edit that must still load
	}{
		{"pivot of 1e9", nystromCholeskySample, pivot(0, func(float64) float64 { return 1e9 }), "pivot 1 (1e+09) does not match the normalization's diagonal"},
		{"pivot 1e-12 off", nystromCholeskySample, pivot(1, func(v float64) float64 { return v * (1 + 1e-12) }), "does not match the normalization's diagonal"},
		{"pivot 16 ulps off", nystromCholeskySample, pivot(1, func(v float64) float64 { return v * (1 + 16*0x1p-53) }), "does not match the normalization's diagonal"},
		{"pivot 1 ulp off", nystromCholeskySample, pivot(1, func(v float64) float64 { return math.Nextafter(v, 2) }), ""},
		{"diagonal of norm doubled", nystromCholeskySample, func(m *Model) { m.Points["norm"][3] *= 2 }, "pivot 2 (0.6400000000000001) does not match"},
		{"pivot and diagonal scaled together", nystromCholeskySample, func(m *Model) {
			m.Points["pivots"][1] *= 4
			m.Points["norm"][3] /= 4
		}, "does not match the normalization's diagonal"},
		{"subnormal pivot", nystromCholeskySample, func(m *Model) {
			u := 0x1.23456789abcdp-530 // u² is rounded to the subnormal grid, to about 2⁻¹⁵ relative
			m.Threshold, m.Points["pivots"][1], m.Points["norm"][3] = 0, u*u, 1/u
		}, ""},
		{"pivot below the threshold", nystromCholeskySample, func(m *Model) { m.Threshold = 0.9 }, "pivot 2 (0.6400000000000001) is below the threshold 0.9"},
		{"pivot above the threshold", nystromCholeskySample, func(m *Model) { m.Threshold = 0.6 }, ""},
		// The writer's pivots can fall a few rounding errors below t·p₀ (pivotTol); far more is an edit.
		{"pivot 4ε below the threshold", nystromCholeskySample, func(m *Model) { m.Threshold = m.Points["pivots"][1] * (1 + 4*0x1p-53) }, ""},
		{"pivot 32ε below the threshold", nystromCholeskySample, func(m *Model) { m.Threshold = m.Points["pivots"][1] * (1 + 32*0x1p-53) }, "is below the threshold"},
		{"eigenvalue below the threshold", nystromSample, func(m *Model) { m.Threshold = 0.3 }, "eigenvalue 2 (0.5) is not above the threshold 0.3"},
		{"eigenvalue at the threshold", nystromSample, func(m *Model) { m.Threshold = 0.25 }, "not above the threshold"},
		{"eigenvalue above the threshold", nystromSample, func(m *Model) { m.Threshold = 0.2 }, ""},
		{"eigenvalue 1e-9 off its column", nystromSample, func(m *Model) { m.Points["eigenvalues"][1] *= 1 + 1e-9 }, "column 2 does not match the eigenvalue"},
		{"column scaled", nystromSample, func(m *Model) {
			for i := range 3 {
				m.Points["norm"][2*i] *= 1.001
			}
		}, "column 1 does not match the eigenvalue 2"},
		{"eigenvalue 1 ulp off", nystromSample, func(m *Model) { m.Points["eigenvalues"][0] = math.Nextafter(2, 3) }, ""},
		{"eigenvalue 64 M ε off", nystromSample, func(m *Model) { m.Points["eigenvalues"][0] *= 1 + 64*3*0x1p-53 }, "does not match the eigenvalue"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Decode(encode(t, tc.model())); err != nil {
				t.Fatalf("the unmodified model does not decode: %v", err)
			}
			m := tc.model()
			tc.edit(m)
			_, err := Decode(encodeRaw(t, m))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Decode: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestNystromMapsLoad: the maps package nystrom builds, in both bases, at thresholds that cut and with more landmarks
// than the blocked LAPACK routines' block (64), are stored in files that pass the checks above.
func TestNystromMapsLoad(t *testing.T) {
	const n, d, M = 400, 3, 150
	rng := rand.New(rand.NewPCG(1, 2))
	X := make([]float64, n*d)
	for i := range X {
		X[i] = rng.NormFloat64()
	}
	for _, kn := range []string{"gaussian", "laplacian", "matern52"} {
		k, err := kernel.New(kn, 0.8)
		if err != nil {
			t.Fatal(err)
		}
		for _, basis := range []nystrom.Basis{nystrom.Cholesky, nystrom.Eigen} {
			for _, th := range []float64{0, 1e-12, 1e-6, 1e-3, 0.05, 0.3} {
				nm, err := nystrom.New(k, nystrom.Uniform{}, X, n, d, M, 7, nystrom.WithBasis(basis), nystrom.WithThreshold(th))
				if err != nil {
					t.Fatal(err)
				}
				m := fromNystrom(nm, kn, 0.8, d)
				t.Logf("%s, %v basis, threshold %v: M' = %d of %d", kn, basis, th, m.Features, M)
				if _, err := Decode(encode(t, m)); err != nil {
					t.Errorf("%s, %v basis, threshold %v (M' = %d): %v", kn, basis, th, m.Features, err)
				}
			}
		}
	}
}

// fromNystrom stores a Nyström map in a regression model file as the root package does (setNystrom).
func fromNystrom(nm *nystrom.Map, kn string, sigma float64, d int) *Model {
	p := nm.Params()
	m := &Model{
		Header: Header{Task: "regression", Kernel: kn, Sigma: sigma, Rule: NystromKind, PointsKind: NystromKind,
			Points: p.Centres, Dim: d, Features: p.Features, Outputs: 1, Lambda: 1e-3, Landmarks: p.Selection,
			Threshold: p.Threshold},
		Theta:  make([]float64, p.Features),
		Bias:   []float64{0},
		Probe:  make([]float64, p.Features),
		Points: map[string][]float64{"landmarks": p.Landmarks, "norm": p.Norm},
	}
	if nm.Basis() == nystrom.Cholesky {
		m.Basis, m.Points["pivots"] = p.Basis, p.Pivots
	} else {
		m.Points["eigenvalues"] = p.Eigenvalues
	}
	return m
}
