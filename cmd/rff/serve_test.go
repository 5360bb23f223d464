package main

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rffkit/rff"
)

func TestServeFlagErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "token")
	if err := os.WriteFile(empty, []byte("  \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const any0 = "127.0.0.1:0" // the cases that bind the address before they fail
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "--models is required"},
		{[]string{"serve", "--models", filepath.Join(dir, "missing"), "--addr", any0}, "--models: stat"},
		{[]string{"serve", "--models", dir, "--addr", any0}, "holds no model that loads"},
		{[]string{"serve", "--models", dir, "--max-body", "lots"}, "--max-body"},
		{[]string{"serve", "--models", dir, "--max-rows", "0"}, "--max-rows must be ≥ 1"},
		{[]string{"serve", "--models", dir, "--read-timeout", "0s"}, "--read-timeout must be positive"},
		{[]string{"serve", "--models", dir, "--tls-cert", "c.pem"}, "--tls-cert and --tls-key go together"},
		{[]string{"serve", "--models", dir, "--tls-cert", "c.pem", "--tls-key", "k.pem"}, "--tls-cert/--tls-key"},
		{[]string{"serve", "--models", dir, "--log-format", "xml"}, "--log-format"},
		{[]string{"serve", "--models", dir, "--log-level", "loud"}, "--log-level"},
		{[]string{"serve", "--models", dir, "--addr", any0, "--token-file", empty}, "must hold one token"},
		{[]string{"serve", "--models", dir, "--addr", any0, "--token-file", filepath.Join(dir, "none")}, "no such file"},
		{[]string{"serve", "--models", dir, "extra"}, "unexpected argument"},
		{[]string{"serve", "--models", dir, "--addr", "127.0.0.1:99999"}, "--addr 127.0.0.1:99999: "},
	} {
		code, _, errOut := runCLI(c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", c.args, code, errOut, c.want)
		}
	}
	if v, err := parseBytes("32MiB"); err != nil || v != 32<<20 {
		t.Errorf("parseBytes(32MiB) = %d, %v", v, err)
	}
	for s, want := range map[string]int64{"1000": 1000, "1.5MiB": 3 << 19, "12 KB": 12000, "10MB": 10_000_000} { // as --max-memory
		if v, err := parseBytes(s); err != nil || v != want {
			t.Errorf("parseBytes(%s) = %d, %v; want %d", s, v, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-5", "-1", "0.5", "9999999999GiB", "1.5x"} {
		if _, err := parseBytes(bad); err == nil || !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("parseBytes(%q): %v, want an error quoting it", bad, err)
		}
	}
}

// A port in use fails rff serve at once, with one line and exit 2, before any model loads or anything is logged.
func TestServePortInUse(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	addr := busy.Addr().String()
	models := t.TempDir()
	copyGolden(t, models, "ridge-sr", "reg")
	copyGolden(t, models, "cls-onehot", "cls")
	if err := os.WriteFile(filepath.Join(models, "bad.rff"), []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	for _, c := range []struct {
		what string
		args []string
	}{
		{"models", []string{"--models", models}},
		{"models, JSON logs, debug", []string{"--models", models, "--log-format", "json", "--log-level", "debug"}},
		{"models, --watch", []string{"--models", models, "--watch"}},
		{"no model, --watch", []string{"--models", empty, "--watch"}},
		{"no model", []string{"--models", empty}},
	} {
		t.Run(c.what, func(t *testing.T) {
			code, _, errOut := runCLI(append([]string{"serve", "--addr", addr}, c.args...)...)
			if code != 2 || !strings.HasPrefix(errOut, "rff serve: --addr "+addr+": ") || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d, stderr %q, want exit 2 and one line about --addr %s", code, errOut, addr)
			}
		})
	}
}

// syncBuffer is a buffer the server's logger writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServe runs "rff serve" with args in the background and returns its address and a channel with its exit
// code. The caller must end it (a signal) before the test ends.
func startServe(t *testing.T, args ...string) (net.Addr, <-chan int, *syncBuffer) {
	t.Helper()
	addrc := make(chan net.Addr, 1)
	serveListening = func(a net.Addr) { addrc <- a }
	t.Cleanup(func() { serveListening = nil })
	var stderr syncBuffer
	codec := make(chan int, 1)
	go func() { codec <- run(append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), io.Discard, &stderr) }()
	select {
	case a := <-addrc:
		return a, codec, &stderr
	case code := <-codec:
		t.Fatalf("rff serve exited %d: %s", code, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("rff serve did not start")
	}
	return nil, nil, nil
}

func waitExit(t *testing.T, codec <-chan int, stderr *syncBuffer) int {
	t.Helper()
	select {
	case code := <-codec:
		return code
	case <-time.After(30 * time.Second):
		t.Fatalf("rff serve did not exit: %s", stderr.String())
	}
	return -1
}

// writeCert writes a self-signed certificate for 127.0.0.1 and its key as PEM files and returns a pool trusting it.
func writeCert(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "rff serve test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(leaf)
	return certFile, keyFile, pool
}

