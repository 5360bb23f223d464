package rffbeam

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/direct"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/model"
)

func TestMain(m *testing.M) {
	beam.Init()
	// Prism reports every job and a failed bundle's plan on the default logger; the tests check the errors.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError + 4})))
	os.Exit(m.Run())
}

// dataLines returns a header and n data lines of d inputs and a target: a smooth function of the inputs
// (regression) or its class among "cat", "dog", "emu" (labels) or 1, 2, 3 (numeric-labels).
func dataLines(n, d int, target string, seed uint64) (string, []string) {
	rng := rand.New(rand.NewPCG(seed, 7))
	var h strings.Builder
	for j := range d {
		fmt.Fprintf(&h, "x%d,", j+1)
	}
	h.WriteString("y")
	lines := make([]string, n)
	for i := range lines {
		var b strings.Builder
		s := 0.0
		for j := range d {
			v := 10*float64(j) + float64(j+1)*rng.NormFloat64()
			s += math.Sin(v / float64(j+1))
			fmt.Fprintf(&b, "%.17g,", v)
		}
		k := max(0, min(2, int(math.Floor(s/2+1.5))))
		switch target {
		case "labels":
			b.WriteString([]string{"cat", "dog", "emu"}[k])
		case "numeric-labels":
			fmt.Fprintf(&b, "%d", k+1)
		default:
			fmt.Fprintf(&b, "%.17g", s+0.1*rng.NormFloat64())
		}
		lines[i] = b.String()
	}
	return h.String(), lines
}

// writeFile writes a header (when not "") and lines to path, gzip-compressed when the name ends in .gz.
func writeFile(t *testing.T, path, header string, lines []string) {
	t.Helper()
	var b bytes.Buffer
	if header != "" {
		b.WriteString(header + "\n")
	}
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	data := b.Bytes()
	if strings.HasSuffix(path, ".gz") {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(data)
		w.Close()
		data = z.Bytes()
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeShards writes the lines in len(names) contiguous shards, each with the header, and the whole data set to
// all.csv; it returns the glob of the shards and the path of all.csv.
func writeShards(t *testing.T, dir, header string, lines []string, names []string) (string, string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "shards"), 0o755); err != nil {
		t.Fatal(err)
	}
	k := len(names)
	for s, name := range names {
		writeFile(t, filepath.Join(dir, "shards", name), header, lines[s*len(lines)/k:(s+1)*len(lines)/k])
	}
	all := filepath.Join(dir, "all.csv")
	writeFile(t, all, header, lines)
	return filepath.Join(dir, "shards", "part-*"), all
}

var fourShards = []string{"part-0.csv", "part-1.csv.gz", "part-2.csv", "part-3.csv.gz"}

