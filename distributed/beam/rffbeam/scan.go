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
	// MaxLabels is the number of distinct labels collected before the target is declared continuous (default
	// 1000, like rff's class limit).
	MaxLabels int
}

// Scan is the result of the first pass.
type Scan struct {
	D    int
	Rows int // rows kept (parsed and, for classification, with a usable label)
	// Moments are the column statistics of the rows kept.
	Moments dataset.ScalerMoments
	// Labels are the distinct raw targets (classification), sorted; Numeric says that every one is a number.
	// TooManyLabels is set, and Labels nil, when there were more than ScanFn.MaxLabels.
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
}

// scanAcc is ScanFn's accumulator. Rows whose target is a NaN or infinite number are kept apart (side) until the
// end, when it is known whether every target is a number (then they are bad rows) or some are not (then every
// target is a class label, those included).
type scanAcc struct {
	main, side         *dataset.ScalerAccumulator
	labels, sideLabels map[string]bool
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

func newScanAcc(d int) *scanAcc {
	return &scanAcc{main: dataset.NewScalerAccumulator(d), side: dataset.NewScalerAccumulator(d),
		labels: map[string]bool{}, sideLabels: map[string]bool{}, files: map[string][2]int{}}
}

// CreateAccumulator, AddInput, MergeAccumulators and ExtractOutput are ScanFn's methods as a Beam CombineFn.
func (f *ScanFn) CreateAccumulator() *scanAcc { return newScanAcc(f.D) }

// AddInput adds the rows of r to the column statistics of a, counts them for their file and counts the bad rows the
// reader skipped; for classification it collects the targets as labels, keeping apart the rows whose target is a
// NaN or infinite number until ExtractOutput knows whether every target is a number.
func (f *ScanFn) AddInput(a *scanAcc, r Rows) (*scanAcc, error) {
	d := f.D
	if len(r.X) != r.N*d || (f.Classify && len(r.T) != r.N) || (!f.Classify && len(r.Y) != r.N) {
		return nil, fmt.Errorf("rffbeam: a block of %d rows with %d inputs, %d targets and %d labels for d = %d", r.N, len(r.X), len(r.Y), len(r.T), d)
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

func (a *scanAcc) addLabel(set map[string]bool, t string, limit int) {
	if a.tooMany {
		return
	}
	set[t] = true
	if len(a.labels)+len(a.sideLabels) > limit {
		a.tooMany = true
		clear(a.labels)
		clear(a.sideLabels)
	}
}

// MergeAccumulators merges b into a — the column statistics (dataset.ScalerAccumulator.Merge), the labels, the rows
// per file and the skipped rows, keeping the first in the order of files and lines — and returns a.
func (f *ScanFn) MergeAccumulators(a, b *scanAcc) (*scanAcc, error) {
	if err := a.main.Merge(b.main); err != nil {
		return nil, fmt.Errorf("rffbeam: %w", err)
	}
	if err := a.side.Merge(b.side); err != nil {
		return nil, fmt.Errorf("rffbeam: %w", err)
	}
	a.tooMany = a.tooMany || b.tooMany
	for l := range b.labels {
		a.addLabel(a.labels, l, f.maxLabels())
	}
	for l := range b.sideLabels {
		a.addLabel(a.sideLabels, l, f.maxLabels())
	}
	if a.tooMany {
		clear(a.labels)
		clear(a.sideLabels)
	}
	a.nonNumeric = a.nonNumeric || b.nonNumeric
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
	s, err := a.scan(f.Classify)
	if err != nil {
		return nil, err
	}
	return EncodeScan(s), nil
}

// scan resolves the rows kept apart: class labels when some target is not a number, bad rows otherwise.
func (a *scanAcc) scan(classify bool) (*Scan, error) {
	main := a.main
	labels := a.labels
	s := &Scan{Skipped: a.skipped, First: a.first, Numeric: !a.nonNumeric, TooManyLabels: a.tooMany,
		FileRows: map[string]int{}}
	for f, c := range a.files {
		if s.FileRows[f] = c[0]; a.nonNumeric {
			s.FileRows[f] += c[1]
		}
	}
	if a.nonNumeric {
		if err := main.Merge(a.side); err != nil {
			return nil, fmt.Errorf("rffbeam: %w", err)
		}
		labels = maps.Clone(labels)
		maps.Copy(labels, a.sideLabels)
	} else {
		s.NonFinite, s.FirstNonFinite = a.side.Rows(), a.firstSide
	}
	s.Moments = main.Moments()
	s.D, s.Rows = len(s.Moments.Mean), main.Rows()
	if classify && !a.tooMany {
		s.Labels = slices.Sorted(maps.Keys(labels))
	}
	return s, nil
}

// encodeScanAcc and decodeScanAcc are the coder of ScanFn's accumulator.
func encodeScanAcc(a *scanAcc) []byte {
	w := &writer{}
	encodeMoments(w, a.main.Moments())
	encodeMoments(w, a.side.Moments())
	w.strs(slices.Sorted(maps.Keys(a.labels)))
	w.strs(slices.Sorted(maps.Keys(a.sideLabels)))
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
	mm, sm := decodeMoments(r), decodeMoments(r)
	labels, side := r.strs(), r.strs()
	flags := r.int(3)
	a := &scanAcc{labels: map[string]bool{}, sideLabels: map[string]bool{}, tooMany: flags&1 != 0, nonNumeric: flags&2 != 0}
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
	if a.main, err = dataset.NewScalerAccumulatorFrom(mm); err != nil {
		return nil, fmt.Errorf("rffbeam: first-pass accumulator: %w", err)
	}
	if a.side, err = dataset.NewScalerAccumulatorFrom(sm); err != nil {
		return nil, fmt.Errorf("rffbeam: first-pass accumulator: %w", err)
	}
	for _, l := range labels {
		a.labels[l] = true
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

// EncodeScan and DecodeScan encode the result of the first pass, the output of ScanFn.
func EncodeScan(s *Scan) []byte {
	w := &writer{}
	w.int(s.D)
	w.int(s.Rows)
	encodeMoments(w, s.Moments)
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
	return w.b
}

// DecodeScan decodes the output of ScanFn.
func DecodeScan(b []byte) (*Scan, error) {
	r := &reader{b: b}
	s := &Scan{D: r.int(math.MaxInt32), Rows: r.int(math.MaxInt)}
	s.Moments = decodeMoments(r)
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
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("rffbeam: first-pass result: %w", err)
	}
	if len(s.Labels) == 0 {
		s.Labels = nil
	}
	return s, nil
}
