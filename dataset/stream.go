package dataset

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/rffkit/rff/internal/size"
)

// CSVStream reads a CSV file block by block, with the parsing rules of [ReadCSV] (delimiter and header detection,
// target selection, BOM, CRLF, quotes), so that data larger than memory can be processed in passes. Open one with
// [OpenCSVStream] and call Next until it returns io.EOF; Close it when done.
//
// Every block is a *Data with the file's Names, TargetName and D. A numeric target gives Y as is; a block whose
// targets are not all numbers carries its own sorted Labels with Y indexing them, exactly as ReadCSV would read that
// block alone. Whether the target of the whole file is numeric is known only at the end ([CSVStream.Numeric]);
// [CSVStream.Target] gives the raw target strings of the last block for callers that need labels consistent across
// blocks.
type CSVStream struct {
	name   string
	rc     io.ReadCloser
	lr     *lineReader
	head   *csvHead
	last   *csvRows
	pend   []pendingRow // data rows among the first two lines, not yet returned
	n      int          // rows returned so far
	eof    bool         // the input is exhausted
	failed error
	limit  int64 // memory budget of a block, in bytes

	numeric bool   // every target so far is a number
	badLine int    // first line with a NaN/Inf numeric target
	badMsg  string // what is wrong with it
}

// OpenCSVStream opens the CSV file at path (gzip-compressed or not) for reading in blocks, with target as in
// [ReadCSV]. It reads the first two lines to detect the delimiter, the header and the target column, and returns
// their errors (empty file, unknown target, no feature columns). Each block is read within the default memory
// budget, DefaultMaxBytes; Options.OpenCSVStream takes the budget from its Options.
func OpenCSVStream(path string, target string) (*CSVStream, error) {
	return Options{Target: target}.OpenCSVStream(path)
}

// OpenCSVStream is the function OpenCSVStream with the target column o.Target and the memory budget o.MaxBytes,
// which bounds each block: Next refuses with a *BudgetError a block whose arrays would take more (ask for fewer
// rows, or raise the budget). The file as a whole may be any size. o.Format and o.Labels are ignored.
func (o Options) OpenCSVStream(path string) (*CSVStream, error) {
	rc, err := Open(path)
	if err != nil {
		return nil, err
	}
	s, err := o.NewCSVStream(rc, path)
	if err != nil {
		rc.Close()
		return nil, err
	}
	s.rc = rc
	return s, nil
}

// NewCSVStream is OpenCSVStream on a reader; name is used in error messages. Close does not close r.
func NewCSVStream(r io.Reader, name string, target string) (*CSVStream, error) {
	return Options{Target: target}.NewCSVStream(r, name)
}

// NewCSVStream is Options.OpenCSVStream on a reader; name is used in error messages. Close does not close r. A nil r
// is an error.
func (o Options) NewCSVStream(r io.Reader, name string) (*CSVStream, error) {
	if r == nil {
		return nil, errNilReader
	}
	limit := limitOf(o.MaxBytes)
	lr := newLineReader(r, name, limit)
	h, err := readCSVHead(lr, name, o.Target)
	if err != nil {
		return nil, err
	}
	s := &CSVStream{name: name, lr: lr, head: h, numeric: true, limit: limit}
	if !h.header {
		s.pend = append(s.pend, pendingRow{h.row1, h.line1})
	}
	if h.row2 != nil { // h.row2 aliases the splitter's buffers: copy it
		s.pend = append(s.pend, pendingRow{cloneFields(h.row2), h.line2})
	}
	h.row1, h.row2 = nil, nil
	return s, nil
}

type pendingRow struct {
	fields [][]byte
	line   int
}

// ok reports whether s was made by OpenCSVStream or NewCSVStream.
func (s *CSVStream) ok() bool { return s != nil && s.head != nil }

// The accessors below describe an empty stream (zero values) for a nil *CSVStream or one not made by
// [OpenCSVStream] or [NewCSVStream]; Next returns an error for such a stream.

// D is the number of feature columns.
func (s *CSVStream) D() int {
	if !s.ok() {
		return 0
	}
	return s.head.d
}

// HasTarget reports whether the file has a target column.
func (s *CSVStream) HasTarget() bool { return s.ok() && s.head.tcol >= 0 }

// Rows is the number of rows returned so far.
func (s *CSVStream) Rows() int {
	if s == nil {
		return 0
	}
	return s.n
}

// Numeric reports whether every target read so far is a number (true without a target column).
func (s *CSVStream) Numeric() bool { return s.ok() && s.numeric }

// Target returns the raw (trimmed, unquoted) target string of row i of the block last returned by Next: "" before
// the first block, without a target column, or for a row not in the block.
func (s *CSVStream) Target(i int) string {
	if s == nil || s.last == nil || i < 0 || i+1 >= len(s.last.toff) {
		return ""
	}
	p := s.last
	return string(p.traw[p.toff[i]:p.toff[i+1]])
}

