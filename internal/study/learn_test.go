package study

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
	"github.com/rffkit/rff/vector"
)

func TestORFFFig2Small(t *testing.T) {
	dir := needData(t, "mnist")
	calls := 0
	s := NewORFFFig2()
	s.DataDir, s.LambdaGrid, s.ErrorN, s.Ds = dir, []float64{1e-4, 1e-2}, 60, []int{10, 50}
	s.TimeD, s.Ns, s.ExactMaxN, s.ExactMaxBytes, s.Test, s.Runs = 20, []int{50, 100, 200}, 50, 200000, 200, 2
	s.SetProgress(func() { calls++ })
	rep := runReport[LearnRow](t, s)
	rows := rep.Rows
	// 1 CV + 2 runs × (exact + 2 D) + 3 N × 2 runs ORFF + 1 N × 2 runs exact.
	if calls != 1+6+6+2 || s.Steps() != calls {
		t.Fatalf("%d progress calls, %d steps", calls, s.Steps())
	}
	ex := rowsOf(rows, "error", "exact OVK", false)
	or := rowsOf(rows, "error", "ORFF", false)
	if len(ex) != 1 || len(or) != 2 || or[1].D != 50 || ex[0].Lambda != 1e-4 && ex[0].Lambda != 1e-2 {
		t.Fatalf("error rows %+v %+v", ex, or)
	}
	for _, r := range append(ex, or...) {
		if r.Runs != 2 || !(r.Mean > 0 && r.Mean < 0.9) || r.N != 60 || !strings.Contains(ex[0].Note, "2-fold CV") {
			t.Errorf("error row %+v", r)
		}
	}
	tm := rowsOf(rows, "time", "ORFF", false)
	te := rowsOf(rows, "time", "exact OVK", false)
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
	if len(rep.Fits) != 1 || !strings.Contains(rep.Finding, "Figure 2") ||
		!strings.Contains(rep.Finding, "memory guard at N = 200") {
		t.Fatalf("summary %+v", rep.Summary)
	}
	t.Log(rep.Finding)
	if series := figures(t, rep, 2); series[0]["exact OVK"] != 1 || len(series[0]) != 2 ||
		series[1]["exact OVK"] != 2 || series[1]["ORFF"] != 2 {
		t.Errorf("CSV series of the time and error panels: %v", series)
	}
}

func TestORFFFig2Settings(t *testing.T) {
	reject(t, NewORFFFig2, map[string]func(*ORFFFig2){
		"sigma":    func(s *ORFFFig2) { s.Sigma = -1 },
		"lambda":   func(s *ORFFFig2) { s.Lambda = -1 },
		"grid":     func(s *ORFFFig2) { s.LambdaGrid = []float64{0} },
		"error N":  func(s *ORFFFig2) { s.ErrorN = 3 },
		"D":        func(s *ORFFFig2) { s.Ds = []int{0} },
		"N":        func(s *ORFFFig2) { s.Ns = []int{-5} },
		"runs":     func(s *ORFFFig2) { s.Runs = -1 },
		"test":     func(s *ORFFFig2) { s.Test = -1 },
		"rule":     func(s *ORFFFig2) { s.LambdaRule = "max" },
		"no data":  func(s *ORFFFig2) { s.DataDir = "" },
		"negative": func(s *ORFFFig2) { s.ExactMaxBytes = -1 },
	})
	s := NewORFFFig2()
	if s.Sigma != 10 || s.TimeD != 1000 || s.ErrorN != 1000 || s.Ns[len(s.Ns)-1] != 60000 || s.LambdaRule != "1se" {
		t.Fatalf("defaults %+v", s)
	}
	// A data directory without MNIST: the run fails (wrapping ErrNoData).
	s.DataDir, s.Runs = t.TempDir(), 1
	if _, err := s.Run(t.Context()); err == nil {
		t.Error("missing MNIST accepted")
	}
}

func TestORFFFig3Small(t *testing.T) {
	calls := 0
	s := NewORFFFig3()
	s.Train, s.Test, s.Lambda, s.Ds, s.ExactN, s.ExactMaxBytes = 200, 100, 1e-3, []int{10, 40}, 100, 1e7
	s.TimeNs, s.TimeD, s.TimeExactMaxRows, s.Checks, s.Runs, s.Seed = []int{50, 100, 200, 400}, 10, 500, 10, 2, 2
	s.SetProgress(func() { calls++ })
	rep := runReport[LearnRow](t, s)
	rows := rep.Rows
	// R²: 2 D × 2 runs × 2 models + 2 exact; time: 4 N × 2 runs × 2 + curl exact (N=50, 100) and KRR (every N) × 2 runs.
	if calls != 8+2+16+4+8 || s.Steps() != calls {
		t.Fatalf("%d progress calls, %d steps", calls, s.Steps())
	}
	curl, ind := rowsOf(rows, "r2", "curl-free ORFF", false), rowsOf(rows, "r2", "independent RFF", false)
	ex, krr := rowsOf(rows, "r2", "curl-free OVK", false), rowsOf(rows, "r2", "independent KRR", false)
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
	te := rowsOf(rows, "time", "curl-free OVK", false)
	tk := rowsOf(rows, "time", "independent KRR", false)
	if len(te) != 4 || te[1].Runs != 2 || !strings.HasPrefix(te[2].Note, "skipped") ||
		!strings.HasPrefix(te[3].Note, "refused by the memory guard") {
		t.Errorf("curl-free OVK time rows %+v", te)
	}
	if len(tk) != 4 || tk[3].Runs != 2 {
		t.Errorf("KRR time rows %+v", tk)
	}
	if len(rep.Fits) != 4 || !strings.Contains(rep.Finding, "Figure 3") ||
		!strings.Contains(rep.Finding, "curl-free (met)") || !strings.Contains(rep.Finding, "gap to ORFF") {
		t.Fatalf("summary %+v", rep.Summary)
	}
	t.Log(rep.Finding)
	if series := figures(t, rep, 2); len(series[0]) != 4 || series[0]["curl-free ORFF"] != 2 || len(series[1]) != 4 ||
		series[1]["curl-free OVK"] != 2 {
		t.Errorf("CSV series of the R² and time panels: %v", series)
	}
	var table strings.Builder
	if err := rep.Summarize(&table); err != nil || !strings.Contains(table.String(), "Jacobian asymmetry") ||
		!strings.Contains(table.String(), "note (time, curl-free OVK, N=400): refused") {
		t.Errorf("table %q, %v", table.String(), err)
	}
}

