package rffbeam

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/gcpercent"
	"github.com/rffkit/rff/learn"
)

// WorkerGCPercent is the garbage-collection percentage (debug.SetGCPercent) Fit sets while it runs (unless the
// program's own is lower; overlapping calls share it and the last to end restores the program's) and that a
// worker running StatsFn should use: with Go's default of 100, the scratch of the batches being mapped — which
// survives one collection — lets the heap grow with the rows. The rff-beam command sets it on its workers.
const WorkerGCPercent = 20

// Options say what Fit fits and how it runs.
type Options struct {
	// Config is the model: ridge regression or a squared-loss classifier on random features with a fixed λ, as
	// rff.FitCSV fits (Config.MaxMemory bounds the driver's memory).
	Config rff.Config
	// Input names the CSV files (plain or gzip-compressed): a file or a glob of Beam's file systems.
	Input string
	// Target is the target column: "first", "last" (the default), a header name or a 1-based index.
	Target string
	// SkipBadRows skips rows that do not parse (counted in Result.Skipped and the model's metadata) instead of
	// failing on the first one. A file whose first line is another header than the first file's fails the fit
	// even then (ReadSpec.SkipBadRows).
	SkipBadRows bool
	// Runner is the Beam runner: "prism" (the default: in this process), "direct", "dataflow", "flink", "spark",
	// "universal"; its options are Beam's flags.
	Runner string
	// TempDir is where the passes leave their results for the driver: a location the workers and the driver share
	// (gs://bucket/tmp on Dataflow). The default, for prism and direct only, is a new local temporary directory.
	TempDir string
	// WorkerMemory is the memory a worker may spend on the second pass, in bytes: a fit whose estimate (Memory)
	// exceeds it is refused before any pipeline starts. 0 means half of the memory available to this process
	// (dataset.DefaultMaxBytes), a negative value no limit.
	WorkerMemory int64
	// Bundles is the number of bundles a worker processes at once, for the memory estimate and the default batch:
	// 0 means min(8, files) (prism runs up to 8 bundles at once, each with at least one file; on Dataflow give the
	// harness threads per worker). On prism, which runs up to 8 bundles at once in this process, a smaller value is
	// raised to min(8, files) for the memory estimate: prism's limit is fixed, so fewer would not use less memory
	// (MemoryError.RunnerBundles); the default BatchRows follows the value given. The direct runner runs one bundle
	// at a time. BatchRows is the rows a bundle maps at a time (0: DefaultBatchRows), BlockRows
	// the rows of a Rows element (0: 1024); negative values are errors. The defaults never depend on this
	// machine's cores. How rows are grouped into partial sums — which Rows elements a bundle accumulates, and the
	// order in which the runner merges the bundles' accumulators — is the runner's choice and varies from run to
	// run (on prism too, even on one core): the same input and options give models that differ in their last bits
	// (predictions by about 1e-12 of their scale at λ = 1e-6), not the same bytes, except from a single file,
	// which one bundle reads. Every such model agrees with rff.FitCSV's to rounding (predictions to 1e-10).
	Bundles, BatchRows, BlockRows int
	// Log receives a line per step, or nothing when nil.
	Log io.Writer
}

// Result is what Fit returns.
type Result struct {
	Model  *rff.Model
	Files  []string
	Rows   int // rows fitted
	Memory Memory
	// Skipped counts the bad rows skipped (Options.SkipBadRows); FirstSkipped says where the first was and why.
	Skipped      int
	FirstSkipped string
	// Seconds per phase: "plan", "pass1", "pass2", "solve".
	Seconds map[string]float64
}

// MemoryError is returned when the second pass would need more memory per worker than Options.WorkerMemory, or
// the driver more than Config.MaxMemory.
type MemoryError struct {
	Who    string // "worker" or "driver"
	Need   int64
	Budget int64
	Memory Memory
	// RunnerBundles is the number of bundles the runner runs at once in this process whatever Options.Bundles says
	// (prism: min(8, files)), which Memory.Bundles is never below; 0 for the others (direct runs one bundle at a
	// time, a remote runner's workers run Options.Bundles).
	RunnerBundles int
}

