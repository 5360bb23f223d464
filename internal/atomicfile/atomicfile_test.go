package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	for _, content := range []string{"first", "second, longer"} {
		if err := Write(p, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != content {
			t.Errorf("read %q, wrote %q", b, content)
		}
	}
	missing := filepath.Join(dir, "missing", "f.txt")
	// the error names the file asked for, not the temporary file
	err := Write(missing, []byte("x"))
	if err == nil || !strings.HasPrefix(err.Error(), "writing "+missing+": cannot create a file in "+filepath.Dir(missing)+": ") ||
		!errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("writing into a missing directory: %v", err)
	}
	if e, _ := os.ReadDir(dir); len(e) != 1 {
		t.Errorf("%d entries left in the directory, want 1", len(e))
	}
}

// TestWriteWithFailure: when the content cannot be produced, the old file stays and no temporary file is left.
func TestWriteWithFailure(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	if err := Write(p, []byte("good")); err != nil {
		t.Fatal(err)
	}
	err := WriteWith(p, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return errors.New("the producer failed")
	})
	if err == nil {
		t.Fatal("no error")
	}
	if b, _ := os.ReadFile(p); string(b) != "good" {
		t.Errorf("the old file became %q", b)
	}
	if e, _ := os.ReadDir(dir); len(e) != 1 {
		t.Errorf("%d entries left", len(e))
	}
}

// TestWriteTargets: a link is followed (its target replaced, the link kept), a directory is refused untouched, and a
// named pipe is written through — its reader gets the content — instead of being replaced by a regular file.
func TestWriteTargets(t *testing.T) {
	dir := t.TempDir()
	t.Run("symlink", func(t *testing.T) {
		target := filepath.Join(dir, "target.txt")
		link := filepath.Join(dir, "link.txt")
		if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Skip(err)
		}
		if err := Write(link, []byte("new")); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link was replaced (%v)", err)
		}
		if b, _ := os.ReadFile(target); string(b) != "new" {
			t.Errorf("the link's target holds %q", b)
		}
	})
	t.Run("directory", func(t *testing.T) {
		sub := filepath.Join(dir, "sub")
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := Write(sub, []byte("x")); err == nil {
			t.Error("wrote over a directory")
		}
		if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
			t.Errorf("the directory is gone (%v)", err)
		}
	})
	t.Run("fifo", func(t *testing.T) {
		fifo := filepath.Join(dir, "fifo")
		if err := syscallMkfifo(fifo); err != nil {
			t.Skip(err)
		}
		got := make(chan []byte)
		go func() {
			f, err := os.Open(fifo) // blocks until the writer opens it
			if err != nil {
				got <- nil
				return
			}
			b, _ := io.ReadAll(f)
			f.Close()
			got <- b
		}()
		if err := Write(fifo, []byte("through the pipe")); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("the pipe was replaced (%v)", err) // and its reader waits for ever
		}
		if b := <-got; string(b) != "through the pipe" {
			t.Errorf("the reader got %q", b)
		}
	})
}

// Interrupt removes the temporary file of a write in progress (the write then fails and the old file stays), and
// nothing once writes are done.
func TestInterruptRemovesTemps(t *testing.T) {
	defer resetInterrupt()
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	if err := Write(p, []byte("old")); err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- WriteWith(p, func(w io.Writer) error {
			if _, err := w.Write(bytes.Repeat([]byte("new"), 1<<16)); err != nil {
				return err
			}
			close(started)
			<-release
			return nil
		})
	}()
	<-started
	if e, _ := os.ReadDir(dir); len(e) != 2 {
		t.Fatalf("%d entries while writing, want the file and its temporary file", len(e))
	}
	if n := Interrupt(); n != 1 {
		t.Errorf("removed %d temporary files, want 1", n)
	}
	close(release)
	if err := <-done; err == nil {
		t.Error("the write succeeded without its temporary file")
	}
	if e, _ := os.ReadDir(dir); len(e) != 1 {
		t.Errorf("%d entries after the interrupted write, want 1", len(e))
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("the file holds %.10q…, want the old content", b)
	}
	if n := Interrupt(); n != 0 {
		t.Errorf("removed %d files with no write in progress", n)
	}
}

