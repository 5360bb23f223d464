package experiment

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/rffkit/rff/rule"
)

const dataDir = "../../shared/data"

// split loads a benchmark or skips the test when the shared data is absent.
func split(t *testing.T, name string, train int) *Split {
	t.Helper()
	b, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.Load(dataDir, train)
	if errors.Is(err, ErrNoData) {
		t.Skipf("%s: %v", name, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBenchmarkSplits(t *testing.T) {
	cases := []struct {
		name            string
		train, test, d  int
		classes         int
		maxAbsTrainData float64 // after preprocessing: 1 for the paper's global-maximum scaling
	}{
		{"powerplant", 8500, 1068, 4, 0, 1},
		{"letter", 10000, 10000, 16, 26, 1},
		{"usps", 7291, 2007, 256, 10, 1},
	}
	for _, c := range cases {
		s := split(t, c.name, 0)
		if s.Train.N != c.train || s.Test.N != c.test || s.Train.D != c.d || len(s.Classes) != c.classes {
			t.Errorf("%s: %d/%d rows × %d, %d classes; want %d/%d × %d, %d", c.name, s.Train.N, s.Test.N, s.Train.D,
				len(s.Classes), c.train, c.test, c.d, c.classes)
		}
		var mx float64
		for _, v := range s.Train.X {
			mx = math.Max(mx, v)
		}
		if math.Abs(mx-c.maxAbsTrainData) > 1e-12 {
			t.Errorf("%s: largest training value %g after the paper's scaling, want %g", c.name, mx, c.maxAbsTrainData)
		}
	}
}

func TestMetrics(t *testing.T) {
	if a := Accuracy([]int{1, 2, 3, 4}, []int{1, 0, 3, 0}); a != 0.5 {
		t.Errorf("accuracy %g, want 0.5", a)
	}
	// y = (1, 2, 3), ȳ = 2, Σ(y−ȳ)² = 2; ŷ = (1, 2, 4): Σ(y−ŷ)² = 1 → R² = 1 − 1/2.
	if r := R2([]float64{1, 2, 4}, []float64{1, 2, 3}); r != 0.5 {
		t.Errorf("R² %g, want 0.5", r)
	}
	// v = (1, 2, 3): mean 2, sample std 1, half-width 1.96/√3.
	m, s, ci := MeanCI([]float64{1, 2, 3})
	if h := 1.96 / math.Sqrt(3); m != 2 || s != 1 || math.Abs(ci[0]-(2-h)) > 1e-15 || math.Abs(ci[1]-(2+h)) > 1e-15 {
		t.Errorf("MeanCI = %g, %g, %v", m, s, ci)
	}
}

// TestQuadFig2Small runs a corner of the study on the real data: one rule, n = 1, one run. The learners must do far
// better than the trivial predictors (the majority class: at most 4.1% on LETTER, 17.9% on USPS; R² = 0 for the
// mean), which is what the paper's figure shows for every rule.
func TestQuadFig2Small(t *testing.T) {
	if testing.Short() {
		t.Skip("maps and fits two real datasets")
	}
	split(t, "letter", 0)
	rules, err := rule.ParseList("sr-butterfly")
	if err != nil {
		t.Fatal(err)
	}
	q := QuadFig2{DataDir: dataDir, Datasets: []string{"powerplant", "letter"}, Kernels: []string{"gaussian"},
		Rules: rules, Ns: []int{1}, Runs: 1, Seed: 1}
	steps := 0
	q.Progress = func() { steps++ }
	sc, err := q.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(sc) != 2 || steps != q.Steps() {
		t.Fatalf("%d scores after %d of %d steps", len(sc), steps, q.Steps())
	}
	t.Logf("%+v\n%+v", sc[0], sc[1])
	if sc[0].Metric != "r2" || sc[0].Mean < 0.8 {
		t.Errorf("powerplant: %+v", sc[0])
	}
	if sc[1].Metric != "accuracy" || sc[1].Mean < 0.5 {
		t.Errorf("letter: %+v", sc[1])
	}
	dir := t.TempDir()
	paths, err := WriteQuadFig2(dir, sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		for _, f := range []string{p, p[:len(p)-len(filepath.Ext(p))] + ".csv"} {
			if st, err := os.Stat(f); err != nil || st.Size() == 0 {
				t.Errorf("%s: %v", f, err)
			}
		}
	}
}
