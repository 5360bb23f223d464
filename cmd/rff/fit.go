package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/atomicfile"
	"github.com/rffkit/rff/internal/cliflag"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/rule"
)

// maxLambdas bounds the λ grid of --cv: beyond a few hundred values a grid resolves nothing more.
const maxLambdas = 10000

// parseLambdas accepts "lo:hi:count" (a log grid) or a comma list.
func parseLambdas(s string) ([]float64, error) {
	if parts := strings.Split(s, ":"); len(parts) == 3 {
		lo, e1 := strconv.ParseFloat(parts[0], 64)
		hi, e2 := strconv.ParseFloat(parts[1], 64)
		n, e3 := strconv.Atoi(parts[2])
		if e1 != nil || e2 != nil || e3 != nil || n < 1 || n > maxLambdas {
			return nil, usagef("--lambdas %q: want lo:hi:count with 0 < lo ≤ hi and 1 ≤ count ≤ %d", s, maxLambdas)
		}
		g := learn.LogGrid(lo, hi, n)
		if g == nil {
			return nil, usagef("--lambdas %q: want lo:hi:count with 0 < lo ≤ hi and 1 ≤ count ≤ %d", s, maxLambdas)
		}
		return g, nil
	}
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, usagef("--lambdas: %q is not a positive number", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// lambdaFlag is --lambda: a float64 that refuses a positive value written too small for floating point (1e-400),
// which would silently become λ = 0.
type lambdaFlag struct{ v *float64 }

func (f lambdaFlag) String() string {
	if f.v == nil {
		return ""
	}
	return strconv.FormatFloat(*f.v, 'g', -1, 64)
}

func (f lambdaFlag) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return errors.New("not a number")
	}
	if mantissa, _, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "e"); v == 0 && ok {
		if m, err := strconv.ParseFloat(mantissa, 64); err == nil && m != 0 {
			return fmt.Errorf("%s is below the smallest positive λ, %g, and would be 0; give 0 or a larger λ", s, math.SmallestNonzeroFloat64)
		}
	}
	*f.v = v
	return nil
}

// fitReport is what rff fit --json prints.
type fitReport struct {
	Model   string             `json:"model"`
	Info    rff.Info           `json:"info"`
	Fit     *rff.Report        `json:"fit"`
	Seconds map[string]float64 `json:"seconds"`
	Test    *rff.Score         `json:"test,omitempty"`
}