// TestBatch: the files of a batch are replaced together or not at all — a failed Add, a failed direct write or a
// failed Then leaves every file as it was and no temporary file beside it.
func TestBatch(t *testing.T) {
	content := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	failing := func(w io.Writer) error {
		io.WriteString(w, "partial")
		return errors.New("the producer failed")
	}
	_, noFull := os.Stat("/dev/full")
	for _, tc := range []struct {
		name     string
		second   func(io.Writer) error // the second file's content
		direct   string                // a non-regular file to add third ("" for none)
		then     error                 // what the Then write returns
		wantAdd  bool                  // the second Add fails
		replaced bool
	}{
		{name: "all succeed", second: content("b2"), replaced: true},
		{name: "an Add fails", second: failing, wantAdd: true},
		{name: "Then fails", second: content("b2"), then: errors.New("stdout is full")},
		{name: "a direct write fails", second: content("b2"), direct: "/dev/full"},
		{name: "a direct write succeeds", second: content("b2"), direct: os.DevNull, replaced: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.direct == "/dev/full" && noFull != nil {
				t.Skip("no /dev/full here")
			}
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
			for _, p := range []string{a, b} {
				if err := Write(p, []byte("old")); err != nil {
					t.Fatal(err)
				}
			}
			var batch Batch
			defer batch.Abort()
			if err := batch.Add(a, content("a2")); err != nil {
				t.Fatal(err)
			}
			err := batch.Add(b, tc.second)
			if (err != nil) != tc.wantAdd {
				t.Fatalf("second Add: %v", err)
			}
			if err == nil && tc.direct != "" {
				if err := batch.Add(tc.direct, content("direct")); err != nil {
					t.Fatal(err)
				}
			}
			ran := false
			batch.Then(func() error { ran = true; return tc.then })
			if err == nil {
				// nothing is replaced before Commit
				if got, _ := os.ReadFile(a); string(got) != "old" {
					t.Fatalf("a holds %q before Commit", got)
				}
				err = batch.Commit()
			} else {
				batch.Abort()
			}
			if (err == nil) != tc.replaced {
				t.Errorf("Commit: %v, want replaced = %v", err, tc.replaced)
			}
			if tc.wantAdd && ran {
				t.Error("Then ran on an aborted batch")
			}
			wantA, wantB := "old", "old"
			if tc.replaced {
				wantA, wantB = "a2", "b2"
			}
			if got, _ := os.ReadFile(a); string(got) != wantA {
				t.Errorf("a holds %q, want %q", got, wantA)
			}
			if got, _ := os.ReadFile(b); string(got) != wantB {
				t.Errorf("b holds %q, want %q", got, wantB)
			}
			if e, _ := os.ReadDir(dir); len(e) != 2 {
				t.Errorf("%d entries left in the directory, want 2", len(e))
			}
			if err := batch.Add(a, content("late")); err == nil {
				t.Error("Add after the batch ended: no error")
			}
			if err := batch.Commit(); err == nil {
				t.Error("a second Commit: no error")
			}
		})
	}
}

// TestInterrupt: Interrupt, the signal handler's call, waits for a batch's renames in progress — so the batch's
// files are replaced all or none — removes the pending temporary files, and makes every later write fail without
// creating a file, so that nothing is left beside the paths when the process exits.
func TestInterrupt(t *testing.T) {
	defer resetInterrupt()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, p := range []string{a, b} {
		if err := Write(p, []byte("old")); err != nil {
			t.Fatal(err)
		}
	}
	for range 200 {
		var batch Batch
		for _, p := range []string{a, b} {
			if err := batch.Add(p, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }); err != nil {
				t.Fatal(err)
			}
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			batch.Commit()
		}()
		Interrupt()
		<-done
		ca, _ := os.ReadFile(a)
		cb, _ := os.ReadFile(b)
		if string(ca) != string(cb) {
			t.Fatalf("a holds %q and b %q: the batch was half committed", ca, cb)
		}
		if err := Write(a, []byte("later")); err == nil || !Interrupted() {
			t.Fatalf("a write after Interrupt: %v, Interrupted %v", err, Interrupted())
		}
		if e, _ := os.ReadDir(dir); len(e) != 2 {
			t.Fatalf("%d entries after the interrupt, want the two files", len(e))
		}
		resetInterrupt()
		for _, p := range []string{a, b} {
			if err := Write(p, []byte("old")); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// resetInterrupt undoes Interrupt, for the tests that follow.
func resetInterrupt() {
	commitMu.Lock()
	defer commitMu.Unlock()
	interrupted = false
}
