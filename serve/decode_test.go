package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// refInputs decodes an inference request with encoding/json, as the reference the hand-written decoder must agree
// with: the tensors' names, datatypes and their data flattened into float64 at their precision.
func refInputs(t *testing.T, body []byte) (names, datatypes []string, data [][]float64) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		t.Fatalf("the decoder took a body encoding/json refuses: %v\n%q", err, body)
	}
	for _, in := range top["inputs"].([]any) {
		m := in.(map[string]any)
		dt := m["datatype"].(string)
		bits := 64
		if dt == "FP32" {
			bits = 32
		}
		var flat []float64
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case []any:
				for _, e := range v {
					walk(e)
				}
			case json.Number:
				f, err := strconv.ParseFloat(string(v), bits)
				if err != nil {
					t.Fatalf("the decoder took %s", v)
				}
				flat = append(flat, f)
			default:
				t.Fatalf("the decoder took %T in data", v)
			}
		}
		walk(m["data"])
		names, datatypes, data = append(names, m["name"].(string)), append(datatypes, dt), append(data, flat)
	}
	return names, datatypes, data
}

// checkDecode decodes body for e and, when it is accepted, checks it against encoding/json: a body the decoder
// accepts is valid JSON, and the matrix holds exactly the numbers sent, in place.
func checkDecode(t *testing.T, e *entry, body []byte) {
	req, err := parseRequest(body, e.dim)
	// The same body read with an input buffer that keeps the grammar pass's values (the server's way) gives the
	// same error or the same bits.
	buf := make([]float64, 0, 1<<12)
	req2, err2 := parseRequestInto(body, e.dim, buf)
	if (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error() {
		t.Fatalf("parseRequest: %v, with kept values: %v, for %q", err, err2, body)
	}
	if err != nil {
		return
	}
	X, n, aerr := e.inputs(req, 1000, nil)
	X2, n2, aerr2 := e.inputs(req2, 1000, buf)
	if (aerr == nil) != (aerr2 == nil) || aerr != nil && aerr.Error() != aerr2.Error() {
		t.Fatalf("inputs: %v, with kept values: %v, for %q", aerr, aerr2, body)
	}
	if aerr == nil {
		if n2 != n || len(X2) != len(X) {
			t.Fatalf("%d rows, %d values; with kept values %d, %d, for %q", n, len(X), n2, len(X2), body)
		}
		for i := range X {
			if math.Float64bits(X[i]) != math.Float64bits(X2[i]) {
				t.Fatalf("value %d is %v, with kept values %v, for %q", i, X[i], X2[i], body)
			}
		}
	}
	if aerr != nil {
		if aerr.code != 400 && aerr.code != 413 {
			t.Fatalf("code %d for %q", aerr.code, body)
		}
		return
	}
	if !json.Valid(body) {
		t.Fatalf("accepted invalid JSON %q", body)
	}
	d := e.dim
	if n < 1 || len(X) != n*d {
		t.Fatalf("%d rows, %d values for %q", n, len(X), body)
	}
	for _, v := range X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("non-finite value accepted from %q", body)
		}
	}
	names, _, data := refInputs(t, body)
	if len(names) == 1 && len(data[0]) == n*d {
		for i := range X {
			if math.Float64bits(X[i]) != math.Float64bits(data[0][i]) {
				t.Fatalf("value %d is %v, encoding/json reads %v, in %q", i, X[i], data[0][i], body)
			}
		}
		return
	}
	for k, name := range names {
		j, ok := e.column[name]
		if !ok || len(data[k]) != n {
			t.Fatalf("input %q accepted as a column, in %q", name, body)
		}
		for i := 0; i < n; i++ {
			if math.Float64bits(X[i*d+j]) != math.Float64bits(data[k][i]) {
				t.Fatalf("row %d of %q is %v, encoding/json reads %v", i, name, X[i*d+j], data[k][i])
			}
		}
	}
}

