package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
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
		{[]string{"fit", "--input", glob, "--out", out, "--worker-memory", "-5GiB"}, "the only negative budget is -1"},
		{[]string{"fit", "--input", glob, "--out", out, "--max-memory", "-0.5"}, "the only negative budget is -1"},
		{[]string{"fit", "--input", glob, "--out", out, "--worker-memory", "1e30"}, "2^63 bytes or more"},
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

// Flags the fit would ignore, and bandwidths rff fit refuses, are refused in one line naming the flag, in the
// words of rff fit, before anything runs.
func TestIgnoredFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	glob := writeShards(t, dir, 100, "")
	out := filepath.Join(dir, "m.rff")
	t.Cleanup(func() { // Beam's flags are the process's
		flag.CommandLine.Set("temp_location", "")
		flag.CommandLine.Set("num_workers", "0")
	})
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"encoding", []string{"--encoding", "simplex"}, "--encoding codes the classes of --task classification"},
		{"max classes", []string{"--max-classes", "5"}, "--max-classes bounds the classes of --task classification, not of --task regression; leave it out"},
		{"negative max classes", []string{"--task", "classification", "--max-classes", "-1"}, "--max-classes must be 0 (the default limit) or at least 2 (a classifier needs two classes), got -1"},
		{"one class", []string{"--task", "classification", "--max-classes", "1"}, "--max-classes must be 0 (the default limit) or at least 2"},
		{"negative λ, named by its flag", []string{"--lambda", "-1"}, "(--lambda)"},
		{"hermite", []string{"--task", "hermite", "--lambda", "0"}, "--task hermite: a distributed fit is regression or classification"},
		{"fallback never used", []string{"--rule", "orf", "--rule-fallback", "orf"}, "--rule-fallback replaces an SR rule that would round -D up too far; --rule orf draws exactly -D points, so leave --rule-fallback out"},
		{"fallback rounds", []string{"--rule-fallback", "sr-haar"}, "--rule-fallback sr-haar rounds -D as well; choose g, orf, sorf, qmc or gq"},
		{"unknown rule", []string{"--rule", "nope"}, `--rule: unknown rule "nope"`},
		{"arccos sigma", []string{"--kernel", "arccos1", "--sigma", "2"}, "--kernel arccos1 is scale-free: it takes no --sigma or --gamma"},
		{"arccos gamma", []string{"--kernel", "arccos0", "--gamma", "2"}, "--kernel arccos0 is scale-free: it takes no --sigma or --gamma"},
		{"temp location", []string{"--temp_location", "/x"}, "--temp_location is for remote runners; --runner prism runs in this process and ignores it"},
		{"dataflow flag", []string{"--num_workers", "3"}, "--num_workers is an option of the Dataflow runner; --runner prism ignores it: leave it out"},
		{"sigma 0", []string{"--sigma", "0"}, `invalid value "0" for flag -sigma: "0" is not a bandwidth (a positive number, or auto)`},
		{"sigma negative", []string{"--sigma", "-1"}, `"-1" is not a bandwidth (a positive number, or auto)`},
		{"sigma tiny", []string{"--sigma", "1e-200"}, `"1e-200" is too small a bandwidth: σ must be at least 3.05e-151 (below it σ² underflows), or auto`},
		{"gamma 0", []string{"--gamma", "0"}, `invalid value "0" for flag -gamma: "0" is not a γ (a positive number, or auto)`},
		{"gamma huge", []string{"--gamma", "1e308"}, `"1e308" is too large a γ: σ = 1/√(2γ) = 0 is below 3.05e-151; give γ ≤ 5.36e+300 (or --sigma)`},
		{"sigma and gamma", []string{"--sigma", "auto", "--gamma", "1"}, "give --sigma or --gamma, not both"},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			refused(t, c.want, append([]string{"fit", "--input", glob, "--out", out, "-D", "8"}, c.args...)...)
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Error("a refused fit wrote its model")
			}
		})
	}
	// What rff fit accepts: a scale-free kernel without a bandwidth, or with --sigma auto.
	for _, args := range [][]string{{"--kernel", "arccos1"}, {"--kernel", "arccos0", "--sigma", "auto"}} {
		if code, _, stderr := runCmd(append([]string{"fit", "--input", glob, "--out", out, "-D", "8"}, args...)...); code != 0 {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}

// failingWriter fails every write, as stdout on a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// A failed write to stdout is an error: exit code 2 and one line, for a fit (whose model is written) and for the
// help.
func TestWriteFailure(t *testing.T) {
	dir := t.TempDir()
	glob := writeShards(t, dir, 100, "")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"fit", []string{"fit", "--input", glob, "--out", filepath.Join(dir, "m.rff"), "-D", "8", "--sigma", "1"}, "rff-beam fit: writing the output: no space left on device\n"},
		{"fit json", []string{"fit", "--input", glob, "--out", filepath.Join(dir, "m.rff"), "-D", "8", "--sigma", "1", "--json"}, "rff-beam fit: writing the output: no space left on device\n"},
		{"fit help", []string{"fit", "-h"}, "rff-beam fit: writing the output: no space left on device\n"},
		{"help", []string{"help"}, "rff-beam: writing the output: no space left on device\n"},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			var stderr bytes.Buffer
			if code := run(c.args, failingWriter{}, &stderr); code != 2 || stderr.String() != c.want {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), c.want)
			}
		})
	}
}

