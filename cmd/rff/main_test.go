package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/cliflag"
	"github.com/rffkit/rff/internal/datadir"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// writeCSV writes a small dataset with a header and a target column.
func writeCSV(t *testing.T, n, d int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 1))
	var b strings.Builder
	for j := 0; j < d; j++ {
		fmt.Fprintf(&b, "f%d,", j+1)
	}
	b.WriteString("y\n")
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			fmt.Fprintf(&b, "%.6f,", rng.NormFloat64())
		}
		fmt.Fprintf(&b, "%d\n", rng.IntN(3))
	}
	p := filepath.Join(t.TempDir(), "small.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDemo(t *testing.T) {
	code, out, errOut := runCLI("demo", "--runs", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"kernel gaussian", "kernel arccos1", "sr-butterfly", "sr-haar", "sorf", "n=3 (D=54)", "exact kernel ridge", "ridge on sr-butterfly features"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

func TestApproxJSONAndPlot(t *testing.T) {
	data := writeCSV(t, 80, 3)
	plot := filepath.Join(t.TempDir(), "fig.png")
	code, out, errOut := runCLI("approx", "--data", data, "--rules", "g,sr-butterfly", "--n", "1,2", "--runs", "3",
		"--samples", "40", "--json", "--plot", plot)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep studyReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	if rep.Dataset != "small.csv" || rep.Dim != 3 || rep.Kernel != "gaussian" || len(rep.Results) != 4 {
		t.Errorf("report: %+v", rep)
	}
	if rep.Gamma == nil || math.Abs(*rep.Gamma-1.0/3) > 1e-15 {
		t.Errorf("default γ must be 1/d, got %v", *rep.Gamma)
	}
	r := rep.Results[2]
	if r.Rule != "sr-butterfly" || r.N != 1 || r.D != 8 || r.Runs != 3 || !(r.CI95[0] <= r.Mean && r.Mean <= r.CI95[1]) {
		t.Errorf("result: %+v", r)
	}
	for _, p := range []string{plot, strings.TrimSuffix(plot, ".png") + ".csv"} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", p, err)
		}
	}
	// Table output, another kernel and target handling.
	code, out, errOut = runCLI("approx", "--data", data, "--kernel", "arccos0", "--rules", "orf", "--n", "1", "--runs", "2", "--samples", "30", "--target", "none")
	if code != 0 || !strings.Contains(out, "d = 4") || !strings.Contains(out, "scale-free") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
}

