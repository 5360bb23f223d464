package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/datadir"
)

// split loads a benchmark or skips the test when the data is absent.
func split(t *testing.T, name string, train int) *Split {
	t.Helper()
	b, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.Load(datadir.Dir(), train)
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

// TestQuadFig2Small runs a corner of the study on the real data: one rule, n = 1, one run. The learners must do far
// better than the trivial predictors (the majority class: at most 4.1% on LETTER, 17.9% on USPS; R² = 0 for the
// mean), which is what the paper's figure shows for every rule.
func TestQuadFig2Small(t *testing.T) {
	if testing.Short() {
		t.Skip("maps and fits two real datasets")
	}
	split(t, "letter", 0)
	q := NewQuadFig2()
	q.DataDir, q.Datasets, q.Kernels, q.Rules, q.Ns, q.Runs = datadir.Dir(), []string{"powerplant", "letter"},
		[]string{"gaussian"}, []string{"sr-butterfly"}, []int{1}, 1
	steps := 0
	q.SetProgress(func() { steps++ })
	res, err := q.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sc := res.(*QuadFig2Result).Scores
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
	paths, err := res.Write(t.TempDir())
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

func TestQuadFig2Settings(t *testing.T) {
	reject(t, NewQuadFig2, map[string]func(*QuadFig2){
		"dataset": func(q *QuadFig2) { q.Datasets = []string{"cifar100"} },
		"kernel":  func(q *QuadFig2) { q.Kernels = []string{"nope"} },
		"rule":    func(q *QuadFig2) { q.Rules = []string{"nope"} },
		"n":       func(q *QuadFig2) { q.Ns = []int{0} },
		"runs":    func(q *QuadFig2) { q.Runs = 0 },
	})
	// Figures: one per (dataset, kernel), one series per rule, in the order of the scores.
	res := &QuadFig2Result{Runs: 1, Seed: 1, Scores: []Score{
		{Dataset: "letter", Kernel: "gaussian", Rule: "g", N: 1, Metric: "accuracy", Mean: 0.6, CI95: [2]float64{0.5, 0.7}},
		{Dataset: "letter", Kernel: "gaussian", Rule: "g", N: 2, Metric: "accuracy", Mean: 0.62, CI95: [2]float64{0.6, 0.64}},
		{Dataset: "letter", Kernel: "gaussian", Rule: "sr-butterfly", N: 1, Metric: "accuracy", Mean: 0.61, CI95: [2]float64{0.6, 0.62}},
		{Dataset: "powerplant", Kernel: "gaussian", Rule: "g", N: 1, Metric: "r2", Mean: 0.9, CI95: [2]float64{0.9, 0.9}},
	}}
	dir := t.TempDir()
	paths, err := res.Write(dir)
	if err != nil || len(paths) != 2 || filepath.Base(paths[1]) != "quad-fig2-powerplant-gaussian.png" {
		t.Fatalf("paths %v, %v", paths, err)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "quad-fig2-letter-gaussian.csv"))
	if string(csv) != "series,x,y,lo,hi\ng,1,0.6,0.5,0.7\ng,2,0.62,0.6,0.64\nsr-butterfly,1,0.61,0.6,0.62\n" {
		t.Errorf("CSV:\n%s", csv)
	}
	var table strings.Builder
	if err := res.Summarize(&table); err != nil || strings.Count(table.String(), "\n") != 5 {
		t.Errorf("table %q, %v", table.String(), err)
	}
	if _, err := (&QuadFig2Result{}).Write(dir); err == nil {
		t.Error("no scores accepted")
	}
}

// miniLeukemia writes a LEUKEMIA directory in the Broad layout with d genes and 2 + 2 patients (1, 2 in the training
// file, 39, 40 in the independent one), values (i−1)·d + j for patient i and gene j, so that the global maximum of
// the training split (patients 1 and 2) is 2d − 1.
func miniLeukemia(t testing.TB, d int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "leukemia")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, ids []int) {
		var b strings.Builder
		b.WriteString("Gene Description,Gene Accession Number")
		for _, id := range ids {
			fmt.Fprintf(&b, ",%d,call", id)
		}
		b.WriteString("\n")
		for j := range d {
			fmt.Fprintf(&b, "gene %d,G%d", j, j)
			for _, id := range ids {
				fmt.Fprintf(&b, ",%d,P", (id-1)*d+j)
			}
			b.WriteString("\n")
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(dataset.LeukemiaTrainFile, []int{2, 1})
	write(dataset.LeukemiaIndependentFile, []int{40, 39})
	if err := os.WriteFile(filepath.Join(dir, dataset.LeukemiaLabelsFile), []byte("patient,cancer\n1,ALL\n2,AML\n39,ALL\n40,AML\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(dir)
}

func TestTimingRowsLeukemia(t *testing.T) {
	const d = 5
	x, dim, err := timingRows(miniLeukemia(t, d), "leukemia", 5)
	if err != nil {
		t.Fatal(err)
	}
	if dim != d || len(x) != 5*d {
		t.Fatalf("d = %d, %d values", dim, len(x))
	}
	// Rows cycle through the 2 training patients, scaled by the training maximum 2d − 1 = 9.
	for i := range 5 {
		for j := range d {
			if want := float64((i%2)*d+j) / (2*d - 1); math.Abs(x[i*d+j]-want) > 1e-15 {
				t.Fatalf("row %d, column %d: %v, want %v", i, j, x[i*d+j], want)
			}
		}
	}
}

func TestQuadFig3Mini(t *testing.T) {
	rs := []string{"g", "orf", "gq", "sr-butterfly", "sorf"}
	calls := 0
	q := NewQuadFig3()
	q.DataDir, q.Datasets, q.Rules, q.N, q.Rows, q.Runs = miniLeukemia(t, 7), []string{"leukemia"}, rs, 2, 300, 3
	q.SetProgress(func() { calls++ })
	if q.Steps() != 15 {
		t.Fatalf("Steps %d, want 15", q.Steps())
	}
	res, err := q.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := res.(*QuadFig3Result)
	ts := r.Timings
	if len(ts) != 5 || calls != 15 || r.Backend == "" || r.Rows != 300 {
		t.Fatalf("%d timings, %d progress calls, %+v", len(ts), calls, r)
	}
	for i, tm := range ts {
		if tm.Dataset != "leukemia" || tm.Dim != 7 || tm.Rule != rs[i] || tm.N != 2 || tm.Rows != 300 || tm.Runs != 3 {
			t.Errorf("timing %d: %+v", i, tm)
		}
		// D = 2n(d+1) = 32 points for every rule (SR rounds up to whole rules of 2(d+1) points: exact here).
		if tm.D != 32 {
			t.Errorf("%s: D = %d, want 32", tm.Rule, tm.D)
		}
		if !(tm.Mean > 0) || !(tm.CI95[0] <= tm.Mean && tm.Mean <= tm.CI95[1]) || !(tm.DrawSeconds > 0) ||
			math.Abs(tm.RowsPerSecond*tm.Mean-300) > 1e-6 {
			t.Errorf("%s: %+v", tm.Rule, tm)
		}
	}
	dir := t.TempDir()
	paths, err := res.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 {
		t.Fatalf("paths %v", paths)
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "quad-fig3.csv"))
	if !strings.HasPrefix(string(csv), "series,x,y,lo,hi\ng,7,") || strings.Count(string(csv), "\n") != 6 {
		t.Errorf("CSV:\n%s", csv)
	}
	var back []Timing
	js, _ := os.ReadFile(filepath.Join(dir, "quad-fig3.json"))
	if err := json.Unmarshal(js, &back); err != nil || len(back) != 5 || back[4] != ts[4] {
		t.Errorf("JSON round trip: %v, %+v", err, back)
	}
	var table strings.Builder
	if err := res.Summarize(&table); err != nil || !strings.HasPrefix(table.String(), "time to map 300 rows, n = 2") ||
		strings.Count(table.String(), "\n") != 7 {
		t.Errorf("table %q, %v", table.String(), err)
	}
}

func TestQuadFig3Errors(t *testing.T) {
	q := NewQuadFig3()
	q.DataDir, q.Datasets = t.TempDir(), []string{"cifar100"}
	if err := q.Validate(); err == nil || !strings.Contains(err.Error(), "cifar100") {
		t.Errorf("unknown dataset: %v", err)
	}
	reject(t, NewQuadFig3, map[string]func(*QuadFig3){
		"n":     func(q *QuadFig3) { q.N = -1 },
		"rows":  func(q *QuadFig3) { q.Rows = -1 },
		"runs":  func(q *QuadFig3) { q.Runs = -2 },
		"rules": func(q *QuadFig3) { q.Rules = []string{"nope"} },
	})
	for _, name := range []string{"leukemia", "letter"} {
		q := NewQuadFig3()
		q.DataDir, q.Datasets, q.Runs = t.TempDir(), []string{name}, 1
		if _, err := q.Run(context.Background()); !errors.Is(err, ErrNoData) {
			t.Errorf("%s without data: %v, want ErrNoData", name, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	q = NewQuadFig3()
	q.DataDir, q.Datasets = miniLeukemia(t, 3), []string{"leukemia"}
	if _, err := q.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := (&QuadFig3Result{}).Write(t.TempDir()); err == nil {
		t.Error("no timings accepted")
	}
}

// TestQuadFig3Real times the real LETTER and LEUKEMIA data with few rows (skipped without the data), and checks the
// paper's point at d = 7129: the butterfly SR map is faster than the dense G map at equal D.
func TestQuadFig3Real(t *testing.T) {
	if _, ok := datadir.Path("leukemia", dataset.LeukemiaLabelsFile); !ok {
		t.Skip("LEUKEMIA not available")
	}
	if testing.Short() {
		t.Skip("maps 7129-dimensional data")
	}
	q := NewQuadFig3()
	q.DataDir, q.Datasets, q.Rules, q.Rows, q.Runs = datadir.Dir(), []string{"letter", "leukemia"},
		[]string{"g", "sr-butterfly"}, 32, 1
	res, err := q.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ts := res.(*QuadFig3Result).Timings
	if len(ts) != 4 || ts[0].Dim != 16 || ts[2].Dim != 7129 || ts[2].D != 14260 || ts[3].D != 14260 {
		t.Fatalf("%+v", ts)
	}
	if ts[3].Mean >= ts[2].Mean {
		t.Errorf("d = 7129: sr-butterfly %.3gs per map, not faster than g %.3gs", ts[3].Mean, ts[2].Mean)
	}
}

// The wall-time study of the quadrature paper's Figure 3 on the real datasets (LETTER, USPS, MNIST and LEUKEMIA,
// d = 16 … 7129): mean seconds to map 1000 rows with D = 2(d+1) points, for G, ORF, GQ and SR-butterfly. `rff repro
// quad-fig3` runs the same study from the command line.
func ExampleQuadFig3() {
	q := NewQuadFig3()
	q.DataDir = datadir.Dir()
	res, err := q.Run(context.Background())
	if err != nil {
		log.Fatal(err) // wraps ErrNoData without the data
	}
	for _, t := range res.(*QuadFig3Result).Timings {
		fmt.Printf("%-8s d=%-5d %-12s D=%-6d %.4fs per map (%.0f rows/s)\n", t.Dataset, t.Dim, t.Rule, t.D, t.Mean, t.RowsPerSecond)
	}
	if _, err := res.Write("docs/figures"); err != nil {
		log.Fatal(err)
	}
}

// Write draws the figure (log-log: seconds against d, one line per rule) and writes its table and the timings
// beside it.
func ExampleQuadFig3Result_Write() {
	dir, err := os.MkdirTemp("", "quad-fig3")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	res := &QuadFig3Result{N: 1, Rows: 1000, Runs: 3, Timings: []Timing{
		{Dataset: "letter", Dim: 16, Rule: "g", N: 1, D: 34, Rows: 1000, Runs: 3, Mean: 0.0011, CI95: [2]float64{0.001, 0.0012}},
		{Dataset: "letter", Dim: 16, Rule: "sr-butterfly", N: 1, D: 34, Rows: 1000, Runs: 3, Mean: 0.0009, CI95: [2]float64{0.0008, 0.001}},
		{Dataset: "leukemia", Dim: 7129, Rule: "g", N: 1, D: 14260, Rows: 1000, Runs: 3, Mean: 2.5, CI95: [2]float64{2.4, 2.6}},
		{Dataset: "leukemia", Dim: 7129, Rule: "sr-butterfly", N: 1, D: 14260, Rows: 1000, Runs: 3, Mean: 0.21, CI95: [2]float64{0.2, 0.22}},
	}}
	paths, err := res.Write(dir)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range paths {
		fmt.Println(filepath.Base(p))
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "quad-fig3.csv"))
	fmt.Print(string(csv))
	// Output:
	// quad-fig3.png
	// quad-fig3.csv
	// quad-fig3.json
	// series,x,y,lo,hi
	// g,16,0.0011,0.001,0.0012
	// g,7129,2.5,2.4,2.6
	// sr-butterfly,16,0.0009,0.0008,0.001
	// sr-butterfly,7129,0.21,0.2,0.22
}
