package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rffkit/rff/internal/colnames"
	"github.com/rffkit/rff/internal/numparse"
)

// ReadCSV reads delimited numeric text from r. name is used in error messages.
//
// The delimiter is detected from the first line: the most frequent of ',', ';'
// and tab (ties go to tab, then ';'); when none occurs and the line has
// several blank-separated fields, fields are separated by runs of blanks. A
// header is detected when the first row has a non-numeric field in a column
// where the second row is numeric (or, for a one-row file, when every field is
// non-numeric); its names must be non-empty and distinct, since a model
// matches the columns of the data it predicts by name. Blank lines are
// skipped, a UTF-8 BOM and CRLF line ends are accepted, fields are trimmed,
// and a field may be enclosed in double quotes (with "" for a quote) as long
// as it does not span lines.
//
// target selects the target column: "first", "last" (the default, ""),
// "none", a header name (exact, else case-insensitive), or a 1-based column
// index. Feature columns must be numeric (the error for a non-number in the
// first or last column suggests making it the target). A numeric target
// gives Y as is; a target with any non-numeric value is treated as class
// labels: its distinct strings, sorted, become Labels and Y holds indices
// into Labels.
//
// ReadCSV reads within the default memory budget, DefaultMaxBytes;
// Options.ReadCSV takes the budget (and the target) from its Options.
func ReadCSV(r io.Reader, name string, target string) (*Data, error) {
	return Options{Target: target}.ReadCSV(r, name)
}

// ReadCSV is the function ReadCSV with the target column o.Target, within the
// memory budget o.MaxBytes: it refuses with a *BudgetError an input that has
// more bytes than the budget (before reading it, when r tells its size as a
// bytes.Reader, strings.Reader or regular *os.File does) and data whose
// arrays would take more. o.Format and o.Labels are ignored. A nil r is an
// error.
func (o Options) ReadCSV(r io.Reader, name string) (*Data, error) {
	if r == nil {
		return nil, errNilReader
	}
	b := newBudget(name, o.MaxBytes)
	r, err := limitInput(b, r, inputSize(r), false)
	if err != nil {
		return nil, err
	}
	return readCSV(r, name, o.Target, o.Columns, b)
}

// readCSV is ReadCSV with the budget b, which r already enforces on the input, reading the input columns named in
// columns (nil: all; see Options.Columns).
func readCSV(r io.Reader, name, target string, columns []string, b *budget) (*Data, error) {
	lr := newLineReader(r, name, b.limit)
	h, err := readCSVHead(lr, name, target)
	if err != nil {
		return nil, err
	}
	if err := h.selectColumns(columns); err != nil {
		return nil, err
	}
	p := h.rows(b)
	if err := h.addPending(p); err != nil {
		return nil, err
	}
	for {
		line, err := lr.next()
		if err != nil {
			return nil, err
		}
		if line == nil {
			break
		}
		fields, err := h.sp.split(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, lr.line, err)
		}
		if err := p.add(fields, lr.line); err != nil {
			return nil, err
		}
	}
	if p.n == 0 {
		return nil, fmt.Errorf("%s: no data rows (only a header)", name)
	}

	data := h.data(p)
	if h.tcol < 0 {
		return data, nil
	}
	if p.numeric {
		if p.badLine > 0 {
			return nil, fmt.Errorf("%s:%d: column %d: %s", name, p.badLine, h.tcol+1, p.badMsg)
		}
		data.Y = p.y
		return data, nil
	}
	if data.Labels, data.Y, err = p.labels(); err != nil {
		return nil, err
	}
	return data, nil
}

// csvHead is what the first two lines of a CSV file tell: the delimiter, the
// header and the target column. The data rows among those lines are pending
// until addPending.
type csvHead struct {
	name   string
	sp     *splitter
	header bool
	names  []string // header names, all columns (nil without a header)
	ncols  int
	tcol   int    // target column (0-based), -1 for none
	d      int    // feature columns read
	keep   []bool // the columns read, when some are skipped unparsed (Options.Columns); nil: all
	row1   [][]byte
	line1  int
	row2   [][]byte // nil for a one-row file; aliases sp's buffers until the next split
	line2  int
}

