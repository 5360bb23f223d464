package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A graceful shutdown waits for the requests in flight, which are answered in full, refuses new connections, and
// then Serve returns nil.
func TestGracefulShutdown(t *testing.T) {
	s, err := New(copyModels(t, "ridge-sr=reg"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	addr, stop := serveOn(t, s, nil)
	base := "http://" + addr
	c := &http.Client{Timeout: 20 * time.Second}
	if code, _, _ := do(t, c, "GET", base+"/v2/health/ready", nil); code != 200 {
		t.Fatalf("ready: %d", code)
	}
	X := randomRows(8, 50, 3)
	want, _ := loadGolden(t, "ridge-sr").PredictRows(X, 50)
	body := matrixBody(X, 50, 3, "FP64")

	// two requests in flight: their bodies are still arriving when the shutdown starts
	type result struct {
		code int
		body []byte
		err  error
	}
	var pipes []*io.PipeWriter
	results := make(chan result, 2)
	for i := 0; i < 2; i++ {
		pr, pw := io.Pipe()
		pipes = append(pipes, pw)
		go func() {
			req, _ := http.NewRequest("POST", base+"/v2/models/reg/infer", pr)
			resp, err := c.Do(req)
			if err != nil {
				results <- result{err: err}
				return
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			results <- result{resp.StatusCode, b, err}
		}()
		if _, err := pw.Write(body[:len(body)/2]); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "both requests to be receiving their bodies", func() bool { return s.reading.Load() == 2 })

	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	waitFor(t, "the shutdown to start", func() bool { return s.draining.Load() > 0 })
	// the listener closes: a new connection is refused
	waitFor(t, "the listener to close", func() bool {
		_, err := (&http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}).Get(base + "/v2/health/live")
		return err != nil
	})
	select {
	case err := <-stopped:
		t.Fatalf("Serve returned (%v) with requests in flight", err)
	case <-time.After(200 * time.Millisecond):
	}
	for _, pw := range pipes {
		if _, err := pw.Write(body[len(body)/2:]); err != nil {
			t.Fatal(err)
		}
		pw.Close()
	}
	for i := 0; i < 2; i++ {
		r := <-results
		if r.err != nil || r.code != 200 {
			t.Fatalf("request in flight: %d %v %s", r.code, r.err, r.body)
		}
		var resp inferResponse
		if err := json.Unmarshal(r.body, &resp); err != nil {
			t.Fatal(err)
		}
		got, _ := resp.floats(t, OutputPredictions)
		sameBits(t, "request in flight", got, want.Values)
	}
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after the requests finished")
	}
}

// A request that does not finish within DrainTimeout makes Serve return an error after that time.
func TestShutdownDrainTimeout(t *testing.T) {
	s, err := New(copyModels(t, "ridge-sr=reg"), Options{DrainTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	addr, stop := serveOn(t, s, nil)
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() {
		req, _ := http.NewRequest("POST", "http://"+addr+"/v2/models/reg/infer", pr)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	_, _ = pw.Write([]byte(`{"inputs":`))
	waitFor(t, "the request to be receiving its body", func() bool { return s.reading.Load() == 1 })
	start := time.Now()
	err = stop()
	if err == nil || !strings.Contains(err.Error(), "graceful shutdown") {
		t.Fatalf("Serve returned %v, want a drain timeout", err)
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 5*time.Second {
		t.Fatalf("Serve returned after %v, want about the drain timeout", d)
	}
}

// During ShutdownDelay the readiness check is false but new connections are still accepted and answered, and
// keep-alive connections are closed after their answer (so that no request is sent on a connection the closing port
// drops); the listener closes when the delay is over.
func TestShutdownDelay(t *testing.T) {
	const delay = 600 * time.Millisecond
	s, err := New(copyModels(t, "ridge-sr=reg"), Options{ShutdownDelay: delay})
	if err != nil {
		t.Fatal(err)
	}
	addr, stop := serveOn(t, s, nil)
	base := "http://" + addr
	fresh := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	X := randomRows(9, 4, 3)
	want, _ := loadGolden(t, "ridge-sr").PredictRows(X, 4)
	body := matrixBody(X, 4, 3, "FP64")

	kept := &http.Client{Timeout: 10 * time.Second} // keeps its connections alive
	live := func() *http.Response {
		resp, err := kept.Get(base + "/v2/health/live")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	if live().Close {
		t.Fatal("a keep-alive connection closed before the shutdown")
	}
	start := time.Now()
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	waitFor(t, "the shutdown to start", func() bool { return s.draining.Load() > 0 })
	waitFor(t, "the delay to start", s.delaying.Load)
	if !live().Close {
		t.Error("an answer during the delay does not close its keep-alive connection")
	}
	if code, _, b := do(t, fresh, "GET", base+"/v2/health/ready", nil); code != http.StatusServiceUnavailable || !strings.Contains(string(b), "shutting down") {
		t.Fatalf("ready during the delay: %d %s, want 503 shutting down", code, b)
	}
	code, _, b := do(t, fresh, "POST", base+"/v2/models/reg/infer", body)
	if elapsed := time.Since(start); elapsed >= delay {
		t.Skipf("the checks took %v, longer than the delay: too slow a machine to tell", elapsed)
	}
	if code != 200 {
		t.Fatalf("a new connection during the delay: %d %s, want 200", code, b)
	}
	var resp inferResponse
	if err := json.Unmarshal(b, &resp); err != nil {
		t.Fatal(err)
	}
	got, _ := resp.floats(t, OutputPredictions)
	sameBits(t, "during the delay", got, want.Values)
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
		if d := time.Since(start); d < delay {
			t.Fatalf("Serve returned after %v, before the delay of %v", d, delay)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after the delay")
	}
	if _, err := fresh.Get(base + "/v2/health/live"); err == nil {
		t.Fatal("the listener still accepts connections after the shutdown")
	}
}

// SkipShutdownDelay ends a delay under way: Serve closes the listener and returns long before the delay is over.
// On a nil or zero Server it does nothing.
func TestSkipShutdownDelay(t *testing.T) {
	s, err := New(copyModels(t, "ridge-sr=reg"), Options{ShutdownDelay: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	_, stop := serveOn(t, s, nil)
	start := time.Now()
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	waitFor(t, "the delay to start", s.delaying.Load)
	if !s.SkipShutdownDelay() {
		t.Error("SkipShutdownDelay during the delay reports none under way")
	}
	s.SkipShutdownDelay() // twice: no panic
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return after SkipShutdownDelay")
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("Serve returned after %v", d)
	}
	if s.SkipShutdownDelay() {
		t.Error("SkipShutdownDelay after the shutdown reports a delay under way")
	}
	var zero Server
	if zero.SkipShutdownDelay() || (*Server)(nil).SkipShutdownDelay() {
		t.Error("a zero or nil Server has a delay under way")
	}
}

// A Server serving on two listeners, one of which shuts down, is ready again on the other once that shutdown is
// over; and a Server whose Serve returned serves again, ready, when Serve is called anew.
func TestReadyAfterAnotherServeEnds(t *testing.T) {
	s, err := New(copyModels(t, "ridge-sr=reg"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Timeout: 20 * time.Second}
	ready := func(addr string) int {
		code, _, _ := do(t, c, "GET", "http://"+addr+"/v2/health/ready", nil)
		return code
	}
	a, stopA := serveOn(t, s, nil)
	b, stopB := serveOn(t, s, nil)
	if ready(a) != 200 || ready(b) != 200 {
		t.Fatal("not ready on both listeners")
	}
	if err := stopA(); err != nil {
		t.Fatal(err)
	}
	if code := ready(b); code != 200 {
		t.Errorf("the other listener answers ready %d after the first one's shutdown, want 200", code)
	}
	if err := stopB(); err != nil {
		t.Fatal(err)
	}
	again, _ := serveOn(t, s, nil)
	if code := ready(again); code != 200 {
		t.Errorf("served again after a shutdown: ready %d, want 200", code)
	}
}
