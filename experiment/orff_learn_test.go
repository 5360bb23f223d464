package experiment_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/experiment"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
	"github.com/rffkit/rff/vector"
)

const sharedData = "../../shared/data"

// rowsOf returns the rows of one panel and model.
func rowsOf(rows []experiment.LearnRow, panel, model string) []experiment.LearnRow {
	var out []experiment.LearnRow
	for _, r := range rows {
		if r.Panel == panel && r.Model == model {
			out = append(out, r)
		}
	}
	return out
}

func TestORFFFig2Small(t *testing.T) {
	if _, err := os.Stat(sharedData + "/mnist"); err != nil {
		t.Skip("MNIST not available:", err)
	}
	calls := 0
	s := experiment.ORFFFig2{DataDir: sharedData, LambdaGrid: []float64{1e-4, 1e-2}, ErrorN: 60, Ds: []int{10, 50},
		TimeD: 20, Ns: []int{50, 100, 200}, ExactMaxN: 50, ExactMaxBytes: 200000, Test: 200, Runs: 2,
		Progress: func() { calls++ }}
	rows, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// 1 CV + 2 runs × (exact + 2 D) + 3 N × 2 runs ORFF + 1 N × 2 runs exact.
	if calls != 1+6+6+2 || s.Steps() != calls {
		t.Fatalf("%d progress calls, %d steps", calls, s.Steps())
	}
	ex := rowsOf(rows, "error", "exact OVK")
	or := rowsOf(rows, "error", "ORFF")
	if len(ex) != 1 || len(or) != 2 || or[1].D != 50 || ex[0].Lambda != 1e-4 && ex[0].Lambda != 1e-2 {
		t.Fatalf("error rows %+v %+v", ex, or)
	}
	for _, r := range append(ex, or...) {
		if r.Runs != 2 || !(r.Mean > 0 && r.Mean < 0.9) || r.N != 60 || !strings.Contains(ex[0].Note, "2-fold CV") {
			t.Errorf("error row %+v", r)
		}
	}
	tm := rowsOf(rows, "time", "ORFF")
	te := rowsOf(rows, "time", "exact OVK")
	if len(tm) != 3 || len(te) != 3 {
		t.Fatalf("time rows %+v %+v", tm, te)
	}
	for _, r := range tm {
		checkStat(t, fmt.Sprint("ORFF N=", r.N), r.Stat, 2)
	}
	checkStat(t, "exact N=50", te[0].Stat, 2)
	// N = 100: 80 kB fits the 200 kB guard but is above exact_max_n; N = 200: 320 kB is refused by the guard.
	if te[1].Runs != 0 || !strings.HasPrefix(te[1].Note, "skipped") || te[2].Runs != 0 ||
		!strings.HasPrefix(te[2].Note, "refused by the memory guard") || !strings.Contains(te[2].Note, "limit") {
		t.Errorf("exact rows beyond exact_max_n: %+v, %+v", te[1], te[2])
	}
	sum, err := s.Summarize(rows)
	if err != nil || len(sum.Fits) != 1 || !strings.Contains(sum.Finding, "Figure 2") ||
		!strings.Contains(sum.Finding, "memory guard at N = 200") {
		t.Fatalf("summary %+v, %v", sum, err)
	}
	t.Log(sum.Finding)
	paths, err := s.Write(t.TempDir(), rows)
	if err != nil || len(paths) != 2 {
		t.Fatal(paths, err)
	}
	if series := checkFigure(t, paths[0]); series["exact OVK"] != 1 || len(series) != 2 {
		t.Errorf("time CSV series %v", series)
	}
	if series := checkFigure(t, paths[1]); series["exact OVK"] != 2 || series["ORFF"] != 2 {
		t.Errorf("error CSV series %v", series)
	}
}