func fitBeam(t *testing.T, o Options) *Result {
	t.Helper()
	r, err := Fit(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// samePredictions checks that two models predict the rows of path to tol relative to the largest output, and
// give the same classes.
func samePredictions(t *testing.T, what string, got, want *rff.Model, path string, tol float64) {
	t.Helper()
	data, err := dataset.Load(path, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pg, err := got.Predict(data)
	if err != nil {
		t.Fatal(err)
	}
	pw, err := want.Predict(data)
	if err != nil {
		t.Fatal(err)
	}
	scale := 0.0
	for _, v := range pw.Values {
		scale = math.Max(scale, math.Abs(v))
	}
	worst := 0.0
	for i := range pw.Values {
		worst = math.Max(worst, math.Abs(pg.Values[i]-pw.Values[i])/scale)
	}
	if worst > tol {
		t.Errorf("%s: predictions differ by %.3g relative (tolerance %g)", what, worst, tol)
	}
	if !slices.Equal(pg.Labels, pw.Labels) {
		t.Errorf("%s: predicted classes differ", what)
	}
	// Models with a posterior: the predictive standard deviations, to the same tolerance (they come from the
	// Cholesky factor of the same system).
	if sw, err := want.PredictStd(data.X, data.N, true); err == nil {
		sg, err := got.PredictStd(data.X, data.N, true)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for i := range sw {
			if math.Abs(sg[i]-sw[i]) > tol*math.Abs(sw[i]) {
				t.Fatalf("%s: standard deviation %d: %v, want %v", what, i, sg[i], sw[i])
			}
		}
	}
	// The bandwidth is the median distance between preprocessed rows: the preprocessing fitted from merged
	// moments differs by a few ulps, and so does σ.
	if gi, wi := got.Info(), want.Info(); !slices.Equal(gi.Inputs, wi.Inputs) || !slices.Equal(gi.Labels, wi.Labels) ||
		!slices.Equal(gi.Targets, wi.Targets) || gi.Features != wi.Features || math.Abs(gi.Sigma-wi.Sigma) > 1e-12*wi.Sigma {
		t.Errorf("%s: models differ: %+v vs %+v", what, gi, wi)
	}
}

// The model of a 4-shard run on prism (plain and gzip shards, each with its header) equals rff.FitCSV's on the
// concatenated data: the same map, labels and bandwidth rows, and a preprocessing and weights from the same sums in
// another order. Those differ by relative rounding errors of order 1e-15, which the ridge solve amplifies at most by
// the condition number of ZᵀZ/N + λI, below 1 + 1/λ = 1e4 for λ = 1e-4 (features have ‖z‖² = k(x, x) = 1): the
// predictions agree to ~1e-11 of their scale, within the 1e-10 asserted.
func TestFitMatchesFitCSV(t *testing.T) {
	cases := []struct {
		name, target string
		cfg          rff.Config
	}{
		{"regression", "reg", rff.Config{Points: 64, Lambda: 1e-4, Seed: 3}},
		{"regression with uncertainty", "reg", rff.Config{Points: 48, Lambda: 1e-4, Seed: 10, Uncertainty: true}},
		{"regression minmax", "reg", rff.Config{Points: 48, Lambda: 1e-4, Seed: 4, Preprocess: "minmax", Rule: "orf"}},
		{"classification onehot", "labels", rff.Config{Task: "classification", Points: 64, Lambda: 1e-4, Seed: 5}},
		{"classification simplex", "labels", rff.Config{Task: "classification", Encoding: "simplex", Points: 64, Lambda: 1e-4, Seed: 6}},
		{"classification numeric", "numeric-labels", rff.Config{Task: "classification", Points: 64, Lambda: 1e-4, Seed: 7}},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			header, lines := dataLines(3000, 5, c.target, 11)
			glob, all := writeShards(t, dir, header, lines, fourShards)
			want, err := rff.FitCSV(c.cfg, all, rff.StreamOptions{})
			if err != nil {
				t.Fatal(err)
			}
			r := fitBeam(t, Options{Config: c.cfg, Input: glob, BatchRows: 512, BlockRows: 100})
			if r.Rows != 3000 || len(r.Files) != 4 || r.Skipped != 0 {
				t.Errorf("rows %d, files %d, skipped %d", r.Rows, len(r.Files), r.Skipped)
			}
			samePredictions(t, c.name, r.Model, want, all, 1e-10)
			// The saved file is the one rff fit writes: it loads and predicts the same bits.
			out := filepath.Join(dir, "m.rff")
			if err := r.Model.Save(out); err != nil {
				t.Fatal(err)
			}
			back, err := rff.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			samePredictions(t, c.name+" loaded", back, r.Model, all, 0)
		})
	}
}

// Which shard holds which rows changes only the order of the sums: the models agree to the same tolerance.
func TestShardOrder(t *testing.T) {
	cfg := rff.Config{Task: "classification", Points: 64, Lambda: 1e-4, Seed: 8}
	header, lines := dataLines(2000, 4, "labels", 12)
	d1, d2 := t.TempDir(), t.TempDir()
	glob1, all := writeShards(t, d1, header, lines, fourShards)
	rev := slices.Clone(fourShards)
	slices.Reverse(rev)
	glob2, _ := writeShards(t, d2, header, lines, rev)
	r1 := fitBeam(t, Options{Config: cfg, Input: glob1, BatchRows: 300, BlockRows: 64})
	r2 := fitBeam(t, Options{Config: cfg, Input: glob2, BatchRows: 1000, BlockRows: 500})
	samePredictions(t, "reversed shards", r2.Model, r1.Model, all, 1e-10)
}

// A bad row in one shard fails the pipeline with one line naming its file, line and column; with SkipBadRows it
// is skipped, counted and recorded in the model file, and the model is FitCSV's on the good rows.
func TestBadRows(t *testing.T) {
	dir := t.TempDir()
	header, lines := dataLines(1200, 3, "reg", 13)
	glob, _ := writeShards(t, dir, header, lines, fourShards)
	bad := slices.Clone(lines[600:900]) // part-2.csv
	bad[41] = strings.Replace(bad[41], ",", ",abc,", 1)[:len(bad[41])+4]
	bad[41] = "1,abc,3,4"
	bad[99] = "1,2,3" // a row too short
	shard := filepath.Join(dir, "shards", "part-2.csv")
	writeFile(t, shard, header, bad)
	cfg := rff.Config{Points: 32, Lambda: 1e-4, Seed: 1}
	_, err := Fit(context.Background(), Options{Config: cfg, Input: glob})
	want := shard + `:43: column 2: "abc" is not a number`
	if err == nil || err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}

	r := fitBeam(t, Options{Config: cfg, Input: glob, SkipBadRows: true})
	if r.Skipped != 2 || r.FirstSkipped != want || r.Rows != 1198 {
		t.Errorf("skipped %d (first %q), rows %d", r.Skipped, r.FirstSkipped, r.Rows)
	}
	good := slices.Concat(lines[:600], bad[:41], bad[42:99], bad[100:], lines[900:])
	clean := filepath.Join(dir, "clean.csv")
	writeFile(t, clean, header, good)
	ref, err := rff.FitCSV(cfg, clean, rff.StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	samePredictions(t, "skipped rows", r.Model, ref, clean, 1e-10)
	out := filepath.Join(dir, "m.rff")
	if err := r.Model.Save(out); err != nil {
		t.Fatal(err)
	}
	f, err := model.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Extra["skipped_rows"] != 2.0 || f.Extra["first_skipped"] != want {
		t.Errorf("model metadata %v", f.Extra)
	}
}

// A target beyond the largest float64 is named "out of range", as rff fit names it (and as an input value).
func TestOutOfRangeTarget(t *testing.T) {
	for _, c := range []struct {
		name, kind string
		cfg        rff.Config
	}{
		{"regression", "regression", rff.Config{Points: 16, Lambda: 1e-4, Seed: 2}},
		{"numeric classes", "numeric-labels", rff.Config{Task: "classification", Points: 16, Lambda: 1e-4, Seed: 2}},
	} {
		// 10^309 written with 800 digits: beyond the largest float64, though a parser that reads only the leading
		// digits would take it for 1e308.
		long := "1" + strings.Repeat("0", 800) + "e-491"
		for _, v := range []string{"-1e400", long} {
			t.Run(c.name, func(t *testing.T) {
				dir := t.TempDir()
				header, lines := dataLines(400, 3, c.kind, 14)
				lines[250] = lines[250][:strings.LastIndex(lines[250], ",")] + "," + v
				glob, all := writeShards(t, dir, header, lines, fourShards)
				_, err := Fit(context.Background(), Options{Config: c.cfg, Input: glob})
				if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, "shards", "part-2.csv")+`:52: column 4: "`) ||
					!strings.HasSuffix(err.Error(), " is out of range") {
					t.Errorf("%.20s…: error %q, want line 52's target out of range", v, err)
				}
				if _, err := rff.FitCSV(c.cfg, all, rff.StreamOptions{}); err == nil || !strings.HasSuffix(err.Error(), " is out of range") {
					t.Errorf("FitCSV: error %v", err)
				}
			})
		}
	}
}

