package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A fit's budget is what --max-memory leaves beside the training data the command holds: with a budget between the
// fit's need and its need plus the data the fit is refused, naming both; with room for both it runs.
func TestFitBudgetBesideData(t *testing.T) {
	data := writeCSV(t, 30000, 12) // 2.9 MB of inputs and targets held while fitting
	out := filepath.Join(t.TempDir(), "m.rff")
	fit := func(mem string) (int, string) {
		code, _, stderr := runCLI("fit", "--data", data, "--out", out, "-D", "64", "--sigma", "1", "--lambda", "1e-3", "--max-memory", mem)
		return code, stderr
	}
	code, stderr := fit("16MiB") // room for the data, not the fit
	m := regexp.MustCompile(`needs about ([0-9.]+) MiB \(.*\) beside the ([0-9.]+) MiB of training data`).FindStringSubmatch(stderr)
	if code != 2 || m == nil {
		t.Fatalf("16 MiB: exit %d, %q", code, stderr)
	}
	need, _ := strconv.ParseFloat(m[1], 64)
	held, _ := strconv.ParseFloat(m[2], 64)
	if held < 2 {
		t.Fatalf("the data are %v MiB, want at least 2 for this test", held)
	}
	if code, stderr := fit(fmt.Sprintf("%dKiB", int((need+1)*1024))); code != 2 || !strings.Contains(stderr, "of training data") {
		t.Errorf("a budget for the fit but not the data beside it: exit %d, %q", code, stderr)
	}
	if code, stderr := fit(fmt.Sprintf("%dKiB", int((need+held+1)*1024))); code != 0 {
		t.Errorf("a budget for both: exit %d, %q", code, stderr)
	}
}