func fuzzEntry(t testing.TB, name string) *entry {
	b, err := os.ReadFile(filepath.Join(golden, name+".rff"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := loadEntry(name, b, 0)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// FuzzDecodeInfer feeds arbitrary bodies to the inference request decoder and the whole infer handler: no input
// panics, every answer is 200 or a JSON error with a 4xx code, and what is accepted is valid JSON whose numbers
// land in the input matrix exactly as encoding/json reads them.
func FuzzDecodeInfer(f *testing.F) {
	for _, seed := range []string{
		`{"inputs":[{"name":"input","shape":[2,3],"datatype":"FP64","data":[1,2,3,4,5,6]}]}`,
		`{"id":"x","inputs":[{"name":"input","shape":[1,3],"datatype":"FP32","data":[[1.5e-3,-2E+2,3]]}],"outputs":[{"name":"predictions"}]}`,
		`{"inputs":[{"name":"temp","shape":[2],"datatype":"FP64","data":[1,2]},{"name":"pressure","shape":[2,1],"datatype":"FP64","data":[[3],[4]]},{"name":"humidity","shape":[2],"datatype":"FP64","data":[5,6]}]}`,
		`{"parameters":{"a":[1,{"b":null}],"c":true},"inputs":[{"name":"\u0069nput","parameters":{},"shape":[1,3],"datatype":"FP64","data":[0,-0,0.0]}]}`,
		`{"inputs":[{"name":"input","shape":[1,3],"datatype":"FP64","data":[NaN,Infinity,-Infinity]}]}`,
		`{"inputs":[{"name":"input","shape":[1,3],"datatype":"FP64","data":[1e400,1e-400,4.9e-324]}]}`,
		`{"inputs":[{"name":"input","shape":[1,3],"datatype":"FP64","data":[[[[1]]],[],[2,[3]]]}]}`,
		`{"inputs":[{"name":"input","shape":[100000000000,3],"datatype":"FP64","data":[]}]}`,
		`{"inputs":[{"name":"input","shape":[3,3],"datatype":"FP64","data":[9007199254740993,0.1,1e22,1e23,-0.0,123.456e-5,1E+2,4.9e-324,1.7976931348623157e308]}]}`,
		`{"inputs":[{"name":"input","shape":[1,3],"datatype":"FP32","data":[16777217,0.1,3.4028235e38]}]}`,
		`{"inputs":[]} `,
		`[1,2]`,
		"{\"inputs\":[{\"name\":\"a\xff\",\"shape\":[1],\"datatype\":\"FP64\",\"data\":[1]}]}",
		`{"inputs":[{"name":"input","shape":[2,3],"datatype":"FP64","data":[[1,2],[3,4,5,6]]}]}`,
		`{"inputs":[{"name":"input","shape":[2,3],"datatype":"FP64","data":[[[1,2,3]],[[4,5,6]]]}]}`,
		`{"inputs":[{"name":"input","shape":[1,3],"datatype":"BYTES","data":["a","b",{"c":[true,null]}]}]}`,
		`{"inputs":[{"name":"input","shape":[1,3],"datatype":"FP64","data":[1,2,3]}],"inputs":[],"outputs":[{"name":"a","name":"b"}]}`,
	} {
		f.Add([]byte(seed))
	}
	reg := fuzzEntry(f, "ridge-sr")
	cls := fuzzEntry(f, "cls-onehot")
	s, err := New(f.TempDir(), Options{MaxRows: 1000})
	if err != nil {
		f.Fatal(err)
	}
	s.models.Store(&modelSet{byName: map[string]*entry{"reg": reg, "cls": cls}, names: []string{"cls", "reg"}})
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body []byte) {
		checkDecode(t, reg, body)
		for _, name := range []string{"reg", "cls"} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("POST", "/v2/models/"+name+"/infer", bytes.NewReader(body)))
			var v map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
				t.Fatalf("answer %d is not JSON: %q", rec.Code, rec.Body)
			}
			switch {
			case rec.Code == 200:
				if _, ok := v["outputs"]; !ok {
					t.Fatalf("200 without outputs: %s", rec.Body)
				}
			case rec.Code == http.StatusBadRequest || rec.Code == http.StatusRequestEntityTooLarge:
				if msg, _ := v["error"].(string); msg == "" || strings.Contains(msg, "goroutine") {
					t.Fatalf("error answer %s", rec.Body)
				}
			default:
				t.Fatalf("code %d: %s", rec.Code, rec.Body)
			}
		}
	})
}

// appendString writes what encoding/json writes.
func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "setosa", `a"b\c`, "tab\tnew\nline\r", "\x00\x1f\x7f", "<&>", "é ü 中文 😀", "\u2028\u2029", "bad \xff\xfe utf8", "\xed\xa0\x80"} {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("setosa")
	f.Add("a\"\\\x00\xff\u2028<")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}

