package rffbeam

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/rffkit/rff/dataset"
)

// ScanFn is the combine of the first pass, over PCollection<Rows>: the column statistics that fit the
// preprocessing (count, mean and M2 merged by the update of Chan, Golub and LeVeque, minimum and maximum:
// dataset.ScalerAccumulator), the distinct class labels, and the bad rows skipped. Its output is an encoded Scan
// (DecodeScan).
type ScanFn struct {
	D        int  // input dimension
	Classify bool // collect the targets as class labels
	// MaxLabels is the number of classes beyond which the target is declared continuous (default 1000, like rff's
	// class limit; Scan.TooManyLabels).
	MaxLabels int
}

// Scan is the result of the first pass.
type Scan struct {
	D    int
	Rows int // rows kept (parsed and, for classification, with a usable label)
	// Moments are the column statistics of the rows kept. Wide lists the columns (0-based, ascending) whose mean
	// or spread Σ(x − mean)² overflowed floating point (values near ±1.8e308, or spreads beyond 1e154): their Mean
	// holds the column's minimum and their M2 zero, placeholders that Scaler never lets into a scaler.
	Moments dataset.ScalerMoments
	Wide    []int
	// Labels are the distinct raw targets (classification), sorted; Numeric says that every one is a number.
	// TooManyLabels is set, and Labels nil, when they make more than ScanFn.MaxLabels classes (numbers that are
	// equal are one class while every label is a number), or are more than max(8·MaxLabels, 65536) distinct raw
	// strings.
	Labels        []string
	Numeric       bool
	TooManyLabels bool
	// Skipped counts the rows skipped as bad (ReadSpec.SkipBadRows), First is the first of them.
	Skipped int
	First   RowError
	// NonFinite counts the rows of a classification whose targets are all numbers but whose target is a NaN or
	// infinite number: errors, or skipped rows with ReadSpec.SkipBadRows. They are not in Rows and Moments.
	NonFinite      int
	FirstNonFinite RowError
	// FileRows counts the rows kept in each file.
	FileRows map[string]int
	// TargetSum is the sum of a regression's targets over the rows kept: their mean is subtracted from the targets
	// before the second pass accumulates them (StatsFn.Shift).
	TargetSum float64
}

// scanAcc is ScanFn's accumulator. Rows whose target is a NaN or infinite number are kept apart (side) until the
// end, when it is known whether every target is a number (then they are bad rows) or some are not (then every
// target is a class label, those included).
type scanAcc struct {
	main, side         *dataset.ScalerAccumulator
	mainWide, sideWide []bool  // columns whose moments overflowed (Scan.Wide), or nil
	ySum               float64 // the regression targets' sum (Scan.TargetSum)
	labels, sideLabels map[string]bool
	numClasses         map[string]bool // the classes of the numeric labels (dataset.ClassNumber: 1, 1.0 and 01 are one)
	tooMany            bool
	nonNumeric         bool
	skipped            int
	first              RowError
	firstSide          RowError
	files              map[string][2]int // rows per file: kept, and kept apart
}

func (f *ScanFn) maxLabels() int {
	if f.MaxLabels > 0 {
		return f.MaxLabels
	}
	return 1000
}

func newScanAcc(d int) (*scanAcc, error) {
	if d < 1 {
		return nil, fmt.Errorf("rffbeam: the first pass needs at least 1 input column, got D = %d", d)
	}
	return &scanAcc{main: dataset.NewScalerAccumulator(d), side: dataset.NewScalerAccumulator(d),
		labels: map[string]bool{}, sideLabels: map[string]bool{}, numClasses: map[string]bool{}, files: map[string][2]int{}}, nil
}

// CreateAccumulator, AddInput, MergeAccumulators and ExtractOutput are ScanFn's methods as a Beam CombineFn.
// CreateAccumulator returns an error for D < 1.
func (f *ScanFn) CreateAccumulator() (*scanAcc, error) { return newScanAcc(f.D) }

