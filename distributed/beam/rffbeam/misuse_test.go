package rffbeam

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/learn"
)

// The size of the map is counted without drawing it, and agrees with the map rff.NewMap draws: SR rules round D up
// to whole rules (of 2(d+1) points for a kernel without a spectral law) or fall back, cos/sin maps of spectral
// kernels have two features per point.
func TestMapSize(t *testing.T) {
	cases := []struct {
		name string
		cfg  rff.Config
		d    int
	}{
		{"default", rff.Config{Sigma: 1}, 3},
		{"sr rounds up", rff.Config{Points: 10, Sigma: 1}, 3},
		{"sr exact", rff.Config{Points: 12, Sigma: 1}, 3},
		{"sr-haar cosphase", rff.Config{Points: 7, Sigma: 1, Rule: "sr-haar", Form: "cosphase"}, 5},
		{"sr pointwise kernel", rff.Config{Points: 9, Kernel: "arccos1", Rule: "sr"}, 4},
		{"sr fallback", rff.Config{Points: 3, Sigma: 1, Fallback: "orf"}, 8},
		{"sr fallback pointwise", rff.Config{Points: 5, Kernel: "arccos0", Fallback: "g"}, 4},
		{"orf", rff.Config{Points: 33, Sigma: 2, Rule: "orf"}, 6},
		{"sorf", rff.Config{Points: 20, Sigma: 2, Rule: "sorf"}, 5},
		{"qmc laplacian", rff.Config{Points: 17, Sigma: 2, Rule: "qmc", Kernel: "laplacian"}, 2},
		{"sr matern32", rff.Config{Points: 17, Sigma: 2, Kernel: "matern32"}, 2},
		{"gq", rff.Config{Points: 11, Sigma: 2, Rule: "gq:3"}, 2},
		{"g arccos", rff.Config{Points: 13, Rule: "g", Kernel: "arccos1"}, 3},
		{"one input", rff.Config{Points: 5, Sigma: 1}, 1},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			points, F, refused, err := mapSize(c.cfg, c.d)
			if err != nil || refused {
				t.Fatalf("mapSize: %v, refused %v", err, refused)
			}
			fmap, err := rff.NewMap(c.cfg, c.d)
			if err != nil {
				t.Fatal(err)
			}
			if points != fmap.Points() || F != fmap.Features() {
				t.Errorf("counted %d points and %d features, the map has %d and %d", points, F, fmap.Points(), fmap.Features())
			}
		})
	}
	for _, c := range []struct {
		name string
		cfg  rff.Config
	}{
		{"no fallback", rff.Config{Points: 3, Sigma: 1}},
		{"sr fallback", rff.Config{Points: 3, Sigma: 1, Fallback: "sr-haar"}},
	} {
		t.Run("refused_"+strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			if _, _, refused, err := mapSize(c.cfg, 8); err != nil || !refused {
				t.Errorf("mapSize: %v, refused %v", err, refused)
			}
			if _, err := rff.NewMap(c.cfg, 8); err == nil {
				t.Error("rff.NewMap accepted it")
			}
		})
	}
}

// A map too large for the budgets is refused from its size, before anything is drawn: no allocation near the
// size of the map, in well under a second (drawing 5·10⁶ points takes gigabytes and seconds).
func TestHugeMapRefusedBeforeDrawing(t *testing.T) {
	dir := t.TempDir()
	header, lines := dataLines(50, 3, "reg", 31)
	glob, _ := writeShards(t, dir, header, lines, fourShards)
	for _, c := range []struct {
		name string
		o    Options
		who  string
	}{
		{"worker", Options{WorkerMemory: 100 << 20}, "worker"},
		{"driver", Options{WorkerMemory: -1, Config: rff.Config{MaxMemory: 100 << 20}}, "driver"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			o.Input = glob
			o.Config.Points, o.Config.Sigma = 5_000_000, 1
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			t0 := time.Now()
			_, err := Fit(context.Background(), o)
			elapsed := time.Since(t0)
			runtime.ReadMemStats(&after)
			var me *MemoryError
			if !errors.As(err, &me) || me.Who != c.who {
				t.Fatalf("error %v, want the %s's memory refused", err, c.who)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("allocated %d MiB before refusing", alloc>>20)
			}
			if elapsed > 2*time.Second {
				t.Errorf("refused after %v", elapsed)
			}
		})
	}
}

