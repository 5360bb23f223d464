package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// writeToken replaces the token file atomically (as a secret manager does), or removes it when content is nil.
func writeToken(t testing.TB, path string, content []byte) {
	t.Helper()
	if content == nil {
		if err := os.RemoveAll(path); err != nil {
			t.Fatal(err)
		}
		return
	}
	replaceFile(t, path, content)
}

// authCode is the status code of an authenticated metadata request with the given token ("" for none).
func authCode(t testing.TB, c *http.Client, base, token string) int {
	t.Helper()
	var h []string
	if token != "" {
		h = []string{"Authorization", "Bearer " + token}
	}
	code, _, _ := do(t, c, "GET", base+"/v2/models/reg", nil, h...)
	return code
}

// New reads Options.TokenFile and refuses a file it cannot use, or both a token and a token file.
func TestTokenFileAtStart(t *testing.T) {
	dir := copyModels(t, "ridge-sr=reg")
	tdir := t.TempDir()
	good := filepath.Join(tdir, "good")
	writeToken(t, good, []byte("\n  tok-A \n"))
	if _, err := New(dir, Options{Token: "x", TokenFile: good}); err == nil || !strings.Contains(err.Error(), "both") {
		t.Errorf("Token and TokenFile: %v", err)
	}
	for _, c := range []struct {
		name    string
		content []byte // nil: no file
		dir     bool
		want    string
	}{
		{"missing", nil, false, "no such file"},
		{"empty", []byte(""), false, "empty"},
		{"blank", []byte(" \n\t\n"), false, "empty"},
		{"two words", []byte("tok A\n"), false, "more than one word"},
		{"two lines", []byte("tokA\ntokB\n"), false, "more than one word"},
		{"a directory", nil, true, "not a regular file: a directory"},
		{"one word too long", bytes.Repeat([]byte("t"), maxTokenFile+1), false, "more than 64 KiB"},
		{"not ASCII", []byte("tök\n"), false, "not printable ASCII"},
		{"a control character", []byte("tok\x00A\n"), false, "not printable ASCII"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(tdir, strings.ReplaceAll(c.name, " ", "-"))
			if c.content != nil {
				writeToken(t, path, c.content)
			}
			if c.dir {
				if err := os.Mkdir(path, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			_, err := New(dir, Options{TokenFile: path})
			if !errors.Is(err, ErrTokenFile) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("New: %v, want ErrTokenFile saying %q", err, c.want)
			}
		})
	}
	// A byte-order mark, as some editors write one, is not part of the token.
	bom := filepath.Join(tdir, "bom")
	writeToken(t, bom, []byte("\ufefftok-A\n"))
	_, tb := newTestServer(t, dir, Options{TokenFile: bom})
	if code := authCode(t, tb.Client(), tb.URL, "tok-A"); code != 200 {
		t.Errorf("token of a file with a byte-order mark: %d", code)
	}
	_, ts := newTestServer(t, dir, Options{TokenFile: good})
	c := ts.Client()
	if code := authCode(t, c, ts.URL, "tok-A"); code != 200 {
		t.Errorf("token of the file: %d", code)
	}
	for _, tok := range []string{"", "tok-a", "Tok-A", "tok-A2", "tok-"} {
		if code := authCode(t, c, ts.URL, tok); code != 401 {
			t.Errorf("token %q: %d, want 401", tok, code)
		}
	}
}