// AddInput adds the rows of r to the column statistics of a, counts them for their file and counts the bad rows the
// reader skipped; for classification it collects the targets as labels, keeping apart the rows whose target is a
// NaN or infinite number until ExtractOutput knows whether every target is a number. A nil a is an empty
// accumulator.
func (f *ScanFn) AddInput(a *scanAcc, r Rows) (*scanAcc, error) {
	d := f.D
	if r.N < 0 || len(r.X) != r.N*d || (f.Classify && len(r.T) != r.N) || (!f.Classify && len(r.Y) != r.N) {
		return nil, fmt.Errorf("rffbeam: a block of %d rows with %d inputs, %d targets and %d labels for d = %d", r.N, len(r.X), len(r.Y), len(r.T), d)
	}
	if a == nil {
		var err error
		if a, err = newScanAcc(d); err != nil {
			return nil, err
		}
	}
	a.skipped += r.Skipped
	if r.First.before(a.first) {
		a.first = r.First
	}
	if r.FirstNonFinite.before(a.firstSide) {
		a.firstSide = r.FirstNonFinite
	}
	if r.N > 0 {
		c := a.files[r.File]
		c[0] += r.N
		a.files[r.File] = c
	}
	if !f.Classify {
		for _, y := range r.Y[:r.N] {
			a.ySum += y
		}
		return a, addMoments(a.main, r.X, r.N)
	}
	limit := f.maxLabels()
	side := make([]bool, r.N)
	nside := 0
	for i, t := range r.T {
		v, numeric := dataset.ParseTarget(t)
		switch {
		case !numeric:
			a.nonNumeric = true
			a.addLabel(a.labels, t, limit)
		case math.IsNaN(v) || math.IsInf(v, 0):
			side[i] = true
			nside++
			a.addLabel(a.sideLabels, t, limit)
		default:
			a.addLabel(a.labels, t, limit)
		}
	}
	if nside == 0 {
		return a, addMoments(a.main, r.X, r.N)
	}
	c := a.files[r.File]
	c[0] -= nside
	c[1] += nside
	a.files[r.File] = c
	keptX := make([]float64, 0, (r.N-nside)*d)
	sideX := make([]float64, 0, nside*d)
	for i, s := range side {
		if s {
			sideX = append(sideX, r.X[i*d:(i+1)*d]...)
		} else {
			keptX = append(keptX, r.X[i*d:(i+1)*d]...)
		}
	}
	if err := addMoments(a.side, sideX, nside); err != nil {
		return nil, err
	}
	return a, addMoments(a.main, keptX, r.N-nside)
}

func addMoments(acc *dataset.ScalerAccumulator, x []float64, n int) error {
	if err := acc.Add(x, n); err != nil {
		return fmt.Errorf("rffbeam: %w", err)
	}
	return nil
}

// addLabel adds the raw label t to set (a.labels, or a.sideLabels for NaN and infinite numbers) and checks the limit.
func (a *scanAcc) addLabel(set map[string]bool, t string, limit int) {
	if a.tooMany {
		return
	}
	set[t] = true
	if v, ok := dataset.ParseTarget(t); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
		a.numClasses[dataset.ClassNumber(v)] = true
	}
	a.checkLimit(limit)
}

// checkLimit sets tooMany, and drops the labels, when they make more than limit classes: the distinct numbers while
// every label is one (NaN and infinite targets are then bad rows, not classes), the distinct raw labels once one is
// not a number (rff fit's classes either way) — or when there are more raw spellings than max(8·limit, 65536),
// which bounds the memory whatever they spell.
func (a *scanAcc) checkLimit(limit int) {
	raw := len(a.labels) + len(a.sideLabels)
	classes := len(a.numClasses)
	if a.nonNumeric {
		classes = raw
	}
	if classes > limit || raw > max(8*limit, 1<<16) {
		a.tooMany = true
	}
	if a.tooMany {
		clear(a.labels)
		clear(a.sideLabels)
		clear(a.numClasses)
	}
}

// MergeAccumulators merges b into a — the column statistics (dataset.ScalerAccumulator.Merge), the labels, the rows
// per file and the skipped rows, keeping the first in the order of files and lines — and returns a. A nil
// accumulator is an empty one.
func (f *ScanFn) MergeAccumulators(a, b *scanAcc) (*scanAcc, error) {
	switch {
	case b == nil:
		return a, nil
	case a == nil:
		return b, nil
	}
	if err := a.main.Merge(b.main); err != nil {
		return nil, fmt.Errorf("rffbeam: %w", err)
	}
	if err := a.side.Merge(b.side); err != nil {
		return nil, fmt.Errorf("rffbeam: %w", err)
	}
	a.mainWide, a.sideWide = orWide(a.mainWide, b.mainWide), orWide(a.sideWide, b.sideWide)
	a.tooMany = a.tooMany || b.tooMany
	a.nonNumeric = a.nonNumeric || b.nonNumeric
	a.ySum += b.ySum
	for l := range b.labels {
		a.addLabel(a.labels, l, f.maxLabels())
	}
	for l := range b.sideLabels {
		a.addLabel(a.sideLabels, l, f.maxLabels())
	}
	a.checkLimit(f.maxLabels())
	a.skipped += b.skipped
	for f, c := range b.files {
		ac := a.files[f]
		a.files[f] = [2]int{ac[0] + c[0], ac[1] + c[1]}
	}
	if b.first.before(a.first) {
		a.first = b.first
	}
	if b.firstSide.before(a.firstSide) {
		a.firstSide = b.firstSide
	}
	return a, nil
}

