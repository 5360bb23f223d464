//go:build unix

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestPipeInput: a data file given as a named pipe (as /dev/stdin or a process substitution) is read once — its
// format, header and rows from the same bytes — so fit, predict and eval work on it as on the file, and --stream,
// which reads its file twice, refuses it.
func TestPipeInput(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, 50, 2)
	content, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.rff")
	if code, _, errOut := runCLI("fit", "--data", data, "--out", model, "-D", "8", "--sigma", "1"); code != 0 {
		t.Fatalf("fit: %s", errOut)
	}
	_, want, _ := runCLI("eval", "--model", model, "--data", data)
	n := 0
	pipe := func() string { // a fresh named pipe that a writer fills with the data file once
		n++
		return fifo(t, filepath.Join(dir, "pipe"+strings.Repeat("x", n)), func(f *os.File) { f.Write(content) })
	}
	p := pipe()
	code, got, errOut := runCLI("eval", "--model", model, "--data", p)
	if code != 0 || strings.TrimPrefix(got, filepath.Base(p)) != strings.TrimPrefix(want, filepath.Base(data)) {
		t.Errorf("eval on a pipe: exit %d, %q (stderr %q); on the file %q", code, got, errOut, want)
	}
	p = pipe()
	if code, _, errOut := runCLI("fit", "--data", p, "--out", filepath.Join(dir, "p.rff"), "-D", "8", "--sigma", "1"); code != 0 {
		t.Errorf("fit on a pipe: exit %d, %s", code, errOut)
	}
	p = pipe()
	code, _, errOut = runCLI("fit", "--data", p, "--stream", "--out", filepath.Join(dir, "s.rff"), "-D", "8")
	if code != 2 || !strings.Contains(errOut, "--stream reads --data "+p+" twice") {
		t.Errorf("--stream on a pipe: exit %d, %q", code, errOut)
	}
	if f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil { // release the waiting writer
		f.Close()
	}
}

// TestModelPipeOverBudget: a model given as a pipe that never ends (a model file's first bytes, then zeros) is
// refused once it has given more than the memory budget, without reading on.
func TestModelPipeOverBudget(t *testing.T) {
	head, err := os.ReadFile(filepath.Join("..", "..", "testdata", "v2", "ridge-sr.rff"))
	if err != nil {
		t.Fatal(err)
	}
	p := fifo(t, filepath.Join(t.TempDir(), "endless"), func(f *os.File) {
		if _, err := f.Write(head[:16]); err != nil {
			return
		}
		zeros := make([]byte, 1<<16)
		for { // until the reader closes the pipe
			if _, err := f.Write(zeros); err != nil {
				return
			}
		}
	})
	code, out, errOut := runCLI("predict", "--model", p, "--data", writeCSV(t, 10, 2), "--max-memory", "4MiB")
	if code != 2 || out != "" || !strings.Contains(errOut, "--model "+p+" is over the memory budget of 4 MiB") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// fifo makes the named pipe p (skipping the test where that is not possible) and a goroutine that opens it for
// writing, once a reader opens it, calls write and closes it.
func fifo(t *testing.T, p string, write func(f *os.File)) string {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	go func() {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		write(f)
	}()
	return p
}

// TestBrokenPipeHelper is the process TestBrokenPipe starts: with RFF_PIPE_ARGS set it runs rff as main does, on
// those arguments (separated by newlines), with stdout a pipe nobody reads.
func TestBrokenPipeHelper(t *testing.T) {
	args := os.Getenv("RFF_PIPE_ARGS")
	if args == "" {
		t.Skip("the process TestBrokenPipe starts")
	}
	quietBrokenPipe()
	os.Exit(run(strings.Split(args, "\n"), os.Stdout, os.Stderr))
}

// TestBrokenPipe: when whoever reads stdout has gone, rff exits as the shell's tools do — 128 + 13, nothing on
// stderr — and replaces none of its files.
func TestBrokenPipe(t *testing.T) {
	data := writeCSV(t, 40, 2)
	model := filepath.Join(t.TempDir(), "model.rff")
	if code, _, errOut := runCLI("fit", "--data", data, "--out", model, "-D", "8"); code != 0 {
		t.Fatal(errOut)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		files []string
	}{
		{"fit", []string{"fit", "--data", data, "-D", "8", "--out", "m.rff", "--report", "r.html"}, []string{"m.rff", "r.html"}},
		{"predict", []string{"predict", "--model", model, "--data", data}, nil},
		{"approx", []string{"approx", "--data", data, "--n", "1", "--runs", "1", "--samples", "10", "--rules", "g", "--plot", "p.svg"}, []string{"p.svg", "p.csv"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := slices.Clone(tc.args)
			for i, a := range args {
				if slices.Contains(tc.files, a) {
					args[i] = filepath.Join(dir, a)
				}
			}
			for _, f := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			r.Close() // nobody reads
			cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenPipeHelper$")
			cmd.Env = append(os.Environ(), "RFF_PIPE_ARGS="+strings.Join(args, "\n"))
			cmd.Stdout = w
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err = cmd.Run()
			w.Close()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 128+13 || stderr.Len() != 0 {
				t.Errorf("%v (stderr %q), want exit code 141 and nothing on stderr", err, stderr.String())
			}
			for _, f := range tc.files {
				if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != "old" {
					t.Errorf("%s was replaced", f)
				}
			}
			if e, _ := os.ReadDir(dir); len(e) != len(tc.files) {
				t.Errorf("%d entries in the directory, want %d", len(e), len(tc.files))
			}
		})
	}
}
