package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rffkit/rff/model"
)

func modelVersion(t *testing.T, c *http.Client, base, name string) (string, int) {
	t.Helper()
	code, _, b := do(t, c, "GET", base+"/v2/models/"+name, nil)
	var md struct{ Versions []string }
	_ = json.Unmarshal(b, &md)
	if len(md.Versions) == 0 {
		return "", code
	}
	return md.Versions[0], code
}

// A bad file never replaces a good model; a changed good file does; a new bad file is not served; a removed file
// stops being served; unchanged files keep their loaded model.
func TestReloadKeepsGoodModels(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	dir := copyModels(t, "ridge-sr=m", "cls-onehot=keep")
	s, ts := newTestServer(t, dir, Options{Logger: newTestLogger(&logs, &mu)})
	c := ts.Client()
	v0, _ := modelVersion(t, c, ts.URL, "m")
	keep := s.models.Load().get("keep")
	path := filepath.Join(dir, "m.rff")
	good, _ := os.ReadFile(path)
	X := randomRows(1, 4, 3)
	body := matrixBody(X, 4, 3, "FP64")
	wantSR, _ := loadGolden(t, "ridge-sr").PredictRows(X, 4)
	wantExact, _ := loadGolden(t, "exact").PredictRows(X, 4)

	for _, bad := range []struct {
		what string
		b    []byte
	}{
		{"garbage", []byte("not a model")},
		{"truncated", good[:len(good)/2]},
		{"one byte changed", func() []byte { b := bytes.Clone(good); b[len(b)/2] ^= 1; return b }()},
		{"empty", nil},
	} {
		replaceFile(t, path, bad.b)
		err := s.Reload()
		if err == nil || !strings.Contains(err.Error(), "m.rff") {
			t.Fatalf("%s: Reload returned %v, want an error naming the file", bad.what, err)
		}
		if v, _ := modelVersion(t, c, ts.URL, "m"); v != v0 {
			t.Fatalf("%s: version %q after a bad reload, want %q", bad.what, v, v0)
		}
		r := infer(t, c, ts.URL, "m", body)
		got, _ := r.floats(t, OutputPredictions)
		sameBits(t, bad.what+": the old model still answers", got, wantSR.Values)
	}
	mu.Lock()
	if !strings.Contains(logs.String(), "the previous version stays in service") {
		t.Errorf("the bad file was not logged:\n%s", logs.String())
	}
	mu.Unlock()

	// a good, different model under the same name replaces it
	exact, _ := os.ReadFile(filepath.Join(golden, "exact.rff"))
	replaceFile(t, path, exact)
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	r := infer(t, c, ts.URL, "m", body)
	if r.ModelVersion == v0 {
		t.Fatal("the version did not change")
	}
	got, _ := r.floats(t, OutputPredictions)
	sameBits(t, "the new model answers", got, wantExact.Values)
	if s.models.Load().get("keep") != keep {
		t.Error("an unchanged file was loaded again")
	}

	// a new bad file is not served; a removed file stops being served
	if err := os.WriteFile(filepath.Join(dir, "new.rff"), []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "keep.rff")); err != nil {
		t.Fatal(err)
	}
	if err := s.Reload(); err == nil {
		t.Fatal("Reload accepted new.rff")
	}
	for _, name := range []string{"new", "keep"} {
		if _, code := modelVersion(t, c, ts.URL, name); code != 404 {
			t.Errorf("model %s: %d, want 404", name, code)
		}
	}
	if got := counterValue(t, s, "rff_serve_model_load_errors_total", nil); got != 5 {
		t.Errorf("load errors %v, want 5", got)
	}
	if got := counterValue(t, s, "rff_serve_models_loaded", nil); got != 1 {
		t.Errorf("models loaded %v, want 1", got)
	}
}

