package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// badEnv holds the files the hostile cases refer to.
type badEnv struct {
	dir, train, test, model, bomb, wide, cont string
}

func newBadEnv(t *testing.T) *badEnv {
	t.Helper()
	dir := t.TempDir()
	e := &badEnv{dir: dir, train: writeCSV(t, 500, 4), model: filepath.Join(dir, "m.rff")}
	e.test = e.train
	if code, _, errOut := runCLI("fit", "--data", e.train, "--out", e.model, "-D", "32"); code != 0 {
		t.Fatal(errOut)
	}
	// A 1 GiB CSV of zeros compressed to about a megabyte.
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write([]byte("a,b,y\n"))
	row := bytes.Repeat([]byte("0,0,0\n"), 1<<16)
	for written := 0; written < 1<<30; written += len(row) {
		zw.Write(row)
	}
	zw.Close()
	e.bomb = filepath.Join(dir, "bomb.csv.gz")
	os.WriteFile(e.bomb, gz.Bytes(), 0o644)
	// 20 rows in dimension 20000: SR rules would round D = 64 up to 20001 points.
	var w strings.Builder
	for j := range 20000 {
		fmt.Fprintf(&w, "x%d,", j+1)
	}
	w.WriteString("y\n")
	for i := range 20 {
		for j := range 20000 {
			fmt.Fprintf(&w, "%d,", (i*j)%7)
		}
		fmt.Fprintf(&w, "%d\n", i)
	}
	e.wide = filepath.Join(dir, "wide.csv")
	os.WriteFile(e.wide, []byte(w.String()), 0o644)
	// A continuous target: 500 distinct values in 500 rows.
	w.Reset()
	w.WriteString("a,y\n")
	for i := range 500 {
		fmt.Fprintf(&w, "%d,%g\n", i, float64(i)*1.25)
	}
	e.cont = filepath.Join(dir, "continuous.csv")
	os.WriteFile(e.cont, []byte(w.String()), 0o644)
	return e
}

// TestBadInputs runs hostile command lines in-process: each exits 2 with one line on stderr and nothing on stdout,
// never a stack trace, within 5 s and without allocating anywhere near the memory it was asked for (TotalAlloc
// growth below 1 GiB).
func TestBadInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1 GiB gzip bomb")
	}
	e := newBadEnv(t)
	bad := func(name string) string { return filepath.Join("..", "..", "testdata", "bad", name) }
	out := filepath.Join(e.dir, "out.rff")
	cases := [][]string{
		// Memory asked for, refused before it is spent.
		{"fit", "--data", e.train, "--out", out, "-D", "100000"},
		{"fit", "--data", e.train, "--out", out, "-D", "100000", "--precision", "double"},
		{"fit", "--data", e.train, "--out", out, "-D", "100000", "--solver", "cg"},
		{"fit", "--data", e.train, "--out", out, "-D", "100000", "--stream"},
		{"fit", "--data", e.train, "--out", out, "-D", "45000"},
		{"fit", "--data", e.train, "--out", out, "-D", "30000"},
		{"fit", "--data", e.train, "--out", out, "--cv", "3", "--lambdas", "1e-3:1e-1:100000000000"},
		{"fit", "--data", e.train, "--out", out, "--exact", "--max-memory", "1MiB"},
		{"fit", "--data", e.wide, "--out", out, "-D", "64"},
		{"fit", "--data", e.bomb, "--out", out, "--max-memory", "256MiB"},
		{"approx", "--data", e.train, "--samples", "100", "--runs", "2000000000"},
		{"approx", "--ovk", "curl-free", "--dim", "100000000"},
		{"approx", "--ovk", "curl-free", "--runs", "4611686018427387904", "--samples", "20", "--Ds", "10", "--rules", "g"},
		{"approx", "--ovk", "curl-free", "--runs", "1000000000000", "--samples", "20", "--Ds", "10", "--rules", "g"},
		{"bench", "--dims", "1000000000"},
		{"bench", "--quick", "--dims", "1", "--rules", "g", "--max-memory", "5MiB"},
		{"generate", "multitask", "--n", "40000000", "--max-memory", "1GiB"},
		// Silent wrong results, now refused.
		{"fit", "--data", bad("text-target.csv"), "--out", out},
		{"fit", "--data", e.cont, "--out", out, "--task", "classification"},
		{"fit", "--data", e.train, "--out", out, "--kernel", "arccos1", "--sigma", "3"},
		{"approx", "--ovk", "curl-free", "--runs", "2", "--samples", "20", "--Ds", "10", "--sigma", "1e-100"},
		{"approx", "--ovk", "curl-free", "--runs", "2", "--samples", "20", "--Ds", "10", "--sigma", "1e-100", "--json"},
		{"approx", "--ovk", "curl-free", "--runs", "2", "--samples", "20", "--Ds", "10", "--kernel", "laplacian"},
		{"approx", "--ovk", "curl-free", "--runs", "2", "--samples", "20", "--Ds", "10", "--form", "bogus"},
		{"approx", "--ovk", "curl-free", "--runs", "2", "--samples", "20", "--Ds", "10", "--sigma", "1", "--gamma", "2"},
		{"approx", "--data", e.train, "--samples", "100", "--sigma", "1e-300", "--runs", "2"},
		// Bad files.
		{"fit", "--data", bad("ragged.csv"), "--out", out},
		{"fit", "--data", bad("text-feature.csv"), "--out", out},
		{"fit", "--data", bad("empty.csv"), "--out", out},
		{"fit", "--data", bad("header-only.csv"), "--out", out},
		{"fit", "--data", bad("nan-target.csv"), "--out", out},
		{"fit", "--data", bad("inf-feature.csv"), "--out", out},
		{"fit", "--data", bad("repeated-index.svm"), "--out", out},
		{"fit", "--data", bad("zero-index.svm"), "--out", out},
		{"fit", "--data", bad("short.idx"), "--out", out},
		{"eval", "--model", bad("short.rff"), "--data", e.test},
		{"eval", "--model", bad("magic.rff"), "--data", e.test},
		{"eval", "--model", bad("truncated.rff"), "--data", e.test},
		{"eval", "--model", bad("flipped.rff"), "--data", e.test},
		{"predict", "--model", e.model, "--data", bad("ragged.csv")},
		// Outputs that would destroy an input, or cannot be written.
		{"fit", "--data", e.train, "--out", e.train},
		{"predict", "--model", e.model, "--data", e.test, "--out", e.test},
		{"predict", "--model", e.model, "--data", e.test, "--out", e.model},
		{"fit", "--data", e.train, "--out", filepath.Join(e.dir, "missing", "m.rff")},
		// Flags.
		{"bound", "--eps", "0", "--d", "2", "--diameter", "1"},
		{"fit", "--data", e.train, "--out", out, "--max-memory", "lots"},
		{"fit", "--data", e.train, "--out", out, "--max-memory", "-5"},
		{"fit", "--data", e.train, "--out", out, "--gamma", "9e307"},
		{"fit", "--data", e.train, "--out", out, "--sigma", "1e-320"},
		{"fit", "--data", e.train, "--out", out, "--rule", "g:5"},
		{"fit", "--data", e.train, "--out", out, "--lambda", "1e308"},
		{"approx", "--data", e.train, "--samples", "100", "--rules", "orf:zzz"},
		{"approx", "--data", e.train, "--samples", "100", "--preprocess", ""},
		{"bound", "--d", "5", "--diameter", "2", "-D", "9223372036854775807"},
		{"bound", "--d", "3", "--diameter", "2", "--eps", "0.1", "--theorem", "krr", "--lambda0", "0.1", "--sigma-y", "0"},
		{"bound", "--d", "3", "--diameter", "2", "--eps", "0.1", "--theorem", "orff", "--ovk", "decomposable", "--outputs", "0"},
		{"bound", "--d", "3", "--diameter", "2", "--eps", "0.1", "--theorem", "orff", "--ovk", "decomposable", "--norm-a", "0"},
		{"bound", "--d", "3", "--diameter", "2", "--eps", "0.1", "--sigma", "1e300"},
		{"bound", "--d", "3", "--diameter", "2", "--eps", "0.1", "--sigma", "1e-300"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c, " "), func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			code, stdout, stderr := runCLI(c...)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			if code != 2 || strings.Count(stderr, "\n") != 1 || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
				t.Errorf("a stack trace: %q", stderr)
			}
			if took > 5*time.Second {
				t.Errorf("took %v", took)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<30 {
				t.Errorf("allocated %d MiB", grew>>20)
			}
		})
	}
}

