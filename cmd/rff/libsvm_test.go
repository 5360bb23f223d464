package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A LibSVM test file need not hold the largest feature indices of the training file (zeros are not written):
// predict, eval and fit --test-data pad it to the model's inputs and predict what the explicit zeros give. A file
// with an index beyond the model's inputs is refused.
func TestLibSVMNarrowerTestFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	train := write("train.svm", "1 1:0.5 2:0.3\n2 1:0.1 3:0.9\n1 2:0.4\n2 1:1 2:1 3:1\n1 1:0.2 3:0.1\n2 2:0.7\n")
	narrow := write("narrow.svm", "1 1:0.5 2:0.2\n2 1:0.1\n")
	full := write("full.svm", "1 1:0.5 2:0.2 3:0\n2 1:0.1 3:0\n")
	wide := write("wide.svm", "1 1:0.5 4:1\n")
	model := filepath.Join(dir, "m.rff")
	if code, _, errOut := runCLI("fit", "--data", train, "--sigma", "1", "-D", "16", "--out", model); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, errOut)
	}
	code, got, errOut := runCLI("predict", "--model", model, "--data", narrow)
	_, want, _ := runCLI("predict", "--model", model, "--data", full)
	if code != 0 || got != want || want == "" {
		t.Errorf("predict on the narrower file: exit %d, %q (%s); with explicit zeros %q", code, got, errOut, want)
	}
	if code, _, errOut := runCLI("eval", "--model", model, "--data", narrow); code != 0 {
		t.Errorf("eval: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI("fit", "--data", train, "--sigma", "1", "-D", "16", "--test-data", narrow, "--out", filepath.Join(dir, "m2.rff")); code != 0 {
		t.Errorf("fit --test-data: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI("predict", "--model", model, "--data", wide); code != 2 || !strings.Contains(errOut, "the data have 4 input columns, the model takes 3") {
		t.Errorf("a wider file: exit %d, %q", code, errOut)
	}
}
