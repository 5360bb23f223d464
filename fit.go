package rff

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/colnames"
	"github.com/rffkit/rff/internal/finite"
	"github.com/rffkit/rff/internal/progress"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/model"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
	"github.com/rffkit/rff/vector"
)

// Report says how a model was fitted.
type Report struct {
	N      int                `json:"n"`
	Sigma  float64            `json:"sigma,omitempty"` // the bandwidth used
	Lambda float64            `json:"lambda"`          // the λ used (chosen by CV when asked)
	CV     *learn.CVResult    `json:"cv,omitempty"`
	Tune   *TuneResult        `json:"tune,omitempty"`
	Solve  *learn.SolveStats  `json:"solve,omitempty"`
	Phases map[string]float64 `json:"phases"` // seconds per phase
}

// Report returns how m was fitted, or nil for a loaded model.
func (m *Model) Report() *Report {
	if m == nil {
		return nil
	}
	return m.report
}

// Fit fits a model on data. For scalar models data.Y holds the targets (numbers for regression; class labels or
// numbers for classification); for vector-valued models (Config.OVK) the data are loaded without a target column
// and Config.Targets names the output columns. The preprocessing is fitted on data and stored in the model; data
// are not modified.
func Fit(cfg Config, data *dataset.Data) (*Model, error) {
	s, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	if s.Task == "hermite" {
		return nil, errors.New("hermite models are fitted by FitHermite")
	}
	return s.fit(data, nil, nil)
}

// FitHermite fits a regression model from observed values (length n, NaN where not observed) and partial derivatives
// (n×d in the raw coordinates, NaN where not observed) at the rows of data, either of which may be nil: gradient-
// enhanced ridge regression on derivative features (learn.Hermite). cfg.Task is set to "hermite".
func FitHermite(cfg Config, data *dataset.Data, values, grads []float64) (*Model, error) {
	cfg.Task = "hermite"
	s, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	if values != nil && !slices.ContainsFunc(values, func(v float64) bool { return !math.IsNaN(v) }) {
		values = nil // no value observed: as without values (no intercept)
	}
	if values == nil && grads == nil {
		return nil, errors.New("hermite: give observed values, partial derivatives or both")
	}
	if grads != nil { // the gradient rows' inner products estimate ∂²k/∂x_i∂y_j, which must exist
		k, err := kernel.New(s.Kernel, 1)
		if err != nil {
			return nil, err
		}
		if dk, ok := k.(kernel.Differentiable); !ok || dk.MaxOrder() < 2 {
			return nil, fmt.Errorf("hermite: the %s kernel has no second derivatives everywhere, which observed gradients need (use gaussian, cauchy, matern32 or matern52)", k.Name())
		}
	}
	return s.fit(data, values, grads)
}

func checkData(data *dataset.Data) error {
	switch {
	case data == nil:
		return errors.New("no data")
	case data.N < 1 || data.D < 1:
		return fmt.Errorf("no data rows or no input columns (%d×%d)", data.N, data.D)
	case !size.Is(len(data.X), data.N, data.D):
		return fmt.Errorf("data hold %d values for %d rows × %d columns", len(data.X), data.N, data.D)
	case data.Names != nil && len(data.Names) != data.D:
		return fmt.Errorf("data have %d column names for %d columns", len(data.Names), data.D)
	case data.Y != nil && len(data.Y) != data.N:
		return fmt.Errorf("data have %d targets for %d rows", len(data.Y), data.N)
	case data.Labels != nil && data.Y == nil:
		return fmt.Errorf("data have %d labels but no targets", len(data.Labels))
	}
	if data.Labels != nil { // Y holds indices into Labels
		for i, y := range data.Y {
			if !(y >= 0 && y < float64(len(data.Labels))) || y != math.Trunc(y) {
				return fmt.Errorf("row %d: target %v is not the index of one of the %d labels", i+1, y, len(data.Labels))
			}
		}
	}
	if bad := colnames.Unprintable(data.Names); bad >= 0 {
		return fmt.Errorf("column %d: the name %q is not printable text (a control character, or not UTF-8)", bad+1, data.Names[bad])
	}
	switch bad, prev := colnames.Check(data.Names); {
	case bad >= 0 && prev < 0:
		return fmt.Errorf("column %d has no name", bad+1)
	case bad >= 0:
		return fmt.Errorf("columns %d and %d are both named %q; predictions match columns by name", prev+1, bad+1, data.Names[bad])
	}
	return nil
}

