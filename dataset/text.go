package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rffkit/rff/internal/numparse"
)

// maxLine is the longest text line the readers accept, whatever the memory
// budget (which may lower it, see lineLimit).
const maxLine = 64 << 20

// lineReader returns the non-blank lines of a text file with their 1-based
// line numbers. It strips a UTF-8 byte order mark from line 1 and a trailing
// '\r' from every line (CRLF files).
type lineReader struct {
	sc     *bufio.Scanner
	name   string
	line   int   // number of the line last returned
	max    int   // longest line accepted
	budget int64 // the memory budget that sets max
}

// newLineReader returns a lineReader on r for a loader with a memory budget
// of limit bytes, which bounds the length of a line (see lineLimit).
func newLineReader(r io.Reader, name string, limit int64) *lineReader {
	trap := &errTrap{r: r}
	sc := bufio.NewScanner(trap)
	lr := &lineReader{sc: sc, name: name, max: lineLimit(limit), budget: limit}
	sc.Buffer(make([]byte, 0, min(64<<10, lr.max)), lr.max)
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		// After a read error (a truncated gzip stream, say), the bytes after
		// the last newline are a cut line: report the error, not the line.
		if atEOF && trap.err != nil && bytes.IndexByte(data, '\n') < 0 {
			return 0, nil, trap.err
		}
		return bufio.ScanLines(data, atEOF)
	})
	return lr
}

// errTrap records the first read error other than io.EOF.
type errTrap struct {
	r   io.Reader
	err error
}

// Read reads from the underlying reader, recording its first error other than io.EOF.
func (e *errTrap) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// next returns the next non-blank line, or nil at the end of the input. The
// line is valid until the next call.
func (lr *lineReader) next() ([]byte, error) {
	for lr.sc.Scan() {
		lr.line++
		b := lr.sc.Bytes()
		if lr.line == 1 {
			if enc := utf16Text(b); enc != "" {
				how := ""
				if !strings.HasSuffix(lr.name, ".gz") {
					how = fmt.Sprintf(", e.g. iconv -f %s -t UTF-8 %s > %s-utf8.csv", enc, lr.name, strings.TrimSuffix(lr.name, filepath.Ext(lr.name)))
				}
				return nil, fmt.Errorf("%s:1: the file seems to be UTF-16 text (a UTF-16 byte-order mark, or a NUL byte beside every character); save it as UTF-8%s", lr.name, how)
			}
			b = stripBOM(b)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		// ScanLines drops the '\r' of a CRLF line end: one left inside a line without quotes is a line end of a file
		// whose lines end in a bare CR, which would otherwise read as one long line (whitespace-separated values all
		// in one row). A line with a quote may hold a CR inside a quoted CSV field; the CSV reader judges it.
		if i := bytes.IndexByte(b, '\r'); i >= 0 && bytes.IndexByte(b, '"') < 0 {
			return nil, fmt.Errorf("%s:%d: a carriage return (\\r) inside the line, after %d bytes: the lines seem to end in a bare CR "+
				"(classic Mac OS); convert the line ends to LF (e.g. tr '\\r' '\\n')", lr.name, lr.line, i)
		}
		return b, nil
	}
	if err := lr.sc.Err(); err != nil {
		if be := budgetError(err); be != nil {
			return nil, be
		}
		if errors.Is(err, bufio.ErrTooLong) {
			if lr.max < maxLine {
				return nil, &BudgetError{
					Name:   lr.name + ":" + strconv.Itoa(lr.line+1),
					What:   "line longer than " + strconv.Itoa(lr.max) + " bytes: a line may take at most 1/" + strconv.Itoa(lineShare) + " of the memory budget",
					Budget: lr.budget,
				}
			}
			return nil, fmt.Errorf("%s:%d: line longer than %d MiB", lr.name, lr.line+1, maxLine>>20)
		}
		return nil, fmt.Errorf("%s:%d: read error: %w", lr.name, lr.line+1, err)
	}
	return nil, nil
}

var bom = []byte("\xef\xbb\xbf")

// utf16Text returns iconv's name of the encoding of the first line of a file that is UTF-16 rather than text in an
// ASCII-compatible encoding — it starts with a UTF-16 byte-order mark ("UTF-16"), or about every other byte is NUL,
// the high byte of an ASCII character in UTF-16 ("UTF-16LE" when the first is at an odd offset, else "UTF-16BE") —
// or "".
func utf16Text(line []byte) string {
	switch i := bytes.IndexByte(line, 0); {
	case bytes.HasPrefix(line, []byte{0xff, 0xfe}) || bytes.HasPrefix(line, []byte{0xfe, 0xff}):
		return "UTF-16"
	case i < 0 || 5*bytes.Count(line, []byte{0}) < 2*len(line): // fewer than 40%: a stray NUL, not UTF-16
		return ""
	case i%2 == 1:
		return "UTF-16LE"
	default:
		return "UTF-16BE"
	}
}

func stripBOM(b []byte) []byte { return bytes.TrimPrefix(b, bom) }

func indexByte(b []byte, c byte) int { return bytes.IndexByte(b, c) }

func trimSpace(b []byte) []byte { return bytes.TrimSpace(b) }

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// fieldsBlank appends to dst the fields of line separated by runs of blanks.
func fieldsBlank(line []byte, dst [][]byte) [][]byte {
	i := 0
	for {
		for i < len(line) && isBlank(line[i]) {
			i++
		}
		if i == len(line) {
			return dst
		}
		j := i
		for j < len(line) && !isBlank(line[j]) {
			j++
		}
		dst = append(dst, line[i:j:j])
		i = j
	}
}

// parseNum parses a numeric field. On failure it returns a message (without
// file, line or column) saying what is wrong; msg == "" means success.
// Values that underflow are rounded to 0 or a subnormal and accepted.
func parseNum(f []byte) (v float64, msg string) {
	if len(f) == 0 {
		return 0, "empty value"
	}
	v, err := numparse.ParseField(string(f), 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			if !math.IsInf(v, 0) {
				return v, ""
			}
			return 0, quote(f) + " is out of range"
		}
		if _, gerr := strconv.ParseFloat(string(f), 64); gerr == nil || errors.Is(gerr, strconv.ErrRange) {
			return 0, quote(f) + " is not a number (write it without the digit separators _)"
		}
		return 0, quote(f) + " is not a number"
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, "NaN/Inf not allowed (" + quote(f) + ")"
	}
	return v, ""
}

// isNumeric reports whether a field parses as a number (NaN, Inf and values
// out of range included: they are numbers, only not allowed ones).
func isNumeric(f []byte) bool {
	if len(f) == 0 {
		return false
	}
	_, err := numparse.ParseField(string(f), 64)
	return err == nil || errors.Is(err, strconv.ErrRange)
}

// quote quotes a field for an error message, shortening long ones.
func quote(f []byte) string {
	const max = 40
	if len(f) > max {
		return strconv.Quote(string(f[:max])) + "…"
	}
	return strconv.Quote(string(f))
}
