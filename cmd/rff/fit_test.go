package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rffkit/rff"
)

// writeTask writes train and test CSVs of a smooth regression problem y = sin(x₁) + x₂² (or its sign as a class
// label "pos"/"neg"), so that a kernel model must learn it well.
func writeTask(t *testing.T, classify bool) (train, test string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 5))
	dir := t.TempDir()
	write := func(name string, n int) string {
		var b strings.Builder
		b.WriteString("a,b,c,target\n")
		for i := 0; i < n; i++ {
			x1, x2, x3 := 2*rng.Float64()-1, 2*rng.Float64()-1, rng.Float64()
			y := math.Sin(3*x1) + x2*x2
			if classify {
				label := "neg"
				if y > 0.3 {
					label = "pos"
				}
				fmt.Fprintf(&b, "%.6f,%.6f,%.6f,%s\n", x1, x2, x3, label)
			} else {
				fmt.Fprintf(&b, "%.6f,%.6f,%.6f,%.6f\n", x1, x2, x3, y)
			}
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(b.String()), 0o644)
		return p
	}
	return write("train.csv", 600), write("test.csv", 300)
}

func TestFitPredictEvalRegression(t *testing.T) {
	train, test := writeTask(t, false)
	mpath := filepath.Join(t.TempDir(), "m.rff")
	code, out, errOut := runCLI("fit", "--data", train, "--out", mpath, "-D", "200", "--lambda", "1e-6", "--test-data", test, "--json")
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, errOut)
	}
	var rep fitReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("fit --json: %v\n%s", err, out)
	}
	// The target has variance ≈ 0.6 over the inputs; a good model explains almost all of it.
	if rep.Test == nil || rep.Test.Regression.R2 < 0.95 {
		t.Errorf("test R² = %v, want ≥ 0.95", rep.Test)
	}
	for _, k := range []string{"load", "fit", "test"} {
		if _, ok := rep.Seconds[k]; !ok {
			t.Errorf("seconds lacks %q", k)
		}
	}
	if _, ok := rep.Fit.Phases["features_gram"]; !ok {
		t.Errorf("fit_phases: %v", rep.Fit.Phases)
	}
	// eval on the same test file reproduces fit's test metrics exactly (the reloaded model predicts bit for bit).
	code, out, errOut = runCLI("eval", "--model", mpath, "--data", test, "--json")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errOut)
	}
	var met rff.Score
	json.Unmarshal([]byte(out), &met)
	if met.Regression.RMSE != rep.Test.Regression.RMSE || met.N != 300 {
		t.Errorf("eval RMSE %v differs from fit's %v", met.Regression.RMSE, rep.Test.Regression.RMSE)
	}
	code, out, errOut = runCLI("predict", "--model", mpath, "--data", test, "--target", "last")
	if code != 0 || strings.Count(out, "\n") != 301 || !strings.HasPrefix(out, "target\n") {
		t.Errorf("predict: exit %d %s, %d lines", code, errOut, strings.Count(out, "\n"))
	}
	// Exact KRR baseline with the same λ convention, through the same commands.
	epath := filepath.Join(t.TempDir(), "exact.rff")
	code, out, errOut = runCLI("fit", "--data", train, "--out", epath, "--exact", "--lambda", "1e-6", "--test-data", test, "--json")
	if code != 0 {
		t.Fatalf("fit --exact: exit %d: %s", code, errOut)
	}
	var ex fitReport
	json.Unmarshal([]byte(out), &ex)
	if !ex.Info.Exact || ex.Test.Regression.R2 < 0.95 {
		t.Errorf("exact: %+v", ex.Test)
	}
	if code, _, errOut = runCLI("eval", "--model", epath, "--data", test); code != 0 {
		t.Errorf("eval exact: %s", errOut)
	}
}

func TestFitClassification(t *testing.T) {
	train, test := writeTask(t, true)
	for _, enc := range []string{"onehot", "simplex"} {
		mpath := filepath.Join(t.TempDir(), "c.rff")
		code, out, errOut := runCLI("fit", "--data", train, "--task", "classification", "--encoding", enc, "--rule", "orf",
			"-D", "300", "--lambda", "1e-5", "--out", mpath, "--test-data", test, "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", enc, code, errOut)
		}
		var rep fitReport
		json.Unmarshal([]byte(out), &rep)
		if rep.Test == nil || rep.Test.Classification.Accuracy < 0.9 || len(rep.Test.Classification.PerClass) != 2 {
			t.Errorf("%s: test %+v", enc, rep.Test)
		}
		code, out, _ = runCLI("predict", "--model", mpath, "--data", test, "--target", "last")
		if code != 0 || !strings.Contains(out, "pos") || !strings.Contains(out, "neg") {
			t.Errorf("%s: predict printed %q", enc, out[:min(len(out), 40)])
		}
	}
}