func (s *settings) fit(data *dataset.Data, hvals, hgrads []float64) (*Model, error) {
	if err := checkData(data); err != nil {
		return nil, err
	}
	if err := blocks.CheckLambda("", data.N, s.Lambda); err != nil && s.Task != "hermite" { // hermite counts observations
		return nil, fmt.Errorf("%w (Config.Lambda)", err)
	}
	rep := &Report{N: data.N, Phases: map[string]float64{}}
	t0 := time.Now()
	raw := *data
	var Yovk []float64
	if s.OVK != "" {
		if data.Y != nil {
			return nil, errors.New("vector-valued models take their targets from the columns named in Targets; load the data without a target column")
		}
		var err error
		targets := append([]string(nil), s.Targets...)
		if Yovk, err = splitColumns(&raw, targets); err != nil {
			return nil, err
		}
		s.Targets = targets
	} else if s.Task != "hermite" && data.Y == nil {
		return nil, errors.New("the data have no target column")
	}
	if err := s.checkPCABudget(raw.N, raw.D, false); err != nil {
		return nil, err
	}
	sc, err := dataset.FitScaler(raw.X, raw.N, raw.D, s.steps)
	if err != nil {
		return nil, err
	}
	X := sc.Transform(raw.X, raw.N, raw.D)
	if err := s.prepareGiven(sc, raw.Names, raw.D); err != nil {
		return nil, err
	}
	// d is the dimension the map sees: the number of principal components after a PCA step, raw.D otherwise.
	n, d := raw.N, sc.OutDim()
	colNames := raw.Names
	if d != raw.D {
		colNames = nil // the columns are principal components
	}
	if err := CheckInputMagnitude(X, d, colNames, 0); err != nil {
		return nil, err
	}
	names := orNames(raw.Names, raw.D)
	h := model.Header{Task: s.Task, Exact: s.Exact, Seed: s.Seed, Dim: raw.D, Intercept: true, Names: names, Preprocess: sc}
	if s.OVK == "" {
		h.TargetColumn = data.TargetColumn // a headerless file: where its target was
	}
	f := &model.Model{Version: model.Version}

	// Targets.
	var Y []float64
	var cls []int
	P := 1
	switch {
	case s.OVK != "":
		P = len(s.Targets)
		h.Targets = s.Targets
	case s.Task == "classification":
		classes := dataset.ClassesOf(data)
		h.Labels = classes.Labels
		K := len(h.Labels)
		if K < 2 {
			return nil, fmt.Errorf("classification needs at least 2 classes, found %d", K)
		}
		if err := s.checkClasses(K, n, data.TargetName, data.Labels != nil); err != nil {
			return nil, err
		}
		if cls, err = classes.Code(data); err != nil {
			return nil, err
		}
		h.Loss = s.loss.String()
		h.Targets = []string{orDefault(data.TargetName, "y")}
		switch {
		case s.loss != learn.Squared:
			P, h.Encoding = K, "onehot"
		case s.Encoding == "simplex":
			Y, P, h.Encoding = learn.SimplexEncode(cls, K), K-1, "simplex"
		default:
			Y, P, h.Encoding = learn.OneHot(cls, K, false), K, "onehot"
		}
	case s.Task == "hermite":
		h.Targets = []string{"f"}
		if hgrads != nil {
			if hgrads, err = gradsToScaled(hgrads, n, d, sc); err != nil {
				return nil, err
			}
		}
		if err := checkHermiteMagnitude(hvals, hgrads, d, data.Names); err != nil {
			return nil, err
		}
	default:
		if data.Labels != nil {
			return nil, nonNumericTarget(data)
		}
		Y = data.Y
		h.Targets = []string{orDefault(data.TargetName, "y")}
	}
	if err := checkTargets(Y, Yovk, h.Targets, s.Targets, 0); err != nil {
		return nil, err
	}
	// A regression's targets are centred before any statistics are taken, and their means added to the intercept:
	// the sums of squares of targets far from zero (Σy² − (Σy)²/N) would lose the digits of their spread.
	var shift []float64
	switch {
	case s.Task == "regression" && Y != nil:
		Y, shift = centreColumns(Y, P)
	case s.Task == "regression" && Yovk != nil:
		Yovk, shift = centreColumns(Yovk, P)
	case s.Task == "hermite" && hvals != nil: // the observed values; derivatives do not change with a constant
		hvals, shift = centreObserved(hvals)
	}
	h.Outputs = P
	rep.Phases["load"] = time.Since(t0).Seconds()
	if s.nystrom {
		if _, err := s.centres(n); err != nil {
			return nil, err
		}
	}
	switch {
	case s.CV > n:
		return nil, fmt.Errorf("%d-fold cross-validation needs at least %d rows, have %d", s.CV, s.CV, n)
	case s.Tune && s.TuneRows > 0 && s.TuneRows < n && s.CV > s.TuneRows:
		return nil, fmt.Errorf("%d-fold cross-validation needs at least %d rows; tuning uses %d (Config.TuneRows)", s.CV, s.CV, s.TuneRows)
	case !s.Exact && !s.nystrom && float64(s.Points)*float64(d) > 1<<31:
		return nil, fmt.Errorf("points D = %d in dimension %d are too many: %d·%d coordinates, at most 2³¹", s.Points, d, s.Points, d)
	}
	// The size checks depend on the kind of kernel, not on its bandwidth: they run before anything is measured.
	if kind, err := kernel.New(s.Kernel, 1); err != nil {
		return nil, err
	} else if err := s.checkRounding(d, kind); err != nil {
		return nil, err
	} else if err := s.checkBudget(n, d, P, kind); err != nil {
		return nil, err
	}
	if s.Tune {
		tt := time.Now()
		t := &tuneTargets{Y: Y, P: P, cls: cls, K: len(h.Labels)}
		if s.Task == "hermite" {
			t = &tuneTargets{P: 1, hermite: true, hvals: hvals, hgrads: hgrads}
		}
		if s.OVK != "" {
			if t, err = s.tuneOVK(Yovk, n, P); err != nil {
				return nil, err
			}
		}
		if rep.Tune, err = s.tune(X, n, d, t); err != nil {
			return nil, err
		}
		rep.Phases["tune"] = time.Since(tt).Seconds()
	}
	sample := newReservoir(d, s.Seed)
	sample.add(X, n)
	k, sigma, err := s.kernel(sample)
	if err != nil {
		return nil, err
	}
	h.Kernel, h.Lambda = k.Name(), s.Lambda
	if _, ok := k.(kernel.Spectral); ok {
		h.Sigma, rep.Sigma = sigma, sigma
	}

	t1 := time.Now()
	if s.OVK != "" && !s.nystrom {
		if err := s.fitOVK(&h, f, rep, X, n, d, Yovk); err != nil {
			return nil, err
		}
	} else if s.Exact {
		fit, err := learn.KRR{Kernel: k, Lambda: s.Lambda, Intercept: true, MaxBytes: s.budget()}.Fit(X, n, d, Y, P)
		if err != nil {
			return nil, err
		}
		f.TrainX, f.Alpha, f.Bias = fit.X, fit.Alpha, fit.Bias
		rep.Phases["gram_solve"] = time.Since(t1).Seconds()
	} else if s.nystrom {
		if err := s.fitNystrom(&h, f, rep, k, X, n, d, Y, Yovk, P, cls); err != nil {
			return nil, err
		}
	} else {
		fmap, err := feature.New(k, s.rule, d, s.Points, s.Seed, feature.WithForm(s.form))
		if err != nil {
			return nil, err
		}
		if s.CV != 0 && !s.Tune { // tuning chose λ already
			tc := time.Now()
			res, err := learn.CrossValidate(fmap, X, n, Y, P, s.CV, s.Lambdas, true)
			if err != nil {
				return nil, err
			}
			rep.CV, s.Lambda, h.Lambda = res, res.Best, res.Best
			rep.Phases["cv"] = time.Since(tc).Seconds()
		}
		var fit *learn.Fit
		if s.Task == "hermite" {
			fit, err = learn.Hermite{Lambda: s.Lambda, Intercept: hvals != nil}.Fit(fmap, X, n, hvals, hgrads)
			rep.Phases["features_gram_solve"] = time.Since(t1).Seconds()
		} else {
			var post *learn.Posterior
			fit, post, err = s.fitFeatures(fmap, X, n, Y, P, cls, rep)
			if err == nil && post != nil {
				f.PosteriorFactor, f.PosteriorZMean, f.NoiseVar = post.Factor, post.ZMean, post.NoiseVar
				h.PosteriorN, h.PosteriorDF = post.N, post.DF
			}
		}
		if err != nil {
			return nil, err
		}
		f.Theta, f.Bias = fit.Theta, fit.Bias
		setMap(&h, f, fmap, s.Form)
	}
	for j, c := range shift {
		f.Bias[j] += c
	}
	rep.Lambda = h.Lambda
	rep.Phases["fit"] = time.Since(t1).Seconds()
	f.Header = h
	m, err := fromFile(f, 0)
	if err != nil {
		return nil, fmt.Errorf("the fitted model does not check (a bug, please report it): %w", err)
	}
	m.report = rep
	return m, nil
}