// readCSVHead reads and analyses the first two non-blank lines of lr.
func readCSVHead(lr *lineReader, name, target string) (*csvHead, error) {
	first, err := lr.next()
	if err != nil {
		return nil, err
	}
	if first == nil {
		return nil, fmt.Errorf("%s: empty file", name)
	}
	h := &csvHead{name: name, sp: &splitter{delim: detectDelim(first)}}
	h.line1 = lr.line
	f1, err := h.sp.split(first)
	if err != nil {
		return nil, fmt.Errorf("%s:%d: %v", name, h.line1, err)
	}
	h.row1 = cloneFields(f1)
	h.ncols = len(h.row1)

	second, err := lr.next()
	if err != nil {
		return nil, err
	}
	h.line2 = lr.line
	if second != nil {
		if h.row2, err = h.sp.split(second); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, h.line2, err)
		}
	}
	h.header = hasHeader(h.row1, h.row2)

	if h.header {
		if h.names, err = headerNames(h.row1); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, h.line1, err)
		}
	}
	if h.tcol, err = resolveTarget(name, target, h.names, h.ncols); err != nil {
		return nil, err
	}
	h.d = h.ncols
	if h.tcol >= 0 {
		h.d--
	}
	if h.d == 0 {
		return nil, fmt.Errorf("%s: no feature columns (the file has one column, used as the target; use target \"none\")", name)
	}
	return h, nil
}

// selectColumns keeps, of the input columns of a file with a header, those named in columns; the others are skipped
// without being parsed. nil (or a file without a header) keeps every column.
func (h *csvHead) selectColumns(columns []string) error {
	if columns == nil || !h.header {
		return nil
	}
	want := make(map[string]bool, len(columns))
	for _, c := range columns {
		want[c] = true
	}
	h.keep, h.d = make([]bool, h.ncols), 0
	for j, s := range h.names {
		if j != h.tcol && want[s] {
			h.keep[j] = true
			h.d++
		}
	}
	if h.d == 0 {
		asked, hint := make([]string, 0, len(columns)), ""
		for _, c := range columns {
			if h.tcol >= 0 && c == h.names[h.tcol] {
				continue // the target is read, but it is not an input
			}
			asked = append(asked, c)
			for _, s := range h.names {
				if hint == "" && strings.EqualFold(s, c) {
					hint = fmt.Sprintf("; names must match exactly (%q is not %q)", s, c)
				}
			}
		}
		return fmt.Errorf("%s: none of the input columns asked for (%s) is in the file (columns: %s)%s", h.name,
			strings.Join(asked, ", "), strings.Join(h.names, ", "), hint)
	}
	return nil
}

// cloneFields copies fields into one buffer (the splitter reuses its own).
func cloneFields(fields [][]byte) [][]byte {
	n := 0
	for _, f := range fields {
		n += len(f)
	}
	buf := make([]byte, 0, n)
	out := make([][]byte, len(fields))
	for j, f := range fields {
		buf = append(buf, f...)
		out[j] = buf[len(buf)-len(f) : len(buf) : len(buf)]
	}
	return out
}

// rows returns an empty row accumulator for the file, whose arrays b accounts for.
func (h *csvHead) rows(b *budget) *csvRows {
	return &csvRows{name: h.name, ncols: h.ncols, tcol: h.tcol, d: h.d, keep: h.keep, numeric: true, toff: []int{0}, b: b, what: parsedData}
}

// addPending adds the data rows among the first two lines to p, once.
func (h *csvHead) addPending(p *csvRows) error {
	if !h.header && h.row1 != nil {
		if err := p.add(h.row1, h.line1); err != nil {
			return err
		}
	}
	if h.row2 != nil {
		if err := p.add(h.row2, h.line2); err != nil {
			return err
		}
	}
	h.row1, h.row2 = nil, nil
	return nil
}

// data returns the inputs of p with the file's column names (and target name, when there is a target column);
// the caller fills in Y and Labels.
func (h *csvHead) data(p *csvRows) *Data {
	data := &Data{X: p.x, N: p.n, D: h.d}
	if h.header {
		data.Names = make([]string, 0, h.d)
		for j, s := range h.names {
			if j != h.tcol && (h.keep == nil || h.keep[j]) {
				data.Names = append(data.Names, s)
			}
		}
	} else {
		data.Names = genNames(h.d)
	}
	if h.tcol >= 0 {
		data.TargetName = "y"
		if h.header {
			data.TargetName = h.names[h.tcol]
		} else {
			data.TargetColumn = h.tcol + 1
		}
	}
	return data
}

