package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
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

// TestPredictMemoryModel: the budget counts the model as it is in memory, not as its file: a Nyström model holds its
// normalization twice (the file's array and the map built from it), so a budget that the file would fit beside
// the rows but the loaded model does not is refused, naming the model.
func TestPredictMemoryModel(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, 1200, 3)
	model := filepath.Join(dir, "m.rff")
	if code, _, errOut := runCLI("fit", "--data", data, "--map", "nystrom", "--centres", "1000", "--sigma", "1", "--out", model); code != 0 {
		t.Fatalf("fit: %s", errOut)
	}
	fi, err := os.Stat(model)
	if err != nil {
		t.Fatal(err)
	}
	budget := strconv.FormatInt(fi.Size()*3/2, 10) // the file and then some, not the loaded model
	code, stdout, errOut := runCLI("predict", "--model", model, "--data", data, "--max-memory", budget)
	if want := "--model " + model + " takes "; code != 2 || stdout != "" || !strings.Contains(errOut, want) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, stdout %d bytes, stderr %q; want 2 and one line with %q", code, len(stdout), errOut, want)
	}
}
