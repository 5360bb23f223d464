package serve

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rffkit/rff/internal/numparse"
)

// maxDepth bounds the nesting of JSON values: deeper input is refused, so no request can exhaust the stack.
const maxDepth = 64

// maxRank and maxOutputs bound the small lists of a request.
const (
	maxRank    = 8
	maxOutputs = 16
)

// request is an inference request as parsed from its JSON body, before it is matched to a model: the tensors'
// data stay in the body as byte ranges, checked for grammar and counted, and are parsed into numbers only once the
// shapes are known to be right (decodeInputs).
type request struct {
	id      string
	hasID   bool
	inputs  []tensor
	outputs []string // the requested outputs, in order; nil: all of them
}

// tensor is one input tensor of a request.
type tensor struct {
	name     string
	datatype string
	shape    []int64
	data     []byte    // the JSON array, as sent
	vals     []float64 // the 64-bit values of data's numbers when the grammar pass kept them all (scanner.vals), or nil
	count    int       // the numbers in data
	nest     nesting   // how data is nested
	bad      string    // why data is not an array of numbers ("" when it is), reported once the datatype is checked
	has      uint8     // which fields were present: hasName | hasShape | …
}

// nesting is how a tensor's data are nested, as the grammar pass finds it: the length of the arrays at each depth
// when the data form a regular array (all the arrays at a depth have the same length and hold only numbers or
// only arrays), or why they do not.
type nesting struct {
	depth     int          // 1 for a flat array
	dims      [maxRank]int // the length of the arrays at depth 1 … depth
	irregular string       // why the arrays do not form a regular array ("" when they do)
}

const (
	hasName = 1 << iota
	hasShape
	hasDatatype
	hasData
)

// syntaxError is a malformed request body.
type syntaxError struct {
	off int
	msg string
}

// Error returns the message with the byte offset of the error.
func (e *syntaxError) Error() string { return fmt.Sprintf("invalid JSON at byte %d: %s", e.off, e.msg) }

// scanner reads JSON from a byte slice. It implements the grammar of RFC 8259 without building values, so the
// caller decides what to keep; every method either advances past a complete token or returns an error.
type scanner struct {
	b []byte
	i int

	// vals, while collect holds, receives the value of every number the grammar pass of data reads, at 64 bits, as
	// long as each is a plain number inside Clinger's fast path and vals has capacity left (it never grows): the
	// values parse would write for an FP64 tensor, so that one [n, d] FP64 tensor is read once.
	vals    []float64
	collect bool
}

func (s *scanner) fail(msg string) error { return &syntaxError{s.i, msg} }

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// consume skips white space and then c, reporting whether c was there.
func (s *scanner) consume(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads a string token and returns its contents (escapes decoded).
func (s *scanner) str() (string, error) {
	s.ws()
	if s.peek() != '"' {
		return "", s.fail("expected a string")
	}
	start := s.i
	s.i++
	esc := false
	for {
		if s.i >= len(s.b) {
			return "", s.fail("unterminated string")
		}
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			if !esc {
				return string(s.b[start+1 : s.i-1]), nil
			}
			var v string
			if err := json.Unmarshal(s.b[start:s.i], &v); err != nil {
				return "", &syntaxError{start, "bad string"}
			}
			return v, nil
		case c == '\\':
			esc = true
			if s.i+1 >= len(s.b) {
				return "", s.fail("unterminated string")
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					return "", s.fail("unterminated string")
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !isHex(h) {
						return "", s.fail(`bad \u escape`)
					}
				}
				s.i += 6
			default:
				return "", s.fail("bad escape in string")
			}
		case c < 0x20:
			return "", s.fail("control character in string")
		default:
			s.i++
		}
	}
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// special values a client may write in place of a number (Python's json module does): they are read so that the
// error can say which value is not finite, and refused.
const (
	finite = iota
	isNaN
	isPosInf
	isNegInf
	tooLarge    // a number beyond the range of the datatype, positive
	tooLargeNeg // … negative
)