// A NaN target fails a classification whose targets are numbers (it is no class), like rff.FitCSV; among string
// labels "NaN" is a class like any other.
func TestNonFiniteTargets(t *testing.T) {
	dir := t.TempDir()
	header, lines := dataLines(400, 3, "numeric-labels", 14)
	lines[250] = lines[250][:strings.LastIndex(lines[250], ",")] + ",NaN"
	glob, all := writeShards(t, dir, header, lines, fourShards)
	cfg := rff.Config{Task: "classification", Points: 16, Lambda: 1e-4, Seed: 2}
	_, err := Fit(context.Background(), Options{Config: cfg, Input: glob})
	want := filepath.Join(dir, "shards", "part-2.csv") + `:52: column 4: NaN/Inf not allowed ("NaN")`
	if err == nil || err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if _, err := rff.FitCSV(cfg, all, rff.StreamOptions{}); err == nil {
		t.Error("FitCSV accepted a NaN class")
	}
	r := fitBeam(t, Options{Config: cfg, Input: glob, SkipBadRows: true})
	if r.Skipped != 1 || r.Rows != 399 {
		t.Errorf("skipped %d, rows %d", r.Skipped, r.Rows)
	}

	header, lines = dataLines(400, 3, "labels", 15)
	lines[250] = lines[250][:strings.LastIndex(lines[250], ",")] + ",NaN"
	glob, all = writeShards(t, t.TempDir(), header, lines, fourShards)
	want2, err := rff.FitCSV(cfg, all, rff.StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r = fitBeam(t, Options{Config: cfg, Input: glob})
	if !slices.Equal(r.Model.Info().Labels, []string{"NaN", "cat", "dog", "emu"}) {
		t.Errorf("labels %v", r.Model.Info().Labels)
	}
	samePredictions(t, "NaN label", r.Model, want2, all, 1e-10)
}

// Refusals before any pipeline runs: an empty glob, a worker memory budget below the estimate.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	_, err := Fit(context.Background(), Options{Input: filepath.Join(dir, "nothing-*.csv")})
	if err == nil || err.Error() != "no files match "+filepath.Join(dir, "nothing-*.csv") {
		t.Errorf("empty glob: %v", err)
	}
	header, lines := dataLines(100, 3, "reg", 16)
	glob, _ := writeShards(t, dir, header, lines, fourShards)
	_, err = Fit(context.Background(), Options{Config: rff.Config{Points: 4096}, Input: glob, WorkerMemory: 64 << 20, Bundles: 4})
	if _, ok := err.(*MemoryError); !ok || strings.Contains(err.Error(), "\n") {
		t.Errorf("over the worker budget: %v", err)
	}
	_, err = Fit(context.Background(), Options{Config: rff.Config{Task: "hermite", Lambda: 1}, Input: glob})
	if err == nil {
		t.Error("a hermite fit ran")
	}
	writeFile(t, filepath.Join(dir, "shards", "part-9.csv"), "a,b,c,d", []string{"1,2,3,4"})
	_, err = Fit(context.Background(), Options{Config: rff.Config{Points: 8}, Input: glob})
	want := filepath.Join(dir, "shards", "part-9.csv") + `:1: column 1: "a" is not a number (and the line is not the header of ` + filepath.Join(dir, "shards", "part-0.csv") + ")"
	if err == nil || err.Error() != want {
		t.Errorf("another header: %v", err)
	}
}