// Values too wide for floating point in a column are refused in rff's one line naming the column, without the
// runner's account of the failed bundle.
func TestWideValues(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "part-0.csv"), []byte("a,b,y\n1e308,1,2\n-1e308,2,3\n5,3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "part-1.csv"), []byte("a,b,y\n1,1,2\n2,2,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd("fit", "--input", filepath.Join(dir, "part-*"), "--out", filepath.Join(dir, "m.rff"), "-D", "8", "--sigma", "1")
	want := "rff-beam fit: preprocess: standardize: column 1 spans too wide a range for floating point (its mean, spread or range overflows); divide by a power of ten first\n"
	if code != 2 || stderr != want {
		t.Errorf("exit %d, stderr %q; want %q", code, stderr, want)
	}
}

// A value rff fit refuses as too large for the statistics — an input after the preprocessing, a regression target —
// is refused in one line naming its file, line and column, with rff fit's words, and exit code 2.
func TestMagnitudes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "part-0.csv"), []byte("a,b,y\n1,2,3\n2,1e200,4\n3,5,6\n4,1,2e200\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "part-1.csv"), []byte("a,b,y\n5,2,3\n6,1,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	input, part0 := filepath.Join(dir, "part-*"), filepath.Join(dir, "part-0.csv")
	for _, c := range []struct {
		pre, want string
	}{
		{"none", part0 + ":3: column 2 (b) is 1e+200 after preprocessing: too large for the kernel (|ωᵀx| would overflow); rescale it or standardize the inputs"},
		{"minmax", part0 + ":5: target y is 2e+200: too large for the ridge statistics (sums of its square would overflow); rescale the targets"},
	} {
		code, _, stderr := runCmd("fit", "--input", input, "--out", filepath.Join(dir, "m.rff"), "-D", "8", "--sigma", "1", "--preprocess", c.pre)
		if want := "rff-beam fit: " + c.want + "\n"; code != 2 || stderr != want {
			t.Errorf("--preprocess %s: exit %d, stderr %q; want %q", c.pre, code, stderr, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "m.rff")); !os.IsNotExist(err) {
		t.Error("a refused fit wrote its model")
	}
}

// TestSignalHelper is the process TestSignalRemovesTemps signals: with RFFBEAM_SIGNAL_ARGS set it installs the
// handler of main and runs the command line they hold (tab-separated).
func TestSignalHelper(t *testing.T) {
	args := os.Getenv("RFFBEAM_SIGNAL_ARGS")
	if args == "" {
		t.Skip("the process TestSignalRemovesTemps starts")
	}
	removeTempsOnSignal("fit")
	exit(run(strings.Split(args, "\t"), os.Stdout, os.Stderr))
}

// TestSignalRemovesTemps: SIGINT or SIGTERM during a fit ends rff-beam with 128 + the signal's number and one line,
// leaving nothing in the temporary directory (the passes' results, prism's worker files) and no model.
func TestSignalRemovesTemps(t *testing.T) {
	dir := t.TempDir()
	writeBig(t, dir)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			out := filepath.Join(dir, "m.rff")
			cmd := exec.Command(os.Args[0], "-test.run=^TestSignalHelper$")
			args := []string{"fit", "--input", filepath.Join(dir, "big-*.csv"), "--out", out, "-D", "1500", "--sigma", "1"}
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "RFFBEAM_SIGNAL_ARGS="+strings.Join(args, "\t"))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Once the first pass has left its result in the fit's directory, inside the command's, the second runs
			// for seconds.
			deadline := time.Now().Add(time.Minute)
			for {
				runs, _ := filepath.Glob(filepath.Join(tmp, "rff-beam-*", "rff-beam-*", "pass1"))
				if len(runs) > 0 {
					time.Sleep(200 * time.Millisecond)
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("no run directory after a minute; stderr %q", stderr.String())
				}
				time.Sleep(5 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 128+int(sig) {
				t.Errorf("%v, want exit code %d", err, 128+int(sig))
			}
			if got := stderr.String(); got != "rff-beam fit: interrupted ("+sig.String()+")\n" {
				t.Errorf("stderr %q", got)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("left in the temporary directory: %v", left)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("an interrupted fit wrote its model: %v", err)
			}
		})
	}
}