// number reads a JSON number (or NaN, Infinity, -Infinity when special is set) and returns its text and kind.
func (s *scanner) number(special bool) ([]byte, int, error) {
	s.ws()
	start := s.i
	neg := s.peek() == '-'
	if neg {
		s.i++
	}
	if special {
		if lit := "Infinity"; s.hasPrefix(lit) {
			s.i += len(lit)
			if neg {
				return s.b[start:s.i], isNegInf, nil
			}
			return s.b[start:s.i], isPosInf, nil
		}
		if lit := "NaN"; !neg && s.hasPrefix(lit) {
			s.i += len(lit)
			return s.b[start:s.i], isNaN, nil
		}
	}
	switch c := s.peek(); {
	case c == '0':
		s.i++
	case '1' <= c && c <= '9':
		for s.i < len(s.b) && isDigit(s.b[s.i]) {
			s.i++
		}
	default:
		return nil, 0, s.fail(notA("expected a number", s.b[start:]))
	}
	if s.peek() == '.' {
		s.i++
		if !isDigit(s.peek()) {
			return nil, 0, s.fail("expected a digit after the decimal point")
		}
		for s.i < len(s.b) && isDigit(s.b[s.i]) {
			s.i++
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if !isDigit(s.peek()) {
			return nil, 0, s.fail("expected a digit in the exponent")
		}
		for s.i < len(s.b) && isDigit(s.b[s.i]) {
			s.i++
		}
	}
	return s.b[start:s.i], finite, nil
}

// plain reads a plain JSON number at the scanner's position (no white space before it) in one pass — checking its
// grammar as number does and collecting its decimal significand m (up to 19 significant digits) and exponent for
// clinger — which is what a tensor's data hold. For anything else (NaN, Infinity, a syntax error, more than 19
// significant digits, an exponent beyond 1000) it returns ok false without advancing, and the general reader
// (number, then strconv) reads or refuses it.
func (s *scanner) plain() (m uint64, exp int, neg, ok bool) {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	digits := 0
	// digit adds digit c to m (leading zeros are not significant); false past 19 significant digits.
	digit := func(c byte) bool {
		if digits == 19 {
			return false
		}
		if m = m*10 + uint64(c-'0'); m != 0 {
			digits++
		}
		return true
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for ; i < len(b) && isDigit(b[i]); i++ {
			if !digit(b[i]) {
				return 0, 0, false, false
			}
		}
	default:
		return 0, 0, false, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return 0, 0, false, false
		}
		for ; i < len(b) && isDigit(b[i]); i++ {
			if !digit(b[i]) {
				return 0, 0, false, false
			}
			exp--
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		sign := 1
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			if b[i] == '-' {
				sign = -1
			}
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return 0, 0, false, false
		}
		e := 0
		for ; i < len(b) && isDigit(b[i]); i++ {
			if e > 1000 {
				return 0, 0, false, false
			}
			e = e*10 + int(b[i]-'0')
		}
		exp += sign * e
	}
	s.i = i
	return m, exp, neg, true
}

func (s *scanner) hasPrefix(lit string) bool {
	return len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit
}

// object reads an object, calling field for each key with the scanner positioned at the value, which field must
// consume.
func (s *scanner) object(field func(key string) error) error {
	if !s.consume('{') {
		return s.fail("expected an object")
	}
	if s.consume('}') {
		return nil
	}
	for {
		key, err := s.str()
		if err != nil {
			return err
		}
		if !s.consume(':') {
			return s.fail("expected ':'")
		}
		if err := field(key); err != nil {
			return err
		}
		if s.consume(',') {
			continue
		}
		if s.consume('}') {
			return nil
		}
		return s.fail("expected ',' or '}'")
	}
}

// array reads an array, calling elem with the scanner positioned at each element, which elem must consume.
func (s *scanner) array(elem func() error) error {
	if !s.consume('[') {
		return s.fail("expected an array")
	}
	if s.consume(']') {
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		if s.consume(',') {
			continue
		}
		if s.consume(']') {
			return nil
		}
		return s.fail("expected ',' or ']'")
	}
}