// Options a caller can get wrong are errors, before any pipeline runs: negative sizes, and a runner the program
// did not register (beam.Run would end the process).
func TestFitOptionsRefused(t *testing.T) {
	dir := t.TempDir()
	header, lines := dataLines(40, 2, "reg", 32)
	glob, _ := writeShards(t, dir, header, lines, fourShards)
	cfg := rff.Config{Points: 8, Sigma: 1}
	for _, c := range []struct {
		name string
		o    Options
		want string
	}{
		{"bundles", Options{Bundles: -1}, "bundles per worker = -1: want ≥ 0"},
		{"batch rows", Options{BatchRows: -5}, "batch rows = -5: want ≥ 0"},
		{"block rows", Options{BlockRows: -2}, "block rows = -2: want ≥ 0"},
		{"runner", Options{Runner: "nosuch", TempDir: dir}, `runner "nosuch" is not registered in this program`},
		{"runner again", Options{Runner: "nosuch", TempDir: dir}, `runner "nosuch" is not registered in this program`},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			o := c.o
			o.Config, o.Input = cfg, glob
			_, err := Fit(context.Background(), o)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
	// A registered runner passes the probe, every time.
	for range 2 {
		if err := checkRunner("prism"); err != nil {
			t.Errorf("prism: %v", err)
		}
	}
}

// Accumulators a runner never creates — nil ones, a first pass of no columns — are errors or empty, never a
// panic, and EncodeScan(nil) is the empty Scan.
func TestNilAccumulators(t *testing.T) {
	if _, err := (&ScanFn{D: 0}).CreateAccumulator(); err == nil {
		t.Error("ScanFn{D: 0}.CreateAccumulator: no error")
	}
	rows := Rows{File: "a.csv", N: 2, X: []float64{1, 2, 3, 4}, Y: []float64{5, 6}}
	sf := &SampleFn{D: 2, Want: map[string][]int{"a.csv": {1}}}
	scan := &ScanFn{D: 2}
	stats := testStatsFn(t, 2, false)
	cases := []struct {
		name string
		f    func() (rows int, err error)
		want int
	}{
		{"sample merge into nil", func() (int, error) {
			a, err := sf.AddInput(nil, rows)
			if err != nil {
				return 0, err
			}
			return len(sf.MergeAccumulators(nil, a).rows), nil
		}, 1},
		{"sample merge nil", func() (int, error) {
			a, err := sf.AddInput(nil, rows)
			if err != nil {
				return 0, err
			}
			return len(sf.MergeAccumulators(a, nil).rows), nil
		}, 1},
		{"sample output of nil", func() (int, error) {
			r, err := DecodeSample(sf.ExtractOutput(nil))
			return len(r), err
		}, 0},
		{"scan merge nil", func() (int, error) {
			a, err := scan.AddInput(nil, rows)
			if err != nil {
				return 0, err
			}
			if a, err = scan.MergeAccumulators(a, nil); err != nil {
				return 0, err
			}
			if a, err = scan.MergeAccumulators(nil, a); err != nil {
				return 0, err
			}
			return a.main.Rows(), nil
		}, 2},
		{"scan output of nil", func() (int, error) {
			b, err := scan.ExtractOutput(nil)
			if err != nil {
				return 0, err
			}
			s, err := DecodeScan(b)
			if err != nil {
				return 0, err
			}
			return s.Rows, nil
		}, 0},
		{"stats merge nil", func() (int, error) {
			a, err := stats.AddInput(nil, Rows{N: 2, X: []float64{1, 2, 3, 4}, Y: []float64{5, 6}})
			if err != nil {
				return 0, err
			}
			if a, err = stats.MergeAccumulators(a, nil); err != nil {
				return 0, err
			}
			if a, err = stats.MergeAccumulators(nil, a); err != nil {
				return 0, err
			}
			b, err := stats.ExtractOutput(a)
			if err != nil {
				return 0, err
			}
			st, err := DecodeStats(b)
			if err != nil {
				return 0, err
			}
			return st.N, nil
		}, 2},
		{"encode scan nil", func() (int, error) {
			s, err := DecodeScan(EncodeScan(nil))
			if err != nil {
				return 0, err
			}
			return s.Rows + len(s.Labels) + len(s.FileRows), nil
		}, 0},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			got, err := c.f()
			if err != nil || got != c.want {
				t.Errorf("%d rows, %v; want %d", got, err, c.want)
			}
		})
	}
}

