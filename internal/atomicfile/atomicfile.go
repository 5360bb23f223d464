// Package atomicfile writes files so that a reader, or a crash, never sees a partial one.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Write writes data to path through a temporary file in the same directory that is synced and then renamed
// over path, so that path holds either its old content or all of data, whatever fails (a full disk, a crash).
func Write(path string, data []byte) error {
	return WriteWith(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteWith is Write for content produced by write, streamed (buffered) into the temporary file: nothing of it is
// held in memory, and path is replaced only when write and every step after it succeed.
//
// A symbolic link is followed: the file it names is replaced and the link stays. A path that names something other
// than a regular file or a directory — a named pipe, a terminal, /dev/stdout, /dev/null — cannot be replaced
// meaningfully, so the content is written to it directly (there is nothing a reader could see half-written that
// it would not see anyway); an existing directory is refused.
func WriteWith(path string, write func(io.Writer) error) error {
	if fi, err := os.Stat(path); err == nil { // Stat follows links
		switch {
		case fi.IsDir():
			return fmt.Errorf("%s is a directory", path)
		case !fi.Mode().IsRegular():
			return writeDirect(path, write)
		}
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		// The error names the temporary file, which the caller never asked for: name path, and why.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("writing %s: cannot create a file in %s: %w", path, dir, err)
	}
	tmp := f.Name()
	pending.Store(tmp, struct{}{})
	defer pending.Delete(tmp) // renamed or removed by then
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := write(bw); err != nil {
		return fail(fmt.Errorf("writing %s: %w", path, err))
	}
	if err := bw.Flush(); err != nil {
		return fail(fmt.Errorf("writing %s: %w", path, err))
	}
	if err := f.Sync(); err != nil {
		return fail(fmt.Errorf("writing %s: %w", path, err))
	}
	if err := f.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(dir); err == nil { // make the rename durable; best effort
		d.Sync()
		d.Close()
	}
	return nil
}

// pending holds the temporary files being written (their paths), for RemoveTemps.
var pending sync.Map

// RemoveTemps removes the temporary files of the writes in progress and returns how many it removed. A program
// calls it when a signal ends it, so that an interrupted write leaves the file it was replacing as it was and no
// temporary file beside it. The writes themselves then fail (their files are gone); the caller is about to exit.
func RemoveTemps() int {
	n := 0
	pending.Range(func(k, _ any) bool {
		if os.Remove(k.(string)) == nil {
			n++
		}
		return true
	})
	return n
}

// writeDirect writes the content of write to the existing non-regular file at path (a pipe or a device).
func writeDirect(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
