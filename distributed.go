package rff

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/model"
)

// A fit distributed over many machines (a Beam pipeline, say) makes FitCSV's passes with the data split between
// workers: the first merges column statistics (dataset.ScalerAccumulator.Merge) and class labels; when the bandwidth
// is not given, the rows of SampleRows are fetched and ChooseSigma measures them as FitCSV does; the second maps the
// preprocessed rows through the map of NewMap — drawn on every worker from the seed — and merges their ridge
// statistics (learn.Stats.Merge). FitFromStats then solves and builds the model FitCSV builds.

// DistributedStats are what a distributed fit gathers from its data for FitFromStats.
type DistributedStats struct {
	// Scaler is the preprocessing fitted on every row, with the steps of PreprocessSteps (a
	// dataset.ScalerAccumulator's Scaler).
	Scaler *dataset.Scaler
	// Names are the d input column names; Target is the target column's name ("" means "y").
	Names  []string
	Target string
	// TargetColumn is the target's column in CSV files without a header, counting from 1 (0 when a header names it):
	// the model reads files of the same layout with it (dataset.Data.TargetColumn).
	TargetColumn int
	// Labels are a classifier's class labels in index order, as dataset.NewClasses orders the distinct targets;
	// nil for regression.
	Labels []string
	// Stats are the ridge statistics of the features (NewMap) of the preprocessed rows against their targets:
	// the numbers for regression, the one-hot or simplex codes of the classes (learn.OneHot, learn.SimplexEncode)
	// for classification. FitFromStats consumes them (learn.Ridge.SolveInPlace).
	Stats *learn.Stats
	// TargetShift is a number subtracted from every regression target before it was accumulated — best the
	// targets' mean, from the pass that fits the Scaler — and FitFromStats adds it to the intercept; 0 for none.
	// Targets far from zero lose the digits of their spread in the sums of squares of Stats (Σy² − (Σy)²/N)
	// unless shifted. It must be 0 for classification.
	TargetShift float64
	// Extra is provenance stored in the model file's header (model.Header.Extra), such as rows skipped.
	Extra map[string]any
}

// PreprocessSteps returns the preprocessing steps a fit with cfg fits on its inputs (Config.Preprocess and its
// default), for the scaler of DistributedStats.
func PreprocessSteps(cfg Config) ([]dataset.Step, error) {
	s, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	if hasPCA(s.steps) {
		return nil, dataset.ErrPCAStream
	}
	return s.steps, nil
}

// SampleRows returns the rows whose inputs the median heuristic measures when a fit with cfg on n rows chooses its
// bandwidth (Config.Sigma = 0 on a kernel that has one): their 0-based indices in the order of the rows of the data
// (the files concatenated), listed in the order ChooseSigma takes them. They are the rows FitCSV samples. It returns
// nil when the bandwidth is given or the kernel has none, and an error for n < 0 or n > 2^53. It takes O(n) time
// (a reservoir fed every row index: about 9 ns per row).
func SampleRows(cfg Config, n int) ([]int, error) {
	s, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	if s.Sigma != 0 || isScaleFree(s.Kernel) {
		return nil, nil
	}
	if n < 0 || n > 1<<53 {
		return nil, fmt.Errorf("rff.SampleRows: %d rows: the row indices must be between 0 and 2^53 (the sample keeps them as float64)", n)
	}
	// The sample depends only on the number of rows and the seed: a reservoir fed the row indices keeps the
	// indices of the rows it would keep.
	r := newReservoir(1, s.Seed)
	buf := make([]float64, min(n, 1<<16))
	for i0 := 0; i0 < n; i0 += len(buf) {
		m := min(len(buf), n-i0)
		for i := range m {
			buf[i] = float64(i0 + i)
		}
		r.add(buf[:m], m)
	}
	idx := make([]int, len(r.rows))
	for i, v := range r.rows {
		idx[i] = int(v)
	}
	return idx, nil
}