// TestFitLosses trains the SVMs and logistic regression through the CLI: the loss is recorded in the model, and a
// reloaded model reproduces fit's test accuracy exactly.
func TestFitLosses(t *testing.T) {
	train, test := writeTask(t, true)
	for _, loss := range []string{"hinge", "squared-hinge", "logistic"} {
		mpath := filepath.Join(t.TempDir(), loss+".rff")
		code, out, errOut := runCLI("fit", "--data", train, "--task", "classification", "--loss", loss,
			"-D", "200", "--lambda", "1e-5", "--out", mpath, "--test-data", test, "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", loss, code, errOut)
		}
		var rep fitReport
		json.Unmarshal([]byte(out), &rep)
		if rep.Test == nil || rep.Test.Classification.Accuracy < 0.9 {
			t.Errorf("%s: test %+v", loss, rep.Test)
		}
		if _, ok := rep.Fit.Phases["features"]; !ok {
			t.Errorf("%s: fit_phases %v", loss, rep.Fit.Phases)
		}
		code, out, errOut = runCLI("eval", "--model", mpath, "--data", test, "--json")
		var met rff.Score
		json.Unmarshal([]byte(out), &met)
		if code != 0 || met.Classification == nil || met.Classification.Accuracy != rep.Test.Classification.Accuracy {
			t.Errorf("%s: eval exit %d %s: %+v vs fit %+v", loss, code, errOut, met.Classification, rep.Test.Classification)
		}
	}
}

func TestFitErrors(t *testing.T) {
	train, test := writeTask(t, false)
	mpath := filepath.Join(t.TempDir(), "m.rff")
	if code, _, e := runCLI("fit", "--data", train, "--out", mpath, "-D", "20"); code != 0 {
		t.Fatal(e)
	}
	if code, out, e := runCLI("fit", "--data", train, "--out", mpath, "-D", "20", "--precision", "mixed", "--json"); code != 0 || !strings.Contains(out, `"method":"mixed"`) {
		t.Fatalf("fit --precision mixed: exit %d, %s %s", code, out, e)
	}
	garbage := filepath.Join(t.TempDir(), "g.rff")
	os.WriteFile(garbage, []byte("not a model"), 0o644)
	short := filepath.Join(t.TempDir(), "short.csv")
	os.WriteFile(short, []byte("a,c\n1,2\n3,4\n"), 0o644)
	cases := [][]string{
		{"fit", "--data", train},
		{"fit", "--data", train, "--out", mpath, "--task", "clustering"},
		{"fit", "--data", train, "--out", mpath, "-D", "0"},
		{"fit", "--data", train, "--out", mpath, "--cv", "1"},
		{"fit", "--data", train, "--out", mpath, "--cv", "3", "--lambdas", "1:0:3"},
		{"fit", "--data", train, "--out", mpath, "--target", "none"},
		{"fit", "--data", train, "--out", mpath, "--rule", "zzz"},
		{"fit", "--data", train, "--out", mpath, "--loss", "huber"},
		{"fit", "--data", train, "--out", mpath, "--loss", "hinge"}, // regression
		{"fit", "--data", train, "--out", mpath, "--task", "classification", "--loss", "logistic", "--exact"},
		{"fit", "--data", train, "--out", mpath, "--task", "classification", "--loss", "hinge", "--lambda", "0"},
		{"fit", "--data", train, "--out", mpath, "--precision", "single"},
		{"fit", "--data", train, "--out", mpath, "--precision", "mixed", "--stream"},
		{"fit", "--data", train, "--out", mpath, "--precision", "mixed", "--exact"},
		{"fit", "--data", train, "--out", mpath, "--precision", "mixed", "--solver", "cg"},
		{"predict", "--data", test},
		{"predict", "--model", mpath, "--data", short}, // column b is missing
		{"fit", "--data", train, "--out", train},       // the output would replace the data
		{"fit", "--data", train, "--out", filepath.Join(t.TempDir(), "no", "m.rff")},
		{"predict", "--model", garbage, "--data", test},
		{"eval", "--model", "/no/such.rff", "--data", test},
		{"eval", "--model", mpath, "--data", "/no/such.csv"},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(c...)
		if code != 2 || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q", c, code, errOut, out)
		}
	}
}