// TestOutputsSurvive: a fit whose test file fails leaves the existing model as it was, and no temporary file.
func TestOutputsSurvive(t *testing.T) {
	e := &badEnv{dir: t.TempDir(), train: writeCSV(t, 200, 3)}
	e.model = filepath.Join(e.dir, "m.rff")
	if code, _, errOut := runCLI("fit", "--data", e.train, "--out", e.model, "-D", "16"); code != 0 {
		t.Fatal(errOut)
	}
	old, _ := os.ReadFile(e.model)
	code, _, _ := runCLI("fit", "--data", e.train, "--out", e.model, "-D", "32", "--test-data", filepath.Join("..", "..", "testdata", "bad", "ragged.csv"))
	if code != 2 {
		t.Fatalf("exit %d", code)
	}
	if now, _ := os.ReadFile(e.model); !bytes.Equal(old, now) {
		t.Error("the model was replaced although the command failed")
	}
	entries, _ := os.ReadDir(e.dir)
	for _, en := range entries {
		if strings.Contains(en.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", en.Name())
		}
	}
}

// TestDiskFull: a model that does not fit on a full disk leaves the old model intact. The test mounts a 32 KiB tmpfs
// (as root; it is skipped where mounting is not allowed).
func TestDiskFull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=32k", "tmpfs", dir).Run(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	defer exec.Command("umount", dir).Run()
	train := writeCSV(t, 200, 4)
	model := filepath.Join(dir, "m.rff")
	if code, _, errOut := runCLI("fit", "--data", train, "--out", model, "-D", "16"); code != 0 {
		t.Fatal(errOut)
	}
	old, _ := os.ReadFile(model)
	// 2000 dense points in R⁴ and 4000 weights take about 100 KiB: more than the disk holds.
	code, _, errOut := runCLI("fit", "--data", train, "--out", model, "-D", "2000", "--rule", "g", "--lambda", "1e-2")
	if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "no space") {
		t.Fatalf("exit %d, stderr %q (want a full disk)", code, errOut)
	}
	if now, _ := os.ReadFile(model); !bytes.Equal(old, now) {
		t.Error("the old model did not survive the full disk")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files on the disk, want the old model only", len(entries))
	}
}
