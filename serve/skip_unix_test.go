//go:build unix

package serve

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// skippedEntry makes an entry at path that is named like a model file but is none; dir is for the other files
// it needs.
type skippedEntry struct {
	what string
	make func(t *testing.T, path, dir string)
	why  string // in the log line and in Reload's error
}

func symlinkTo(target string) func(t *testing.T, path, dir string) {
	return func(t *testing.T, path, _ string) {
		t.Helper()
		if _, err := os.Stat(target); err != nil {
			t.Skip(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}
}

var skippedEntries = []skippedEntry{
	{"a dangling symlink", func(t *testing.T, path, dir string) {
		if err := os.Symlink(filepath.Join(dir, "gone.rff"), path); err != nil {
			t.Fatal(err)
		}
	}, "a dangling symlink"},
	{"a symlink to itself", func(t *testing.T, path, _ string) {
		if err := os.Symlink(filepath.Base(path), path); err != nil {
			t.Fatal(err)
		}
	}, "a symlink loop"},
	{"a loop of two symlinks", func(t *testing.T, path, dir string) {
		other := filepath.Join(dir, "other")
		if err := os.Symlink(other, path); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(path, other); err != nil {
			t.Fatal(err)
		}
	}, "a symlink loop"},
	{"a FIFO", func(t *testing.T, path, _ string) { mkfifo(t, path) }, "not a regular file: a FIFO"},
	{"a symlink to a FIFO", func(t *testing.T, path, dir string) {
		fifo := filepath.Join(dir, "fifo")
		mkfifo(t, fifo)
		symlinkTo(fifo)(t, path, dir)
	}, "not a regular file: a FIFO"},
	{"a directory", func(t *testing.T, path, _ string) {
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
	}, "not a regular file: a directory"},
	{"a symlink to a directory", func(t *testing.T, path, dir string) { symlinkTo(dir)(t, path, dir) },
		"not a regular file: a directory"},
	{"a symlink to /dev/zero", symlinkTo("/dev/zero"), "not a regular file: a device"},
	{"a symlink to /dev/urandom", symlinkTo("/dev/urandom"), "not a regular file: a device"},
}

// linesNaming returns the log lines that name path.
func linesNaming(logs *bytes.Buffer, mu *sync.Mutex, path string) []string {
	mu.Lock()
	defer mu.Unlock()
	var out []string
	for l := range strings.Lines(logs.String()) {
		if strings.Contains(l, "file="+path+" ") {
			out = append(out, l)
		}
	}
	return out
}

// newServerWithin is New, failed when it takes longer than a few seconds (an open that blocks).
func newServerWithin(t *testing.T, dir string, opts Options) *Server {
	t.Helper()
	type result struct {
		s   *Server
		err error
	}
	c := make(chan result, 1)
	go func() { s, err := New(dir, opts); c <- result{s, err} }()
	select {
	case r := <-c:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.s
	case <-time.After(10 * time.Second):
		t.Fatal("New blocked")
	}
	return nil
}

// An entry named NAME.rff that is no model file — a FIFO, a device, a directory, a dangling symlink, a symlink
// loop — is never opened or read, and is named once by every (re)load, with the reason, in the log and in
// Reload's error; the model it would replace stays in service, as for a corrupt file.
func TestReloadSkippedEntries(t *testing.T) {
	for _, c := range skippedEntries {
		t.Run(c.what, func(t *testing.T) {
			var logs bytes.Buffer
			var mu sync.Mutex
			dir := copyModels(t, "ridge-sr=good")
			path := filepath.Join(dir, "x.rff")
			c.make(t, path, t.TempDir())
			s := newServerWithin(t, dir, Options{Logger: newTestLogger(&logs, &mu)})
			if got := s.Models(); !slices.Equal(got, []string{"good"}) {
				t.Fatalf("models %v, want [good]", got)
			}
			check := func(when string, n int) {
				t.Helper()
				lines := linesNaming(&logs, &mu, path)
				if len(lines) != n {
					t.Fatalf("%s: %d log lines name %s, want %d:\n%s", when, len(lines), path, n, strings.Join(lines, ""))
				}
				if l := lines[n-1]; !strings.Contains(l, "model file not loaded") || !strings.Contains(l, "model=x ") ||
					!strings.Contains(l, c.why) {
					t.Fatalf("%s: log line %q, want the model, the file and %q", when, l, c.why)
				}
			}
			check("New", 1)
			err := s.Reload()
			if err == nil || !strings.Contains(err.Error(), path+": "+c.why) {
				t.Fatalf("Reload: %v, want an error naming %s with %q", err, path, c.why)
			}
			check("Reload", 2)
			if got := counterValue(t, s, "rff_serve_model_load_errors_total", nil); got != 2 {
				t.Errorf("load errors %v, want 2", got)
			}

			// once a model is served under the name, such an entry in its place leaves it in service
			if err := os.RemoveAll(path); err != nil {
				t.Fatal(err)
			}
			good, err := os.ReadFile(filepath.Join(dir, "good.rff"))
			if err != nil {
				t.Fatal(err)
			}
			replaceFile(t, path, good)
			if err := s.Reload(); err != nil {
				t.Fatal(err)
			}
			v := s.models.Load().get("x")
			if v == nil {
				t.Fatal("x.rff was not loaded")
			}
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			c.make(t, path, t.TempDir())
			if err := s.Reload(); err == nil || !strings.Contains(err.Error(), c.why) {
				t.Fatalf("Reload over a served model: %v, want %q", err, c.why)
			}
			if s.models.Load().get("x") != v {
				t.Error("the model served as x was dropped or replaced")
			}
			lines := linesNaming(&logs, &mu, path)
			if l := lines[len(lines)-1]; !strings.Contains(l, "the previous version stays in service") || !strings.Contains(l, c.why) {
				t.Errorf("last log line naming the file: %q", l)
			}
		})
	}
}

// Watch logs an entry that is no model file when it appears or changes, not at every poll.
func TestWatchSkippedEntriesLoggedOnce(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	dir := copyModels(t, "ridge-sr=good")
	other := t.TempDir()
	x, f, z, y := filepath.Join(dir, "x.rff"), filepath.Join(dir, "f.rff"), filepath.Join(dir, "z.rff"), filepath.Join(dir, "y.rff")
	if err := os.Symlink(filepath.Join(other, "gone"), x); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, f)
	if _, err := os.Stat("/dev/urandom"); err == nil {
		symlinkTo("/dev/urandom")(t, z, other)
	} else if err := os.Mkdir(z, 0o755); err != nil {
		t.Fatal(err)
	}
	s := newServerWithin(t, dir, Options{Logger: newTestLogger(&logs, &mu)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Watch(ctx, time.Millisecond); close(done) }()
	defer func() { cancel(); <-done }()
	counts := func(when string, want map[string]int) {
		t.Helper()
		for path, n := range want {
			if got := len(linesNaming(&logs, &mu, path)); got != n {
				mu.Lock()
				t.Fatalf("%s: %s named %d times in the log, want %d:\n%s", when, path, got, n, logs.String())
			}
		}
	}
	time.Sleep(200 * time.Millisecond) // many polls
	counts("unchanged directory", map[string]int{x: 1, f: 1, z: 1})

	// a new entry: one reload, which names every skipped entry once more
	if err := os.Symlink(filepath.Join(other, "gone-too"), y); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "y.rff to be logged", func() bool { return len(linesNaming(&logs, &mu, y)) > 0 })
	time.Sleep(200 * time.Millisecond)
	counts("after y.rff appeared", map[string]int{x: 2, f: 2, z: 2, y: 1})

	// an entry that changes kind (at once: a rename) is seen too
	tmp := filepath.Join(dir, ".tmp-y")
	if err := os.Symlink("y.rff", tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, y); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the symlink loop y.rff to be logged", func() bool {
		l := linesNaming(&logs, &mu, y)
		return len(l) > 1 && strings.Contains(l[len(l)-1], "a symlink loop")
	})
	time.Sleep(200 * time.Millisecond)
	counts("after y.rff changed", map[string]int{x: 3, f: 3, z: 3, y: 2})
	if got := s.Models(); !slices.Equal(got, []string{"good"}) {
		t.Errorf("models %v, want [good]", got)
	}
}