// centreColumns returns a copy of Y (rows of P values, row-major) with each column's mean subtracted, and the means.
func centreColumns(Y []float64, P int) ([]float64, []float64) {
	n := len(Y) / P
	mean := make([]float64, P)
	for i := range n {
		for j, v := range Y[i*P : (i+1)*P] {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	out := make([]float64, len(Y))
	for i := range n {
		for j, v := range Y[i*P : (i+1)*P] {
			out[i*P+j] = v - mean[j]
		}
	}
	return out, mean
}

// centreObserved returns a copy of the values v with the mean of the observed ones (not NaN) subtracted, and that
// mean (0 when none is observed).
func centreObserved(v []float64) ([]float64, []float64) {
	var sum float64
	n := 0
	for _, x := range v {
		if !math.IsNaN(x) {
			sum, n = sum+x, n+1
		}
	}
	mean := 0.0
	if n > 0 {
		mean = sum / float64(n)
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x - mean // NaN stays NaN: not observed
	}
	return out, []float64{mean}
}

// maxInput bounds the preprocessed inputs: beyond it a projection ωᵀx, a squared distance or the statistics of the
// features can overflow to ±Inf.
const maxInput = 1e100

// A MagnitudeError is the error of a fit for a value too large for its statistics: a preprocessed input beyond
// 1e100 in magnitude (or NaN), for which a projection ωᵀx, a squared distance or the statistics of the features can
// overflow to ±Inf, or a regression target beyond 1e100, whose square and the sums of squares and products of the
// ridge statistics can. The fits of this package return one for the first such value (FitCSV wraps it after the
// file's path), found by CheckInputMagnitude and CheckTargetMagnitude, which a fit distributed over many machines
// calls on its rows too.
type MagnitudeError struct {
	Row int // the row, counting from 1
	// Reason says which value is too large, and why: "column 2 (b) is 1e+200 after preprocessing: too large for
	// the kernel (|ωᵀx| would overflow); rescale it or standardize the inputs".
	Reason string
}

// Error returns "row R, reason" ("<nil>" for a nil *MagnitudeError).
func (e *MagnitudeError) Error() string {
	if e == nil {
		return "<nil>"
	}
	return fmt.Sprintf("row %d, %s", e.Row, e.Reason)
}

// CheckInputMagnitude returns a *MagnitudeError for the first value of the preprocessed inputs X (rows of d values,
// row-major) that is NaN or beyond 1e100 in magnitude, the inputs a fit refuses as too large for its feature maps and
// kernels, or nil when there is none. names name the d columns (nil, or fewer, when they have no names: the columns
// of a PCA step); rows are counted from r0 rows before X, so that a caller checking a large input in parts names
// the row of the whole. It returns nil for d < 1, and an error (not a *MagnitudeError) when X is not whole rows.
func CheckInputMagnitude(X []float64, d int, names []string, r0 int) error {
	if d >= 1 && len(X)%d != 0 {
		return fmt.Errorf("rff.CheckInputMagnitude: %d values are not whole rows of %d columns", len(X), d)
	}
	i := finite.IndexBeyond(X, maxInput)
	if i < 0 || d < 1 {
		return nil
	}
	name := fmt.Sprintf("column %d", i%d+1)
	if i%d < len(names) {
		name = fmt.Sprintf("column %d (%s)", i%d+1, names[i%d])
	}
	return &MagnitudeError{Row: r0 + i/d + 1, Reason: fmt.Sprintf("%s is %v after preprocessing: too large for the kernel (|ωᵀx| would overflow); rescale it or standardize the inputs", name, X[i])}
}

// CheckTargetMagnitude returns a *MagnitudeError for the first regression target of Y (rows of one value per name
// of targets, row-major) that is NaN or beyond 1e100 in magnitude, the targets a fit refuses as too large for the
// ridge statistics, or nil when there is none (or no targets are named). Rows are counted from r0 rows before Y. Y
// that is not whole rows is an error (not a *MagnitudeError).
func CheckTargetMagnitude(Y []float64, targets []string, r0 int) error {
	if len(targets) == 0 {
		return nil
	}
	if len(Y)%len(targets) != 0 {
		return fmt.Errorf("rff.CheckTargetMagnitude: %d values are not whole rows of %d targets", len(Y), len(targets))
	}
	i := finite.IndexBeyond(Y, maxInput)
	if i < 0 {
		return nil
	}
	return &MagnitudeError{Row: r0 + i/len(targets) + 1, Reason: fmt.Sprintf("target %s is %v: too large for the ridge statistics "+
		"(sums of its square would overflow); rescale the targets", targets[i%len(targets)], Y[i])}
}

// checkHermiteMagnitude returns a *MagnitudeError for the first observed value (of vals, n) or partial derivative
// (of grads, n×d, in the preprocessed coordinates) of a hermite fit beyond 1e100 in magnitude, whose squares would
// overflow the ridge statistics as a regression target's; NaN marks an unobserved entry. names name the d columns.
func checkHermiteMagnitude(vals, grads []float64, d int, names []string) error {
	for i, v := range vals {
		if math.Abs(v) > maxInput {
			return &MagnitudeError{Row: i + 1, Reason: fmt.Sprintf("the observed value is %v: too large for the ridge statistics (sums of its square would overflow); rescale the values", v)}
		}
	}
	for i, v := range grads {
		if math.Abs(v) > maxInput {
			col := fmt.Sprintf("column %d", i%d+1)
			if i%d < len(names) {
				col = fmt.Sprintf("column %d (%s)", i%d+1, names[i%d])
			}
			return &MagnitudeError{Row: i/d + 1, Reason: fmt.Sprintf("the observed derivative along %s is %v in the preprocessed coordinates: too large for the ridge statistics (sums of its square would overflow); rescale the gradients", col, v)}
		}
	}
	return nil
}

// checkTargets is CheckTargetMagnitude on the regression targets of a fit: Y, one column named target[0], or the
// columns Yovk named targets.
func checkTargets(Y, Yovk []float64, target, targets []string, r0 int) error {
	if Yovk != nil {
		return CheckTargetMagnitude(Yovk, targets, r0)
	}
	return CheckTargetMagnitude(Y, target, r0)
}

// setMap stores the explicit parameters of fmap and the probe features its rebuilt form computes in the file.
func setMap(h *model.Header, f *model.Model, fmap *feature.Map, form string) {
	p := fmap.Params()
	h.Rule, h.Features, h.Form = p.Rule, fmap.Features(), form
	if _, ok := fmap.Kernel().(kernel.Pointwise); ok {
		h.Form = "cossin"
	}
	setPoints(h, f, p.Points)
	f.Scale, f.Phase = p.Scale, p.Phase
	f.Probe = make([]float64, fmap.Features())
	fmap.TransformBlock(f.Probe, model.ProbeInput(fmap.Dim()), 1, nil)
}

// setPoints stores an explicit realization in the file.
func setPoints(h *model.Header, f *model.Model, s rule.Stored) {
	h.Points, h.Zero, h.PointsKind = s.Len, s.Zero, s.Kind
	f.Points, f.Weights = s.Arrays, s.Weights
}

// fitFeatures fits the linear model on the features of X: ridge for the squared loss, the SVM or logistic
// classifier on the in-memory features otherwise.
func (s *settings) fitFeatures(fmap learn.Mapper, X []float64, n int, Y []float64, P int, cls []int, rep *Report) (*learn.Fit, *learn.Posterior, error) {
	if s.Uncertainty {
		tg := time.Now()
		bar := progress.New(s.Progress, "features+gram", n)
		acc, err := learn.NewAccumulator(fmap, P)
		if err != nil {
			return nil, nil, err
		}
		acc.Progress = bar.Add
		if err := acc.Add(X, n, Y); err != nil {
			bar.Done()
			return nil, nil, err
		}
		bar.Done()
		st, err := acc.Stats()
		if err != nil {
			return nil, nil, err
		}
		rep.Phases["features_gram"] = time.Since(tg).Seconds()
		ts := time.Now()
		post, err := learn.NewPosterior(st, s.Lambda, true)
		if err != nil {
			return nil, nil, err
		}
		if s.Tune && s.Select == "evidence" { // the predictive distribution the criterion scored (empirical Bayes)
			post.NoiseVar = post.EvidenceNoiseVar
		}
		rep.Phases["solve"] = time.Since(ts).Seconds()
		return post.Fit, post, nil
	}
	if st := s.tuned; st != nil && s.loss == learn.Squared && s.solver == learn.Cholesky && s.precision != learn.Mixed {
		// Tuning accumulated these statistics for this map on all rows: solve them instead of a second pass.
		s.tuned = nil
		fit, err := learn.Ridge{Lambda: s.Lambda, Intercept: true}.SolveInPlace(st)
		if err != nil {
			return nil, nil, err
		}
		rep.Phases["solve"] = fit.Stats.Seconds
		rep.Solve = &fit.Stats
		return fit, nil, nil
	}
	if s.loss == learn.Squared {
		tg := time.Now()
		bar := progress.New(s.Progress, "features+gram", n)
		fit, err := learn.Ridge{Lambda: s.Lambda, Intercept: true, Solver: s.solver, Precision: s.precision, Progress: bar.Add}.FitMap(fmap, X, n, Y, P)
		bar.Done()
		if err != nil {
			return nil, nil, err
		}
		rep.Phases["features_gram"] = time.Since(tg).Seconds() - fit.Stats.Seconds
		rep.Phases["solve"] = fit.Stats.Seconds
		rep.Solve = &fit.Stats
		return fit, nil, nil
	}
	tf := time.Now()
	Z, err := learn.Features(fmap, X, n, 0)
	if err != nil {
		return nil, nil, err
	}
	rep.Phases["features"] = time.Since(tf).Seconds()
	ts := time.Now()
	bar := progress.New(s.Progress, s.loss.String()+" iterations", 0)
	fit, err := learn.Classifier{Loss: s.loss, Lambda: s.Lambda, MaxIter: s.MaxIter, Seed: s.Seed, Progress: bar.Add, MaxBytes: s.budget()}.Fit(Z, n, fmap.Features(), cls, P)
	bar.Done()
	rep.Phases["solve"] = time.Since(ts).Seconds()
	if err != nil {
		return nil, nil, err
	}
	rep.Solve = &fit.Stats
	return fit, nil, nil
}

// fitOVK fits a vector-valued model on the preprocessed inputs X and the targets Y (n×p).
func (s *settings) fitOVK(h *model.Header, f *model.Model, rep *Report, X []float64, n, d int, Y []float64) error {
	p := len(s.Targets)
	var A *mat.SymDense
	dec := false
	if k, err := ovk.Parse(s.OVK, 1, nil); err != nil || k.Kind() == ovk.Decomposable {
		dec = true
		var err error
		if A, err = outputMatrix(s.A, s.AMatrix, Y, n, p); err != nil {
			return err
		}
	}
	k, err := ovk.Parse(s.OVK, h.Sigma, A)
	if err != nil {
		return err
	}
	if q, err := k.Outputs(d); err != nil {
		return err
	} else if q != p {
		return fmt.Errorf("the %s kernel on %d inputs has %d outputs, but %d target columns are named", s.OVK, d, q, p)
	}
	h.OVK, h.Kernel = k.Name(), "gaussian"
	if dec {
		h.A = append([]float64(nil), A.RawSymmetric().Data...)
	}
	if s.Exact {
		fit, err := vector.KRR{Kernel: k, Lambda: s.Lambda, Intercept: true, MaxBytes: s.budget()}.Fit(X, n, d, Y)
		if err != nil {
			return err
		}
		f.TrainX, f.Alpha, f.Bias = fit.X, fit.Alpha, fit.Bias
		rep.Phases["gram_solve"] = fit.Stats.Seconds
		rep.Solve = &fit.Stats
		return nil
	}
	fm, err := ovk.New(k, s.rule, d, s.Points, s.Seed)
	if err != nil {
		return err
	}
	// The budget was checked (checkBudget); MaxBytes is then the cap of vector's choice to cache the features, which
	// must not depend on the memory free at the moment (pathBudget).
	fit, err := vector.Ridge{Lambda: s.Lambda, Intercept: true, Solver: s.ovkSolver, MaxBytes: s.pathBudget()}.Fit(fm, X, n, Y)
	if err != nil {
		return err
	}
	rep.Phases["solve"] = fit.Stats.Seconds // the method is the report's solve.method (a phase name is snake_case)
	rep.Solve = &fit.Stats
	setORFF(h, f, fm)
	f.Theta, f.Bias = fit.Theta, fit.Bias
	return nil
}

// setORFF stores the explicit parameters of an ORFF map and its probe features in the file.
func setORFF(h *model.Header, f *model.Model, fm *ovk.Map) {
	pp := fm.Params()
	h.Rule, h.Features, h.Rank = pp.Rule, fm.Features(), pp.Rank
	setPoints(h, f, pp.Points)
	f.Scale, f.B = pp.Scale, pp.B
	f.Probe = make([]float64, fm.Outputs()*fm.Features())
	fm.TransformBlock(f.Probe, model.ProbeInput(fm.Dim()), 1, nil)
}

// outputMatrix returns a decomposable kernel's A: the identity, the covariance of the training targets, or given.
func outputMatrix(spec string, given []float64, Y []float64, n, p int) (*mat.SymDense, error) {
	if given != nil {
		if !size.Is(len(given), p, p) {
			return nil, fmt.Errorf("the output matrix A has %d entries for %d outputs", len(given), p)
		}
		for i := range p {
			for j := range p {
				v := given[i*p+j]
				if math.IsNaN(v) || math.IsInf(v, 0) || v != given[j*p+i] {
					return nil, fmt.Errorf("the output matrix A must be symmetric and finite (row %d, column %d)", i+1, j+1)
				}
			}
		}
		return mat.NewSymDense(p, append([]float64(nil), given...)), nil
	}
	switch orDefault(spec, "identity") {
	case "identity":
		A := mat.NewSymDense(p, nil)
		for i := range p {
			A.SetSym(i, i, 1)
		}
		return A, nil
	case "covariance":
		return ovk.OutputCovariance(Y, n, p)
	}
	return nil, fmt.Errorf("output matrix %q: want identity or covariance, or give the matrix", spec)
}

// gradsToScaled converts observed partial derivatives in the raw coordinates to the preprocessed ones:
// ∂f/∂x'_j = (∂f/∂x_j)/c_j for x'_j = a_j + c_j·x_j.
func gradsToScaled(grads []float64, n, d int, sc *dataset.Scaler) ([]float64, error) {
	if !size.Is(len(grads), n, d) {
		return nil, fmt.Errorf("hermite: %d partial derivatives for %d rows × %d columns", len(grads), n, d)
	}
	m := &Model{file: &model.Model{Header: model.Header{Dim: d}}, scaler: sc}
	c := m.inputScale()
	out := make([]float64, len(grads))
	for i, g := range grads {
		if c[i%d] == 0 || math.IsInf(c[i%d], 0) {
			return nil, fmt.Errorf("hermite: input column %d is constant; its derivative cannot be learned", i%d+1)
		}
		out[i] = g / c[i%d]
	}
	return out, nil
}

// nonNumericTarget is the error of a regression on data whose targets are labels: it names the first target that is
// not a number (a target column of numbers with one stray cell, such as 1_000 or n/a, reads as labels).
func nonNumericTarget(data *dataset.Data) error {
	for i, y := range data.Y {
		if k := int(y); k >= 0 && k < len(data.Labels) {
			if _, numeric := dataset.ParseTarget(data.Labels[k]); !numeric {
				return fmt.Errorf("regression needs a numeric target; %q holds %q in data row %d, which is not a number (fix the cell, or use the classification task for class labels)",
					data.TargetName, data.Labels[k], i+1)
			}
		}
	}
	return fmt.Errorf("regression needs a numeric target; %q holds labels such as %q (use the classification task)", data.TargetName, data.Labels[0])
}