// The decoder parses a single-row request without an allocation per number.
func TestDecodeAllocations(t *testing.T) {
	e := fuzzEntry(t, "ovk-dec")
	X := randomRows(1, 50, e.dim)
	body := matrixBody(X, 50, e.dim, "FP64")
	buf := make([]float64, len(X))
	allocs := testing.AllocsPerRun(100, func() {
		req, err := parseRequest(body, e.dim)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, aerr := e.inputs(req, 1000, buf); aerr != nil {
			t.Fatal(aerr)
		}
	})
	// the request, its tensor list, the tensor's strings and shape, and closures: a handful, not 1000 numbers
	if allocs > 16 {
		t.Fatalf("%v allocations to decode 1000 numbers", allocs)
	}
}

// numberTexts returns the numbers of the fast-path tests: edge cases of Clinger's fast path and of the grammar, and
// random significands, decimal points, exponents and signs.
func numberTexts() []string {
	rng := rand.New(rand.NewPCG(11, 12))
	texts := []string{"0", "-0", "0.0", "-0.0e5", "1", "-1", "123456789012345678", "1234567890123456789",
		"12345678901234567890", "9007199254740992", "9007199254740993", "0.1", "0.3", "1e22", "1e23", "1e-22",
		"1e-23", "4.9e-324", "1.7976931348623157e308", "16777216", "16777217", "1e10", "1e11", "3.4028235e38",
		"0.000001", "123.456e-5", "1E+2", "1e-0", "0e999999", "1e99999999999"}
	for i := 0; i < 20000; i++ {
		m := rng.Uint64() >> rng.IntN(64)
		frac := rng.IntN(25)
		s := strconv.FormatUint(m, 10)
		if frac > 0 && frac < len(s) {
			s = s[:len(s)-frac] + "." + s[len(s)-frac:]
		}
		if rng.IntN(2) == 0 {
			s += "e" + strconv.Itoa(rng.IntN(60)-30)
		}
		if rng.IntN(2) == 0 {
			s = "-" + s
		}
		texts = append(texts, s, strconv.FormatFloat(rng.NormFloat64()*math.Pow(10, float64(rng.IntN(40)-20)), 'g', -1, 64),
			strconv.FormatFloat(float64(float32(rng.Float64())), 'g', -1, 32))
	}
	return texts
}

// fastFloat reads text as a tensor's number is read on the fast path (plain, then clinger): ok when both answer and
// plain reads all of text.
func fastFloat(text string, bits int) (float64, bool) {
	s := &scanner{b: []byte(text)}
	m, exp, neg, ok := s.plain()
	if !ok || s.i != len(text) {
		return 0, false
	}
	return clinger(m, exp, neg, bits)
}

// TestFastFloat: the fast path returns what strconv.ParseFloat returns, bit for bit, whenever it answers, and it
// answers for most numbers.
func TestFastFloat(t *testing.T) {
	texts := numberTexts()
	hits := [2]int{}
	for _, s := range texts {
		for k, bits := range []int{64, 32} {
			got, ok := fastFloat(s, bits)
			if !ok {
				continue
			}
			hits[k]++
			want, err := strconv.ParseFloat(s, bits)
			if err != nil || math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("fastFloat(%q, %d) = %v (%#x), strconv: %v (%#x) %v", s, bits, got, math.Float64bits(got), want, math.Float64bits(want), err)
			}
		}
	}
	if hits[0] < len(texts)/3 || hits[1] < len(texts)/10 {
		t.Fatalf("the fast path answered only %v of %d numbers", hits, len(texts))
	}
}