// A FIFO put in place of a model file after the directory was read does not block the load, and a device is
// refused unread.
func TestLoadFileNotRegular(t *testing.T) {
	dir := copyModels(t, "ridge-sr=good")
	s := newServerWithin(t, dir, Options{})
	fifo := filepath.Join(t.TempDir(), "f.rff")
	mkfifo(t, fifo)
	for _, c := range []struct{ path, want string }{
		{fifo, "not a regular file: a FIFO"},
		{"/dev/zero", "not a regular file: a device"},
		{t.TempDir(), "not a regular file: a directory"},
	} {
		if _, err := os.Stat(c.path); err != nil {
			t.Log(err)
			continue
		}
		errc := make(chan error, 1)
		go func() { _, _, err := s.loadFile("f", c.path, nil); errc <- err }()
		select {
		case err := <-errc:
			if err == nil || err.Error() != c.want {
				t.Errorf("loadFile(%s): %v, want %q", c.path, err, c.want)
			}
		case <-time.After(10 * time.Second):
			if w, err := os.OpenFile(c.path, os.O_RDWR, 0); err == nil { // unblocks the reader
				w.Close()
			}
			t.Fatalf("loadFile(%s) blocked", c.path)
		}
	}
}

// A token file that is a FIFO or a device is refused without blocking on it or reading it.
func TestTokenFileNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "token")
	mkfifo(t, fifo)
	for _, c := range []struct{ path, want string }{
		{fifo, fifo + " is not a regular file: a FIFO"},
		{"/dev/zero", "/dev/zero is not a regular file: a device"},
	} {
		errc := make(chan error, 1)
		go func() { _, _, err := readTokenFile(c.path); errc <- err }()
		select {
		case err := <-errc:
			if err == nil || err.Error() != c.want {
				t.Errorf("readTokenFile(%s): %v, want %q", c.path, err, c.want)
			}
		case <-time.After(10 * time.Second):
			if w, err := os.OpenFile(c.path, os.O_RDWR, 0); err == nil { // unblocks the reader
				w.Close()
			}
			t.Fatalf("readTokenFile(%s) blocked", c.path)
		}
	}
}