func TestFailureMessage(t *testing.T) {
	err := fmt.Errorf("job failed:\nbundle inst002 failed: plan …\n\tcaused by:\n%w\nmore", dataError("%s:%d: column %d: %q is not a number", "a.csv", 12, 3, "x"))
	if msg, ok := FailureMessage(err); !ok || msg != `a.csv:12: column 3: "x" is not a number` {
		t.Errorf("FailureMessage = %q, %v", msg, ok)
	}
	if _, ok := FailureMessage(errors.New("connection refused")); ok {
		t.Error("a message found in an error without one")
	}
}

// simulateCPUs makes this process look like a machine of n cores for the test: numCPU, which the defaults read,
// and GOMAXPROCS, which prism and the pure-Go linear algebra run on.
func simulateCPUs(t *testing.T, n int) {
	t.Helper()
	oldNum, oldProcs := numCPU, runtime.GOMAXPROCS(n)
	numCPU = func() int { return n }
	t.Cleanup(func() {
		numCPU = oldNum
		runtime.GOMAXPROCS(oldProcs)
	})
}

// The same input and options give the same model bytes on any number of cores, with the default batch and
// bundles: how rows are grouped into partial sums must not follow the machine (one 6000-row shard at F = 64 was
// mapped in batches of one 2048-row chunk on one core and of two on two, and the bytes differed).
func TestSameBytesOnAnyCores(t *testing.T) {
	header, lines := dataLines(6000, 3, "reg", 21)
	one, _ := writeShards(t, t.TempDir(), header, lines, []string{"part-0.csv"})
	three, _ := writeShards(t, t.TempDir(), header, lines, []string{"part-0.csv", "part-1.csv.gz", "part-2.csv"})
	cfg := rff.Config{Points: 32, Lambda: 1e-4, Seed: 3, Sigma: 1}
	for _, glob := range []string{one, three} {
		for _, bundles := range []int{0, 2} { // the default, and given
			var want []byte
			for _, cpus := range []int{1, 2, 16} {
				simulateCPUs(t, cpus)
				r := fitBeam(t, Options{Config: cfg, Input: glob, Bundles: bundles})
				if r.Memory.F != 64 || r.Rows != 6000 {
					t.Fatalf("F = %d, %d rows", r.Memory.F, r.Rows)
				}
				got := modelBytes(t, r.Model)
				if want == nil {
					want = got
					continue
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s, bundles %d: on %d cores the model's bytes differ from those on 1 core (%s)", glob, bundles, cpus, r.Memory)
				}
			}
		}
	}
}