// ChooseSigma returns the bandwidth FitCSV uses: Config.Sigma when given, 0 for a kernel without one, and otherwise
// the median heuristic on the raw input rows of SampleRows (sample, rows×d in that order) after the preprocessing
// sc. Set it as Config.Sigma for NewMap and FitFromStats.
func ChooseSigma(cfg Config, sample []float64, sc *dataset.Scaler) (float64, error) {
	s, err := cfg.resolve()
	if err != nil {
		return 0, err
	}
	if s.Sigma != 0 || isScaleFree(s.Kernel) {
		return s.Sigma, nil
	}
	if sc == nil {
		return 0, errors.New("no preprocessing: ChooseSigma measures the sample after it (the Scaler of the first pass)")
	}
	if sc.D < 1 || len(sample)%sc.D != 0 {
		return 0, fmt.Errorf("a sample of %d values for the preprocessing of %d inputs", len(sample), sc.D)
	}
	x := slices.Clone(sample)
	sc.Apply(x, len(x)/sc.D, sc.D)
	_, sigma, err := s.kernel(&reservoir{d: sc.D, rows: x})
	return sigma, err
}

// NewMap returns the feature map FitCSV draws for cfg on d inputs: the same Config (seed included) gives the same
// map on every machine, so workers of a distributed fit rebuild it independently. A kernel with a bandwidth needs
// Config.Sigma (ChooseSigma gives FitCSV's default). NewMap applies FitCSV's checks of the configuration (ridge on
// random features with a fixed λ) and of the rounding of SR rules (Config.Fallback), but not the memory budget,
// which depends on how the work is distributed.
func NewMap(cfg Config, d int) (*feature.Map, error) {
	s, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	if err := s.checkStreamed(); err != nil {
		return nil, err
	}
	fmap, _, _, err := s.streamMap(d)
	return fmap, err
}