// TestErrorsAreOneLine: every command-line error is one line on stderr and exit code 2.
func TestErrorsAreOneLine(t *testing.T) {
	data := writeCSV(t, 20, 2)
	bad := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(bad, []byte("a,b\n1,2\n3,x\n"), 0o644)
	cases := [][]string{
		{"nope"},
		{"approx"},
		{"approx", "--data", "/does/not/exist.csv"},
		{"approx", "--data", bad},
		{"approx", "--data", data, "--kernel", "poly"},
		{"approx", "--data", data, "--rules", "xyz"},
		{"approx", "--data", data, "--n", "0"},
		{"approx", "--data", data, "--runs", "0"},
		{"approx", "--data", data, "--samples", "1000"},
		{"approx", "--data", data, "--sigma", "1", "--gamma", "1"},
		{"approx", "--data", data, "--sigma", "-1"},
		{"approx", "--data", data, "--plot", "x.gif"},
		{"approx", "--data", data, "--bogus"},
		{"approx", "--data", data, "--format", "xls"},
		{"approx", "--data", data, "--preprocess", "whiten"},
		{"approx", "--data", data, "--target", "zzz"},
		{"approx", "--data", data, "stray"},
		{"demo", "--runs", "0"},
		{"demo", "--runs", "1000000000"}, // refused by the memory estimate, before the study allocates it
	}
	for _, c := range cases {
		code, out, errOut := runCLI(c...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", c, code)
		}
		if strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "rff") {
			t.Errorf("%v: stderr must be one line starting with rff, got %q", c, errOut)
		}
		if out != "" {
			t.Errorf("%v: nothing may be printed on stdout, got %q", c, out)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"approx", "-h"}, {"demo", "--help"}} {
		if code, out, _ := runCLI(args...); code != 0 || out == "" {
			t.Errorf("%v: exit %d, output %q", args, code, out)
		}
	}
	// No command is a usage error: the usage on stderr, nothing on stdout, exit 2.
	if code, out, errOut := runCLI(); code != 2 || out != "" || !strings.Contains(errOut, "Usage: rff <command>") {
		t.Errorf("no command: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, _ := runCLI("help", "fit"); code != 0 || !strings.HasPrefix(out, "Usage: rff fit") {
		t.Errorf("help fit: exit %d, %q", code, out)
	}
	for _, args := range [][]string{{"help", "bogus"}, {"help", "fit", "approx"}} {
		if code, out, errOut := runCLI(args...); code != 2 || out != "" || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	code, out, _ := runCLI("version", "--json")
	var v map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v["backend"] == nil {
		t.Errorf("version --json: %d %q", code, out)
	}
}

func TestRepro(t *testing.T) {
	for _, c := range [][]string{
		{"repro"},
		{"repro", "quad-fig9"},
		{"repro", "quad-fig2", "--datasets", "cifar"},
		{"repro", "quad-fig2", "--rules", "zzz"},
		{"repro", "quad-fig2", "--runs", "0"},
		{"repro", "quad-fig2", "--data-dir", t.TempDir(), "--out", t.TempDir()}, // no data there
	} {
		code, out, errOut := runCLI(c...)
		if code != 2 || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q", c, code, errOut, out)
		}
	}
	if code, out, _ := runCLI("repro", "-h"); code != 0 || !strings.Contains(out, "quad-fig2") {
		t.Errorf("repro -h: exit %d, %q", code, out)
	}
	if _, ok := datadir.Path("powerplant"); !ok {
		t.Skip("no Powerplant data in " + datadir.Dir())
	}
	dir := t.TempDir()
	code, out, errOut := runCLI("repro", "quad-fig2", "--data-dir", datadir.Dir(), "--out", dir,
		"--datasets", "powerplant", "--kernels", "gaussian", "--rules", "g", "--n", "1", "--runs", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Figures []string
		Scores  []struct{ Mean float64 }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Figures) != 1 || len(rep.Scores) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	// Ridge on 10 Gaussian random features of the 4 standardized Powerplant inputs explains most of the variance
	// (a linear model on the inputs alone reaches R² ≈ 0.93); R² below 0.8 means the pipeline is broken.
	if rep.Scores[0].Mean < 0.8 {
		t.Errorf("powerplant R² %g", rep.Scores[0].Mean)
	}
}

func TestBoundCommand(t *testing.T) {
	code, out, errOut := runCLI("bound", "--theorem", "ss-linf", "--d", "5", "--diameter", "2", "--eps", "0.1", "--delta", "0.05", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var g struct {
		Theorem string
		M       int
		Eps     float64
		Inputs  map[string]float64
	}
	if err := json.Unmarshal([]byte(out), &g); err != nil {
		t.Fatal(err)
	}
	// Theorem 1 inverted by hand: h = 32√(2d log(2|S|+1)) + 32√(2d log(σ+1)) + 16√(2d/log(2|S|+1)) with σ² = E‖ω‖² =
	// d/σ_k² = 2 (σ_k² = d/2), and m = ⌈((h + √(2 log(1/δ)))/ε)²⌉.
	d, S := 5.0, 2.0
	h := 32*math.Sqrt(2*d*math.Log(2*S+1)) + 32*math.Sqrt(2*d*math.Log(math.Sqrt(2)+1)) + 16*math.Sqrt(2*d/math.Log(2*S+1))
	want := int(math.Ceil(math.Pow((h+math.Sqrt(2*math.Log(20)))/0.1, 2)))
	if g.Theorem != "ss-linf" || g.M < want-1 || g.M > want+1 {
		t.Errorf("m = %d, want %d (±1 for rounding)", g.M, want)
	}
	code, out, errOut = runCLI("bound", "--theorem", "orff", "--d", "4", "--diameter", "2", "-D", "1000", "--sigma", "1")
	if code != 0 || !strings.Contains(out, "Theorem 10") {
		t.Errorf("orff: exit %d %s %s", code, out, errOut)
	}
	for _, c := range [][]string{
		{"bound", "--theorem", "zz", "--d", "1", "--diameter", "1", "-D", "3"},
		{"bound", "--d", "1", "--diameter", "1"},                            // neither ε nor D
		{"bound", "--d", "1", "--diameter", "1", "-D", "3", "--eps", "0.1"}, // both
		{"bound", "--d", "0", "--diameter", "1", "-D", "3"},                 // bad d
		{"bound", "--d", "1", "--diameter", "1", "-D", "3", "--delta", "2"}, // bad δ
		{"bound", "--theorem", "ss-deriv", "--d", "2", "--diameter", "1", "-D", "3", "--p", "1,x"},
	} {
		if code, out, errOut := runCLI(c...); code != 2 || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q", c, code, errOut, out)
		}
	}
}

