package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"

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

// refused runs rff-beam with args and checks that it is refused with exit code 2 and one line on stderr holding
// want.
func refused(t *testing.T, want string, args ...string) {
	t.Helper()
	code, _, stderr := runCmd(args...)
	if code != 2 || !strings.Contains(stderr, want) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("%v: exit %d, stderr %q; want one line with %q", args, code, stderr, want)
	}
}

// An --out that is an input file by another name — a symbolic link, a hard link, a path through a linked
// directory — or a directory is refused, and the input is left as it was.
func TestOutputIsAnInput(t *testing.T) {
	dir := t.TempDir()
	glob := writeShards(t, dir, 100, "")
	part0 := filepath.Join(dir, "part-0.csv")
	before, err := os.ReadFile(part0)
	if err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	link, hard, linkedDir := filepath.Join(other, "link.csv"), filepath.Join(other, "hard.csv"), filepath.Join(other, "data")
	if err := os.Symlink(part0, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Link(part0, hard); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, linkedDir); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{link, hard, filepath.Join(linkedDir, "part-0.csv")} {
		refused(t, "--out "+out+" is also an input file ("+part0+"); choose another output path",
			"fit", "--input", glob, "--out", out, "-D", "8", "--sigma", "1")
	}
	// The inputs are the files the glob matches, whatever path leads to them.
	refused(t, "--out "+part0+" is also an input file ("+filepath.Join(linkedDir, "part-0.csv")+")",
		"fit", "--input", filepath.Join(linkedDir, "part-*"), "--out", part0, "-D", "8", "--sigma", "1")
	refused(t, "--out "+other+" is a directory; name a file in it", "fit", "--input", glob, "--out", other, "-D", "8", "--sigma", "1")
	if after, err := os.ReadFile(part0); err != nil || !bytes.Equal(after, before) {
		t.Fatalf("the input was changed: %v", err)
	}
	// A link to another file is an output like any other.
	elsewhere := filepath.Join(other, "model.rff")
	if err := os.WriteFile(elsewhere, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(other, "m.rff")); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCmd("fit", "--input", glob, "--out", filepath.Join(other, "m.rff"), "-D", "8", "--sigma", "1"); code != 0 {
		t.Errorf("an output linked to another file: exit %d, %s", code, stderr)
	}
}

// --temp-dir must be a directory, or a new one in an existing directory, which the fit removes at the end: it is
// checked before anything runs, and a refused one is not created.
func TestTempDirFlag(t *testing.T) {
	dir := t.TempDir()
	glob := writeShards(t, dir, 100, "")
	out := filepath.Join(dir, "m.rff")
	missing := filepath.Join(dir, "missing", "tmp")
	refused(t, "--temp-dir "+missing+": the directory "+filepath.Join(dir, "missing")+" does not exist; create it, or choose another --temp-dir",
		"fit", "--input", glob, "--out", out, "--temp-dir", missing)
	if _, err := os.Stat(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("a refused --temp-dir was created: %v", err)
	}
	part0 := filepath.Join(dir, "part-0.csv")
	refused(t, "--temp-dir "+part0+" is not a directory; name a directory, or a new one in an existing directory",
		"fit", "--input", glob, "--out", out, "--temp-dir", part0)
	refused(t, "--temp-dir "+filepath.Join(part0, "tmp")+": "+part0+" is not a directory; choose another --temp-dir",
		"fit", "--input", glob, "--out", out, "--temp-dir", filepath.Join(part0, "tmp"))
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("a refused fit wrote its model")
	}
	tmp := filepath.Join(t.TempDir(), "new")
	if code, _, stderr := runCmd("fit", "--input", glob, "--out", out, "-D", "8", "--sigma", "1", "--temp-dir", tmp); code != 0 {
		t.Fatalf("a new --temp-dir: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the --temp-dir the fit created was left behind: %v", err)
	}
}

// An unknown --runner is named, with the runners there are; every runner named is registered.
func TestRunnerFlag(t *testing.T) {
	dir := t.TempDir()
	glob := writeShards(t, dir, 100, "")
	t.Cleanup(func() { *runners.Runner = "" }) // Beam's flags are the process's
	refused(t, "--runner nope: unknown runner; the runners are prism (the default), direct, dataflow, flink, spark and universal",
		"fit", "--input", glob, "--out", filepath.Join(dir, "m.rff"), "--runner", "nope")
	for _, name := range append(slices.Clone(runnerNames), runnerAliases...) {
		func() {
			defer func() {
				if recover() == nil { // beam.RegisterRunner panics on a name already registered
					t.Errorf("runner %s is not registered", name)
				}
			}()
			beam.RegisterRunner(name, nil)
		}()
	}
}

// A named pipe among the inputs is refused in one line, instead of blocking the fit forever.
func TestInputNamedPipe(t *testing.T) {
	dir := t.TempDir()
	glob := writeShards(t, dir, 100, "")
	fifo := filepath.Join(dir, "part-2.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		refused(t, "--input "+glob+": "+fifo+" is a named pipe, not a regular file", "fit", "--input", glob, "--out", filepath.Join(dir, "m.rff"), "-D", "8", "--sigma", "1")
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("rff-beam fit blocked on a named pipe")
	}
}
