package serve

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rawRequest writes head (the request line and headers, without the blank line) and then body on a new TCP
// connection to addr; with closeWrite it then closes its side for writing. It returns the connection, from which
// the test reads the answer (readAnswer).
func rawRequest(t *testing.T, addr, head, body string, closeWrite bool) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, head+"\r\n\r\n"+body); err != nil {
		t.Fatal(err)
	}
	if closeWrite {
		if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

// readAnswer reads the HTTP answer on conn, waiting for at most wait.
func readAnswer(t *testing.T, conn net.Conn, wait time.Duration) (int, http.Header, []byte) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(wait))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer within %v: %v", wait, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// Requests whose bodies arrive slowly hold no inference slot: with more of them open than there are slots, a
// normal request is answered at once, and the slow ones are answered when their bodies are complete.
func TestSlowBodiesHoldNoSlot(t *testing.T) {
	for _, c := range []struct {
		name  string
		queue int
	}{{"no queue", -1}, {"with a queue", 4}} {
		t.Run(c.name, func(t *testing.T) {
			const slots = 2
			s, ts := newTestServer(t, copyModels(t, "ridge-sr=reg"), Options{MaxConcurrent: slots, MaxQueue: c.queue,
				QueueTimeout: 10 * time.Second})
			url := ts.URL + "/v2/models/reg/infer"
			body := matrixBody([]float64{1, 2, 3}, 1, 3, "FP64")
			want, _ := loadGolden(t, "ridge-sr").PredictRows([]float64{1, 2, 3}, 1)

			// twice as many slow clients as slots, each having sent a few bytes of its body
			slow := 2 * slots
			pipes := make([]*io.PipeWriter, slow)
			codes := make(chan int, slow)
			for i := range pipes {
				pr, pw := io.Pipe()
				pipes[i] = pw
				t.Cleanup(func() { pw.Close() })
				go func() {
					req, _ := http.NewRequest("POST", url, pr)
					resp, err := ts.Client().Do(req)
					if err != nil {
						codes <- 0
						return
					}
					resp.Body.Close()
					codes <- resp.StatusCode
				}()
				if _, err := pw.Write(body[:10]); err != nil {
					t.Fatal(err)
				}
			}
			waitFor(t, "the slow requests to be receiving their bodies", func() bool { return s.reading.Load() == int64(slow) })
			if n := len(s.slots); n != 0 {
				t.Fatalf("%d slots held by requests whose bodies are arriving", n)
			}

			start := time.Now()
			r := infer(t, ts.Client(), ts.URL, "reg", body)
			got, _ := r.floats(t, OutputPredictions)
			sameBits(t, "a request beside slow ones", got, want.Values)
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("a request beside %d slow ones answered after %v", slow, d)
			}

			for _, pw := range pipes {
				if _, err := pw.Write(body[10:]); err != nil {
					t.Fatal(err)
				}
				pw.Close()
			}
			for range slow {
				if code := <-codes; code != 200 {
					t.Errorf("a slow request: %d, want 200", code)
				}
			}
		})
	}
}

// A request that declares a huge Content-Length and sends a few bytes is answered at once, without the server
// allocating the declared size: the body's buffer grows as its bytes arrive.
func TestDeclaredLengthNotAllocated(t *testing.T) {
	for _, declared := range []int64{1 << 30, 1 << 40} {
		t.Run(strconv.FormatInt(declared, 10), func(t *testing.T) {
			_, ts := newTestServer(t, copyModels(t, "ridge-sr=reg"), Options{MaxBodyBytes: 1 << 41})
			addr := ts.Listener.Addr().String()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			conn := rawRequest(t, addr, "POST /v2/models/reg/infer HTTP/1.1\r\nHost: rff\r\nContent-Length: "+
				strconv.FormatInt(declared, 10), `{"inputs":`, true)
			code, h, b := readAnswer(t, conn, 5*time.Second)
			runtime.ReadMemStats(&after)
			checkError(t, "declared "+strconv.FormatInt(declared, 10), code, h, b, 400,
				"the request body ended after 10 of the "+strconv.FormatInt(declared, 10)+" bytes")
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("answered after %v", d)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
				t.Errorf("%d bytes allocated for a body of 10 bytes declaring %d", alloc, declared)
			}
		})
	}
}

