package rff

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/linalg/avx2"
	"github.com/rffkit/rff/model"
)

// goldenData returns the data file a golden model was written with and its target option, as
// testdata/make-golden.sh fits it.
func goldenData(name string) string {
	switch {
	case strings.HasPrefix(name, "cls-"):
		return "testdata/generated/cls.csv"
	case name == "hermite":
		return "testdata/generated/herm_test.csv"
	case name == "ovk-dec":
		return "testdata/generated/multitask.csv"
	case strings.HasPrefix(name, "ovk-"):
		return "testdata/generated/curl.csv"
	}
	return "testdata/generated/reg.csv"
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestGoldenPredictions: the golden model files of every kind — version 1, written by the last release that wrote
// version 1, and version 2 — load and predict the bits they predicted when written (testdata/v*/*.pred.csv, written on
// the deterministic pure-Go kernel of a CPU with AVX2 and FMA, whose products are a fused multiply-add chain; with
// OpenBLAS, or on a CPU without that kernel (arm64), the products round differently, so the comparison is then to
// 1e-12 of the output scale). A change to the format or to how a stored map computes fails this test.
// Version-1 files saved again (format 2, explicit map parameters) and reloaded predict the same values to rounding;
// version-2 files are written back byte for byte.
func TestGoldenPredictions(t *testing.T) {
	for _, version := range []string{"v1", "v2"} {
		files, _ := filepath.Glob("testdata/" + version + "/*.rff")
		if len(files) < 16 {
			t.Fatalf("found %d golden %s files", len(files), version)
		}
		for _, f := range files {
			testGolden(t, version, f)
		}
	}
}

func testGolden(t *testing.T, version, f string) {
	name := strings.TrimSuffix(filepath.Base(f), ".rff")
	t.Run(version+"/"+name, func(t *testing.T) {
		m, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		path := goldenData(name)
		tgt, err := m.TargetOption(path, dataset.FormatAuto)
		if err != nil {
			t.Fatal(err)
		}
		data, err := dataset.Load(path, dataset.Options{Target: tgt})
		if err != nil {
			t.Fatal(err)
		}
		p, err := m.Predict(data)
		if err != nil {
			t.Fatal(err)
		}
		want := readCSV(t, strings.TrimSuffix(f, ".rff")+".pred.csv")[1:]
		if len(want) != data.N {
			t.Fatalf("%d golden rows for %d data rows", len(want), data.N)
		}
		bits := pureGo() && avx2.Available // the kernel the golden files were written with (see above)
		var scale float64
		for _, v := range p.Values {
			scale = math.Max(scale, math.Abs(v))
		}
		for i, rec := range want {
			if p.Labels != nil {
				if rec[0] != p.Labels[i] {
					t.Fatalf("row %d: label %s, golden %s", i, p.Labels[i], rec[0])
				}
				continue
			}
			for j := 0; j < p.Outputs; j++ {
				g, _ := strconv.ParseFloat(rec[j], 64)
				v := p.Values[i*p.Outputs+j]
				if bits && v != g || math.Abs(v-g) > 1e-12*scale {
					t.Fatalf("row %d output %d: %v, golden %v", i, j, v, g)
				}
			}
		}
		// Re-saved in the current format with explicit map parameters.
		var buf bytes.Buffer
		if err := m.Write(&buf); err != nil {
			t.Fatal(err)
		}
		if orig, _ := os.ReadFile(f); version == "v2" && !bytes.Equal(orig, buf.Bytes()) {
			t.Fatal("a version-2 file is not written back byte for byte")
		}
		m2, err := Read(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if m2.file.Version != model.Version {
			t.Fatalf("re-saved as version %d", m2.file.Version)
		}
		p2, err := m2.Predict(data)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range p.Values {
			// The redrawn structured map and its stored dense points differ only in the rounding of ωᵀx.
			if math.Abs(v-p2.Values[i]) > 1e-10*scale {
				t.Fatalf("value %d: %v after re-saving, %v before", i, p2.Values[i], v)
			}
		}
	})
}

// TestRoundTripBits: a fitted model and the same model saved and loaded predict the same bits, for every kind.
func TestRoundTripBits(t *testing.T) {
	reg, err := dataset.Load("testdata/generated/reg.csv", dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cls, _ := dataset.Load("testdata/generated/cls.csv", dataset.Options{})
	curl, _ := dataset.Load("testdata/generated/curl.csv", dataset.Options{Target: "none"})
	multi, _ := dataset.Load("testdata/generated/multitask.csv", dataset.Options{Target: "none"})
	field := []string{"y1", "y2", "y3", "y4", "y5"}
	tests := []struct {
		name string
		cfg  Config
		data *dataset.Data
	}{
		{"ridge sr-butterfly", Config{Points: 16, Lambda: 1e-4}, reg},
		{"ridge sorf cosphase", Config{Points: 16, Lambda: 1e-4, Rule: "sorf", Form: "cosphase", Kernel: "matern32"}, reg},
		{"ridge arccos0", Config{Points: 16, Lambda: 1e-4, Rule: "g", Kernel: "arccos0"}, reg},
		{"ridge cg laplacian", Config{Points: 16, Lambda: 1e-4, Solver: "cg", Kernel: "laplacian"}, reg},
		{"ridge cv", Config{Points: 16, CV: 3, Lambdas: []float64{1e-6, 1e-3, 1}}, reg},
		{"exact", Config{Exact: true, Lambda: 1e-3}, reg},
		{"simplex", Config{Task: "classification", Encoding: "simplex", Points: 16, Lambda: 1e-3, Rule: "qmc"}, cls},
		{"hinge", Config{Task: "classification", Loss: "hinge", Points: 16, Lambda: 1e-3}, cls},
		{"logistic", Config{Task: "classification", Loss: "logistic", Points: 16, Lambda: 1e-3}, cls},
		{"decomposable", Config{OVK: "decomposable", A: "covariance", Targets: []string{"y1", "y2", "y3", "y4"}, Points: 16, Lambda: 1e-3}, multi},
		{"curl-free", Config{OVK: "curl-free", Targets: field, Points: 16, Lambda: 1e-4}, curl},
		{"div-free", Config{OVK: "div-free", Targets: field, Points: 16, Lambda: 1e-4, Rule: "sr-haar"}, curl},
		{"helmholtz exact", Config{OVK: "helmholtz:0.3", Targets: field, Exact: true, Lambda: 1e-4}, curl},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Fit(tc.cfg, tc.data)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "m.rff")
			if err := m.Save(path); err != nil {
				t.Fatal(err)
			}
			back, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			a, err := m.Predict(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			b, err := back.Predict(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			for i := range a.Values {
				if a.Values[i] != b.Values[i] {
					t.Fatalf("value %d: %v fitted, %v loaded", i, a.Values[i], b.Values[i])
				}
			}
			var again bytes.Buffer
			back.Write(&again)
			if orig, _ := os.ReadFile(path); !bytes.Equal(orig, again.Bytes()) {
				t.Error("a loaded model does not write the bytes it was read from")
			}
		})
	}
}

// TestColumnsByName: permuted input columns give identical predictions; a missing column is an error naming it.
func TestColumnsByName(t *testing.T) {
	data, _ := dataset.Load("testdata/generated/reg.csv", dataset.Options{})
	m, err := Fit(Config{Points: 32, Lambda: 1e-4}, data)
	if err != nil {
		t.Fatal(err)
	}
	perm := &dataset.Data{N: data.N, D: 3, Names: []string{"humidity", "temp", "pressure"}, Y: data.Y, TargetName: "power"}
	for i := range data.N {
		r := data.Row(i)
		perm.X = append(perm.X, r[2], r[0], r[1])
	}
	a, _ := m.Score(data)
	b, err := m.Score(perm)
	if err != nil {
		t.Fatal(err)
	}
	if a.Regression.RMSE != b.Regression.RMSE || a.Regression.R2 != b.Regression.R2 {
		t.Errorf("permuted columns: %+v, in order: %+v", b.Regression, a.Regression)
	}
	perm.Names[0] = "wind"
	if _, err := m.Predict(perm); err == nil || !strings.Contains(err.Error(), `"humidity"`) {
		t.Errorf("missing column: %v", err)
	}
	headerless := &dataset.Data{X: data.X, N: data.N, D: 3, Names: []string{"x1", "x2", "x3"}}
	if p, err := m.Predict(headerless); err != nil || p.Values[0] != mustPredict(t, m, data).Values[0] {
		t.Errorf("headerless data with the model's columns: %v", err)
	}
	unnamed := &dataset.Data{X: data.X, N: data.N, D: 3}
	if p, err := m.Predict(unnamed); err != nil || p.Values[0] != mustPredict(t, m, data).Values[0] {
		t.Errorf("data without names: %v", err)
	}
	short := &dataset.Data{X: data.X[:2*data.N], N: data.N, D: 2, Names: []string{"x1", "x2"}}
	if _, err := m.Predict(short); err == nil {
		t.Error("headerless data with too few columns accepted")
	}
}

func mustPredict(t *testing.T, m *Model, d *dataset.Data) *Prediction {
	t.Helper()
	p, err := m.Predict(d)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFieldsInRawCoordinates: curl-free and divergence-free fields fitted with the default preprocessing on inputs
// whose columns differ in scale by 10× are curl-free (‖J − Jᵀ‖/‖J‖) and divergence-free (|tr J|/‖J‖) in the raw
// coordinates to rounding; per-column standardization is refused for them.
func TestFieldsInRawCoordinates(t *testing.T) {
	curl, _ := dataset.Load("testdata/generated/curl.csv", dataset.Options{Target: "none"})
	field := []string{"y1", "y2", "y3", "y4", "y5"}
	// Stretch input 3 by 10: the field f(x) = ∇g(x) becomes ∇ of g(x₁, x₂, x₃/10, …), i.e. y3 / 10.
	for i := range curl.N {
		curl.X[i*10+2] *= 10
		curl.X[i*10+7] /= 10
	}
	for _, kind := range []string{"curl-free", "div-free"} {
		t.Run(kind, func(t *testing.T) {
			m, err := Fit(Config{OVK: kind, Targets: field, Points: 64, Lambda: 1e-5}, curl)
			if err != nil {
				t.Fatal(err)
			}
			if m.Info().Preprocess[0] != "isotropic" {
				t.Errorf("default preprocessing %v", m.Info().Preprocess)
			}
			for r := 0; r < 5; r++ {
				x := curl.X[r*10 : r*10+5]
				J, err := m.Jacobian(x)
				if err != nil {
					t.Fatal(err)
				}
				var norm, asym, tr float64
				for a := range 5 {
					tr += J[a*5+a]
					for b := range 5 {
						norm += J[a*5+b] * J[a*5+b]
						asym += (J[a*5+b] - J[b*5+a]) * (J[a*5+b] - J[b*5+a])
					}
				}
				norm = math.Sqrt(norm)
				if kind == "curl-free" && math.Sqrt(asym)/norm > 1e-8 {
					t.Errorf("row %d: asymmetry %.3g", r, math.Sqrt(asym)/norm)
				}
				if kind == "div-free" && math.Abs(tr)/norm > 1e-8 {
					t.Errorf("row %d: trace %.3g", r, math.Abs(tr)/norm)
				}
			}
			if _, err := Fit(Config{OVK: kind, Targets: field, Points: 64, Lambda: 1e-5, Preprocess: "standardize"}, curl); err == nil {
				t.Error("per-column standardization accepted")
			}
		})
	}
}

// TestLoadInconsistent: a model file whose checksum is valid but whose content contradicts itself is an error.
func TestLoadInconsistent(t *testing.T) {
	data, _ := dataset.Load("testdata/generated/reg.csv", dataset.Options{})
	m, err := Fit(Config{Points: 8, Lambda: 1e-4}, data)
	if err != nil {
		t.Fatal(err)
	}
	mg, err := Fit(Config{Points: 8, Lambda: 1e-4, Rule: "g"}, data)
	if err != nil {
		t.Fatal(err)
	}
	swap := func(f *model.Model) { // a valid rotation, but not the one the weights were fitted with
		c, s := f.Points["cos"], f.Points["sin"]
		c[0], s[0] = s[0], c[0]
	}
	tests := []struct {
		name string
		m    *Model
		edit func(f *model.Model)
	}{
		{"exact on a feature model", m, func(f *model.Model) { f.Exact = true }},
		{"ovk on a scalar model", m, func(f *model.Model) { f.OVK = "curl-free" }},
		{"another kernel", m, func(f *model.Model) { f.Kernel = "laplacian" }},
		{"another bandwidth", m, func(f *model.Model) { f.Sigma *= 2 }},
		{"moved point", mg, func(f *model.Model) { f.Points["points"][0] += 0.5 }},
		{"moved radius", m, func(f *model.Model) { f.Points["rho"][0] *= 1.5 }},
		{"another rotation", m, swap},
		{"NaN weight", m, func(f *model.Model) { f.Theta[0] = math.NaN() }},
		{"unknown kernel", m, func(f *model.Model) { f.Kernel = "sinc" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := *tc.m.file
			f.Points = map[string][]float64{}
			for k, v := range tc.m.file.Points {
				f.Points[k] = append([]float64(nil), v...)
			}
			f.Theta = append([]float64(nil), f.Theta...)
			tc.edit(&f)
			if _, err := fromFile(&f, 0); err == nil {
				t.Error("accepted")
			}
		})
	}
}
