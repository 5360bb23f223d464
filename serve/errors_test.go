package serve

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// checkError requires a JSON error answer with the code and a message holding every fragment, and no file path or
// stack.
func checkError(t *testing.T, what string, code int, h http.Header, b []byte, wantCode int, fragments ...string) {
	t.Helper()
	if code != wantCode {
		t.Fatalf("%s: %d %s, want %d", what, code, b, wantCode)
	}
	if ct := h.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s: Content-Type %q", what, ct)
	}
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(b, &e); err != nil || e.Error == "" {
		t.Fatalf("%s: body %s is not a JSON error (%v)", what, b, err)
	}
	for _, f := range fragments {
		if !strings.Contains(e.Error, f) {
			t.Errorf("%s: error %q lacks %q", what, e.Error, f)
		}
	}
	for _, leak := range []string{"goroutine", ".go:", "/tmp", "testdata", ".rff"} {
		if strings.Contains(string(b), leak) {
			t.Errorf("%s: the answer leaks %q: %s", what, leak, b)
		}
	}
}

// Every bad request is answered with its code and a JSON error that names the input at fault.
func TestErrors(t *testing.T) {
	_, ts := newTestServer(t, copyModels(t, "ridge-sr=reg", "cls-onehot=cls"), Options{MaxRows: 100, MaxBodyBytes: 64 << 10})
	infer := ts.URL + "/v2/models/reg/infer"
	in := func(tensors ...string) string { return `{"inputs":[` + strings.Join(tensors, ",") + `]}` }
	mat := `{"name":"x","shape":[2,3],"datatype":"FP64","data":[1,2,3,4,5,6]}`
	col := func(name, shape, data string) string {
		return `{"name":"` + name + `","shape":` + shape + `,"datatype":"FP64","data":` + data + `}`
	}
	cases := []struct {
		name, method, url, body string
		code                    int
		fragments               []string
	}{
		{"unknown model", "POST", ts.URL + "/v2/models/nope/infer", in(mat), 404, []string{`unknown model "nope"`}},
		{"model name escaping the directory", "POST", ts.URL + "/v2/models/..%2Freg/infer", in(mat), 400, []string{"holds an escaped slash"}},
		{"unknown path", "GET", ts.URL + "/v1/models/reg", "", 404, []string{"no such endpoint"}},
		{"dot-dot segment", "POST", ts.URL + "/v2/models/../models/reg/infer", in(mat), 400, []string{`the path "/v2/models/../models/reg/infer" is not in canonical form`}},
		{"empty segment", "POST", ts.URL + "//v2/models/reg/infer", in(mat), 400, []string{`the path "//v2/models/reg/infer" is not in canonical form`}},
		{"dot segment", "GET", ts.URL + "/v2/./models/reg", "", 400, []string{"not in canonical form"}},
		{"escaped dot-dot segment", "GET", ts.URL + "/v2/models/%2e%2E/reg", "", 400, []string{"not in canonical form"}},
		{"escaped slash", "POST", ts.URL + "/v2/models/reg%2Finfer", in(mat), 400, []string{`the path "/v2/models/reg%2Finfer" holds an escaped slash (%2F)`}},
		{"escaped slash in lower case", "GET", ts.URL + "/v2/models/a%2fb", "", 400, []string{"holds an escaped slash"}},
		{"unknown version", "POST", ts.URL + "/v2/models/reg/versions/7/infer", in(mat), 404, []string{"no version"}},
		{"GET on infer", "GET", infer, "", 405, []string{"use POST"}},
		{"POST on metadata", "POST", ts.URL + "/v2/models/reg", "", 405, []string{"use GET"}},
		{"not JSON", "POST", infer, "hello", 400, []string{"invalid JSON at byte 0"}},
		{"truncated", "POST", infer, `{"inputs":[{"name":"x"`, 400, []string{"invalid JSON"}},
		{"trailing data", "POST", infer, in(mat) + "{}", 400, []string{"after the request object"}},
		{"no output asked for", "POST", infer, `{"inputs":[` + mat + `],"outputs":[]}`, 400, []string{`"outputs" is empty`, "leave the key out"}},
		{"empty body", "POST", infer, "", 400, []string{"invalid JSON"}},
		{"no inputs", "POST", infer, `{"inputs":[]}`, 400, []string{"no inputs"}},
		{"inputs not an array", "POST", infer, `{"inputs":{}}`, 400, []string{"expected an array"}},
		{"unnamed input", "POST", infer, in(`{"shape":[1,3],"datatype":"FP64","data":[1,2,3]}`), 400, []string{"input 1 has no name"}},
		{"no shape", "POST", infer, in(`{"name":"x","datatype":"FP64","data":[1,2,3]}`), 400, []string{`input "x" has no "shape"`}},
		{"no data", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"FP64"}`), 400, []string{`input "x" has no "data"`}},
		{"datatype", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"INT32","data":[1,2,3]}`), 400, []string{`input "x": datatype "INT32" is not supported`}},
		{"rank 3", "POST", infer, in(`{"name":"x","shape":[1,3,1],"datatype":"FP64","data":[1,2,3]}`), 400, []string{`input "x": shape [1, 3, 1]`}},
		{"negative shape", "POST", infer, in(`{"name":"x","shape":[-1,3],"datatype":"FP64","data":[1,2,3]}`), 400, []string{"whole numbers ≥ 0, not -1"}},
		{"fractional shape", "POST", infer, in(`{"name":"x","shape":[1.5,3],"datatype":"FP64","data":[1,2,3]}`), 400, []string{"whole numbers"}},
		{"wrong columns", "POST", infer, in(`{"name":"x","shape":[1,4],"datatype":"FP64","data":[1,2,3,4]}`), 400, []string{`input "x": shape [1, 4], but the model takes 3 columns`, `"temp", "pressure", "humidity"`}},
		{"count mismatch", "POST", infer, in(`{"name":"x","shape":[2,3],"datatype":"FP64","data":[1,2,3,4,5]}`), 400, []string{`input "x": shape [2, 3] holds 6 values, data has 5`}},
		{"zero rows", "POST", infer, in(`{"name":"x","shape":[0,3],"datatype":"FP64","data":[]}`), 400, []string{"no rows"}},
		{"too many rows", "POST", infer, in(`{"name":"x","shape":[101,3],"datatype":"FP64","data":[1]}`), 413, []string{"101 rows; at most 100"}},
		{"NaN", "POST", infer, in(`{"name":"x","shape":[2,3],"datatype":"FP64","data":[1,2,3,4,NaN,6]}`), 400, []string{`input "x": row 2, column 2 ("pressure") is NaN`}},
		{"Infinity", "POST", infer, in(`{"name":"x","shape":[2,3],"datatype":"FP64","data":[[1,2,3],[-Infinity,5,6]]}`), 400, []string{`row 2, column 1 ("temp") is -Inf`}},
		{"overflow", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"FP64","data":[1,2,1e400]}`), 400, []string{`row 1, column 3 ("humidity") is +Inf (beyond the range of FP64)`}},
		{"FP32 overflow", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"FP32","data":[1,-1e39,2]}`), 400, []string{`column 2 ("pressure") is -Inf (beyond the range of FP32)`}},
		{"overflow in the preprocessing", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"FP64","data":[1,2,1.7976931348623157e308]}`), 400, []string{"row 1: column 3 (humidity) is +Inf after preprocessing: too large for the model's scaling"}},
		{"input beyond the random features' range", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"FP64","data":[1.7976931348623157e308,0,0]}`), 400, []string{"row 1: column 1 (temp) is", "too large for the kernel's random features"}},
		{"string in data", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"FP64","data":[1,"2",3]}`), 400, []string{"data must hold numbers"}},
		{"bad number", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"FP64","data":[1,02,3]}`), 400, []string{"expected ',' or ']'"}},
		{"hex number", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"FP64","data":[1,0x2,3]}`), 400, []string{"invalid JSON"}},
		{"unknown column", "POST", infer, in(col("temp", "[1]", "[1]"), col("wind", "[1]", "[1]"), col("humidity", "[1]", "[1]")), 400, []string{`unknown input "wind"`}},
		{"missing column", "POST", infer, in(col("temp", "[1]", "[1]"), col("humidity", "[1]", "[1]")), 400, []string{`missing input column(s) "pressure"`}},
		{"one column of three", "POST", infer, in(col("temp", "[1,1]", "[1]")), 400, []string{`missing input column(s) "pressure", "humidity"`}},
		{"duplicate column", "POST", infer, in(col("temp", "[1]", "[1]"), col("temp", "[1]", "[1]"), col("humidity", "[1]", "[1]")), 400, []string{`input "temp" is given twice`}},
		{"column shape", "POST", infer, in(col("temp", "[1,2]", "[1,2]"), col("pressure", "[1]", "[1]"), col("humidity", "[1]", "[1]")), 400, []string{`input "temp": shape [1, 2], want [n] or [n, 1]`}},
		{"column rows", "POST", infer, in(col("temp", "[2]", "[1,2]"), col("pressure", "[1]", "[1]"), col("humidity", "[2]", "[1,2]")), 400, []string{`input "pressure" has 1 rows, input "temp" 2`}},
		{"NaN in a column", "POST", infer, in(col("temp", "[2]", "[1,2]"), col("pressure", "[2]", "[3,NaN]"), col("humidity", "[2]", "[1,2]")), 400, []string{`input "pressure": row 2, column 2 ("pressure") is NaN`}},
		{"unknown output", "POST", infer, `{"outputs":[{"name":"labels"}],"inputs":[` + mat + `]}`, 400, []string{`unknown output "labels" (model "reg" has "predictions")`}},
		{"deep nesting", "POST", infer, `{"parameters":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `,"inputs":[` + mat + `]}`, 400, []string{"nested too deeply"}},
		{"deep data", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"FP64","data":` + strings.Repeat("[", 100) + `1` + strings.Repeat("]", 100) + `}`), 400, []string{"nested too deeply"}},
		{"too many inputs", "POST", infer, in(col("a", "[1]", "[1]"), col("b", "[1]", "[1]"), col("c", "[1]", "[1]"), col("d", "[1]", "[1]")), 400, []string{"too many inputs"}},
		{"control character", "POST", infer, "{\"id\":\"a\x01\",\"inputs\":[" + mat + "]}", 400, []string{"control character in string"}},
		{"body too large", "POST", infer, `{"inputs":[` + strings.Repeat(" ", 65<<10) + mat + `]}`, 413, []string{"at most 65536"}},
		{"BYTES", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"BYTES","data":["a","b","c"]}`), 400, []string{`input "x": datatype "BYTES" is not supported (send FP64 or FP32)`}},
		{"BOOL", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"BOOL","data":[true,false,true]}`), 400, []string{`input "x": datatype "BOOL" is not supported (send FP64 or FP32)`}},
		{"BYTES, data first", "POST", infer, in(`{"name":"x","data":[["a","b","c"]],"shape":[1,3],"datatype":"BYTES"}`), 400, []string{`input "x": datatype "BYTES" is not supported`}},
		{"FP64 strings", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"FP64","data":["1","2","3"]}`), 400, []string{`input "x": data must hold numbers, not a string`}},
		{"FP32 null", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"FP32","data":[1,null,3]}`), 400, []string{`input "x": data must hold numbers, not null`}},
		{"FP64 nan", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"FP64","data":[1,nan,3]}`), 400, []string{`data must hold numbers, not a NaN or an infinity`}},
		{"FP64 -inf", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"FP64","data":[1,-inf,3]}`), 400, []string{`expected a number, not a NaN or an infinity`}},
		{"FP64 Infinity", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"FP64","data":[1,Infinity,3]}`), 400, []string{`is +Inf: inputs must be finite`}},
		{"FP64 nul", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"FP64","data":[1,nul,3]}`), 400, []string{`data must hold numbers`}},
		{"data nested deeper than any shape", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"FP64","data":[[[[[[[[[1,2,3]]]]]]]]]}`), 400, []string{`input "x": data nested too deeply: more than 8 levels`}},
		{"data not an array", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"FP64","data":{"a":1}}`), 400, []string{`input "x": data must be an array of numbers, not an object`}},
		{"ragged", "POST", infer, in(`{"name":"x","shape":[2,3],"datatype":"FP64","data":[[1,2],[3,4,5,6]]}`), 400, []string{`input "x": the data's arrays are not nested as shape [2, 3] (arrays of 2 and 4 elements at depth 2): send 6 numbers, flat or nested as 2 arrays of 3 numbers`}},
		{"nested too deeply for the shape", "POST", infer, in(`{"name":"x","shape":[2,3],"datatype":"FP64","data":[[[1,2,3]],[[4,5,6]]]}`), 400, []string{`input "x": data nested as [2, 1, 3], not as shape [2, 3]: send 6 numbers, flat or nested as 2 arrays of 3 numbers`}},
		{"nested transposed", "POST", infer, in(`{"name":"x","shape":[2,3],"datatype":"FP64","data":[[1,2],[3,4],[5,6]]}`), 400, []string{`data nested as [3, 2], not as shape [2, 3]`}},
		{"numbers beside arrays", "POST", infer, in(`{"name":"x","shape":[2,3],"datatype":"FP64","data":[[1,2,3],4,5,6]}`), 400, []string{`input "x": the data's arrays are not nested as shape [2, 3] (numbers and arrays side by side at depth 1)`}},
		{"empty arrays", "POST", infer, in(`{"name":"x","shape":[2,3],"datatype":"FP64","data":[[1,2,3],[],[4,5,6]]}`), 400, []string{`arrays of 3 and 0 elements at depth 2`}},
		{"nested column of shape [n]", "POST", infer, in(col("temp", "[2]", "[[1],[2]]"), col("pressure", "[2]", "[1,2]"), col("humidity", "[2]", "[1,2]")), 400, []string{`input "temp": data nested as [2, 1], not as shape [2]: send 2 numbers in one flat array`}},
		{"duplicate inputs", "POST", infer, `{"inputs":[` + mat + `],"inputs":[` + mat + `]}`, 400, []string{`duplicate key "inputs" in the request object`}},
		{"duplicate escaped key", "POST", infer, `{"inputs":[` + mat + `],"\u0069nputs":[]}`, 400, []string{`duplicate key "inputs"`}},
		{"duplicate id", "POST", infer, `{"id":"a","id":"b","inputs":[` + mat + `]}`, 400, []string{`duplicate key "id"`}},
		{"duplicate shape", "POST", infer, in(`{"name":"x","shape":[2,3],"datatype":"FP64","shape":[1,3],"data":[1,2,3]}`), 400, []string{`duplicate key "shape" in input 1: send each key once`}},
		{"duplicate data", "POST", infer, in(mat, `{"name":"y","data":[1],"data":[2]}`), 400, []string{`duplicate key "data" in input 2`}},
		{"output without a name", "POST", infer, `{"outputs":[{}],"inputs":[` + mat + `]}`, 400, []string{`output 1 has no "name"`}},
		{"output with a misspelt name", "POST", infer, `{"outputs":[{"name":"predictions"},{"nam":"predictions"}],"inputs":[` + mat + `]}`, 400, []string{`output 2 has no "name"`}},
		{"long input name", "POST", infer, in(col(strings.Repeat("é", 1000), "[1]", "[1]"), col("pressure", "[1]", "[1]"), col("humidity", "[1]", "[1]")), 400, []string{`unknown input "` + strings.Repeat("é", 32) + `"…`}},
		{"long datatype", "POST", infer, in(`{"name":"x","shape":[1,3],"datatype":"` + strings.Repeat("Z", 10000) + `","data":[1,2,3]}`), 400, []string{`datatype "` + strings.Repeat("Z", 64) + `"… is not supported`}},
		{"duplicate output name", "POST", infer, `{"outputs":[{"name":"predictions","name":"labels"}],"inputs":[` + mat + `]}`, 400, []string{`duplicate key "name" in output 1`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, h, b := do(t, ts.Client(), c.method, c.url, []byte(c.body))
			checkError(t, c.name, code, h, b, c.code, c.fragments...)
			if len(b) > 1000 {
				t.Errorf("an error answer of %d bytes: %.200s…", len(b), b)
			}
		})
	}

	// a chunked body (no Content-Length) over the limit is cut at the limit
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write([]byte(`{"inputs":[`))
		for i := 0; i < 80; i++ {
			if _, err := pw.Write([]byte(strings.Repeat(" ", 1<<10))); err != nil {
				break
			}
		}
		pw.Close()
	}()
	req, _ := http.NewRequest("POST", infer, pr)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	pr.Close()
	checkError(t, "chunked body too large", resp.StatusCode, resp.Header, b, 413, "more than 65536 bytes")
}