// ExtractOutput resolves the rows kept apart — class labels when some target is not a number, bad rows
// (Scan.NonFinite) otherwise — and returns the Scan encoded (EncodeScan).
func (f *ScanFn) ExtractOutput(a *scanAcc) ([]byte, error) {
	if a == nil {
		var err error
		if a, err = newScanAcc(f.D); err != nil {
			return nil, err
		}
	}
	s, err := a.scan(f.Classify)
	if err != nil {
		return nil, err
	}
	return EncodeScan(s), nil
}

// scan resolves the rows kept apart: class labels when some target is not a number, bad rows otherwise.
func (a *scanAcc) scan(classify bool) (*Scan, error) {
	main, wide := a.main, a.mainWide
	labels := a.labels
	s := &Scan{Skipped: a.skipped, First: a.first, Numeric: !a.nonNumeric, TooManyLabels: a.tooMany,
		FileRows: map[string]int{}, TargetSum: a.ySum}
	for f, c := range a.files {
		if s.FileRows[f] = c[0]; a.nonNumeric {
			s.FileRows[f] += c[1]
		}
	}
	if a.nonNumeric {
		if err := main.Merge(a.side); err != nil {
			return nil, fmt.Errorf("rffbeam: %w", err)
		}
		wide = orWide(wide, a.sideWide)
		labels = maps.Clone(labels)
		maps.Copy(labels, a.sideLabels)
	} else {
		s.NonFinite, s.FirstNonFinite = a.side.Rows(), a.firstSide
	}
	var w []bool
	s.Moments, w = finiteMoments(main.Moments(), wide)
	for j, b := range w {
		if b {
			s.Wide = append(s.Wide, j)
		}
	}
	s.D, s.Rows = len(s.Moments.Mean), main.Rows()
	if classify && !a.tooMany {
		s.Labels = slices.Sorted(maps.Keys(labels))
	}
	return s, nil
}

// encodeScanAcc and decodeScanAcc are the coder of ScanFn's accumulator.
func encodeScanAcc(a *scanAcc) []byte {
	w := &writer{}
	if a == nil {
		a = &scanAcc{} // no columns: decodes to an error, as any accumulator without them
	}
	encodeAccMoments(w, a.main, a.mainWide)
	encodeAccMoments(w, a.side, a.sideWide)
	w.strs(slices.Sorted(maps.Keys(a.labels)))
	w.strs(slices.Sorted(maps.Keys(a.sideLabels)))
	w.float(a.ySum)
	flags := 0
	if a.tooMany {
		flags |= 1
	}
	if a.nonNumeric {
		flags |= 2
	}
	w.int(flags)
	w.int(a.skipped)
	encodeRowError(w, a.first)
	encodeRowError(w, a.firstSide)
	files := slices.Sorted(maps.Keys(a.files))
	w.strs(files)
	for _, f := range files {
		w.int(a.files[f][0])
		w.int(a.files[f][1])
	}
	return w.b
}

func decodeScanAcc(b []byte) (*scanAcc, error) {
	r := &reader{b: b}
	mm, mw := decodeMoments(r), decodeWide(r)
	sm, sw := decodeMoments(r), decodeWide(r)
	labels, side := r.strs(), r.strs()
	ySum := r.float()
	flags := r.int(3)
	a := &scanAcc{labels: map[string]bool{}, sideLabels: map[string]bool{}, numClasses: map[string]bool{}, tooMany: flags&1 != 0,
		nonNumeric: flags&2 != 0}
	a.ySum = ySum
	a.skipped = r.int(math.MaxInt)
	a.first, a.firstSide = decodeRowError(r), decodeRowError(r)
	a.files = map[string][2]int{}
	for _, f := range r.strs() {
		a.files[f] = [2]int{r.int(math.MaxInt), r.int(math.MaxInt)}
	}
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("rffbeam: first-pass accumulator: %w", err)
	}
	var err error
	if a.main, a.mainWide, err = accumulatorFrom(mm, mw); err != nil {
		return nil, fmt.Errorf("rffbeam: first-pass accumulator: %w", err)
	}
	if a.side, a.sideWide, err = accumulatorFrom(sm, sw); err != nil {
		return nil, fmt.Errorf("rffbeam: first-pass accumulator: %w", err)
	}
	if a.main.Moments().Mean == nil || len(a.side.Moments().Mean) != len(a.main.Moments().Mean) {
		return nil, fmt.Errorf("rffbeam: first-pass accumulator: %w: moments of %d and %d columns", errCorrupt,
			len(a.main.Moments().Mean), len(a.side.Moments().Mean))
	}
	for _, l := range labels {
		a.labels[l] = true
		if v, ok := dataset.ParseTarget(l); ok {
			a.numClasses[dataset.ClassNumber(v)] = true
		}
	}
	for _, l := range side {
		a.sideLabels[l] = true
	}
	return a, nil
}