// TestFitHermite runs the documented Hermite workflow: inputs, values and gradients in three CSV files; the
// preprocessing (standardize by default) is undone for the gradients, so predict --gradients returns ∂f/∂x in the
// raw coordinates. f(x) = sin(x₁) + x₂²/2 on [−2, 2]² with 60 points is learned far better with its gradients.
func TestFitHermite(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 3))
	write := func(name string, n int, row func(x1, x2 float64) string, header string) string {
		var b strings.Builder
		b.WriteString(header + "\n")
		for i := 0; i < n; i++ {
			b.WriteString(row(4*rng.Float64()-2, 4*rng.Float64()-2))
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(b.String()), 0o644)
		return p
	}
	f := func(x1, x2 float64) float64 { return math.Sin(x1) + x2*x2/2 }
	// Train files share their rows: draw them once.
	type pt struct{ x1, x2 float64 }
	pts := make([]pt, 60)
	for i := range pts {
		pts[i] = pt{4*rng.Float64() - 2, 4*rng.Float64() - 2}
	}
	rows := func(name, header string, row func(p pt) string) string {
		var b strings.Builder
		b.WriteString(header + "\n")
		for _, p := range pts {
			b.WriteString(row(p))
		}
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(b.String()), 0o644)
		return path
	}
	xs := rows("x.csv", "a,b", func(p pt) string { return fmt.Sprintf("%g,%g\n", p.x1, p.x2) })
	vs := rows("v.csv", "f", func(p pt) string { return fmt.Sprintf("%g\n", f(p.x1, p.x2)) })
	gs := rows("g.csv", "g1,g2", func(p pt) string {
		if p.x1 > 1.5 { // some unobserved derivatives
			return fmt.Sprintf("NaN,%g\n", p.x2)
		}
		return fmt.Sprintf("%g,%g\n", math.Cos(p.x1), p.x2)
	})
	test := write("test.csv", 400, func(x1, x2 float64) string { return fmt.Sprintf("%g,%g,%g\n", x1, x2, f(x1, x2)) }, "a,b,f")
	rmse := map[string]float64{}
	for name, extra := range map[string][]string{"values": {"--values", vs}, "both": {"--values", vs, "--gradients", gs}} {
		mpath := filepath.Join(dir, name+".rff")
		args := append([]string{"fit", "--task", "hermite", "--data", xs, "--out", mpath, "-D", "300", "--rule", "g",
			"--sigma", "0.7", "--lambda", "1e-8", "--test-data", test, "--json"}, extra...)
		code, out, errOut := runCLI(args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		var rep fitReport
		json.Unmarshal([]byte(out), &rep)
		rmse[name] = rep.Test.Regression.RMSE
	}
	if rmse["values"] < 2*rmse["both"] {
		t.Errorf("test RMSE with values %.4g, with values and gradients %.4g: want ≥ 2× better", rmse["values"], rmse["both"])
	}
	code, out, errOut := runCLI("predict", "--model", filepath.Join(dir, "both.rff"), "--data", test, "--target", "last", "--gradients")
	if code != 0 {
		t.Fatal(errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "f,df/da,df/db" || len(lines) != 401 {
		t.Fatalf("header %q, %d lines", lines[0], len(lines))
	}
	// The gradients are those of the model in raw coordinates: compare with central differences of the model's own
	// predictions at x ± h·e_j (truncation error h²·|f‴|/6 ≈ 1e-7 for h = 1e-3 and bandwidth 0.7).
	const h = 1e-3
	var pb strings.Builder
	pb.WriteString("a,b\n")
	var x1, x2 [10]float64
	for i := range 10 {
		fmt.Sscanf(readLine(t, test, i+1), "%g,%g", &x1[i], &x2[i])
		fmt.Fprintf(&pb, "%.17g,%.17g\n%.17g,%.17g\n%.17g,%.17g\n%.17g,%.17g\n", x1[i]+h, x2[i], x1[i]-h, x2[i], x1[i], x2[i]+h, x1[i], x2[i]-h)
	}
	pf := filepath.Join(dir, "perturbed.csv")
	os.WriteFile(pf, []byte(pb.String()), 0o644)
	code, pout, errOut := runCLI("predict", "--model", filepath.Join(dir, "both.rff"), "--data", pf, "--target", "none")
	if code != 0 {
		t.Fatal(errOut)
	}
	pv := strings.Split(strings.TrimSpace(pout), "\n")[1:]
	for i := range 10 {
		var p, g1, g2 float64
		fmt.Sscanf(lines[i+1], "%g,%g,%g", &p, &g1, &g2)
		var v [4]float64
		for k := range v {
			fmt.Sscanf(pv[4*i+k], "%g", &v[k])
		}
		fd1, fd2 := (v[0]-v[1])/(2*h), (v[2]-v[3])/(2*h)
		if math.Abs(fd1-g1) > 1e-5 || math.Abs(fd2-g2) > 1e-5 {
			t.Errorf("row %d: gradient (%.8g, %.8g), central differences (%.8g, %.8g)", i+1, g1, g2, fd1, fd2)
		}
	}
	for _, c := range [][]string{
		{"fit", "--task", "hermite", "--data", xs, "--out", filepath.Join(dir, "e.rff")},
		{"fit", "--task", "hermite", "--data", xs, "--values", gs, "--out", filepath.Join(dir, "e.rff")}, // 2 columns
		{"fit", "--task", "hermite", "--data", xs, "--values", vs, "--exact", "--out", filepath.Join(dir, "e.rff")},
		{"fit", "--data", test, "--values", vs, "--out", filepath.Join(dir, "e.rff")},
		{"fit", "--task", "hermite", "--data", xs, "--values", vs, "--target", "last", "--out", filepath.Join(dir, "e.rff")},
	} {
		if code, out, errOut := runCLI(c...); code != 2 || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q", c, code, errOut, out)
		}
	}
}

// readLine returns line i (0 = header) of a text file.
func readLine(t *testing.T, path string, i int) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\n")[i]
}

