package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/rule"
)

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
	rs, err := rule.ParseList("g,orf,gq,sr-butterfly,sorf")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	q := QuadFig3{DataDir: miniLeukemia(t, 7), Datasets: []string{"leukemia"}, Rules: rs, N: 2, Rows: 300, Runs: 3,
		Progress: func() { calls++ }}
	if q.Steps() != 15 {
		t.Fatalf("Steps %d, want 15", q.Steps())
	}
	ts, err := q.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 5 || calls != 15 {
		t.Fatalf("%d timings, %d progress calls", len(ts), calls)
	}
	for i, tm := range ts {
		if tm.Dataset != "leukemia" || tm.Dim != 7 || tm.Rule != rs[i].Name() || tm.N != 2 || tm.Rows != 300 || tm.Runs != 3 {
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
	paths, err := WriteQuadFig3(dir, ts)
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
}

func TestQuadFig3Errors(t *testing.T) {
	if err := (QuadFig3{Datasets: []string{"cifar100"}}).Validate(); err == nil || !strings.Contains(err.Error(), "cifar100") {
		t.Errorf("unknown dataset: %v", err)
	}
	for _, q := range []QuadFig3{{N: -1}, {Rows: -1}, {Runs: -2}} {
		if q.Validate() == nil || q.Steps() != 0 {
			t.Errorf("%+v accepted", q)
		}
	}
	missing := t.TempDir()
	for _, name := range []string{"leukemia", "letter"} {
		_, err := QuadFig3{DataDir: missing, Datasets: []string{name}, Runs: 1}.Run(context.Background())
		if !errors.Is(err, ErrNoData) {
			t.Errorf("%s without data: %v, want ErrNoData", name, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (QuadFig3{DataDir: miniLeukemia(t, 3), Datasets: []string{"leukemia"}}).Run(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := WriteQuadFig3(t.TempDir(), nil); err == nil {
		t.Error("no timings accepted")
	}
}

// TestQuadFig3Real times the real LETTER and LEUKEMIA data with few rows (skipped without ../shared/data), and
// checks the paper's point at d = 7129: the butterfly SR map is faster than the dense G map at equal D.
func TestQuadFig3Real(t *testing.T) {
	if _, err := os.Stat(filepath.Join(dataDir, "leukemia", dataset.LeukemiaLabelsFile)); err != nil {
		t.Skipf("shared data not available: %v", err)
	}
	if testing.Short() {
		t.Skip("maps 7129-dimensional data")
	}
	rs, _ := rule.ParseList("g,sr-butterfly")
	ts, err := QuadFig3{DataDir: dataDir, Datasets: []string{"letter", "leukemia"}, Rules: rs, Rows: 32, Runs: 1}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 4 || ts[0].Dim != 16 || ts[2].Dim != 7129 || ts[2].D != 14260 || ts[3].D != 14260 {
		t.Fatalf("%+v", ts)
	}
	if ts[3].Mean >= ts[2].Mean {
		t.Errorf("d = 7129: sr-butterfly %.3gs per map, not faster than g %.3gs", ts[3].Mean, ts[2].Mean)
	}
}