// writeBig writes two files of 10000 rows of 4 inputs, big-0.csv and big-1.csv: a fit with -D 1500 on them takes
// seconds.
func writeBig(t *testing.T, dir string) {
	t.Helper()
	for k := range 2 {
		var b bytes.Buffer
		b.WriteString("a,b,c,d,y\n")
		for i := range 10000 {
			x := float64(k*10000 + i)
			fmt.Fprintf(&b, "%.6g,%.6g,%.6g,%.6g,%.6g\n", math.Sin(x), math.Cos(2*x), math.Sin(3*x), math.Cos(5*x), math.Sin(x)*math.Cos(2*x))
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("big-%d.csv", k)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// prism runs a bundle per file at once (up to 8) whatever --bundles says: a refusal over --worker-memory must not
// advise lowering --bundles there, which changes neither the estimate nor the memory used; on two files
// --bundles 3 counts a third bundle prism never runs, and lowering it does help.
func TestWorkerMemoryAdvice(t *testing.T) {
	dir := t.TempDir()
	glob := writeShards(t, dir, 100, "")
	out := filepath.Join(dir, "m.rff")
	for _, c := range []struct {
		bundles     string
		wantBundles bool
	}{
		{"1", false},
		{"2", false},
		{"3", true},
	} {
		code, _, stderr := runCmd("fit", "--input", glob, "--out", out, "-D", "8192", "--worker-memory", "64MiB", "--bundles", c.bundles)
		if code != 2 || !strings.Contains(stderr, "over --worker-memory 64 MiB; lower -D") || strings.Contains(stderr, "--bundles") != c.wantBundles {
			t.Errorf("--bundles %s on prism with 2 files: exit %d, %q; want advice naming --bundles: %v", c.bundles, code, stderr, c.wantBundles)
		}
	}
}

// A failed write to stdout leaves the existing model as it was: the model is staged and replaced only after what
// the command prints was written in full, so that a failure leaves no output changed.
func TestWriteFailureKeepsModel(t *testing.T) {
	dir := t.TempDir()
	glob := writeShards(t, dir, 100, "")
	out := filepath.Join(dir, "p.rff")
	for _, json := range []bool{false, true} {
		if err := os.WriteFile(out, []byte("precious\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"fit", "--input", glob, "--out", out, "-D", "8", "--sigma", "2"}
		if json {
			args = append(args, "--json")
		}
		var stderr bytes.Buffer
		code := run(args, failingWriter{}, &stderr)
		if b, err := os.ReadFile(out); code != 2 || err != nil || string(b) != "precious\n" {
			t.Errorf("--json %v: exit %d (%s); the existing model became %.20q (%v)", json, code, stderr.String(), b, err)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
			t.Errorf("--json %v: temporary files left behind: %v", json, left)
		}
	}
}

// Sizes near the largest int are refused by the memory check, in one line that prints no wrapped-around size:
// the estimate saturates rather than overflowing past the budget.
func TestHugeSizesRefused(t *testing.T) {
	dir := t.TempDir()
	glob := writeShards(t, dir, 100, "")
	out := filepath.Join(dir, "m.rff")
	for _, args := range [][]string{
		{"--batch-rows", "9223372036854774783", "-D", "8"},
		{"--batch-rows", "9223372036854775807", "-D", "8"},
		{"-D", "9223372036854775807"},
	} {
		code, _, stderr := runCmd(append([]string{"fit", "--input", glob, "--out", out, "--sigma", "2"}, args...)...)
		if code != 2 || !strings.Contains(stderr, "over --worker-memory") || strings.Contains(stderr, " B each") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want one line refusing the fit over --worker-memory", args, code, stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("a refused fit wrote its model")
	}
}

// Refusals name the flags of this command that fix them — never a library field (MaxClasses), a tuning option it
// does not have (Tune, CV) or a bare symbol (λ) — and a data set whose every row was skipped says how many were.
func TestMessagesNameFlags(t *testing.T) {
	dir := t.TempDir()
	glob := writeShards(t, dir, 100, "")
	allBad := filepath.Join(dir, "bad")
	if err := os.Mkdir(allBad, 0o755); err != nil {
		t.Fatal(err)
	}
	badGlob := writeShards(t, allBad, 0, "1,2,x,4\n")
	out := filepath.Join(dir, "m.rff")
	for _, c := range []struct {
		name      string
		args      []string
		want, not string
	}{
		{"too many classes", []string{"--input", glob, "--task", "classification", "--max-classes", "5", "-D", "8", "--sigma", "1"}, "raise --max-classes", "class limit"},
		{"singular system", []string{"--input", glob, "--lambda", "0", "-D", "128", "--sigma", "1"}, "raise --lambda", "increase λ"},
		{"uncertainty without λ", []string{"--input", glob, "--lambda", "0", "--uncertainty", "-D", "8", "--sigma", "1"}, "--lambda", "Tune or CV"},
		{"every row skipped", []string{"--input", badGlob, "--skip-bad-rows", "-D", "8", "--sigma", "1"}, `no data rows (1 bad row skipped; the first: ` + filepath.Join(allBad, "part-0.csv") + `:2: column 3: "x" is not a number)`, "\x00"},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			code, _, stderr := runCmd(append([]string{"fit", "--out", out}, c.args...)...)
			if code != 2 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, c.not) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, %q; want one line with %q and without %q", code, stderr, c.want, c.not)
			}
		})
	}
}
