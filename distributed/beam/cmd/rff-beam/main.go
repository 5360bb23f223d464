// Command rff-beam fits rff models on data spread over many files with Apache Beam: on this machine (the prism
// runner, the default), on Google Cloud Dataflow, or on Flink and Spark through a portable job server.
//
//	rff-beam fit --input 'data/part-*.csv.gz' --target y -D 1024 --out model.rff
//	rff-beam fit --input 'gs://bucket/data/*.csv.gz' --out model.rff --runner dataflow \
//	    --project P --region R --temp_location gs://bucket/tmp --worker-memory 12GiB --bundles 4
//
// The model file is the one `rff fit --stream` writes on the files concatenated: `rff predict`, `rff eval` and
// `rff serve` read it unchanged. See docs/distributed.md.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/direct"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/flink"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/spark"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/distributed/beam/rffbeam"
	"github.com/rffkit/rff/internal/atomicfile"
	"github.com/rffkit/rff/internal/cliflag"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

func main() {
	if err := rff.UseOpenBLAS(); err != nil {
		fmt.Fprintf(os.Stderr, "rff-beam: %s\n", oneLine(err.Error()))
		os.Exit(2)
	}
	args := os.Args[1:]
	if beamFlags(args) {
		// A runner starts this program on its workers with Beam's flags only (--worker and its endpoints): Init then
		// serves the bundles and exits.
		debug.SetGCPercent(rffbeam.WorkerGCPercent)
		beam.Init()
	}
	if len(args) > 0 {
		removeTempsOnSignal(args[0])
	}
	exit(run(args, os.Stdout, os.Stderr))
}

// exit ends the process with code — unless a signal is ending the command: its handler then reports it and exits
// with the signal's code, and exit waits for that.
func exit(code int) {
	if atomicfile.Interrupted() {
		select {}
	}
	os.Exit(code)
}

// removeTempsOnSignal ends the process on SIGINT or SIGTERM after removing what the fit in progress keeps on
// disk — its temporary directories (the passes' results, and the files Beam's runners create in the
// temporary directory, which points into the command's own while it fits) and the temporary file of the model
// being written — so that an interrupted command leaves nothing behind and the output file as it was. The exit
// code is 128 + the signal's number, as a shell reports a process the signal killed.
func removeTempsOnSignal(cmd string) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		removeTemps()
		fmt.Fprintf(os.Stderr, "rff-beam %s: interrupted (%v)\n", cmd, sig)
		code := 128 + 2
		if s, ok := sig.(syscall.Signal); ok {
			code = 128 + int(s)
		}
		os.Exit(code)
	}()
}

// scratch is the command's temporary directory while a fit runs ("" otherwise): TMPDIR points at it, so that
// the runners' temporary files land there, and the fit's own directory is made in it; restore puts TMPDIR back.
var scratch struct {
	sync.Mutex
	dir     string
	restore func()
}

// removeTemps removes the temporary files and directories of the fit in progress. The model's write is
// interrupted first: the fit failing as its directories go must find the command interrupted (and leave the exit
// to the signal's handler) rather than report the failure and exit 2 before this ends. TMPDIR is put back before
// the directory goes, so that a runner creating a temporary file meanwhile finds a directory (Beam's would fail on
// a nil file) rather than the one being removed.
func removeTemps() {
	atomicfile.Interrupt()
	scratch.Lock()
	if scratch.dir != "" {
		scratch.restore()
		os.RemoveAll(scratch.dir)
		scratch.dir = ""
	}
	scratch.Unlock()
	rffbeam.RemoveTemps()
}

// useScratch creates the command's temporary directory in the system's and points TMPDIR at it; the function it
// returns restores TMPDIR and removes the directory.
func useScratch() (func(), error) {
	dir, err := os.MkdirTemp("", "rff-beam-")
	if err != nil {
		return nil, fmt.Errorf("creating a temporary directory: %w", err)
	}
	old, had := os.LookupEnv("TMPDIR")
	scratch.Lock()
	defer scratch.Unlock()
	scratch.dir = dir
	scratch.restore = func() {
		if had {
			os.Setenv("TMPDIR", old)
		} else {
			os.Unsetenv("TMPDIR")
		}
	}
	os.Setenv("TMPDIR", dir)
	return func() {
		scratch.Lock()
		defer scratch.Unlock()
		if scratch.dir == dir {
			scratch.restore()
			os.RemoveAll(dir)
			scratch.dir = ""
		}
	}, nil
}