// csvRows accumulates parsed rows.
type csvRows struct {
	name    string
	ncols   int
	tcol    int    // target column (0-based), -1 for none
	d       int    // input columns read
	keep    []bool // the columns read (nil: all)
	n       int
	x       []float64
	y       []float64 // numeric targets, while numeric
	numeric bool      // every target seen so far is a number
	badLine int       // first line with a NaN/Inf numeric target
	badMsg  string    // what is wrong with it, as parseNum says of a feature
	traw    []byte    // raw target strings, concatenated
	toff    []int     // offsets into traw: target i is traw[toff[i]:toff[i+1]]
	b       *budget   // accounts for x, y, traw and toff
	what    string    // names the arrays in budget errors
}

// parsedData names the arrays of a loader in budget errors.
const parsedData = "the parsed data"

func (p *csvRows) add(fields [][]byte, line int) error {
	if len(fields) != p.ncols {
		hint := ""
		if commentLine(fields) {
			hint = commentHint
		}
		return fmt.Errorf("%s:%d: row has %d fields, want %d%s", p.name, line, len(fields), p.ncols, hint)
	}
	if err := p.reserve(fields, line); err != nil {
		return err
	}
	for j, f := range fields {
		if j == p.tcol {
			if len(f) == 0 {
				return fmt.Errorf("%s:%d: column %d: empty target value", p.name, line, j+1)
			}
			p.traw = append(p.traw, f...)
			p.toff = append(p.toff, len(p.traw))
			if !p.numeric {
				continue
			}
			v, err := numparse.ParseField(string(f), 64)
			switch {
			case err != nil && !errors.Is(err, strconv.ErrRange):
				p.b.release(8 * int64(cap(p.y)))
				p.numeric, p.y = false, nil
			case math.IsNaN(v) || math.IsInf(v, 0):
				if p.badLine == 0 {
					p.badLine, p.badMsg = line, "NaN/Inf not allowed ("+quote(f)+")"
					if err != nil { // beyond the largest float64, not written as Inf
						p.badMsg = quote(f) + " is out of range"
					}
				}
				p.y = append(p.y, v)
			default:
				p.y = append(p.y, v)
			}
			continue
		}
		if p.keep != nil && !p.keep[j] {
			continue
		}
		v, msg := parseNum(f)
		if msg != "" {
			return fmt.Errorf("%s:%d: column %d: %s%s", p.name, line, j+1, msg, targetHint(fields, j, p.tcol))
		}
		p.x = append(p.x, v)
	}
	p.n++
	return nil
}

// reserve makes room in p's arrays for one more row, within the budget.
func (p *csvRows) reserve(fields [][]byte, line int) error {
	var err error
	if p.tcol >= 0 {
		if p.traw, err = grow(p.b, p.traw, len(fields[p.tcol]), line, p.what); err != nil {
			return err
		}
		if p.toff, err = grow(p.b, p.toff, 1, line, p.what); err != nil {
			return err
		}
		if p.numeric {
			if p.y, err = grow(p.b, p.y, 1, line, p.what); err != nil {
				return err
			}
		}
	}
	p.x, err = grow(p.b, p.x, p.d, line, p.what)
	return err
}

// labelCost is what the budget charges for a distinct label besides its bytes: its string header in Labels and
// its entry in the index map.
const labelCost = 64

// labels maps the raw target strings to indices into their sorted distinct values, within the budget.
func (p *csvRows) labels() ([]string, []float64, error) {
	if err := p.b.charge(8*int64(p.n), 0, p.what); err != nil { // y
		return nil, nil, err
	}
	index := make(map[string]int)
	for i := range p.n {
		s := p.traw[p.toff[i]:p.toff[i+1]]
		if _, ok := index[string(s)]; !ok {
			if err := p.b.charge(int64(len(s))+labelCost, 0, p.what); err != nil {
				return nil, nil, err
			}
			index[string(s)] = 0
		}
	}
	labels := make([]string, 0, len(index))
	for s := range index {
		labels = append(labels, s)
	}
	slices.Sort(labels)
	for k, s := range labels {
		index[s] = k
	}
	y := make([]float64, p.n)
	for i := range y {
		y[i] = float64(index[string(p.traw[p.toff[i]:p.toff[i+1]])])
	}
	return labels, y, nil
}

// headerNames returns the fields of a header as column names, or an error (without file or line) naming the first
// column whose name is empty or repeats an earlier one: models match the columns of the data they predict by name,
// so every column must have a name of its own.
func headerNames(fields [][]byte) ([]string, error) {
	names := make([]string, len(fields))
	for j, f := range fields {
		names[j] = string(f)
	}
	if bad := colnames.Unprintable(names); bad >= 0 {
		return nil, fmt.Errorf("column %d: the name %s is not printable text (a control character, or not UTF-8); save the file as UTF-8 with plain names", bad+1, quote(fields[bad]))
	}
	switch bad, prev := colnames.Check(names); {
	case bad < 0:
		return names, nil
	case prev < 0:
		return nil, fmt.Errorf("column %d has no name; a header must name every column", bad+1)
	default:
		return nil, fmt.Errorf("column %d: the name %s is also column %d's; column names must be unique", bad+1, quote(fields[bad]), prev+1)
	}
}

