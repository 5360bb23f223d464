package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rffkit/rff/internal/datadir"
	"github.com/rffkit/rff/internal/study"
)

// reproCLI runs the command line and returns the exit code and both outputs.
func reproCLI(args ...string) (int, string, string) {
	var o, e bytes.Buffer
	code := run(args, &o, &e)
	return code, o.String(), e.String()
}

// tinyRepro are the cheapest settings of each study of the theory papers and of the ORFF learning studies (a few
// maps, small searches and fits), with the figures each writes and the dataset it needs, if any.
var tinyRepro = map[string]struct {
	args    []string
	figures []string
	data    string
}{
	"rates-sup": {[]string{"--d", "1,2", "--m", "16,64", "--runs", "2", "--candidates", "64", "--starts", "2",
		"--steps", "5"}, []string{"rates-sup"}, ""},
	"rates-diameter": {[]string{"--m", "32", "--diameters", "1,4,16", "--runs", "2", "--candidates", "64", "--density",
		"2", "--starts", "2", "--steps", "5"}, []string{"rates-diameter"}, ""},
	"rates-lr": {[]string{"--m", "16,64", "--r", "1,2", "--runs", "2", "--samples", "128"}, []string{"rates-lr"}, ""},
	"rates-deriv": {[]string{"--m", "16,64", "--cases", "e1:0,e1:e2", "--runs", "2", "--candidates", "64", "--starts",
		"2", "--steps", "5"}, []string{"rates-deriv"}, ""},
	"orff-fig1a": {[]string{"--D", "8,32", "--points", "40", "--pairs", "32", "--runs", "2"}, []string{"orff-fig1a"}, ""},
	"orff-fig1b": {[]string{"--D", "8,32", "--seeds", "10", "--runs", "2"}, []string{"orff-fig1b"}, ""},
	"orff-fig2": {[]string{"--n-error", "40", "--D", "10,30", "--time-D", "10", "--N", "40,80", "--exact-max-n", "40",
		"--test", "100", "--lambda-grid", "1e-4,1e-2", "--runs", "2"}, []string{"orff-fig2-time", "orff-fig2-error"},
		"mnist"},
	"orff-fig3": {[]string{"--train", "120", "--test", "60", "--D", "10,20", "--exact-n", "60", "--time-N", "40,80",
		"--time-D", "10", "--time-exact-max-rows", "200", "--checks", "5", "--lambda", "1e-3", "--runs", "2"},
		[]string{"orff-fig3-r2", "orff-fig3-time"}, ""},
	"orff-multitask": {[]string{"--N", "20,40", "--test", "100", "--validation", "50", "--D", "10", "--runs", "2"},
		[]string{"orff-multitask-rmse", "orff-multitask-r2"}, ""},
}