// skip reads any value and drops it.
func (s *scanner) skip(depth int) error {
	if depth > maxDepth {
		return s.fail("values nested too deeply")
	}
	s.ws()
	switch c := s.peek(); c {
	case '{':
		return s.object(func(string) error { return s.skip(depth + 1) })
	case '[':
		return s.array(func() error { return s.skip(depth + 1) })
	case '"':
		_, err := s.str()
		return err
	case 't', 'f', 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if s.hasPrefix(lit) {
				s.i += len(lit)
				return nil
			}
		}
		return s.fail("unexpected literal")
	default:
		_, _, err := s.number(false)
		return err
	}
}

// data reads a tensor's data: an array of numbers, possibly nested (row-major, at most maxRank deep), flattened.
// With dst nil it only checks the grammar, counts the numbers and, when nest is not nil, records how they are
// nested; otherwise it parses number k into dst[off+k*stride] with the precision of bits (64 or 32) and stops at
// the first value that is not finite, returning its index and kind. The nesting is followed with a counter, not
// recursion.
func (s *scanner) data(dst []float64, off, stride, bits int, nest *nesting) (count, bad, kind int, err error) {
	if !s.consume('[') {
		return 0, 0, 0, s.fail(notA("data must be an array of numbers", s.b[s.i:]))
	}
	var (
		length          [maxRank + 1]int // the elements so far of the array open at each depth
		numbers, arrays uint16           // bit k: an array at depth k holds a number, an array
		nst             = nesting{depth: 1}
	)
	for k := range nst.dims {
		nst.dims[k] = -1
	}
	// closed records the length of an array at depth k as it closes.
	closed := func(k int) {
		switch d := &nst.dims[k-1]; {
		case *d < 0:
			*d = length[k]
		case *d != length[k] && nst.irregular == "":
			nst.irregular = fmt.Sprintf("arrays of %d and %d elements at depth %d", *d, length[k], k)
		}
	}
	depth, open := 1, true // open: just after '[', where ']' may close an empty array
	for depth > 0 {
		s.ws()
		c := s.peek()
		switch {
		case open && c == ']':
			s.i++
			closed(depth)
			depth--
		case c == '[':
			if depth == maxRank {
				return 0, 0, 0, s.fail(fmt.Sprintf("data nested too deeply: more than %d levels (at most one per dimension of the shape)", maxRank))
			}
			length[depth]++
			arrays |= 1 << depth
			depth++
			length[depth] = 0
			nst.depth = max(nst.depth, depth)
			s.i++
			open = true
			continue
		case c == '-' || isDigit(c) || c == 'N' || c == 'I':
			// The common case in one pass: a plain number whose value Clinger's fast path gives (or, with dst nil, any
			// plain number); everything else, from the same position, by the general reader below.
			p0 := s.i
			if m, exp, neg, ok := s.plain(); ok {
				if dst == nil {
					if s.collect {
						if v, ok := clinger(m, exp, neg, 64); ok && len(s.vals) < cap(s.vals) {
							s.vals = append(s.vals, v)
						} else {
							s.collect = false
						}
					}
					length[depth]++
					numbers |= 1 << depth
					count++
					break
				}
				if v, ok := clinger(m, exp, neg, bits); ok {
					if off+count*stride >= len(dst) {
						return 0, 0, 0, s.fail("more numbers than the shape holds")
					}
					dst[off+count*stride] = v
					length[depth]++
					numbers |= 1 << depth
					count++
					break
				}
				s.i = p0
			}
			s.collect = false // a number the fast path does not read: the tensor is parsed again
			text, k, err := s.number(true)
			if err != nil {
				return 0, 0, 0, err
			}
			length[depth]++
			numbers |= 1 << depth
			if dst != nil {
				if off+count*stride >= len(dst) {
					return 0, 0, 0, s.fail("more numbers than the shape holds")
				}
				if k != finite {
					return count, count, k, nil
				}
				// what plain and clinger could not read: beyond the fast path's range, or ±Inf when out of range
				v, err := numparse.ParseFloat(string(text), bits)
				if err != nil {
					kind := tooLarge
					if v < 0 {
						kind = tooLargeNeg
					}
					return count, count, kind, nil
				}
				dst[off+count*stride] = v
			}
			count++
		default:
			return 0, 0, 0, s.fail(notA("data must hold numbers", s.b[s.i:]))
		}
		// after a value: ',' (at once, the common case) or one or more ']'
		open = false
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
			continue
		}
		for depth > 0 {
			if s.consume(',') {
				break
			}
			if !s.consume(']') {
				return 0, 0, 0, s.fail("expected ',' or ']'")
			}
			closed(depth)
			depth--
		}
	}
	if both := numbers & arrays; both != 0 && nst.irregular == "" {
		k := 0
		for both&(1<<k) == 0 {
			k++
		}
		nst.irregular = fmt.Sprintf("numbers and arrays side by side at depth %d", k)
	}
	if nest != nil {
		*nest = nst
	}
	return count, -1, finite, nil
}

