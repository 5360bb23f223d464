package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/progress"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/model"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
	"github.com/rffkit/rff/vector"
)

// classIndex maps the target of data to class indices of labels (label names as strings).
func classIndex(data *dataset.Data, labels []string) ([]int, error) {
	idx := map[string]int{}
	for i, l := range labels {
		idx[l] = i
	}
	out := make([]int, data.N)
	for i := range out {
		name := targetName(data, i)
		c, ok := idx[name]
		if !ok {
			return nil, fmt.Errorf("row %d: label %q was not seen in training (labels: %s)", i+1, name, strings.Join(labels, ", "))
		}
		out[i] = c
	}
	return out, nil
}

func targetName(data *dataset.Data, i int) string {
	if data.Labels != nil {
		return data.Labels[int(data.Y[i])]
	}
	return strconv.FormatFloat(data.Y[i], 'g', -1, 64)
}

// labelsOf returns the sorted distinct labels of the training target (numerically sorted for numbers).
func labelsOf(data *dataset.Data) []string {
	if data.Labels != nil {
		return append([]string(nil), data.Labels...)
	}
	seen := map[float64]bool{}
	var vals []float64
	for _, y := range data.Y {
		if !seen[y] {
			seen[y] = true
			vals = append(vals, y)
		}
	}
	sort.Float64s(vals)
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return out
}