// Reload re-reads the token file: a rotated token takes effect and the old one stops working; a file that is
// missing, empty, blank, of two words or a directory keeps the token in force (never no authentication), is
// logged, and Reload returns ErrTokenFile; the models are reloaded either way. A later good file rotates again.
func TestTokenFileRotation(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	dir := copyModels(t, "ridge-sr=reg")
	path := filepath.Join(t.TempDir(), "token")
	writeToken(t, path, []byte("tok-A\n"))
	s, ts := newTestServer(t, dir, Options{TokenFile: path, Logger: newTestLogger(&logs, &mu)})
	c := ts.Client()
	expect := func(what string, valid string, invalid ...string) {
		t.Helper()
		if code := authCode(t, c, ts.URL, valid); code != 200 {
			t.Errorf("%s: token %q answered %d, want 200", what, valid, code)
		}
		for _, tok := range append(invalid, "", "tok-never") {
			if code := authCode(t, c, ts.URL, tok); code != 401 {
				t.Errorf("%s: token %q answered %d, want 401", what, tok, code)
			}
		}
	}
	expect("at start", "tok-A")

	writeToken(t, path, []byte("tok-B\n"))
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	expect("after rotation", "tok-B", "tok-A")

	for _, bad := range []struct {
		name    string
		content []byte
		dir     bool
	}{
		{"missing", nil, false},
		{"empty", []byte{}, false},
		{"blank", []byte("  \n"), false},
		{"two words", []byte("tok-C tok-D\n"), false},
		{"a directory", nil, true},
	} {
		t.Run(bad.name, func(t *testing.T) {
			writeToken(t, path, bad.content)
			if bad.dir {
				if err := os.Mkdir(path, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			// a model added at the same time is loaded although the token file failed
			replaceFile(t, filepath.Join(dir, "extra.rff"), mustRead(t, filepath.Join(golden, "ridge-sr.rff")))
			defer os.Remove(filepath.Join(dir, "extra.rff"))
			err := s.Reload()
			if !errors.Is(err, ErrTokenFile) {
				t.Fatalf("Reload: %v, want ErrTokenFile", err)
			}
			if got := strings.Join(s.Models(), ","); got != "extra,reg" {
				t.Errorf("models after the reload: %s", got)
			}
			expect("after a bad token file", "tok-B", "tok-A", "tok-C", "tok-C tok-D")
			mu.Lock()
			logged := strings.Contains(logs.String(), "the previous token stays in force")
			mu.Unlock()
			if !logged {
				t.Error("the failed re-read was not logged")
			}
			_ = os.RemoveAll(path)
		})
	}

	writeToken(t, path, []byte("tok-E"))
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	expect("after a good file again", "tok-E", "tok-A", "tok-B")
	mu.Lock()
	logged := logs.String()
	mu.Unlock()
	if strings.Contains(logged, "tok-") {
		t.Errorf("a token reached the logs:\n%s", logged)
	}
	metrics := metricsText(t, c, ts.URL, "tok-E")
	for _, w := range []string{`rff_serve_token_reloads_total{result="rotated"} 2`, `rff_serve_token_reloads_total{result="error"} 5`} {
		if !strings.Contains(metrics, w) {
			t.Errorf("metrics lack %s", w)
		}
	}
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func metricsText(t testing.TB, c *http.Client, base, token string) string {
	t.Helper()
	code, _, b := do(t, c, "GET", base+"/metrics", nil, "Authorization", "Bearer "+token)
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	return string(b)
}

// Watch re-reads the token file when it changes, logs a file that disappears once (not at every poll) and keeps
// the token in force, and takes the next good file.
func TestTokenFileWatch(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	dir := copyModels(t, "ridge-sr=reg")
	path := filepath.Join(t.TempDir(), "token")
	writeToken(t, path, []byte("tok-A"))
	s, ts := newTestServer(t, dir, Options{TokenFile: path, Logger: newTestLogger(&logs, &mu)})
	c := ts.Client()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Watch(ctx, 5*time.Millisecond); close(done) }()
	defer func() { cancel(); <-done }()
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("Watch: %s did not happen in 10 s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	writeToken(t, path, []byte("tok-Bee")) // another size: seen whatever the time resolution
	waitFor("the rotation to tok-Bee", func() bool { return authCode(t, c, ts.URL, "tok-Bee") == 200 })
	if code := authCode(t, c, ts.URL, "tok-A"); code != 401 {
		t.Errorf("the old token after the rotation: %d", code)
	}
	failures := func() int {
		mu.Lock()
		defer mu.Unlock()
		return strings.Count(logs.String(), "the previous token stays in force")
	}
	writeToken(t, path, nil)
	waitFor("the log of the missing file", func() bool { return failures() > 0 })
	time.Sleep(100 * time.Millisecond) // 20 polls
	if n := failures(); n != 1 {
		t.Errorf("the missing file was logged %d times, want once", n)
	}
	if code := authCode(t, c, ts.URL, "tok-Bee"); code != 200 {
		t.Errorf("the token in force while the file is missing: %d", code)
	}
	if code := authCode(t, c, ts.URL, ""); code != 401 {
		t.Errorf("no token while the file is missing: %d", code)
	}
	writeToken(t, path, []byte("tok-Cee-C"))
	waitFor("the rotation to tok-Cee-C", func() bool { return authCode(t, c, ts.URL, "tok-Cee-C") == 200 })
	if code := authCode(t, c, ts.URL, "tok-Bee"); code != 401 {
		t.Errorf("the previous token after the second rotation: %d", code)
	}
}

// Requests racing with rotations (run with -race): each is answered 200 with one of the tokens the file held,
// and a request with no token or one the file never held is always 401, whatever the file holds at the moment.
func TestTokenFileRotationRace(t *testing.T) {
	dir := copyModels(t, "ridge-sr=reg")
	path := filepath.Join(t.TempDir(), "token")
	tokens := []string{"tok-0", "tok-1", "tok-2"}
	writeToken(t, path, []byte(tokens[0]))
	s, ts := newTestServer(t, dir, Options{TokenFile: path})
	c := ts.Client()
	ctx, cancel := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() { s.Watch(ctx, time.Millisecond); close(watched) }()
	var stop atomic.Bool
	var wg sync.WaitGroup
	rotated := make(chan struct{})
	go func() {
		defer close(rotated)
		for i := 1; !stop.Load(); i++ {
			switch i % 4 {
			case 3: // a failed rotation: the token in force stays
				writeToken(t, path, []byte("  "))
			default:
				writeToken(t, path, []byte(tokens[i%len(tokens)]))
			}
			if err := s.Reload(); err != nil && !errors.Is(err, ErrTokenFile) {
				t.Error(err)
				return
			}
		}
	}()
	body := matrixBody(randomRows(3, 1, 3), 1, 3, "FP64")
	var accepted atomic.Int64
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				var tok string
				switch (g + i) % 5 {
				case 0:
					tok = ""
				case 1:
					tok = "tok-9"
				default:
					tok = tokens[(g+i)%len(tokens)]
				}
				req, _ := http.NewRequest("POST", ts.URL+"/v2/models/reg/infer", bytes.NewReader(body))
				if tok != "" {
					req.Header.Set("Authorization", "Bearer "+tok)
				}
				resp, err := c.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				switch {
				case resp.StatusCode == 200 && (tok == "" || tok == "tok-9"):
					t.Errorf("token %q was accepted", tok)
				case resp.StatusCode == 200:
					accepted.Add(1)
				case resp.StatusCode != 401:
					t.Errorf("token %q: %d", tok, resp.StatusCode)
				}
			}
		}()
	}
	wg.Wait()
	stop.Store(true)
	<-rotated
	cancel()
	<-watched
	if accepted.Load() == 0 {
		t.Error("no request was accepted while the token rotated")
	}
	writeToken(t, path, []byte("tok-final"))
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	for _, tok := range append(tokens, "") {
		if code := authCode(t, c, ts.URL, tok); code != 401 {
			t.Errorf("%s after the last rotation: %d", fmt.Sprintf("%q", tok), code)
		}
	}
	if code := authCode(t, c, ts.URL, "tok-final"); code != 200 {
		t.Errorf("the last token: %d", code)
	}
}

