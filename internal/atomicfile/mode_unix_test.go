//go:build unix

package atomicfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A new file gets the permissions os.Create gives (0666 less the umask); a replaced file keeps its own.
func TestPermissions(t *testing.T) {
	for _, tc := range []struct {
		name     string
		umask    int
		existing fs.FileMode // 0: no file before
		want     fs.FileMode
	}{
		{"new, umask 022", 0o022, 0, 0o644},
		{"new, umask 077", 0o077, 0, 0o600},
		{"new, umask 002", 0o002, 0, 0o664},
		{"replaces 0600", 0o022, 0o600, 0o600},
		{"replaces 0640", 0o022, 0o640, 0o640},
		{"replaces 0666 under umask 077", 0o077, 0o666, 0o666},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.rff")
			if tc.existing != 0 {
				if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, tc.existing); err != nil {
					t.Fatal(err)
				}
			}
			old := syscall.Umask(tc.umask)
			err := Write(path, []byte("new"))
			syscall.Umask(old)
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != tc.want {
				t.Fatalf("permissions %04o, want %04o", got, tc.want)
			}
		})
	}
}

// While a private file is being replaced, its new content is never readable by more than the file itself: the
// temporary file has the replaced file's permissions (less the umask) from the start, not only once written.
func TestPermissionsWhileWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "private.rff")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	var during fs.FileMode
	err := WriteWith(path, func(w io.Writer) error {
		matches, err := filepath.Glob(filepath.Join(filepath.Dir(path), ".private.rff.tmp*"))
		if err != nil || len(matches) != 1 {
			return fmt.Errorf("temporary files %v (%v)", matches, err)
		}
		fi, err := os.Stat(matches[0])
		if err != nil {
			return err
		}
		during = fi.Mode().Perm()
		_, err = w.Write([]byte("new"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if during != 0o600 {
		t.Fatalf("the temporary file had permissions %04o while written, want 0600", during)
	}
}