func TestGenerateCommand(t *testing.T) {
	code, out, errOut := runCLI("generate", "curl-field", "--n", "4", "--seed", "3")
	if code != 0 || !strings.HasPrefix(out, "x1,x2,x3,x4,x5,y1,y2,y3,y4,y5\n") || strings.Count(out, "\n") != 5 {
		t.Errorf("curl-field: exit %d %s: %q", code, errOut, out)
	}
	path := filepath.Join(t.TempDir(), "mt.csv")
	if code, _, errOut := runCLI("generate", "multitask", "--n", "3", "--out", path); code != 0 {
		t.Fatal(errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(b), "x1,") || !strings.Contains(strings.SplitN(string(b), "\n", 2)[0], ",y4") {
		t.Errorf("multitask file: %v %q", err, b)
	}
	for _, c := range [][]string{{"generate"}, {"generate", "spiral"}, {"generate", "curl-field", "--n", "-1"}} {
		if code, out, errOut := runCLI(c...); code != 2 || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q", c, code, errOut, out)
		}
	}
}

func TestApproxOVK(t *testing.T) {
	code, out, errOut := runCLI("approx", "--ovk", "div-free", "--rules", "g", "--Ds", "50,5000", "--runs", "2", "--samples", "50", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Results []struct {
			D    int
			Mean float64
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Results) != 2 {
		t.Fatalf("%v: %s", err, out)
	}
	// The error is O(1/√D): 100× more points give about 10× less error; 3× is a wide margin for 2 runs.
	if r := rep.Results[0].Mean / rep.Results[1].Mean; r < 3 {
		t.Errorf("error ratio D=50 vs D=5000 is %.2f, want ≈ 10", r)
	}
	for _, c := range [][]string{
		{"approx", "--ovk", "spiral"},
		{"approx", "--ovk", "curl-free", "--Ds", "0"},
		{"approx", "--ovk", "curl-free", "--dim", "0"},
	} {
		if code, out, errOut := runCLI(c...); code != 2 || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q", c, code, errOut, out)
		}
	}
}

