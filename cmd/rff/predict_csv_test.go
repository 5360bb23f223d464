package main

import (
	"encoding/csv"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
)

// TestPredictQuotesLabels: class labels holding a comma, a quote or a leading space are written as CSV fields
// (quoted), so the predictions read back as one label per row, equal to the classes of the training file.
func TestPredictQuotesLabels(t *testing.T) {
	dir := t.TempDir()
	labels := []string{"x,y", `say "hi"`, " lead", "plain"}
	var b strings.Builder
	b.WriteString("x1,x2,class\n")
	w := csv.NewWriter(&b)
	for i := range 40 {
		c := i % len(labels)
		_ = w.Write([]string{[]string{"0", "4", "8", "12"}[c], []string{"1", "5", "9", "13"}[c], labels[c]})
	}
	w.Flush()
	data := filepath.Join(dir, "odd.csv")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	model, out := filepath.Join(dir, "m.rff"), filepath.Join(dir, "p.csv")
	if code, _, errOut := runCLI("fit", "--data", data, "--task", "classification", "-D", "16", "--sigma", "1", "--out", model); code != 0 {
		t.Fatalf("fit: %s", errOut)
	}
	if code, _, errOut := runCLI("predict", "--model", model, "--data", data, "--out", out); code != 0 {
		t.Fatalf("predict: %s", errOut)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("the predictions are not CSV: %v", err)
	}
	if len(rows) != 41 || !slices.Equal(rows[0], []string{"label"}) {
		t.Fatalf("%d rows, header %q", len(rows), rows[0])
	}
	for i, r := range rows[1:] {
		if len(r) != 1 || r[0] != labels[i%len(labels)] {
			t.Errorf("row %d: %q, want [%q]", i+1, r, labels[i%len(labels)])
		}
	}
}

// TestPredictMemory: predict and eval refuse, before predicting and without writing anything, rows whose prediction
// would take more than the memory budget (here the feature blocks of a wide map: 256 rows × 6144 values per core,
// over 12 MiB), and the same command runs without a limit.
func TestPredictMemory(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, 2000, 3)
	model, out := filepath.Join(dir, "m.rff"), filepath.Join(dir, "p.csv")
	if code, _, errOut := runCLI("fit", "--data", data, "-D", "2048", "--sigma", "1", "--out", model); code != 0 {
		t.Fatalf("fit: %s", errOut)
	}
	for _, c := range []struct{ cmd, what string }{{"predict", "predicting"}, {"eval", "scoring"}} {
		args := []string{c.cmd, "--model", model, "--data", data, "--max-memory", "4MiB"}
		if c.cmd == "predict" {
			args = append(args, "--out", out)
		}
		code, stdout, errOut := runCLI(args...)
		want := "rff " + c.cmd + ": " + c.what + " 2000 rows needs about "
		if code != 2 || stdout != "" || !strings.HasPrefix(errOut, want) || !strings.Contains(errOut, "over the memory budget of 4 MiB") ||
			strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2 and one line %q…", c.cmd, code, stdout, errOut, want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: %s exists after the refusal (%v)", c.cmd, out, err)
		}
		if code, _, errOut := runCLI(c.cmd, "--model", model, "--data", data, "--max-memory", "-1"); code != 0 {
			t.Errorf("%s without a limit: %s", c.cmd, errOut)
		}
	}
}

// TestPredictHelper is the fresh process TestPredictMemoryModel runs rff in (the live heap a load adds is measured
// there without other tests' memory): with RFF_HELPER_ARGS set it runs rff with those arguments (one per line) and
// exits with its code.
func TestPredictHelper(t *testing.T) {
	args := os.Getenv("RFF_HELPER_ARGS")
	if args == "" {
		t.Skip("the process TestPredictMemoryModel starts")
	}
	os.Exit(run(strings.Split(args, "\n"), os.Stdout, os.Stderr))
}