// commentHint ends the error of a row that reads as a comment line.
const commentHint = " (CSV has no comment lines: remove the lines that start with #, e.g. grep -v '^#')"

// commentLine reports a row whose first field is "#" alone or "#" and a blank: a comment, not a label such as "#1".
func commentLine(fields [][]byte) bool {
	if len(fields) == 0 {
		return false
	}
	f := bytes.TrimLeft(fields[0], " \t")
	return len(f) > 0 && f[0] == '#' && (len(f) == 1 || f[1] == ' ' || f[1] == '\t')
}

// targetHint returns what to append to the error of the feature field in column j (0-based) of a row of ncols
// fields that does not parse: when it is not a number in the first or last column, and the row has numbers
// elsewhere (a row with none, such as a header repeated in the data, holds no class label), a hint that the column
// may be the target, named as Options.Target names it — or, when the file is read without a target (tcol < 0, target
// "none"), that it may not hold one; else "".
func targetHint(fields [][]byte, j, tcol int) string {
	if commentLine(fields) {
		return commentHint
	}
	ncols := len(fields)
	if ncols < 2 || (j != 0 && j != ncols-1) || len(fields[j]) == 0 || isNumeric(fields[j]) {
		return ""
	}
	if _, err := strconv.ParseFloat(string(fields[j]), 64); err == nil { // a number with digit separators: no label
		return ""
	}
	for k, f := range fields {
		if k != j && isNumeric(f) {
			switch {
			case tcol < 0:
				return " (a class label? this file is read with no target column)"
			case j == 0:
				return ` (a class label? target "first" makes column 1 the target)`
			default:
				return fmt.Sprintf(` (a class label? target "last" makes column %d the target)`, ncols)
			}
		}
	}
	return ""
}

// hasHeader decides whether row1 is a header, looking at the next row2 (nil
// when the file has a single row): some column has a name above a number. An
// empty field, or a mistyped number ("2.5.1", "1e"), is no name: a first data
// row with such a typo is read as data (and its error reported at line 1), not
// taken for a header and dropped.
func hasHeader(row1, row2 [][]byte) bool {
	if row2 == nil {
		for _, f := range row1 {
			if isNumeric(f) {
				return false
			}
		}
		return true
	}
	for j := range min(len(row1), len(row2)) {
		if !isNumeric(row1[j]) && !numberLike(row1[j]) && isNumeric(row2[j]) {
			return true
		}
	}
	return false
}

// numberLike reports an empty field, or a mistyped decimal number: digits and points, with at least one digit, a
// sign only first or right after the exponent's e, and e or E only after a digit or a point ("2.5.1", "1e", "-1.2.3").
// Names such as E1, 1-2, 2019-20 or 2020-01-01 are not number-like.
func numberLike(f []byte) bool {
	f = bytes.TrimSpace(f)
	digit := false
	for i, c := range f {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c == '.':
		case c == '+' || c == '-':
			if i > 0 && f[i-1] != 'e' && f[i-1] != 'E' {
				return false
			}
		case c == 'e' || c == 'E':
			if i == 0 || !(f[i-1] >= '0' && f[i-1] <= '9' || f[i-1] == '.') {
				return false
			}
		default:
			return false
		}
	}
	return len(f) == 0 || digit
}

// resolveTarget returns the 0-based target column, or -1 for none.
func resolveTarget(name, target string, header []string, ncols int) (int, error) {
	t := strings.TrimSpace(target)
	switch strings.ToLower(t) {
	case "", "last":
		return ncols - 1, nil
	case "first":
		return 0, nil
	case "none":
		return -1, nil
	}
	if header != nil {
		if j, err := findColumn(name, t, header, func(a, b string) bool { return a == b }); j >= 0 || err != nil {
			return j, err
		}
		if j, err := findColumn(name, t, header, strings.EqualFold); j >= 0 || err != nil {
			return j, err
		}
	}
	if k, err := strconv.Atoi(t); err == nil {
		if k < 1 || k > ncols {
			return 0, fmt.Errorf("%s: target column %d out of range (columns are numbered 1 to %d)", name, k, ncols)
		}
		return k - 1, nil
	}
	if header == nil {
		return 0, fmt.Errorf("%s: unknown target column %q (the file has no header; use first, last, none or a 1-based column index)", name, target)
	}
	list := header
	more := ""
	if len(list) > 20 {
		list, more = list[:20], fmt.Sprintf(", … (%d columns)", len(header))
	}
	return 0, fmt.Errorf("%s: unknown target column %q (columns: %s%s)", name, target, strings.Join(list, ", "), more)
}