func runFit(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("fit", stdout, "--data FILE --out MODEL [flags]")
	var df dataFlags
	df.register(fs.FlagSet, "")
	var cfg rff.Config
	var kf kernelFlags
	kf.register(fs.FlagSet, "the median distance between up to 2000 preprocessed training rows (the median heuristic)")
	fs.BoolVar(&cfg.Tune, "tune", false, "choose σ and λ from the data: σ on a log grid around the median heuristic (or --sigmas), the λ path (--lambdas) scored by --select; one pass over the data per σ")
	fs.StringVar(&cfg.Select, "select", "", "--tune criterion: gcv (generalized cross-validation; the default for regression and exact models), evidence (Bayesian evidence) or cv (--cv folds, 5 by default; held-out accuracy for classification, its default; the only criterion of the hinge and logistic losses, which it refits per fold)")
	fs.IntVar(&cfg.TunePoints, "tune-points", 0, "--tune: D of the maps that score σ and λ (default: -D, at most 512); the model is then fitted with the chosen pair at the full -D")
	fs.IntVar(&cfg.TuneRows, "tune-rows", 0, "--tune on the first N rows only, then fit the chosen σ and λ on all rows (0 = all rows)")
	sigmas := fs.String("sigmas", "", "--tune: comma list of bandwidths to score instead of the grid around the median heuristic")
	fs.StringVar(&cfg.Preprocess, "preprocess", "", "comma list of steps applied in order, stored in the model: standardize, minmax, maxscale (divide by the global maximum), isotropic (centre, one common scale), none; paper = maxscale; a last step pca:K projects onto the K leading principal components (K a count, or a share of the variance such as pca:0.99; the map then has K inputs, the model still reads the raw columns), pca-whiten:K also divides each by its standard deviation (e.g. standardize,pca:50; not with hermite or field kernels) (default standardize; isotropic for curl-free, div-free and helmholtz kernels, which refuse per-column scaling)")
	fs.StringVar(&cfg.Task, "task", "regression", "regression, classification, or hermite (values and/or partial derivatives from --values and --gradients)")
	fs.StringVar(&cfg.Rule, "rule", "sr-butterfly", "rule: "+strings.Join(rule.Names(), "|")+" (gq:M for Gauss–Hermite degree M; aliases rff and gaussian = g, rom = sorf, halton = qmc, b and sr = sr-butterfly, h = sr-haar)")
	fs.StringVar(&cfg.Fallback, "rule-fallback", "", "rule used instead of an SR rule whose rounding to whole rules of d+1 points would more than double -D (e.g. orf); without it such a fit is refused")
	fs.IntVar(&cfg.MaxClasses, "max-classes", 0, "largest number of classes a classifier accepts (default: 1000, and at most half the training rows: more distinct values mean a continuous target)")
	fs.IntVar(&cfg.Points, "D", 1024, "number of points (frequencies); cos/sin maps have 2D columns; SR rules round up to whole rules")
	cfg.Lambda = 1e-6
	fs.Var(lambdaFlag{&cfg.Lambda}, "lambda", "ridge penalty λ in (1/N)Σ‖f(x_i) − y_i‖² + λ‖θ‖²")
	fs.IntVar(&cfg.CV, "cv", 0, "choose λ by K-fold cross-validation over --lambdas (0 = off)")
	lambdas := fs.String("lambdas", "1e-9:1e-1:17", "λ grid for --cv and --tune: lo:hi:count (log-spaced) or a comma list")
	fs.BoolVar(&cfg.Exact, "exact", false, "fit exact kernel ridge regression on the N×N Gram instead of features (no -D, --rule, --form or --rule-fallback)")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the feature map")
	out := fs.String("out", "", "model file to write (atomically, with --report: files are replaced only once every output, stdout included, was written)")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout")
	fs.StringVar(&cfg.Form, "form", "cossin", "cossin or cosphase")
	fs.StringVar(&cfg.Encoding, "encoding", "onehot", "classification targets: onehot or simplex")
	fs.StringVar(&cfg.Loss, "loss", "squared", "classification loss: squared (ridge on coded targets), hinge or squared-hinge (linear SVM, dual coordinate descent), logistic (L-BFGS)")
	fs.StringVar(&cfg.Solver, "solver", "", "cholesky (default) or cg; with --ovk: auto (default), closed-form, cholesky, cg or lbfgs; with --map nystrom also falkon (kernel ridge restricted to the centres, preconditioned conjugate gradients, never forms ZᵀZ)")
	fs.StringVar(&cfg.Map, "map", "features", "feature map: features (random or quadrature features of --rule, -D points) or nystrom (Nyström features, ⟨ψ(x), ψ(y)⟩ = k_M(x)ᵀK_MM⁻¹k_M(y), on --centres landmarks; rank M' ≤ M after dropping what lies below 1e-12 of the largest, see --nystrom-basis; every kernel and loss, and --ovk decomposable)")
	fs.StringVar(&cfg.NystromBasis, "nystrom-basis", "", "--map nystrom: basis of the features: cholesky (default: pivoted Cholesky factor of K_MM, ψ(x) = U⁻ᵀk_M(x); drops landmarks the others span) or eigen (eigendecomposition K_MM = UΛUᵀ, ψ(x) = Λ^{-1/2}Uᵀk_M(x); drops eigen-directions; slower to build)")
	fs.IntVar(&cfg.Centres, "centres", 0, "--map nystrom: number of landmarks M to choose (default 1024, at most the training rows); the Cholesky basis keeps those its pivoting needs, which can be fewer")
	fs.StringVar(&cfg.Landmarks, "landmarks", "", "--map nystrom: how the landmarks are chosen: uniform (default), kmeans++ or leverage (ridge leverage scores, recursive sampling)")
	landmarksFile := fs.String("landmarks-file", "", "--map nystrom: the landmarks themselves, a file (CSV, LibSVM, as --data) of rows with the model's input columns — the training columns without the targets, in their order, with the same names if both have a header — in the input coordinates (they are preprocessed like the rows); M is their number")
	fs.IntVar(&cfg.MaxIter, "max-iter", 0, "--loss hinge, squared-hinge or logistic: largest number of iterations (epochs of dual coordinate descent, or L-BFGS iterations; default 1000; a fit stopped there is kept, with a note)")
	fs.IntVar(&cfg.FalkonIter, "falkon-iter", 0, "--solver falkon: largest number of conjugate-gradient iterations (default 100; a fit stopped there is kept, with a note)")
	fs.BoolVar(&cfg.FalkonStore, "falkon-store", false, "--solver falkon: keep the N×M kernel matrix from the first pass (8·N·M bytes, within --max-memory) instead of recomputing it every iteration; the same fit, faster")
	fs.Float64Var(&cfg.FalkonTol, "falkon-tol", 0, "--solver falkon: relative residual of the preconditioned system at which conjugate gradients stop (default 1e-7)")
	testData := fs.String("test-data", "", "test file: report test metrics after training (--task hermite: inputs and f(x) as the last column)")
	testLabels := fs.String("test-labels", "", "IDX labels of the test file")
	valuesPath := fs.String("values", "", "--task hermite: CSV with one column f(x_i) per row of --data (NaN = not observed)")
	gradsPath := fs.String("gradients", "", "--task hermite: CSV with d columns ∂f/∂x_j(x_i) per row of --data (NaN = not observed)")
	fs.StringVar(&cfg.OVK, "ovk", "", "operator-valued kernel for vector-valued regression: decomposable, curl-free, div-free, helmholtz[:w] (Gaussian k₀); needs --targets")
	aSpec := fs.String("A", "", "--ovk decomposable: the p×p output matrix A: identity (default), covariance (of the training targets) or a CSV file")
	targets := fs.String("targets", "", "--ovk: comma list of target columns (names or 1-based indices) of a CSV; the rest are inputs")
	fs.StringVar(&cfg.Precision, "precision", "auto", "arithmetic of the Gram matrix ZᵀZ for the squared loss on random features: double, mixed (float32 Gram, solution refined against the float64 features to double-precision accuracy; keeps the N×D projections in memory) or auto (mixed when λ > 0, OpenBLAS is loaded, the projections fit in half the free memory and a cost model in N, F, D and the outputs predicts a saving)")
	fs.BoolVar(&cfg.Uncertainty, "uncertainty", false, "keep the posterior of Bayesian linear regression on the features in the model (regression, squared loss): rff predict --std and --samples then give predictive standard deviations and posterior samples; stores an F×F matrix")
	reportPath := fs.String("report", "", reportUsage)
	stream := fs.Bool("stream", false, "read the CSV --data in chunks, twice (preprocessing, then features), instead of loading it: memory does not grow with the rows (squared-loss regression or classification on random or Nyström features, not FALKON)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usagef("--out is required")
	}
	if err := checkFitModes(fs, &cfg); err != nil {
		return err
	}
	if err := checkNystromFlags(fs, &cfg); err != nil {
		return err
	}
	if err := checkRuleFlags(fs, &cfg); err != nil {
		return err
	}
	if cfg.Points < 1 && cfg.Map != "nystrom" && !cfg.Exact {
		return usagef("-D must be at least 1, got %d", cfg.Points)
	}
	inputs := []string{df.path, df.labels, *testData, *testLabels, *valuesPath, *gradsPath, *landmarksFile}
	if a := *aSpec; a != "identity" && a != "covariance" {
		inputs = append(inputs, a)
	}
	if err := checkOutput(*out, inputs...); err != nil {
		return err
	}
	if err := checkReport(*reportPath, *out, inputs...); err != nil {
		return err
	}
	if *stream && cfg.Tune {
		return usagef("--tune maps the rows once per bandwidth and needs them in memory: tune without --stream on the first rows (--tune --train N), then --stream with the chosen --sigma and --lambda")
	}
	if *stream && df.path != "" {
		if fi, err := osStat(df.path); err == nil && !fi.Mode().IsRegular() {
			return usagef("--stream reads --data %s twice; give a file (a pipe is read into memory without --stream)", df.path)
		}
	}
	if err := df.keepInputs(inputs...); err != nil {
		return err
	}
	if *landmarksFile != "" {
		if cfg.Map != "nystrom" {
			return usagef("--landmarks-file needs --map nystrom")
		}
		if flagSet(fs, "landmarks") || flagSet(fs, "centres") {
			return usagef("--landmarks-file gives the landmarks and their number; --landmarks and --centres do not go with it")
		}
		L, err := dataset.Load(*landmarksFile, dataset.Options{Target: "none", MaxBytes: df.maxBytes()})
		if err != nil {
			return budgetHint(err)
		}
		if L.N == 0 || L.D == 0 {
			return fmt.Errorf("%s: no landmark rows or no columns", *landmarksFile)
		}
		cfg.LandmarkPoints, cfg.LandmarkNames = L.X, L.Names
		if generatedNames(L.Names) { // no header: the columns are matched by position
			cfg.LandmarkNames = nil
		}
	}
	var err error
	if cfg.Kernel, cfg.Sigma, err = kf.config(); err != nil {
		return err
	}
	if cfg.CV != 0 || cfg.Tune {
		if cfg.Lambdas, err = parseLambdas(*lambdas); err != nil {
			return err
		}
		if cfg.Tune && cfg.Loss != "" && cfg.Loss != "squared" && !flagSet(fs, "lambdas") {
			cfg.Lambdas = nil // the shorter default grid of the refitted losses
		}
	}
	if *sigmas != "" {
		if !cfg.Tune {
			return usagef("--sigmas is the bandwidth grid of --tune")
		}
		for _, f := range strings.Split(*sigmas, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || !(v > 0) || math.IsInf(v, 0) {
				return usagef("--sigmas: %q is not a positive bandwidth", f)
			}
			cfg.Sigmas = append(cfg.Sigmas, v)
		}
	}
	if cfg.OVK != "" && *targets == "" {
		return usagef("--ovk %s needs --targets: the comma list of output columns (names or 1-based indices)", cfg.OVK)
	}
	if *targets != "" {
		cfg.Targets = strings.Split(*targets, ",")
		for i := range cfg.Targets {
			cfg.Targets[i] = strings.TrimSpace(cfg.Targets[i])
		}
	}
	hermite := cfg.Task == "hermite"
	switch {
	case df.target != "" && !strings.EqualFold(df.target, "none") && cfg.OVK != "":
		return usagef("--target does not go with --ovk: the outputs are the --targets columns, every other column is an input")
	case df.target != "" && !strings.EqualFold(df.target, "none") && hermite:
		return usagef("--target does not go with --task hermite: the observations come from --values and --gradients, every column of --data is an input")
	}
	if hermite != (*valuesPath != "" || *gradsPath != "") {
		if hermite {
			return usagef("--task hermite needs --values, --gradients or both")
		}
		return usagef("--values and --gradients belong to --task hermite")
	}
	switch *aSpec {
	case "", "identity", "covariance":
		cfg.A = *aSpec
	default:
		if cfg.AMatrix, err = readMatrix(*aSpec); err != nil {
			return err
		}
	}
	if *stream && (cfg.Precision == "auto") {
		cfg.Precision = "double"
	}
	if cfg.Precision == "auto" && (cfg.Map == "nystrom" || cfg.Exact || cfg.OVK != "" || hermite || cfg.Loss != "squared" || cfg.Solver == "cg" || cfg.Uncertainty) {
		cfg.Precision = "double" // auto only ever chooses mixed where mixed applies
	}
	cfg.Progress = stderr
	cfg.MaxMemory = df.maxBytes()
	rep := fitReport{Model: *out, Seconds: map[string]float64{}}
	t0 := time.Now()
	var m *rff.Model
	switch {
	case *stream:
		if err := checkStream(&df); err != nil {
			return err
		}
		m, err = rff.FitCSV(cfg, df.path, rff.StreamOptions{Target: df.target, Rows: df.train, ChunkRows: streamChunkRows})
	case hermite:
		df.target = "none"
		var data *dataset.Data
		if data, err = df.loadRaw(); err != nil {
			return err
		}
		rep.Seconds["load"] = time.Since(t0).Seconds()
		if err := checkLambdaScale(&cfg, data.N); err != nil {
			return err
		}
		var vals, grads []float64
		if *valuesPath != "" {
			if vals, err = readColumns(*valuesPath, data.N, 1, "--values"); err != nil {
				return err
			}
		}
		if *gradsPath != "" {
			if grads, err = readColumns(*gradsPath, data.N, data.D, "--gradients"); err != nil {
				return err
			}
		}
		held := dataBytes(data) + 8*int64(len(vals)+len(grads))
		cfg.MaxMemory = besideData(cfg.MaxMemory, held)
		m, err = rff.FitHermite(cfg, data, vals, grads)
		err = dataBudgetHint(err, held, *df.mem)
	default:
		if cfg.OVK != "" {
			df.target = "none"
		}
		var data *dataset.Data
		if data, err = df.loadRaw(); err != nil {
			return err
		}
		if data.Y == nil && cfg.OVK == "" {
			if strings.EqualFold(strings.TrimSpace(df.target), "none") {
				return usagef("%s: --target none reads the data without their target, which a fit needs: leave --target out, or name the target column", df.path)
			}
			if df.labels == "" {
				if f, _ := dataset.DetectFormat(df.path); f == dataset.FormatIDX {
					return usagef("%s: IDX images hold no labels: give them with --labels FILE", df.path)
				}
			}
			return usagef("%s: the data have no target; name its column with --target", df.path)
		}
		rep.Seconds["load"] = time.Since(t0).Seconds()
		if err := checkLambdaScale(&cfg, data.N); err != nil {
			return err
		}
		held := dataBytes(data)
		cfg.MaxMemory = besideData(cfg.MaxMemory, held)
		m, err = rff.Fit(cfg, data)
		err = dataBudgetHint(err, held, *df.mem)
	}
	if err != nil {
		return lambdaHint(budgetHint(err), &cfg)
	}
	rep.Seconds["fit"] = time.Since(t0).Seconds() - rep.Seconds["load"] // a streamed fit reads its file as it fits
	rep.Info, rep.Fit = m.Info(), m.Report()
	if *testData != "" {
		t1 := time.Now()
		tf := df.testFile(*testData, *testLabels, hermite)
		if rep.Test, err = scoreFile(m, &tf); err != nil {
			return err
		}
		rep.Seconds["test"] = time.Since(t1).Seconds()
	}
	page, err := newFitPage(*reportPath, m, &rep, df, *testData, *testLabels, hermite)
	if err != nil {
		return err
	}
	// Every output — the report, the model, what is printed — is written in full before any file is replaced, so
	// that a failure anywhere (a full disk, a closed stdout) leaves every file as it was.
	var batch atomicfile.Batch
	defer batch.Abort()
	if err := page.add(&batch); err != nil {
		return err
	}
	if err := batch.Add(*out, m.Write); err != nil {
		return err
	}
	noteGQFit(stderr, rep.Info)
	if sv := rep.Fit.Solve; sv != nil && sv.Note != "" {
		switch sv.Method {
		case "falkon":
			fmt.Fprintf(stderr, "rff fit: note: %s (raise --falkon-iter or --falkon-tol)\n", sv.Note)
		case "dual-cd", "lbfgs": // the hinge and logistic losses
			fmt.Fprintf(stderr, "rff fit: note: %s; the model is written as it is (raise --max-iter or --lambda)\n", sv.Note)
		}
	}
	var text bytes.Buffer
	if *asJSON {
		if err := json.NewEncoder(&text).Encode(rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(&text, "fitted on %d rows in %.2fs: %s\n", rep.Fit.N, rep.Seconds["fit"], m)
		if tr := rep.Fit.Tune; tr != nil {
			printTune(&text, tr)
		}
		if cv := rep.Fit.CV; cv != nil {
			fmt.Fprintf(&text, "λ = %.3g chosen by %d-fold cross-validation over %d values\n", cv.Best, len(cv.FoldMSE), len(cv.Lambdas))
		}
		fmt.Fprintf(&text, "model written to %s\n", *out)
		if rep.Test != nil {
			printScore(&text, "test", rep.Test)
		}
	}
	batch.Then(func() error { return printOutput(stdout, text.Bytes()) })
	return batch.Commit()
}

// largestLambda returns the flag that gives the fit its λ (--lambda, or --lambdas for --cv and --tune) and the
// largest λ it gives.
func largestLambda(cfg *rff.Config) (string, float64) {
	if !cfg.Tune && cfg.CV == 0 {
		return "--lambda", cfg.Lambda
	}
	lambda := 0.0
	for _, v := range cfg.Lambdas {
		lambda = max(lambda, v)
	}
	return "--lambdas", lambda
}

// lambdaAdvice is what a refusal of a λ too large to solve with suggests.
const lambdaAdvice = "give λ in a sensible range, such as 1e-9 to 1e-1 (or let --cv or --tune choose it)"

// checkLambdaScale refuses, once the n training rows are known, a λ whose N·λ, the ridge term of ZᵀZ + NλI (and of
// K + NλI for --exact), is not a finite float64: the system cannot then be formed, whatever the solver.
func checkLambdaScale(cfg *rff.Config, n int) error {
	name, lambda := largestLambda(cfg)
	if nl := float64(n) * lambda; math.IsInf(nl, 0) {
		return usagef("%s %g: N·λ = %d·%g overflows floating point, so the ridge term NλI cannot be formed; %s", name, lambda, n, lambda, lambdaAdvice)
	}
	return nil
}

// lambdaHint rewrites a failed factorization at a large λ: the advice "increase λ" of the solvers is right when λ is
// too small for rounding errors, but with λ ≥ 1 (past the scale of the features, whose squared norm is about
// k(x, x)) the system failed because the terms in N·λ overflowed, and a larger λ cannot help. Conjugate gradients
// that did not converge get the flags that help.
func lambdaHint(err error, cfg *rff.Config) error {
	if errors.Is(err, learn.ErrNotConverged) {
		msg := err.Error()
		solver, what := "cg", "conjugate gradients"
		if strings.Contains(msg, "L-BFGS") {
			solver, what = "lbfgs", "L-BFGS"
		}
		if i := strings.Index(msg, what); i >= 0 {
			msg = msg[i:] // without the library's function names
		}
		at := fmt.Sprintf("--lambda %g; raise it", cfg.Lambda)
		switch {
		case cfg.Tune || cfg.CV > 0:
			at = "the smallest λ of --lambdas; narrow the grid to larger values"
		case cfg.Lambda >= 1:
			// past the scale of the features (squared norm about k(x, x) = 1) the penalty dwarfs the data: the
			// system is not ill-conditioned, the iteration's scale is off, and a larger λ would not help
			return usagef("--solver %s: %s at --lambda %g, where the penalty dwarfs the data (θ is about 0): use --solver cholesky, or a smaller λ", solver, msg, cfg.Lambda)
		}
		return usagef("--solver %s: %s at %s (a better conditioned system converges sooner) or use --solver cholesky", solver, msg, at)
	}
	if err == nil || !strings.Contains(err.Error(), "not positive definite") {
		return err
	}
	name, lambda := largestLambda(cfg)
	if !(lambda >= 1) {
		return usagef("%s %g: the ridge system ZᵀZ + NλI is not positive definite at this λ (its features are linearly dependent on these rows); raise %s", name, lambda, name)
	}
	return usagef("%s %g: the ridge system could not be factorized (its terms in N·λ overflow floating point); %s", name, lambda, lambdaAdvice)
}

// streamChunkRows is the number of CSV rows a --stream fit holds at a time.
var streamChunkRows = 1 << 15

// checkStream rejects data flags a --stream fit cannot honour.
func checkStream(df *dataFlags) error {
	if df.labels != "" {
		return usagef("--stream reads CSV files (no --labels)")
	}
	format, err := dataset.ParseFormat(df.format)
	if err != nil {
		return usageError{err.Error()}
	}
	if format == dataset.FormatAuto && df.path != "" {
		format = dataset.GuessFormat(df.path)
	}
	if format != dataset.FormatAuto && format != dataset.FormatCSV {
		return usagef("--stream reads CSV files; %s is %v", df.path, format)
	}
	if df.path == "" {
		return usagef("--data is required")
	}
	return nil
}

// kernelFlags select a kernel and its bandwidth.
type kernelFlags struct {
	name               string
	sigma, gamma       float64
	sigmaSet, gammaSet bool // given on the command line (auto included)
}

// register adds --kernel, --sigma and --gamma; auto says what --sigma's default is.
func (f *kernelFlags) register(fs *flag.FlagSet, auto string) {
	fs.StringVar(&f.name, "kernel", "gaussian", "kernel: "+strings.Join(kernel.Names(), "|"))
	fs.Var(cliflag.Sigma{V: &f.sigma, What: "bandwidth", Given: &f.sigmaSet}, "sigma", "bandwidth σ, or auto: "+auto)
	fs.Var(cliflag.Sigma{V: &f.gamma, What: "γ", Given: &f.gammaSet}, "gamma", "bandwidth as γ = 1/(2σ²) (alternative to --sigma)")
}

// config returns the kernel name and σ (0 for the default γ = 1/d).
func (f *kernelFlags) config() (string, float64, error) {
	if (f.sigma != 0 || f.sigmaSet) && (f.gamma != 0 || f.gammaSet) { // auto counts: one flag sets the bandwidth
		return "", 0, usagef("give --sigma or --gamma, not both")
	}
	if (f.sigma != 0 || f.gamma != 0) && strings.HasPrefix(strings.ToLower(strings.TrimSpace(f.name)), "arccos") {
		return "", 0, usagef("--kernel %s is scale-free: it takes no --sigma or --gamma", f.name)
	}
	if f.gamma > 0 {
		return f.name, kernel.SigmaFromGamma(f.gamma), nil
	}
	return f.name, f.sigma, nil
}

// build returns the kernel for inputs of dimension d, and the σ used (NaN for scale-free kernels).
func (f *kernelFlags) build(d int) (kernel.Kernel, float64, error) {
	name, sigma, err := f.config()
	if err != nil {
		return nil, 0, err
	}
	if sigma == 0 {
		sigma = kernel.SigmaFromGamma(1 / float64(d))
	}
	k, err := kernel.New(name, sigma)
	if err != nil {
		return nil, 0, usageError{err.Error()}
	}
	if _, ok := k.(kernel.Spectral); !ok {
		sigma = math.NaN()
	}
	return k, sigma, nil
}

// checkFitModes refuses flags that the chosen mode would ignore, rather than fit something other than what the
// command line says: a --sigma or --lambda that --tune or --cv would replace, the tuning flags without --tune or
// --cv, flags of a task that is not in use, and the random-feature flags of an exact fit.
func checkFitModes(fs *cmdFlags, cfg *rff.Config) error {
	set := func(name string) bool { return flagSet(fs, name) }
	switch {
	case cfg.Tune && (set("sigma") && fs.Lookup("sigma").Value.String() != "auto" || set("gamma")):
		return usagef("--tune chooses σ; leave out --sigma/--gamma, or give --sigmas S to tune λ at σ = S")
	case (cfg.Tune || cfg.CV != 0) && set("lambda"):
		return usagef("--tune and --cv choose λ from --lambdas; leave out --lambda (--lambdas L scores one value)")
	case !cfg.Tune && cfg.CV == 0 && set("lambdas"):
		return usagef("--lambdas is the λ grid of --cv and --tune")
	}
	for _, name := range []string{"select", "tune-rows", "tune-points"} {
		if set(name) && !cfg.Tune {
			return usagef("--%s belongs to --tune", name)
		}
	}
	switch {
	case cfg.TunePoints < 0:
		return usagef("--tune-points must be a number of points ≥ 1 (or 0 for the default: -D, at most 512), got %d", cfg.TunePoints)
	case cfg.MaxClasses < 0 || cfg.MaxClasses == 1:
		return usagef("--max-classes must be 0 (the default limit) or at least 2 (a classifier needs two classes), got %d", cfg.MaxClasses)
	case cfg.MaxIter < 0:
		return usagef("--max-iter must be ≥ 0 (0: the default, 1000), got %d", cfg.MaxIter)
	case set("max-iter") && (cfg.Loss == "" || cfg.Loss == "squared" || cfg.Loss == "ridge"):
		return usagef("--max-iter bounds the iterations of --loss hinge, squared-hinge or logistic, not the solvers of the squared loss: leave it out")
	case set("test-labels") && !set("test-data"):
		return usagef("--test-labels belongs to --test-data (the IDX images it labels)")
	case set("encoding") && cfg.Task != "classification":
		return usagef("--encoding codes the classes of --task classification")
	case set("max-classes") && cfg.Task != "classification":
		return usagef("--max-classes bounds the classes of --task classification, not of --task %s; leave it out", cfg.Task)
	case cfg.Solver == "cg" && cfg.Loss != "" && cfg.Loss != "squared" && cfg.OVK == "":
		return usagef("--solver cg solves the ridge system of the squared loss; --loss %s trains its own way (dual coordinate descent or L-BFGS): leave --solver out", cfg.Loss)
	case cfg.Solver == "cg" && cfg.Uncertainty:
		return usagef("--uncertainty keeps the Cholesky factor of the posterior, so it solves by Cholesky: leave --solver out")
	case cfg.OVK != "" && cfg.OVK != "decomposable" && cfg.Solver == "closed-form":
		return usagef("--solver closed-form solves the Stein equation of a decomposable kernel; with --ovk %s use cholesky, cg or lbfgs, or leave --solver out", cfg.OVK)
	case cfg.OVK == "" && (set("targets") || set("A")):
		return usagef("--targets and -A belong to vector-valued models: give --ovk decomposable, curl-free, div-free or helmholtz")
	case set("form") && fs.Lookup("kernel") != nil && strings.HasPrefix(fs.Lookup("kernel").Value.String(), "arccos"):
		return usagef("--form chooses the cos/sin or cos+phase features of a shift-invariant kernel; the %s kernel's features are pointwise: leave --form out", fs.Lookup("kernel").Value.String())
	}
	if cfg.Tune || cfg.CV != 0 {
		cfg.Lambda = 0 // --lambda's default: the grid chooses λ
	}
	if cfg.Exact {
		for _, name := range []string{"D", "rule", "form", "rule-fallback", "tune-points"} {
			if set(name) {
				return usagef("%s does not go with --exact: exact kernel ridge regression draws no random features; leave it out", dashed(name))
			}
		}
		if set("solver") && cfg.Solver != "cholesky" {
			return usagef("--solver %s does not go with --exact: exact kernel ridge regression solves by Cholesky; leave --solver out", cfg.Solver)
		}
		cfg.Points, cfg.Rule, cfg.Form = 0, "", "" // the random-feature defaults, which an exact model has no use for
	}
	return nil
}

// dashed is the flag name as the help spells it: -D, and --name for the long names.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// checkRuleFlags parses --rule and --rule-fallback on a random-feature map before any work, so that a misspelt name
// is refused whether or not the fit would need it, and refuses a fallback that could never be used: only SR rules
// round -D to whole rules and fall back.
func checkRuleFlags(fs *cmdFlags, cfg *rff.Config) error {
	if cfg.Map != "features" || cfg.Exact {
		return nil
	}
	r, err := rule.Parse(cfg.Rule)
	if err != nil {
		return usagef("--rule: %v", err)
	}
	if !flagSet(fs, "rule-fallback") {
		return nil
	}
	fb, err := rule.Parse(cfg.Fallback)
	if err != nil {
		return usagef("--rule-fallback: %v", err)
	}
	if _, sr := fb.(rule.SR); sr {
		return usagef("--rule-fallback %s rounds -D as well; choose g, orf, sorf, qmc or gq", fb.Name())
	}
	if _, sr := r.(rule.SR); !sr {
		return usagef("--rule-fallback replaces an SR rule that would round -D up too far; --rule %s draws exactly -D points, so leave --rule-fallback out", r.Name())
	}
	return nil
}

// checkOutput refuses, before any work, an output path that is an existing directory, one of the inputs (by name, or
// the same file through a link), or in a directory that does not exist. A pipe or a device (/dev/stdout) is fine:
// atomicfile writes through it.
func checkOutput(out string, inputs ...string) error { return checkOutputAs("--out", out, inputs...) }

// checkOutputAs is checkOutput for the output path of the flag name (--out, --report, --plot).
func checkOutputAs(name, out string, inputs ...string) error {
	abs, err := filepath.Abs(out)
	if err != nil {
		return usagef("%s %s: %v", name, out, err)
	}
	cur, curErr := osStat(out) // what is there now, links followed
	if curErr == nil && cur.IsDir() {
		return usagef("%s %s is a directory; name a file in it", name, out)
	}
	for _, in := range inputs {
		if in == "" {
			continue
		}
		same := false
		if a, err := filepath.Abs(in); err == nil && a == abs {
			same = true
		} else if curErr == nil {
			fi, err := osStat(in) // the same file by another name: a link, or a path through a linked directory
			same = err == nil && os.SameFile(fi, cur)
		}
		if same {
			return usagef("%s %s is also an input file (%s); choose another output path", name, out, in)
		}
	}
	if fi, err := osStat(filepath.Dir(abs)); err != nil || !fi.IsDir() {
		return usagef("%s %s: the directory %s does not exist", name, out, filepath.Dir(out))
	}
	return nil
}

// printTune prints the tuning table: for every σ scored, the best λ and its score.
func printTune(w io.Writer, tr *rff.TuneResult) {
	if tr.ScaleFree {
		fmt.Fprintf(w, "λ chosen by %s on %d rows: λ = %.3g (the kernel has no bandwidth σ)\n", tr.Criterion, tr.Rows, tr.Lambda)
		return
	}
	fmt.Fprintf(w, "σ and λ chosen by %s on %d rows: σ = %.4g, λ = %.3g", tr.Criterion, tr.Rows, tr.Sigma, tr.Lambda)
	if tr.Median > 0 {
		fmt.Fprintf(w, " (median heuristic σ = %.4g)", tr.Median)
	}
	fmt.Fprintln(w)
	what := tr.Score
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "σ\tbest λ\t%s\t\n", what)
	for i, sg := range tr.Sigmas {
		bj := -1 // the best λ of the row: ties go to the larger λ, as tuning settles them
		for j, v := range tr.Scores[i] {
			if math.IsNaN(v) {
				continue
			}
			if bj < 0 || (tr.HigherIsBetter && v > tr.Scores[i][bj]) || (!tr.HigherIsBetter && v < tr.Scores[i][bj]) ||
				(v == tr.Scores[i][bj] && tr.Lambdas[j] > tr.Lambdas[bj]) {
				bj = j
			}
		}
		if bj < 0 {
			fmt.Fprintf(tw, "%.4g\t–\tn/a\t\n", sg)
			continue
		}
		mark := ""
		if sg == tr.Sigma {
			mark = " *"
		}
		fmt.Fprintf(tw, "%.4g\t%.3g\t%.6g%s\t\n", sg, tr.Lambdas[bj], tr.Scores[i][bj], mark)
	}
	tw.Flush()
}