// holdSlots takes n inference slots, as n requests being processed would, until release is called.
func holdSlots(s *Server, n int) (release func()) {
	for i := 0; i < n; i++ {
		s.slots <- struct{}{}
	}
	return func() {
		for i := 0; i < n; i++ {
			<-s.slots
		}
	}
}

// When every slot is busy and no request may wait, a request is answered 503 with Retry-After at once; with a
// queue, it waits for at most QueueTimeout; freed slots serve again.
func TestOverloadSheds(t *testing.T) {
	for _, queue := range []int{-1, 1} {
		s, ts := newTestServer(t, copyModels(t, "ridge-sr=reg"), Options{MaxConcurrent: 1, MaxQueue: queue, QueueTimeout: 100 * time.Millisecond})
		url := ts.URL + "/v2/models/reg/infer"
		body := matrixBody([]float64{1, 2, 3}, 1, 3, "FP64")
		// a request being processed holds the only slot
		release := holdSlots(s, 1)
		start := time.Now()
		code, h, b := do(t, ts.Client(), "POST", url, body)
		checkError(t, "saturated", code, h, b, 503, "at capacity")
		if h.Get("Retry-After") != "1" {
			t.Fatalf("Retry-After %q", h.Get("Retry-After"))
		}
		waited := time.Since(start)
		if queue < 0 && waited > 80*time.Millisecond {
			t.Errorf("no queue: answered after %v", waited)
		}
		if queue > 0 && waited < 100*time.Millisecond {
			t.Errorf("queue: answered after %v, before the queue timeout", waited)
		}
		release()
		if code, _, b := do(t, ts.Client(), "POST", url, body); code != 200 {
			t.Fatalf("after the slot is free: %d %s", code, b)
		}
	}
}

