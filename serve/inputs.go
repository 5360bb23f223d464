package serve

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
)

// apiError is an answer other than 200: a status code and a message for the client, which names the input at
// fault and never holds a file path or a stack.
type apiError struct {
	code int
	msg  string
}

// Error returns the message sent to the client.
func (e *apiError) Error() string { return e.msg }

func errorf(code int, format string, a ...any) *apiError {
	return &apiError{code, fmt.Sprintf(format, a...)}
}

// nameList lists names for a message, quoted, the first few only.
func nameList(names []string) string {
	const max = 8
	q := make([]string, 0, max+1)
	for i, n := range names {
		if i == max {
			q = append(q, fmt.Sprintf("… (%d in all)", len(names)))
			break
		}
		q = append(q, quote(n))
	}
	return strings.Join(q, ", ")
}

func shapeString(shape []int64) string {
	s := make([]string, len(shape))
	for i, d := range shape {
		s[i] = fmt.Sprint(d)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// precision is the bit size a tensor's numbers are parsed with.
func precision(datatype string) int {
	if datatype == "FP32" {
		return 32
	}
	return 64
}

// inputs assembles the n×d input matrix of e (columns in the model's order) from the tensors of req, into buf
// (grown as needed). A request holds either one [n, d] tensor (any name; [n] too when d = 1), or one tensor per
// input column, named after it, of shape [n] or [n, 1]. Shapes are checked against the data before anything is
// parsed; NaN and infinite values are refused with their row and column.
func (e *entry) inputs(req *request, maxRows int, buf []float64) ([]float64, int, *apiError) {
	if len(req.inputs) == 0 {
		return nil, 0, errorf(http.StatusBadRequest, "the request has no inputs")
	}
	for i := range req.inputs {
		t := &req.inputs[i]
		if t.has&hasName == 0 {
			return nil, 0, errorf(http.StatusBadRequest, "input %d has no name", i+1)
		}
		for _, f := range []struct {
			bit   uint8
			field string
		}{{hasShape, "shape"}, {hasDatatype, "datatype"}, {hasData, "data"}} {
			if t.has&f.bit == 0 {
				return nil, 0, errorf(http.StatusBadRequest, "input %s has no %q", quote(t.name), f.field)
			}
		}
		if t.datatype != "FP64" && t.datatype != "FP32" {
			return nil, 0, errorf(http.StatusBadRequest, "input %s: datatype %s is not supported (send FP64 or FP32)",
				quote(t.name), quote(t.datatype))
		}
		if t.bad != "" {
			return nil, 0, errorf(http.StatusBadRequest, "input %s: %s", quote(t.name), t.bad)
		}
		if len(t.shape) < 1 || len(t.shape) > 2 {
			return nil, 0, errorf(http.StatusBadRequest, "input %s: shape %s must be [n, d] or [n]", quote(t.name), shapeString(t.shape))
		}
	}
	d := e.dim
	t0 := &req.inputs[0]
	single := len(req.inputs) == 1
	if single && len(t0.shape) == 2 && t0.shape[1] != int64(d) && (t0.shape[1] != 1 || !e.hasColumn(t0.name)) {
		return nil, 0, errorf(http.StatusBadRequest, "input %s: shape %s, but the model takes %d columns: send an [n, %d] tensor, or one [n] tensor per input column (%s)",
			quote(t0.name), shapeString(t0.shape), d, d, nameList(e.info.Inputs))
	}
	if single && (len(t0.shape) == 2 && t0.shape[1] == int64(d) || len(t0.shape) == 1 && d == 1) {
		n, err := e.rows(t0.shape[0], maxRows)
		if err != nil {
			return nil, 0, err
		}
		if err := fits(t0); err != nil {
			return nil, 0, err
		}
		X := grow(buf, n*d)
		if t0.datatype == "FP64" && len(t0.vals) == n*d && &t0.vals[0] == &X[0] {
			return X, n, nil // the grammar pass already read the values into buf (parseRequestInto)
		}
		if err := e.parse(t0, X, 0, 1); err != nil {
			return nil, 0, err
		}
		return X, n, nil
	}
	// one tensor per column
	col := make([]int, len(req.inputs))
	seen := make([]bool, d)
	n := -1
	for i := range req.inputs {
		t := &req.inputs[i]
		j, ok := e.column[t.name]
		if !ok {
			return nil, 0, errorf(http.StatusBadRequest, "unknown input %s: send one [n, %d] tensor, or one [n] tensor per input column (%s)",
				quote(t.name), d, nameList(e.info.Inputs))
		}
		if seen[j] {
			return nil, 0, errorf(http.StatusBadRequest, "input %s is given twice", quote(t.name))
		}
		seen[j], col[i] = true, j
		if len(t.shape) == 2 && t.shape[1] != 1 {
			return nil, 0, errorf(http.StatusBadRequest, "input %s: shape %s, want [n] or [n, 1] (one column)", quote(t.name), shapeString(t.shape))
		}
		if n >= 0 && t.shape[0] != int64(n) {
			return nil, 0, errorf(http.StatusBadRequest, "input %s has %d rows, input %s %d", quote(t.name), t.shape[0],
				quote(req.inputs[0].name), n)
		}
		m, err := e.rows(t.shape[0], maxRows)
		if err != nil {
			return nil, 0, err
		}
		n = m
		if err := fits(t); err != nil {
			return nil, 0, err
		}
	}
	var missing []string
	for j, ok := range seen {
		if !ok {
			missing = append(missing, e.info.Inputs[j])
		}
	}
	if missing != nil {
		return nil, 0, errorf(http.StatusBadRequest, "missing input column(s) %s: send one [n] tensor per input column, or one [n, %d] tensor",
			nameList(missing), d)
	}
	X := grow(buf, n*d)
	for i := range req.inputs {
		if err := e.parse(&req.inputs[i], X, col[i], d); err != nil {
			return nil, 0, err
		}
	}
	return X, n, nil
}

func (e *entry) hasColumn(name string) bool {
	_, ok := e.column[name]
	return ok
}

// fits checks that the data of tensor t (of rank 1 or 2, its row count checked) hold the values of its shape: flat,
// or nested exactly as the shape (an [n, d] tensor as n arrays of d numbers), row-major.
func fits(t *tensor) *apiError {
	want := int64(1)
	for _, d := range t.shape {
		if d > 0 && want > math.MaxInt64/d { // only a row limit near the largest int lets such a shape this far
			return errorf(http.StatusRequestEntityTooLarge, "input %s: shape %s holds more values than any request can",
				quote(t.name), shapeString(t.shape))
		}
		want *= d
	}
	expect := func() string {
		if len(t.shape) == 2 {
			return fmt.Sprintf("send %d numbers, flat or nested as %d arrays of %d numbers", want, t.shape[0], t.shape[1])
		}
		return fmt.Sprintf("send %d numbers in one flat array", want)
	}
	nest := &t.nest
	switch {
	case nest.irregular != "":
		return errorf(http.StatusBadRequest, "input %s: the data's arrays are not nested as shape %s (%s): %s",
			quote(t.name), shapeString(t.shape), nest.irregular, expect())
	case nest.depth == 1:
		if int64(t.count) != want {
			return errorf(http.StatusBadRequest, "input %s: shape %s holds %d values, data has %d",
				quote(t.name), shapeString(t.shape), want, t.count)
		}
		return nil
	}
	dims := make([]int64, nest.depth)
	for k := range dims {
		dims[k] = int64(nest.dims[k])
	}
	if !slices.Equal(dims, t.shape) {
		return errorf(http.StatusBadRequest, "input %s: data nested as %s, not as shape %s: %s",
			quote(t.name), shapeString(dims), shapeString(t.shape), expect())
	}
	return nil
}

// rows checks a row count.
func (e *entry) rows(n int64, maxRows int) (int, *apiError) {
	switch {
	case n < 1:
		return 0, errorf(http.StatusBadRequest, "the request has no rows")
	case n > int64(maxRows):
		return 0, errorf(http.StatusRequestEntityTooLarge, "the request has %d rows; at most %d are taken at once", n, maxRows)
	}
	return int(n), nil
}

// parse parses tensor t's data into X[off + k·stride].
func (e *entry) parse(t *tensor, X []float64, off, stride int) *apiError {
	s := scanner{b: t.data}
	_, bad, kind, err := s.data(X, off, stride, precision(t.datatype), nil)
	if err != nil {
		return errorf(http.StatusBadRequest, "input %s: %v", quote(t.name), err)
	}
	if bad < 0 {
		return nil
	}
	what := map[int]string{isNaN: "NaN", isPosInf: "+Inf", isNegInf: "-Inf",
		tooLarge: "+Inf (beyond the range of " + t.datatype + ")", tooLargeNeg: "-Inf (beyond the range of " + t.datatype + ")"}[kind]
	row, j := bad+1, off
	if stride == 1 {
		row, j = bad/e.dim+1, bad%e.dim
	}
	return errorf(http.StatusBadRequest, "input %s: row %d, column %d (%s) is %s: inputs must be finite",
		quote(t.name), row, j+1, quote(e.info.Inputs[j]), what)
}

// grow returns buf resliced to n values, reallocated when too small.
func grow(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n)
	}
	return buf[:n]
}
