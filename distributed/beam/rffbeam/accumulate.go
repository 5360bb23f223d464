package rffbeam

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/model"
)

// StatsFn is the combine of the second pass, over PCollection<Rows>: it preprocesses the rows, codes their targets,
// maps them through the feature map of rff.NewMap and accumulates the ridge statistics (learn.Stats: ZᵀZ, ZᵀY, Σz,
// Σy, Σy², N). Rows are gathered into batches of BatchRows, each mapped and accumulated by a learn.Accumulator on
// every core of the worker (never one row at a time); accumulators of different bundles are merged with
// learn.Stats.Merge. Between workers an accumulator travels as the packed upper triangle of ZᵀZ in float64
// (F(F+1)/2·8 bytes) and the other sums. Its output is the encoded statistics (DecodeStats). It takes the rows as
// ReadRows with ReadSpec.Scaler = Scaler gives them, checked for values too large for the statistics; rows from
// elsewhere should pass rff.CheckInputMagnitude (after Scaler) and rff.CheckTargetMagnitude first.
type StatsFn struct {
	// Config is the fit's rff.Config in JSON (without its Progress writer), D the input dimension: together they
	// give the feature map (rff.NewMap). Probe holds the features of model.ProbeInput(D) under the driver's map; a
	// worker whose map computes other features (another release of rff) fails.
	Config string
	D      int
	Probe  []float64
	// Scaler is the preprocessing fitted by the first pass.
	Scaler *dataset.Scaler
	// Labels are the class labels in index order (classification; nil for regression). Numeric says that the
	// targets are numbers: a raw target is then coded by its value ("1.0" is class "1"); the reader has skipped
	// NaN and infinite ones (ReadSpec.NumericTargets).
	Labels  []string
	Numeric bool
	// BatchRows is the number of rows mapped at a time (default: one chunk of learn.Accumulator, ChunkRows).
	BatchRows int
	// Shift is subtracted from every regression target before it is accumulated: the targets' mean from the first
	// pass (rff.DistributedStats.TargetShift), so that the sums of squares keep the digits of their spread.
	Shift float64

	cfg   rff.Config
	fmap  *feature.Map
	coder *dataset.Classes
	p     int
}

// NewStatsFn returns the second-pass combine of a fit with cfg on d inputs, after a first pass that gave the
// preprocessing sc and, for classification, the labels (numeric: the targets are numbers). It draws the map once
// to record its probe features.
func NewStatsFn(cfg rff.Config, d int, sc *dataset.Scaler, labels []string, numeric bool) (*StatsFn, error) {
	cfg.Progress = nil
	fmap, err := rff.NewMap(cfg, d)
	if err != nil {
		return nil, err
	}
	js, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	f := &StatsFn{Config: string(js), D: d, Scaler: sc, Labels: labels, Numeric: numeric}
	f.Probe = make([]float64, fmap.Features())
	fmap.TransformBlock(f.Probe, model.ProbeInput(d), 1, nil)
	return f, f.Setup()
}

// Setup draws the map and checks it against the driver's probe features.
func (f *StatsFn) Setup() error {
	if f.fmap != nil {
		return nil
	}
	if err := json.Unmarshal([]byte(f.Config), &f.cfg); err != nil {
		return fmt.Errorf("rffbeam: the configuration: %w", err)
	}
	fmap, err := rff.NewMap(f.cfg, f.D)
	if err != nil {
		return err
	}
	probe := make([]float64, fmap.Features())
	fmap.TransformBlock(probe, model.ProbeInput(f.D), 1, nil)
	if len(probe) != len(f.Probe) {
		return fmt.Errorf("rffbeam: the worker's feature map has %d features, the driver's %d", len(probe), len(f.Probe))
	}
	for j, v := range probe {
		// Features are bounded by √(2w) ≤ 2; the same release draws the same points on every machine, up to the
		// fused multiply-adds some architectures use.
		if math.Abs(v-f.Probe[j]) > 1e-12 {
			return fmt.Errorf("rffbeam: the worker's feature map differs from the driver's (feature %d: %v, driver %v): run the same release of rff on both", j+1, v, f.Probe[j])
		}
	}
	if f.Scaler == nil || f.Scaler.D != f.D {
		return fmt.Errorf("rffbeam: the second pass needs a scaler of %d inputs", f.D)
	}
	f.p = 1
	if f.Labels != nil {
		K := len(f.Labels)
		if K < 2 {
			return fmt.Errorf("rffbeam: %d class labels", K)
		}
		f.coder = dataset.ClassesNamed(f.Labels)
		if f.p = K; f.cfg.Encoding == "simplex" {
			f.p = K - 1
		}
	}
	f.fmap = fmap
	return nil
}