// parseLambdas accepts "lo:hi:count" (a log grid) or a comma list.
func parseLambdas(s string) ([]float64, error) {
	if parts := strings.Split(s, ":"); len(parts) == 3 {
		lo, e1 := strconv.ParseFloat(parts[0], 64)
		hi, e2 := strconv.ParseFloat(parts[1], 64)
		n, e3 := strconv.Atoi(parts[2])
		g := learn.LogGrid(lo, hi, n)
		if e1 != nil || e2 != nil || e3 != nil || g == nil {
			return nil, usagef("--lambdas %q: want lo:hi:count with 0 < lo ≤ hi and count ≥ 1", s)
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

type fitReport struct {
	Task      string             `json:"task"`
	N         int                `json:"n"`
	Dim       int                `json:"d"`
	Kernel    string             `json:"kernel"`
	Sigma     float64            `json:"sigma,omitempty"`
	Rule      string             `json:"rule,omitempty"`
	Points    int                `json:"D,omitempty"`
	Features  int                `json:"features,omitempty"`
	Exact     bool               `json:"exact,omitempty"`
	Lambda    float64            `json:"lambda"`
	CV        *learn.CVResult    `json:"cv,omitempty"`
	Model     string             `json:"model"`
	Seconds   map[string]float64 `json:"seconds"`
	FitPhases map[string]float64 `json:"fit_phases"`
	Test      *metrics           `json:"test,omitempty"`
	Solve     *learn.SolveStats  `json:"solve,omitempty"`
}

func runFit(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("fit", stdout, "--data FILE --out MODEL [flags]")
	var df dataFlags
	df.register(fs.FlagSet, "standardize")
	var kf kernelFlags
	kf.register(fs.FlagSet)
	task := fs.String("task", "regression", "regression, classification, or hermite (values and/or partial derivatives from --values and --gradients)")
	ruleName := fs.String("rule", "sr-butterfly", "rule: "+strings.Join(rule.Names(), "|"))
	points := fs.Int("D", 1024, "number of points (frequencies); cos/sin maps have 2D columns; SR rules round up to whole rules")
	lambda := fs.Float64("lambda", 1e-6, "ridge penalty λ in (1/N)Σ‖f(x_i) − y_i‖² + λ‖θ‖²")
	cv := fs.Int("cv", 0, "choose λ by K-fold cross-validation over --lambdas (0 = off)")
	lambdas := fs.String("lambdas", "1e-9:1e-1:17", "λ grid for --cv: lo:hi:count (log-spaced) or a comma list")
	exact := fs.Bool("exact", false, "fit exact kernel ridge regression on the N×N Gram instead of features")
	seed := fs.Uint64("seed", 1, "seed of the feature map")
	out := fs.String("out", "", "model file to write")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout")
	form := fs.String("form", "cossin", "cossin or cosphase")
	encoding := fs.String("encoding", "onehot", "classification targets: onehot or simplex")
	lossName := fs.String("loss", "squared", "classification loss: squared (ridge on coded targets), hinge or squared-hinge (linear SVM, dual coordinate descent), logistic (L-BFGS)")
	solver := fs.String("solver", "cholesky", "cholesky or cg (with --ovk: auto, closed-form, cholesky, cg or lbfgs)")
	testData := fs.String("test-data", "", "test file: report test metrics after training (--task hermite: inputs and f(x) as the last column)")
	testLabels := fs.String("test-labels", "", "IDX labels of the test file")
	valuesPath := fs.String("values", "", "--task hermite: CSV with one column f(x_i) per row of --data (NaN = not observed)")
	ovkKind := fs.String("ovk", "", "operator-valued kernel for vector-valued regression: decomposable, curl-free, div-free, helmholtz[:w] (Gaussian k₀); needs --targets")
	aSpec := fs.String("A", "", "--ovk decomposable: the p×p output matrix A: identity (default), covariance (of the training targets) or a CSV file")
	targets := fs.String("targets", "", "--ovk: comma list of target columns (names or 1-based indices) of a CSV; the rest are inputs")
	gradsPath := fs.String("gradients", "", "--task hermite: CSV with d columns ∂f/∂x_j(x_i) per row of --data (NaN = not observed)")
	precName := fs.String("precision", "auto", "arithmetic of the Gram matrix ZᵀZ for the squared loss on random features: double, mixed (float32 Gram, solution refined against the float64 features to double-precision accuracy; keeps the N×D projections in memory) or auto (mixed when F ≥ 4096, λ > 0, OpenBLAS is loaded and the projections fit in half the free memory)")
	stream := fs.Bool("stream", false, "read the CSV --data in chunks, twice (preprocessing, then features), instead of loading it: memory does not grow with the rows (squared-loss regression or classification on random features)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usagef("--out is required")
	}
	switch *task {
	case "regression", "classification":
		if *valuesPath != "" || *gradsPath != "" {
			return usagef("--values and --gradients belong to --task hermite")
		}
	case "hermite":
		switch {
		case *valuesPath == "" && *gradsPath == "":
			return usagef("--task hermite needs --values, --gradients or both")
		case *exact || *cv != 0:
			return usagef("--task hermite fits random features with a fixed --lambda (no --exact, no --cv)")
		case !(*lambda > 0):
			return usagef("--task hermite needs --lambda > 0")
		}
		df.target = "none"
	default:
		return usagef("--task must be regression, classification or hermite, got %q", *task)
	}
	if *encoding != "onehot" && *encoding != "simplex" {
		return usagef("--encoding must be onehot or simplex, got %q", *encoding)
	}
	loss, err := learn.ParseLoss(*lossName)
	if err != nil {
		return usageError{"--loss: " + err.Error()}
	}
	if loss != learn.Squared {
		switch {
		case *task != "classification":
			return usagef("--loss %s needs --task classification", loss)
		case *exact:
			return usagef("--loss %s is not available with --exact (exact models use the squared loss)", loss)
		case *cv != 0:
			return usagef("--cv selects λ for the squared loss only; give --lambda with --loss %s", loss)
		case *encoding != "onehot":
			return usagef("--encoding %s is for the squared loss; --loss %s trains one-vs-rest", *encoding, loss)
		case !(*lambda > 0):
			return usagef("--loss %s needs --lambda > 0", loss)
		}
	}
	if *points < 1 {
		return usagef("-D must be at least 1")
	}
	if *lambda < 0 || math.IsNaN(*lambda) {
		return usagef("--lambda must be ≥ 0")
	}
	var fmForm feature.Form
	switch *form {
	case "cossin":
	case "cosphase":
		fmForm = feature.CosPhase
	default:
		return usagef("--form must be cossin or cosphase")
	}
	var sol learn.Solver
	switch {
	case *ovkKind != "":
		if _, err := vector.ParseSolver(*solver); err != nil {
			return usageError{"--solver: " + err.Error()}
		}
	case *solver == "cholesky":
		sol = learn.Cholesky
	case *solver == "cg":
		sol = learn.CG
	default:
		return usagef("--solver must be cholesky or cg")
	}
	prec, err := learn.ParsePrecision(*precName)
	if err != nil {
		return usageError{"--precision: " + err.Error()}
	}
	if prec == learn.Mixed && (*stream || *exact || *ovkKind != "" || *task == "hermite" || loss != learn.Squared || sol != learn.Cholesky) {
		return usagef("--precision mixed is for the squared loss on random features held in memory with --solver cholesky (not --stream, --exact, --ovk or --task hermite)")
	}
	r, err := rule.Parse(*ruleName)
	if err != nil {
		return usageError{err.Error()}
	}
	if *cv != 0 && *exact {
		return usagef("--cv is not available with --exact")
	}
	var grid []float64
	if *cv != 0 {
		if *cv < 2 {
			return usagef("--cv must be at least 2")
		}
		if grid, err = parseLambdas(*lambdas); err != nil {
			return err
		}
	}
	rep := fitReport{Task: *task, Model: *out, Seconds: map[string]float64{}, FitPhases: map[string]float64{}}

	if *ovkKind != "" {
		switch {
		case *targets == "":
			return usagef("--ovk needs --targets (the output columns)")
		case *task != "regression" || loss != learn.Squared || *cv != 0:
			return usagef("--ovk fits vector-valued regression with a fixed --lambda (no --task, --loss or --cv)")
		}
		df.target = "none"
	} else if *targets != "" || *aSpec != "" {
		return usagef("--targets and --A belong to --ovk")
	}
	if *stream { // see fit_stream.go
		if err := checkStream(*task, *exact, *cv, *ovkKind, loss, &df); err != nil {
			return err
		}
		return fitStream(streamFit{df: &df, kf: &kf, task: *task, rule: r, points: *points, lambda: *lambda, seed: *seed,
			out: *out, asJSON: *asJSON, form: *form, fmForm: fmForm, encoding: *encoding, solver: sol,
			testData: *testData, testLabels: *testLabels}, stdout, stderr)
	}
	t0 := time.Now()
	var data *dataset.Data
	var sc *dataset.Scaler
	var Yovk []float64
	var targetNames []string
	if *ovkKind != "" {
		if data, err = df.loadRaw(); err != nil {
			return err
		}
		if Yovk, targetNames, err = splitTargets(data, *targets); err != nil {
			return err
		}
		sc, err = df.scale(data)
	} else {
		data, sc, err = df.load()
	}
	if err != nil {
		return err
	}
	if data.Y == nil && *task != "hermite" && *ovkKind == "" {
		return usagef("%s has no target column (use --target)", df.path)
	}
	X := data.X
	var hvals, hgrads []float64
	if *task == "hermite" {
		if hvals, hgrads, err = loadHermite(*valuesPath, *gradsPath, data.N, data.D, sc); err != nil {
			return err
		}
	}
	k, sigma, err := kf.build(data.D)
	if err != nil {
		return err
	}
	hdr := model.Header{Task: *task, Exact: *exact, Kernel: k.Name(), Seed: *seed, Dim: data.D, Intercept: true,
		Names: data.Names, Preprocess: sc, Extra: map[string]any{"data": filepath.Base(df.path)}}
	if !math.IsNaN(sigma) {
		hdr.Sigma = sigma
		rep.Sigma = sigma
	}
	var Y []float64
	var cls []int
	P := 1
	if *task == "classification" {
		hdr.Labels = labelsOf(data)
		if len(hdr.Labels) < 2 {
			return fmt.Errorf("%s: classification needs at least 2 classes, found %d", df.path, len(hdr.Labels))
		}
		if cls, err = classIndex(data, hdr.Labels); err != nil {
			return err
		}
		K := len(hdr.Labels)
		hdr.Loss = loss.String()
		if loss != learn.Squared {
			P, hdr.Encoding = K, "onehot"
		} else if *encoding == "simplex" {
			Y, P, hdr.Encoding = learn.SimplexEncode(cls, K), K-1, "simplex"
		} else {
			Y, P, hdr.Encoding = learn.OneHot(cls, K, false), K, "onehot"
		}
	} else if *task == "hermite" {
		hdr.Targets = []string{"f"}
	} else {
		Y = data.Y
		hdr.Targets = []string{data.TargetName}
	}
	hdr.Outputs = P
	rep.Seconds["load"] = time.Since(t0).Seconds()
	rep.N, rep.Dim, rep.Kernel = data.N, data.D, k.Name()

	t1 := time.Now()
	m := &model.Model{}
	if *ovkKind != "" {
		o := ovkFit{kind: *ovkKind, aSpec: *aSpec, exact: *exact, lambda: *lambda, solver: *solver}
		if err := fitOVK(o, data, Yovk, targetNames, &hdr, m, &rep, *points, *seed, r); err != nil {
			return err
		}
	} else {
		var fmap *feature.Map
		if !*exact {
			if fmap, err = feature.New(k, r, data.D, *points, *seed, feature.WithForm(fmForm)); err != nil {
				return err
			}
			hdr.Rule, hdr.Points, hdr.Features, hdr.Form = r.Name(), fmap.Points(), fmap.Features(), *form
			rep.Rule, rep.Points, rep.Features = r.Name(), fmap.Points(), fmap.Features()
		}
		if *cv != 0 {
			tc := time.Now()
			res, err := learn.CrossValidate(fmap, X, data.N, Y, P, *cv, grid, true)
			if err != nil {
				return err
			}
			rep.CV = res
			*lambda = res.Best
			rep.FitPhases["cv"] = time.Since(tc).Seconds()
		}
		hdr.Lambda, rep.Lambda = *lambda, *lambda
		if *exact {
			rep.Exact = true
			fit, err := learn.KRR{Kernel: k, Lambda: *lambda, Intercept: true}.Fit(X, data.N, data.D, Y, P)
			if err != nil {
				return err
			}
			m.TrainX, m.Alpha, m.Bias = fit.X, fit.Alpha, fit.Bias
			rep.FitPhases["gram+solve"] = time.Since(t1).Seconds()
		} else if *task == "hermite" {
			fit, err := learn.Hermite{Lambda: *lambda, Intercept: hvals != nil}.Fit(fmap, X, data.N, hvals, hgrads)
			if err != nil {
				return err
			}
			rep.FitPhases["features+gram+solve"] = time.Since(t1).Seconds()
			m.Theta, m.Bias = fit.Theta, fit.Bias
		} else {
			fit, err := fitFeatures(fmap, X, data.N, Y, P, cls, loss, *lambda, sol, prec, *seed, rep.FitPhases, stderr)
			if err != nil {
				return err
			}
			rep.Solve = &fit.Stats
			m.Theta, m.Bias = fit.Theta, fit.Bias
		}
		if fmap != nil {
			m.Probe = make([]float64, fmap.Features())
			fmap.TransformBlock(m.Probe, model.ProbeInput(data.D), 1, nil)
		}
	}
	m.Header = hdr
	rep.Seconds["fit"] = time.Since(t1).Seconds()
	if err := model.Save(*out, m); err != nil {
		return err
	}
	if *testData != "" {
		t2 := time.Now()
		tf := df
		tf.path, tf.labels, tf.train = *testData, *testLabels, 0
		if *task == "hermite" {
			tf.target = "last" // the test file holds the inputs and the value f(x)
		}
		met, err := evaluate(m, &tf)
		if err != nil {
			return err
		}
		rep.Test = met
		rep.Seconds["test"] = time.Since(t2).Seconds()
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(rep)
	}
	what := fmt.Sprintf("%s features (%d points, %d columns)", rep.Rule, rep.Points, rep.Features)
	if *exact {
		what = "exact kernel ridge regression"
	}
	if *ovkKind != "" {
		what = *ovkKind + " operator-valued kernel, " + what
	}
	fmt.Fprintf(stdout, "fitted %s on %d rows × %d columns: kernel %s, %s, λ = %.3g, in %.2fs\n", *task, data.N, data.D, k.Name(), what, *lambda, rep.Seconds["fit"])
	fmt.Fprintf(stdout, "model written to %s\n", *out)
	if rep.Test != nil {
		printMetrics(stdout, "test", rep.Test)
	}
	return nil
}

// fitFeatures fits the linear model on the features of X: ridge (learn.Ridge.FitMap, in precision prec) for the
// squared loss, the SVM or logistic classifier on the in-memory features otherwise. It records the phases in phases
// and draws a progress bar on stderr when stderr is a terminal.
func fitFeatures(fmap *feature.Map, X []float64, n int, Y []float64, P int, cls []int, loss learn.Loss, lambda float64,
	sol learn.Solver, prec learn.Precision, seed uint64, phases map[string]float64, stderr io.Writer) (*learn.Fit, error) {
	if loss == learn.Squared {
		tg := time.Now()
		bar := progress.New(stderr, "features+gram", n)
		fit, err := learn.Ridge{Lambda: lambda, Intercept: true, Solver: sol, Precision: prec, Progress: bar.Add}.FitMap(fmap, X, n, Y, P)
		bar.Done()
		if err != nil {
			return nil, err
		}
		// The solve is what follows the last chunk: the factorisation and, in mixed precision, the refinement.
		phases["features+gram"] = time.Since(tg).Seconds() - fit.Stats.Seconds
		phases["solve"] = fit.Stats.Seconds
		return fit, nil
	}
	tf := time.Now()
	Z, err := learn.Features(fmap, X, n, 0)
	if err != nil {
		return nil, err
	}
	phases["features"] = time.Since(tf).Seconds()
	ts := time.Now()
	bar := progress.New(stderr, loss.String()+" iterations", 0)
	c := learn.Classifier{Loss: loss, Lambda: lambda, Seed: seed, Progress: bar.Add}
	fit, err := c.Fit(Z, n, fmap.Features(), cls, P)
	bar.Done()
	phases["solve"] = time.Since(ts).Seconds()
	return fit, err
}

// predictor rebuilds a model's map (or exact fit) for prediction.
type predictor struct {
	m    *model.Model
	fmap *feature.Map
	krr  *learn.KRRFit
	// operator-valued models
	ovkMap   *ovk.Map
	ovkFit   *vector.Fit
	ovkExact *vector.KRRFit
}

func newPredictor(m *model.Model) (*predictor, error) {
	if m.OVK != "" {
		return newOVKPredictor(m)
	}
	k, err := kernel.New(m.Kernel, m.Sigma)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if m.Exact {
		n := len(m.TrainX) / m.Dim
		return &predictor{m: m, krr: &learn.KRRFit{Kernel: k, X: m.TrainX, N: n, Dim: m.Dim, P: m.Outputs,
			Alpha: m.Alpha, Bias: m.Bias, Lambda: m.Lambda, Intercept: m.Intercept}}, nil
	}
	r, err := rule.Parse(m.Rule)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	var form feature.Form
	if m.Form == "cosphase" {
		form = feature.CosPhase
	}
	fm, err := feature.New(k, r, m.Dim, m.Points, m.Seed, feature.WithForm(form))
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	probe := make([]float64, fm.Features())
	if fm.Features() == m.Features {
		fm.TransformBlock(probe, model.ProbeInput(m.Dim), 1, nil)
	}
	for i := range probe {
		if fm.Features() != m.Features || probe[i] != m.Probe[i] {
			return nil, fmt.Errorf("model: this rff draws different %s points for seed %d than the one that wrote the model; refit it", m.Rule, m.Seed)
		}
	}
	return &predictor{m: m, fmap: fm}, nil
}

// scores returns the n×P model outputs for raw (unpreprocessed) inputs.
func (p *predictor) scores(raw []float64, n, d int) ([]float64, error) {
	if d != p.m.Dim {
		return nil, fmt.Errorf("the data has %d feature columns, the model was trained on %d (use --target to leave the target column out)", d, p.m.Dim)
	}
	X := append([]float64(nil), raw...)
	if p.m.Preprocess != nil {
		p.m.Preprocess.Apply(X, n, d)
	}
	out := make([]float64, n*p.m.Outputs)
	switch {
	case p.krr != nil:
		p.krr.Predict(out, X, n)
		return out, nil
	case p.ovkExact != nil:
		return out, p.ovkExact.Predict(out, X, n)
	case p.ovkFit != nil:
		return out, p.ovkFit.Predict(out, p.ovkMap, X, n)
	}
	fit := &learn.Fit{F: p.m.Features, P: p.m.Outputs, Theta: p.m.Theta, Bias: p.m.Bias, Intercept: p.m.Intercept}
	if err := fit.PredictMap(out, p.fmap, X, n); err != nil {
		return nil, err
	}
	return out, nil
}

// gradients returns the n×d gradients ∂f/∂x_j of a single-output model at the raw inputs, in raw coordinates.
func (p *predictor) gradients(raw []float64, n, d int) ([]float64, error) {
	if p.m.Task == "classification" || p.m.Outputs != 1 || p.fmap == nil {
		return nil, usagef("--gradients needs a single-output regression or hermite model on random features (not --exact)")
	}
	if d != p.m.Dim {
		return nil, fmt.Errorf("the data has %d feature columns, the model was trained on %d", d, p.m.Dim)
	}
	X := append([]float64(nil), raw...)
	var sc *dataset.Scaler
	if p.m.Preprocess != nil {
		sc = p.m.Preprocess
		sc.Apply(X, n, d)
	}
	g := make([]float64, n*d)
	fit := &learn.Fit{F: p.m.Features, P: 1, Theta: p.m.Theta, Bias: p.m.Bias}
	if err := fit.PredictGradients(g, p.fmap, X, n); err != nil {
		return nil, err
	}
	c := inputScale(sc, d)
	for i := range g {
		g[i] *= c[i%d]
	}
	return g, nil
}

// classes decodes classifier scores into class indices.
func (p *predictor) classes(s []float64, n int) []int {
	K := len(p.m.Labels)
	if p.m.Encoding == "simplex" {
		return learn.SimplexDecode(s, n, K)
	}
	return learn.Argmax(s, n, K)
}

type classCount struct {
	Label   string `json:"label"`
	Total   int    `json:"total"`
	Correct int    `json:"correct"`
}

type outputMetrics struct {
	Name string  `json:"name"`
	RMSE float64 `json:"rmse"`
	MAE  float64 `json:"mae"`
	R2   float64 `json:"r2"`
}

type metrics struct {
	Task      string          `json:"task"`
	N         int             `json:"n"`
	Accuracy  *float64        `json:"accuracy,omitempty"`
	PerClass  []classCount    `json:"per_class,omitempty"`
	RMSE      *float64        `json:"rmse,omitempty"`
	MAE       *float64        `json:"mae,omitempty"`
	R2        *float64        `json:"r2,omitempty"`
	PerOutput []outputMetrics `json:"per_output,omitempty"`
}

// evaluate loads a labelled dataset and scores the model on it.
func evaluate(m *model.Model, df *dataFlags) (*metrics, error) {
	p, err := newPredictor(m)
	if err != nil {
		return nil, err
	}
	var Y []float64 // n×Outputs targets
	var data *dataset.Data
	if m.OVK != "" {
		df.target = "none"
		if data, err = df.loadRaw(); err != nil {
			return nil, err
		}
		if Y, _, err = splitTargets(data, strings.Join(m.Targets, ",")); err != nil {
			return nil, fmt.Errorf("%s: %w", df.path, err)
		}
	} else {
		if data, err = df.loadRaw(); err != nil {
			return nil, err
		}
		if data.Y == nil {
			return nil, usagef("%s has no target column (use --target)", df.path)
		}
		Y = data.Y
	}
	s, err := p.scores(data.X, data.N, data.D)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", df.path, err)
	}
	met := &metrics{Task: m.Task, N: data.N}
	if m.Task == "classification" {
		truth, err := classIndex(data, m.Labels)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", df.path, err)
		}
		pred := p.classes(s, data.N)
		met.PerClass = make([]classCount, len(m.Labels))
		correct := 0
		for i, c := range truth {
			met.PerClass[c].Total++
			if pred[i] == c {
				met.PerClass[c].Correct++
				correct++
			}
		}
		for c := range met.PerClass {
			met.PerClass[c].Label = m.Labels[c]
		}
		acc := float64(correct) / float64(data.N)
		met.Accuracy = &acc
		return met, nil
	}
	// Regression: per output, and overall over every entry (R² = 1 − Σ_all (y − ŷ)² / Σ_all (y − ȳ_output)²).
	P, n := m.Outputs, data.N
	var seAll, aeAll, ssAll float64
	for j := 0; j < P; j++ {
		var se, ae, mean, ss float64
		for i := 0; i < n; i++ {
			mean += Y[i*P+j]
		}
		mean /= float64(n)
		for i := 0; i < n; i++ {
			y := Y[i*P+j]
			e := s[i*P+j] - y
			se += e * e
			ae += math.Abs(e)
			ss += (y - mean) * (y - mean)
		}
		name := data.TargetName
		if j < len(m.Targets) {
			name = m.Targets[j]
		}
		met.PerOutput = append(met.PerOutput, outputMetrics{Name: name, RMSE: math.Sqrt(se / float64(n)), MAE: ae / float64(n), R2: 1 - se/ss})
		seAll, aeAll, ssAll = seAll+se, aeAll+ae, ssAll+ss
	}
	rmse, mae, r2 := math.Sqrt(seAll/float64(n*P)), aeAll/float64(n*P), 1-seAll/ssAll
	met.RMSE, met.MAE, met.R2 = &rmse, &mae, &r2
	return met, nil
}

func printMetrics(w io.Writer, what string, m *metrics) {
	if m.Accuracy != nil {
		fmt.Fprintf(w, "%s: %d rows, accuracy %.4f\n", what, m.N, *m.Accuracy)
		for _, c := range m.PerClass {
			fmt.Fprintf(w, "  %-10s %5d / %-5d correct\n", c.Label, c.Correct, c.Total)
		}
		return
	}
	fmt.Fprintf(w, "%s: %d rows, RMSE %.4g, MAE %.4g, R² %.4f\n", what, m.N, *m.RMSE, *m.MAE, *m.R2)
	if len(m.PerOutput) > 1 {
		for _, o := range m.PerOutput {
			fmt.Fprintf(w, "  %-10s RMSE %.4g, MAE %.4g, R² %.4f\n", o.Name, o.RMSE, o.MAE, o.R2)
		}
	}
}

func runPredict(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("predict", stdout, "--model MODEL --data FILE [--out FILE]")
	var mf modelFlags
	mf.register(fs)
	fs.Lookup("target").DefValue, mf.data.target = "none", "none"
	out := fs.String("out", "", "write predictions to this CSV file (default stdout)")
	withGrads := fs.Bool("gradients", false, "also write the model's gradient ∂f/∂x_j at every row (regression and hermite models on shift-invariant features)")
	m, err := mf.parse(fs, args)
	if err != nil {
		return err
	}
	df := &mf.data
	p, err := newPredictor(m)
	if err != nil {
		return err
	}
	data, err := df.loadRaw()
	if err != nil {
		return err
	}
	if m.OVK != "" && data.D == m.Dim+m.Outputs { // the file still holds the target columns: leave them out
		if _, _, err := splitTargets(data, strings.Join(m.Targets, ",")); err != nil {
			return fmt.Errorf("%s: %w", df.path, err)
		}
	}
	s, err := p.scores(data.X, data.N, data.D)
	if err != nil {
		return fmt.Errorf("%s: %w", df.path, err)
	}
	var grads []float64
	if *withGrads {
		if grads, err = p.gradients(data.X, data.N, data.D); err != nil {
			return err
		}
	}
	w := stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	var b strings.Builder
	if m.Task == "classification" {
		b.WriteString("label\n")
		for _, c := range p.classes(s, data.N) {
			b.WriteString(m.Labels[c])
			b.WriteByte('\n')
		}
	} else {
		names := m.Targets
		if len(names) != m.Outputs {
			names = nil
			for j := 0; j < m.Outputs; j++ {
				names = append(names, fmt.Sprintf("y%d", j+1))
			}
		}
		b.WriteString(strings.Join(names, ","))
		if grads != nil {
			for j := 0; j < m.Dim; j++ {
				in := fmt.Sprintf("x%d", j+1)
				if len(m.Names) == m.Dim {
					in = m.Names[j]
				}
				fmt.Fprintf(&b, ",d%s/d%s", names[0], in)
			}
		}
		b.WriteByte('\n')
		for i := 0; i < data.N; i++ {
			for j := 0; j < m.Outputs; j++ {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.FormatFloat(s[i*m.Outputs+j], 'g', -1, 64))
			}
			for j := 0; grads != nil && j < m.Dim; j++ {
				b.WriteByte(',')
				b.WriteString(strconv.FormatFloat(grads[i*m.Dim+j], 'g', -1, 64))
			}
			b.WriteByte('\n')
		}
	}
	_, err = io.WriteString(w, b.String())
	return err
}

func runEval(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval", stdout, "--model MODEL --data FILE [--json]")
	var mf modelFlags
	mf.register(fs)
	asJSON := fs.Bool("json", false, "print one JSON object on stdout")
	m, err := mf.parse(fs, args)
	if err != nil {
		return err
	}
	met, err := evaluate(m, &mf.data)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(met)
	}
	printMetrics(stdout, filepath.Base(mf.data.path), met)
	return nil
}

// modelFlags are the flags of the commands that apply a saved model to a dataset (predict, eval).
type modelFlags struct {
	data dataFlags
	path string
}

func (f *modelFlags) register(fs *cmdFlags) {
	f.data.register(fs.FlagSet, "")
	fs.StringVar(&f.path, "model", "", "model file written by rff fit")
}

// parse parses the flags and loads the model.
func (f *modelFlags) parse(fs *cmdFlags, args []string) (*model.Model, error) {
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if f.path == "" {
		return nil, usagef("--model is required")
	}
	return model.Load(f.path)
}