// TestIgnoredFlagsRefused: a flag the chosen mode would ignore, or a bandwidth of 0 (once taken for auto), is refused
// in one line that names it, rather than the command running without it.
func TestIgnoredFlagsRefused(t *testing.T) {
	data := writeCSV(t, 40, 2)
	out := filepath.Join(t.TempDir(), "m.rff")
	fit := []string{"fit", "--data", data, "--out", out, "-D", "8"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(fit, "--tune", "--sigma", "1"), "--tune chooses σ"},
		{append(fit, "--tune", "--gamma", "0.5"), "--tune chooses σ"},
		{append(fit, "--tune", "--lambda", "1e-3"), "leave out --lambda"},
		{append(fit, "--cv", "3", "--lambda", "1e-3"), "leave out --lambda"},
		{append(fit, "--lambdas", "1e-3,1e-2"), "--lambdas is the λ grid of --cv and --tune"},
		{append(fit, "--select", "gcv"), "--select belongs to --tune"},
		{append(fit, "--tune-rows", "10"), "--tune-rows belongs to --tune"},
		{append(fit, "--tune-points", "4"), "--tune-points belongs to --tune"},
		{append(fit, "--tune", "--tune-points", "-1"), "--tune-points must be a number of points ≥ 1 (or 0 for the default"},
		{append(fit, "--max-classes", "-1"), "--max-classes must be 0 (the default limit) or at least 2"},
		{append(fit, "--max-classes", "1"), "--max-classes must be 0 (the default limit) or at least 2"},
		{append(fit, "--max-iter", "-1"), "--max-iter must be ≥ 0"},
		{append(fit, "--max-iter", "10"), "--max-iter bounds the iterations of --loss hinge, squared-hinge or logistic"},
		{append(fit, "--loss", "ridge", "--max-iter", "10"), "--max-iter bounds the iterations of --loss hinge"},
		{append(fit, "--test-labels", data), "--test-labels belongs to --test-data"},
		{append(fit, "--encoding", "simplex"), "--encoding codes the classes"},
		{append(fit, "--sigma", "0"), `"0" is not a bandwidth`},
		{append(fit, "--gamma", "0"), `"0" is not a γ`},
		{append(fit, "--lambda", "1e-400"), "1e-400 is below the smallest positive λ, 5e-324, and would be 0"},
		{append(fit, "-D", "64", "--lambda", "0"), "--lambda 0: the ridge system ZᵀZ + NλI is not positive definite at this λ"},
		{append(fit, "--lambda", "x"), `--lambda x: not a number`},
		{[]string{"approx", "--data", data, "--Ds", "10"}, "--Ds and --dim belong to --ovk"},
		{[]string{"approx", "--ovk", "curl-free", "--n", "2"}, "--ovk measures the error at the -D of --Ds"},
		{[]string{"approx", "--ovk", "curl-free", "--data", data, "--dim", "3"}, "--dim is the dimension of the pairs"},
		{[]string{"approx", "--data", data, "--sigma", "0"}, `"0" is not a bandwidth`},
		{[]string{"bound", "--d", "2", "--diameter", "1", "-D", "100", "--sigma", "0"}, "--sigma must be a positive bandwidth"},
		{[]string{"bound", "--d", "2", "--diameter", "1", "-D", "100", "--nu", "1.5"}, "--nu is the smoothness of --kernel matern"},
		{[]string{"bound", "--d", "2", "--diameter", "1", "-D", "100", "--r", "3"}, "--r is the exponent"},
		{[]string{"generate", "--n", "10", "curl-field"}, "name the generator before the flags: rff generate curl-field --n 10"},
	} {
		code, stdout, stderr := runCLI(c.args...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one line with %q", c.args, code, stdout, stderr, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused fit wrote its model")
	}
}

// failWriter fails every write, as a full disk or a closed pipe does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestStdoutWriteError: a command whose output cannot be written exits 2 with one line that says so, whether or not
// it checks its own writes.
func TestStdoutWriteError(t *testing.T) {
	for _, args := range [][]string{
		{"version"},
		{"bound", "--d", "2", "--diameter", "1", "-D", "100"},
		{"generate", "multitask", "--n", "5"},
		{"info", "--model", "../../testdata/v2/ridge-sr.rff"},
	} {
		var e bytes.Buffer
		code := run(args, failWriter{}, &e)
		if code != 2 || strings.Count(e.String(), "\n") != 1 || !strings.Contains(e.String(), "no space left") {
			t.Errorf("%v: exit %d, stderr %q", args, code, e.String())
		}
	}
}

