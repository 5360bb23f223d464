package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rffkit/rff"
)

// writeShards writes n rows of a regression on 3 inputs in two shards (one gzip-compressed), each with a header,
// and returns their glob.
func writeShards(t *testing.T, dir string, n int, bad string) string {
	t.Helper()
	var parts [2]bytes.Buffer
	for i := range parts {
		parts[i].WriteString("a,b,c,y\n")
	}
	for i := range n {
		a, b, c := math.Sin(float64(i)), math.Cos(float64(3*i)), float64(i%17)/17
		fmt.Fprintf(&parts[i%2], "%.17g,%.17g,%.17g,%.17g\n", a, b, c, a*b+c)
	}
	parts[0].WriteString(bad)
	if err := os.WriteFile(filepath.Join(dir, "part-0.csv"), parts[0].Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(parts[1].Bytes())
	w.Close()
	if err := os.WriteFile(filepath.Join(dir, "part-1.csv.gz"), z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "part-*")
}

func runCmd(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestFit(t *testing.T) {
	dir := t.TempDir()
	glob := writeShards(t, dir, 600, "")
	out := filepath.Join(dir, "m.rff")
	code, stdout, stderr := runCmd("fit", "--input", glob, "--out", out, "-D", "32", "--lambda", "1e-4", "--sigma", "1.5", "--runner", "prism", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep fitReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if rep.Rows != 600 || rep.Files != 2 || rep.Info.Sigma != 1.5 || rep.Memory.F != 64 {
		t.Errorf("report %+v", rep)
	}
	m, err := rff.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.Info().Inputs, ","); got != "a,b,c" {
		t.Errorf("inputs %s", got)
	}
}

// Every refusal is one line on stderr and exit code 2.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	glob := writeShards(t, dir, 100, "1,2,x,4\n")
	out := filepath.Join(dir, "m.rff")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"fit", "--input", filepath.Join(dir, "none-*.csv"), "--out", out}, "no files match"},
		{[]string{"fit", "--input", glob, "--out", out, "-D", "16", "--sigma", "1"}, filepath.Join(dir, "part-0.csv") + `:52: column 3: "x" is not a number`},
		{[]string{"fit", "--input", glob, "--out", out, "-D", "8192", "--worker-memory", "64MiB"}, "over --worker-memory 64 MiB"},
		{[]string{"fit", "--input", glob, "--out", out, "--no-such-flag"}, "not defined"},
		{[]string{"fit", "--input", glob}, "--out is required"},
		{[]string{"fit", "--input", filepath.Join(dir, "part-0.csv"), "--out", filepath.Join(dir, "part-0.csv")}, "also an input"},
		{[]string{"fit", "--input", glob, "--out", out, "--format", "libsvm"}, "reads csv"},
		{[]string{"fit", "--input", glob, "--out", out, "--task", "hermite"}, "regression or classification"},
		{[]string{"nope"}, "unknown command"},
	}
	for _, c := range cases {
		code, _, stderr := runCmd(c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want one line with %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("a refused fit wrote its model")
	}
	code, stdout, stderr := runCmd("fit", "--input", glob, "--out", out, "-D", "16", "--sigma", "1", "--skip-bad-rows")
	if code != 0 || !strings.Contains(stdout, "skipped 1 bad rows") {
		t.Errorf("--skip-bad-rows: exit %d, %s%s", code, stdout, stderr)
	}
}

// TestBeamFlags checks which command lines main hands to Beam's worker start-up: only flags Beam registered, never a
// command, help or an unknown flag (which run then refuses in one line instead of the program exiting silently).
func TestBeamFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"fit", "--input", "x"}, false},
		{[]string{"-h"}, false},
		{[]string{"--help"}, false},
		{[]string{"--no-such-flag"}, false},
		{[]string{"--worker=false"}, true},
	} {
		if got := beamFlags(c.args); got != c.want {
			t.Errorf("beamFlags(%q) = %v, want %v", c.args, got, c.want)
		}
	}
	for _, help := range []string{"-h", "--help", "help"} {
		if code, stdout, _ := runCmd(help); code != 0 || !strings.Contains(stdout, "Usage: rff-beam fit") {
			t.Errorf("%s: exit %d, stdout %q", help, code, stdout)
		}
	}
	if code, _, stderr := runCmd("--no-such-flag"); code != 2 || strings.Count(stderr, "\n") != 1 {
		t.Errorf("--no-such-flag: exit %d, stderr %q", code, stderr)
	}
}
