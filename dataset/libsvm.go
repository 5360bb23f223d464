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
func ReadLibSVM(r io.Reader, name string) (*Data, error) {
	lr := newLineReader(r, name)
	var (
		y      []float64
		idx    []int32   // feature indices (1-based), all rows
		val    []float64 // feature values
		rowEnd []int     // row i has idx[rowEnd[i-1]:rowEnd[i]]
		fields [][]byte
		scr    []int32
		maxIdx int
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
			maxIdx = max(maxIdx, k)
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
		y = append(y, lab)
		rowEnd = append(rowEnd, len(idx))
	}
	n := len(y)
	if n == 0 {
		return nil, fmt.Errorf("%s: empty file", name)
	}
	if maxIdx == 0 {
		return nil, fmt.Errorf("%s: no features (every line has only a label)", name)
	}
	if maxIdx > maxDense/n {
		return nil, fmt.Errorf("%s: %d rows × %d features is too large to hold densely", name, n, maxIdx)
	}
	d := maxIdx
	x := make([]float64, n*d)
	s := 0
	for i, e := range rowEnd {
		row := x[i*d : (i+1)*d]
		for k := s; k < e; k++ {
			row[idx[k]-1] = val[k]
		}
		s = e
	}
	return &Data{X: x, N: n, D: d, Y: y, Names: genNames(d), TargetName: "label"}, nil
}

// parseIndex parses a non-negative decimal integer that fits in an int32.
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