// checkNystromFlags refuses flags that do not go with the --map chosen, and clears the random-feature defaults
// (-D, --rule, --form) for a Nyström map.
func checkNystromFlags(fs *cmdFlags, cfg *rff.Config) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch cfg.Map {
	case "nystrom":
		for _, name := range []string{"D", "rule", "form", "rule-fallback", "precision"} {
			if set[name] {
				what := map[string]string{"D": "-D (points of random features; a Nyström map takes --centres)",
					"precision": "--precision (a Nyström map accumulates in double precision)"}[name]
				if what == "" {
					what = "--" + name + " (random features only)"
				}
				return usagef("%s does not go with --map nystrom", what)
			}
		}
		if cfg.Solver != "falkon" && (set["falkon-iter"] || set["falkon-tol"]) {
			return usagef("--falkon-iter and --falkon-tol need --solver falkon")
		}
		cfg.Points, cfg.Rule, cfg.Form, cfg.Precision = 0, "", "", "double"
	case "features":
		for _, name := range []string{"centres", "landmarks", "nystrom-basis", "falkon-iter", "falkon-tol"} {
			if set[name] {
				return usagef("--%s needs --map nystrom", name)
			}
		}
		if cfg.Solver == "falkon" {
			return usagef("--solver falkon needs --map nystrom (FALKON solves kernel ridge regression restricted to landmarks)")
		}
	default:
		return usagef("--map %q: want features or nystrom", cfg.Map)
	}
	return nil
}