// Reloads while requests run lose no request: every request is answered 200 by one whole version of the model,
// old or new, with that version's exact predictions.
func TestReloadUnderLoad(t *testing.T) {
	dir := copyModels(t, "ridge-sr=m")
	s, ts := newTestServer(t, dir, Options{MaxConcurrent: 64, MaxQueue: 256, QueueTimeout: 10 * time.Second})
	path := filepath.Join(dir, "m.rff")
	versions := map[string][]byte{}
	want := map[string][]float64{}
	X := randomRows(5, 20, 3)
	body := matrixBody(X, 20, 3, "FP64")
	for _, name := range []string{"ridge-sr", "exact", "ridge-g", "ridge-arccos"} {
		b, _ := os.ReadFile(filepath.Join(golden, name+".rff"))
		e, err := loadEntry("m", b, 0)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := e.model.PredictRows(X, 20)
		versions[name], want[e.version] = b, p.Values
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[string]int{}
	var failures []string
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 400 && ctx.Err() == nil; i++ {
				req, _ := http.NewRequest("POST", ts.URL+"/v2/models/m/infer", bytes.NewReader(body))
				resp, err := ts.Client().Do(req)
				if err != nil {
					mu.Lock()
					failures = append(failures, err.Error())
					mu.Unlock()
					continue
				}
				var r inferResponse
				err = json.NewDecoder(resp.Body).Decode(&r)
				resp.Body.Close()
				msg := ""
				switch {
				case resp.StatusCode != 200 || err != nil:
					msg = fmt.Sprintf("%d %v %s", resp.StatusCode, err, r.Error)
				case want[r.ModelVersion] == nil:
					msg = "unknown version " + r.ModelVersion
				default:
					var got []float64
					_ = json.Unmarshal(r.Outputs[0].Data, &got)
					for j := range got {
						if math.Float64bits(got[j]) != math.Float64bits(want[r.ModelVersion][j]) {
							msg = "predictions of version " + r.ModelVersion + " differ"
							break
						}
					}
				}
				mu.Lock()
				if msg != "" {
					failures = append(failures, msg)
				}
				seen[r.ModelVersion]++
				mu.Unlock()
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	order := []string{"exact", "bad", "ridge-g", "ridge-arccos", "bad", "ridge-sr"}
	reloads := 0
	for i := 0; i < 2000; i++ {
		select {
		case <-finished:
			i = 2000
			continue
		default:
		}
		name := order[i%len(order)]
		if name == "bad" {
			replaceFile(t, path, []byte("bad model"))
		} else {
			replaceFile(t, path, versions[name])
		}
		err := s.Reload()
		if (err != nil) != (name == "bad") {
			t.Errorf("reload of %s: %v", name, err)
		}
		reloads++
		time.Sleep(2 * time.Millisecond)
	}
	<-finished
	if len(failures) > 0 {
		t.Fatalf("%d requests failed during %d reloads, first: %s", len(failures), reloads, failures[0])
	}
	total := 0
	for _, n := range seen {
		total += n
	}
	if len(seen) < 2 || total == 0 {
		t.Fatalf("requests saw versions %v over %d reloads: the test did not overlap requests with reloads", seen, reloads)
	}
	t.Logf("%d requests, all 200, over %d reloads; versions seen %v", total, reloads, seen)
}

// Watch picks up a new file, a changed file and a removed one by itself.
func TestWatch(t *testing.T) {
	dir := copyModels(t, "ridge-sr=a")
	s, ts := newTestServer(t, dir, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Watch(ctx, 10*time.Millisecond); close(done) }()
	defer func() { cancel(); <-done }()
	has := func(name string) func() bool {
		return func() bool { _, code := modelVersion(t, ts.Client(), ts.URL, name); return code == 200 }
	}
	b, _ := os.ReadFile(filepath.Join(golden, "cls-onehot.rff"))
	replaceFile(t, filepath.Join(dir, "b.rff"), b)
	waitFor(t, "model b to appear", has("b"))
	v0, _ := modelVersion(t, ts.Client(), ts.URL, "a")
	e, _ := os.ReadFile(filepath.Join(golden, "exact.rff"))
	replaceFile(t, filepath.Join(dir, "a.rff"), e)
	waitFor(t, "model a to change", func() bool { v, _ := modelVersion(t, ts.Client(), ts.URL, "a"); return v != v0 })
	if err := os.Remove(filepath.Join(dir, "b.rff")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "model b to go", func() bool { return !has("b")() })
}

// A model file over MaxModelBytes is refused without being read, a large file that is not a model file after its
// first bytes (so neither allocates its size), and the good model of the same name stays in service.
func TestReloadLargeFiles(t *testing.T) {
	dir := copyModels(t, "ridge-sr=m")
	path := filepath.Join(dir, "m.rff")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const limit = 64 << 20
	s, ts := newTestServer(t, dir, Options{MaxModelBytes: limit})
	v0, _ := modelVersion(t, ts.Client(), ts.URL, "m")
	for _, c := range []struct {
		what string
		head []byte
		size int64
		want string
	}{
		{"over the limit", good[:16], limit + 1, "more than the 67108864 a model may have"},
		{"junk", []byte("not a model file"), limit, "not an rff model file"},
		{"a newer version", append([]byte(model.Magic), 0xff, 0, 0, 0, 0, 0, 0, 0), limit, "unsupported model format version"},
	} {
		t.Run(c.what, func(t *testing.T) {
			tmp := filepath.Join(t.TempDir(), "m.rff")
			if err := os.WriteFile(tmp, c.head, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(tmp, c.size); err != nil { // sparse: the size costs no disk
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := s.Reload()
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "m.rff") {
				t.Fatalf("Reload: %v, want an error naming m.rff with %q", err, c.want)
			}
			if a := after.TotalAlloc - before.TotalAlloc; a > 1<<20 {
				t.Errorf("refusing a file of %d bytes allocated %d bytes", c.size, a)
			}
			if v, _ := modelVersion(t, ts.Client(), ts.URL, "m"); v != v0 {
				t.Errorf("version %q after a refused file, want %q", v, v0)
			}
		})
	}
}

// changeInPlace changes one byte in the middle of the file at path in place, then gives it back the modification
// time it had: the same file, size and time, other bytes.
func changeInPlace(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 1
	if _, err := f.WriteAt(b, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, time.Time{}, fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// watchedReload starts Watch on s, adds the model file name.rff to dir so that the directory changes, and waits
// until that model is served: the reload it triggered is done.
func watchedReload(t *testing.T, s *Server, dir, name string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Watch(ctx, time.Millisecond); close(done) }()
	defer func() { cancel(); <-done }()
	b, err := os.ReadFile(filepath.Join(golden, "exact.rff"))
	if err != nil {
		t.Fatal(err)
	}
	replaceFile(t, filepath.Join(dir, name+Ext), b)
	waitFor(t, "model "+name+" to be served", func() bool { return slices.Contains(s.Models(), name) })
}

// A reload of Watch reads again only the model files whose size, modification time or (on Unix) inode changed
// since they were loaded; Reload reads and hashes every file. Here the file keep.rff gets one byte changed (which
// the model refuses), and another file appears so that Watch reloads.
func TestWatchedReloadSkipsUnchangedFiles(t *testing.T) {
	cases := []struct {
		what     string
		change   func(t *testing.T, path string)
		wantRead bool // by the reload of Watch
	}{
		{"in place, same size and time", changeInPlace, false},
		{"in place, new time", func(t *testing.T, path string) {
			changeInPlace(t, path)
			if err := os.Chtimes(path, time.Time{}, time.Now().Add(time.Second)); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"one byte longer, same time", func(t *testing.T, path string) {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, fi.Size()+1); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(path, time.Time{}, fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, true},
	}
	if fi, err := os.Stat(golden); err == nil {
		if _, ino := fileID(fi); ino != 0 {
			cases = append(cases, struct {
				what     string
				change   func(t *testing.T, path string)
				wantRead bool
			}{"replaced by another file of the same size and time", func(t *testing.T, path string) {
				fi, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				b[len(b)/2] ^= 1
				tmp := filepath.Join(t.TempDir(), "keep.rff")
				if err := os.WriteFile(tmp, b, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(tmp, time.Time{}, fi.ModTime()); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(tmp, path); err != nil {
					t.Fatal(err)
				}
			}, true})
		}
	}
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			var logs bytes.Buffer
			var mu sync.Mutex
			dir := copyModels(t, "ridge-sr=keep")
			path := filepath.Join(dir, "keep.rff")
			s, _ := newTestServer(t, dir, Options{Logger: newTestLogger(&logs, &mu)})
			keep := s.models.Load().get("keep")
			if keep == nil {
				t.Fatal("keep.rff not loaded")
			}
			c.change(t, path)
			watchedReload(t, s, dir, "new")
			read := counterValue(t, s, "rff_serve_model_load_errors_total", nil) > 0
			if read != c.wantRead {
				mu.Lock()
				t.Fatalf("the reload of Watch read keep.rff: %v, want %v; log:\n%s", read, c.wantRead, logs.String())
			}
			if s.models.Load().get("keep") != keep {
				t.Fatal("the model of keep.rff was replaced")
			}
			err := s.Reload()
			if err == nil || !strings.Contains(err.Error(), "keep.rff") {
				t.Fatalf("Reload: %v, want an error naming keep.rff", err)
			}
			if s.models.Load().get("keep") != keep {
				t.Fatal("the model of keep.rff was replaced by Reload")
			}
		})
	}
}

// A file whose modification time changed but not its bytes is hashed by the reload of Watch, which keeps its
// model and records its new size and time: the next reload of Watch does not read it again.
func TestWatchedReloadRecordsVerifiedFiles(t *testing.T) {
	dir := copyModels(t, "ridge-sr=keep")
	path := filepath.Join(dir, "keep.rff")
	s, _ := newTestServer(t, dir, Options{})
	keep := s.models.Load().get("keep")
	if err := os.Chtimes(path, time.Time{}, time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	watchedReload(t, s, dir, "first")
	if s.models.Load().get("keep") != keep {
		t.Fatal("a touched file whose bytes did not change was loaded again")
	}
	changeInPlace(t, path)
	watchedReload(t, s, dir, "second")
	if got := counterValue(t, s, "rff_serve_model_load_errors_total", nil); got != 0 {
		t.Fatalf("the second reload of Watch read keep.rff again (%v load errors)", got)
	}
	if err := s.Reload(); err == nil || !strings.Contains(err.Error(), "keep.rff") {
		t.Fatalf("Reload: %v, want an error naming keep.rff", err)
	}
}
