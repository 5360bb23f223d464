package rffbeam

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
)

// A value rff refuses as too large for the statistics — an input beyond 1e100 after the preprocessing, a regression
// target beyond 1e100 — fails the fit in one line naming its file, line and column, in the words rff.FitCSV uses
// for it on the concatenated files, at the first pass that can see it: the first (a target; an input when the
// preprocessing needs no statistics) or the next one (the sample pass, or the second). Such a row is not a bad
// row: SkipBadRows does not skip it.
func TestMagnitudes(t *testing.T) {
	set := func(line string, col int, v string) string {
		f := strings.Split(line, ",")
		f[col] = v
		return strings.Join(f, ",")
	}
	cases := []struct {
		name       string
		cfg        rff.Config
		col        int    // the field of line 252 of part-2.csv changed (0-based; 3 is the target)
		value      string // its new value
		firstPass  bool   // refused by the first pass
		samplePass bool   // refused by the pass fetching the bandwidth's sample (σ not given)
	}{
		// maxscale divides by the largest maximum of the columns (about 40): -1e200 stays beyond 1e100.
		{"maxscale input, sample pass", rff.Config{Points: 16, Lambda: 1e-4, Seed: 1, Preprocess: "maxscale"}, 1, "-1e200", false, true},
		{"maxscale input, second pass", rff.Config{Points: 16, Lambda: 1e-4, Seed: 1, Sigma: 2, Preprocess: "maxscale"}, 1, "-1e200", false, false},
		{"input without preprocessing", rff.Config{Points: 16, Lambda: 1e-4, Seed: 1, Preprocess: "none"}, 2, "3e150", true, false},
		{"target", rff.Config{Points: 16, Lambda: 1e-4, Seed: 1}, 3, "4e200", true, false},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			header, lines := dataLines(400, 3, "reg", 31)
			lines[250] = set(lines[250], c.col, c.value) // part-2.csv, line 52
			glob, all := writeShards(t, dir, header, lines, fourShards)
			ref := c.cfg
			if ref.Sigma == 0 {
				ref.Sigma = 2 // the bandwidth does not enter the refusal
			}
			_, err := rff.FitCSV(ref, all, rff.StreamOptions{})
			me, ok := errors.AsType[*rff.MagnitudeError](err)
			if !ok || me.Row != 251 {
				t.Fatalf("rff.FitCSV: %v", err)
			}
			want := filepath.Join(dir, "shards", "part-2.csv") + ":52: " + me.Reason
			for _, skip := range []bool{false, true} {
				var log strings.Builder
				_, err := Fit(context.Background(), Options{Config: c.cfg, Input: glob, SkipBadRows: skip, Log: &log})
				if err == nil || err.Error() != want {
					t.Errorf("skip bad rows %v: error %q, want %q", skip, err, want)
				}
				if got := strings.Contains(log.String(), "pass 1:"); got == c.firstPass {
					t.Errorf("skip bad rows %v: refused by the first pass: %v, want %v\n%s", skip, !got, c.firstPass, log.String())
				}
				if c.samplePass && strings.Contains(log.String(), "bandwidth:") { // logged after the sample pass
					t.Errorf("skip bad rows %v: not refused by the sample pass\n%s", skip, log.String())
				}
			}
		})
	}

	// The values at the limit, 1e100, fit as in rff.
	dir := t.TempDir()
	header, lines := dataLines(400, 3, "reg", 31)
	lines[250] = set(set(lines[250], 2, "1e100"), 3, "-1e100")
	glob, all := writeShards(t, dir, header, lines, fourShards)
	cfg := rff.Config{Points: 16, Lambda: 1e-4, Seed: 1, Sigma: 2, Preprocess: "none"}
	if _, err := rff.FitCSV(cfg, all, rff.StreamOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Fit(context.Background(), Options{Config: cfg, Input: glob}); err != nil {
		t.Errorf("values of 1e100: %v", err)
	}
}

// ReadRows checks the rows against ReadSpec.Scaler, which must be a preprocessing of the rows' inputs.
func TestReadSpecScaler(t *testing.T) {
	dir := t.TempDir()
	header, lines := dataLines(20, 3, "reg", 32)
	writeFile(t, filepath.Join(dir, "a.csv"), header, lines)
	files := []string{filepath.Join(dir, "a.csv")}
	layout, first, err := DetectLayout(context.Background(), files, "last")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := dataset.FitScaler(make([]float64, 2), 1, 2, []dataset.Step{dataset.StepNone})
	if err != nil {
		t.Fatal(err)
	}
	_, err = runPass(context.Background(), "prism", files, ReadSpec{Layout: *layout, FirstFile: first, Scaler: sc}, &ScanFn{D: 3},
		filepath.Join(dir, "out"))
	if want := "rffbeam: a scaler of 2 inputs for rows of 3"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	sc, _ = dataset.FitScaler(make([]float64, 3), 1, 3, []dataset.Step{dataset.StepNone})
	b, err := runPass(context.Background(), "prism", files, ReadSpec{Layout: *layout, FirstFile: first, Scaler: sc}, &ScanFn{D: 3},
		filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	if s, err := DecodeScan(b); err != nil || s.Rows != 20 || s.FileRows[files[0]] != 20 {
		t.Errorf("scan %+v, %v", s, err)
	}
}
