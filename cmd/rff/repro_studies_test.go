package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reproCLI runs the command line and returns the exit code and both outputs.
func reproCLI(args ...string) (int, string, string) {
	var o, e bytes.Buffer
	code := run(args, &o, &e)
	return code, o.String(), e.String()
}

// tinyReproArgs are the cheapest settings of each study (a few maps, small searches).
var tinyReproArgs = map[string][]string{
	"rates-sup":      {"--d", "1,2", "--m", "16,64", "--runs", "2", "--candidates", "64", "--starts", "2", "--steps", "5"},
	"rates-diameter": {"--m", "32", "--diameters", "1,4,16", "--runs", "2", "--candidates", "64", "--density", "2", "--starts", "2", "--steps", "5"},
	"rates-lr":       {"--m", "16,64", "--r", "1,2", "--runs", "2", "--samples", "128"},
	"rates-deriv":    {"--m", "16,64", "--cases", "e1:0,e1:e2", "--runs", "2", "--candidates", "64", "--starts", "2", "--steps", "5"},
	"orff-fig1a":     {"--D", "8,32", "--points", "40", "--pairs", "32", "--runs", "2"},
	"orff-fig1b":     {"--D", "8,32", "--seeds", "10", "--runs", "2"},
}

func TestReproStudiesRegistered(t *testing.T) {
	code, out, _ := reproCLI("repro", "-h")
	for name := range tinyReproArgs {
		if _, ok := reproStudies[name]; !ok {
			t.Errorf("%s is not registered", name)
		}
		if code != 0 || !strings.Contains(out, name) {
			t.Errorf("repro -h does not list %s: exit %d, %q", name, code, out)
		}
		if code, out, _ := reproCLI("repro", name, "-h"); code != 0 || !strings.Contains(out, "-runs") {
			t.Errorf("%s -h: exit %d, %q", name, code, out)
		}
	}
}

func TestReproStudiesBadFlags(t *testing.T) {
	cases := [][]string{
		{"repro", "rates-sup", "--bogus"},
		{"repro", "rates-sup", "--runs", "0"},
		{"repro", "rates-sup", "--m", "0"},
		{"repro", "rates-sup", "--d", "x"},
		{"repro", "rates-sup", "--rule", "zzz"},
		{"repro", "rates-sup", "--delta", "1.5"},
		{"repro", "rates-sup", "--candidates", "0"},
		{"repro", "rates-sup", "stray"},
		{"repro", "rates-diameter", "--diameters", "1,-2"},
		{"repro", "rates-diameter", "--density", "0"},
		{"repro", "rates-lr", "--r", "0.5"},
		{"repro", "rates-lr", "--samples", "1"},
		{"repro", "rates-deriv", "--cases", "e3:0"},
		{"repro", "rates-deriv", "--cases", "e1"},
		{"repro", "rates-deriv", "--d", "1"}, // the default cases need d ≥ 2
		{"repro", "orff-fig1a", "--kernels", "nope"},
		{"repro", "orff-fig1a", "--d", "1", "--kernels", "div-free"},
		{"repro", "orff-fig1a", "--D", "8,x"},
		{"repro", "orff-fig1b", "--seeds", "1"},
		{"repro", "orff-fig1b", "--sigma", "-1"},
	}
	for _, c := range cases {
		code, out, errOut := reproCLI(c...)
		if code != 2 || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q", c, code, errOut, out)
		}
	}
}

func TestReproStudiesTinyRuns(t *testing.T) {
	for name, args := range tinyReproArgs {
		dir := t.TempDir()
		// The table form.
		code, out, errOut := reproCLI(append([]string{"repro", name, "--out", dir}, args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		if !strings.Contains(out, "finding: ") || !strings.Contains(out, name+".png") {
			t.Errorf("%s: output %q", name, out)
		}
		for _, ext := range []string{".png", ".csv"} {
			if fi, err := os.Stat(filepath.Join(dir, name+ext)); err != nil || fi.Size() == 0 {
				t.Errorf("%s: %s%s: %v", name, name, ext, err)
			}
		}
		// The JSON form: one object with the rows, the fits and the finding.
		code, out, errOut = reproCLI(append([]string{"repro", name, "--out", dir, "--json"}, args...)...)
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
			Seconds  float64
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s --json: %v in %q", name, err, out)
		}
		if rep.Study != name || rep.Rule != "g" || len(rep.Rows) == 0 || len(rep.Fits) == 0 || rep.Finding == "" ||
			len(rep.Figures) != 1 || rep.Settings["runs"] != 2.0 {
			t.Errorf("%s --json: %+v", name, rep)
		}
		for _, r := range rep.Rows {
			if r["runs"] != 2.0 {
				t.Errorf("%s: row %v", name, r)
			}
		}
	}
}