func TestReproStudiesRegistered(t *testing.T) {
	code, out, _ := reproCLI("repro", "-h")
	if code != 0 {
		t.Fatalf("repro -h: exit %d", code)
	}
	for _, e := range study.All() {
		if !strings.Contains(out, "  "+e.Name+" ") {
			t.Errorf("repro -h does not list %s: %q", e.Name, out)
		}
		code, help, _ := reproCLI("repro", e.Name, "-h")
		if code != 0 || !strings.Contains(help, "-runs") || !strings.Contains(help, "-seed") ||
			!strings.Contains(help, "-json") || !strings.Contains(help, "-out") {
			t.Errorf("%s -h: exit %d, %q", e.Name, code, help)
		}
	}
	for name := range tinyRepro {
		if _, ok := study.Find(name); !ok {
			t.Errorf("%s is not registered", name)
		}
	}
	for _, args := range [][]string{{"repro"}, {"repro", "nope"}, {"repro", "--runs", "2"}} {
		if code, _, errOut := reproCLI(args...); code != 2 || strings.Count(errOut, "\n") != 1 ||
			!strings.Contains(errOut, "rates-sup") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}

// Every bad setting is refused in one line on stderr with exit code 2, before any work.
func TestReproBadFlags(t *testing.T) {
	bad := map[string][]string{ // the arguments of one case are separated by spaces
		"rates-sup":      {"--bogus", "--runs=0", "--m=0", "--d=x", "--rule=zzz", "--delta=1.5", "--candidates=0", "stray"},
		"rates-diameter": {"--diameters=1,-2", "--density=0"},
		"rates-lr":       {"--r=0.5", "--samples=1"},
		"rates-deriv":    {"--cases=e3:0", "--cases=e1", "--d=1"}, // the default cases need d ≥ 2
		"orff-fig1a":     {"--kernels=nope", "--d=1 --kernels=div-free", "--D=8,x"},
		"orff-fig1b":     {"--seeds=1", "--sigma=-1"},
		"orff-fig2": {"--bogus", "--runs=0", "--sigma=-1", "--lambda=-1", "--lambda-grid=1e-3,0", "--lambda-rule=max",
			"--D=10,x", "--N=0", "--n-error=2", "--exact-max-gib=-1", "--rule=nope"},
		"orff-fig3": {"--train=1", "--lambda=0", "--noise=-0.5", "--exact-n=9000", "--exact-max-gib=0", "--time-N=",
			"stray"},
		"orff-multitask": {"--N=1", "--noise=-1", "--D=0", "--sigma=nan"},
		"quad-fig2":      {"--datasets=cifar100", "--kernels=nope", "--n=0"},
	}
	for name, cases := range bad {
		for _, c := range cases {
			code, out, errOut := reproCLI(append([]string{"repro", name}, strings.Fields(c)...)...)
			if code != 2 || strings.Count(errOut, "\n") != 1 || out != "" {
				t.Errorf("%s %s: exit %d, stderr %q, stdout %q", name, c, code, errOut, out)
			}
		}
	}
}

func TestReproTinyRuns(t *testing.T) {
	for name, tc := range tinyRepro {
		args := tc.args
		if tc.data != "" {
			if _, ok := datadir.Path(tc.data); !ok {
				t.Logf("%s: %s not available, skipped", name, tc.data)
				continue
			}
			args = append([]string{"--data-dir", datadir.Dir()}, args...)
		}
		dir := t.TempDir()
		// The table form.
		code, out, errOut := reproCLI(append([]string{"repro", name, "--out", dir}, args...)...)
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
		// The JSON form: one object with the settings, the rows, the fits and the finding.
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
			len(rep.Figures) != len(tc.figures) || rep.Settings["runs"] != 2.0 || rep.Settings["rule"] != "g" {
			t.Errorf("%s --json: %+v", name, rep)
		}
		for _, r := range rep.Rows {
			theory := len(tc.figures) == 1 // every row of the theory studies is measured over the runs
			if theory && r["runs"] != 2.0 || !theory && (r["panel"] == nil || r["model"] == nil || r["mean"] == nil) {
				t.Errorf("%s: row %v", name, r)
			}
		}
	}
}

// writeMiniLeukemia writes a LEUKEMIA directory (Broad layout) with 3 genes and 2 + 1 patients under a fresh data
// directory, and returns the data directory.
func writeMiniLeukemia(t *testing.T) string {
	t.Helper()
	data := t.TempDir()
	dir := filepath.Join(data, "leukemia")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"data_set_ALL_AML_train.csv": "Gene Description,Gene Accession Number,2,call,1,call\n" +
			"a,G1,1,A,2,P\nb,G2,3,A,4,P\nc,G3,5,A,6,P\n",
		"data_set_ALL_AML_independent.csv": "Gene Description,Gene Accession Number,39,call\n" +
			"a,G1,7,A\nb,G2,8,A\nc,G3,9,A\n",
		"actual.csv": "patient,cancer\n1,ALL\n2,AML\n39,ALL\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

func TestReproQuadFig3(t *testing.T) {
	data, out := writeMiniLeukemia(t), t.TempDir()
	code, stdout, stderr := reproCLI("repro", "quad-fig3", "--data-dir", data, "--datasets", "leukemia", "--rules",
		"g,sr-butterfly", "--rows", "50", "--runs", "2", "--n", "2", "--out", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Study   string   `json:"study"`
		Backend string   `json:"backend"`
		Figures []string `json:"figures"`
		Timings []struct {
			Rule string  `json:"rule"`
			Dim  int     `json:"d"`
			D    int     `json:"points"`
			Mean float64 `json:"mean_seconds"`
		} `json:"timings"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if rep.Study != "quad-fig3" || rep.Backend == "" || len(rep.Figures) != 3 || len(rep.Timings) != 2 {
		t.Fatalf("%+v", rep)
	}
	for _, tm := range rep.Timings {
		if tm.Dim != 3 || tm.D != 16 || !(tm.Mean > 0) {
			t.Errorf("%+v", tm)
		}
	}
	for _, p := range rep.Figures {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	// The table form, with the data directory from RFF_DATA.
	t.Setenv(datadir.Env, data)
	code, stdout, stderr = reproCLI("repro", "quad-fig3", "--datasets", "leukemia", "--rules", "sorf", "--rows", "10",
		"--runs", "1", "--out", out)
	if code != 0 || !strings.Contains(stdout, "sorf") || !strings.Contains(stdout, "quad-fig3.png") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	// Usage errors: one line on stderr, exit 2, before any data is read.
	for _, args := range [][]string{{"--datasets", "cifar100"}, {"--rules", "nope"}, {"--runs", "0"}} {
		code, _, stderr := reproCLI(append([]string{"repro", "quad-fig3", "--data-dir", data, "--out", out}, args...)...)
		if code != 2 || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	// Missing data.
	if code, _, stderr := reproCLI("repro", "quad-fig3", "--data-dir", t.TempDir(), "--datasets", "leukemia", "--out", out); code != 2 || !strings.Contains(stderr, "not found") {
		t.Errorf("missing data: exit %d, %q", code, stderr)
	}
}

// Without --data-dir and RFF_DATA, the studies that read datasets say in one line how to give them.
func TestReproNoDataDir(t *testing.T) {
	t.Setenv(datadir.Env, "")
	for _, name := range []string{"quad-fig2", "quad-fig3", "orff-fig2"} {
		code, out, errOut := reproCLI("repro", name, "--out", t.TempDir())
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "--data-dir") ||
			!strings.Contains(errOut, "RFF_DATA") {
			t.Errorf("%s: exit %d, stderr %q", name, code, errOut)
		}
	}
}
