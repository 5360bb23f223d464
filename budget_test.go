package rff

import (
	"errors"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/vector"
)

func smallData(n, d int) *dataset.Data {
	data := &dataset.Data{N: n, D: d, Y: make([]float64, n)}
	for i := range n * d {
		data.X = append(data.X, math.Sin(float64(i)))
	}
	for i := range data.Y {
		data.Y[i] = data.X[i*d]
	}
	return data
}

// TestBudgetRefusesBeforeAllocating: fits whose memory would exceed the budget are refused at once, with the bytes
// and what needs them, and without allocating them.
func TestBudgetRefusesBeforeAllocating(t *testing.T) {
	data := smallData(500, 4)
	two := smallData(500, 4)
	for i := range two.Y {
		two.Y[i] = float64(i % 2)
	}
	tests := []struct {
		name string
		data *dataset.Data
		cfg  Config
		what string
	}{
		{"D = 100000 with the default budget", data, Config{Points: 100000, Lambda: 1e-3, Rule: "g"}, "ZᵀZ for F = 200000"},
		{"a 1 MiB budget", data, Config{Points: 1024, Lambda: 1e-3, Rule: "g", MaxMemory: 1 << 20}, "ZᵀZ"},
		{"exact", data, Config{Exact: true, Lambda: 1e-3, MaxMemory: 1 << 20}, "Gram matrix"},
		{"hinge", two, Config{Task: "classification", Loss: "hinge", Lambda: 1, Points: 1024, Rule: "g", MaxMemory: 1 << 20}, "feature matrix"},
		// no limit, or a budget above the machine's memory and swap, stands for that memory
		{"no limit", data, Config{Points: 2000000, Lambda: 1e-3, Rule: "g", MaxMemory: -1}, "more than the machine's memory and swap"},
		{"1 EiB", data, Config{Points: 2000000, Lambda: 1e-3, Rule: "g", MaxMemory: 1 << 60}, "more than the machine's memory and swap"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cfg.MaxMemory < 0 || tc.cfg.MaxMemory > 1<<50 {
				if dataset.MachineMemory() <= 0 {
					t.Skip("the machine's memory is not known here")
				}
			}
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := Fit(tc.cfg, tc.data)
			var be *BudgetError
			if !errors.As(err, &be) || !strings.Contains(err.Error(), tc.what) {
				t.Fatalf("err = %v, want a budget error about %q", err, tc.what)
			}
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			// The refusal costs the preprocessed copy of the data and the bookkeeping, nothing of the size refused.
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 || time.Since(start) > 2*time.Second {
				t.Errorf("the refusal allocated %d bytes in %v", grew, time.Since(start))
			}
			if be.Bytes <= be.Budget {
				t.Errorf("estimate %d within the budget %d", be.Bytes, be.Budget)
			}
			if (tc.cfg.MaxMemory < 0 || tc.cfg.MaxMemory > 1<<50) && be.Budget != dataset.MachineMemory() {
				t.Errorf("budget %d, want the machine's %d", be.Budget, dataset.MachineMemory())
			}
		})
	}
}

// TestRounding: an SR rule that would more than double D is refused, or replaced by the fallback rule.
func TestRounding(t *testing.T) {
	data := smallData(20, 300)
	_, err := Fit(Config{Points: 64, Lambda: 1e-3}, data)
	if err == nil || !strings.Contains(err.Error(), "301 points") {
		t.Fatalf("err = %v", err)
	}
	m, err := Fit(Config{Points: 64, Lambda: 1e-3, Fallback: "orf"}, data)
	if err != nil {
		t.Fatal(err)
	}
	if in := m.Info(); in.Rule != "orf" || in.Points != 64 {
		t.Errorf("fallback gave %s with %d points", in.Rule, in.Points)
	}
	if _, err := Fit(Config{Points: 301, Lambda: 1e-3}, data); err != nil {
		t.Errorf("one whole rule: %v", err)
	}
}

// TestClassLimit: a continuous target is not trained as thousands of classes.
func TestClassLimit(t *testing.T) {
	data := smallData(100, 2)
	if _, err := Fit(Config{Task: "classification", Points: 16, Lambda: 1e-3}, data); err == nil || !strings.Contains(err.Error(), "100 distinct values") {
		t.Errorf("err = %v", err)
	}
	if _, err := Fit(Config{Task: "classification", Points: 16, Lambda: 1e-3, MaxClasses: 100}, data); err != nil {
		t.Errorf("with the limit raised: %v", err)
	}
	// Text labels cannot be a regression's target: the refusal asks for the limit only.
	text := smallData(100, 2)
	text.Labels = make([]string, 100)
	for i := range text.Labels {
		text.Labels[i] = "c" + strconv.Itoa(i)
		text.Y[i] = float64(i)
	}
	_, err := Fit(Config{Task: "classification", Points: 16, Lambda: 1e-3}, text)
	if err == nil || !strings.Contains(err.Error(), "100 distinct labels") || strings.Contains(err.Error(), "regression") ||
		!strings.Contains(err.Error(), "Config.MaxClasses") {
		t.Errorf("text labels: err = %v", err)
	}
}