// run executes the command line and returns the exit code: 0 on success, 2 on any error (one line on stderr).
//
// A failed write to stdout (a full disk, a closed pipe) is an error too: the output is incomplete.
func run(args []string, stdout, stderr io.Writer) int {
	out := &cliflag.CheckedWriter{W: stdout}
	if len(args) == 0 || args[0] == "help" || isHelp(args[0]) {
		printUsage(out)
		if out.Err != nil {
			fmt.Fprintf(stderr, "rff-beam: writing the output: %s\n", oneLine(out.Err.Error()))
			return 2
		}
		return 0
	}
	if args[0] != "fit" {
		fmt.Fprintf(stderr, "rff-beam: unknown command %q (run \"rff-beam help\")\n", args[0])
		return 2
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1)) // the fit's limitHeap lasts as long as it
	err := runFit(args[1:], out, stderr)
	if errors.Is(err, flag.ErrHelp) {
		err = nil
	}
	if out.Err != nil && (err == nil || errors.Is(err, out.Err)) { // the JSON encoder returns the write's error
		err = fmt.Errorf("writing the output: %w", out.Err)
	}
	if err != nil && atomicfile.Interrupted() { // a write failed because a signal is ending the command: its handler says so
		return 2
	}
	if err != nil {
		// The library's messages name rff.Config's fields: name the flags that set them, where this command has one.
		has := func(flag string) bool { return newFitFlags().fs.Lookup(flag) != nil }
		fmt.Fprintf(stderr, "rff-beam fit: %s\n", cliflag.Message(err, has))
		return 2
	}
	return 0
}

// beamFlags reports whether args are flags the program's packages registered — Beam's, as a runner passes them to a
// worker — by parsing them into flag.CommandLine (quietly, without exiting on an error or on -h). A command line of
// rff-beam itself (a command name, or help) is not.
func beamFlags(args []string) bool {
	if len(args) == 0 || !strings.HasPrefix(args[0], "-") || isHelp(args[0]) {
		return false
	}
	flag.CommandLine.Init(os.Args[0], flag.ContinueOnError)
	flag.CommandLine.SetOutput(io.Discard)
	return flag.CommandLine.Parse(args) == nil
}

// isHelp reports whether arg asks for the usage (-h, -help, --help): main hands it to run rather than to Beam's flag
// parsing, which would exit without a word.
func isHelp(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "rff-beam — fit rff models on data spread over many files, with Apache Beam")
	fmt.Fprintln(w, "\nUsage: rff-beam fit --input GLOB --out MODEL [flags]   (rff-beam fit -h for the flags)")
	fmt.Fprintln(w, "\nThe model is the one `rff fit --stream` writes on the files concatenated. Runners: prism (default,")
	fmt.Fprintln(w, "in this process), direct, dataflow, flink, spark, universal (--endpoint of a job server).")
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// fitFlags are the flags of rff-beam fit; Beam's own flags (--runner, --endpoint, --project, --region,
// --temp_location, …) are passed through to Beam.
type fitFlags struct {
	fs            *flag.FlagSet
	cfg           rff.Config
	input, format string
	target, out   string
	sigma, gamma  float64
	// sigmaSet and gammaSet say that --sigma and --gamma were given (auto included).
	sigmaSet, gammaSet bool
	skipBadRows        bool
	workerMemory       memoryFlag
	maxMemory          memoryFlag
	bundles            int
	batchRows          int
	tempDir            string
	asJSON             bool
	verbose            bool
}