// Error says who needs how much memory, over which budget, and how to lower the need.
func (e *MemoryError) Error() string {
	if e.Who == "driver" {
		return fmt.Sprintf("the driver needs about %s to solve for F = %d features, over its memory budget of %s; lower D or raise the budget",
			rff.FormatBytes(e.Need), e.Memory.F, rff.FormatBytes(e.Budget))
	}
	return fmt.Sprintf("each worker needs about %s (%s), over the worker memory budget of %s; lower %s, or raise the budget",
		rff.FormatBytes(e.Need), e.Memory.Need(), rff.FormatBytes(e.Budget), e.Lower("D", "the bundles per worker", "the batch rows"))
}

// Lower lists, given the names of D, of the bundles per worker and of the batch rows, those that lower a worker's
// need: only D when the final merge dominates (it depends on F alone); the bundles only above one and above those
// the runner runs at once anyway (RunnerBundles); the batch rows only when a batch holds more than one chunk (one
// partial ZᵀZ each; from F = 1024 a batch is one chunk).
func (e *MemoryError) Lower(d, bundles, batch string) string {
	if e.Memory.FromMerge() {
		return d
	}
	names := []string{d}
	if e.Memory.Bundles > max(e.RunnerBundles, 1) {
		names = append(names, bundles)
	}
	if e.Memory.Shards > 1 {
		names = append(names, batch)
	}
	switch len(names) {
	case 1:
		return d
	case 2:
		return names[0] + " or " + names[1]
	}
	return names[0] + ", " + names[1] + " or " + names[2]
}