// Next returns the next block of at most maxRows rows (maxRows ≥ 1). After the last block it returns io.EOF, or
// the error ReadCSV would report at the end of the file: no data rows, or a NaN/Inf target in a file whose targets
// are all numbers. A parse error is returned once and again by every later call. The returned block is not reused.
func (s *CSVStream) Next(maxRows int) (*Data, error) {
	if !s.ok() {
		return nil, errors.New("dataset: nil or zero CSVStream (use OpenCSVStream or NewCSVStream)")
	}
	if s.failed != nil {
		return nil, s.failed
	}
	if maxRows < 1 {
		return nil, fmt.Errorf("dataset: CSVStream.Next needs maxRows ≥ 1, got %d", maxRows)
	}
	d, err := s.next(maxRows)
	if err != nil && err != io.EOF {
		s.failed = err
	}
	return d, err
}

func (s *CSVStream) next(maxRows int) (*Data, error) {
	h := s.head
	b := &budget{name: s.name, limit: s.limit}
	p := h.rows(b)
	p.what = "a block of " + strconv.Itoa(maxRows) + " rows"
	// Preallocate up to 65536 rows, within half the budget.
	p.x, _ = grow(b, p.x, int(min(int64(min(maxRows, 1<<16)*h.d), b.room()/16)), 0, p.what)
	for len(s.pend) > 0 && p.n < maxRows {
		if err := p.add(s.pend[0].fields, s.pend[0].line); err != nil {
			return nil, err
		}
		s.pend = s.pend[1:]
	}
	for !s.eof && p.n < maxRows {
		line, err := s.lr.next()
		if err != nil {
			return nil, err
		}
		if line == nil {
			s.eof = true
			break
		}
		fields, err := h.sp.split(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", s.name, s.lr.line, err)
		}
		if err := p.add(fields, s.lr.line); err != nil {
			return nil, err
		}
	}
	if p.n == 0 {
		switch {
		case s.n == 0:
			return nil, fmt.Errorf("%s: no data rows (only a header)", s.name)
		case h.tcol >= 0 && s.numeric && s.badLine > 0:
			return nil, fmt.Errorf("%s:%d: column %d: %s", s.name, s.badLine, h.tcol+1, s.badMsg)
		}
		return nil, io.EOF
	}
	s.n += p.n
	s.last = p
	data := h.data(p)
	if h.tcol < 0 {
		return data, nil
	}
	if p.numeric {
		if p.badLine > 0 && s.badLine == 0 {
			s.badLine, s.badMsg = p.badLine, p.badMsg
		}
		data.Y = p.y // NaN/Inf targets included: the end of the file decides (see Next)
		return data, nil
	}
	s.numeric = false
	var err error
	if data.Labels, data.Y, err = p.labels(); err != nil {
		return nil, err
	}
	return data, nil
}

// Close closes the file opened by OpenCSVStream. It returns an error for a nil stream.
func (s *CSVStream) Close() error {
	if s == nil {
		return errors.New("dataset: Close of a nil CSVStream")
	}
	if s.rc == nil {
		return nil
	}
	err := s.rc.Close()
	s.rc = nil
	return err
}

// ScalerAccumulator collects the column statistics FitScaler needs (mean, standard deviation, minimum, maximum)
// block by block, so that a scaler can be fitted on data streamed in one pass. Blocks are merged with the pairwise
// update of Chan, Golub and LeVeque on two-pass block statistics, which agrees with FitScaler on the whole data to
// rounding (relative differences of order 1e-15 for well-conditioned columns).
type ScalerAccumulator struct {
	d      int
	n      int
	mean   []float64
	m2     []float64 // Σ (x − mean)²
	lo, hi []float64
	bm     []float64 // scratch: block means
	bs     []float64 // scratch: block Σ (x − block mean)
	bq     []float64 // scratch: block Σ (x − block mean)²
	cov    []float64 // co-moments Σ (x − mean)(x − mean)ᵀ, upper triangle (TrackCovariance), or nil
}

// NewScalerAccumulator returns an empty accumulator for data with d ≥ 1 columns; it panics, with a message, for
// d < 1.
func NewScalerAccumulator(d int) *ScalerAccumulator {
	if d < 1 {
		panic(fmt.Sprintf("dataset.NewScalerAccumulator: need d ≥ 1, have %d", d))
	}
	a := &ScalerAccumulator{d: d}
	for _, p := range []*[]float64{&a.mean, &a.m2, &a.lo, &a.hi, &a.bm, &a.bs, &a.bq} {
		*p = make([]float64, d)
	}
	return a
}

// check returns an error naming the method where unless a was made by NewScalerAccumulator or
// NewScalerAccumulatorFrom.
func (a *ScalerAccumulator) check(where string) error {
	if a == nil || a.d < 1 {
		return fmt.Errorf("preprocess: ScalerAccumulator.%s: nil or zero accumulator (use NewScalerAccumulator)", where)
	}
	return nil
}

// Rows is the number of rows added (0 for a nil accumulator).
func (a *ScalerAccumulator) Rows() int {
	if a == nil {
		return 0
	}
	return a.n
}