func TestORFFFig2Settings(t *testing.T) {
	for _, s := range []experiment.ORFFFig2{
		{Sigma: -1}, {Lambda: -1}, {LambdaGrid: []float64{0}}, {ErrorN: 3}, {Ds: []int{0}}, {Ns: []int{-5}},
		{Runs: -1}, {Test: -1}, {LambdaRule: "max"},
	} {
		if _, err := s.WithDefaults(); err == nil || s.Steps() != 0 {
			t.Errorf("%+v accepted", s)
		}
	}
	s, err := experiment.ORFFFig2{}.WithDefaults()
	if err != nil || s.Sigma != 10 || s.TimeD != 1000 || s.ErrorN != 1000 || s.Ns[len(s.Ns)-1] != 60000 ||
		s.LambdaRule != "1se" {
		t.Fatalf("defaults %+v, %v", s, err)
	}
	if _, err := (experiment.ORFFFig2{DataDir: t.TempDir(), Runs: 1}).Run(context.Background()); err == nil {
		t.Error("missing MNIST accepted")
	}
}

func TestORFFFig3Small(t *testing.T) {
	calls := 0
	s := experiment.ORFFFig3{Train: 200, Test: 100, Lambda: 1e-3, Ds: []int{10, 40}, ExactN: 100, ExactMaxBytes: 1e7,
		TimeNs: []int{50, 100, 200, 400}, TimeD: 10, TimeExactMaxRows: 500, Checks: 10, Runs: 2, Seed: 2,
		Progress: func() { calls++ }}
	rows, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// R²: 2 D × 2 runs × 2 models + 2 exact; time: 4 N × 2 runs × 2 + curl exact (N=50, 100) and KRR (every N) × 2 runs.
	if calls != 8+2+16+4+8 || s.Steps() != calls {
		t.Fatalf("%d progress calls, %d steps", calls, s.Steps())
	}
	curl, ind := rowsOf(rows, "r2", "curl-free ORFF"), rowsOf(rows, "r2", "independent RFF")
	ex, krr := rowsOf(rows, "r2", "curl-free OVK"), rowsOf(rows, "r2", "independent KRR")
	if len(curl) != 2 || len(ind) != 2 || len(ex) != 1 || len(krr) != 1 || ex[0].N != 100 || krr[0].N != 200 {
		t.Fatalf("R² rows %+v %+v %+v %+v", curl, ind, ex, krr)
	}
	for _, r := range append(curl, ind...) {
		h := 1.96 * r.Std / math.Sqrt2
		if r.Runs != 2 || r.Mean >= 1 || math.Abs(r.CI95[1]-r.Mean-h) > 1e-12 || r.Lambda != 1e-3 {
			t.Errorf("R² %+v", r)
		}
	}
	if ex[0].Runs != 1 || krr[0].Runs != 1 || !(ex[0].Mean > 0 && ex[0].Mean < 1) || !(krr[0].Mean > 0) {
		t.Errorf("exact rows %+v %+v", ex[0], krr[0])
	}
	// A curl-free model's Jacobian is symmetric; independent regressions are not curl-free.
	for _, r := range curl {
		if !(r.Asymmetry < 1e-10) {
			t.Errorf("curl-free ORFF D=%d: Jacobian asymmetry %g", r.D, r.Asymmetry)
		}
	}
	for _, r := range ind {
		if !(r.Asymmetry > 1e-3) {
			t.Errorf("independent RFF D=%d: Jacobian asymmetry %g", r.D, r.Asymmetry)
		}
	}
	if !(ex[0].Asymmetry < 1e-4) || !(krr[0].Asymmetry > 1e-3) {
		t.Errorf("exact asymmetries: curl-free %g, independent %g", ex[0].Asymmetry, krr[0].Asymmetry)
	}
	// Time panel: the curl-free OVK at N=200 (1000 system rows, 8 MB) fits the 10 MB guard but is skipped, at N=400
	// (32 MB) it is refused; KRR is timed at every N.
	te := rowsOf(rows, "time", "curl-free OVK")
	tk := rowsOf(rows, "time", "independent KRR")
	if len(te) != 4 || te[1].Runs != 2 || !strings.HasPrefix(te[2].Note, "skipped") ||
		!strings.HasPrefix(te[3].Note, "refused by the memory guard") {
		t.Errorf("curl-free OVK time rows %+v", te)
	}
	if len(tk) != 4 || tk[3].Runs != 2 {
		t.Errorf("KRR time rows %+v", tk)
	}
	sum, err := s.Summarize(rows)
	if err != nil || len(sum.Fits) != 4 || !strings.Contains(sum.Finding, "Figure 3") ||
		!strings.Contains(sum.Finding, "curl-free (met)") || !strings.Contains(sum.Finding, "gap to ORFF") {
		t.Fatalf("summary %+v, %v", sum, err)
	}
	t.Log(sum.Finding)
	paths, err := s.Write(t.TempDir(), rows)
	if err != nil || len(paths) != 2 {
		t.Fatal(paths, err)
	}
	if series := checkFigure(t, paths[0]); len(series) != 4 || series["curl-free ORFF"] != 2 {
		t.Errorf("R² CSV series %v", series)
	}
	if series := checkFigure(t, paths[1]); len(series) != 4 || series["curl-free OVK"] != 2 {
		t.Errorf("time CSV series %v", series)
	}
}