func TestORFFFig3Settings(t *testing.T) {
	reject(t, NewORFFFig3, map[string]func(*ORFFFig3){
		"sigma":   func(s *ORFFFig3) { s.Sigma = -1 },
		"lambda":  func(s *ORFFFig3) { s.Lambda = 0 },
		"noise":   func(s *ORFFFig3) { s.Noise = -1 },
		"train":   func(s *ORFFFig3) { s.Train = 1 },
		"exact N": func(s *ORFFFig3) { s.ExactN = 6000 },
		"D":       func(s *ORFFFig3) { s.Ds = []int{0} },
		"time N":  func(s *ORFFFig3) { s.TimeNs = []int{0} },
		"runs":    func(s *ORFFFig3) { s.Runs = -2 },
		"guard":   func(s *ORFFFig3) { s.ExactMaxBytes = 0 },
	})
	s := NewORFFFig3()
	if s.Train != 5000 || s.Test != 2000 || s.Sigma != 0.4 || s.exactN() != 5000 || !slices.Contains(s.Ds, 1600) {
		t.Fatalf("defaults %+v", s)
	}
}

func TestORFFMultitaskSmall(t *testing.T) {
	calls := 0
	s := NewORFFMultitask()
	s.Ns, s.Test, s.Validation, s.D, s.Runs = []int{20, 60}, 200, 100, 20, 2
	s.SetProgress(func() { calls++ })
	rep := runReport[LearnRow](t, s)
	rows := rep.Rows
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
	if len(rep.Fits) != 3 || !strings.Contains(rep.Finding, "N=60") || !strings.Contains(rep.Finding, "diag") {
		t.Fatalf("summary %+v", rep.Summary)
	}
	t.Log(rep.Finding)
	for i, series := range figures(t, rep, 2) {
		if len(series) != 3 {
			t.Errorf("figure %d: series %v", i, series)
		}
	}
	reject(t, NewORFFMultitask, map[string]func(*ORFFMultitask){
		"N":     func(s *ORFFMultitask) { s.Ns = []int{1} },
		"sigma": func(s *ORFFMultitask) { s.Sigma = -1 },
		"D":     func(s *ORFFMultitask) { s.D = -1 },
		"grid":  func(s *ORFFMultitask) { s.LambdaGrid = []float64{-1} },
		"noise": func(s *ORFFMultitask) { s.Noise = -1 },
	})
}

// The multi-task study solves every model from one pass of scalar statistics: the scalar features of decomposable
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
	kI, _ := ovk.NewDecomposable(kernel.Gaussian{S: 2}, identity(g.P))
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

func TestAsymmetry(t *testing.T) {
	if a := Asymmetry([]float64{1, 2, 2, 3}, 2); a != 0 {
		t.Errorf("symmetric: %g", a)
	}
	if a := Asymmetry([]float64{0, 1, -1, 0}, 2); a != 2 {
		t.Errorf("antisymmetric: %g", a)
	}
	if a := Asymmetry(make([]float64, 4), 2); a != 0 {
		t.Errorf("zero: %g", a)
	}
	// The finite-difference Jacobian of the gradient of ½xᵀHx (H symmetric) is H: asymmetry 0 up to rounding;
	// that of the rotation field (−x₂, x₁) is antisymmetric: 2.
	grad := func(dst, X []float64, n int) error {
		for i := 0; i < n; i++ {
			x := X[2*i : 2*i+2]
			dst[2*i], dst[2*i+1] = 2*x[0]+x[1], x[0]+3*x[1]
		}
		return nil
	}
	rot := func(dst, X []float64, n int) error {
		for i := 0; i < n; i++ {
			dst[2*i], dst[2*i+1] = -X[2*i+1], X[2*i]
		}
		return nil
	}
	pts := []float64{0.3, -0.2, 1, 2}
	if a, err := fdAsymmetry(grad, pts, 2, 2, fdStep); err != nil || a > 1e-10 {
		t.Errorf("gradient field: %g, %v", a, err)
	}
	if a, err := fdAsymmetry(rot, pts, 2, 2, fdStep); err != nil || math.Abs(a-2) > 1e-10 {
		t.Errorf("rotation field: %g, %v", a, err)
	}
}

func ExampleAsymmetry() {
	// The Hessian of a potential (the Jacobian of a curl-free field) is symmetric; a rotation field's is not.
	hessian := []float64{2, 1, 1, 3}
	rotation := []float64{0, -1, 1, 0}
	fmt.Println(Asymmetry(hessian, 2), Asymmetry(rotation, 2))
	// Output: 0 2
}
