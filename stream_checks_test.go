package rff

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeStreamCSV writes a CSV of rows rows (a, b, then a target) whose target is label(i) and returns its path.
func writeStreamCSV(t *testing.T, rows int, label func(i int) string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := range rows {
		fmt.Fprintf(&b, "%g,%g,%s\n", float64(i%17)/17, float64(i%5)/5, label(i))
	}
	path := filepath.Join(t.TempDir(), "s.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFitCSVFileChanged: a file that grows (or shrinks) between the two passes is an error — the preprocessing and
// the labels of the first pass would be fitted with other rows' statistics — not a model.
func TestFitCSVFileChanged(t *testing.T) {
	num := func(i int) string { return fmt.Sprint(i % 7) }
	for _, change := range []string{"grows", "shrinks"} {
		path := writeStreamCSV(t, 300, num)
		streamBetweenPasses = func() {
			n := map[string]int{"grows": 400, "shrinks": 200}[change]
			b, err := os.ReadFile(writeStreamCSV(t, n, num))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, err := FitCSV(Config{Points: 16, Sigma: 1, Lambda: 1e-3}, path, StreamOptions{ChunkRows: 64})
		streamBetweenPasses = nil
		if err == nil || !strings.Contains(err.Error(), "the file changed between the passes") {
			t.Errorf("the file %s: %v", change, err)
		}
	}
}

// TestFitCSVClassCapEarly: a classification stream whose target takes more distinct values than any class limit
// allows is refused as soon as the first pass has seen them (its set of values would otherwise grow with the rows).
func TestFitCSVClassCapEarly(t *testing.T) {
	path := writeStreamCSV(t, 5000, func(i int) string { return fmt.Sprintf("id%d", i) })
	_, err := FitCSV(Config{Task: "classification", Points: 16, Sigma: 1, Lambda: 1e-3}, path, StreamOptions{ChunkRows: 100})
	if err == nil || !strings.Contains(err.Error(), "distinct labels in 1100 rows") {
		t.Errorf("err = %v", err)
	}
}

// TestFitCSVClassSpellings: numeric targets are classes by value, as Fit's are — 0 and −0, 2 and 2.0 are one class —
// and the class limit counts those classes, not their spellings.
func TestFitCSVClassSpellings(t *testing.T) {
	spell := [][]string{{"0", "-0", "0.0"}, {"2", "2.0", "02", "2e0"}, {"10", "1e1"}}
	path := writeStreamCSV(t, 300, func(i int) string { s := spell[i%3]; return s[i/3%len(s)] })
	m, err := FitCSV(Config{Task: "classification", Points: 16, Sigma: 1, Lambda: 1e-3, MaxClasses: 3}, path, StreamOptions{ChunkRows: 64})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Info().Labels; strings.Join(got, " ") != "0 2 10" {
		t.Errorf("classes %v, want 0 2 10", got)
	}
	// Two classes spelt twelve ways each, under a limit of 2 classes: spellings are not classes.
	path = writeStreamCSV(t, 300, func(i int) string { return fmt.Sprintf("%d.%0*d", i%2, i/2%12, 0) })
	m, err = FitCSV(Config{Task: "classification", Points: 16, Sigma: 1, Lambda: 1e-3, MaxClasses: 2}, path, StreamOptions{ChunkRows: 64})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Info().Labels; strings.Join(got, " ") != "0 1" {
		t.Errorf("classes %v, want 0 1", got)
	}
}

// TestFitCSVRoundingFirst: an SR rule that would round -D up past twice itself is refused before the file is read
// (here a file whose third row is malformed, which a read would report first).
func TestFitCSVRoundingFirst(t *testing.T) {
	var b strings.Builder
	for j := range 300 {
		fmt.Fprintf(&b, "x%d,", j)
	}
	b.WriteString("y\n")
	b.WriteString(strings.Repeat("1,", 300) + "2\n")
	b.WriteString("not,a,row\n")
	path := filepath.Join(t.TempDir(), "wide.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := FitCSV(Config{Points: 64, Sigma: 1, Lambda: 1e-3}, path, StreamOptions{})
	if err == nil || !strings.Contains(err.Error(), "whole rules") {
		t.Errorf("err = %v", err)
	}
}

// TestFitCSVBudgetCountsChunks: a streamed fit's budget counts what its second pass holds at once — three chunks
// (one accumulated, one passed on, one read ahead) and the median heuristic's sample — not one chunk: 6000 rows of
// 600 inputs (29 MB a copy) need about 175 MiB with the fixed buffers (one chunk counted: 111 MiB), so 140 MiB is refused and 256 MiB
// is not.
func TestFitCSVBudgetCountsChunks(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 20 MB file")
	}
	const rows, d = 6000, 600
	var b strings.Builder
	for j := range d {
		fmt.Fprintf(&b, "x%d,", j)
	}
	b.WriteString("y\n")
	for i := range rows {
		for j := range d {
			fmt.Fprintf(&b, "%d,", (i*7+j*3)%10)
		}
		fmt.Fprintf(&b, "%d\n", i%5)
	}
	path := filepath.Join(t.TempDir(), "wide.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Points: 8, Rule: "orf", Sigma: 20, Lambda: 1e-3, MaxMemory: 140 << 20}
	if _, err := FitCSV(cfg, path, StreamOptions{}); !errors.As(err, new(*BudgetError)) {
		t.Errorf("140 MiB: %v, want a refusal under the budget", err)
	}
	cfg.MaxMemory = 256 << 20
	if _, err := FitCSV(cfg, path, StreamOptions{}); err != nil {
		t.Errorf("256 MiB: %v", err)
	}
}

// TestFitCSVTextTarget: a regression stream whose target has a word says which row and what, at once.
func TestFitCSVTextTarget(t *testing.T) {
	path := writeStreamCSV(t, 300, func(i int) string {
		if i == 249 {
			return "abc"
		}
		return fmt.Sprint(i % 7)
	})
	_, err := FitCSV(Config{Points: 16, Sigma: 1, Lambda: 1e-3}, path, StreamOptions{ChunkRows: 64})
	if err == nil || !strings.Contains(err.Error(), `row 250: the target "abc" is not a number`) {
		t.Errorf("err = %v", err)
	}
}