// TestPredictMemoryModel: the budget counts the model as it is in memory. A Nyström model's map is built on the
// arrays read from its file (its normalization is held once), so a budget that leaves room for the file, the rows
// and the prediction is enough, and one that leaves room for the rows and the prediction but not for the file's
// arrays is refused.
func TestPredictMemoryModel(t *testing.T) {
	dir := t.TempDir()
	const n, d = 1200, 3
	data := writeCSV(t, n, d)
	model := filepath.Join(dir, "m.rff")
	if code, _, errOut := runCLI("fit", "--data", data, "--map", "nystrom", "--centres", "1000", "--sigma", "1", "--out", model); code != 0 {
		t.Fatalf("fit: %s", errOut)
	}
	fi, err := os.Stat(model)
	if err != nil {
		t.Fatal(err)
	}
	m, err := rff.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	// The model's file, the rows and targets, the prediction, and 1 MiB: what counting the file would accept.
	fileFits := fi.Size() + 8*n*(d+1) + m.PredictBytes(n) + 1<<20
	for _, c := range []struct {
		budget int64
		code   int
	}{{fileFits, 0}, {fileFits - fi.Size()*3/4, 2}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPredictHelper$")
		cmd.Env = append(os.Environ(), "RFF_HELPER_ARGS="+strings.Join([]string{"predict", "--model", model, "--data", data,
			"--max-memory", strconv.FormatInt(c.budget, 10), "--out", filepath.Join(dir, "p.csv")}, "\n"))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		if exit, ok := errors.AsType[*exec.ExitError](err); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.code || c.code == 2 && (!strings.Contains(stderr.String(), "over the memory budget") || strings.Count(stderr.String(), "\n") != 1) {
			t.Errorf("budget %d (file %d bytes): exit %d, stderr %q; want %d", c.budget, fi.Size(), code, stderr.String(), c.code)
		}
	}
}

// TestPredictOtherColumns: predict and eval read the model's input columns of a file with a header and skip the
// others unparsed — text (an identifier), empty fields — giving the predictions of the file with the model's columns
// alone; a file without one of them is refused naming it.
func TestPredictOtherColumns(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "ab.csv")
	os.WriteFile(plain, []byte("a,b,y\n1,2,3\n2,3,4\n3,1,2\n4,4,4\n5,1,1\n1,2,1\n"), 0o644)
	extra := filepath.Join(dir, "id.csv")
	os.WriteFile(extra, []byte("id,b,note,a,y\nr1,2,hello,1,3\nr2,3,,2,4\nr3,1,\"q,z\",3,2\nr4,4,x,4,4\nr5,1,t,5,1\nr6,2,u,1,1\n"), 0o644)
	model := filepath.Join(dir, "m.rff")
	if code, _, errOut := runCLI("fit", "--data", plain, "--out", model, "-D", "8"); code != 0 {
		t.Fatal(errOut)
	}
	for _, cmd := range []string{"predict", "eval"} {
		code, want, errOut := runCLI(cmd, "--model", model, "--data", plain)
		if code != 0 {
			t.Fatalf("%s on the model's columns: %s", cmd, errOut)
		}
		code, got, errOut := runCLI(cmd, "--model", model, "--data", extra)
		if cmd == "eval" {
			want, got = strings.TrimPrefix(want, "ab.csv"), strings.TrimPrefix(got, "id.csv")
		}
		if code != 0 || got != want {
			t.Errorf("%s with other columns: exit %d, %q (stderr %q); want %q", cmd, code, got, errOut, want)
		}
	}
	missing := filepath.Join(dir, "miss.csv")
	os.WriteFile(missing, []byte("id,b,y\nr1,2,3\nr2,3,4\n"), 0o644)
	if code, _, errOut := runCLI("predict", "--model", model, "--data", missing); code != 2 || !strings.Contains(errOut, `no column "a"`) {
		t.Errorf("a missing column: exit %d, %q", code, errOut)
	}
}

