package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rffkit/rff/internal/modeltest"
	"github.com/rffkit/rff/model"
)

// writeV1 writes a version-1 model file (a regression with one output, zero weights and probe) whose map is rule
// in dimension d with D points and F features: the file stores only its seed.
func writeV1(t *testing.T, ruleName string, d, D, F int) string {
	t.Helper()
	b, err := modeltest.EncodeV1(model.Header{Task: "regression", Kernel: "gaussian", Sigma: 1, Rule: ruleName, Seed: 1,
		Points: D, Dim: d, Form: "cossin", Features: F, Outputs: 1, Intercept: true, Lambda: 1e-3},
		make([]float64, F), []float64{0}, make([]float64, F))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), ruleName+".rff")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPredictRefusesV1Redraw: predict and eval refuse, before drawing anything, a version-1 model whose map would
// be out of proportion to redraw from its seed (orf: a whole 8000×8000 rotation for one point), or would need more
// than --max-memory, naming the flag.
func TestPredictRefusesV1Redraw(t *testing.T) {
	data := writeCSV(t, 5, 3)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"predict", "--model", writeV1(t, "orf", 8000, 1, 2), "--data", data}, []string{"orf.rff", "orf map", "d = 8000", "out of proportion"}},
		{[]string{"eval", "--model", writeV1(t, "orf", 8000, 1, 2), "--data", data}, []string{"orf.rff", "out of proportion"}},
		{[]string{"predict", "--max-memory", "64MiB", "--model", writeV1(t, "g", 4096, 4096, 8192), "--data", data},
			[]string{"g.rff", "g map", "d = 4096", "over the memory budget of 64 MiB", "raise --max-memory"}},
	} {
		start := time.Now()
		code, stdout, stderr := runCLI(c.args...)
		if code != 2 || stdout != "" || time.Since(start) > 2*time.Second {
			t.Errorf("%v: exit %d in %v, stdout %q, stderr %q", c.args, code, time.Since(start), stdout, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", c.args, stderr, w)
			}
		}
	}
}