// TestDataNumbers reads every number of the fast-path tests, and malformed ones, as a tensor's data at both
// precisions: a valid number gives strconv's value (or the kind of its overflow), an invalid one the grammar's error,
// whichever reader (the one-pass plain numbers or the general reader) takes it.
func TestDataNumbers(t *testing.T) {
	texts := append(numberTexts(), "1e400", "-1e400", "1e-400", "123456789012345678901234567890", "NaN",
		"Infinity", "-Infinity", "0.1e-99999999999", "1e1000", "1e1001",
		"18446744073709551621", "1844674407370955162.1e1", "-18446744073709551616.5", "1e18446744073709551617",
		"1e9223372036854775808")
	bad := []string{"01", "-01", "1.", "-", ".5", "1e", "1e+", "1e-", "--1", "+1", "0x10", "1.e5", "-.5", "1ee5",
		"1.5.", "00", "Inf", "nan", "1e5.5", "1,", "1 2"}
	for _, text := range texts {
		for _, bits := range []int{64, 32} {
			s := &scanner{b: []byte("[" + text + "]")}
			dst := []float64{math.Pi}
			count, badAt, kind, err := s.data(dst, 0, 1, bits, nil)
			if err != nil || count != 1 && badAt < 0 {
				t.Fatalf("[%s] at %d bits: %d numbers, error %v", text, bits, count, err)
			}
			want, perr := strconv.ParseFloat(text, bits)
			switch {
			case text == "NaN" || strings.HasSuffix(text, "Infinity"):
				if badAt != 0 || kind == finite {
					t.Fatalf("[%s] at %d bits: not refused (kind %d)", text, bits, kind)
				}
			case perr != nil: // out of range
				if badAt != 0 || (kind == tooLarge) != (want > 0) || (kind == tooLargeNeg) != (want < 0) {
					t.Fatalf("[%s] at %d bits: kind %d at %d, strconv %v", text, bits, kind, badAt, want)
				}
			case badAt >= 0 || math.Float64bits(dst[0]) != math.Float64bits(want):
				t.Fatalf("[%s] at %d bits: %v (bad %d), strconv %v", text, bits, dst[0], badAt, want)
			}
		}
	}
	for _, text := range bad {
		for _, dst := range [][]float64{nil, {0, 0}} {
			s := &scanner{b: []byte("[" + text + "]")}
			if _, _, _, err := s.data(dst, 0, 1, 64, nil); err == nil {
				t.Fatalf("[%s] read (into %d values) without an error", text, len(dst))
			}
			if json.Valid([]byte("[" + text + "]")) {
				t.Fatalf("[%s] is valid JSON: not a bad case", text)
			}
		}
	}
}

// TestKeptValues: the grammar pass keeps the values of a tensor of plain numbers inside the fast path in the input
// buffer when they fit, and not otherwise; entry.inputs takes them for an [n, d] FP64 tensor (the same bits as parsing
// again, which checkDecode checks here and on every fuzz seed) and parses FP32 tensors again.
func TestKeptValues(t *testing.T) {
	e := fuzzEntry(t, "ridge-sr")
	d := e.dim
	body := func(datatype, first string, rows int) []byte {
		vals := []string{first}
		for len(vals) < rows*d {
			vals = append(vals, strconv.Itoa(len(vals))+".25")
		}
		return []byte(fmt.Sprintf(`{"inputs":[{"name":"input","shape":[%d,%d],"datatype":"%s","data":[%s]}]}`,
			rows, d, datatype, strings.Join(vals, ",")))
	}
	for _, c := range []struct {
		name, datatype, first string
		capacity              int
		kept                  bool
	}{
		{"plain", "FP64", "-0.5", 64, true},
		{"beyond the fast path", "FP64", "1e23", 64, false},
		{"15 digits", "FP64", "0.123456789012345", 64, true},
		{"17 digits", "FP64", "0.12345678901234567", 64, false}, // a significand beyond 2^53
		{"20 digits", "FP64", "0.12345678901234567891", 64, false},
		{"buffer too small", "FP64", "1", 2*d - 1, false},
		{"FP32", "FP32", "1", 64, true}, // kept, but parsed again at 32 bits
	} {
		t.Run(c.name, func(t *testing.T) {
			checkDecode(t, e, body(c.datatype, c.first, 2))
			buf := make([]float64, 0, c.capacity)
			req, err := parseRequestInto(body(c.datatype, c.first, 2), d, buf)
			if err != nil {
				t.Fatal(err)
			}
			if kept := req.inputs[0].vals != nil; kept != c.kept {
				t.Fatalf("values kept: %v, want %v", kept, c.kept)
			}
		})
	}
}

// Numbers with more digits than strconv.ParseFloat keeps are read at their exact value rounded, in a flat tensor
// and in the columns of a per-column request.
func TestLongNumbers(t *testing.T) {
	e := fuzzEntry(t, "ridge-sr")
	long := map[string]float64{
		"1" + strings.Repeat("0", 800) + "e-800":         1,
		"-25" + strings.Repeat("0", 5000) + "e-5001":     -2.5,
		"0." + strings.Repeat("0", 100000) + "75e100001": 7.5,
	}
	for text, want := range long {
		row := text + strings.Repeat(",0.5", e.dim-1)
		body := `{"inputs":[{"name":"x","shape":[1,` + strconv.Itoa(e.dim) + `],"datatype":"FP64","data":[` + row + `]}]}`
		req, err := parseRequest([]byte(body), e.dim)
		if err != nil {
			t.Fatal(err)
		}
		X, _, aerr := e.inputs(req, 10, make([]float64, e.dim))
		if aerr != nil {
			t.Fatal(aerr)
		}
		if X[0] != want || X[1] != 0.5 {
			t.Errorf("%.30q…: read %v, want %v", text, X[:2], want)
		}
	}
}
