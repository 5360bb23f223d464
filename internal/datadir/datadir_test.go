package datadir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDirFromEnv(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv(Env, tmp)
	if got := Dir(); got != tmp {
		t.Fatalf("Dir() = %q, want %q", got, tmp)
	}
	p, ok := Path("letter", "letter-recognition.data")
	if want := filepath.Join(tmp, "letter", "letter-recognition.data"); p != want || ok {
		t.Fatalf("Path = %q, %v; want %q, false", p, ok, want)
	}
	if err := os.MkdirAll(filepath.Join(tmp, "letter"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "letter", "letter-recognition.data"), []byte("A,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := Path("letter", "letter-recognition.data"); !ok {
		t.Fatal("Path reports an existing file as absent")
	}
	if p, ok := Path(); p != tmp || !ok {
		t.Fatalf("Path() = %q, %v; want the directory itself, true", p, ok)
	}
}

// TestDirDefault: without RFF_DATA the directory is shared/data beside the module root, which for this package's
// tests (run in internal/datadir) is two levels up.
func TestDirDefault(t *testing.T) {
	t.Setenv(Env, "")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(filepath.Dir(wd))
	if name, ok := moduleName(filepath.Join(root, "go.mod")); !ok || name != modulePath {
		t.Fatalf("go.mod of %s declares %q (%v), want %q", root, name, ok, modulePath)
	}
	want := filepath.Join(filepath.Dir(root), "shared", "data")
	if got := Dir(); got != want {
		t.Fatalf("Dir() = %q, want %q", got, want)
	}
}

// TestNestedModule: a directory with another module's go.mod below the module root does not stop the walk.
func TestNestedModule(t *testing.T) {
	tmp := t.TempDir()
	outer := filepath.Join(tmp, "rff")
	inner := filepath.Join(outer, "distributed", "beam")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(dir, text string) {
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(outer, "// comment\nmodule github.com/rffkit/rff\n\ngo 1.26\n")
	write(inner, "module \"github.com/rffkit/rff/distributed/beam\"\n")
	t.Chdir(inner)
	t.Setenv(Env, "")
	if want, got := filepath.Join(tmp, "shared", "data"), Dir(); got != want {
		t.Fatalf("Dir() = %q, want %q", got, want)
	}
	// Without the outer module, the nearest go.mod anchors the default.
	write(outer, "module example.com/other\n")
	if want, got := filepath.Join(outer, "distributed", "shared", "data"), Dir(); got != want {
		t.Fatalf("Dir() = %q, want %q", got, want)
	}
}
