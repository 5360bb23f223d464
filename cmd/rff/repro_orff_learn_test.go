package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tinyORFFLearnArgs are the cheapest settings of the ORFF learning studies, with the figures each writes.
var tinyORFFLearnArgs = map[string]struct {
	args    []string
	figures []string
	data    bool // needs MNIST
}{
	"orff-fig2": {[]string{"--data-dir", "../../../shared/data", "--n-error", "40", "--D", "10,30", "--time-D", "10",
		"--N", "40,80", "--exact-max-n", "40", "--test", "100", "--lambda-grid", "1e-4,1e-2", "--runs", "2"},
		[]string{"orff-fig2-time", "orff-fig2-error"}, true},
	"orff-fig3": {[]string{"--train", "120", "--test", "60", "--D", "10,20", "--exact-n", "60", "--time-N", "40,80",
		"--time-D", "10", "--time-exact-max-rows", "200", "--checks", "5", "--lambda", "1e-3", "--runs", "2"},
		[]string{"orff-fig3-r2", "orff-fig3-time"}, false},
	"orff-multitask": {[]string{"--N", "20,40", "--test", "100", "--validation", "50", "--D", "10", "--runs", "2"},
		[]string{"orff-multitask-rmse", "orff-multitask-r2"}, false},
}

func TestReproORFFLearnRegistered(t *testing.T) {
	code, out, _ := reproCLI("repro", "-h")
	for name := range tinyORFFLearnArgs {
		if _, ok := reproStudies[name]; !ok || code != 0 || !strings.Contains(out, name) {
			t.Errorf("%s is not registered or listed: exit %d", name, code)
		}
		if code, out, _ := reproCLI("repro", name, "-h"); code != 0 || !strings.Contains(out, "-runs") ||
			!strings.Contains(out, "-json") {
			t.Errorf("%s -h: exit %d, %q", name, code, out)
		}
	}
}

func TestReproORFFLearnBadFlags(t *testing.T) {
	cases := [][]string{
		{"repro", "orff-fig2", "--bogus"},
		{"repro", "orff-fig2", "--runs", "0"},
		{"repro", "orff-fig2", "--sigma", "-1"},
		{"repro", "orff-fig2", "--lambda", "-1"},
		{"repro", "orff-fig2", "--lambda-grid", "1e-3,0"},
		{"repro", "orff-fig2", "--lambda-rule", "max"},
		{"repro", "orff-fig2", "--D", "10,x"},
		{"repro", "orff-fig2", "--N", "0"},
		{"repro", "orff-fig2", "--n-error", "2"},
		{"repro", "orff-fig2", "--exact-max-gib", "-1"},
		{"repro", "orff-fig2", "--rule", "nope"},
		{"repro", "orff-fig3", "--train", "1"},
		{"repro", "orff-fig3", "--lambda", "0"},
		{"repro", "orff-fig3", "--noise", "-0.5"},
		{"repro", "orff-fig3", "--exact-n", "9000"},
		{"repro", "orff-fig3", "--exact-max-gib", "0"},
		{"repro", "orff-fig3", "--time-N", ""},
		{"repro", "orff-fig3", "stray"},
		{"repro", "orff-multitask", "--N", "1"},
		{"repro", "orff-multitask", "--noise", "-1"},
		{"repro", "orff-multitask", "--D", "0"},
		{"repro", "orff-multitask", "--sigma", "nan"},
	}
	for _, c := range cases {
		code, out, errOut := reproCLI(c...)
		if code != 2 || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q", c, code, errOut, out)
		}
	}
}

func TestReproORFFLearnTinyRuns(t *testing.T) {
	for name, tc := range tinyORFFLearnArgs {
		if tc.data {
			if _, err := os.Stat("../../../shared/data/mnist"); err != nil {
				t.Logf("%s: MNIST not available, skipped", name)
				continue
			}
		}
		dir := t.TempDir()
		code, out, errOut := reproCLI(append([]string{"repro", name, "--out", dir}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		if !strings.Contains(out, "finding: ") || !strings.Contains(out, tc.figures[0]+".png") {
			t.Errorf("%s: output %q", name, out)
		}
		for _, f := range tc.figures {
			for _, ext := range []string{".png", ".csv"} {
				if fi, err := os.Stat(filepath.Join(dir, f+ext)); err != nil || fi.Size() == 0 {
					t.Errorf("%s: %s%s: %v", name, f, ext, err)
				}
			}
		}
		code, out, errOut = reproCLI(append([]string{"repro", name, "--out", dir, "--json"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%s --json: exit %d: %s", name, code, errOut)
		}
		var rep struct {
			Study    string
			Rule     string
			Settings map[string]any
			Rows     []map[string]any
			Fits     []map[string]any
			Finding  string
			Figures  []string
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s --json: %v in %q", name, err, out)
		}
		if rep.Study != name || rep.Rule != "g" || len(rep.Rows) == 0 || len(rep.Fits) == 0 || rep.Finding == "" ||
			len(rep.Figures) != 2 || rep.Settings["runs"] != 2.0 {
			t.Errorf("%s --json: %+v", name, rep)
		}
		for _, r := range rep.Rows {
			if r["panel"] == nil || r["model"] == nil || r["mean"] == nil {
				t.Errorf("%s: row %v", name, r)
			}
		}
	}
}