// A local temporary directory is created only in an existing directory, and removed with the results: a missing
// parent or a file is refused, and nothing is left behind.
func TestTempDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	writeFile(t, file, "", []string{"x"})
	for _, c := range []struct{ tempDir, want string }{
		{filepath.Join(dir, "missing", "tmp"), "the temporary directory " + filepath.Join(dir, "missing", "tmp") + ": the directory " + filepath.Join(dir, "missing") + " does not exist; create it, or name another"},
		{file, "the temporary directory " + file + " is not a directory; name a directory"},
		{filepath.Join(file, "tmp"), "the temporary directory " + filepath.Join(file, "tmp") + ": " + file + " is not a directory; name another"},
	} {
		_, _, err := runDir(context.Background(), c.tempDir, true)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.tempDir, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("a refused temporary directory was created: %v", err)
	}
	for _, tempDir := range []string{filepath.Join(dir, "new"), dir} {
		run, cleanup, err := runDir(context.Background(), tempDir, false)
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(run); err != nil || !fi.IsDir() || filepath.Dir(run) != tempDir {
			t.Fatalf("run directory %s: %v", run, err)
		}
		writeFile(t, filepath.Join(run, "pass1"), "", []string{"result"})
		cleanup()
		if _, err := os.Stat(run); !os.IsNotExist(err) {
			t.Errorf("%s left behind", run)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Error("the temporary directory the fit created was left behind")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("an existing temporary directory was removed: %v", err)
	}
}