// Fit fits a model on the CSV files o.Input with Beam pipelines — the first pass (ScanFn) fits the preprocessing and
// collects the class labels; when the bandwidth is not given, a pass fetches the rows the median heuristic measures
// (SampleFn); the second pass (StatsFn) accumulates the ridge statistics — and solves them on the driver
// (rff.FitFromStats). The model is the one rff.FitCSV fits on the files concatenated (in lexicographic order), up to
// the order of floating-point sums. beam.Init must have been called.
func Fit(ctx context.Context, o Options) (*Result, error) {
	// As in rff.FitCSV: the live heap is dominated by the partial ZᵀZ matrices, the mapped chunks are the only
	// garbage, and each batch's scratch survives one collection; a low GC percentage keeps that garbage to a small
	// share of the heap. It applies to the workers of runners that run in this process (prism, direct).
	defer gcpercent.Lower(WorkerGCPercent)()
	t0 := time.Now()
	res := &Result{Seconds: map[string]float64{}}
	cfg := o.Config
	cfg.Progress = nil
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", args...)
		}
	}
	if cfg.Uncertainty && !(cfg.Lambda > 0) { // Fit has no choice of λ (Config.Tune, Config.CV) to offer instead
		return nil, fmt.Errorf("Config.Uncertainty needs λ > 0, got Config.Lambda %g: the weights' prior variance is σ²/(Nλ); give a positive Config.Lambda", cfg.Lambda)
	}
	steps, err := rff.PreprocessSteps(cfg)
	if err != nil {
		return nil, err
	}
	needSample, err := rff.SampleRows(cfg, 2)
	if err != nil {
		return nil, err
	}
	switch {
	case o.Bundles < 0:
		return nil, fmt.Errorf("bundles per worker = %d: want ≥ 0 (0: min(8, files))", o.Bundles)
	case o.BatchRows < 0:
		return nil, fmt.Errorf("batch rows = %d: want ≥ 0 (0: DefaultBatchRows)", o.BatchRows)
	case o.BlockRows < 0:
		return nil, fmt.Errorf("block rows = %d: want ≥ 0 (0: 1024)", o.BlockRows)
	}
	classify := orDefault(cfg.Task, "regression") == "classification"
	runner := orDefault(o.Runner, "prism")
	if err := checkRunner(runner); err != nil {
		return nil, err
	}
	local := runner == "prism" || runner == "direct" || runner == "PrismRunner" || runner == "DirectRunner"

	// Plan: the files, their layout, the size of the map and the memory.
	files, err := ListFiles(ctx, o.Input)
	if err != nil {
		return nil, err
	}
	res.Files = files
	layout, firstFile, err := DetectLayout(ctx, files, o.Target)
	if err != nil {
		return nil, err
	}
	if layout.Target < 0 {
		return nil, fmt.Errorf("%s has no target column", firstFile)
	}
	d := layout.D()
	plan := cfg
	if needSample != nil {
		plan.Sigma = 1 // the size of the map does not depend on the bandwidth, chosen after the first pass
	}
	// The size of the map, counted before anything is drawn (a map of 10⁸ points takes gigabytes to draw): the
	// budgets are checked first, then rff.NewMap checks the configuration (and draws it).
	points, F, refused, err := mapSize(plan, d)
	if err != nil {
		return nil, err
	}
	if refused {
		if _, err := rff.NewMap(plan, d); err != nil { // the rounding of an SR rule, refused before any draw
			return nil, err
		}
	}
	P := 1
	if classify {
		P = 2 - boolInt(cfg.Encoding == "simplex")
	}
	// prism runs up to 8 bundles at once, each with at least one file, whatever Options.Bundles says: the estimate
	// counts them all, or a smaller Bundles would pass the check without lowering the memory used.
	// (The direct runner runs one bundle at a time: there Bundles is taken as given.)
	runnerBundles := 0
	if runner == "prism" || runner == "PrismRunner" {
		runnerBundles = min(localBundles, len(files))
	}
	if o.Bundles == 0 {
		o.Bundles = min(localBundles, len(files))
	}
	if o.BatchRows == 0 { // from the bundles given: they are part of the grouping of rows into sums (the rounding)
		o.BatchRows = DefaultBatchRows(F, o.Bundles)
	}
	if o.Bundles < runnerBundles {
		logf("bundles: %d given, but %s runs %d at once here (min(%d, files)): the estimate counts %d", o.Bundles, runner, runnerBundles, localBundles, runnerBundles)
		o.Bundles = runnerBundles
	}
	if res.Memory, err = checkMemory(o, F, P, d, points, runnerBundles); err != nil {
		return nil, err
	}
	// The configuration, checked by drawing the map (the second pass draws it again, with the bandwidth).
	if fmap, err := rff.NewMap(plan, d); err != nil {
		return nil, err
	} else if fmap.Features() != F || fmap.Points() != points {
		return nil, fmt.Errorf("rffbeam: the map has %d points and %d features, counted %d and %d", fmap.Points(), fmap.Features(), points, F)
	}
	logf("%d files (%s), %d inputs, target %q; %s", len(files), describeFiles(files), d, layout.TargetName(), res.Memory)
	dir, cleanup, err := runDir(ctx, o.TempDir, local)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	spec := ReadSpec{Layout: *layout, FirstFile: firstFile, Classify: classify, SkipBadRows: o.SkipBadRows, BlockRows: o.BlockRows}
	if !slices.ContainsFunc(steps, func(st dataset.Step) bool { return st != dataset.StepNone }) {
		// A preprocessing that needs no statistics is known before the first pass, which checks the inputs then.
		if spec.Scaler, err = dataset.FitScaler(make([]float64, d), 1, d, steps); err != nil {
			return nil, err
		}
	}
	res.Seconds["plan"] = time.Since(t0).Seconds()

	// Pass 1: preprocessing statistics and labels.
	t1 := time.Now()
	maxLabels := 1000
	if cfg.MaxClasses > 0 {
		maxLabels = cfg.MaxClasses
	}
	b, err := runPass(ctx, runner, files, spec, &ScanFn{D: d, Classify: classify, MaxLabels: maxLabels}, resultPath(dir, "pass1"))
	if errors.Is(err, errNoStats) {
		err = fmt.Errorf("%s: no data rows", describeFiles(files))
	}
	if err != nil {
		return nil, err
	}
	scan, err := DecodeScan(b)
	if err != nil {
		return nil, err
	}
	res.Seconds["pass1"] = time.Since(t1).Seconds()
	res.Skipped, res.FirstSkipped = scan.Skipped, errString(scan.First)
	if scan.NonFinite > 0 {
		if !o.SkipBadRows {
			return nil, errors.New(scan.FirstNonFinite.String())
		}
		res.Skipped += scan.NonFinite
		if scan.FirstNonFinite.before(scan.First) {
			res.FirstSkipped = errString(scan.FirstNonFinite)
		}
	}
	logf("pass 1: %d rows (%d skipped) in %.1fs", scan.Rows, res.Skipped, res.Seconds["pass1"])
	if scan.Rows == 0 {
		if res.Skipped > 0 {
			return nil, fmt.Errorf("%s: no data rows (%s skipped; the first: %s)", describeFiles(files), plural(res.Skipped, "bad row"), res.FirstSkipped)
		}
		return nil, fmt.Errorf("%s: no data rows", describeFiles(files))
	}
	sc, err := scan.Scaler(steps)
	if err != nil {
		return nil, err
	}
	spec.Scaler = sc // the next passes refuse the rows whose preprocessed inputs are too large for the kernel
	var labels []string
	if classify {
		if scan.TooManyLabels {
			return nil, fmt.Errorf("the target has more than %d classes (or more than %d distinct spellings of its values): it looks continuous; fit a regression, or raise Config.MaxClasses", maxLabels, max(8*maxLabels, 1<<16))
		}
		labels = dataset.NewClasses(scan.Labels, scan.Numeric).Labels
		if len(labels) < 2 {
			return nil, fmt.Errorf("%s: classification needs at least 2 classes, found %d", describeFiles(files), len(labels))
		}
		if err := rff.CheckClasses(cfg, len(labels), scan.Rows); err != nil {
			return nil, err
		}
		if P = len(labels); cfg.Encoding == "simplex" {
			P--
		}
		if res.Memory, err = checkMemory(o, F, P, d, points, runnerBundles); err != nil {
			return nil, err
		}
	}
	spec.NumericTargets = classify && scan.Numeric

	// The bandwidth: the median heuristic on the rows FitCSV samples, fetched by their index.
	if needSample != nil {
		ts := time.Now()
		idx, err := rff.SampleRows(cfg, scan.Rows)
		if err != nil {
			return nil, err
		}
		refs, want, err := locate(files, scan.FileRows, idx)
		if err != nil {
			return nil, err
		}
		b, err := runPass(ctx, runner, files, spec, &SampleFn{D: d, Want: want}, resultPath(dir, "sample"))
		if err != nil {
			return nil, err
		}
		rows, err := DecodeSample(b)
		if err != nil {
			return nil, err
		}
		found := map[rowRef][]float64{}
		for _, r := range rows {
			found[rowRef{r.File, r.Index}] = r.X
		}
		sample := make([]float64, 0, len(idx)*d)
		for _, ref := range refs {
			x, ok := found[ref]
			if !ok || len(x) != d {
				return nil, fmt.Errorf("%s: the sample pass did not find row %d: the input changed between the passes", ref.file, ref.index+1)
			}
			sample = append(sample, x...)
		}
		if cfg.Sigma, err = rff.ChooseSigma(cfg, sample, sc); err != nil {
			return nil, err
		}
		res.Seconds["sample"] = time.Since(ts).Seconds()
		logf("bandwidth: σ = %.6g by the median heuristic on %d rows, in %.1fs", cfg.Sigma, len(idx), res.Seconds["sample"])
	}

	// Pass 2: the ridge statistics.
	t2 := time.Now()
	fn, err := NewStatsFn(cfg, d, sc, labels, scan.Numeric)
	if err != nil {
		return nil, err
	}
	fn.BatchRows = o.BatchRows
	if !classify {
		fn.Shift = scan.TargetSum / float64(scan.Rows) // the targets' mean (scan.Rows > 0 here)
	}
	var st *learn.Stats
	b, err = runPass(ctx, runner, files, spec, fn, resultPath(dir, "pass2"))
	switch {
	case errors.Is(err, errNoStats):
	case err != nil:
		return nil, err
	default:
		if st, err = DecodeStats(b); err != nil {
			return nil, err
		}
	}
	if st == nil || st.N != scan.Rows {
		n := 0
		if st != nil {
			n = st.N
		}
		return nil, fmt.Errorf("the second pass read %d rows, the first %d: the input changed between the passes", n, scan.Rows)
	}
	res.Seconds["pass2"] = time.Since(t2).Seconds()
	logf("pass 2: %d rows in %.1fs", st.N, res.Seconds["pass2"])

	// Solve.
	t3 := time.Now()
	ds := rff.DistributedStats{Scaler: sc, Names: layout.Names(), Target: layout.TargetName(), Labels: labels, Stats: st,
		TargetShift: fn.Shift}
	if layout.Header == nil && layout.Target >= 0 {
		ds.TargetColumn = layout.Target + 1 // headerless files: where the target is, for the model's readers
	}
	ds.Extra = map[string]any{"input": o.Input, "files": len(files), "rows": scan.Rows, "fitted_by": "rff-beam"}
	if o.SkipBadRows {
		ds.Extra["skipped_rows"] = res.Skipped
		if res.FirstSkipped != "" {
			ds.Extra["first_skipped"] = res.FirstSkipped
		}
	}
	if res.Model, err = rff.FitFromStats(cfg, ds); err != nil {
		if strings.Contains(err.Error(), "not positive definite") { // the solvers' advice, "increase λ", named as the option
			return nil, fmt.Errorf("Config.Lambda %g: the ridge system ZᵀZ + NλI is not positive definite at this λ (the features are linearly dependent on these rows); raise Config.Lambda", cfg.Lambda)
		}
		return nil, err
	}
	res.Rows = scan.Rows
	res.Seconds["solve"] = time.Since(t3).Seconds()
	return res, nil
}