func encodeMoments(w *writer, m dataset.ScalerMoments) {
	w.int(m.N)
	w.floats(m.Mean)
	w.floats(m.M2)
	w.floats(m.Min)
	w.floats(m.Max)
}

func decodeMoments(r *reader) dataset.ScalerMoments {
	return dataset.ScalerMoments{N: r.int(math.MaxInt), Mean: r.floats(), M2: r.floats(), Min: r.floats(), Max: r.floats()}
}

// encodeAccMoments writes the moments of acc with its wide columns (finiteMoments), or those of no columns for a
// nil acc.
func encodeAccMoments(w *writer, acc *dataset.ScalerAccumulator, wide []bool) {
	var m dataset.ScalerMoments
	if acc != nil {
		m, wide = finiteMoments(acc.Moments(), wide)
	}
	encodeMoments(w, m)
	encodeWide(w, wide)
}

// encodeWide writes the wide columns: their number and their indices, ascending.
func encodeWide(w *writer, wide []bool) {
	var cols []int
	for j, b := range wide {
		if b {
			cols = append(cols, j)
		}
	}
	w.int(len(cols))
	for _, j := range cols {
		w.int(j)
	}
}

func decodeWide(r *reader) []int {
	n := r.count(1)
	if r.err != nil || n == 0 {
		return nil
	}
	cols := make([]int, n)
	for i := range cols {
		cols[i] = r.int(math.MaxInt32)
	}
	return cols
}

// accumulatorFrom rebuilds an accumulator from decoded moments and wide columns (each must name a column).
func accumulatorFrom(m dataset.ScalerMoments, cols []int) (*dataset.ScalerAccumulator, []bool, error) {
	wide := make([]bool, len(m.Mean))
	for _, j := range cols {
		if j >= len(wide) {
			return nil, nil, fmt.Errorf("%w: wide column %d of %d", errCorrupt, j+1, len(wide))
		}
		wide[j] = true
	}
	m, wide = finiteMoments(m, wide)
	acc, err := dataset.NewScalerAccumulatorFrom(m)
	if err != nil {
		return nil, nil, err
	}
	return acc, wideOrNil(wide), nil
}

