package dataset

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/rffkit/rff/internal/numparse"
)

// CSVLayout is what ReadCSV learns from the first two lines of a CSV file — the delimiter, the header and the
// target column — so that the lines of files written like it can be parsed one at a time, with the rules of
// ReadCSV, wherever they are read ([CSVLayout.Parser]). A fit distributed over many machines reads each file of a
// data set on some worker with the layout of the first file, and names the file and line of a bad row itself.
// Its fields are exported so that it can travel to those workers.
type CSVLayout struct {
	Delim  byte     // ',', ';', '\t', or ' ' for runs of blanks
	Header []string // the header's fields as written (trimmed, unquoted), nil when the file has none
	Cols   int      // fields per row
	Target int      // the target column, 0-based; -1 for none
}

// DetectCSVLayout returns the layout of a file whose first two non-blank lines are first and second (second nil
// for a file of one line), with target as in ReadCSV; name is used in error messages. The lines are as read from
// the file without their line ends, a UTF-8 byte order mark and a trailing '\r' removed. A second line that does
// not split into fields (an unterminated quote) is left to the parser of the data rows, which reports it.
func DetectCSVLayout(name string, first, second []byte, target string) (*CSVLayout, error) {
	if len(trimSpace(first)) == 0 {
		return nil, fmt.Errorf("%s: empty file", name)
	}
	sp := &splitter{delim: detectDelim(first)}
	f1, err := sp.split(first)
	if err != nil {
		return nil, fmt.Errorf("%s: first line: %v", name, err)
	}
	row1 := cloneFields(f1)
	var row2 [][]byte
	if second != nil {
		if row2, err = sp.split(second); err != nil {
			row2 = nil // a bad row, which its reader reports with its line number
		}
	}
	l := &CSVLayout{Delim: sp.delim, Cols: len(row1)}
	if hasHeader(row1, row2) {
		if l.Header, err = headerNames(row1); err != nil {
			return nil, fmt.Errorf("%s: first line: %v", name, err)
		}
	}
	if l.Target, err = resolveTarget(name, target, l.Header, l.Cols); err != nil {
		return nil, err
	}
	if l.D() == 0 {
		return nil, fmt.Errorf("%s: no feature columns (the file has one column, used as the target; use target \"none\")", name)
	}
	return l, nil
}

// check returns an error unless l is a layout DetectCSVLayout could have returned (it may have travelled).
func (l *CSVLayout) check() error {
	switch {
	case l == nil:
		return errors.New("dataset: nil CSV layout")
	case !slices.Contains([]byte{',', ';', '\t', ' '}, l.Delim):
		return fmt.Errorf("dataset: CSV layout with delimiter %q", l.Delim)
	case l.Cols < 1 || l.Target < -1 || l.Target >= l.Cols || (l.Target >= 0 && l.Cols < 2):
		return fmt.Errorf("dataset: CSV layout of %d columns with target column %d", l.Cols, l.Target)
	case l.Header != nil && len(l.Header) != l.Cols:
		return fmt.Errorf("dataset: CSV layout of %d columns with %d header fields", l.Cols, len(l.Header))
	}
	if l.Header != nil {
		fields := make([][]byte, len(l.Header))
		for j, h := range l.Header {
			fields[j] = []byte(h)
		}
		if _, err := headerNames(fields); err != nil {
			return fmt.Errorf("dataset: CSV layout header: %v", err)
		}
	}
	return nil
}

// D is the number of feature columns (0 for a nil or zero layout).
func (l *CSVLayout) D() int {
	if l == nil || l.Cols < 1 {
		return 0
	}
	if l.Target >= 0 {
		return l.Cols - 1
	}
	return l.Cols
}

// Names returns the names of the feature columns as ReadCSV gives them: the header's, or x1 … xD (none for a nil or
// zero layout).
func (l *CSVLayout) Names() []string {
	if l == nil {
		return nil
	}
	if l.Header == nil {
		return genNames(l.D())
	}
	var names []string
	for j, s := range l.Header {
		if j != l.Target {
			names = append(names, s)
		}
	}
	return names
}

// TargetName returns the name of the target column as ReadCSV gives it ("y" without a header), or "" without a
// target column (and for a nil or zero layout).
func (l *CSVLayout) TargetName() string {
	switch {
	case l == nil || l.Target < 0 || l.Target >= l.Cols:
		return ""
	case l.Header == nil:
		return "y"
	case l.Target >= len(l.Header):
		return ""
	}
	return l.Header[l.Target]
}

// CSVLineParser parses single lines with a [CSVLayout]. It reuses its buffers, so it is not safe for concurrent
// use; make one per goroutine with [CSVLayout.Parser].
type CSVLineParser struct {
	l  CSVLayout
	sp splitter
}

// Parser returns a parser of lines with the layout l, or an error if l is not a layout DetectCSVLayout returns.
func (l *CSVLayout) Parser() (*CSVLineParser, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	return &CSVLineParser{l: *l, sp: splitter{delim: l.Delim}}, nil
}

// IsHeader reports whether line holds the layout's header: the same fields, after trimming and unquoting (false
// for a nil parser).
func (p *CSVLineParser) IsHeader(line []byte) bool {
	if p == nil || p.l.Header == nil {
		return false
	}
	fields, err := p.sp.split(line)
	if err != nil || len(fields) != len(p.l.Header) {
		return false
	}
	for j, f := range fields {
		if string(f) != p.l.Header[j] {
			return false
		}
	}
	return true
}

// Parse parses one data row — a line without its line end, not blank — appending its feature values to x, and
// returns the extended x and the raw target (trimmed and unquoted; "" without a target column). Features are
// parsed as ReadCSV parses them: finite numbers only. The target is returned as written, since whether a data set's
// targets are numbers or class labels is decided by all its rows (ReadCSV); [ParseTarget] reads a numeric one.
// On an error x is returned unchanged and the error names the column, in ReadCSV's words, but not the file or line,
// which the caller knows: "column 3: "abc" is not a number", "row has 3 fields, want 4". A nil or zero parser
// returns an error.
func (p *CSVLineParser) Parse(line []byte, x []float64) ([]float64, string, error) {
	if p == nil || p.l.Cols < 1 {
		return x, "", errors.New("dataset: nil or zero CSV line parser (use CSVLayout.Parser)")
	}
	fields, err := p.sp.split(line)
	if err != nil {
		return x, "", err
	}
	if len(fields) != p.l.Cols {
		hint := ""
		if commentLine(fields) {
			hint = commentHint
		}
		return x, "", fmt.Errorf("row has %d fields, want %d%s", len(fields), p.l.Cols, hint)
	}
	n0 := len(x)
	target := ""
	for j, f := range fields {
		if j == p.l.Target {
			if len(f) == 0 {
				return x[:n0], "", fmt.Errorf("column %d: empty target value", j+1)
			}
			target = string(f)
			continue
		}
		v, msg := parseNum(f)
		if msg != "" {
			return x[:n0], "", fmt.Errorf("column %d: %s%s", j+1, msg, targetHint(fields, j, p.l.Target))
		}
		x = append(x, v)
	}
	return x, target, nil
}

// ParseTarget reads a raw target as ReadCSV does: numeric reports whether it is a number (values out of range,
// NaN and Inf included), and v is its value. A data set whose targets are all numbers has numeric targets, and then
// a NaN or infinite one is an error; any other target makes the targets class labels.
func ParseTarget(s string) (v float64, numeric bool) {
	v, err := numparse.ParseField(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return math.NaN(), false
	}
	return v, true
}