// TestFitIDXDefaultTarget fits on IDX images with labels without any --target flag: the CSV default ("last") must
// not apply to formats that carry their labels.
func TestFitIDXDefaultTarget(t *testing.T) {
	dir := t.TempDir()
	const n, side = 60, 3
	img := []byte{0, 0, 8, 3, 0, 0, 0, n, 0, 0, 0, side, 0, 0, 0, side}
	lab := []byte{0, 0, 8, 1, 0, 0, 0, n}
	for i := 0; i < n; i++ {
		c := byte(i % 2)
		for p := 0; p < side*side; p++ {
			img = append(img, c*200+byte(p*5))
		}
		lab = append(lab, c)
	}
	ip, lp := filepath.Join(dir, "img-idx3-ubyte"), filepath.Join(dir, "lab-idx1-ubyte")
	os.WriteFile(ip, img, 0o644)
	os.WriteFile(lp, lab, 0o644)
	code, out, errOut := runCLI("fit", "--data", ip, "--labels", lp, "--task", "classification", "-D", "20",
		"--out", filepath.Join(dir, "m.rff"), "--test-data", ip, "--test-labels", lp, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep fitReport
	json.Unmarshal([]byte(out), &rep)
	if rep.Test == nil || rep.Test.Classification.Accuracy != 1 { // two classes 200 grey levels apart
		t.Errorf("test %+v", rep.Test)
	}
	// Without --labels the images have no target: said so, with the flag that gives it.
	if code, _, errOut := runCLI("fit", "--data", ip, "--task", "classification", "-D", "20", "--out", filepath.Join(dir, "m3.rff")); code != 2 || !strings.Contains(errOut, "give them with --labels FILE") {
		t.Errorf("no --labels: exit %d, stderr %q", code, errOut)
	}
	// With --labels but --target none the labels are dropped: said so, not "give --labels".
	if code, _, errOut := runCLI("fit", "--data", ip, "--labels", lp, "--target", "none", "-D", "20", "--out", filepath.Join(dir, "m3.rff")); code != 2 || !strings.Contains(errOut, "--target none reads the data without their target") {
		t.Errorf("--target none: exit %d, stderr %q", code, errOut)
	}
	// A labels file is an input: --out and --report must not replace it.
	for _, args := range [][]string{
		{"--labels", lp, "--out", lp},
		{"--labels", lp, "--out", filepath.Join(dir, "m2.rff"), "--test-data", ip, "--test-labels", lp, "--report", lp},
	} {
		code, out, errOut := runCLI(append([]string{"fit", "--data", ip, "--task", "classification", "-D", "20"}, args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, "is also an input file") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
		if b, _ := os.ReadFile(lp); !bytes.Equal(b, lab) {
			t.Fatalf("%v: the labels file was replaced", args)
		}
	}
}

// TestFitOVK fits vector-valued models on the generated curl-free field through the CLI: every operator-valued
// kernel, exact and ORFF; eval reproduces fit's test metrics from the saved model, with per-output figures.
func TestFitOVK(t *testing.T) {
	dir := t.TempDir()
	train, test := filepath.Join(dir, "train.csv"), filepath.Join(dir, "test.csv")
	if code, _, e := runCLI("generate", "curl-field", "--n", "300", "--seed", "2", "--out", train); code != 0 {
		t.Fatal(e)
	}
	if code, _, e := runCLI("generate", "curl-field", "--n", "100", "--seed", "2", "--out", test); code != 0 {
		t.Fatal(e)
	}
	targets := "y1,y2,y3,y4,y5"
	for _, c := range []struct {
		name string
		args []string
	}{
		{"curl-free", []string{"--ovk", "curl-free", "-D", "100", "--rule", "sr-haar"}},
		{"div-free", []string{"--ovk", "div-free", "-D", "100", "--rule", "orf"}},
		{"helmholtz", []string{"--ovk", "helmholtz:0.7", "-D", "100", "--solver", "cg"}},
		{"decomposable", []string{"--ovk", "decomposable", "--A", "covariance", "-D", "100"}},
		{"curl-free exact", []string{"--ovk", "curl-free", "--exact"}},
	} {
		mpath := filepath.Join(dir, "m.rff")
		args := append([]string{"fit", "--data", train, "--targets", targets, "--sigma", "0.4", "--preprocess", "none",
			"--lambda", "1e-6", "--out", mpath, "--test-data", test, "--json"}, c.args...)
		code, out, errOut := runCLI(args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errOut)
		}
		var rep fitReport
		json.Unmarshal([]byte(out), &rep)
		if rep.Test == nil || len(rep.Test.Regression.PerOutput) != 5 || rep.Test.Regression.PerOutput[4].Name != "y5" {
			t.Fatalf("%s: test %+v", c.name, rep.Test)
		}
		code, out, errOut = runCLI("eval", "--model", mpath, "--data", test, "--json")
		var met rff.Score
		json.Unmarshal([]byte(out), &met)
		if code != 0 || met.Regression == nil || met.Regression.RMSE != rep.Test.Regression.RMSE || met.Regression.R2 != rep.Test.Regression.R2 {
			t.Errorf("%s: eval exit %d %s: %+v vs fit %+v", c.name, code, errOut, met.Regression, rep.Test.Regression)
		}
		// The overall R² pools the outputs: 1 − ΣSSE/ΣSST lies between the smallest and largest per-output R².
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, o := range met.Regression.PerOutput {
			lo, hi = math.Min(lo, o.R2), math.Max(hi, o.R2)
		}
		if met.Regression.R2 < lo-1e-12 || met.Regression.R2 > hi+1e-12 {
			t.Errorf("%s: overall R² %g outside the per-output range [%g, %g]", c.name, met.Regression.R2, lo, hi)
		}
		code, out, _ = runCLI("predict", "--model", mpath, "--data", test)
		if code != 0 || !strings.HasPrefix(out, "y1,y2,y3,y4,y5\n") || strings.Count(out, "\n") != 101 {
			t.Errorf("%s: predict exit %d, %q", c.name, code, out[:min(len(out), 60)])
		}
	}
	for _, c := range [][]string{
		{"fit", "--data", train, "--out", filepath.Join(dir, "e.rff"), "--ovk", "curl-free"},                       // no targets
		{"fit", "--data", train, "--out", filepath.Join(dir, "e.rff"), "--ovk", "curl-free", "--targets", "y1,y2"}, // p ≠ d
		{"fit", "--data", train, "--out", filepath.Join(dir, "e.rff"), "--ovk", "curl-free", "--targets", targets, "--A", "covariance"},
		{"fit", "--data", train, "--out", filepath.Join(dir, "e.rff"), "--ovk", "spiral", "--targets", targets},
		{"fit", "--data", train, "--out", filepath.Join(dir, "e.rff"), "--ovk", "curl-free", "--targets", "y1,zz"},
		{"fit", "--data", train, "--out", filepath.Join(dir, "e.rff"), "--targets", "y1"}, // --targets without --ovk
		{"fit", "--data", train, "--out", filepath.Join(dir, "e.rff"), "--ovk", "curl-free", "--targets", targets, "--cv", "3"},
		// --target would have made the remaining columns inputs without a word.
		{"fit", "--data", train, "--out", filepath.Join(dir, "e.rff"), "--ovk", "decomposable", "--targets", "y1,y2", "--target", "y3"},
	} {
		if code, out, errOut := runCLI(c...); code != 2 || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q", c, code, errOut, out)
		}
	}
}

