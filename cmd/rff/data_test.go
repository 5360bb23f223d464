package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitTestDataHeaderless: a headerless training file with its class label first (the layout of the UCI LETTER
// file) is scored on a headerless test file of the same layout: the test file's target is the column --target named
// for the training file, not the last column. Every label is a word, so reading a label as an input (or an input as
// the target) fails loudly; the classes are separable by the first input, so the accuracy must be high.
func TestFitTestDataHeaderless(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n, offset int) string {
		var b strings.Builder
		for i := range n {
			x := float64((i*37+offset)%200)/100 - 1
			label := "low"
			if x > 0 {
				label = "high"
			}
			fmt.Fprintf(&b, "%s,%.4f,%.4f\n", label, x, float64((i*13)%50)/50)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	train, test := write("train.csv", 400, 0), write("test.csv", 200, 11)
	for _, tc := range []struct{ name, report string }{{"score", ""}, {"report", filepath.Join(dir, "fit.html")}} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"fit", "--data", train, "--target", "first", "--task", "classification", "--out",
				filepath.Join(dir, tc.name+".rff"), "-D", "64", "--test-data", test, "--json"}
			if tc.report != "" {
				args = append(args, "--report", tc.report)
			}
			code, out, errOut := runCLI(args...)
			if code != 0 {
				t.Fatalf("fit: exit %d: %s", code, errOut)
			}
			var rep fitReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("fit --json: %v\n%s", err, out)
			}
			if rep.Test == nil || rep.Test.Classification == nil || rep.Test.N != 200 {
				t.Fatalf("test score: %+v", rep.Test)
			}
			// Half the rows are of each class; a model that learned the first input's sign is far above that
			// chance level of 0.5, one that read the columns wrongly is at it.
			if acc := rep.Test.Classification.Accuracy; acc < 0.8 {
				t.Errorf("test accuracy %.3f, want ≥ 0.8", acc)
			}
		})
	}
}