func newFitFlags() *fitFlags {
	f := &fitFlags{fs: flag.NewFlagSet("fit", flag.ContinueOnError)}
	fs := f.fs
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&f.input, "input", "", "CSV files to fit: a file or a glob (local, gs://…), plain or gzip-compressed; every file is read with the layout of the first (delimiter, header, target column), and a first line equal to its header is skipped")
	fs.StringVar(&f.format, "format", "csv", "input format: csv")
	fs.StringVar(&f.target, "target", "", "target column: first, last (default), a header name or a 1-based index")
	fs.StringVar(&f.out, "out", "", "model file to write (a local path; written last, atomically)")
	fs.StringVar(&f.cfg.Task, "task", "regression", "regression or classification (ridge on one-hot or simplex-coded classes)")
	fs.StringVar(&f.cfg.Kernel, "kernel", "gaussian", "kernel: "+strings.Join(kernel.Names(), "|"))
	fs.Var(cliflag.Sigma{V: &f.sigma, What: "bandwidth", Given: &f.sigmaSet}, "sigma", "bandwidth σ, or auto: the median heuristic on a sample of the preprocessed rows (the rows rff fit samples; costs a third pass)")
	fs.Var(cliflag.Sigma{V: &f.gamma, What: "γ", Given: &f.gammaSet}, "gamma", "bandwidth as γ = 1/(2σ²) (alternative to --sigma)")
	fs.StringVar(&f.cfg.Rule, "rule", "sr-butterfly", "rule drawing the points (see rff fit -h)")
	fs.StringVar(&f.cfg.Fallback, "rule-fallback", "", "rule used instead of an SR rule whose rounding to whole rules of d+1 points would more than double -D")
	fs.IntVar(&f.cfg.Points, "D", 1024, "number of points (frequencies); cos/sin maps have 2D columns; SR rules round up to whole rules")
	fs.Float64Var(&f.cfg.Lambda, "lambda", 1e-6, "ridge penalty λ in (1/N)Σ‖f(x_i) − y_i‖² + λ‖θ‖²")
	fs.StringVar(&f.cfg.Form, "form", "cossin", "cossin or cosphase")
	fs.StringVar(&f.cfg.Encoding, "encoding", "onehot", "classification targets: onehot or simplex")
	fs.StringVar(&f.cfg.Preprocess, "preprocess", "", "comma list of steps fitted on the inputs and stored in the model: standardize (default), minmax, maxscale, isotropic, none")
	fs.Uint64Var(&f.cfg.Seed, "seed", 1, "seed of the feature map (and of the bandwidth's sample)")
	fs.BoolVar(&f.cfg.Uncertainty, "uncertainty", false, "regression: keep the posterior of Bayesian linear regression on the features in the model (rff predict --std); needs λ > 0")
	fs.IntVar(&f.cfg.MaxClasses, "max-classes", 0, "largest number of classes a classifier accepts (default: 1000, and at most half the rows)")
	fs.BoolVar(&f.skipBadRows, "skip-bad-rows", false, "skip rows that do not parse, count them and record the count in the model, instead of failing on the first one (a file whose first line is another header than the first file's still fails)")
	fs.Var(&f.workerMemory, "worker-memory", "memory a worker may spend on the statistics, in bytes or with a unit (12GiB): a fit whose estimate exceeds it is refused before it starts; 0 = half of this machine's available memory, -1 = no limit")
	fs.Var(&f.maxMemory, "max-memory", "memory budget of this program (which solves): 0 = half of the available memory, -1 = no limit")
	fs.IntVar(&f.bundles, "bundles", 0, "bundles a worker processes at once, for the memory estimate and the default --batch-rows (0 = min(8, files): prism runs up to 8 bundles at once, and a smaller value is raised to that for its estimate; direct runs one at a time; on Dataflow, give the harness threads per worker)")
	fs.IntVar(&f.batchRows, "batch-rows", 0, "rows a bundle maps at a time (default: below F = 1024 features, 8 chunks of 16 MiB of features shared among the --bundles, one partial ZᵀZ matrix and one core each; from F = 1024, one chunk, mapped on all cores into one ZᵀZ — never the machine's cores): below F = 1024 each chunk of a batch, up to 8, is one more partial ZᵀZ in memory and one more core used by the bundle")
	fs.StringVar(&f.tempDir, "temp-dir", "", "where the passes leave their results for this program: a location the workers share (default: a local temporary directory for prism and direct, --temp_location for other runners)")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object on stdout")
	fs.BoolVar(&f.verbose, "v", false, "print the plan, the passes and Beam's log on stderr")
	return f
}

