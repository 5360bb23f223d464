package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
	code, stdout, stderr := runCLI("repro", "quad-fig3", "--data-dir", data, "--datasets", "leukemia", "--rules",
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
			D    int     `json:"D"`
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
	// The table form.
	code, stdout, stderr = runCLI("repro", "quad-fig3", "--data-dir", data, "--datasets", "leukemia", "--rules", "sorf",
		"--rows", "10", "--runs", "1", "--out", out)
	if code != 0 || !strings.Contains(stdout, "sorf") || !strings.Contains(stdout, "quad-fig3.png") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	// Usage errors: one line on stderr, exit 2, before any data is read.
	for _, args := range [][]string{{"--datasets", "cifar100"}, {"--rules", "nope"}, {"--runs", "0"}} {
		code, _, stderr := runCLI(append([]string{"repro", "quad-fig3", "--data-dir", data, "--out", out}, args...)...)
		if code != 2 || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	// Missing data.
	if code, _, stderr := runCLI("repro", "quad-fig3", "--data-dir", t.TempDir(), "--datasets", "leukemia", "--out", out); code != 2 || !strings.Contains(stderr, "not found") {
		t.Errorf("missing data: exit %d, %q", code, stderr)
	}
}