// The bodies held at once total at most MaxConcurrent × MaxBodyBytes bytes received: beyond, a request is
// answered 503 with Retry-After, and served again once the bodies held are done.
func TestBodyBudget(t *testing.T) {
	s, ts := newTestServer(t, copyModels(t, "ridge-sr=reg"), Options{MaxConcurrent: 1, MaxBodyBytes: 1000})
	url := ts.URL + "/v2/models/reg/infer"
	body := matrixBody([]float64{1, 2, 3}, 1, 3, "FP64")
	body = append(body, bytes.Repeat([]byte(" "), 600-len(body))...) // 600 bytes: two do not fit in 1000
	for _, c := range []struct {
		name string
		held int // bytes of a slow body received first
		code int
	}{{"within the budget", 300, 200}, {"over the budget", 600, 503}} {
		t.Run(c.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			t.Cleanup(func() { pw.Close() })
			done := make(chan int, 1)
			go func() {
				req, _ := http.NewRequest("POST", url, pr)
				resp, err := ts.Client().Do(req)
				if err != nil {
					done <- 0
					return
				}
				resp.Body.Close()
				done <- resp.StatusCode
			}()
			if _, err := pw.Write(body[:c.held]); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the slow body to be received", func() bool { return s.bodyHeld.Load() == int64(c.held) })
			code, h, b := do(t, ts.Client(), "POST", url, body)
			if c.code == 200 {
				if code != 200 {
					t.Fatalf("%d %s, want 200", code, b)
				}
			} else {
				checkError(t, c.name, code, h, b, c.code, "at capacity (request bodies in memory)")
				if h.Get("Retry-After") != "1" {
					t.Errorf("Retry-After %q", h.Get("Retry-After"))
				}
			}
			if _, err := pw.Write(body[c.held:]); err != nil {
				t.Fatal(err)
			}
			pw.Close()
			if code := <-done; code != 200 {
				t.Fatalf("the slow request: %d", code)
			}
			if code, _, b := do(t, ts.Client(), "POST", url, body); code != 200 {
				t.Fatalf("after the slow body is done: %d %s", code, b)
			}
			if held := s.bodyHeld.Load(); held != 0 {
				t.Fatalf("%d body bytes still counted", held)
			}
		})
	}
}

// A body that does not arrive within the read timeout is answered 408 with a message that holds no address, also
// when the write timeout, counted from the same start, is no longer than the read timeout (both are a minute by
// default).
func TestBodyReadTimeout(t *testing.T) {
	const read = 300 * time.Millisecond
	for _, write := range []time.Duration{0, read, read / 2} {
		s, err := New(copyModels(t, "ridge-sr=reg"), Options{ReadTimeout: read, WriteTimeout: write})
		if err != nil {
			t.Fatal(err)
		}
		addr, _ := serveOn(t, s, nil)
		for _, c := range []struct{ name, head, body string }{
			{"Content-Length", "Content-Length: 100", `{"inputs":`},
			{"chunked", "Transfer-Encoding: chunked", "a\r\n{\"inputs\":\r\n"},
		} {
			t.Run(fmt.Sprintf("%s, write timeout %v", c.name, write), func(t *testing.T) {
				conn := rawRequest(t, addr, "POST /v2/models/reg/infer HTTP/1.1\r\nHost: rff\r\n"+c.head, c.body, false)
				code, h, b := readAnswer(t, conn, 5*time.Second)
				checkError(t, c.name, code, h, b, http.StatusRequestTimeout, "the request body did not arrive within the read timeout")
				for _, leak := range []string{"127.0.0.1", "tcp", "i/o timeout"} {
					if strings.Contains(string(b), leak) {
						t.Errorf("the answer holds %q: %s", leak, b)
					}
				}
			})
		}
	}
}

