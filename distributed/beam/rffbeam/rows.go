package rffbeam

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/numparse"
)

// Rows is a block of parsed rows of one file, the element ReadRows emits and the passes combine.
type Rows struct {
	// File is the file the rows come from; Start is the index of the first among the rows of the file kept so far.
	File  string
	Start int
	N     int
	X     []float64 // N×D raw inputs, row-major
	Y     []float64 // regression: the N targets
	T     []string  // classification: the N raw targets, as written
	// Skipped counts the bad rows the reader skipped (ReadSpec.SkipBadRows) since its previous block of the same
	// file; First is the first of them.
	Skipped int
	First   RowError
	// FirstNonFinite locates, for classification, the block's first row whose target is a NaN or infinite number:
	// an error when every target of the data set is a number, a class label otherwise.
	FirstNonFinite RowError
}

// RowError locates a bad row: "file:line: message". The zero value is no error.
type RowError struct {
	File string
	Line int
	Msg  string
}

// String returns the location and message as "file:line: message".
func (e RowError) String() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// before reports whether e comes before o in the order of files and lines (the zero value comes last).
func (e RowError) before(o RowError) bool {
	switch {
	case e.Line == 0:
		return false
	case o.Line == 0:
		return true
	case e.File != o.File:
		return e.File < o.File
	}
	return e.Line < o.Line
}

// dataErrorMark prefixes the errors of bad data that workers return, so that the driver finds their one line in a
// runner's report of the failure (FailureMessage).
const dataErrorMark = "rff data error: "

// dataError is an error in the data, raised on a worker: it fails the pipeline.
func dataError(format string, args ...any) error {
	return fmt.Errorf(dataErrorMark+format, args...)
}

// FailureMessage returns the one-line message of a data error raised on a worker and carried, among other lines,
// by the error a runner returns for the failed pipeline (ok is false when err carries none).
func FailureMessage(err error) (msg string, ok bool) {
	if err == nil {
		return "", false
	}
	s := err.Error()
	i := strings.LastIndex(s, dataErrorMark)
	if i < 0 {
		return "", false
	}
	s = s[i+len(dataErrorMark):]
	if j := strings.IndexAny(s, "\r\n"); j >= 0 {
		s = s[:j]
	}
	return strings.TrimRight(strings.TrimSpace(s), `"`), true
}

// ReadSpec says how ReadRows reads the files of a data set.
type ReadSpec struct {
	// Layout is the CSV layout of the first file (DetectLayout), which every file is read with; a first line of a
	// file equal to its header is the file's header and skipped. FirstFile names that file in messages.
	Layout    dataset.CSVLayout
	FirstFile string
	// Classify reads the targets as class labels (Rows.T); otherwise they must be finite numbers (Rows.Y).
	// NumericTargets says that the class targets are all numbers (known after a first pass): a NaN or infinite
	// one is then a bad row.
	Classify       bool
	NumericTargets bool
	// SkipBadRows skips rows that do not parse, counting them (Rows.Skipped); otherwise the first one fails the
	// pipeline with a one-line error naming the file, line and column. A file's first line that is another header
	// than Layout's (a line of names, without a number: dataset.DetectCSVLayout takes it for one) fails the pipeline
	// even then: its rows would be read in the first file's column order.
	SkipBadRows bool
	// BlockRows is the number of rows of each emitted block (default 1024).
	BlockRows int
	// Scaler, when set, is the preprocessing of the fit (Scan.Scaler; Fit sets it for every pass after the first,
	// and for the first too when the preprocessing needs no statistics): a row whose preprocessed inputs hold a
	// value rff refuses as too large for the kernel (rff.CheckInputMagnitude) fails the pipeline with one line
	// naming its file, line and column. A regression target too large for the ridge statistics
	// (rff.CheckTargetMagnitude) fails it likewise, with or without Scaler. Such rows are not bad rows: SkipBadRows
	// does not skip them, as rff fit refuses the data.
	Scaler *dataset.Scaler
}

// ReadRows reads the files named by the PCollection<string> files — each file whole, on one worker, so that a
// bad row's line is known: give at least as many files as workers — and returns a PCollection<Rows>. The files
// are redistributed first, so that workers share them.
func ReadRows(s beam.Scope, files beam.PCollection, spec ReadSpec) beam.PCollection {
	s = s.Scope("rffbeam.ReadRows")
	return beam.ParDo(s, &readFn{Spec: spec}, beam.Reshuffle(s, files))
}

type readFn struct {
	Spec ReadSpec
}

