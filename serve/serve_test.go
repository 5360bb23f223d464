package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// The models served over HTTP predict the same bits as Model.PredictRows in the process, for every kind: ridge
// regression, classifiers (one-hot and simplex codes), a vector-valued (decomposable OVK) model and exact kernel
// ridge regression; with the rows as one matrix tensor (FP64 and FP32, flat and nested) or one tensor per column in
// any order.
func TestInferMatchesPredictRows(t *testing.T) {
	models := []string{"ridge-sr", "cls-onehot", "cls-simplex", "cls-logistic", "ovk-dec", "exact", "hermite", "ovk-curl"}
	_, ts := newTestServer(t, copyModels(t, models...), Options{})
	c := ts.Client()
	for mi, name := range models {
		m := loadGolden(t, name)
		info := m.Info()
		d := len(info.Inputs)
		for _, n := range []int{1, 7, 300} {
			t.Run(fmt.Sprintf("%s/n=%d", name, n), func(t *testing.T) {
				X := randomRows(uint64(100*mi+n), n, d)
				want, err := m.PredictRows(X, n)
				if err != nil {
					t.Fatal(err)
				}
				check := func(how string, r *inferResponse, want []float64, labels []string) {
					t.Helper()
					if r.ModelName != name || r.ModelVersion == "" {
						t.Fatalf("%s: model %q version %q", how, r.ModelName, r.ModelVersion)
					}
					got, shape := r.floats(t, OutputPredictions)
					if !slices.Equal(shape, []int{n, info.Outputs}) {
						t.Fatalf("%s: predictions shape %v, want [%d %d]", how, shape, n, info.Outputs)
					}
					sameBits(t, how+": predictions", got, want)
					if labels == nil {
						if len(r.Outputs) != 1 {
							t.Fatalf("%s: %d outputs for a model without classes", how, len(r.Outputs))
						}
						return
					}
					gotLabels, shape := r.strings(t, OutputLabels)
					if !slices.Equal(shape, []int{n}) || !slices.Equal(gotLabels, labels) {
						t.Fatalf("%s: labels %v %v, want %v", how, shape, gotLabels, labels)
					}
					scores, shape := r.floats(t, OutputScores)
					if !slices.Equal(shape, []int{n, info.Outputs}) {
						t.Fatalf("%s: scores shape %v", how, shape)
					}
					sameBits(t, how+": scores", scores, want)
					if len(r.Outputs) != 3 { // a logistic model's probabilities only on request
						t.Fatalf("%s: %d outputs for a classifier, want predictions, labels and scores", how, len(r.Outputs))
					}
				}
				r := infer(t, c, ts.URL, name, matrixBody(X, n, d, "FP64"))
				if r.ID != "req-1" {
					t.Errorf("id %q not echoed", r.ID)
				}
				check("matrix", r, want.Values, want.Labels)

				perm := make([]int, d)
				for j := range perm {
					perm[j] = d - 1 - j
				}
				check("columns", infer(t, c, ts.URL, name, columnBody(X, n, info.Inputs, perm)), want.Values, want.Labels)

				// nested rows: [[x11, …, x1d], …]
				rows := make([][]float64, n)
				for i := range rows {
					rows[i] = X[i*d : (i+1)*d]
				}
				nested, _ := json.Marshal(map[string]any{"inputs": []any{map[string]any{"name": "x", "shape": []int{n, d}, "datatype": "FP64", "data": rows}}})
				check("nested", infer(t, c, ts.URL, name, nested), want.Values, want.Labels)

				// FP32: the values are the float32 nearest the decimals sent
				X32 := make([]float64, len(X))
				for i, v := range X {
					X32[i] = float64(float32(v))
				}
				want32, err := m.PredictRows(X32, n)
				if err != nil {
					t.Fatal(err)
				}
				check("FP32", infer(t, c, ts.URL, name, matrixBody(X32, n, d, "FP32")), want32.Values, want32.Labels)
			})
		}
	}
}