// Add adds the n rows of the row-major n×d block x. It returns an error (and adds nothing) if a value is NaN or
// infinite; rows are numbered from the first row ever added. A nil or zero accumulator returns an error.
func (a *ScalerAccumulator) Add(x []float64, n int) error {
	if err := a.check("Add"); err != nil {
		return err
	}
	d := a.d
	if nd, ok := size.Mul(n, d); !ok || len(x) < nd {
		return fmt.Errorf("preprocess: block of %d rows × %d columns has %d values", n, d, len(x))
	}
	if n == 0 {
		return nil
	}
	x = x[:n*d]
	bm, bs, bq := a.bm, a.bs, a.bq
	clear(bm)
	for i := range n {
		row := x[i*d : (i+1)*d]
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("preprocess: row %d, column %d: NaN/Inf not allowed", a.n+i+1, j+1)
			}
			bm[j] += v
		}
	}
	for j := range bm {
		bm[j] /= float64(n)
	}
	clear(bs)
	clear(bq)
	for i := range n {
		row := x[i*d : (i+1)*d]
		for j, v := range row {
			e := v - bm[j]
			bq[j] += e * e
			bs[j] += e
		}
	}
	if a.n == 0 {
		copy(a.lo, x[:d])
		copy(a.hi, x[:d])
	}
	for i := range n {
		row := x[i*d : (i+1)*d]
		for j, v := range row {
			a.lo[j] = min(a.lo[j], v)
			a.hi[j] = max(a.hi[j], v)
		}
	}
	if a.cov != nil {
		a.addCov(x, n, bm, bs)
	}
	na, nb := float64(a.n), float64(n)
	nt := na + nb
	for j := range d {
		q := max(0, bq[j]-bs[j]*bs[j]/nb) // corrected two-pass sum of squares of the block
		m := bm[j] + bs[j]/nb             // corrected block mean
		if (math.IsInf(m, 0) || math.IsNaN(m) || math.IsNaN(q)) && constantColumn(x, n, d, j) {
			m, q = x[j], 0 // a constant column whose sum overflowed: its mean is its value, as FitScaler has it
		}
		if a.n == 0 {
			a.mean[j], a.m2[j] = m, q
			continue
		}
		delta := m - a.mean[j]
		a.mean[j] += delta * nb / nt
		a.m2[j] += q + delta*delta*na*nb/nt
	}
	a.n += n
	return nil
}

// constantColumn reports whether column j of the n×d block x holds one value.
func constantColumn(x []float64, n, d, j int) bool {
	for i := 1; i < n; i++ {
		if x[i*d+j] != x[j] {
			return false
		}
	}
	return true
}

// Scaler fits the steps on the rows added so far; it returns what FitScaler on all those rows would, up to
// rounding. A PCA step needs the co-moments (TrackCovariance); without them it is refused with ErrPCAStream. A nil or
// zero accumulator returns an error.
func (a *ScalerAccumulator) Scaler(steps []Step) (*Scaler, error) {
	if err := a.check("Scaler"); err != nil {
		return nil, err
	}
	if a.n < 1 {
		return nil, fmt.Errorf("preprocess: need at least one row and one column, have %d×%d", a.n, a.d)
	}
	if err := checkChain(steps); err != nil {
		return nil, err
	}
	pca := len(steps) > 0 && steps[len(steps)-1].PCA()
	if pca && a.cov == nil {
		return nil, ErrPCAStream
	}
	mean := slices.Clone(a.mean)
	std := make([]float64, a.d)
	for j := range std {
		std[j] = math.Sqrt(max(0, a.m2[j]/float64(a.n)))
	}
	lo, hi := slices.Clone(a.lo), slices.Clone(a.hi)
	s, err := scalerFromStats(steps, a.d, mean, std, lo, hi)
	if err != nil || !pca {
		return s, err
	}
	if err := checkPCASpread(steps, a.lo, a.hi, lo, hi); err != nil {
		return nil, err
	}
	if err := a.pcaFromMoments(s, mean); err != nil { // mean now holds the means of the PCA step's input
		return nil, err
	}
	return s, nil
}

// FitScalerStream fits the steps on the whole CSV stream s, reading blocks of blockRows rows: it is FitScaler on
// the inputs of the file, without holding them in memory. fn, when not nil, is called with every block (to collect
// labels, say). s is left at the end of the file.
func FitScalerStream(s *CSVStream, steps []Step, blockRows int, fn func(*Data) error) (*Scaler, error) {
	a := NewScalerAccumulator(s.D())
	if len(steps) > 0 && steps[len(steps)-1].PCA() {
		_ = a.TrackCovariance() // no rows yet
	}
	for {
		b, err := s.Next(blockRows)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := a.Add(b.X, b.N); err != nil {
			return nil, err
		}
		if fn != nil {
			if err := fn(b); err != nil {
				return nil, err
			}
		}
	}
	return a.Scaler(steps)
}