func TestORFFFig3Settings(t *testing.T) {
	for _, s := range []experiment.ORFFFig3{
		{Sigma: -1}, {Lambda: -1}, {Noise: -1}, {Train: 1}, {ExactN: 6000}, {Ds: []int{0}}, {TimeNs: []int{0}},
		{Runs: -2},
	} {
		if _, err := s.WithDefaults(); err == nil || s.Steps() != 0 {
			t.Errorf("%+v accepted", s)
		}
	}
	s, err := experiment.ORFFFig3{}.WithDefaults()
	if err != nil || s.Train != 5000 || s.Test != 2000 || s.Sigma != 0.4 || s.ExactN != 5000 || !containsInt(s.Ds, 1600) {
		t.Fatalf("defaults %+v, %v", s, err)
	}
}

func containsInt(v []int, x int) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}

func TestORFFMultitaskSmall(t *testing.T) {
	calls := 0
	s := experiment.ORFFMultitask{Ns: []int{20, 60}, Test: 200, Validation: 100, D: 20, Runs: 2,
		Progress: func() { calls++ }}
	rows, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if calls != 4 || s.Steps() != 4 || len(rows) != 16 {
		t.Fatalf("%d calls, %d steps, %d rows", calls, s.Steps(), len(rows))
	}
	var rmse = map[string]float64{}
	for _, r := range rows {
		if r.Panel == "gain" {
			// The paired reductions come after the models' RMSE rows of their N.
			ri, rc, rd := rmse[fmt.Sprint("I", r.N)], rmse[fmt.Sprint("cov", r.N)], rmse[fmt.Sprint("diag", r.N)]
			if r.Runs != 2 || !(math.Abs(r.Mean) < 0.5) || ri == 0 || rc == 0 || rd == 0 {
				t.Errorf("gain row %+v", r)
			}
			continue
		}
		checkStat(t, fmt.Sprintf("%s %s N=%d", r.Panel, r.Model, r.N), r.Stat, 2)
		if r.D != 20 || !(r.Lambda >= 1e-9 && r.Lambda <= 0.1) || r.Panel == "r2" && r.Mean >= 1 {
			t.Errorf("row %+v", r)
		}
		if r.Panel == "rmse" {
			key := "I"
			switch {
			case strings.Contains(r.Model, "diag"):
				key = "diag"
			case strings.Contains(r.Model, "covariance"):
				key = "cov"
			}
			rmse[fmt.Sprint(key, r.N)] = r.Mean
		}
	}
	sum, err := s.Summarize(rows)
	if err != nil || len(sum.Fits) != 3 || !strings.Contains(sum.Finding, "N=60") || !strings.Contains(sum.Finding, "diag") {
		t.Fatalf("summary %+v, %v", sum, err)
	}
	t.Log(sum.Finding)
	paths, err := s.Write(t.TempDir(), rows)
	if err != nil || len(paths) != 2 {
		t.Fatal(paths, err)
	}
	for _, p := range paths {
		if series := checkFigure(t, p); len(series) != 3 {
			t.Errorf("%s: series %v", p, series)
		}
	}
	for _, bad := range []experiment.ORFFMultitask{{Ns: []int{1}}, {Sigma: -1}, {D: -1}, {LambdaGrid: []float64{-1}}} {
		if _, err := bad.WithDefaults(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// The multi-task study solves both models from one pass of scalar statistics: the scalar features of decomposable
// maps with the same rule and seed do not depend on A.
func TestSharedScalarStatistics(t *testing.T) {
	g, err := dataset.GenerateMultitask(300, 4, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	A, err := ovk.OutputCovariance(g.Y, g.N, g.P)
	if err != nil {
		t.Fatal(err)
	}
	eye := mat.NewSymDense(g.P, nil)
	for a := 0; a < g.P; a++ {
		eye.SetSym(a, a, 1)
	}
	kI, _ := ovk.NewDecomposable(kernel.Gaussian{S: 2}, eye)
	kA, _ := ovk.NewDecomposable(kernel.Gaussian{S: 2}, A)
	mI, _ := ovk.New(kI, rule.G{}, g.D, 30, 9)
	mA, _ := ovk.New(kA, rule.G{}, g.D, 30, 9)
	st, err := vector.Accumulate(mI, g.X, g.N, g.Y)
	if err != nil {
		t.Fatal(err)
	}
	lambdas := []float64{1e-6, 1e-3}
	shared, err := vector.Ridge{Intercept: true}.SolvePath(mA, st, lambdas)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := vector.Ridge{Intercept: true}.FitPath(mA, g.X, g.N, g.Y, lambdas)
	if err != nil {
		t.Fatal(err)
	}
	p1, p2 := make([]float64, g.N*g.P), make([]float64, g.N*g.P)
	for i := range lambdas {
		_ = shared[i].Predict(p1, mA, g.X, g.N)
		_ = direct[i].Predict(p2, mA, g.X, g.N)
		for j := range p1 {
			if math.Abs(p1[j]-p2[j]) > 1e-9*(1+math.Abs(p2[j])) {
				t.Fatalf("λ=%g: prediction %d: shared %g, direct %g", lambdas[i], j, p1[j], p2[j])
			}
		}
	}
}

func TestLearnMetrics(t *testing.T) {
	y := []float64{1, 10, 2, 20, 3, 30}
	if r := experiment.MultiR2(y, y, 3, 2); r != 1 {
		t.Errorf("perfect R² %g", r)
	}
	// Predicting each output's mean gives R² = 0.
	if r := experiment.MultiR2([]float64{2, 20, 2, 20, 2, 20}, y, 3, 2); math.Abs(r) > 1e-15 {
		t.Errorf("mean prediction R² %g", r)
	}
	if e := experiment.RMSE([]float64{0, 0}, []float64{3, 4}); math.Abs(e-math.Sqrt(12.5)) > 1e-15 {
		t.Errorf("RMSE %g", e)
	}
	if a := experiment.Asymmetry([]float64{1, 2, 2, 3}, 2); a != 0 {
		t.Errorf("symmetric: %g", a)
	}
	if a := experiment.Asymmetry([]float64{0, 1, -1, 0}, 2); a != 2 {
		t.Errorf("antisymmetric: %g", a)
	}
	if a := experiment.Asymmetry(make([]float64, 4), 2); a != 0 {
		t.Errorf("zero: %g", a)
	}
}

func ExampleMultiR2() {
	y := []float64{ // 3 rows, 2 outputs
		1, 10,
		2, 20,
		3, 30,
	}
	pred := []float64{
		1, 12,
		2, 20,
		3, 28,
	}
	fmt.Printf("%.4f\n", experiment.MultiR2(pred, y, 3, 2))
	// Output: 0.9604
}

func ExampleRMSE() {
	fmt.Println(experiment.RMSE([]float64{1, 2, 3, 4}, []float64{1, 2, 3, 6}))
	// Output: 1
}

func ExampleAsymmetry() {
	// The Hessian of a potential (the Jacobian of a curl-free field) is symmetric; a rotation field's is not.
	hessian := []float64{2, 1, 1, 3}
	rotation := []float64{0, -1, 1, 0}
	fmt.Println(experiment.Asymmetry(hessian, 2), experiment.Asymmetry(rotation, 2))
	// Output: 0 2
}