// generatedNames reports whether names are the loader's x1 … xd of a file without a header.
func generatedNames(names []string) bool {
	for j, v := range names {
		if v != fmt.Sprintf("x%d", j+1) {
			return false
		}
	}
	return true
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *cmdFlags, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// dataBytes is the memory the loaded training data hold while the fit runs: the inputs, the targets and the class
// labels.
func dataBytes(d *dataset.Data) int64 {
	b := 8 * int64(len(d.X)+len(d.Y))
	for _, l := range d.Labels {
		b += 16 + int64(len(l))
	}
	return b
}

// besideData is the budget a fit gets when the command already holds data of held bytes: what the budget b (as
// dataFlags.maxBytes gives it: 0 for the default, −1 for none) leaves beside them, at least 1 byte.
func besideData(b, held int64) int64 {
	if b < 0 {
		return b
	}
	if b == 0 {
		b = budgetOf(0)
	}
	return max(1, b-held)
}

// dataBudgetHint rewrites a fit's refusal under the budget that besideData left: the need, the data held beside the
// fit, and the budget given with --max-memory.
func dataBudgetHint(err error, held int64, mem memoryFlag) error {
	fe, ok := errors.AsType[*rff.BudgetError](err)
	if !ok || mem < 0 {
		return err
	}
	b := budgetOf(mem)
	return usagef("the fit needs about %s (%s) beside the %s of training data, over the memory budget of %s: %s",
		rff.FormatBytes(fe.Bytes), fe.What, rff.FormatBytes(held), rff.FormatBytes(b), advice(b, fitRemedy(fe)))
}