// A token file rewritten in place while it is read — empty when read, finished before its stamp could be taken — is
// read again at the next poll: the stamp recorded is the one of the bytes read, so the finished file differs from it
// (once the stamp taken after the read, which matched the finished file: its token never came into force).
func TestTokenFileFinishedAfterRead(t *testing.T) {
	dir := copyModels(t, "ridge-sr=reg")
	path := filepath.Join(t.TempDir(), "token")
	writeToken(t, path, []byte("tok-A"))
	s, ts := newTestServer(t, dir, Options{TokenFile: path, Logger: newTestLogger(&bytes.Buffer{}, &sync.Mutex{})})
	if err := os.WriteFile(path, nil, 0o600); err != nil { // in place: truncated, the writer not done yet
		t.Fatal(err)
	}
	afterTokenRead = func() {
		afterTokenRead = nil
		if err := os.WriteFile(path, []byte("tok-Bee"), 0o600); err != nil {
			t.Error(err)
		}
	}
	defer func() { afterTokenRead = nil }()
	if err := s.reloadToken(); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Fatalf("reading the truncated file: %v", err)
	}
	if !s.tokenFileChanged() {
		t.Fatal("the finished file is taken for the one read: Watch would never read it")
	}
	if err := s.reloadToken(); err != nil {
		t.Fatal(err)
	}
	c := ts.Client()
	if code := authCode(t, c, ts.URL, "tok-Bee"); code != 200 {
		t.Errorf("the new token: %d", code)
	}
	if code := authCode(t, c, ts.URL, "tok-A"); code != 401 {
		t.Errorf("the old token: %d", code)
	}
}