// ProcessElement reads the file at path and emits its rows in blocks.
func (f *readFn) ProcessElement(ctx context.Context, path string, emit func(Rows)) error {
	sp := f.Spec
	p, err := sp.Layout.Parser()
	if err != nil {
		return err
	}
	block := sp.BlockRows
	if block <= 0 {
		block = 1024
	}
	d := sp.Layout.D()
	names, target := sp.Layout.Names(), []string{orDefault(sp.Layout.TargetName(), "y")}
	var scratch []float64 // a row preprocessed, for the check of its magnitude
	ybuf := make([]float64, 1)
	if sp.Scaler != nil {
		if sp.Scaler.D != d || sp.Scaler.HasPCA() {
			return fmt.Errorf("rffbeam: a scaler of %d inputs for rows of %d", sp.Scaler.D, d)
		}
		scratch = make([]float64, d)
	}
	rc, err := openData(ctx, path)
	if err != nil {
		return dataError("%v", err)
	}
	defer rc.Close()
	lr := newLineReader(rc, path)
	tcol := sp.Layout.Target + 1
	kept := 0
	fresh := func() Rows { return Rows{File: path, Start: kept, X: make([]float64, 0, block*d)} }
	b := fresh()
	first := true
	for {
		line, num, err := lr.next()
		if err != nil {
			return dataError("%v", err)
		}
		if line == nil {
			break
		}
		if first {
			first = false
			if p.IsHeader(line) {
				continue
			}
		}
		x, tg, err := p.Parse(line, b.X)
		var y float64
		if err == nil && (!sp.Classify || sp.NumericTargets) {
			v, numeric := dataset.ParseTarget(tg)
			switch {
			case !numeric:
				err = fmt.Errorf("column %d: %q is not a number (regression needs numeric targets)", tcol, tg)
			case math.IsNaN(v) || math.IsInf(v, 0):
				err = errors.New(nonFiniteTarget(tcol, tg))
			}
			y = v
		}
		if err != nil {
			msg := err.Error()
			header := false
			if num == lr.firstLine && sp.Layout.Header != nil {
				msg += fmt.Sprintf(" (and the line is not the header of %s)", sp.FirstFile)
				if sp.SkipBadRows {
					// Another header — the columns reordered, or others — is a layout error, not a bad row: the
					// file's rows would be read in the first file's column order. A line of names has no number
					// in it; a bad row ("1,2,x,4", "NA,…") has some, and is skipped as any other.
					l, err := dataset.DetectCSVLayout(path, line, nil, "none")
					header = err == nil && l.Header != nil
				}
			}
			if !sp.SkipBadRows || header {
				return dataError("%s:%d: %s", path, num, msg)
			}
			b.Skipped++
			if b.First.Line == 0 {
				b.First = RowError{File: path, Line: num, Msg: msg}
			}
			continue
		}
		// The values rff refuses as too large for the statistics fail the fit, as in rff fit.
		if !sp.Classify {
			ybuf[0] = y
			if err := rff.CheckTargetMagnitude(ybuf, target, 0); err != nil {
				return magnitudeError(path, num, err)
			}
		}
		if scratch != nil {
			copy(scratch, x[len(x)-d:])
			sp.Scaler.Apply(scratch, 1, d)
			if err := rff.CheckInputMagnitude(scratch, d, names, 0); err != nil {
				return magnitudeError(path, num, err)
			}
		}
		b.X = x
		if sp.Classify {
			b.T = append(b.T, tg)
			if v, numeric := dataset.ParseTarget(tg); numeric && (math.IsNaN(v) || math.IsInf(v, 0)) && b.FirstNonFinite.Line == 0 {
				b.FirstNonFinite = RowError{File: path, Line: num, Msg: nonFiniteTarget(tcol, tg)}
			}
		} else {
			b.Y = append(b.Y, y)
		}
		kept++
		if b.N++; b.N == block {
			emit(b)
			b = fresh()
		}
	}
	if b.N > 0 || b.Skipped > 0 {
		emit(b)
	}
	return nil
}

// magnitudeError is the data error of the row at line num of path holding a value too large for the fit
// (rff.MagnitudeError): "path:line: column 2 (b) is 1e+200 after preprocessing: too large for the kernel …".
func magnitudeError(path string, num int, err error) error {
	reason := err.Error()
	if me, ok := errors.AsType[*rff.MagnitudeError](err); ok {
		reason = me.Reason
	}
	return dataError("%s:%d: %s", path, num, reason)
}

// encodeRows and decodeRows are the coder of Rows.
func encodeRows(r Rows) []byte {
	w := &writer{b: make([]byte, 0, 32+len(r.File)+8*(len(r.X)+len(r.Y)))}
	w.str(r.File)
	w.int(r.Start)
	w.int(r.N)
	w.floats(r.X)
	w.floats(r.Y)
	w.strs(r.T)
	w.int(r.Skipped)
	encodeRowError(w, r.First)
	encodeRowError(w, r.FirstNonFinite)
	return w.b
}

func decodeRows(b []byte) (Rows, error) {
	rd := &reader{b: b}
	r := Rows{File: rd.str(), Start: rd.int(math.MaxInt), N: rd.int(len(b))}
	r.X, r.Y, r.T = rd.floats(), rd.floats(), rd.strs()
	r.Skipped = rd.int(math.MaxInt32)
	r.First = decodeRowError(rd)
	r.FirstNonFinite = decodeRowError(rd)
	if err := rd.done(); err != nil {
		return Rows{}, fmt.Errorf("rffbeam: rows: %w", err)
	}
	return r, nil
}

func encodeRowError(w *writer, e RowError) {
	w.str(e.File)
	w.int(e.Line)
	w.str(e.Msg)
}

func decodeRowError(r *reader) RowError {
	return RowError{File: r.str(), Line: r.int(math.MaxInt), Msg: r.str()}
}

// nonFiniteTarget says what is wrong with the numeric target tg of column tcol that reads as NaN or ±Inf, as rff
// fit says it: written as NaN or Inf, or a number beyond the largest float64.
func nonFiniteTarget(tcol int, tg string) string {
	if _, err := numparse.ParseField(tg, 64); errors.Is(err, strconv.ErrRange) { // as dataset reads targets
		return fmt.Sprintf("column %d: %q is out of range", tcol, tg)
	}
	return fmt.Sprintf("column %d: NaN/Inf not allowed (%q)", tcol, tg)
}