// valueKind names the kind of JSON value that rest starts with, for error messages ("" when none does), and names
// the NaN and infinity spellings JSON lacks.
func valueKind(rest []byte) string {
	var c byte
	if len(rest) > 0 {
		c = rest[0]
	}
	switch word := strings.ToLower(string(rest[:min(len(rest), 4)])); {
	case strings.HasPrefix(word, "nan"), strings.HasPrefix(word, "inf"), strings.HasPrefix(word, "-inf"),
		strings.HasPrefix(word, "+inf"), strings.HasPrefix(word, "-nan"), strings.HasPrefix(word, "+nan"):
		return "a NaN or an infinity (a model predicts finite inputs only)"
	case c == 'n' && word != "null":
		return ""
	}
	switch {
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '-' || isDigit(c):
		return "a number"
	}
	return ""
}

// notA returns msg, followed by ", not" and the kind of value that rest starts with when there is one.
func notA(msg string, rest []byte) string {
	if k := valueKind(rest); k != "" {
		return msg + ", not " + k
	}
	return msg
}

var (
	pow10f64 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
		1e17, 1e18, 1e19, 1e20, 1e21, 1e22}
	pow10f32 = [...]float32{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10}
)

// clinger returns ±m·10^exp in the float type of bits (64 or 32) when Clinger's fast path applies: the decimal
// significand m is exact in the float type (m ≤ 2^53, or 2^24 for bits = 32) and so is 10^|exp| (|exp| ≤ 22, or
// 10), so m·10^exp or m/10^−exp is one correctly rounded operation — the value strconv.ParseFloat returns, without
// its general reader. ok is false otherwise, and the caller asks strconv.
func clinger(m uint64, exp int, neg bool, bits int) (v float64, ok bool) {
	if bits == 32 {
		if m > 1<<24 || exp < -10 || exp > 10 {
			return 0, false
		}
		f := float32(m)
		if exp < 0 {
			f /= pow10f32[-exp]
		} else {
			f *= pow10f32[exp]
		}
		if neg {
			f = -f
		}
		return float64(f), true
	}
	if m > 1<<53 || exp < -22 || exp > 22 {
		return 0, false
	}
	f := float64(m)
	if exp < 0 {
		f /= pow10f64[-exp]
	} else {
		f *= pow10f64[exp]
	}
	if neg {
		f = -f
	}
	return f, true
}

// parseRequest parses an inference request body (Open Inference Protocol v2, REST): the id, the inputs (at most
// maxInputs) with their names, shapes, datatypes and data, and the requested outputs. Unknown fields and the
// parameters objects are skipped; nothing after the top-level object but white space is allowed. A key the
// server reads ("id", "inputs", "outputs"; an input's "name", "shape", "datatype", "data"; an output's "name") may
// appear once in its object: a duplicate is refused rather than resolved silently.
func parseRequest(body []byte, maxInputs int) (*request, error) {
	return parseRequestInto(body, maxInputs, nil)
}