// --std and --samples of a model fitted without uncertainty: one line in the CLI's words (how to refit), without the
// library's Config field.
func TestPredictWithoutUncertainty(t *testing.T) {
	data := writeCSV(t, 40, 2)
	model := filepath.Join(t.TempDir(), "m.rff")
	if code, _, errOut := runCLI("fit", "--data", data, "--out", model, "-D", "8"); code != 0 {
		t.Fatal(errOut)
	}
	for _, flag := range [][]string{{"--std"}, {"--samples", "3"}} {
		code, out, errOut := runCLI(append([]string{"predict", "--model", model, "--data", data}, flag...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, flag[0]+": this model was fitted without uncertainty; refit it with rff fit --uncertainty") ||
			strings.Contains(errOut, "Config.") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", flag, code, out, errOut)
		}
	}
	// a classifier cannot be refitted with uncertainty: it is told what can have it
	cls := filepath.Join(t.TempDir(), "c.rff")
	if code, _, errOut := runCLI("fit", "--data", "../../testdata/generated/cls.csv", "--task", "classification", "--out", cls, "-D", "8"); code != 0 {
		t.Fatal(errOut)
	}
	code, _, errOut := runCLI("predict", "--model", cls, "--data", "../../testdata/generated/cls.csv", "--std")
	if code != 2 || !strings.Contains(errOut, "--std: this classification model has no predictive uncertainty: only regression") {
		t.Errorf("--std of a classifier: exit %d, %q", code, errOut)
	}
}

// TestPredictScoresProbabilities: --scores writes the model's class scores, the library's Values, bit for bit, and
// --probabilities their softmax, the library's Probabilities, in columns named after the classes; each row's
// probabilities sum to 1 and the largest is the predicted label's. Regression models and classifiers of other
// losses refuse them in one line.
func TestPredictScoresProbabilities(t *testing.T) {
	dir := t.TempDir()
	data := "../../testdata/generated/cls.csv"
	model, reg, hinge := filepath.Join(dir, "m.rff"), filepath.Join(dir, "r.rff"), filepath.Join(dir, "h.rff")
	fit := []string{"fit", "--data", data, "-D", "16", "--sigma", "1", "--lambda", "1e-3"}
	for _, c := range [][]string{
		append(slices.Clone(fit), "--task", "classification", "--loss", "logistic", "--out", model),
		append(slices.Clone(fit), "--task", "classification", "--loss", "hinge", "--out", hinge),
		{"fit", "--data", "../../testdata/generated/reg.csv", "-D", "16", "--sigma", "1", "--lambda", "1e-3", "--out", reg},
	} {
		if code, _, errOut := runCLI(c...); code != 0 {
			t.Fatalf("%v: %s", c, errOut)
		}
	}
	code, out, errOut := runCLI("predict", "--model", model, "--data", data, "--scores", "--probabilities")
	if code != 0 {
		t.Fatalf("predict: %s", errOut)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	m, err := rff.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	labels := m.Info().Labels
	K := len(labels)
	want := []string{"label"}
	for _, l := range labels {
		want = append(want, "score_"+l)
	}
	for _, l := range labels {
		want = append(want, "p_"+l)
	}
	if !slices.Equal(rows[0], want) {
		t.Fatalf("header %q, want %q", rows[0], want)
	}
	d, err := dataset.Load(data, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.Predict(d)
	if err != nil {
		t.Fatal(err)
	}
	prob, err := p.Probabilities()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows)-1 != p.N {
		t.Fatalf("%d rows written, %d predicted", len(rows)-1, p.N)
	}
	for i, r := range rows[1:] {
		if len(r) != 1+2*K || r[0] != p.Labels[i] {
			t.Fatalf("row %d: %q, label %q", i+1, r, p.Labels[i])
		}
		sum, best := 0.0, 0
		for k := range K {
			s, _ := strconv.ParseFloat(r[1+k], 64)
			q, _ := strconv.ParseFloat(r[1+K+k], 64)
			if s != p.Values[i*K+k] || q != prob[i*K+k] {
				t.Fatalf("row %d class %d: score %v probability %v, library %v and %v", i+1, k, s, q, p.Values[i*K+k], prob[i*K+k])
			}
			sum += q
			if q > prob[i*K+best] {
				best = k
			}
		}
		if math.Abs(sum-1) > float64(4*K)*0x1p-52 || labels[best] != r[0] {
			t.Fatalf("row %d: probabilities sum to %v, most probable %q, label %q", i+1, sum, labels[best], r[0])
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", reg, "--scores"}, "--scores and --probabilities are for classifiers"},
		{[]string{"--model", reg, "--probabilities"}, "--scores and --probabilities are for classifiers"},
		{[]string{"--model", hinge, "--probabilities"}, "has the hinge loss, whose class scores are not probabilities"},
	} {
		code, out, errOut := runCLI(append([]string{"predict", "--data", data}, c.args...)...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errOut, c.want)
		}
	}
}