// splitArgs separates the flags of rff-beam fit from Beam's, which are registered on the process's flag set, and
// names the Beam flags given.
func splitArgs(fs *flag.FlagSet, args []string) (mine, beams []string, beamSet map[string]bool, err error) {
	beamSet = map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			mine = append(mine, args[i:]...)
			break
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch f := flag.CommandLine.Lookup(name); {
		case fs.Lookup(name) != nil || name == "h" || name == "help":
			mine = append(mine, a)
			if f := fs.Lookup(name); f != nil && !hasValue && !isBool(f) && i+1 < len(args) {
				i++
				mine = append(mine, args[i])
			}
		case f != nil:
			beamSet[name] = true
			beams = append(beams, a)
			if !hasValue && !isBool(f) && i+1 < len(args) {
				i++
				beams = append(beams, args[i])
			}
		default:
			return nil, nil, nil, fmt.Errorf("flag provided but not defined: -%s", name)
		}
	}
	return mine, beams, beamSet, nil
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// fitReport is what rff-beam fit --json prints.
type fitReport struct {
	Model        string             `json:"model"`
	Info         rff.Info           `json:"info"`
	Rows         int                `json:"rows"`
	Files        int                `json:"files"`
	Skipped      int                `json:"skipped_rows"`
	FirstSkipped string             `json:"first_skipped,omitempty"`
	Runner       string             `json:"runner"`
	Memory       rffbeam.Memory     `json:"memory"`
	Seconds      map[string]float64 `json:"seconds"`
}

// limitHeap makes the budgets the Go runtime's soft memory limit for the rest of the command (run restores the
// previous one), unless the environment sets GOMEMLIMIT or a budget is -1 (no limit): the memory checks count what
// the fit keeps, and the limit makes the collector free what it dropped before the heap outgrows the budgets —
// with the default pacing, and more so under CPU load, the heap may grow well past what is live. prism and direct
// run the workers in this process: the limit is the driver's budget (--max-memory) and the worker's
// (--worker-memory) together; another runner's workers are other processes, and the limit the driver's budget.
func limitHeap(runner string, worker, driver int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if worker == 0 {
		worker = dataset.DefaultMaxBytes()
	}
	if driver == 0 {
		driver = dataset.DefaultMaxBytes()
	}
	limit := driver
	if localRunner(runner) {
		if worker < 0 || driver < 0 || worker > math.MaxInt64-driver {
			return
		}
		limit = worker + driver
	}
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
}

