//go:build unix

package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rffkit/rff/internal/atomicfile"
)

// TestSignalHelper is the process TestSignalRemovesTemps signals: with RFF_SIGNAL_OUT set it installs the handler of
// main, starts replacing that file, says "writing" once its temporary file exists, and waits to be ended.
func TestSignalHelper(t *testing.T) {
	out := os.Getenv("RFF_SIGNAL_OUT")
	if out == "" {
		t.Skip("the process TestSignalRemovesTemps starts")
	}
	removeTempsOnSignal("fit")
	_ = atomicfile.WriteWith(out, func(w io.Writer) error {
		if _, err := w.Write(make([]byte, 1<<20)); err != nil {
			return err
		}
		os.Stdout.WriteString("writing\n")
		select {} // until the signal ends the process
	})
}

// TestSignalRemovesTemps: SIGINT or SIGTERM during a write ends rff with 128 + the signal's number and one line,
// leaving the file being replaced as it was and no temporary file beside it.
func TestSignalRemovesTemps(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		dir := t.TempDir()
		out := filepath.Join(dir, "m.rff")
		if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestSignalHelper$")
		cmd.Env = append(os.Environ(), "RFF_SIGNAL_OUT="+out)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "writing\n" {
			t.Fatalf("the helper said %q, %v", line, err)
		}
		if e, _ := os.ReadDir(dir); len(e) != 2 {
			t.Fatalf("%d entries while writing, want the file and its temporary file", len(e))
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 128+int(sig) {
			t.Errorf("%v: %v, want exit code %d", sig, err, 128+int(sig))
		}
		if got := stderr.String(); got != "rff fit: interrupted ("+sig.String()+")\n" {
			t.Errorf("%v: stderr %q", sig, got)
		}
		e, _ := os.ReadDir(dir)
		if b, _ := os.ReadFile(out); len(e) != 1 || string(b) != "old" {
			t.Errorf("%v: %d entries left, the file holds %.10q", sig, len(e), b)
		}
	}
}