// TestInconsistentModelFile: a model file whose checksum is valid but whose header contradicts its arrays (an exact
// model with feature weights, an operator-valued kernel on a scalar model, an unknown form) exits 2 with one line.
func TestInconsistentModelFile(t *testing.T) {
	good, err := os.ReadFile("../../testdata/v2/ridge-sr.rff")
	if err != nil {
		t.Fatal(err)
	}
	hl := binary.LittleEndian.Uint32(good[12:])
	header := string(good[16 : 16+hl])
	for _, c := range []struct{ from, to string }{
		{`"task":"regression"`, `"task":"regression","exact":true`},
		{`"task":"regression"`, `"task":"regression","ovk":"curl-free"`},
		{`"form":"cossin"`, `"form":"cosine"`},
		{`"kernel":"gaussian"`, `"kernel":"laplacian"`},
	} {
		h := strings.Replace(header, c.from, c.to, 1)
		if h == header {
			t.Fatalf("%q not in the header", c.from)
		}
		b := append(append([]byte(nil), good[:12]...), binary.LittleEndian.AppendUint32(nil, uint32(len(h)))...)
		b = append(append(b, h...), good[16+hl:len(good)-sha256.Size]...)
		sum := sha256.Sum256(b)
		path := filepath.Join(t.TempDir(), "bad.rff")
		os.WriteFile(path, append(b, sum[:]...), 0o644)
		code, out, errOut := runCLI("eval", "--model", path, "--data", "../../testdata/generated/reg.csv")
		if code != 2 || strings.Count(errOut, "\n") != 1 || out != "" || strings.Contains(errOut, "goroutine") {
			t.Errorf("%s: exit %d, stderr %q", c.to, code, errOut)
		}
	}
}

