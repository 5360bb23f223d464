package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rffkit/rff"
)

// TestFitTuneTasks: rff fit --tune for classifiers (held-out accuracy by default; the hinge loss by refits over its
// short default grid), for decomposable vector-valued models and for curl-free and divergence-free fields, with the
// table, --json and --report, and for hermite models (GCV of the stacked value and derivative rows).
func TestFitTuneTasks(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, 60, 2)
	multi := filepath.Join(dir, "multi.csv")
	if code, _, errOut := runCLI("generate", "multitask", "--n", "80", "--noise", "0.2", "--out", multi); code != 0 {
		t.Fatalf("generate: %s", errOut)
	}
	curl := filepath.Join(dir, "curl.csv")
	if code, _, errOut := runCLI("generate", "curl-field", "--n", "40", "--out", curl); code != 0 {
		t.Fatalf("generate: %s", errOut)
	}
	// Gradient-enhanced data: f(a, b) = sin a + b²/2 at 40 points, its values and partial derivatives.
	var xs, vs, gs strings.Builder
	xs.WriteString("a,b\n")
	vs.WriteString("f\n")
	gs.WriteString("g1,g2\n")
	for i := range 40 {
		a, b := math.Sin(float64(3*i)), math.Cos(float64(5*i))*1.5
		fmt.Fprintf(&xs, "%g,%g\n", a, b)
		fmt.Fprintf(&vs, "%g\n", math.Sin(a)+b*b/2)
		fmt.Fprintf(&gs, "%g,%g\n", math.Cos(a), b)
	}
	hx, hv, hg := filepath.Join(dir, "hx.csv"), filepath.Join(dir, "hv.csv"), filepath.Join(dir, "hg.csv")
	for path, text := range map[string]string{hx: xs.String(), hv: vs.String(), hg: gs.String()} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type tuneJSON struct {
		Fit struct {
			Tune struct {
				Criterion      string      `json:"criterion"`
				Score          string      `json:"score"`
				HigherIsBetter bool        `json:"higher_is_better"`
				Lambdas        []float64   `json:"lambdas"`
				Scores         [][]float64 `json:"scores"`
			} `json:"tune"`
		} `json:"fit"`
	}
	for _, c := range []struct {
		name      string
		args      []string
		criterion string
		score     string
		lambdas   int
	}{
		{"squared", []string{"--data", data, "--task", "classification"}, "cv", "CV accuracy", 17},
		{"simplex gcv", []string{"--data", data, "--task", "classification", "--encoding", "simplex", "--select", "gcv"}, "gcv", "GCV", 17},
		{"hinge", []string{"--data", data, "--task", "classification", "--loss", "hinge"}, "cv", "CV accuracy", 6},
		{"logistic grid", []string{"--data", data, "--task", "classification", "--loss", "logistic", "--lambdas", "1e-4,1e-2"}, "cv", "CV accuracy", 2},
		{"decomposable", []string{"--data", multi, "--target", "none", "--ovk", "decomposable", "--targets", "y1,y2,y3,y4", "-A", "covariance"}, "gcv", "GCV", 17},
		{"decomposable cv", []string{"--data", multi, "--target", "none", "--ovk", "decomposable", "--targets", "y1,y2,y3,y4", "--cv", "3"}, "cv", "CV MSE", 17},
		{"curl-free", []string{"--data", curl, "--target", "none", "--ovk", "curl-free", "--targets", "y1,y2,y3,y4,y5"}, "gcv", "GCV", 17},
		{"hermite", []string{"--data", hx, "--task", "hermite", "--values", hv, "--gradients", hg}, "gcv", "GCV", 17},
		{"exact", []string{"--data", data, "--exact"}, "gcv", "GCV", 17},
		{"exact classification evidence", []string{"--data", data, "--exact", "--task", "classification", "--select", "evidence"}, "evidence", "log evidence", 17},
		{"hermite evidence", []string{"--data", hx, "--task", "hermite", "--values", hv, "--gradients", hg, "--select", "evidence"}, "evidence", "log evidence", 17},
		{"div-free evidence", []string{"--data", curl, "--target", "none", "--ovk", "div-free", "--targets", "y1,y2,y3,y4,y5", "--select", "evidence"}, "evidence", "log evidence", 17},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".rff")
			args := []string{"fit", "--out", out, "--tune", "--sigmas", "0.5,2"}
			if !slices.Contains(c.args, "--exact") { // an exact fit draws no features: -D and --rule are refused
				args = append(args, "-D", "8", "--rule", "g")
			}
			args = append(args, c.args...)
			code, stdout, errOut := runCLI(args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.Contains(stdout, "chosen by "+c.criterion) || !strings.Contains(stdout, c.score) {
				t.Errorf("output lacks the criterion %q or the score %q:\n%s", c.criterion, c.score, stdout)
			}
			code, stdout, errOut = runCLI(append(args, "--json")...)
			if code != 0 {
				t.Fatalf("--json: exit %d: %s", code, errOut)
			}
			var j tuneJSON
			if err := json.Unmarshal([]byte(stdout), &j); err != nil {
				t.Fatalf("--json: %v\n%s", err, stdout)
			}
			tu := j.Fit.Tune
			if tu.Criterion != c.criterion || tu.Score != c.score || tu.HigherIsBetter != (c.score == "CV accuracy" || c.score == "log evidence") || len(tu.Lambdas) != c.lambdas || len(tu.Scores) != 2 {
				t.Errorf("--json tune: %+v", tu)
			}
		})
	}
	rpath := filepath.Join(dir, "r.html")
	if code, _, errOut := runCLI("fit", "--data", data, "--task", "classification", "--out", filepath.Join(dir, "r.rff"), "-D", "8", "--tune", "--sigmas", "1", "--report", rpath); code != 0 {
		t.Fatalf("--report: %s", errOut)
	}
	page, err := os.ReadFile(rpath)
	if err != nil || !strings.Contains(string(page), "CV accuracy") {
		t.Errorf("the report does not name the accuracy score (%v)", err)
	}
}