func runFit(args []string, stdout, stderr io.Writer) error {
	f := newFitFlags()
	mine, beams, beamSet, err := splitArgs(f.fs, args)
	if err != nil {
		return err
	}
	if err := f.fs.Parse(mine); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "Usage: rff-beam fit --input GLOB --out MODEL [flags]\n\nFlags (one or two dashes):\n")
			f.fs.SetOutput(stdout)
			f.fs.PrintDefaults()
			fmt.Fprintln(stdout, "\nBeam's flags are passed to Beam: --runner (prism, direct, dataflow, flink, spark, universal), --endpoint (a job server), --project, --region, --temp_location, --staging_location, --worker_machine_type, --num_workers, --max_num_workers, --parallelism, --environment_type, --environment_config, …")
		}
		return err
	}
	if f.fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", f.fs.Arg(0))
	}
	if err := flag.CommandLine.Parse(beams); err != nil {
		return err
	}
	switch {
	case f.input == "":
		return errors.New("--input is required")
	case f.out == "":
		return errors.New("--out is required")
	case strings.ToLower(f.format) != "csv":
		return fmt.Errorf("--format %q: rff-beam reads csv", f.format)
	case f.cfg.Points < 1:
		return fmt.Errorf("-D must be at least 1, got %d", f.cfg.Points)
	case f.bundles < 0 || f.batchRows < 0:
		return errors.New("--bundles and --batch-rows must not be negative")
	}
	if err := f.checkModes(); err != nil {
		return err
	}
	f.cfg.Sigma = f.sigma
	if f.gamma > 0 {
		f.cfg.Sigma = kernel.SigmaFromGamma(f.gamma)
	}
	f.cfg.MaxMemory = int64(f.maxMemory)
	runner := "prism"
	if *runners.Runner != "" {
		runner = *runners.Runner
	}
	if err := checkRunner(runner); err != nil {
		return err
	}
	if err := checkBeamFlags(runner, beamSet); err != nil {
		return err
	}
	inputs, err := localInputs(f.input)
	if err != nil {
		return err
	}
	if err := checkOutput(f.out, inputs); err != nil {
		return err
	}
	tempDir, tempFlag := f.tempDir, "--temp-dir"
	if t := flag.CommandLine.Lookup("temp_location"); tempDir == "" && t != nil && !localRunner(runner) {
		tempDir, tempFlag = t.Value.String(), "--temp_location"
	}
	if tempDir == "" && !localRunner(runner) {
		return fmt.Errorf("--runner %s needs --temp-dir or --temp_location: a location the workers and this program share (gs://bucket/tmp)", runner)
	}
	if err := checkTempDir(tempFlag, tempDir); err != nil {
		return err
	}
	if !beam.Initialized() {
		beam.Init()
	}
	if !f.verbose { // prism and Beam report every job and bundle on the default loggers (set up by Init)
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
		log.SetOutput(io.Discard)
	}
	done, err := useScratch()
	if err != nil {
		return err
	}
	defer done()
	o := rffbeam.Options{Config: f.cfg, Input: f.input, Target: f.target, SkipBadRows: f.skipBadRows, Runner: runner,
		TempDir: tempDir, WorkerMemory: int64(f.workerMemory), Bundles: f.bundles, BatchRows: f.batchRows}
	if f.verbose {
		o.Log = stderr
	}
	limitHeap(runner, o.WorkerMemory, f.cfg.MaxMemory)
	t0 := time.Now()
	res, err := rffbeam.Fit(context.Background(), o)
	if err != nil {
		var me *rffbeam.MemoryError
		if errors.As(err, &me) {
			return memoryMessage(me)
		}
		return err
	}
	rep := fitReport{Model: f.out, Info: res.Model.Info(), Rows: res.Rows, Files: len(res.Files), Skipped: res.Skipped,
		FirstSkipped: res.FirstSkipped, Runner: runner, Memory: res.Memory, Seconds: res.Seconds}
	rep.Seconds["total"] = time.Since(t0).Seconds()
	var text bytes.Buffer
	if f.asJSON {
		if err := json.NewEncoder(&text).Encode(rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(&text, "fitted on %d rows of %d files in %.2fs on %s: %s\n", res.Rows, len(res.Files), rep.Seconds["total"], runner, res.Model)
		if f.skipBadRows {
			fmt.Fprintf(&text, "skipped %d bad rows", res.Skipped)
			if res.FirstSkipped != "" {
				fmt.Fprintf(&text, "; the first: %s", res.FirstSkipped)
			}
			fmt.Fprintln(&text)
		}
		fmt.Fprintf(&text, "model written to %s\n", f.out)
	}
	// The model is staged beside --out and replaces it only once what is printed was written in full: a failed
	// write to stdout (a full disk, a closed pipe) leaves the existing model as it was.
	var batch atomicfile.Batch
	defer batch.Abort()
	if err := batch.Add(f.out, res.Model.Write); err != nil {
		return err
	}
	batch.Then(func() error {
		_, err := stdout.Write(text.Bytes())
		return err
	})
	return batch.Commit()
}

// memoryMessage is the one line that refuses a fit over a memory budget, naming the flags that change it.
func memoryMessage(e *rffbeam.MemoryError) error {
	m := e.Memory
	if e.Who == "driver" {
		return fmt.Errorf("this program needs about %s to solve for F = %d features, over --max-memory %s; lower -D or raise --max-memory",
			rff.FormatBytes(e.Need), m.F, rff.FormatBytes(e.Budget))
	}
	return fmt.Errorf("each worker needs about %s (%s), over --worker-memory %s; lower %s, or raise --worker-memory",
		rff.FormatBytes(e.Need), m.Need(), rff.FormatBytes(e.Budget), e.Lower("-D", "--bundles", "--batch-rows"))
}