func copyGolden(t *testing.T, dir, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "v2", src+".rff"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, ".tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, dst+".rff")); err != nil {
		t.Fatal(err)
	}
}

// inferBody is a request with X as one [n, d] FP64 tensor.
func inferBody(X []float64, n, d int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"inputs":[{"name":"input","shape":[%d,%d],"datatype":"FP64","data":[`, n, d)
	for i, v := range X {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	}
	b.WriteString("]}]}")
	return []byte(b.String())
}

type oipAnswer struct {
	ModelVersion string `json:"model_version"`
	Outputs      []struct {
		Name string          `json:"name"`
		Data json.RawMessage `json:"data"`
	} `json:"outputs"`
}

// rff serve end to end: HTTPS with a bearer token, predictions equal to the library's bit for bit, JSON logs,
// SIGHUP reloads a changed file, SIGTERM drains a request in flight and exits 0.
func TestServeEndToEnd(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := os.Mkdir(models, 0o755); err != nil {
		t.Fatal(err)
	}
	copyGolden(t, models, "ridge-sr", "reg")
	copyGolden(t, models, "cls-onehot", "cls")
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("tok-123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, pool := writeCert(t, dir)
	addr, codec, stderr := startServe(t, "--models", models, "--token-file", tokenFile, "--tls-cert", certFile,
		"--tls-key", keyFile, "--log-format", "json", "--drain-timeout", "20s")
	base := "https://" + addr.String()
	c := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	token := "tok-123"
	post := func(name string, body io.Reader) (int, oipAnswer) {
		t.Helper()
		req, _ := http.NewRequest("POST", base+"/v2/models/"+name+"/infer", body)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var a oipAnswer
		_ = json.NewDecoder(resp.Body).Decode(&a)
		return resp.StatusCode, a
	}
	predictions := func(a oipAnswer) []float64 {
		var v []float64
		if len(a.Outputs) > 0 {
			_ = json.Unmarshal(a.Outputs[0].Data, &v)
		}
		return v
	}
	same := func(what string, got, want []float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
		}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s: value %d is %v, want %v", what, i, got[i], want[i])
			}
		}
	}

	X := []float64{-1.048141, 5.442292, -0.260090, -1.737885, 0.131680, 0.674938, 0.5, -0.25, 1e-7}
	m, err := rff.Load(filepath.Join(models, "reg.rff"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := m.PredictRows(X, 3)
	code, a := post("reg", bytes.NewReader(inferBody(X, 3, 3)))
	if code != 200 {
		t.Fatalf("infer: %d", code)
	}
	same("over HTTPS", predictions(a), want.Values)
	v0 := a.ModelVersion

	// no token: 401; health: no token needed
	resp, err := c.Get(base + "/v2/models/reg")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("metadata without a token: %d", resp.StatusCode)
	}
	if resp, err = c.Get(base + "/v2/health/ready"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("ready: %v %v", resp, err)
	}
	resp.Body.Close()

	// SIGHUP reloads a changed file
	copyGolden(t, models, "exact", "reg")
	exact, _ := rff.Load(filepath.Join(models, "reg.rff"))
	wantExact, _ := exact.PredictRows(X, 3)
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, a = post("reg", bytes.NewReader(inferBody(X, 3, 3)))
		if code == 200 && a.ModelVersion != v0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("SIGHUP did not reload: %d %s", code, a.ModelVersion)
		}
		time.Sleep(10 * time.Millisecond)
	}
	same("after SIGHUP", predictions(a), wantExact.Values)

	// SIGHUP re-reads the token file: the rotated token works and the old one is refused; a token file emptied
	// afterwards keeps the rotated token (logged), never opening the server up
	rotate := func(content string) {
		t.Helper()
		tmp := tokenFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, tokenFile); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
	}
	rotate("tok-456\n")
	for deadline := time.Now().Add(10 * time.Second); ; {
		if code, _ = post("reg", bytes.NewReader(inferBody(X, 3, 3))); code == 401 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("SIGHUP did not rotate the token: the old one answers %d", code)
		}
		time.Sleep(10 * time.Millisecond)
	}
	token = "tok-456"
	if code, _ = post("reg", bytes.NewReader(inferBody(X, 3, 3))); code != 200 {
		t.Fatalf("the rotated token: %d", code)
	}
	rotate("\n")
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(stderr.String(), "the previous token stays in force"); {
		if time.Now().After(deadline) {
			t.Fatalf("the empty token file was not logged: %s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code, _ = post("reg", bytes.NewReader(inferBody(X, 3, 3))); code != 200 {
		t.Fatalf("the token in force after an empty token file: %d", code)
	}
	if resp, err = c.Get(base + "/v2/models/reg"); err != nil || resp.StatusCode != 401 {
		t.Fatalf("no token after an empty token file: %v %v", resp, err)
	}
	resp.Body.Close()

	// SIGTERM with a request in flight: it is answered, then rff serve exits 0
	pr, pw := io.Pipe()
	body := inferBody(X, 3, 3)
	inflight := make(chan []float64, 1)
	go func() {
		code, a := post("reg", pr)
		if code != 200 {
			inflight <- nil
			return
		}
		inflight <- predictions(a)
	}()
	if _, err := pw.Write(body[:20]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the request reaches the handler
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(stderr.String(), "draining") {
		if time.Now().After(deadline.Add(20 * time.Second)) {
			t.Fatal("no drain after SIGTERM")
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case code := <-codec:
		t.Fatalf("rff serve exited %d with a request in flight", code)
	case <-time.After(100 * time.Millisecond):
	}
	_, _ = pw.Write(body[20:])
	pw.Close()
	got := <-inflight
	if got == nil {
		t.Fatal("the request in flight failed")
	}
	same("in flight during shutdown", got, wantExact.Values)
	if code := waitExit(t, codec, stderr); code != 0 {
		t.Fatalf("exit %d after SIGTERM: %s", code, stderr.String())
	}

	// every log line is a JSON object; the reload and the shutdown are there
	sc := bufio.NewScanner(strings.NewReader(stderr.String()))
	var msgs []string
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("log line is not JSON: %q", sc.Text())
		}
		msgs = append(msgs, fmt.Sprint(rec["msg"]))
		if rec["msg"] == "listening" && rec["auth"] != true {
			t.Errorf("with --token-file, the listening line says auth=%v: %s", rec["auth"], sc.Text())
		}
	}
	joined := strings.Join(msgs, "|")
	for _, w := range []string{"model loaded", "listening", "SIGHUP: reloading the model directory", "model replaced", "shut down"} {
		if !strings.Contains(joined, w) {
			t.Errorf("logs lack %q: %s", w, joined)
		}
	}
}

// rff serve --watch starts on an empty directory, serves a model file as soon as it appears, and exits 0 on SIGINT.
func TestServeWatch(t *testing.T) {
	models := t.TempDir()
	addr, codec, stderr := startServe(t, "--models", models, "--watch", "--watch-interval", "20ms")
	base := "http://" + addr.String()
	get := func(path string) int {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get("/v2/health/ready"); code != 503 {
		t.Errorf("ready with no model: %d", code)
	}
	if !strings.Contains(stderr.String(), "msg=listening") || !strings.Contains(stderr.String(), "auth=false") {
		t.Errorf("without --token-file, the listening line does not say auth=false: %s", stderr.String())
	}
	copyGolden(t, models, "cls-onehot", "iris")
	deadline := time.Now().Add(10 * time.Second)
	for get("/v2/models/iris/ready") != 200 {
		if time.Now().After(deadline) {
			t.Fatalf("the new model was not picked up: %s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code := get("/v2/health/ready"); code != 200 {
		t.Errorf("ready with a model: %d", code)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, codec, stderr); code != 0 {
		t.Fatalf("exit %d after SIGINT", code)
	}
}

// A SIGHUP or a SIGTERM that arrives while the models load — the port already bound, so a supervisor may think the
// server up — does not kill the process: once loaded it reloads (a SIGHUP), or drains and exits 0 (a SIGTERM). One
// signal per run: two sent together may be received in either order.
func TestServeSignalsWhileLoading(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			models := t.TempDir()
			copyGolden(t, models, "ridge-sr", "reg")
			serveLoading = func() {
				if err := syscall.Kill(os.Getpid(), sig); err != nil {
					t.Error(err)
				}
				time.Sleep(100 * time.Millisecond) // delivered while loading
			}
			t.Cleanup(func() { serveLoading = nil })
			_, codec, stderr := startServe(t, "--models", models)
			if sig == syscall.SIGHUP {
				// The reload is logged before the server handles the SIGTERM sent now.
				if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			}
			if code := waitExit(t, codec, stderr); code != 0 {
				t.Fatalf("exit %d, want 0: %s", code, stderr.String())
			}
			want := map[syscall.Signal]string{syscall.SIGHUP: "SIGHUP: reloading", syscall.SIGTERM: "signal received"}[sig]
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("the log lacks %q: %s", want, stderr.String())
			}
		})
	}
}

// With --shutdown-delay the first SIGTERM turns readiness to 503 while requests are still answered; a second ends
// the delay, and rff serve drains and exits 0 long before the delay is over.
func TestServeShutdownDelaySecondSignal(t *testing.T) {
	models := t.TempDir()
	copyGolden(t, models, "ridge-sr", "reg")
	addr, codec, stderr := startServe(t, "--models", models, "--shutdown-delay", "60s")
	start := time.Now()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := c.Get("http://" + addr.String() + "/v2/health/ready")
		if err != nil {
			t.Fatalf("readiness during the delay: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("readiness never turned 503 after SIGTERM")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, codec, stderr); code != 0 {
		t.Fatalf("exit %d, want 0: %s", code, stderr.String())
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("exited after %v: the second signal did not end the 60 s delay", d)
	}
	if !strings.Contains(stderr.String(), "second signal: shutdown delay ended") {
		t.Errorf("the log lacks the second signal: %s", stderr.String())
	}
}