// findColumn returns the index of the column whose name matches t, -1 if
// none does, and an error if several do.
func findColumn(name, t string, header []string, eq func(a, b string) bool) (int, error) {
	found := -1
	for j, h := range header {
		if eq(h, t) {
			if found >= 0 {
				return -1, fmt.Errorf("%s: target column %q is ambiguous (columns %d and %d)", name, t, found+1, j+1)
			}
			found = j
		}
	}
	return found, nil
}

// detectDelim picks the delimiter from the first line; ' ' stands for runs of blanks.
func detectDelim(line []byte) byte {
	var count [3]int // tab, ';', ','
	inQuote := false
	for _, c := range line {
		switch {
		case c == '"':
			inQuote = !inQuote
		case inQuote:
		case c == '\t':
			count[0]++
		case c == ';':
			count[1]++
		case c == ',':
			count[2]++
		}
	}
	best, delim := 0, byte(0)
	for k, c := range []byte{'\t', ';', ','} {
		if count[k] > best {
			best, delim = count[k], c
		}
	}
	if delim != 0 {
		return delim
	}
	if len(fieldsBlank(line, nil)) > 1 {
		return ' '
	}
	return ','
}

// splitter splits lines into trimmed fields, reusing its buffers: the fields
// are valid until the next call.
type splitter struct {
	delim  byte // ',', ';', '\t', or ' ' for runs of blanks
	fields [][]byte
	buf    []byte // unquoted contents of quoted fields
}

func (s *splitter) split(line []byte) ([][]byte, error) {
	s.fields = s.fields[:0]
	if s.delim == ' ' {
		s.fields = fieldsBlank(line, s.fields)
		return s.fields, nil
	}
	if indexByte(line, '"') >= 0 {
		return s.splitQuoted(line)
	}
	for {
		i := indexByte(line, s.delim)
		if i < 0 {
			s.fields = append(s.fields, trimSpace(line))
			return s.fields, nil
		}
		s.fields = append(s.fields, trimSpace(line[:i]))
		line = line[i+1:]
	}
}

func (s *splitter) splitQuoted(line []byte) ([][]byte, error) {
	if cap(s.buf) < len(line) {
		s.buf = make([]byte, 0, len(line))
	}
	buf := s.buf[:0] // never reallocated: quoted contents are shorter than the line
	skip := func(i int) int {
		for i < len(line) && isBlank(line[i]) && line[i] != s.delim {
			i++
		}
		return i
	}
	i := 0
	for {
		col := len(s.fields) + 1
		i = skip(i)
		if i < len(line) && line[i] == '"' {
			start := len(buf)
			closed := false
			for i++; i < len(line); i++ {
				if line[i] == '"' {
					if i+1 < len(line) && line[i+1] == '"' {
						buf = append(buf, '"')
						i++
						continue
					}
					closed = true
					i++
					break
				}
				buf = append(buf, line[i])
			}
			if !closed {
				return nil, fmt.Errorf("column %d: unterminated quoted field (fields may not span lines)", col)
			}
			s.fields = append(s.fields, buf[start:len(buf):len(buf)])
			if i = skip(i); i == len(line) {
				return s.fields, nil
			}
			if line[i] != s.delim {
				return nil, fmt.Errorf("column %d: unexpected %q after the closing quote", col, line[i])
			}
			i++
			continue
		}
		j := indexByte(line[i:], s.delim)
		if j < 0 {
			s.fields = append(s.fields, trimSpace(line[i:]))
			return s.fields, nil
		}
		s.fields = append(s.fields, trimSpace(line[i:i+j]))
		i += j + 1
	}
}

// CSVHeader reads the first two lines of the CSV file at path (gzip-compressed or not) and returns the column names
// of its header, or nil when the file has none (by the rule ReadCSV uses), and the number of columns. It lets a
// caller choose the target column by name before loading the file.
func CSVHeader(path string) (names []string, cols int, err error) {
	r, err := Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer r.Close()
	h, err := readCSVHead(newLineReader(r, path, DefaultMaxBytes()), path, "none")
	if err != nil {
		return nil, 0, err
	}
	return h.names, h.ncols, nil
}