// decoders are every decoder of a message that travels between workers or to the driver.
var decoders = []struct {
	name   string
	decode func([]byte) error
}{
	{"rows", func(b []byte) error { _, err := decodeRows(b); return err }},
	{"scan accumulator", func(b []byte) error { _, err := decodeScanAcc(b); return err }},
	{"scan", func(b []byte) error { _, err := DecodeScan(b); return err }},
	{"sample accumulator", func(b []byte) error { _, err := decodeSampleAcc(b); return err }},
	{"sample", func(b []byte) error { _, err := DecodeSample(b); return err }},
	{"stats accumulator", func(b []byte) error { _, err := decodeStatsAcc(b); return err }},
	{"stats", func(b []byte) error { _, err := DecodeStats(b); return err }},
}

// Truncated and corrupt messages are errors of every decoder: a length prefix that claims more bytes than are
// left after it (a string of one byte whose prefix is that byte) is checked after the prefix is consumed.
func TestDecodeCorrupt(t *testing.T) {
	msgs := [][]byte{
		nil, {1}, {1, 1}, {0, 0, 0, 0, 0, 0, 0, 1, 1}, {2, 'a'}, {0x80}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
	}
	for _, d := range decoders {
		t.Run(strings.ReplaceAll(d.name, " ", "_"), func(t *testing.T) {
			for _, msg := range msgs {
				func() {
					defer func() {
						if p := recover(); p != nil {
							t.Errorf("% x: panic %v", msg, p)
						}
					}()
					if err := d.decode(msg); err == nil {
						t.Errorf("% x decoded", msg)
					}
				}()
			}
		})
	}
}

// FuzzDecode feeds every decoder arbitrary bytes: each returns an error or a value, never panics, and a message it
// accepts encodes back to one it accepts.
func FuzzDecode(f *testing.F) {
	f.Add([]byte{1, 1})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1, 1})
	f.Add(encodeRows(Rows{File: "a.csv", Start: 3, N: 1, X: []float64{1, 2}, T: []string{"x"}, Skipped: 1,
		First: RowError{File: "a.csv", Line: 2, Msg: "bad"}}))
	sa, _ := newScanAcc(2)
	sa.labels["x"] = true
	sa.files["a.csv"] = [2]int{1, 0}
	if err := sa.main.Add([]float64{1, 2}, 1); err != nil {
		f.Fatal(err)
	}
	f.Add(encodeScanAcc(sa))
	f.Add(EncodeScan(&Scan{D: 1, Rows: 2, Moments: dataset.ScalerMoments{N: 2, Mean: []float64{1}, M2: []float64{2},
		Min: []float64{0}, Max: []float64{2}}, Wide: []int{0}, Labels: []string{"a", "b"}, FileRows: map[string]int{"a": 2}}))
	f.Add(encodeSampleAcc(&sampleAcc{rows: []SampleRow{{File: "a", Index: 1, X: []float64{3}}}}))
	st, err := encodeStatsAcc(&statsAcc{st: &learn.Stats{F: 2, P: 1, N: 1, ZtZ: []float64{1, 2, 2, 3}, ZtY: []float64{4, 5},
		SumZ: []float64{6, 7}, SumY: []float64{8}, SumYY: []float64{9}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(st)
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, err := decodeRows(b); err == nil {
			if _, err := decodeRows(encodeRows(r)); err != nil {
				t.Errorf("rows: %v", err)
			}
		}
		if a, err := decodeScanAcc(b); err == nil {
			if _, err := decodeScanAcc(encodeScanAcc(a)); err != nil {
				t.Errorf("scan accumulator: %v", err)
			}
		}
		if s, err := DecodeScan(b); err == nil {
			if _, err := DecodeScan(EncodeScan(s)); err != nil {
				t.Errorf("scan: %v", err)
			}
			_, _ = s.Scaler([]dataset.Step{dataset.StepStandardize})
		}
		if a, err := decodeSampleAcc(b); err == nil {
			if _, err := decodeSampleAcc(encodeSampleAcc(a)); err != nil {
				t.Errorf("sample: %v", err)
			}
		}
		_, _ = DecodeSample(b)
		if a, err := decodeStatsAcc(b); err == nil {
			e, err := encodeStatsAcc(a)
			if err != nil {
				t.Errorf("stats: %v", err)
			} else if _, err := decodeStatsAcc(e); err != nil {
				t.Errorf("stats: %v", err)
			}
		}
		_, _ = DecodeStats(b)
	})
}