// parseRequestInto is parseRequest keeping, in vals (its capacity, which it never grows), the values of the tensors
// whose numbers are all plain and inside Clinger's fast path (tensor.vals): entry.inputs then takes one [n, d] FP64
// tensor without reading its numbers again.
func parseRequestInto(body []byte, maxInputs int, vals []float64) (*request, error) {
	s := &scanner{b: body, vals: vals[:0], collect: cap(vals) > 0}
	req := &request{}
	var seen uint8
	once := func(bit uint8, key string) error {
		if seen&bit != 0 {
			return fmt.Errorf("duplicate key %s in the request object: send each key once", quote(key))
		}
		seen |= bit
		return nil
	}
	err := s.object(func(key string) error {
		switch key {
		case "id":
			if err := once(1, key); err != nil {
				return err
			}
			id, err := s.str()
			req.id, req.hasID = id, true
			return err
		case "inputs":
			if err := once(2, key); err != nil {
				return err
			}
			return s.array(func() error {
				if len(req.inputs) >= maxInputs {
					return fmt.Errorf("too many inputs: the model takes one [n, d] tensor or one tensor per column (%d)", maxInputs)
				}
				var t tensor
				if err := s.input(&t, len(req.inputs)+1); err != nil {
					return err
				}
				req.inputs = append(req.inputs, t)
				return nil
			})
		case "outputs":
			if err := once(4, key); err != nil {
				return err
			}
			req.outputs = []string{}
			return s.array(func() error {
				if len(req.outputs) >= maxOutputs {
					return fmt.Errorf("too many outputs requested (at most %d)", maxOutputs)
				}
				k, named := len(req.outputs)+1, false
				err := s.object(func(key string) error {
					if key != "name" {
						return s.skip(1)
					}
					if named {
						return fmt.Errorf("duplicate key \"name\" in output %d: send each key once", k)
					}
					named = true
					name, err := s.str()
					req.outputs = append(req.outputs, name)
					return err
				})
				if err == nil && !named {
					err = fmt.Errorf("output %d has no \"name\": name each output asked for, as in {\"name\": %s}", k, quote(OutputPredictions))
				}
				return err
			})
		default:
			return s.skip(1)
		}
	})
	if err != nil {
		return nil, err
	}
	if s.ws(); s.i != len(s.b) {
		return nil, s.fail("data after the request object")
	}
	return req, nil
}

// input reads input tensor number k (from 1) of the request. Data that are JSON but not an array of numbers are
// not an error here: t.bad says why, reported once the datatype is checked (so that a BYTES or BOOL tensor is
// refused for its datatype).
func (s *scanner) input(t *tensor, k int) error {
	return s.object(func(key string) error {
		var bit uint8
		switch key {
		case "name":
			bit = hasName
		case "shape":
			bit = hasShape
		case "datatype":
			bit = hasDatatype
		case "data":
			bit = hasData
		}
		if t.has&bit != 0 {
			return fmt.Errorf("duplicate key %s in input %d: send each key once", quote(key), k)
		}
		t.has |= bit
		var err error
		switch key {
		case "name":
			t.name, err = s.str()
		case "datatype":
			t.datatype, err = s.str()
		case "shape":
			err = s.array(func() error {
				if len(t.shape) >= maxRank {
					return s.fail("shape has too many dimensions")
				}
				text, _, err := s.number(false)
				if err != nil {
					return err
				}
				v, err := strconv.ParseInt(string(text), 10, 64)
				if err != nil || v < 0 {
					return fmt.Errorf("shape dimensions must be whole numbers ≥ 0, not %s", clip(text))
				}
				t.shape = append(t.shape, v)
				return nil
			})
		case "data":
			start, v0 := s.i, len(s.vals)
			t.count, _, _, err = s.data(nil, 0, 0, 64, &t.nest)
			if err == nil && s.collect && len(s.vals)-v0 == t.count {
				t.vals = s.vals[v0:len(s.vals):len(s.vals)]
			}
			if serr, ok := err.(*syntaxError); ok { // every error of data is one
				if s.i = start; s.skip(1) == nil { // JSON, but not numbers
					t.bad, err = serr.msg, nil
				}
			}
			t.data = s.b[start:s.i]
		default:
			err = s.skip(1)
		}
		return err
	})
}

// quote returns s as a JSON string, for error messages: a string of more than 64 bytes (a name or datatype a client
// sent) is cut there, at a character boundary, and marked with an ellipsis, so an answer does not echo a long one.
func quote(s string) string {
	const max = 64
	cut := ""
	if len(s) > max {
		n := max
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s, cut = s[:n], "…"
	}
	b, _ := json.Marshal(s)
	return string(b) + cut
}

// clip shortens text quoted from a request for an error message.
func clip(b []byte) string {
	const max = 32
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
