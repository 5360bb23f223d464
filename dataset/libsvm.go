package dataset

import (
	"bytes"
	"fmt"
	"io"
	"slices"
)

// ReadLibSVM reads LibSVM / SVMlight text from r and densifies it. name is
// used in error messages.
//
// Each non-blank line is "label idx:val idx:val …" with 1-based feature
// indices; text after '#' is a comment; "qid:…" fields (SVMlight ranking) are
// skipped. Indices need not be sorted but may not repeat within a line.
// Missing features are 0. D is the largest index that occurs. Y holds the
// labels as numbers (e.g. +1/-1, or 1..10); Names are "x1" … "xD" and
// TargetName is "label".
//
// ReadLibSVM reads within the default memory budget, DefaultMaxBytes;
// Options.ReadLibSVM takes the budget from its Options.
func ReadLibSVM(r io.Reader, name string) (*Data, error) {
	return Options{}.ReadLibSVM(r, name)
}

// ReadLibSVM is the function ReadLibSVM within the memory budget o.MaxBytes,
// which bounds the input, the sparse entries (12 bytes each) and the labels
// as they are read, and then the dense N×D matrix before it is allocated: a
// *BudgetError names the line of the largest feature index, which sets D. A
// dense matrix larger than the memory available (see DefaultMaxBytes) is
// refused whatever the budget, with an error that is not a *BudgetError,
// since raising the budget cannot help: the file is likely corrupt.
// o.Target "none" drops the labels (Y is nil); "" keeps them; other targets
// are an error, and so is a nil r. o.Width pads narrower files with zero
// columns. o.Format and o.Labels are ignored.
func (o Options) ReadLibSVM(r io.Reader, name string) (*Data, error) {
	if r == nil {
		return nil, errNilReader
	}
	if _, err := dropTarget(name, o.Target, FormatLibSVM); err != nil {
		return nil, err
	}
	b := newBudget(name, o.MaxBytes)
	r, err := limitInput(b, r, inputSize(r), false)
	if err != nil {
		return nil, err
	}
	return readLibSVM(r, name, o.Target, o.Width, b)
}

// readLibSVM is ReadLibSVM with the budget b, which r already enforces on the input.
func readLibSVM(r io.Reader, name, target string, width int, b *budget) (*Data, error) {
	drop, err := dropTarget(name, target, FormatLibSVM)
	if err != nil {
		return nil, err
	}
	lr := newLineReader(r, name, b.limit)
	var (
		y      []float64
		idx    []int32   // feature indices (1-based), all rows
		val    []float64 // feature values
		rowEnd []int     // row i has idx[rowEnd[i-1]:rowEnd[i]]
		fields [][]byte
		scr    []int32
		maxIdx int
		maxAt  int // the line where maxIdx first occurs
	)
	for {
		line, err := lr.next()
		if err != nil {
			return nil, err
		}
		if line == nil {
			break
		}
		if i := indexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fields = fieldsBlank(line, fields[:0])
		if len(fields) == 0 {
			continue
		}
		lab, msg := parseNum(fields[0])
		if msg != "" {
			if indexByte(fields[0], ':') >= 0 {
				return nil, fmt.Errorf("%s:%d: missing label: the line starts with the feature %s", name, lr.line, quote(fields[0]))
			}
			return nil, fmt.Errorf("%s:%d: bad label: %s", name, lr.line, msg)
		}
		start, prev, sorted := len(idx), 0, true
		for _, f := range fields[1:] {
			c := indexByte(f, ':')
			if c < 0 {
				return nil, fmt.Errorf("%s:%d: bad feature %s (want index:value)", name, lr.line, quote(f))
			}
			if bytes.Equal(f[:c], []byte("qid")) {
				continue
			}
			k, ok := parseIndex(f[:c])
			if !ok {
				if isDigits(f[:c]) {
					return nil, fmt.Errorf("%s:%d: bad feature %s (the index is above the largest a column may have, %d)", name, lr.line, quote(f), 1<<31-1)
				}
				return nil, fmt.Errorf("%s:%d: bad feature %s (the index must be a positive integer)", name, lr.line, quote(f))
			}
			if k == 0 {
				return nil, fmt.Errorf("%s:%d: bad feature %s (indices are 1-based)", name, lr.line, quote(f))
			}
			v, msg := parseNum(f[c+1:])
			if msg != "" {
				return nil, fmt.Errorf("%s:%d: bad feature %s: %s", name, lr.line, quote(f), msg)
			}
			if k <= prev {
				sorted = false
			}
			prev = k
			if k > maxIdx {
				maxIdx, maxAt = k, lr.line
			}
			if idx, err = grow(b, idx, 1, lr.line, parsedData); err != nil {
				return nil, err
			}
			if val, err = grow(b, val, 1, lr.line, parsedData); err != nil {
				return nil, err
			}
			idx = append(idx, int32(k))
			val = append(val, v)
		}
		if !sorted {
			scr = append(scr[:0], idx[start:]...)
			slices.Sort(scr)
			for i := 1; i < len(scr); i++ {
				if scr[i] == scr[i-1] {
					return nil, fmt.Errorf("%s:%d: feature index %d repeated", name, lr.line, scr[i])
				}
			}
		}
		if y, err = grow(b, y, 1, lr.line, parsedData); err != nil {
			return nil, err
		}
		if rowEnd, err = grow(b, rowEnd, 1, lr.line, parsedData); err != nil {
			return nil, err
		}
		y = append(y, lab)
		rowEnd = append(rowEnd, len(idx))
	}
	n := len(y)
	if n == 0 {
		return nil, fmt.Errorf("%s: empty file", name)
	}
	if maxIdx == 0 && width <= 0 {
		return nil, fmt.Errorf("%s: no features (every line has only a label)", name)
	}
	d := max(maxIdx, width)
	need := satAdd(satMul(satMul(int64(n), int64(d)), 8), nameCost*int64(d)) // X and the names of its columns
	if avail := memoryAvailable(); avail > 0 && need > avail && d > width {
		// No budget can make this fit: say which index sets the width, and do not suggest raising the budget.
		return nil, fmt.Errorf("%s:%d: feature index %d makes %d rows × %d columns (%s), more than the memory available (%s); is the file corrupt? (a LibSVM file is densified: its largest feature index sets the number of columns)",
			name, maxAt, d, n, d, formatBytes(need), formatBytes(avail))
	}
	what := fmt.Sprintf("densifying %d rows × %d features (feature index %d sets the width)", n, d, d)
	if d > maxIdx {
		what = fmt.Sprintf("densifying %d rows × %d features (padded to the width asked)", n, d)
	}
	if err := b.charge(need, maxAt, what); err != nil {
		return nil, err
	}
	x := make([]float64, n*d)
	s := 0
	for i, e := range rowEnd {
		row := x[i*d : (i+1)*d]
		for k := s; k < e; k++ {
			row[idx[k]-1] = val[k]
		}
		s = e
	}
	if drop {
		return &Data{X: x, N: n, D: d, Names: genNames(d)}, nil
	}
	return &Data{X: x, N: n, D: d, Y: y, Names: genNames(d), TargetName: "label"}, nil
}

// parseIndex parses a non-negative decimal integer that fits in an int32.
// isDigits reports whether b is a non-empty run of decimal digits.
func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

func parseIndex(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 10 {
		return 0, false
	}
	k := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		k = k*10 + int(c-'0')
	}
	if k > 1<<31-1 {
		return 0, false
	}
	return k, true
}