// TestFitNystrom: rff fit --map nystrom learns the task as random features do, with every selector, FALKON,
// classification and a streamed fit; predict and eval reproduce fit's test metrics through the saved model; flags
// that do not go together are one-line errors with exit code 2.
func TestFitNystrom(t *testing.T) {
	train, test := writeTask(t, false)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"uniform", nil},
		{"kmeans++", []string{"--landmarks", "kmeans++"}},
		{"leverage", []string{"--landmarks", "leverage"}},
		{"falkon", []string{"--solver", "falkon", "--falkon-iter", "300", "--falkon-tol", "1e-9"}},
		{"eigen", []string{"--nystrom-basis", "eigen"}},
		{"stream", []string{"--stream"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			mpath := filepath.Join(dir, c.name+".rff")
			args := append([]string{"fit", "--data", train, "--out", mpath, "--map", "nystrom", "--centres", "150",
				"--lambda", "1e-6", "--test-data", test, "--json"}, c.args...)
			code, out, errOut := runCLI(args...)
			if code != 0 {
				t.Fatalf("fit: exit %d: %s", code, errOut)
			}
			var raw map[string]any
			if err := json.Unmarshal([]byte(out), &raw); err != nil {
				t.Fatalf("fit --json: %v\n%s", err, out)
			}
			info := raw["info"].(map[string]any)
			if info["map"] != "nystrom" || info["centres"] != 150.0 || info["rule"] != "nystrom" {
				t.Fatalf("info %v", info)
			}
			var rep fitReport
			json.Unmarshal([]byte(out), &rep)
			// The target has variance ≈ 0.6 over the inputs; 150 centres in 3 dimensions explain almost all of it.
			if rep.Test == nil || rep.Test.Regression.R2 < 0.95 {
				t.Errorf("test R² = %+v, want ≥ 0.95", rep.Test)
			}
			if c.name == "falkon" && (rep.Fit.Solve == nil || rep.Fit.Solve.Method != "falkon" || rep.Fit.Solve.Iterations < 1) {
				t.Errorf("solve %+v", rep.Fit.Solve)
			}
			code, out, errOut = runCLI("eval", "--model", mpath, "--data", test, "--json")
			if code != 0 {
				t.Fatalf("eval: exit %d: %s", code, errOut)
			}
			var met rff.Score
			json.Unmarshal([]byte(out), &met)
			if met.Regression.RMSE != rep.Test.Regression.RMSE {
				t.Errorf("eval RMSE %v differs from fit's %v", met.Regression.RMSE, rep.Test.Regression.RMSE)
			}
		})
	}
	// Landmarks given in a file: 150 rows of the test file's input columns (with a header, so matched by name).
	raw, _ := os.ReadFile(test)
	var lm strings.Builder
	for i, line := range strings.SplitN(string(raw), "\n", 152)[:151] {
		if i == 0 {
			lm.WriteString("a,b,c\n")
			continue
		}
		lm.WriteString(line[:strings.LastIndexByte(line, ',')] + "\n")
	}
	lmPath := filepath.Join(dir, "landmarks.csv")
	os.WriteFile(lmPath, []byte(lm.String()), 0o644)
	code, out, errOut := runCLI("fit", "--data", train, "--out", filepath.Join(dir, "given.rff"), "--map", "nystrom",
		"--landmarks-file", lmPath, "--lambda", "1e-6", "--test-data", test, "--json")
	if code != 0 {
		t.Fatalf("fit --landmarks-file: exit %d: %s", code, errOut)
	}
	var given fitReport
	json.Unmarshal([]byte(out), &given)
	if given.Info.Landmarks != "given" || given.Info.Centres != 150 || given.Test == nil || given.Test.Regression.R2 < 0.95 {
		t.Errorf("given landmarks: info %+v, test %+v", given.Info, given.Test)
	}
	badLm := filepath.Join(dir, "landmarks-bad.csv")
	os.WriteFile(badLm, []byte("c,b,a\n1,2,3\n"), 0o644)
	labelLm := filepath.Join(dir, "landmarks-labels.csv") // landmarks with a class label left in their last column
	os.WriteFile(labelLm, []byte("1,2,3,x\n4,5,6,y\n"), 0o644)
	ctrain, ctest := writeTask(t, true)
	for _, loss := range []string{"squared", "hinge"} {
		mpath := filepath.Join(dir, "cls-"+loss+".rff")
		code, out, errOut := runCLI("fit", "--data", ctrain, "--out", mpath, "--map", "nystrom", "--centres", "100",
			"--task", "classification", "--loss", loss, "--lambda", "1e-4", "--test-data", ctest, "--json")
		if code != 0 {
			t.Fatalf("fit %s: exit %d: %s", loss, code, errOut)
		}
		var rep fitReport
		json.Unmarshal([]byte(out), &rep)
		if rep.Test == nil || rep.Test.Classification.Accuracy < 0.9 {
			t.Errorf("%s: test %+v, want accuracy ≥ 0.9", loss, rep.Test)
		}
		if code, out, _ := runCLI("predict", "--model", mpath, "--data", ctest, "--target", "last"); code != 0 || strings.Count(out, "\n") != 301 {
			t.Errorf("%s: predict exit %d", loss, code)
		}
	}
	// The decomposable kernel on Nyström features: the targets are named columns, scored per output.
	multi := filepath.Join("..", "..", "testdata", "generated", "multitask.csv")
	code, out, errOut = runCLI("fit", "--data", multi, "--out", filepath.Join(dir, "dec.rff"), "--map", "nystrom",
		"--centres", "40", "--ovk", "decomposable", "--A", "covariance", "--targets", "y1,y2,y3,y4", "--lambda", "1e-3",
		"--test-data", multi, "--json")
	if code != 0 {
		t.Fatalf("fit --ovk decomposable --map nystrom: exit %d: %s", code, errOut)
	}
	var dec fitReport
	json.Unmarshal([]byte(out), &dec)
	if dec.Info.OVK != "decomposable" || dec.Info.Map != "nystrom" || dec.Test == nil || len(dec.Test.Regression.PerOutput) != 4 {
		t.Errorf("decomposable Nyström: %+v, test %+v", dec.Info, dec.Test)
	}
	mpath := filepath.Join(dir, "bad.rff")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--map", "nystrom", "--ovk", "curl-free", "--targets", "a,b,c"}, "random features"},
		{[]string{"--centres", "10"}, "--centres needs --map nystrom"},
		{[]string{"--landmarks", "uniform"}, "--landmarks needs --map nystrom"},
		{[]string{"--nystrom-basis", "eigen"}, "--nystrom-basis needs --map nystrom"},
		{[]string{"--landmarks-file", lmPath}, "--landmarks-file needs --map nystrom"},
		{[]string{"--map", "nystrom", "--landmarks-file", lmPath, "--centres", "10"}, "--centres do not go with it"},
		{[]string{"--map", "nystrom", "--landmarks-file", badLm}, "the model's inputs are [a b c]"},
		{[]string{"--map", "nystrom", "--landmarks-file", filepath.Join(dir, "none.csv")}, "none.csv"},
		{[]string{"--map", "nystrom", "--landmarks-file", labelLm}, `column 4: "x" is not a number (a class label? this file is read with no target column)`},
		{[]string{"--map", "nystrom", "--landmarks-file", mpath}, "also an input file"},
		{[]string{"--map", "nystrom", "--nystrom-basis", "qr"}, "unknown basis"},
		{[]string{"--falkon-iter", "10"}, "--falkon-iter needs --map nystrom"},
		{[]string{"--solver", "falkon"}, "--solver falkon needs --map nystrom"},
		{[]string{"--map", "rbf"}, "--map"},
		{[]string{"--map", "nystrom", "-D", "64"}, "-D"},
		{[]string{"--map", "nystrom", "--rule", "g"}, "--rule"},
		{[]string{"--map", "nystrom", "--form", "cosphase"}, "--form"},
		{[]string{"--map", "nystrom", "--precision", "mixed"}, "--precision"},
		{[]string{"--map", "nystrom", "--centres", "601"}, "exceeds the 600 training rows"},
		{[]string{"--map", "nystrom", "--centres", "-3"}, "centres"},
		{[]string{"--map", "nystrom", "--landmarks", "random"}, "landmark selection"},
		{[]string{"--map", "nystrom", "--exact"}, "exact"},
		{[]string{"--map", "nystrom", "--falkon-tol", "1e-3"}, "--solver falkon"},
		{[]string{"--map", "nystrom", "--solver", "falkon", "--uncertainty"}, "uncertainty"},
		// 150 landmarks of these 3 inputs span fewer directions: FALKON's solution over all of them is not a model
		// of the eigen basis (TestFalkonEqualsNystromRidge fits FALKON in an eigen basis that keeps every direction).
		{[]string{"--map", "nystrom", "--centres", "150", "--lambda", "1e-6", "--solver", "falkon", "--nystrom-basis", "eigen"}, "--nystrom-basis cholesky"},
		{[]string{"--map", "nystrom", "--solver", "falkon", "--stream"}, "FALKON"},
		{[]string{"--map", "nystrom", "--centres", "100", "--max-memory", "1MiB"}, "lower --centres"},
		{[]string{"--map", "nystrom", "--centres", "100", "--solver", "falkon", "--max-memory", "100KiB"}, "a block of K_NM for M = 100 centres"},
		{[]string{"--map", "nystrom", "--centres", "100", "--solver", "falkon", "--falkon-store", "--max-memory", "100KiB"}, "the stored 600×100 K_NM"},
	} {
		args := append([]string{"fit", "--data", train, "--out", mpath}, c.args...)
		code, out, errOut := runCLI(args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", c.args, code, errOut, c.want)
		}
	}
	if _, err := os.Stat(mpath); err == nil {
		t.Error("a refused fit wrote its model")
	}
	code, out, _ = runCLI("fit", "-h")
	for _, flag := range []string{"-map", "-centres", "-landmarks", "-landmarks-file", "-nystrom-basis", "-falkon-iter", "-falkon-tol", "falkon"} {
		if code != 0 || !strings.Contains(out, flag) {
			t.Errorf("fit -h lacks %s", flag)
		}
	}
}