// runnerNames are the runners this program registers (the imports above), under the names the usage gives;
// runnerAliases are the other names Beam registers them under.
var (
	runnerNames   = []string{"prism", "direct", "dataflow", "flink", "spark", "universal"}
	runnerAliases = []string{"PrismRunner", "DirectRunner", "DataflowRunner", "FlinkRunner", "SparkRunner", "PortableRunner", "portable"}
)

// checkRunner refuses a runner this program does not register (Beam would end the process on it, or the fit would
// be refused for another reason).
func checkRunner(runner string) error {
	if slices.Contains(runnerNames, runner) || slices.Contains(runnerAliases, runner) {
		return nil
	}
	return fmt.Errorf("--runner %s: unknown runner; the runners are %s (the default), %s and %s", runner, runnerNames[0],
		strings.Join(runnerNames[1:len(runnerNames)-1], ", "), runnerNames[len(runnerNames)-1])
}

// localRunner reports whether runner runs the pipelines in this process (prism, direct).
func localRunner(runner string) bool {
	switch runner {
	case "prism", "direct", "PrismRunner", "DirectRunner":
		return true
	}
	return false
}

// localInputs returns the local files the glob input matches (none for a remote glob, gs://…, or no match: the
// fit then says so), refusing one that is not a regular file — a named pipe or a device would be read two or three
// times, and a pipe would block the fit forever.
func localInputs(input string) ([]string, error) {
	if strings.Contains(input, "://") {
		return nil, nil
	}
	matches, _ := filepath.Glob(input)
	for _, m := range matches {
		if err := rffbeam.CheckRegular(m); err != nil {
			return nil, fmt.Errorf("--input %s: %v", input, err)
		}
	}
	return matches, nil
}

// checkOutput refuses an output that is a directory, that is also one of the input files — by its path, or by
// another name for the same file: a symbolic or hard link, a path through a linked directory — or whose
// directory does not exist.
func checkOutput(out string, inputs []string) error {
	if strings.Contains(out, "://") {
		return fmt.Errorf("--out %s: the model is written to a local file", out)
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("--out %s: %v", out, err)
	}
	cur, curErr := os.Stat(out) // what is there now, links followed
	if curErr == nil && cur.IsDir() {
		return fmt.Errorf("--out %s is a directory; name a file in it", out)
	}
	for _, in := range inputs {
		same := false
		if a, err := filepath.Abs(in); err == nil && a == abs {
			same = true
		} else if curErr == nil {
			fi, err := os.Stat(in)
			same = err == nil && os.SameFile(fi, cur)
		}
		if same {
			return fmt.Errorf("--out %s is also an input file (%s); choose another output path", out, in)
		}
	}
	if fi, err := os.Stat(filepath.Dir(abs)); err != nil || !fi.IsDir() {
		return fmt.Errorf("--out %s: the directory %s does not exist", out, filepath.Dir(out))
	}
	return nil
}

// checkTempDir refuses a local temporary directory (given by the flag name) that is not a directory, or that does
// not exist and whose parent does not either: the fit creates the directory in an existing one (and removes it at
// the end), never a tree of directories it would leave behind.
func checkTempDir(name, dir string) error {
	if dir == "" || strings.Contains(dir, "://") {
		return nil
	}
	fi, err := os.Stat(dir)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		return fmt.Errorf("%s %s is not a directory; name a directory, or a new one in an existing directory", name, dir)
	}
	parent := filepath.Dir(filepath.Clean(dir))
	switch pi, perr := os.Stat(parent); {
	case perr != nil:
		return fmt.Errorf("%s %s: the directory %s does not exist; create it, or choose another %s", name, dir, parent, name)
	case !pi.IsDir():
		return fmt.Errorf("%s %s: %s is not a directory; choose another %s", name, dir, parent, name)
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s %s: %v", name, dir, err)
	}
	return nil
}