// A request may name the outputs it wants.
func TestRequestedOutputs(t *testing.T) {
	_, ts := newTestServer(t, copyModels(t, "cls-onehot"), Options{})
	m := loadGolden(t, "cls-onehot")
	X := randomRows(3, 5, 2)
	want, _ := m.PredictRows(X, 5)
	body := strings.Replace(string(matrixBody(X, 5, 2, "FP64")), `"inputs"`, `"outputs":[{"name":"labels"}],"inputs"`, 1)
	r := infer(t, ts.Client(), ts.URL, "cls-onehot", []byte(body))
	if len(r.Outputs) != 1 || r.Outputs[0].Name != OutputLabels {
		t.Fatalf("outputs %+v, want labels only", r.Outputs)
	}
	if got, _ := r.strings(t, OutputLabels); !slices.Equal(got, want.Labels) {
		t.Fatalf("labels %v, want %v", got, want.Labels)
	}
}

// A logistic classifier's probabilities are answered when a request names them (alone or with other outputs), and
// are its Prediction.Probabilities bit for bit, also for rows predicted in chunks; other models have none, and a
// request for them is refused with the outputs the model has.
func TestProbabilitiesOutput(t *testing.T) {
	_, ts := newTestServer(t, copyModels(t, "cls-logistic=logit", "cls-onehot=cls"), Options{})
	for _, n := range []int{6, 300} {
		X := randomRows(uint64(4+n), n, 2)
		for _, outputs := range []string{`[{"name":"probabilities"}]`, `[{"name":"labels"},{"name":"probabilities"}]`} {
			body := []byte(strings.Replace(string(matrixBody(X, n, 2, "FP64")), `"inputs"`, `"outputs":`+outputs+`,"inputs"`, 1))
			r := infer(t, ts.Client(), ts.URL, "logit", body)
			if len(r.Outputs) != strings.Count(outputs, "name") || r.Outputs[len(r.Outputs)-1].Name != OutputProbabilities {
				t.Fatalf("outputs %+v, want %s", r.Outputs, outputs)
			}
			p, err := loadGolden(t, "cls-logistic").PredictRows(X, n)
			if err != nil {
				t.Fatal(err)
			}
			want, err := p.Probabilities()
			if err != nil {
				t.Fatal(err)
			}
			got, shape := r.floats(t, OutputProbabilities)
			if !slices.Equal(shape, []int{n, p.Outputs}) {
				t.Fatalf("probabilities shape %v", shape)
			}
			sameBits(t, "probabilities", got, want)
		}
	}
	X := randomRows(4, 6, 2)
	ask := func(name string) []byte {
		return []byte(strings.Replace(string(matrixBody(X, 6, 2, "FP64")), `"inputs"`, `"outputs":[{"name":"probabilities"}],"inputs"`, 1))
	}

	code, h, b := do(t, ts.Client(), "POST", ts.URL+"/v2/models/cls/infer", ask("cls"))
	checkError(t, "probabilities of a squared-loss classifier", code, h, b, http.StatusBadRequest,
		`unknown output "probabilities" (model "cls" has "predictions", "labels", "scores")`)

	var md struct {
		Outputs []struct{ Name string } `json:"outputs"`
	}
	for name, want := range map[string]bool{"logit": true, "cls": false} {
		code, _, b := do(t, ts.Client(), "GET", ts.URL+"/v2/models/"+name, nil)
		if code != 200 || json.Unmarshal(b, &md) != nil {
			t.Fatalf("metadata of %s: %d %s", name, code, b)
		}
		has := slices.ContainsFunc(md.Outputs, func(o struct{ Name string }) bool { return o.Name == OutputProbabilities })
		if has != want {
			t.Errorf("metadata of %s lists probabilities: %v, want %v", name, has, want)
		}
	}
}

