package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
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
	if err := Write(filepath.Join(dir, "missing", "f.txt"), []byte("x")); err == nil {
		t.Error("wrote into a missing directory")
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