// A column whose spread or mean overflows floating point travels as a wide column (its moments cannot), and the
// fit says what rff says: refused with the column's name when the preprocessing needs its mean or spread
// (standardize, isotropic), fitted as rff fits it when only its extremes matter (minmax, maxscale).
func TestWideColumns(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, lines ...string) {
		writeFile(t, filepath.Join(dir, name), "", lines)
	}
	// Column 2 spans ±1e200: its range is finite, its spread (1e400) is not.
	write("part-0.csv", "a,b,y", "1,1e200,2", "2,-1e200,3", "3,5,4")
	write("part-1.csv", "a,b,y", "4,3e199,1", "5,2,0", "6,7,1")
	write("all.csv", "a,b,y", "1,1e200,2", "2,-1e200,3", "3,5,4", "4,3e199,1", "5,2,0", "6,7,1")
	glob, all := filepath.Join(dir, "part-*"), filepath.Join(dir, "all.csv")
	for _, pre := range []string{"standardize", "isotropic", "minmax,standardize", "minmax", "maxscale"} {
		t.Run(strings.ReplaceAll(pre, ",", "_"), func(t *testing.T) {
			cfg := rff.Config{Points: 8, Sigma: 1, Lambda: 1e-4, Preprocess: pre}
			want, wantErr := rff.FitCSV(cfg, all, rff.StreamOptions{})
			got, err := Fit(context.Background(), Options{Config: cfg, Input: glob})
			if wantErr != nil {
				if err == nil || err.Error() != wantErr.Error() {
					t.Errorf("error %v, want %q", err, wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			samePredictions(t, pre, got.Model, want, all, 1e-10)
		})
	}
	// The first pass carries the wide column through encoding and merging.
	f := &ScanFn{D: 2}
	a, err := f.AddInput(nil, Rows{File: "a", N: 2, X: []float64{1, 1e200, 2, -1e200}, Y: []float64{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := decodeScanAcc(encodeScanAcc(a))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := f.AddInput(nil, Rows{File: "b", N: 1, X: []float64{3, 4}, Y: []float64{1}})
	if b, err = f.MergeAccumulators(c, b); err != nil {
		t.Fatal(err)
	}
	out, err := f.ExtractOutput(b)
	if err != nil {
		t.Fatal(err)
	}
	s, err := DecodeScan(out)
	if err != nil || !slices.Equal(s.Wide, []int{1}) || s.Rows != 3 || s.Moments.Max[1] != 1e200 || s.Moments.Min[1] != -1e200 {
		t.Errorf("scan %+v, %v", s, err)
	}
}

// A file whose lines end in a bare CR is refused with rff's words, whether it is the first file (its layout) or
// another.
func TestBareCR(t *testing.T) {
	for _, first := range []bool{true, false} {
		name := map[bool]string{true: "first", false: "second"}[first]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			cr := filepath.Join(dir, "part-1.csv")
			if first {
				cr = filepath.Join(dir, "part-0.csv")
				writeFile(t, filepath.Join(dir, "part-1.csv"), "a,b,y", []string{"1,2,3", "4,5,6"})
			} else {
				writeFile(t, filepath.Join(dir, "part-0.csv"), "a,b,y", []string{"1,2,3", "4,5,6"})
			}
			if err := os.WriteFile(cr, []byte("a,b,y\r1,2,3\r4,5,6\r"), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := rff.Config{Points: 8, Sigma: 1}
			_, wantErr := rff.FitCSV(cfg, cr, rff.StreamOptions{})
			if wantErr == nil || !strings.Contains(wantErr.Error(), "convert the line ends to LF") {
				t.Fatalf("rff: %v", wantErr)
			}
			want := wantErr.Error()
			_, err := Fit(context.Background(), Options{Config: cfg, Input: filepath.Join(dir, "part-*")})
			if err == nil || err.Error() != want {
				t.Errorf("error %v, want %q", err, want)
			}
		})
	}
}

// A failed pipeline is reported by its innermost error: a data error's one line, this package's error on a
// worker, or the last cause of another failure, without the runner's account of the bundle.
func TestInnermost(t *testing.T) {
	beamErr := `job job-001 failed: bundle inst004 stage-004 failed:process bundle failed for instruction inst004 using plan stage-004 : while executing Process for Plan[stage-004]: 1: DataSource[S[stage-004_source@localhost:42213], i0] Out:8 ` +
		"caused by: source failed processing data caused by: DoFn[UID:8, PID:es2_merge, Name: github.com/rffkit/rff/distributed/beam/rffbeam.ScanFn] failed: decodeStream value decode failed\n" +
		"\tcaused by: rffbeam: first-pass accumulator: corrupt message: truncated\nmore"
	for _, c := range []struct {
		name, err, want string
		ok              bool
	}{
		{"rffbeam", beamErr, "rffbeam: first-pass accumulator: corrupt message: truncated", true},
		{"cause", "job failed: bundle failed\ncaused by: connection reset by peer\n", "connection reset by peer", true},
		{"none", "connection refused", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got, ok := innermost(c.err); got != c.want || ok != c.ok {
				t.Errorf("innermost = %q, %v; want %q, %v", got, ok, c.want, c.ok)
			}
		})
	}
	// A pipeline whose combine fails on a worker: the error of this package, alone.
	t.Run("pipeline", func(t *testing.T) {
		dir := t.TempDir()
		header, lines := dataLines(20, 3, "reg", 33)
		glob, _ := writeShards(t, dir, header, lines, fourShards)
		files, err := ListFiles(context.Background(), glob)
		if err != nil {
			t.Fatal(err)
		}
		layout, first, err := DetectLayout(context.Background(), files, "")
		if err != nil {
			t.Fatal(err)
		}
		_, err = runPass(context.Background(), "prism", files, ReadSpec{Layout: *layout, FirstFile: first}, &ScanFn{D: 5},
			filepath.Join(dir, "out"))
		want := "rffbeam: a block of 5 rows with 15 inputs, 5 targets and 0 labels for d = 5"
		if err == nil || err.Error() != want {
			t.Errorf("error %q, want %q", err, want)
		}
	})
}

// RemoveTemps removes the local temporary directories of the fits in progress (a program ending on a signal
// calls it), and the fit's own removal afterwards changes nothing.
func TestRemoveTemps(t *testing.T) {
	for _, c := range []struct{ name, tempDir string }{
		{"default", ""}, {"given", t.TempDir()}, {"created", filepath.Join(t.TempDir(), "new")},
	} {
		tempDir := c.tempDir
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("TMPDIR", t.TempDir())
			dir, cleanup, err := runDir(context.Background(), tempDir, true)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, "pass1"), "", []string{"result"})
			if n := RemoveTemps(); n < 1 {
				t.Errorf("RemoveTemps removed %d directories", n)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("%s left behind: %v", dir, err)
			}
			if strings.HasSuffix(tempDir, "new") {
				if _, err := os.Stat(tempDir); !os.IsNotExist(err) {
					t.Errorf("the temporary directory the fit created was left behind: %v", err)
				}
			}
			cleanup()
			if n := RemoveTemps(); n != 0 {
				t.Errorf("RemoveTemps removed %d directories of no fit", n)
			}
		})
	}
}