// TestServeNystrom: rff serve loads Nyström models (ridge and FALKON, the golden files) through rff.Model and answers
// with the library's predictions bit for bit.
func TestServeNystrom(t *testing.T) {
	models := t.TempDir()
	copyGolden(t, models, "nystrom-ridge", "ny")
	copyGolden(t, models, "nystrom-falkon", "falkon")
	addr, codec, stderr := startServe(t, "--models", models)
	X := []float64{-1.048141, 5.442292, -0.260090, -1.737885, 0.131680, 0.674938, 0.5, -0.25, 1e-7}
	for _, name := range []string{"ny", "falkon"} {
		m, err := rff.Load(filepath.Join(models, name+".rff"))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := m.PredictRows(X, 3)
		resp, err := http.Post("http://"+addr.String()+"/v2/models/"+name+"/infer", "application/json", bytes.NewReader(inferBody(X, 3, 3)))
		if err != nil {
			t.Fatal(err)
		}
		var a oipAnswer
		err = json.NewDecoder(resp.Body).Decode(&a)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || len(a.Outputs) == 0 {
			t.Fatalf("%s: status %d, %v", name, resp.StatusCode, err)
		}
		var got []float64
		json.Unmarshal(a.Outputs[0].Data, &got)
		if len(got) != 3 {
			t.Fatalf("%s: %d values", name, len(got))
		}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want.Values[i]) {
				t.Fatalf("%s: value %d is %v, the library predicts %v", name, i, got[i], want.Values[i])
			}
		}
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, codec, stderr); code != 0 {
		t.Fatalf("exit %d after SIGINT", code)
	}
}

