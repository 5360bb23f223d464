package serve

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// counterValue returns the value of the counter or gauge name with the labels (all of them), or −1 when absent.
func counterValue(t *testing.T, s *Server, name string, labels map[string]string) float64 {
	t.Helper()
	mfs, err := s.metrics.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metric:
		for _, m := range mf.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			for _, l := range m.GetLabel() {
				if v, ok := labels[l.GetName()]; !ok || v != l.GetValue() {
					continue metric
				}
			}
			switch {
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				return float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return -1
}

// The metrics count requests and errors by route, model and code, rows predicted, latencies and loaded models;
// unknown model names are not labels.
func TestMetrics(t *testing.T) {
	s, ts := newTestServer(t, copyModels(t, "ridge-sr=reg", "cls-onehot=cls"), Options{})
	c := ts.Client()
	for i := 0; i < 3; i++ {
		infer(t, c, ts.URL, "reg", matrixBody(randomRows(uint64(i), 4, 3), 4, 3, "FP64"))
	}
	infer(t, c, ts.URL, "cls", matrixBody(randomRows(9, 10, 2), 10, 2, "FP64"))
	do(t, c, "POST", ts.URL+"/v2/models/reg/infer", []byte("{"))
	do(t, c, "POST", ts.URL+"/v2/models/nope/infer", []byte("{}"))
	do(t, c, "POST", ts.URL+"/v2/models/other/infer", []byte("{}"))
	do(t, c, "GET", ts.URL+"/v2/models/reg", nil)
	do(t, c, "POST", ts.URL+"/v2//models/reg/infer", []byte("{}")) // not in canonical form: 400, counted as "other"

	for _, w := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"rff_serve_requests_total", map[string]string{"route": "infer", "model": "reg", "code": "200"}, 3},
		{"rff_serve_requests_total", map[string]string{"route": "infer", "model": "cls", "code": "200"}, 1},
		{"rff_serve_requests_total", map[string]string{"route": "infer", "model": "reg", "code": "400"}, 1},
		{"rff_serve_requests_total", map[string]string{"route": "infer", "model": "", "code": "404"}, 2},
		{"rff_serve_requests_total", map[string]string{"route": "metadata", "model": "reg", "code": "200"}, 1},
		{"rff_serve_errors_total", map[string]string{"route": "infer", "model": "reg", "code": "400"}, 1},
		{"rff_serve_errors_total", map[string]string{"route": "infer", "model": "", "code": "404"}, 2},
		{"rff_serve_errors_total", map[string]string{"route": "infer", "model": "reg", "code": "200"}, -1},
		{"rff_serve_requests_total", map[string]string{"route": "other", "model": "", "code": "400"}, 1},
		{"rff_serve_errors_total", map[string]string{"route": "other", "model": "", "code": "400"}, 1},
		{"rff_serve_rows_predicted_total", map[string]string{"model": "reg"}, 12},
		{"rff_serve_rows_predicted_total", map[string]string{"model": "cls"}, 10},
		{"rff_serve_request_duration_seconds", map[string]string{"route": "infer", "model": "reg"}, 4},
		{"rff_serve_predict_duration_seconds", map[string]string{"model": "reg"}, 3},
		{"rff_serve_models_loaded", nil, 2},
		{"rff_serve_reloads_total", map[string]string{"result": "ok"}, 1},
		{"rff_serve_in_flight_requests", nil, 0},
	} {
		if got := counterValue(t, s, w.name, w.labels); got != w.want {
			t.Errorf("%s%v = %v, want %v", w.name, w.labels, got, w.want)
		}
	}

	code, h, b := do(t, c, "GET", ts.URL+"/metrics", nil)
	if code != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %d %s", code, h.Get("Content-Type"))
	}
	text := string(b)
	for _, want := range []string{
		`rff_serve_requests_total{code="200",model="reg",route="infer"} 3`,
		`rff_serve_rows_predicted_total{model="cls"} 10`,
		`rff_serve_models_loaded 2`,
		`rff_serve_request_duration_seconds_bucket{model="reg",route="infer",le="+Inf"} 4`,
		"go_goroutines ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if strings.Contains(text, `model="nope"`) || strings.Contains(text, `model="other"`) {
		t.Error("an unknown model name became a label")
	}
	if code, _, _ := do(t, c, http.MethodPost, ts.URL+"/metrics", nil); code != 405 {
		t.Errorf("POST /metrics: %d", code)
	}

	// A model no longer served leaves no series behind; the others keep theirs.
	if err := os.Remove(filepath.Join(s.dir, "cls.rff")); err != nil {
		t.Fatal(err)
	}
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	_, _, b = do(t, c, "GET", ts.URL+"/metrics", nil)
	if text := string(b); strings.Contains(text, `model="cls"`) || !strings.Contains(text, `rff_serve_rows_predicted_total{model="reg"} 12`) {
		t.Errorf("after cls.rff was removed, /metrics:\n%s", grepLines(text, "model="))
	}
}

// grepLines returns the lines of text that contain s.
func grepLines(text, s string) string {
	var out []string
	for l := range strings.Lines(text) {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}
