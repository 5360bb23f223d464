package rffbeam

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
)

// SampleFn is the combine of the pass that fetches the rows the median heuristic measures (rff.SampleRows), over
// PCollection<Rows> read with the first pass's results (ReadSpec.NumericTargets): it keeps the rows Want[file],
// indices among the kept rows of the file (Rows.Start). Its output is the encoded rows (DecodeSample).
type SampleFn struct {
	D    int
	Want map[string][]int // ascending
}

// SampleRow is a row of the sample: its file, its index among the file's kept rows, its raw inputs.
type SampleRow struct {
	File  string
	Index int
	X     []float64
}

type sampleAcc struct {
	rows []SampleRow
}

// CreateAccumulator, AddInput, MergeAccumulators and ExtractOutput are SampleFn's methods as a Beam CombineFn.
func (f *SampleFn) CreateAccumulator() *sampleAcc { return &sampleAcc{} }

// AddInput keeps the rows of r that Want names for r.File, with their indices among the file's kept rows. A nil a
// is an empty accumulator.
func (f *SampleFn) AddInput(a *sampleAcc, r Rows) (*sampleAcc, error) {
	d := f.D
	if d < 1 || r.N < 0 || len(r.X) != r.N*d {
		return nil, fmt.Errorf("rffbeam: a block of %d rows with %d inputs for d = %d", r.N, len(r.X), d)
	}
	if a == nil {
		a = &sampleAcc{}
	}
	want := f.Want[r.File]
	k, _ := slices.BinarySearch(want, r.Start)
	for ; k < len(want) && want[k] < r.Start+r.N; k++ {
		i := want[k] - r.Start
		a.rows = append(a.rows, SampleRow{File: r.File, Index: want[k], X: slices.Clone(r.X[i*d : (i+1)*d])})
	}
	return a, nil
}

// MergeAccumulators appends the rows of b to those of a and returns a. A nil accumulator is an empty one.
func (f *SampleFn) MergeAccumulators(a, b *sampleAcc) *sampleAcc {
	switch {
	case b == nil:
		return a
	case a == nil:
		return b
	}
	a.rows = append(a.rows, b.rows...)
	return a
}

// ExtractOutput returns the rows kept, ordered by file and index, encoded for DecodeSample.
func (f *SampleFn) ExtractOutput(a *sampleAcc) []byte { return encodeSampleAcc(a) }

func encodeSampleAcc(a *sampleAcc) []byte {
	if a == nil {
		a = &sampleAcc{}
	}
	rows := slices.Clone(a.rows)
	slices.SortFunc(rows, func(x, y SampleRow) int {
		return cmp.Or(cmp.Compare(x.File, y.File), cmp.Compare(x.Index, y.Index))
	})
	w := &writer{}
	w.int(len(rows))
	for _, r := range rows {
		w.str(r.File)
		w.int(r.Index)
		w.floats(r.X)
	}
	return w.b
}

func decodeSampleAcc(b []byte) (*sampleAcc, error) {
	r := &reader{b: b}
	n := r.count(3) // a row takes at least a byte for its file, its index and its inputs
	a := &sampleAcc{}
	for range n {
		a.rows = append(a.rows, SampleRow{File: r.str(), Index: r.int(math.MaxInt), X: r.floats()})
	}
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("rffbeam: sample: %w", err)
	}
	return a, nil
}

// DecodeSample decodes the output of SampleFn: the rows, ordered by file and index.
func DecodeSample(b []byte) ([]SampleRow, error) {
	a, err := decodeSampleAcc(b)
	if err != nil {
		return nil, err
	}
	return a.rows, nil
}

// rowRef is a row of a file: its index among the file's kept rows.
type rowRef struct {
	file  string
	index int
}

// locate maps indices among the rows of the files concatenated (in the order of files, rows[f] kept rows in file f)
// to files and indices among their rows: one reference per index, in order, and the indices wanted per file,
// ascending.
func locate(files []string, rows map[string]int, idx []int) ([]rowRef, map[string][]int, error) {
	starts := make([]int, len(files)+1)
	for k, f := range files {
		starts[k+1] = starts[k] + rows[f]
	}
	refs := make([]rowRef, 0, len(idx))
	want := map[string][]int{}
	for _, g := range idx {
		k := sort.Search(len(files), func(k int) bool { return starts[k+1] > g }) // starts[k] ≤ g < starts[k+1]
		if g < 0 || k == len(files) {
			return nil, nil, fmt.Errorf("rffbeam: sample row %d beyond the %d rows", g, starts[len(files)])
		}
		refs = append(refs, rowRef{files[k], g - starts[k]})
		want[files[k]] = append(want[files[k]], g-starts[k])
	}
	for f := range want {
		slices.Sort(want[f])
	}
	return refs, want, nil
}