// checkModes refuses, as rff fit does, flags the fit would ignore: both bandwidth flags, a bandwidth for a
// scale-free kernel, the class flags of a regression, and a --rule-fallback that can never apply (and a rule
// that does not parse, before any work).
func (f *fitFlags) checkModes() error {
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	cfg := &f.cfg
	switch {
	case cfg.Task != "regression" && cfg.Task != "classification":
		return fmt.Errorf("--task %s: a distributed fit is regression or classification (fit hermite models with rff fit)", cfg.Task)
	case (f.sigma != 0 || f.sigmaSet) && (f.gamma != 0 || f.gammaSet): // auto counts: one flag sets the bandwidth
		return errors.New("give --sigma or --gamma, not both")
	case (f.sigma != 0 || f.gamma != 0) && strings.HasPrefix(strings.ToLower(strings.TrimSpace(cfg.Kernel)), "arccos"):
		return fmt.Errorf("--kernel %s is scale-free: it takes no --sigma or --gamma", cfg.Kernel)
	case cfg.MaxClasses < 0 || cfg.MaxClasses == 1:
		return fmt.Errorf("--max-classes must be 0 (the default limit) or at least 2 (a classifier needs two classes), got %d", cfg.MaxClasses)
	case set["encoding"] && cfg.Task != "classification":
		return errors.New("--encoding codes the classes of --task classification")
	case set["max-classes"] && cfg.Task != "classification":
		return fmt.Errorf("--max-classes bounds the classes of --task classification, not of --task %s; leave it out", cfg.Task)
	}
	r, err := rule.Parse(cfg.Rule)
	if err != nil {
		return fmt.Errorf("--rule: %v", err)
	}
	if !set["rule-fallback"] {
		return nil
	}
	fb, err := rule.Parse(cfg.Fallback)
	if err != nil {
		return fmt.Errorf("--rule-fallback: %v", err)
	}
	if _, sr := fb.(rule.SR); sr {
		return fmt.Errorf("--rule-fallback %s rounds -D as well; choose g, orf, sorf, qmc or gq", fb.Name())
	}
	if _, sr := r.(rule.SR); !sr {
		return fmt.Errorf("--rule-fallback replaces an SR rule that would round -D up too far; --rule %s draws exactly -D points, so leave --rule-fallback out", r.Name())
	}
	return nil
}

// dataflowFlags are the flags of Beam's Dataflow runner, which other runners ignore.
var dataflowFlags = []string{"dataflow_endpoint", "staging_location", "worker_harness_container_image",
	"sdk_container_image", "labels", "service_account_email", "num_workers", "number_of_worker_harness_threads",
	"max_num_workers", "disk_size_gb", "disk_type", "disk_provisioned_iops", "disk_provisioned_throughput_mibps",
	"autoscaling_algorithm", "zone", "dataflow_kms_key", "network", "subnetwork", "no_use_public_ips",
	"use_public_ips", "worker_machine_type", "machine_type", "min_cpu_platform", "worker_region", "worker_zone",
	"dataflow_service_options", "flexrs_goal", "update", "transform_name_mapping", "dry_run", "teardown_policy",
	"template_location", "cpu_profiling"}

// checkBeamFlags refuses Beam flags the runner would ignore: --temp_location with a runner in this process (it
// is where remote runners leave the passes' results), and the Dataflow runner's flags with another runner.
func checkBeamFlags(runner string, given map[string]bool) error {
	if given["temp_location"] && localRunner(runner) {
		return fmt.Errorf("--temp_location is for remote runners; --runner %s runs in this process and ignores it: leave it out (--temp-dir names a local directory for the passes' results)", runner)
	}
	if runner == "dataflow" || runner == "DataflowRunner" {
		return nil
	}
	for _, name := range dataflowFlags {
		if given[name] {
			return fmt.Errorf("--%s is an option of the Dataflow runner; --runner %s ignores it: leave it out", name, runner)
		}
	}
	return nil
}

// memoryFlag is a memory budget in bytes: "123", "1.5e9", "512MiB", "8GiB", "2GB", "-1" (no limit), 0 (default).
type memoryFlag int64

func (m *memoryFlag) String() string { return strconv.FormatInt(int64(*m), 10) }

func (m *memoryFlag) Set(s string) error {
	v, err := cliflag.ParseMemory(s)
	if err != nil {
		return err
	}
	*m = memoryFlag(v)
	return nil
}