// TestBudgetNamesTheRows: when the copy of the rows is what the budget cannot hold, the refusal says so and points
// to fewer rows, not fewer points.
func TestBudgetNamesTheRows(t *testing.T) {
	data := smallData(20000, 10) // 1.6 MB of inputs; 8 points add a few KiB
	_, err := Fit(Config{Points: 8, Lambda: 1e-3, Rule: "g", Sigma: 1, MaxMemory: 65 << 20}, data)
	var be *BudgetError
	if !errors.As(err, &be) || be.Lower != "rows" || !strings.Contains(be.What, "the preprocessed copy of the 20000×10 inputs") {
		t.Fatalf("err = %v (%+v), want a budget error about the rows", err, be)
	}
	if _, err := Fit(Config{Points: 8, Lambda: 1e-3, Rule: "g", Sigma: 1, MaxMemory: 65 << 20}, smallData(200, 10)); err != nil {
		t.Errorf("200 rows: %v", err)
	}
}

// TestTargetsTooLarge: a target whose square would overflow the ridge statistics is refused, naming its row and
// column, in a scalar and in a vector-valued fit; 1e100 itself is accepted.
func TestTargetsTooLarge(t *testing.T) {
	data := smallData(50, 3)
	data.Y[7] = -1e300
	_, err := Fit(Config{Points: 16, Lambda: 1e-3, Rule: "g", Sigma: 1}, data)
	if err == nil || !strings.Contains(err.Error(), "row 8, target y is -1e+300: too large for the ridge statistics") {
		t.Errorf("scalar: %v", err)
	}
	data.Y[7] = 1e100
	if _, err := Fit(Config{Points: 16, Lambda: 1e-3, Rule: "g", Sigma: 1}, data); err != nil {
		t.Errorf("a target of 1e100: %v", err)
	}
	multi := smallData(50, 3)
	multi.Y, multi.TargetName = nil, ""
	multi.Names = []string{"a", "b", "c"}
	multi.X[4*3+2] = 2e200
	_, err = Fit(Config{Points: 16, Lambda: 1e-3, Rule: "g", Sigma: 1, OVK: "decomposable", Targets: []string{"b", "c"}}, multi)
	if err == nil || !strings.Contains(err.Error(), "row 5, target c is 2e+200") {
		t.Errorf("vector-valued: %v", err)
	}
}

// TestBudgetIterativeOVK: the CG and L-BFGS solvers of a vector-valued fit never form the F×F normal matrix, so the
// budget does not count it for them: a budget that refuses the Cholesky solver's 1200×1200 matrices (nine of them:
// eight shards and the total) admits them.
func TestBudgetIterativeOVK(t *testing.T) {
	const n = 300
	data := &dataset.Data{N: n, D: 6, Names: []string{"u", "v", "w", "y1", "y2", "y3"}}
	for i := range n {
		u, v, w := math.Sin(float64(i)), math.Cos(float64(2*i)), math.Sin(float64(3*i+1))
		data.X = append(data.X, u, v, w, v*w, u*w, u*v) // the gradient of f = uvw
	}
	cfg := Config{OVK: "curl-free", Targets: []string{"y1", "y2", "y3"}, Points: 200, Rule: "g", Sigma: 1, Lambda: 1e-3, MaxMemory: 70 << 20}
	cfg.Solver = "cholesky"
	var be *BudgetError
	if _, err := Fit(cfg, data); !errors.As(err, &be) {
		t.Fatalf("cholesky within 70 MiB: %v, want a budget error", err)
	}
	for _, solver := range []string{"cg", "lbfgs"} {
		cfg.Solver = solver
		if _, err := Fit(cfg, data); err != nil {
			t.Errorf("%s within 70 MiB: %v", solver, err)
		}
	}
}

// TestPathBudget: the cap of choices that change a fit's arithmetic is the budget given, or half of the machine's
// memory — never the default budget, half of the memory free at the moment, which changes from run to run.
func TestPathBudget(t *testing.T) {
	s, err := Config{MaxMemory: 300 << 20}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	if got := s.pathBudget(); got != dataset.CapBudget(300<<20) {
		t.Errorf("with MaxMemory 300 MiB: %d", got)
	}
	s, err = Config{}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	want := int64(vector.DefaultMaxBytes)
	if m := dataset.MachineMemory(); m > 0 {
		want = m / 2
	}
	if got := s.pathBudget(); got != want {
		t.Errorf("by default: %d, want half of the machine's memory %d", got, want)
	}
}
