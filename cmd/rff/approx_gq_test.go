package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/kernel"
)

// writeExactCSV writes n rows of d standard normal features (4 decimals) and a target, and returns the path and the
// features exactly as the CSV reader will parse them.
func writeExactCSV(t *testing.T, n, d int) (string, []float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 3))
	var b strings.Builder
	X := make([]float64, 0, n*d)
	for j := range d {
		fmt.Fprintf(&b, "f%d,", j+1)
	}
	b.WriteString("y\n")
	for range n {
		for range d {
			s := fmt.Sprintf("%.4f", rng.NormFloat64())
			v, _ := strconv.ParseFloat(s, 64)
			X = append(X, v)
			b.WriteString(s + ",")
		}
		fmt.Fprintf(&b, "%.4f\n", rng.NormFloat64())
	}
	p := filepath.Join(t.TempDir(), "gq.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, X
}

// TestApproxGQFloor: with a gq rule, rff approx reports the floor of approx.GQFloor on its two subsets (with
// --samples = all rows both subsets are the whole data, permuted, and the floor does not depend on the order), the
// mean error at large D is not below it by more than 4 standard errors (E‖K − K̂‖_F ≥ floor), and a warning on
// stderr says that the rule has reached it, with exit 0. At n = 1 (D = 8) the Monte Carlo error dominates and
// nothing is said.
func TestApproxGQFloor(t *testing.T) {
	const n, d = 60, 3
	data, X := writeExactCSV(t, n, d)
	want, err := approx.GQFloor(kernel.Gaussian{S: 1}, 2, X, n, X, n, d)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("approx", "--data", data, "--preprocess", "none", "--sigma", "1", "--rules", "g,gq",
		"--n", "1,300", "--runs", "20", "--samples", "60", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep studyReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	f, ok := rep.GQFloor["gq"]
	if !ok || f == nil || math.Abs(*f-want) > 1e-12*want || len(rep.GQFloor) != 1 {
		t.Fatalf("gq_floor = %v, want {\"gq\": %v}", rep.GQFloor, want)
	}
	large := rep.Results[3]
	if large.Rule != "gq" || large.N != 300 {
		t.Fatalf("result order: %+v", large)
	}
	if se := large.Std / math.Sqrt(float64(large.Runs)); large.Mean < want-4*se {
		t.Errorf("gq at D = %d: mean error %v ± %v below the floor %v", large.D, large.Mean, se, want)
	}
	if lines := strings.Split(strings.TrimSpace(errOut), "\n"); len(lines) != 1 ||
		!strings.Contains(lines[0], "warning: gq reaches its bias floor") || !strings.Contains(lines[0], "n = 300") ||
		strings.Contains(lines[0], "n = 1 ") || !strings.Contains(lines[0], "gq:4") {
		t.Errorf("want one warning line for n = 300 only, got:\n%s", errOut)
	}

	// Table output; no warning where the Monte Carlo error dominates.
	code, out, errOut = runCLI("approx", "--data", data, "--preprocess", "none", "--sigma", "1", "--rules", "gq",
		"--n", "1", "--runs", "20", "--samples", "60")
	if code != 0 || errOut != "" || !strings.Contains(out, fmt.Sprintf("gq bias floor (D → ∞): %.4g ", want)) {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}

	// A kernel without a closed form: null and a note, in JSON and in the table.
	code, out, errOut = runCLI("approx", "--data", data, "--kernel", "matern32", "--rules", "gq:3", "--n", "1", "--runs", "2", "--samples", "20", "--json")
	if code != 0 || !strings.Contains(out, `"gq_floor":{"gq:3":null}`) || !strings.Contains(out, `"gq_floor_note":"no closed-form gq bias floor for kernel matern32`) {
		t.Errorf("matern32: exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	code, out, _ = runCLI("approx", "--data", data, "--kernel", "arccos1", "--rules", "gq", "--n", "1", "--runs", "2", "--samples", "20")
	if code != 0 || !strings.Contains(out, "gq bias floor (D → ∞): n/a (no closed-form gq bias floor for kernel arccos1") {
		t.Errorf("arccos1: exit %d, stdout:\n%s", code, out)
	}

	// Without a gq rule nothing changes.
	code, out, _ = runCLI("approx", "--data", data, "--rules", "g", "--n", "1", "--runs", "2", "--samples", "20", "--json")
	if code != 0 || strings.Contains(out, "gq_floor") {
		t.Errorf("no gq rule: exit %d, stdout:\n%s", code, out)
	}
}

// TestFitGQNote: a fit on gq features prints one note on stderr (the bias, and the m^d grid points that the D drawn
// repeat); other rules and exact fits print nothing.
func TestFitGQNote(t *testing.T) {
	data := writeCSV(t, 60, 3)
	model := filepath.Join(t.TempDir(), "m.rff")
	code, _, errOut := runCLI("fit", "--data", data, "--out", model, "--rule", "gq", "-D", "64")
	if code != 0 || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "rff fit: note: gq features approximate the degree-2 Gauss–Hermite grid") ||
		!strings.Contains(errOut, "only 8 points, so the 64 drawn repeat them") {
		t.Errorf("gq: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCLI("fit", "--data", data, "--out", model, "--rule", "gq:5", "-D", "64")
	if code != 0 || !strings.Contains(errOut, "gq:5 features") || strings.Contains(errOut, "repeat") {
		t.Errorf("gq:5 (125 grid points > D): exit %d, stderr %q", code, errOut)
	}
	for _, args := range [][]string{{"-D", "64", "--rule", "g"}, {"--exact"}} {
		code, _, errOut = runCLI(append([]string{"fit", "--data", data, "--out", model}, args...)...)
		if code != 0 || errOut != "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// TestAtFloor: a mean counts as at the floor when it is less than 2 standard errors of the mean above it (or below
// it), or within 1% of it — and never when it is more than half again the floor.
func TestAtFloor(t *testing.T) {
	for _, c := range []struct {
		mean, std float64
		runs      int
		want      bool
	}{
		{0.5, 0.01, 100, false},    // 0.2 above, SE 0.001
		{0.4019, 0.01, 100, true},  // within 2 SE (and 1%)
		{0.4030, 0.04, 100, true},  // 0.003 above: 0.75% of the floor but 0.75 SE
		{0.4050, 0.04, 100, true},  // 1.25 SE
		{0.4050, 0.01, 100, false}, // 1.25% and 5 SE above
		{0.4039, 0.0001, 4, true},  // 0.98%: within the margin although 78 SE above
		{0.3990, 0, 1, true},       // below the floor, no spread
		{0.4100, 0, 1, false},      // 2.5% above, no spread
		{1.2, 2, 3, false},         // within 2 SE of three runs, but three times the floor
		{0.59, 0.3, 4, true},       // within 2 SE, and less than half again the floor
	} {
		x := approx.Result{Mean: c.mean, Std: c.std, Runs: c.runs}
		if got := atFloor(x, 0.4); got != c.want {
			t.Errorf("mean %v, std %v, %d runs, floor 0.4: atFloor = %v, want %v", c.mean, c.std, c.runs, got, c.want)
		}
	}
}

// TestApproxMemoryPoints: the study's estimate counts each map's points (D = 2n(d+1) of them, d values each) and the
// Haar rotations an ORF rule draws, so a study on wide rows is refused within a small budget before any map is drawn.
func TestApproxMemoryPoints(t *testing.T) {
	const d = 1500
	var b strings.Builder
	for i := range 20 {
		for j := range d {
			fmt.Fprintf(&b, "%d,", (i*7+j)%10)
		}
		fmt.Fprintf(&b, "%d\n", i%2)
	}
	path := filepath.Join(t.TempDir(), "wide.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{"g", "orf"} {
		start := time.Now()
		code, out, errOut := runCLI("approx", "--data", path, "--rules", r, "--n", "1", "--samples", "10", "--runs", "1",
			"--max-memory", "24MiB") // g's points alone take 34 MiB, orf's rotations 172 MiB more
		if code != 2 || out != "" || !strings.Contains(errOut, "the study needs about") || time.Since(start) > 5*time.Second {
			t.Errorf("rule %s: exit %d in %v, stderr %q, want a refusal of the study", r, code, time.Since(start), errOut)
		}
	}
}

// TestLargerDegree: the advice names a degree gq:M accepts — twice the degree up to the largest — and at the largest
// only another rule.
func TestLargerDegree(t *testing.T) {
	for _, c := range []struct {
		m    int
		want string
	}{
		{2, "use a larger degree (gq:4 or more, up to 64) or another rule"},
		{40, "use the largest degree (gq:64) or another rule"},
		{64, "degree 64 is the largest: use another rule"},
	} {
		if got := largerDegree(c.m, "gq:%d"); got != c.want {
			t.Errorf("degree %d: %q, want %q", c.m, got, c.want)
		}
	}
}

// TestApproxCollapsedKernelWarns: a bandwidth that makes the kernel constant on the rows compared gives a study whose
// errors say nothing about the rules; both studies say so on stderr (once, after the table is computed) and still
// print the table.
func TestApproxCollapsedKernelWarns(t *testing.T) {
	train := writeCSV(t, 200, 3)
	for _, args := range [][]string{
		{"approx", "--data", train, "--samples", "20", "--runs", "2", "--n", "1", "--rules", "g", "--sigma", "1e200"},
		{"approx", "--ovk", "curl-free", "--runs", "2", "--samples", "20", "--Ds", "10", "--rules", "g", "--sigma", "1e200"},
	} {
		t.Run(strings.Join(args[:3], " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(args...)
			if code != 0 || stdout == "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			if strings.Count(stderr, "warning:") != 1 || !strings.Contains(stderr, "constant") {
				t.Errorf("stderr %q: want one warning that the kernel is constant", stderr)
			}
		})
	}
}

// TestApproxOVKPairsOnly: the operator-valued study measures n pairs, and so does its check of the kernel: no n×n
// matrix of every cross pair (12000 pairs: 1.1 GiB), whatever the memory budget allows.
func TestApproxOVKPairsOnly(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code, _, stderr := runCLI("approx", "--ovk", "div-free", "--dim", "4", "--Ds", "10", "--runs", "1", "--samples", "12000", "--rules", "g")
	runtime.ReadMemStats(&after)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("allocated %d MiB for 12000 pairs in dimension 4", grew>>20)
	}
}