// A queued request gets the slot when it frees within the timeout.
func TestQueueWaits(t *testing.T) {
	s, ts := newTestServer(t, copyModels(t, "ridge-sr=reg"), Options{MaxConcurrent: 1, MaxQueue: 4, QueueTimeout: 5 * time.Second})
	url := ts.URL + "/v2/models/reg/infer"
	body := matrixBody([]float64{1, 2, 3}, 1, 3, "FP64")
	release := holdSlots(s, 1)
	queued := make(chan int)
	go func() {
		req, _ := http.NewRequest("POST", url, strings.NewReader(string(body)))
		resp, err := ts.Client().Do(req)
		if err != nil {
			queued <- 0
			return
		}
		resp.Body.Close()
		queued <- resp.StatusCode
	}()
	waitFor(t, "the request to queue", func() bool { return s.waiting.Load() == 1 })
	release()
	if code := <-queued; code != 200 {
		t.Fatalf("code %d, want 200", code)
	}
}

// A panic in a handler is answered 500 with a JSON error and no stack, and counted.
func TestRecoverPanic(t *testing.T) {
	s, err := New(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := s.wrap("test", http.MethodGet, true, func(w http.ResponseWriter, r *http.Request) string {
		var m map[string]int
		m["x"] = 1 // nil map: panics
		return ""
	})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/x", nil))
	checkError(t, "panic", rec.Code, rec.Header(), rec.Body.Bytes(), 500, "internal error")
	if strings.Contains(rec.Body.String(), "nil map") {
		t.Fatalf("the panic value reached the client: %s", rec.Body)
	}
	if got := counterValue(t, s, "rff_serve_panics_total", nil); got != 1 {
		t.Fatalf("panics_total %v, want 1", got)
	}
}

// waitFor polls cond for at most 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// A shape whose number of values overflows (only possible with a row limit near the largest int) is refused with
// 413, not taken for the values it wraps to: [7378697629483820647, 5] holds 2·2⁶⁴ + 3 values, 3 once wrapped (and
// the answer's size overflows as well).
func TestShapeOverflow(t *testing.T) {
	_, ts := newTestServer(t, copyModels(t, "ovk-curl=ovk"), Options{MaxRows: math.MaxInt})
	body := `{"inputs":[{"name":"x","shape":[7378697629483820647,5],"datatype":"FP64","data":[1,2,3]}]}`
	code, _, b := do(t, ts.Client(), "POST", ts.URL+"/v2/models/ovk/infer", []byte(body))
	if code != 413 {
		t.Errorf("%d %s, want 413", code, b)
	}
}

// A client that gives up while its request waits for a slot is not counted as shed load (rejected_total): its
// request is recorded with code 499, as proxies record a client that closed the connection.
func TestQueuedClientLeaves(t *testing.T) {
	s, ts := newTestServer(t, copyModels(t, "ridge-sr=reg"), Options{MaxConcurrent: 1, MaxQueue: 4, QueueTimeout: 5 * time.Second})
	body := matrixBody([]float64{1, 2, 3}, 1, 3, "FP64")
	release := holdSlots(s, 1)
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v2/models/reg/infer", strings.NewReader(string(body)))
		if resp, err := ts.Client().Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	waitFor(t, "the request to queue", func() bool { return s.waiting.Load() == 1 })
	cancel()
	<-done
	waitFor(t, "the request to be recorded", func() bool {
		return counterValue(t, s, "rff_serve_requests_total", map[string]string{"route": "infer", "model": "reg", "code": "499"}) == 1
	})
	if got := counterValue(t, s, "rff_serve_rejected_total", nil); got != 0 {
		t.Errorf("rejected_total %v, want 0: the client left, the server shed nothing", got)
	}
}