// TestMessagesNameTheInput: refusals that used to quote a library function or a Go field name now say which flag or
// input is wrong.
func TestMessagesNameTheInput(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, 30, 2)
	one := filepath.Join(dir, "one.csv")
	os.WriteFile(one, []byte("a,b,y\n0.5,1.5,2.5\n"), 0o644)
	multi := filepath.Join(dir, "multi.csv")
	os.WriteFile(multi, []byte("x1,x2,y1,y2\n0.5,1.5,2.5,3.5\n1.5,0.5,3.5,2.5\n"), 0o644)
	out := filepath.Join(dir, "m.rff")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fit", "--data", data, "--out", out, "-D", "2000000000"}, "points D = 2000000000 in dimension 2 are too many"},
		{[]string{"fit", "--data", data, "--out", out, "-D", "8", "--cv", "31"}, "31-fold cross-validation needs at least 31 rows, have 30"},
		{[]string{"fit", "--data", one, "--out", out, "-D", "8"}, "the median heuristic for σ needs at least 2 rows, have 1"},
		{[]string{"fit", "--data", multi, "--out", out, "-D", "8", "--target", "none", "--ovk", "curl-free"}, "--ovk curl-free needs --targets"},
		{[]string{"serve", "--models", dir, "--max-rows", "0"}, "--max-rows must be ≥ 1, got 0"},
		{[]string{"serve", "--models", dir, "--max-queue", "-2"}, "--max-queue must be ≥ -1"},
		{[]string{"serve", "--models", dir, "--shutdown-delay", "-1s"}, "--shutdown-delay must be ≥ 0"},
		{[]string{"serve", "--models", dir, "--watch-interval", "5s"}, "--watch-interval is the polling interval of --watch"},
		{[]string{"predict", "--model", "../../testdata/v2/ridge-sr.rff", "--data", data, "--seed", "3"}, "--seed seeds the posterior samples of --samples K"},
	} {
		code, stdout, stderr := runCLI(c.args...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one line with %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// TestModelOverBudget: a model file larger than the memory budget is refused before it is read, and a file that is
// not a model file (zeros, or /dev/zero, which never ends) once its first bytes are read.
func TestModelOverBudget(t *testing.T) {
	dir := t.TempDir()
	head, err := os.ReadFile(filepath.Join("..", "..", "testdata", "v2", "ridge-sr.rff"))
	if err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.rff")
	if err := os.WriteFile(big, append(head[:16:16], make([]byte, 3<<20-16)...), 0o644); err != nil {
		t.Fatal(err)
	}
	exact := filepath.Join(dir, "exact.rff") // one byte over the budget: rounded alike, so said in bytes
	if err := os.WriteFile(exact, append(head[:16:16], make([]byte, 1<<20+1-16)...), 0o644); err != nil {
		t.Fatal(err)
	}
	zeros := filepath.Join(dir, "zeros.rff")
	if err := os.WriteFile(zeros, make([]byte, 3<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	data := writeCSV(t, 10, 2)
	for _, cmd := range []string{"predict", "eval"} {
		for _, c := range []struct{ model, want string }{
			{big, "--model " + big + " is 3 MiB, over the memory budget of 1 MiB"},
			{zeros, zeros + ": not an rff model file"},
			{"/dev/zero", "/dev/zero: not an rff model file"},
			{exact, "--model " + exact + " is 1048577 bytes, over the memory budget of 1048576 bytes"},
		} {
			if _, err := os.Stat(c.model); err != nil {
				continue // no /dev/zero here
			}
			code, out, errOut := runCLI(cmd, "--model", c.model, "--data", data, "--max-memory", "1MiB")
			if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
				t.Errorf("%s --model %s: exit %d, stderr %q; want %q", cmd, c.model, code, errOut, c.want)
			}
		}
	}
	// The file's length shows through the reader that counts its bytes: beyond the budget it is refused after its
	// first 16 bytes, not read up to the budget.
	fh, err := os.Open(big)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	cr := &countingReader{File: fh}
	if _, err := rff.ReadAtMost(cr, 1<<20); !errors.Is(err, rff.ErrTooLong) || cr.n != 16 {
		t.Errorf("ReadAtMost of a 3 MiB file under 1 MiB: %v after reading %d bytes, want ErrTooLong after 16", err, cr.n)
	}
}

// TestOutputsAllOrNothing: a command with several outputs replaces its files only when every output — the files and
// what it prints — was written in full: a stdout that fails, or an output device that does, leaves every existing
// file as it was and no temporary file beside it.
func TestOutputsAllOrNothing(t *testing.T) {
	data := writeCSV(t, 40, 2)
	_, noFull := os.Stat("/dev/full")
	for _, tc := range []struct {
		name     string
		args     func(dir string) []string
		files    []string // the files the command replaces
		failOut  bool     // stdout fails
		needFull bool
	}{
		{name: "fit: stdout fails after the model and report", failOut: true, files: []string{"m.rff", "r.html"},
			args: func(dir string) []string {
				return []string{"fit", "--data", data, "-D", "8", "--out", filepath.Join(dir, "m.rff"), "--report", filepath.Join(dir, "r.html")}
			}},
		{name: "fit --json: stdout fails", failOut: true, files: []string{"m.rff"},
			args: func(dir string) []string {
				return []string{"fit", "--data", data, "-D", "8", "--json", "--out", filepath.Join(dir, "m.rff")}
			}},
		{name: "fit: the model's device fails after the report", needFull: true, files: []string{"r.html"},
			args: func(dir string) []string {
				return []string{"fit", "--data", data, "-D", "8", "--out", "/dev/full", "--report", filepath.Join(dir, "r.html")}
			}},
		{name: "approx: stdout fails after the figure and its data", failOut: true, files: []string{"p.svg", "p.csv"},
			args: func(dir string) []string {
				return []string{"approx", "--data", data, "--n", "1", "--runs", "1", "--samples", "10", "--rules", "g", "--plot", filepath.Join(dir, "p.svg")}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needFull && noFull != nil {
				t.Skip("no /dev/full here")
			}
			dir := t.TempDir()
			for _, f := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var stdout io.Writer = io.Discard
			if tc.failOut {
				stdout = failWriter{}
			}
			var e bytes.Buffer
			if code := run(tc.args(dir), stdout, &e); code != 2 || strings.Count(e.String(), "\n") != 1 || !strings.Contains(e.String(), "no space left") {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line that says no space is left", code, e.String())
			}
			for _, f := range tc.files {
				if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != "old" {
					t.Errorf("%s was replaced (%d bytes)", f, len(b))
				}
			}
			if e, _ := os.ReadDir(dir); len(e) != len(tc.files) {
				t.Errorf("%d entries in the directory, want %d", len(e), len(tc.files))
			}
			// the same command with a working stdout replaces them all
			if code := run(tc.args(dir), io.Discard, &e); code != 0 && !tc.needFull {
				t.Fatalf("exit %d: %s", code, e.String())
			}
			for _, f := range tc.files {
				if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) == "old" && !tc.needFull {
					t.Errorf("%s was not written", f)
				}
			}
		})
	}
}

// TestMaxMemoryCappedAtMachine: --max-memory -1 (no limit) and a budget above the machine's memory and swap stand
// for that memory, so that a fit that needs more is refused in one line — which does not advise raising the flag —
// instead of ending in the Go runtime's fatal out-of-memory error.
func TestMaxMemoryCappedAtMachine(t *testing.T) {
	if dataset.MachineMemory() <= 0 {
		t.Skip("the machine's memory is not known here")
	}
	data := writeCSV(t, 30, 2)
	out := filepath.Join(t.TempDir(), "m.rff")
	for _, mem := range []string{"-1", "1000TiB"} {
		code, stdout, stderr := runCLI("fit", "--data", data, "--out", out, "-D", "2000000", "--max-memory", mem)
		want := "over the memory budget of " + rff.FormatBytes(dataset.MachineMemory()) + ": lower -D (the budget is all of this machine's memory and swap)"
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
			t.Errorf("--max-memory %s: exit %d, stdout %q, stderr %q; want one line with %q", mem, code, stdout, stderr, want)
		}
	}
	if code, _, stderr := runCLI("fit", "--data", data, "--out", out, "-D", "2000000", "--max-memory", "1GiB"); code != 2 || !strings.Contains(stderr, "lower -D or raise --max-memory") {
		t.Errorf("--max-memory 1GiB: exit %d, stderr %q", code, stderr)
	}
}

// TestJSONKeysSnakeCase: every key of the JSON the commands print is snake_case (lower-case letters, digits and
// underscores), at any depth — except the keys that are data: a class label, a column name.
func TestJSONKeysSnakeCase(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, 60, 2)
	model := filepath.Join(dir, "m.rff")
	snake := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if !snake.MatchString(k) {
					t.Errorf("key %q at %s is not snake_case", k, path)
				}
				walk(path+"."+k, x)
			}
		case []any:
			for _, x := range v {
				walk(path+"[]", x)
			}
		}
	}
	for _, args := range [][]string{
		{"fit", "--data", data, "--out", model, "-D", "8", "--cv", "3", "--lambdas", "1e-3,1e-2", "--json", "--test-data", data},
		{"fit", "--data", data, "--out", model, "-D", "8", "--tune", "--tune-points", "2", "--json"},
		{"fit", "--data", data, "--out", model, "--map", "nystrom", "--centres", "10", "--solver", "falkon", "--json"},
		{"fit", "--data", data, "--out", model, "-D", "8", "--task", "classification", "--json", "--test-data", data},
		{"fit", "--data", data, "--out", model, "--target", "none", "--ovk", "decomposable", "--targets", "f2,y", "-D", "8", "--json"},
		{"fit", "--data", data, "--out", model, "--target", "none", "--ovk", "decomposable", "--targets", "f2,y", "-D", "8", "--solver", "cg", "--lambda", "1e-2", "--json"},
		{"eval", "--model", model, "--data", data, "--json"},
		{"info", "--model", model, "--json"},
		{"approx", "--data", data, "--n", "1", "--runs", "1", "--samples", "10", "--rules", "g", "--json"},
		{"approx", "--ovk", "curl-free", "--Ds", "10", "--runs", "1", "--samples", "4", "--json"},
		{"bound", "--d", "2", "--diameter", "1", "-D", "100", "--json"},
		{"bound", "--theorem", "ss-deriv", "--d", "2", "--diameter", "1", "-D", "100", "--json"},
		{"bound", "--theorem", "ss-deriv-unbounded", "--d", "2", "--diameter", "1", "-D", "100", "--json"},
		{"bound", "--theorem", "quadrature", "--d", "2", "--diameter", "1", "-D", "100", "--json"},
		{"bound", "--theorem", "krr", "--lambda0", "0.1", "--d", "2", "--diameter", "1", "-D", "100", "--json"},
		{"bound", "--theorem", "orff", "--d", "2", "--diameter", "1", "-D", "100", "--json"},
		{"bound", "--theorem", "orff", "--ovk", "decomposable", "--norm-a", "2", "--d", "2", "--diameter", "1", "-D", "100", "--json"},
		{"version", "--json"},
		{"bench", "--json", "--quick", "--rules", "g", "--dims", "4"},
		{"repro", "orff-fig1a", "-D", "10,20", "--runs", "1", "--pairs", "4", "--points", "8", "--json", "--out", dir},
	} {
		code, out, errOut := runCLI(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		walk(strings.Join(args[:1], " "), v)
	}
}

// Library messages name rff.Config's fields ("Config.Lambda"); the command names the flags that set them, which
// rff fit has.
func TestMessagesNameFlags(t *testing.T) {
	code, out, _ := runCLI("fit", "-h")
	if code != 0 {
		t.Fatal("rff fit -h failed")
	}
	for _, f := range cliflag.ConfigFlags() {
		if !strings.Contains(out, "\n  -"+f+" ") && !strings.Contains(out, "\n  -"+f+"\n") {
			t.Errorf("rff fit has no flag -%s, which messages name", f)
		}
	}
	data := writeCSV(t, 30, 2)
	out2 := filepath.Join(t.TempDir(), "m.rff")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fit", "--data", data, "--out", out2, "-D", "8", "--kernel", "arccos1", "--lambda", "-1"}, "(--lambda)"},
		{[]string{"fit", "--data", data, "--out", out2, "-D", "8", "--tune", "--sigmas", "1,1e-300"}, "(--sigmas)"},
	} {
		code, _, errOut := runCLI(c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "Config.") {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, errOut, c.want)
		}
	}
}