// finiteMoments returns a copy of m in which the columns whose mean or M2 is not finite — the spread or the sum
// of values of a column overflowed floating point — hold the placeholders of Scan.Wide (the minimum as the mean,
// M2 = 0), and the wide columns: those of wide and these.
func finiteMoments(m dataset.ScalerMoments, wide []bool) (dataset.ScalerMoments, []bool) {
	d := len(m.Mean)
	out := dataset.ScalerMoments{N: m.N, Mean: slices.Clone(m.Mean), M2: slices.Clone(m.M2), Min: slices.Clone(m.Min),
		Max: slices.Clone(m.Max)}
	if len(m.M2) != d || len(m.Min) != d {
		return out, wideOrNil(wide) // inconsistent: NewScalerAccumulatorFrom says so
	}
	var w []bool
	for j := range d {
		if (j < len(wide) && wide[j]) || !isFinite(m.Mean[j]) || !isFinite(m.M2[j]) {
			if w == nil {
				w = make([]bool, d)
			}
			w[j] = true
			out.Mean[j], out.M2[j] = m.Min[j], 0
		}
	}
	return out, w
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// orWide returns the union of two sets of wide columns.
func orWide(a, b []bool) []bool {
	if len(b) == 0 {
		return a
	}
	out := make([]bool, max(len(a), len(b)))
	for j := range out {
		out[j] = (j < len(a) && a[j]) || (j < len(b) && b[j])
	}
	return out
}

func wideOrNil(w []bool) []bool {
	if slices.Contains(w, true) {
		return w
	}
	return nil
}

// Scaler fits the preprocessing steps from the moments, as dataset.ScalerAccumulator.Scaler does on the rows. A
// wide column (Scan.Wide) is refused, with the error dataset.FitScaler gives for such a column, when a step needs
// its mean or spread — standardize, isotropic —, as rff refuses it; steps that need only its extremes (minmax,
// maxscale, none) fit as they would in rff.
func (s *Scan) Scaler(steps []dataset.Step) (*dataset.Scaler, error) {
	fit := func(placeholder []float64) (*dataset.Scaler, error) {
		m := dataset.ScalerMoments{N: s.Moments.N, Mean: slices.Clone(s.Moments.Mean), M2: slices.Clone(s.Moments.M2),
			Min: s.Moments.Min, Max: s.Moments.Max}
		for _, j := range s.Wide {
			if j < 0 || j >= len(m.Mean) || j >= len(placeholder) {
				return nil, fmt.Errorf("rffbeam: wide column %d of %d", j+1, len(m.Mean))
			}
			m.Mean[j], m.M2[j] = placeholder[j], 0
		}
		acc, err := dataset.NewScalerAccumulatorFrom(m)
		if err != nil {
			return nil, err
		}
		return acc.Scaler(steps)
	}
	sc, err := fit(s.Moments.Min)
	if err != nil || len(s.Wide) == 0 {
		return sc, err
	}
	// A step reads the mean of a wide column when moving its placeholder from the minimum to the maximum changes
	// the step's parameters (every step that reads a spread reads the mean too).
	alt, err := fit(s.Moments.Max)
	if err != nil {
		return nil, err
	}
	for k, p := range sc.Params {
		q := alt.Params[k]
		for _, j := range s.Wide {
			if j < min(len(p.Shift), len(q.Shift), len(p.Scale), len(q.Scale)) && (p.Shift[j] != q.Shift[j] || p.Scale[j] != q.Scale[j]) {
				return nil, overflowError(p.Step, j, sc.D)
			}
		}
	}
	return sc, nil
}

// overflowError is the error dataset.FitScaler gives when the step meets column j of d spanning too wide a range
// (its values at ±math.MaxFloat64).
func overflowError(step dataset.Step, j, d int) error {
	x := make([]float64, 2*d)
	x[j], x[d+j] = math.MaxFloat64, -math.MaxFloat64
	if _, err := dataset.FitScaler(x, 2, d, []dataset.Step{step}); err != nil {
		return err
	}
	return fmt.Errorf("preprocess: %s: column %d spans too wide a range for floating point; divide by a power of ten first", step, j+1)
}

// EncodeScan and DecodeScan encode the result of the first pass, the output of ScanFn. A nil s is encoded as an
// empty Scan.
func EncodeScan(s *Scan) []byte {
	if s == nil {
		s = &Scan{}
	}
	w := &writer{}
	w.int(s.D)
	w.int(s.Rows)
	encodeMoments(w, s.Moments)
	w.int(len(s.Wide))
	for _, j := range s.Wide {
		w.int(j)
	}
	w.strs(s.Labels)
	flags := 0
	if s.Numeric {
		flags |= 1
	}
	if s.TooManyLabels {
		flags |= 2
	}
	w.int(flags)
	w.int(s.Skipped)
	encodeRowError(w, s.First)
	w.int(s.NonFinite)
	encodeRowError(w, s.FirstNonFinite)
	files := slices.Sorted(maps.Keys(s.FileRows))
	w.strs(files)
	for _, f := range files {
		w.int(s.FileRows[f])
	}
	w.float(s.TargetSum)
	return w.b
}

// DecodeScan decodes the output of ScanFn.
func DecodeScan(b []byte) (*Scan, error) {
	r := &reader{b: b}
	s := &Scan{D: r.int(math.MaxInt32), Rows: r.int(math.MaxInt)}
	s.Moments = decodeMoments(r)
	s.Wide = decodeWide(r)
	s.Labels = r.strs()
	flags := r.int(3)
	s.Numeric, s.TooManyLabels = flags&1 != 0, flags&2 != 0
	s.Skipped = r.int(math.MaxInt)
	s.First = decodeRowError(r)
	s.NonFinite = r.int(math.MaxInt)
	s.FirstNonFinite = decodeRowError(r)
	s.FileRows = map[string]int{}
	for _, f := range r.strs() {
		s.FileRows[f] = r.int(math.MaxInt)
	}
	s.TargetSum = r.float()
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("rffbeam: first-pass result: %w", err)
	}
	if len(s.Labels) == 0 {
		s.Labels = nil
	}
	for k, j := range s.Wide {
		if j >= len(s.Moments.Mean) || (k > 0 && j <= s.Wide[k-1]) {
			return nil, fmt.Errorf("rffbeam: first-pass result: %w: wide columns %v of %d", errCorrupt, s.Wide, len(s.Moments.Mean))
		}
	}
	return s, nil
}