// A regression model fitted with uncertainty answers "std", the predictive standard deviations with noise, when a
// request names it — the bits of Model.PredictStd, for requests within one chunk and across several — and lists it
// in its metadata; it is not in the default answer, and a model without a posterior has none.
func TestStdOutput(t *testing.T) {
	_, ts := newTestServer(t, copyModels(t, "nystrom-uncertainty=unc", "ridge-sr=reg"), Options{})
	m := loadGolden(t, "nystrom-uncertainty")
	d := len(m.Info().Inputs)
	for _, n := range []int{1, 6, chunkRows + 44, 3 * chunkRows} {
		X := randomRows(uint64(9+n), n, d)
		body := []byte(strings.Replace(string(matrixBody(X, n, d, "FP64")), `"inputs"`, `"outputs":[{"name":"predictions"},{"name":"std"}],"inputs"`, 1))
		r := infer(t, ts.Client(), ts.URL, "unc", body)
		want, err := m.PredictStd(X, n, true)
		if err != nil {
			t.Fatal(err)
		}
		got, shape := r.floats(t, OutputStd)
		if !slices.Equal(shape, []int{n, m.Info().Outputs}) {
			t.Fatalf("%d rows: std shape %v", n, shape)
		}
		sameBits(t, fmt.Sprintf("std of %d rows", n), got, want)
		p, _ := m.PredictRows(X, n)
		pred, _ := r.floats(t, OutputPredictions)
		sameBits(t, fmt.Sprintf("predictions of %d rows", n), pred, p.Values)
	}
	X := randomRows(5, 6, d)
	r := infer(t, ts.Client(), ts.URL, "unc", matrixBody(X, 6, d, "FP64"))
	if len(r.Outputs) != 1 || r.Outputs[0].Name != OutputPredictions {
		t.Errorf("default outputs %+v, want the predictions only", r.Outputs)
	}
	ask := []byte(strings.Replace(string(matrixBody(randomRows(5, 6, 3), 6, 3, "FP64")), `"inputs"`, `"outputs":[{"name":"std"}],"inputs"`, 1))
	code, h, b := do(t, ts.Client(), "POST", ts.URL+"/v2/models/reg/infer", ask)
	checkError(t, "std of a model without uncertainty", code, h, b, http.StatusBadRequest, `unknown output "std" (model "reg" has "predictions")`)
	var md struct {
		Outputs []struct{ Name string } `json:"outputs"`
	}
	for name, want := range map[string]bool{"unc": true, "reg": false} {
		code, _, b := do(t, ts.Client(), "GET", ts.URL+"/v2/models/"+name, nil)
		if code != 200 || json.Unmarshal(b, &md) != nil {
			t.Fatalf("metadata of %s: %d %s", name, code, b)
		}
		if has := slices.ContainsFunc(md.Outputs, func(o struct{ Name string }) bool { return o.Name == OutputStd }); has != want {
			t.Errorf("metadata of %s lists std: %v, want %v", name, has, want)
		}
	}
}