// TestFitTuneRefusals: combinations tuning cannot score are refused in one line that names the reason, with exit
// code 2.
func TestFitTuneRefusals(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, 30, 2)
	curl := filepath.Join(dir, "curl.csv")
	if code, _, errOut := runCLI("generate", "curl-field", "--n", "30", "--out", curl); code != 0 {
		t.Fatalf("generate: %s", errOut)
	}
	field := "y1,y2,y3,y4,y5"
	values := filepath.Join(dir, "values.csv")
	if err := os.WriteFile(values, []byte("f\n"+strings.Repeat("1\n", 30)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", data, "--exact", "--select", "cv"}, "exact models are tuned by gcv or evidence"},
		{[]string{"--data", data, "--task", "classification", "--loss", "hinge", "--select", "gcv"}, "cross-validation"},
		{[]string{"--data", curl, "--target", "none", "--ovk", "curl-free", "--targets", field, "--select", "cv"}, "curl-free kernel is tuned by gcv or evidence"},
		{[]string{"--data", curl, "--target", "none", "--ovk", "div-free", "--targets", field, "--select", "cv"}, "div-free kernel is tuned by gcv or evidence"},
		{[]string{"--data", data, "--select", "cv", "--cv", "1"}, "2 folds"},
		{[]string{"--data", data, "--stream"}, "tune without --stream on the first rows (--tune --train N)"},
		{[]string{"--data", data, "--task", "hermite", "--values", values, "--select", "cv"}, "hermite models are tuned by gcv or evidence"},
	} {
		args := []string{"fit", "--out", filepath.Join(dir, "m.rff"), "--tune"}
		if !slices.Contains(c.args, "--exact") { // an exact fit draws no features: -D is refused
			args = append(args, "-D", "8")
		}
		args = append(args, c.args...)
		code, _, errOut := runCLI(args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line naming %q", c.args, code, errOut, c.want)
		}
	}
}

// TestPrintTuneTies: the table's best λ of a σ is the one tuning would choose — on ties the larger λ — so that the
// starred row shows the pair of the header.
func TestPrintTuneTies(t *testing.T) {
	tr := &rff.TuneResult{Criterion: "cv", Score: "CV accuracy", HigherIsBetter: true, Rows: 30,
		Sigmas: []float64{1, 2}, Lambdas: []float64{1e-3, 1e-2, 1e-1},
		Scores: [][]float64{{0.3, 0.3, 0.2}, {0.1, 0.2, 0.2}}, Sigma: 1, Lambda: 1e-2}
	var b strings.Builder
	printTune(&b, tr)
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 4 || strings.Fields(lines[2])[1] != "0.01" || !strings.HasSuffix(lines[2], "*") || strings.Fields(lines[3])[1] != "0.1" {
		t.Errorf("table:\n%s\nwant σ = 1 at λ = 0.01 (starred) and σ = 2 at λ = 0.1", b.String())
	}
}