// Features is F, the number of features of the map.
func (f *StatsFn) Features() int { return len(f.Probe) }

// Outputs is P, the number of coded targets.
func (f *StatsFn) Outputs() int {
	if f.Labels == nil {
		return 1
	}
	if f.cfg.Encoding == "simplex" {
		return len(f.Labels) - 1
	}
	return len(f.Labels)
}

func (f *StatsFn) batchRows() int {
	if f.BatchRows > 0 {
		return f.BatchRows
	}
	return ChunkRows(len(f.Probe))
}

// statsAcc is StatsFn's accumulator: the statistics merged so far, the learn.Accumulator of the current bundle and
// the rows waiting for a full batch.
type statsAcc struct {
	fn   *StatsFn // nil for a decoded accumulator, which has nothing pending
	acc  *learn.Accumulator
	st   *learn.Stats
	x, y []float64 // pending rows: preprocessed inputs and coded targets
	n    int
}

// CreateAccumulator, AddInput, MergeAccumulators and ExtractOutput are StatsFn's methods as a Beam CombineFn.
func (f *StatsFn) CreateAccumulator() (*statsAcc, error) {
	if err := f.Setup(); err != nil {
		return nil, err
	}
	return &statsAcc{fn: f}, nil
}

// AddInput preprocesses the rows of r with the Scaler and codes their targets (one-hot or simplex for
// classification), adds them to the rows pending in a, and maps and accumulates the pending rows once there are
// BatchRows of them. A class label not among Labels is an error: the input changed between the passes. A nil a is
// an empty accumulator.
func (f *StatsFn) AddInput(a *statsAcc, r Rows) (*statsAcc, error) {
	if err := f.Setup(); err != nil {
		return nil, err
	}
	d, P := f.D, f.p
	if r.N < 0 || len(r.X) != r.N*d || (f.Labels != nil && len(r.T) != r.N) || (f.Labels == nil && len(r.Y) != r.N) {
		return nil, fmt.Errorf("rffbeam: a block of %d rows with %d inputs, %d targets and %d labels for d = %d", r.N, len(r.X), len(r.Y), len(r.T), d)
	}
	if a == nil {
		a = &statsAcc{}
	}
	if a.fn == nil {
		a.fn = f
	}
	n0 := a.n
	if f.Labels == nil {
		a.x = append(a.x, r.X...)
		for _, y := range r.Y {
			a.y = append(a.y, y-f.Shift)
		}
		a.n += r.N
	} else {
		cls := make([]int, 0, r.N)
		for i, t := range r.T {
			key := t
			if f.Numeric {
				v, _ := dataset.ParseTarget(t)
				key = dataset.ClassNumber(v) // −0 is the class 0, as in rff fit
			}
			k, ok := f.coder.Class(key)
			if !ok {
				return nil, dataError("label %q was not seen in the first pass: the input changed between the passes", t)
			}
			cls = append(cls, k)
			a.x = append(a.x, r.X[i*d:(i+1)*d]...)
		}
		if len(cls) > 0 {
			if f.cfg.Encoding == "simplex" {
				a.y = append(a.y, learn.SimplexEncode(cls, len(f.Labels))...)
			} else {
				a.y = append(a.y, learn.OneHot(cls, len(f.Labels), false)...)
			}
		}
		a.n += len(cls)
	}
	f.Scaler.Apply(a.x[n0*d:], a.n-n0, d)
	if len(a.y) != a.n*P {
		return nil, fmt.Errorf("rffbeam: %d coded targets for %d rows × %d outputs", len(a.y), a.n, P)
	}
	if a.n >= f.batchRows() {
		if err := a.flush(); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// flush maps and accumulates the pending rows.
func (a *statsAcc) flush() error {
	if a.n == 0 {
		return nil
	}
	f := a.fn
	if a.acc == nil {
		acc, err := learn.NewAccumulator(f.fmap, f.p)
		if err != nil {
			return fmt.Errorf("rffbeam: %w", err)
		}
		a.acc = acc
	}
	if err := a.acc.Add(a.x[:a.n*f.D], a.n, a.y[:a.n*f.p]); err != nil {
		return fmt.Errorf("rffbeam: %w", err)
	}
	a.x, a.y, a.n = a.x[:0], a.y[:0], 0
	return nil
}

// fold flushes the pending rows and merges the bundle's accumulator into the statistics.
func (a *statsAcc) fold() error {
	if err := a.flush(); err != nil {
		return err
	}
	a.x, a.y = nil, nil
	if a.acc == nil {
		return nil
	}
	st, err := a.acc.Stats()
	a.acc = nil
	if err != nil {
		return fmt.Errorf("rffbeam: %w", err)
	}
	if a.st == nil {
		a.st = st
		return nil
	}
	if err := a.st.Merge(st); err != nil {
		return fmt.Errorf("rffbeam: %w", err)
	}
	return nil
}

// MergeAccumulators accumulates the rows pending in a and b and merges b's statistics into a's
// (learn.Stats.Merge); it returns a. A nil accumulator is an empty one.
func (f *StatsFn) MergeAccumulators(a, b *statsAcc) (*statsAcc, error) {
	switch {
	case a == nil && b == nil:
		return &statsAcc{fn: f}, nil
	case b == nil:
		b = &statsAcc{}
	case a == nil:
		a = &statsAcc{fn: f}
	}
	if err := a.fold(); err != nil {
		return nil, err
	}
	if err := b.fold(); err != nil {
		return nil, err
	}
	switch {
	case b.st == nil:
	case a.st == nil:
		a.st = b.st
	default:
		if err := a.st.Merge(b.st); err != nil {
			return nil, fmt.Errorf("rffbeam: %w", err)
		}
	}
	b.st = nil
	return a, nil
}

// ExtractOutput accumulates the rows pending in a and returns its statistics encoded, for DecodeStats: the
// packed upper triangle of ZᵀZ and the other sums, or no statistics (DecodeStats returns nil) when no rows were
// added.
func (f *StatsFn) ExtractOutput(a *statsAcc) ([]byte, error) {
	return encodeStatsAcc(a)
}

// encodeStatsAcc and decodeStatsAcc are the coder of StatsFn's accumulator, and its output.
//
// Layout: F, P and N (varints; F = 0 for no statistics), then float64 values little-endian: the
// upper triangle of ZᵀZ row by row (F(F+1)/2 values), ZᵀY (F×P), Σz (F), Σy (P), Σy² (P).
func encodeStatsAcc(a *statsAcc) ([]byte, error) {
	if a == nil {
		a = &statsAcc{}
	}
	if err := a.fold(); err != nil {
		return nil, err
	}
	st := a.st
	w := &writer{}
	if st == nil {
		w.int(0)
		w.int(0)
		w.int(0)
		return w.b, nil
	}
	F, P := st.F, st.P
	w.b = make([]byte, 0, 40+8*(F*(F+1)/2+F*P+F+2*P))
	w.int(F)
	w.int(P)
	w.int(st.N)
	for i := range F {
		for _, v := range st.ZtZ[i*F+i : (i+1)*F] {
			w.float(v)
		}
	}
	for _, s := range [][]float64{st.ZtY, st.SumZ, st.SumY, st.SumYY} {
		for _, v := range s {
			w.float(v)
		}
	}
	return w.b, nil
}

func decodeStatsAcc(b []byte) (*statsAcc, error) {
	r := &reader{b: b}
	F, P := r.int(1<<20), r.int(1<<20)
	N := r.int(math.MaxInt)
	a := &statsAcc{}
	if r.err == nil && F == 0 {
		if err := r.done(); err != nil {
			return nil, fmt.Errorf("rffbeam: second-pass accumulator: %w", err)
		}
		return a, nil
	}
	if r.err == nil && (P == 0 || len(r.b) != 8*(F*(F+1)/2+F*P+F+2*P)) {
		r.fail(fmt.Sprintf("%d bytes for F = %d, P = %d", len(r.b), F, P))
	}
	if r.err != nil {
		return nil, fmt.Errorf("rffbeam: second-pass accumulator: %w", r.err)
	}
	st := &learn.Stats{F: F, P: P, N: N, ZtZ: make([]float64, F*F), ZtY: make([]float64, F*P), SumZ: make([]float64, F),
		SumY: make([]float64, P), SumYY: make([]float64, P)}
	for i := range F {
		r.floatsInto(st.ZtZ[i*F+i : (i+1)*F])
	}
	for _, s := range [][]float64{st.ZtY, st.SumZ, st.SumY, st.SumYY} {
		r.floatsInto(s)
	}
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("rffbeam: second-pass accumulator: %w", err)
	}
	a.st = st
	return a, nil
}

// DecodeStats decodes the output of StatsFn: the ridge statistics (ZᵀZ in its upper triangle, as the solvers read
// it), or nil when no rows were accumulated.
func DecodeStats(b []byte) (*learn.Stats, error) {
	a, err := decodeStatsAcc(b)
	if err != nil {
		return nil, err
	}
	if a.st != nil {
		if err := a.st.Validate(); err != nil {
			return nil, fmt.Errorf("rffbeam: second-pass result: %w", err)
		}
	}
	return a.st, nil
}

var errNoStats = errors.New("no rows were accumulated")