// runPass runs a pipeline that reads the files with spec, combines the rows with fn and writes the result to out,
// and returns the result.
func runPass(ctx context.Context, runner string, files []string, spec ReadSpec, fn any, out string) ([]byte, error) {
	p, s := beam.NewPipelineWithRoot()
	rows := ReadRows(s, beam.CreateList(s, files), spec)
	WriteResult(s, out, beam.Combine(s, fn, rows))
	if err := run(ctx, runner, p); err != nil {
		return nil, err
	}
	return readResult(ctx, out)
}

func errString(e RowError) string {
	if e.Line == 0 {
		return ""
	}
	return e.String()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// localBundles is the number of bundles prism runs at once (its pipelines' limit of concurrent bundles, fixed in
// Beam), which Options.Bundles does not change.
const localBundles = 8

// checkMemory estimates the second pass and refuses it above the budgets; runnerBundles is the bundles a runner in
// this process runs at once anyway (MemoryError.RunnerBundles).
func checkMemory(o Options, F, P, d, points, runnerBundles int) (Memory, error) {
	m := EstimateMemory(F, P, d, points, o.BatchRows, o.Bundles)
	budget := o.WorkerMemory
	if budget == 0 {
		budget = dataset.DefaultMaxBytes()
	}
	if budget > 0 && m.Worker > budget {
		return m, &MemoryError{Who: "worker", Need: m.Worker, Budget: budget, Memory: m, RunnerBundles: runnerBundles}
	}
	driver := o.Config.MaxMemory
	if driver == 0 {
		driver = dataset.DefaultMaxBytes()
	}
	if driver > 0 && m.Driver > driver {
		return m, &MemoryError{Who: "driver", Need: m.Driver, Budget: driver, Memory: m}
	}
	return m, nil
}

// run runs a pipeline and turns its failure into the innermost error: the one-line message of a worker's data
// error, an error of this package's functions on a worker, or the last cause the runner reports.
func run(ctx context.Context, runner string, p *beam.Pipeline) error {
	_, err := beam.Run(ctx, runner, p)
	if err == nil {
		return nil
	}
	if msg, ok := FailureMessage(err); ok {
		return errors.New(msg)
	}
	if msg, ok := innermost(err.Error()); ok {
		if strings.HasPrefix(msg, "rffbeam: ") {
			return errors.New(msg)
		}
		return fmt.Errorf("the %s pipeline failed: %s", runner, msg)
	}
	return fmt.Errorf("the %s pipeline failed: %w", runner, err)
}

// runDir returns a new directory for the results of the passes under tempDir, and a function that removes it.
func runDir(ctx context.Context, tempDir string, local bool) (string, func(), error) {
	if tempDir == "" {
		if !local {
			return "", nil, errors.New("a remote runner needs a temporary location the workers and the driver share (gs://bucket/tmp)")
		}
		dir, err := os.MkdirTemp("", "rff-beam-")
		if err != nil {
			return "", nil, err
		}
		return dir, pendingDir(func() { os.RemoveAll(dir) }), nil
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	name := "rff-beam-" + hex.EncodeToString(rnd[:])
	if !strings.Contains(tempDir, "://") {
		created, err := makeTempDir(tempDir)
		if err != nil {
			return "", nil, err
		}
		dir := filepath.Join(tempDir, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			if created {
				os.Remove(tempDir)
			}
			return "", nil, fmt.Errorf("the temporary directory %s: %w", tempDir, err)
		}
		return dir, pendingDir(func() {
			os.RemoveAll(dir)
			if created {
				os.Remove(tempDir) // only if empty: nothing else was put there meanwhile
			}
		}), nil
	}
	dir := strings.TrimSuffix(tempDir, "/") + "/" + name
	return dir, func() {
		fs, err := filesystem.New(ctx, dir)
		if err != nil {
			return
		}
		defer fs.Close()
		if rm, ok := fs.(filesystem.Remover); ok {
			for _, f := range []string{"pass1", "sample", "pass2"} {
				rm.Remove(ctx, dir+"/"+f)
			}
		}
	}, nil
}

// resultPath is the result of a pass named name in the run directory dir: a local path, or a location with a scheme
// (gs://bucket/tmp/…), which path.Join would turn into "gs:/bucket/…", a local path.
func resultPath(dir, name string) string {
	if strings.Contains(dir, "://") {
		return strings.TrimSuffix(dir, "/") + "/" + name
	}
	return filepath.Join(dir, name)
}

// makeTempDir makes sure the local directory dir exists: it creates dir (and reports it, for the caller to remove)
// when its parent is a directory, and refuses a dir that is not a directory or whose parent does not exist, rather
// than create a tree of directories that would be left behind.
func makeTempDir(dir string) (created bool, err error) {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && fi.IsDir():
		return false, nil
	case err == nil:
		return false, fmt.Errorf("the temporary directory %s is not a directory; name a directory", dir)
	}
	parent := filepath.Dir(filepath.Clean(dir))
	switch pi, perr := os.Stat(parent); {
	case perr != nil:
		return false, fmt.Errorf("the temporary directory %s: the directory %s does not exist; create it, or name another", dir, parent)
	case !pi.IsDir():
		return false, fmt.Errorf("the temporary directory %s: %s is not a directory; name another", dir, parent)
	case !errors.Is(err, os.ErrNotExist):
		return false, fmt.Errorf("the temporary directory %s: %w", dir, err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		if fi, serr := os.Stat(dir); serr == nil && fi.IsDir() { // made meanwhile by another program: not ours
			return false, nil
		}
		return false, fmt.Errorf("the temporary directory %s: %w", dir, err)
	}
	return true, nil
}

// WriteResult writes the single []byte element of col (the output of ScanFn or StatsFn) to the file path of
// Beam's file systems, for the driver to read. A col without an element — a combine of no rows — leaves an empty
// file, so that the driver tells a pass that read no rows from a result that never reached it.
func WriteResult(s beam.Scope, path string, col beam.PCollection) {
	s = s.Scope("rffbeam.WriteResult")
	beam.ParDo0(s, &writeFn{Path: path}, beam.Impulse(s), beam.SideInput{Input: col})
}

type writeFn struct {
	Path string
}

// ProcessElement writes the result, or nothing, to the file.
func (f *writeFn) ProcessElement(ctx context.Context, _ []byte, results func(*[]byte) bool) error {
	var b []byte
	results(&b)
	fs, err := filesystem.New(ctx, f.Path)
	if err != nil {
		return err
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, f.Path)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// readResult reads the result of a pass at path — by its name, never as a glob: a temporary directory may hold
// [, *, ? — and returns errNoStats for the empty file of a pass that read no rows. A missing file is an error that
// names the directory the workers should have written to.
func readResult(ctx context.Context, path string) ([]byte, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		dir := path[:strings.LastIndexAny(path, `/\`)+1]
		return nil, fmt.Errorf("the pipeline ended without its result reaching this program (%v): the workers write the passes' results under the temporary directory %s, which must be a location they share with this program", err, strings.TrimRight(dir, `/\`))
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading the result of a pass: %w", err)
	}
	if len(b) == 0 {
		return nil, errNoStats
	}
	return b, nil
}
