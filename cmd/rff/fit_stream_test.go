package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rffkit/rff/model"
)

// TestFitStreamMatchesInMemory fits the same problems with and without --stream (in chunks of 97 rows, so that
// several chunks and shards are used) and checks that the models agree: same header, predictions and test metrics
// equal to 1e-9 relative.
func TestFitStreamMatchesInMemory(t *testing.T) {
	defer func(n int) { streamChunkRows = n }(streamChunkRows)
	streamChunkRows = 97
	reg, regTest := writeTask(t, false)
	cls, clsTest := writeTask(t, true)
	// The same classes as numbers, one of them not in its shortest form.
	num, numTest := filepath.Join(t.TempDir(), "num.csv"), filepath.Join(t.TempDir(), "numtest.csv")
	for _, f := range [][2]string{{cls, num}, {clsTest, numTest}} {
		b, err := os.ReadFile(f[0])
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(strings.ReplaceAll(string(b), ",pos\n", ",1.0\n"), ",neg\n", ",-1\n")
		if err := os.WriteFile(f[1], []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := [][]string{
		{"--data", reg, "--test-data", regTest},
		{"--data", reg, "--test-data", regTest, "--preprocess", "none", "--rule", "g"},
		{"--data", reg, "--test-data", regTest, "--preprocess", "minmax,maxscale", "--train", "450", "--form", "cosphase"},
		{"--data", reg, "--test-data", regTest, "--target", "first", "--solver", "cg", "--lambda", "1e-2"},
		{"--data", cls, "--test-data", clsTest, "--task", "classification"},
		{"--data", cls, "--test-data", clsTest, "--task", "classification", "--encoding", "simplex", "--preprocess", "paper"},
		{"--data", num, "--test-data", numTest, "--task", "classification", "--preprocess", "none"},
	}
	dir := t.TempDir()
	for ci, args := range cases {
		var reps [2]fitReport
		var models [2]*model.Model
		var preds [2]string
		for k, extra := range [][]string{nil, {"--stream"}} {
			mpath := filepath.Join(dir, strconv.Itoa(ci)+"-"+strconv.Itoa(k)+".rff")
			all := append(append([]string{"fit", "--out", mpath, "-D", "150", "--lambda", "1e-6", "--json"}, args...), extra...)
			code, out, errOut := runCLI(all...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", all, code, errOut)
			}
			if err := json.Unmarshal([]byte(out), &reps[k]); err != nil {
				t.Fatalf("%v: %v\n%s", all, err, out)
			}
			m, err := model.Load(mpath)
			if err != nil {
				t.Fatal(err)
			}
			models[k] = m
			target := "last"
			if i := slices.Index(args, "--target"); i >= 0 {
				target = args[i+1]
			}
			code, preds[k], errOut = runCLI("predict", "--model", mpath, "--data", args[3], "--target", target)
			if code != 0 {
				t.Fatalf("predict: %s", errOut)
			}
		}
		a, b := models[0], models[1]
		ha, hb := a.Header, b.Header
		ja, _ := json.Marshal(ha)
		jb, _ := json.Marshal(hb)
		if string(ja) != string(jb) {
			// Preprocessing parameters may differ in the last bits (another summation order).
			if !slices.Equal(ha.Names, hb.Names) || !slices.Equal(ha.Labels, hb.Labels) || !slices.Equal(ha.Targets, hb.Targets) ||
				ha.Encoding != hb.Encoding || ha.Outputs != hb.Outputs || ha.Features != hb.Features || ha.Lambda != hb.Lambda {
				t.Errorf("case %d: headers differ:\n%s\n%s", ci, ja, jb)
			}
			for s := range ha.Preprocess.Params {
				closeSlices(t, "shift", ha.Preprocess.Params[s].Shift, hb.Preprocess.Params[s].Shift, 1e-12)
				closeSlices(t, "scale", ha.Preprocess.Params[s].Scale, hb.Preprocess.Params[s].Scale, 1e-12)
			}
		}
		if reps[0].Fit.N != reps[1].Fit.N {
			t.Errorf("case %d: n = %d and %d", ci, reps[0].Fit.N, reps[1].Fit.N)
		}
		ta, tb := reps[0].Test, reps[1].Test
		if ta.Classification != nil {
			if tb.Classification == nil || ta.Classification.Accuracy != tb.Classification.Accuracy {
				t.Errorf("case %d: accuracy %v and %v", ci, ta.Classification, tb.Classification)
			}
			if preds[0] != preds[1] {
				t.Errorf("case %d: predicted classes differ", ci)
			}
			continue
		}
		ra, rb := ta.Regression, tb.Regression
		closeSlices(t, "rmse", []float64{ra.RMSE, ra.MAE, ra.R2}, []float64{rb.RMSE, rb.MAE, rb.R2}, 1e-9)
		pa, pb := parseColumn(t, preds[0]), parseColumn(t, preds[1])
		closeSlices(t, "predictions", pa, pb, 1e-9)
	}
}

func parseColumn(t *testing.T, csv string) []float64 {
	t.Helper()
	var out []float64
	for _, line := range strings.Split(strings.TrimSpace(csv), "\n")[1:] {
		v, err := strconv.ParseFloat(line, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func closeSlices(t *testing.T, what string, a, b []float64, tol float64) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: lengths %d and %d", what, len(a), len(b))
	}
	scale := 0.0
	for _, v := range a {
		scale = max(scale, math.Abs(v))
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol*max(math.Abs(a[i]), 1e-3*scale) {
			t.Fatalf("%s[%d]: %v and %v differ by more than %g relative", what, i, a[i], b[i], tol)
		}
	}
}

func TestFitStreamErrors(t *testing.T) {
	reg, _ := writeTask(t, false)
	cls, _ := writeTask(t, true)
	out := filepath.Join(t.TempDir(), "m.rff")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--data", reg, "--exact"}, "not exact"},
		{[]string{"--data", reg, "--cv", "3"}, "fixed λ"},
		{[]string{"--data", cls, "--task", "classification", "--loss", "hinge"}, "another loss"},
		{[]string{"--data", reg, "--format", "libsvm"}, "reads CSV"},
		{[]string{"--data", cls}, "numeric target"},
		{[]string{"--data", cls, "--preprocess", "none"}, "numeric target"},
		{[]string{"--data", reg, "--target", "none"}, "no target column"},
		{[]string{"--data", reg, "--train", "601"}, "has 600 data rows, fewer than the 601 asked for"},
		{[]string{"--data", reg, "--tune"}, "tune without --stream on the first rows (--tune --train N)"},
	}
	for _, c := range cases {
		args := []string{"fit", "--stream", "--out", out}
		if !slices.Contains(c.args, "--exact") {
			args = append(args, "-D", "20")
		}
		code, _, errOut := runCLI(append(args, c.args...)...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want an error with %q", c.args, code, errOut, c.want)
		}
	}
}