// Health, server and model metadata, model readiness, and versioned paths.
func TestMetadataAndHealth(t *testing.T) {
	s, ts := newTestServer(t, copyModels(t, "ridge-sr=reg", "cls-onehot=cls", "ovk-dec=vec"), Options{Version: "9.9"})
	c := ts.Client()
	get := func(path string, wantCode int) map[string]any {
		t.Helper()
		code, h, b := do(t, c, http.MethodGet, ts.URL+path, nil)
		if code != wantCode {
			t.Fatalf("GET %s: %d %s, want %d", path, code, b, wantCode)
		}
		if ct := h.Get("Content-Type"); ct != "application/json" {
			t.Fatalf("GET %s: Content-Type %q", path, ct)
		}
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("GET %s: %v in %s", path, err, b)
		}
		return v
	}
	if v := get("/v2/health/live", 200); v["live"] != true {
		t.Fatalf("live: %v", v)
	}
	if v := get("/v2/health/ready", 200); v["ready"] != true {
		t.Fatalf("ready: %v", v)
	}
	if v := get("/v2", 200); v["name"] != "rff" || v["version"] != "9.9" {
		t.Fatalf("server metadata: %v", v)
	}
	if got := s.Models(); !slices.Equal(got, []string{"cls", "reg", "vec"}) {
		t.Fatalf("models %v", got)
	}

	var md struct {
		Name     string       `json:"name"`
		Versions []string     `json:"versions"`
		Platform string       `json:"platform"`
		Inputs   []tensorMeta `json:"inputs"`
		Outputs  []tensorMeta `json:"outputs"`
		RFF      struct {
			Inputs []string `json:"inputs"`
			Labels []string `json:"labels"`
			Task   string   `json:"task"`
		} `json:"rff"`
	}
	metadata := func(name string) {
		t.Helper()
		code, _, b := do(t, c, http.MethodGet, ts.URL+"/v2/models/"+name, nil)
		if code != 200 {
			t.Fatalf("metadata %s: %d %s", name, code, b)
		}
		md.Outputs = nil
		if err := json.Unmarshal(b, &md); err != nil {
			t.Fatal(err)
		}
	}
	metadata("cls")
	if md.Name != "cls" || len(md.Versions) != 1 || len(md.Versions[0]) != 16 || md.Platform != "rff" {
		t.Fatalf("cls metadata %+v", md)
	}
	wantIn := []tensorMeta{{"input", "FP64", []int64{-1, 2}}}
	wantOut := []tensorMeta{{"predictions", "FP64", []int64{-1, 3}}, {"labels", "BYTES", []int64{-1}}, {"scores", "FP64", []int64{-1, 3}}}
	if fmt.Sprint(md.Inputs) != fmt.Sprint(wantIn) || fmt.Sprint(md.Outputs) != fmt.Sprint(wantOut) {
		t.Fatalf("cls tensors %v %v, want %v %v", md.Inputs, md.Outputs, wantIn, wantOut)
	}
	if !slices.Equal(md.RFF.Inputs, []string{"x1", "x2"}) || !slices.Equal(md.RFF.Labels, []string{"setosa", "versicolor", "virginica"}) || md.RFF.Task != "classification" {
		t.Fatalf("cls description %+v", md.RFF)
	}
	version := md.Versions[0]
	metadata("reg")
	if fmt.Sprint(md.Inputs) != fmt.Sprint([]tensorMeta{{"input", "FP64", []int64{-1, 3}}}) ||
		fmt.Sprint(md.Outputs) != fmt.Sprint([]tensorMeta{{"predictions", "FP64", []int64{-1, 1}}}) ||
		!slices.Equal(md.RFF.Inputs, []string{"temp", "pressure", "humidity"}) {
		t.Fatalf("reg metadata %+v", md)
	}
	metadata("vec")
	if fmt.Sprint(md.Outputs) != fmt.Sprint([]tensorMeta{{"predictions", "FP64", []int64{-1, 4}}}) || md.Inputs[0].Shape[1] != 20 {
		t.Fatalf("vec metadata %+v", md)
	}

	if v := get("/v2/models/cls/ready", 200); v["ready"] != true || v["name"] != "cls" {
		t.Fatalf("model ready: %v", v)
	}
	if v := get("/v2/models/cls/versions/"+version+"/ready", 200); v["ready"] != true {
		t.Fatalf("versioned ready: %v", v)
	}
	get("/v2/models/cls/versions/"+version, 200)
	r := infer(t, c, ts.URL, "cls/versions/"+version, matrixBody([]float64{0, 0}, 1, 2, "FP64"))
	if r.ModelVersion != version {
		t.Fatalf("versioned infer answered by %q, want %q", r.ModelVersion, version)
	}
	get("/v2/models/cls/versions/0123456789abcdef/ready", 404)
	get("/v2/models/nope/ready", 404)
	get("/v2/models/nope", 404)
}

// A server of an empty directory is live but not ready.
func TestNotReadyWithoutModels(t *testing.T) {
	_, ts := newTestServer(t, t.TempDir(), Options{})
	code, _, b := do(t, ts.Client(), http.MethodGet, ts.URL+"/v2/health/ready", nil)
	if code != http.StatusServiceUnavailable || !strings.Contains(string(b), `"ready":false`) {
		t.Fatalf("ready without models: %d %s", code, b)
	}
	if code, _, _ := do(t, ts.Client(), http.MethodGet, ts.URL+"/v2/health/live", nil); code != 200 {
		t.Fatalf("live: %d", code)
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := New(t.TempDir()+"/missing", Options{}); err == nil {
		t.Fatal("New accepted a missing directory")
	}
	f := copyModels(t, "ridge-sr") + "/ridge-sr.rff"
	if _, err := New(f, Options{}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("New on a file: %v", err)
	}
}