// FitFromStats solves the ridge statistics of a distributed fit and returns the model FitCSV returns on the same
// rows: the same checks, header and file — byte for byte when the statistics were accumulated in the same order —,
// with the posterior of Config.Uncertainty when asked. The statistics are consumed.
func FitFromStats(cfg Config, ds DistributedStats) (*Model, error) {
	s, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	if err := s.checkStreamed(); err != nil {
		return nil, err
	}
	sc, st := ds.Scaler, ds.Stats
	switch {
	case sc == nil:
		return nil, errors.New("no preprocessing (a Scaler fitted with the steps of PreprocessSteps)")
	case st == nil:
		return nil, errors.New("no ridge statistics")
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	if !slices.Equal(sc.Steps, s.steps) {
		return nil, fmt.Errorf("the scaler was fitted with the steps %v, the configuration asks for %v", sc.Steps, s.steps)
	}
	d := sc.D
	if len(ds.Names) != d {
		return nil, fmt.Errorf("%d input names for %d inputs", len(ds.Names), d)
	}
	if err := st.Validate(); err != nil {
		return nil, err
	}
	if st.N == 0 {
		return nil, errors.New("no data rows")
	}
	classify := s.Task == "classification"
	if classify != (ds.Labels != nil) {
		return nil, fmt.Errorf("a %s fit with %d class labels", s.Task, len(ds.Labels))
	}
	if ds.TargetColumn < 0 || ds.TargetColumn > d+1 {
		return nil, fmt.Errorf("target column %d: want 0 (named by a header) or a position among the %d columns", ds.TargetColumn, d+1)
	}
	var shift []float64
	switch {
	case math.IsNaN(ds.TargetShift) || math.IsInf(ds.TargetShift, 0):
		return nil, fmt.Errorf("target shift %v: want a finite number", ds.TargetShift)
	case classify && ds.TargetShift != 0:
		return nil, errors.New("a target shift belongs to regression: the codes of classes are not shifted")
	case ds.TargetShift != 0:
		shift = []float64{ds.TargetShift}
	}
	P := 1
	if classify {
		K := len(ds.Labels)
		if K < 2 {
			return nil, fmt.Errorf("classification needs at least 2 classes, found %d", K)
		}
		if err := s.checkClasses(K, st.N, "", !numericLabels(ds.Labels)); err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, l := range ds.Labels {
			if l == "" || seen[l] {
				return nil, fmt.Errorf("class label %q is empty or repeated", l)
			}
			seen[l] = true
		}
		if P = K; s.Encoding == "simplex" {
			P = K - 1
		}
	}
	fmap, k, sigma, err := s.streamMap(d)
	if err != nil {
		return nil, err
	}
	if st.F != fmap.Features() || st.P != P {
		return nil, fmt.Errorf("statistics of %d features and %d outputs; the map has %d features and the %s %d outputs",
			st.F, st.P, fmap.Features(), s.Task, P)
	}

	rep := &Report{N: st.N, Phases: map[string]float64{}}
	h := model.Header{Task: s.Task, Kernel: k.Name(), Seed: s.Seed, Dim: d, Intercept: true, Lambda: s.Lambda,
		Preprocess: sc, Names: slices.Clone(ds.Names), Targets: []string{orDefault(ds.Target, "y")}, Outputs: P,
		TargetColumn: ds.TargetColumn}
	if _, ok := k.(kernel.Spectral); ok && !math.IsNaN(sigma) {
		h.Sigma, rep.Sigma = sigma, sigma
	}
	if classify {
		h.Labels, h.Loss, h.Encoding = slices.Clone(ds.Labels), learn.Squared.String(), "onehot"
		if s.Encoding == "simplex" {
			h.Encoding = "simplex"
		}
	}
	if len(ds.Extra) > 0 {
		h.Extra = maps.Clone(ds.Extra)
	}
	return s.solveStats(st, h, fmap, rep, shift)
}

// checkStreamed refuses what a fit from accumulated statistics cannot do, as FitCSV does.
func (s *settings) checkStreamed() error {
	switch {
	case s.Task != "regression" && s.Task != "classification":
		return fmt.Errorf("a streamed or distributed fit is for regression or classification, not %s", s.Task)
	case s.nystrom:
		return errors.New("a distributed fit draws random features from the seed; a Nyström map needs its landmarks from the data (fit it with Fit or FitCSV)")
	case s.Exact || s.OVK != "" || s.CV != 0 || s.Tune || s.loss != learn.Squared || s.precision == learn.Mixed:
		return errors.New("a streamed or distributed fit is ridge on random features with a fixed λ (not exact, vector-valued, cross-validated, tuned, mixed precision or another loss)")
	case hasPCA(s.steps):
		return dataset.ErrPCAStream
	}
	return nil
}

// streamMap draws FitCSV's map on d inputs: the kernel with its bandwidth (given: see ChooseSigma), the rule after
// the rounding check (which may switch to the fallback rule), the form and the seed.
func (s *settings) streamMap(d int) (*feature.Map, kernel.Kernel, float64, error) {
	if d < 1 {
		return nil, nil, 0, fmt.Errorf("%d inputs: want at least 1", d)
	}
	if s.Sigma == 0 && !isScaleFree(s.Kernel) {
		return nil, nil, 0, fmt.Errorf("a distributed fit needs the bandwidth σ of the %s kernel (ChooseSigma gives the median heuristic FitCSV uses)", s.Kernel)
	}
	kind, err := kernel.New(s.Kernel, 1)
	if err != nil {
		return nil, nil, 0, err
	}
	if err := s.checkRounding(d, kind); err != nil {
		return nil, nil, 0, err
	}
	k, sigma, err := s.kernel(&reservoir{d: d})
	if err != nil {
		return nil, nil, 0, err
	}
	fmap, err := feature.New(k, s.rule, d, s.Points, s.Seed, feature.WithForm(s.form))
	if err != nil {
		return nil, nil, 0, err
	}
	return fmap, k, sigma, nil
}

// CheckClasses returns the error Fit and FitCSV return for a classification target with classes distinct values in
// rows rows: more classes than Config.MaxClasses allows (by default 1000, and half the rows) mean the target is
// almost surely continuous.
func CheckClasses(cfg Config, classes, rows int) error {
	s, err := cfg.resolve()
	if err != nil {
		return err
	}
	return s.checkClasses(classes, rows, "", false)
}