// A request in the binary tensor data extension is refused with 400 naming it, whatever the header's value.
func TestBinaryExtension(t *testing.T) {
	_, ts := newTestServer(t, copyModels(t, "ridge-sr=reg"), Options{})
	body := matrixBody([]float64{1, 2, 3}, 1, 3, "FP64")
	for _, v := range [][]string{{strconv.Itoa(len(body))}, {"0"}, {"-1"}, {"abc"}, {""}, {"", "5"}} {
		var h []string
		for _, x := range v {
			h = append(h, "Inference-Header-Content-Length", x)
		}
		code, hd, b := do(t, ts.Client(), "POST", ts.URL+"/v2/models/reg/infer", body, h...)
		checkError(t, fmt.Sprintf("Inference-Header-Content-Length: %q", v), code, hd, b, http.StatusBadRequest,
			"binary tensor data extension (Inference-Header-Content-Length) is not supported")
	}
}

// A body with a Content-Encoding other than identity is refused with 415, naming the encoding.
func TestContentEncoding(t *testing.T) {
	_, ts := newTestServer(t, copyModels(t, "ridge-sr=reg"), Options{})
	url := ts.URL + "/v2/models/reg/infer"
	body := matrixBody([]float64{1, 2, 3}, 1, 3, "FP64")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(body)
	_ = zw.Close()
	for _, c := range []struct {
		name, encoding string
		body           []byte
		code           int
	}{
		{"gzip", "gzip", gz.Bytes(), 415},
		{"br", "br", body, 415},
		{"gzip after identity", "identity, gzip", gz.Bytes(), 415},
		{"identity", "identity", body, 200},
		{"IDENTITY", "IDENTITY", body, 200},
		{"none", "", body, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			var h []string
			if c.encoding != "" {
				h = []string{"Content-Encoding", c.encoding}
			}
			code, hd, b := do(t, ts.Client(), "POST", url, c.body, h...)
			if c.code == 200 {
				if code != 200 {
					t.Fatalf("%d %s", code, b)
				}
				return
			}
			enc := strings.TrimSpace(c.encoding[strings.LastIndex(c.encoding, ",")+1:])
			checkError(t, c.name, code, hd, b, c.code, `Content-Encoding "`+enc+`" is not supported`, "send the JSON uncompressed")
			if got := hd.Get("Accept-Encoding"); got != "identity" {
				t.Errorf("Accept-Encoding %q, want identity", got)
			}
		})
	}
}

// Data flat or nested exactly as the shape are taken, for a matrix tensor and for column tensors.
func TestNestedDataAccepted(t *testing.T) {
	_, ts := newTestServer(t, copyModels(t, "ridge-sr=reg"), Options{})
	m := loadGolden(t, "ridge-sr")
	X := []float64{1, 2, 3, 4, 5, 6}
	want, _ := m.PredictRows(X, 2)
	in := func(tensors ...string) []byte { return []byte(`{"inputs":[` + strings.Join(tensors, ",") + `]}`) }
	col := func(name, shape, data string) string {
		return `{"name":"` + name + `","shape":` + shape + `,"datatype":"FP64","data":` + data + `}`
	}
	for _, c := range []struct {
		name string
		body []byte
	}{
		{"matrix flat", in(`{"name":"x","shape":[2,3],"datatype":"FP64","data":[1,2,3,4,5,6]}`)},
		{"matrix nested", in(`{"name":"x","shape":[2,3],"datatype":"FP64","data":[[1,2,3],[4,5,6]]}`)},
		{"matrix nested, white space", in(`{"name":"x","shape":[2,3],"datatype":"FP64","data":[ [ 1,2,3 ] , [4,5,6] ] }`)},
		{"columns flat", in(col("temp", "[2]", "[1,4]"), col("pressure", "[2,1]", "[2,5]"), col("humidity", "[2]", "[3,6]"))},
		{"columns nested", in(col("temp", "[2,1]", "[[1],[4]]"), col("pressure", "[2,1]", "[[2],[5]]"), col("humidity", "[2,1]", "[[3],[6]]"))},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _ := infer(t, ts.Client(), ts.URL, "reg", c.body).floats(t, OutputPredictions)
			sameBits(t, c.name, got, want.Values)
		})
	}
}