// A local input that is not a regular file is refused when the glob is expanded, before anything reads it: a
// named pipe would block the fit forever.
func TestListFilesRegularOnly(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "part-0.csv"), "a,y", []string{"1,2"})
	if err := os.Mkdir(filepath.Join(dir, "part-1.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := ListFiles(context.Background(), filepath.Join(dir, "part-*"))
	want := filepath.Join(dir, "part-1.csv") + " is a directory, not a data file; give the files in it (a glob such as " + filepath.Join(dir, "part-1.csv", "*.csv") + ")"
	if err == nil || err.Error() != want {
		t.Errorf("a directory: %v, want %q", err, want)
	}
	os.Remove(filepath.Join(dir, "part-1.csv"))
	fifo := filepath.Join(dir, "part-2.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Fit(context.Background(), Options{Config: rff.Config{Points: 8, Sigma: 1}, Input: filepath.Join(dir, "part-*")})
		done <- err
	}()
	select {
	case err := <-done:
		want := fifo + " is a named pipe, not a regular file: the passes read every file two or three times, which a pipe or a device cannot give; copy the data to a file"
		if err == nil || err.Error() != want {
			t.Errorf("a named pipe: %v, want %q", err, want)
		}
	case <-time.After(time.Minute):
		t.Fatal("Fit blocked on a named pipe")
	}
}

// A temporary location with a scheme (gs://, s3://, memfs://) keeps its "//": the passes' results go to that file
// system, not to a local directory named "gs:" under the working directory, and all three are removed after the fit.
func TestRemoteTempDir(t *testing.T) {
	ctx := context.Background()
	cwd := t.TempDir()
	t.Chdir(cwd)
	header, lines := dataLines(600, 3, "reg", 13)
	glob, all := writeShards(t, t.TempDir(), header, lines, fourShards)
	cfg := rff.Config{Points: 16, Lambda: 1e-4, Seed: 2}
	r := fitBeam(t, Options{Config: cfg, Input: glob, TempDir: "memfs://rff-remote-tmp"})
	want, err := rff.FitCSV(cfg, all, rff.StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	samePredictions(t, "memfs temporary location", r.Model, want, all, 1e-10)
	if left, _ := os.ReadDir(cwd); len(left) != 0 {
		t.Errorf("results written under the working directory: %v", left)
	}
	fs, err := filesystem.New(ctx, "memfs://rff-remote-tmp")
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	if left, err := fs.List(ctx, "memfs://rff-remote-tmp/*"); err != nil || len(left) != 0 {
		t.Errorf("left in the temporary location: %v (%v)", left, err)
	}
}

// Numeric labels are classes by value, as in rff.FitCSV: 1, 1.0 and 01 are one class, and so are 0 and −0, on any
// shard; the class limit counts those classes (not spellings, nor the NaN targets that are bad rows).
func TestNumericLabelSpellings(t *testing.T) {
	spell := map[string][]string{"1": {"0", "-0", "0.0", "-0.0"}, "2": {"2", "2.0", "02", "2e0"}, "3": {"10", "1e1", "10.00"}}
	header, lines := dataLines(600, 3, "numeric-labels", 16)
	for i, l := range lines {
		j := strings.LastIndex(l, ",")
		s := spell[l[j+1:]]
		lines[i] = l[:j+1] + s[i%len(s)]
	}
	glob, all := writeShards(t, t.TempDir(), header, lines, fourShards)
	cfg := rff.Config{Task: "classification", Points: 16, Lambda: 1e-4, Seed: 2, MaxClasses: 3}
	r := fitBeam(t, Options{Config: cfg, Input: glob})
	if got := r.Model.Info().Labels; !slices.Equal(got, []string{"0", "2", "10"}) {
		t.Fatalf("labels %v, want 0, 2, 10", got)
	}
	want, err := rff.FitCSV(cfg, all, rff.StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	samePredictions(t, "respelt labels", r.Model, want, all, 1e-10)

	lines[333] = lines[333][:strings.LastIndex(lines[333], ",")] + ",NaN"
	glob, _ = writeShards(t, t.TempDir(), header, lines, fourShards)
	r = fitBeam(t, Options{Config: cfg, Input: glob, SkipBadRows: true})
	if got := r.Model.Info().Labels; !slices.Equal(got, []string{"0", "2", "10"}) || r.Skipped != 1 {
		t.Errorf("with a NaN target: labels %v, skipped %d; want 0, 2, 10 and the NaN row skipped", got, r.Skipped)
	}
}

// A gzip shard cut short is a read error at the line it cuts, as rff fit reports it — not a row with too few fields
// (the cut line's beginning, which the line scanner hands back after the error).
func TestTruncatedGzip(t *testing.T) {
	dir := t.TempDir()
	header, lines := dataLines(400, 3, "reg", 17)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(header + "\n" + strings.Join(lines, "\n") + "\n"))
	zw.Close()
	cut := gz.Bytes()[:gz.Len()/2]
	path := filepath.Join(dir, "part-0.csv.gz")
	if err := os.WriteFile(path, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	// The line the cut falls in: one more than the complete lines the cut stream holds.
	zr, err := gzip.NewReader(bytes.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(zr)
	want := fmt.Sprintf("%s:%d: read error: unexpected EOF", path, bytes.Count(text, []byte("\n"))+1)
	_, err = Fit(context.Background(), Options{Config: rff.Config{Points: 16, Sigma: 1, Lambda: 1e-3}, Input: path})
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// The targets are shifted by their mean from the first pass, as rff.Fit and rff.FitCSV shift them: a constant
// added to a regression's targets changes the model only by that constant in its intercept (without the shift,
// Σy² − (Σy)²/N of targets near 1e8 keeps half the digits of their spread).
func TestTargetOffset(t *testing.T) {
	const c = 1e8
	header, lines := dataLines(800, 3, "reg", 18)
	shifted := slices.Clone(lines)
	for i, l := range shifted {
		j := strings.LastIndex(l, ",")
		y, err := strconv.ParseFloat(l[j+1:], 64)
		if err != nil {
			t.Fatal(err)
		}
		shifted[i] = l[:j+1] + strconv.FormatFloat(y+c, 'g', -1, 64)
	}
	cfg := rff.Config{Points: 32, Lambda: 1e-8, Seed: 3, Sigma: 1, Uncertainty: true}
	glob0, all := writeShards(t, t.TempDir(), header, lines, fourShards)
	glob1, _ := writeShards(t, t.TempDir(), header, shifted, fourShards)
	m0 := fitBeam(t, Options{Config: cfg, Input: glob0}).Model
	m1 := fitBeam(t, Options{Config: cfg, Input: glob1}).Model
	data, err := dataset.Load(all, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p0, err := m0.Predict(data)
	if err != nil {
		t.Fatal(err)
	}
	p1, err := m1.Predict(data)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range p0.Values {
		if math.Abs(v-(p1.Values[i]-c)) > 1e-6 {
			t.Fatalf("row %d: prediction %g without the offset, %g − c with it", i+1, v, p1.Values[i]-c)
		}
	}
}

// A shard whose first line is another header than the first file's — its columns reordered, or others — is a
// layout error with SkipBadRows too: skipped as one bad row, its rows would be read in the first file's column
// order and the wrong column would become the target. A first data row that does not parse is still a bad row.
func TestOtherHeaderNotSkipped(t *testing.T) {
	dir := t.TempDir()
	header, lines := dataLines(400, 3, "reg", 17)
	glob, _ := writeShards(t, dir, header, lines, fourShards[:2])
	first := filepath.Join(dir, "shards", "part-0.csv")
	shard := filepath.Join(dir, "shards", "part-2.csv")
	reorder := func(l string) string { // y,x1,x2,x3
		f := strings.Split(l, ",")
		return strings.Join(append(f[3:], f[:3]...), ",")
	}
	var moved []string
	for _, l := range lines[:50] {
		moved = append(moved, reorder(l))
	}
	cfg := rff.Config{Points: 16, Sigma: 2, Lambda: 1e-4}
	for _, c := range []struct {
		name, header string
		rows         []string
	}{
		{"columns reordered", reorder(header), moved},
		{"other names", "a,b,c,d", lines[:50]},
		{"header only", "y,x1,x2,x3", nil},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			writeFile(t, shard, c.header, c.rows)
			for _, skip := range []bool{false, true} {
				_, err := Fit(context.Background(), Options{Config: cfg, Input: glob, SkipBadRows: skip})
				want := shard + ":1: column 1: "
				if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "(and the line is not the header of "+first+")") {
					t.Errorf("skip bad rows %v: %v, want the layout error %q… naming the header of %s", skip, err, want, first)
				}
			}
		})
	}
	// A bad first data row of a shard — a mistyped number, or a word among numbers ("x", "NA", "?"), not a line of
	// names — stays a bad row that SkipBadRows skips.
	for _, bad := range []string{"1,2.5.1,3,4", "1,2,x,4", "NA,2,3,4", "1,?,3,4"} {
		writeFile(t, shard, "", append([]string{bad}, lines[:50]...))
		r := fitBeam(t, Options{Config: cfg, Input: glob, SkipBadRows: true})
		if r.Skipped != 1 || r.Rows != 450 {
			t.Errorf("a bad first row %q: skipped %d, rows %d; want 1 and 450", bad, r.Skipped, r.Rows)
		}
	}
}

// The driver reads each pass's result by its path, not as a glob: a temporary directory whose name holds glob
// characters ([ ] * ?) works. A result that is missing — the workers wrote it where this program does not read, as
// with a temporary directory the workers do not share — is reported as such, naming the directory, rather than
// blamed on the input as "no data rows"; a pass that read no rows still says "no data rows".
func TestResultPaths(t *testing.T) {
	dir := t.TempDir()
	header, lines := dataLines(200, 3, "reg", 23)
	glob, _ := writeShards(t, dir, header, lines, fourShards[:2])
	cfg := rff.Config{Points: 16, Sigma: 2, Lambda: 1e-4}
	for _, name := range []string{"td[1]", "td*", "td?"} {
		t.Run(name, func(t *testing.T) {
			td := filepath.Join(dir, name)
			if err := os.Mkdir(td, 0o755); err != nil {
				t.Fatal(err)
			}
			if r, err := Fit(context.Background(), Options{Config: cfg, Input: glob, TempDir: td}); err != nil || r.Rows != 200 {
				t.Errorf("--temp-dir %s: %v", td, err)
			}
		})
	}
	td := t.TempDir()
	_, err := readResult(context.Background(), filepath.Join(td, "rff-beam-0", "pass1"))
	if err == nil || errors.Is(err, errNoStats) || !strings.Contains(err.Error(), filepath.Join(td, "rff-beam-0")) || !strings.Contains(err.Error(), "share") {
		t.Errorf("a missing result: %v; want an error naming the directory and that the workers must share it", err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(empty, "a.csv"), header, nil)
	writeFile(t, filepath.Join(empty, "b.csv"), header, nil)
	_, err = Fit(context.Background(), Options{Config: cfg, Input: filepath.Join(empty, "*.csv"), TempDir: filepath.Join(dir, "td[1]")})
	if err == nil || !strings.HasSuffix(err.Error(), ": no data rows") {
		t.Errorf("files of headers only: %v, want no data rows", err)
	}
}