// TestOutputIsInput checks that an output that is an input under another name — through a symbolic link, a hard link
// or a linked directory — or the --A matrix file, or the data file written beside an approx figure, is refused before
// any work and the input survives byte for byte; so is an output that names a directory.
func TestOutputIsInput(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, 60, 2)
	in := filepath.Join(dir, "in.csv")
	orig, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	link, hard, sub := filepath.Join(dir, "link.csv"), filepath.Join(dir, "hard.csv"), filepath.Join(dir, "sub")
	if err := os.Symlink(in, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Link(in, hard); err != nil {
		t.Skip("no hard links here:", err)
	}
	if err := os.Symlink(dir, sub); err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(dir, "A.csv")
	os.WriteFile(a, []byte("1,0\n0,1\n"), 0o644)
	multi := filepath.Join(dir, "multi.csv")
	os.WriteFile(multi, []byte("x,y1,y2\n0.5,1.5,2.5\n1.5,0.5,3.5\n2.5,2.5,0.5\n3.5,1.5,1.5\n"), 0o644)
	fit := []string{"fit", "-D", "8", "--sigma", "1"}
	for _, c := range []struct {
		args  []string
		file  string // the input that must survive
		wants string
	}{
		{append(fit, "--data", link, "--out", in), in, "is also an input file (" + link + ")"},
		{append(fit, "--data", hard, "--out", in), in, "is also an input file (" + hard + ")"},
		{append(fit, "--data", filepath.Join(sub, "in.csv"), "--out", in), in, "is also an input file"},
		{append(fit, "--data", in, "--out", filepath.Join(dir, "out.rff"), "--report", hard), in, "--report " + hard + " is also an input file"},
		{append(fit, "--data", multi, "--target", "none", "--ovk", "decomposable", "--targets", "y1,y2", "--A", a, "--out", a), a, "--out " + a + " is also an input file"},
		{append(fit, "--data", in, "--out", dir), in, "--out " + dir + " is a directory"},
		{[]string{"approx", "--data", in, "--runs", "1", "--samples", "20", "--n", "1", "--rules", "g", "--plot", filepath.Join(dir, "in.png")}, in, "--plot's data file " + in + " is also an input file"},
	} {
		before, _ := os.ReadFile(c.file)
		code, out, errOut := runCLI(c.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.wants) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one line with %q", c.args, code, out, errOut, c.wants)
		}
		if after, _ := os.ReadFile(c.file); !bytes.Equal(after, before) {
			t.Fatalf("%v: %s changed", c.args, c.file)
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced (%v)", err)
	}
}

// TestFitTestDataSniffed: a headerless training CSV with --target first, scored on a LibSVM test file whose name has
// no extension: the test file is read as LibSVM (by its content, as the training file would be), with its labels,
// not as CSV with --target first.
func TestFitTestDataSniffed(t *testing.T) {
	dir := t.TempDir()
	var train, test strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&train, "%d,%d,%d\n", 3*i, i, i%5)
	}
	for i := 31; i <= 40; i++ {
		fmt.Fprintf(&test, "%d 1:%d 2:%d\n", 3*i, i, i%5)
	}
	tr, te := filepath.Join(dir, "train.csv"), filepath.Join(dir, "test")
	os.WriteFile(tr, []byte(train.String()), 0o644)
	os.WriteFile(te, []byte(test.String()), 0o644)
	if code, _, errOut := runCLI("fit", "--data", tr, "--target", "first", "-D", "20", "--test-data", te, "--out", filepath.Join(dir, "m.rff")); code != 0 {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// A hinge or logistic fit stopped by --max-iter short of its tolerance is written with a note that says so, and
// its solve (method, iterations, residual, note) is in fit --json; one that converges has no note.
func TestClassifierIterationNote(t *testing.T) {
	data := "../../testdata/generated/cls.csv"
	out := filepath.Join(t.TempDir(), "m.rff")
	for _, tc := range []struct {
		loss, iter, method, note string
	}{
		{"logistic", "2", "lbfgs", "L-BFGS stopped after 2 iterations"},
		{"hinge", "1", "dual-cd", "dual coordinate descent stopped after 1 epochs"},
		{"logistic", "0", "lbfgs", ""},
	} {
		t.Run(tc.loss+"/"+tc.iter, func(t *testing.T) {
			code, stdout, stderr := runCLI("fit", "--data", data, "--out", out, "--task", "classification", "--loss", tc.loss,
				"-D", "16", "--sigma", "1", "--lambda", "1e-3", "--max-iter", tc.iter, "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var rep struct {
				Fit struct {
					Solve *struct {
						Method     string  `json:"method"`
						Note       string  `json:"note"`
						Iterations int     `json:"iterations"`
						Residual   float64 `json:"residual"`
					} `json:"solve"`
				} `json:"fit"`
			}
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatal(err)
			}
			sv := rep.Fit.Solve
			if sv == nil || sv.Method != tc.method || sv.Iterations < 1 {
				t.Fatalf("fit.solve = %+v, want method %s", sv, tc.method)
			}
			if tc.note == "" {
				if sv.Note != "" || strings.Contains(stderr, "note:") {
					t.Fatalf("a converged fit has a note: %q, stderr %q", sv.Note, stderr)
				}
				return
			}
			if !strings.HasPrefix(sv.Note, tc.note) {
				t.Errorf("fit.solve.note = %q, want %q…", sv.Note, tc.note)
			}
			if want := "rff fit: note: " + tc.note; !strings.Contains(stderr, want) || !strings.Contains(stderr, "(raise --max-iter or --lambda)") {
				t.Errorf("stderr %q, want %q and the remedy", stderr, want)
			}
		})
	}
}
