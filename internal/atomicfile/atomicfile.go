// Package atomicfile writes files so that a reader, or a crash, never sees a partial one.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
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
	var b Batch
	if err := b.Add(path, write); err != nil {
		return err
	}
	return b.Commit()
}

// A Batch replaces several files together: each Add writes a file's new content in full to a temporary file beside
// it, and nothing is replaced until Commit, which runs the writes that cannot be staged (Then) and then renames every
// temporary file over its path. A program with several outputs — a model and its report, a figure and its data,
// and what it prints — stages them all and commits only when every one of them was written, so that a failure
// leaves every output as it was. The zero Batch is ready to use; a Batch is not safe for concurrent use.
type Batch struct {
	staged []staged
	then   []func() error
	done   bool
}

// staged is one output of a Batch: a temporary file to rename over path, or (tmp == "") a path that is not a
// regular file, written directly at Commit.
type staged struct {
	path, tmp string
	write     func(io.Writer) error
}

// Add writes the content produced by write to a synced temporary file beside path, to be renamed over path by
// Commit; on failure it removes that file and returns the error, and the caller should Abort the batch. Paths are
// treated as by WriteWith: a link is followed, a directory refused, and a pipe or device (which cannot be replaced)
// is written directly by Commit, before any file is renamed.
func (b *Batch) Add(path string, write func(io.Writer) error) error {
	if b == nil || b.done {
		return errors.New("atomicfile: Add on a batch that was committed or aborted")
	}
	var mode fs.FileMode                      // of the file replaced; 0 for a new file
	if fi, err := os.Stat(path); err == nil { // Stat follows links
		switch {
		case fi.IsDir():
			return fmt.Errorf("%s is a directory", path)
		case !fi.Mode().IsRegular():
			b.staged = append(b.staged, staged{path: path, write: write})
			return nil
		}
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
		mode = fi.Mode().Perm()
	}
	tmp, err := stage(path, mode, write)
	if err != nil {
		return err
	}
	b.staged = append(b.staged, staged{path: path, tmp: tmp})
	return nil
}

// Then adds a write that cannot be staged — what the program prints on its standard output — to run at Commit after
// the direct writes and before any file is renamed: if it fails, no file is replaced.
func (b *Batch) Then(write func() error) {
	if b != nil && !b.done {
		b.then = append(b.then, write)
	}
}

// Commit runs the direct writes and those given to Then, in the order they were added, and then renames every
// temporary file over its path. If a write fails, the temporary files are removed and no file is replaced; a
// rename that fails (which a write that succeeded makes unlikely: the file is beside its path) stops the commit
// with the files renamed before it replaced. A batch is committed or aborted once.
func (b *Batch) Commit() error {
	if b == nil || b.done {
		return errors.New("atomicfile: Commit on a batch that was committed or aborted")
	}
	if Interrupted() { // nothing of the batch is written: not its direct writes nor what it prints
		b.Abort()
		return errInterrupted
	}
	for _, s := range b.staged {
		if s.tmp == "" {
			if err := writeDirect(s.path, s.write); err != nil {
				b.Abort()
				return err
			}
		}
	}
	for _, w := range b.then {
		if err := w(); err != nil {
			b.Abort()
			return err
		}
	}
	b.done = true
	defer b.removeTemps()
	commitMu.Lock()
	defer commitMu.Unlock()
	if interrupted {
		return errInterrupted
	}
	for _, s := range b.staged {
		if s.tmp == "" {
			continue
		}
		if err := os.Rename(s.tmp, s.path); err != nil {
			return fmt.Errorf("writing %s: %w", s.path, err)
		}
		pending.Delete(s.tmp)
		if d, err := os.Open(filepath.Dir(s.path)); err == nil { // make the rename durable; best effort
			d.Sync()
			d.Close()
		}
	}
	return nil
}

// Abort removes the temporary files of the batch, leaving every path as it was. It does nothing on a batch that was
// committed or aborted, so that it can be deferred.
func (b *Batch) Abort() {
	if b == nil || b.done {
		return
	}
	b.done = true
	b.removeTemps()
}

// removeTemps removes the temporary files that are still pending (not renamed).
func (b *Batch) removeTemps() {
	for _, s := range b.staged {
		if s.tmp == "" {
			continue
		}
		if _, ok := pending.LoadAndDelete(s.tmp); ok {
			os.Remove(s.tmp)
		}
	}
}

// stage writes the content of write to a new temporary file in path's directory, synced and closed, and returns
// its name, registered in pending until it is renamed or removed. The file has the permissions mode — those of the
// file it replaces — or for a new file (mode 0) those os.Create gives, 0666 less the umask.
func stage(path string, mode fs.FileMode, write func(io.Writer) error) (string, error) {
	dir := filepath.Dir(path)
	perm := mode // the replaced file's: its content is never readable by more than could read it
	if perm == 0 {
		perm = 0o666 // a new file's, less the umask
	}
	commitMu.Lock()
	if interrupted {
		commitMu.Unlock()
		return "", fmt.Errorf("writing %s: %w", path, errInterrupted)
	}
	f, err := createTemp(dir, "."+filepath.Base(path)+".tmp", perm)
	if err == nil {
		pending.Store(f.Name(), struct{}{}) // before Interrupt can look: no temporary file it does not know of
	}
	commitMu.Unlock()
	if err != nil {
		// The error names the temporary file, which the caller never asked for: name path, and why.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", fmt.Errorf("writing %s: cannot create a file in %s: %w", path, dir, err)
	}
	tmp := f.Name()
	fail := func(err error) (string, error) {
		f.Close()
		pending.Delete(tmp)
		os.Remove(tmp)
		return "", err
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
	if mode != 0 {
		if err := f.Chmod(mode); err != nil {
			return fail(fmt.Errorf("writing %s: %w", path, err))
		}
	}
	if err := f.Close(); err != nil {
		return fail(fmt.Errorf("writing %s: %w", path, err))
	}
	return tmp, nil
}

// createTemp creates a new file in dir named prefix and a random number, with permissions perm less the umask, as
// os.OpenFile would (os.CreateTemp gives 0600, and a chmod afterwards would ignore the umask).
func createTemp(dir, prefix string, perm fs.FileMode) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, err
	}
}

// pending holds the temporary files being written (their paths), for Interrupt.
var pending sync.Map

var (
	// commitMu orders Interrupt against the creation of temporary files and the renames of a batch: a batch's
	// renames run whole before or after it.
	commitMu sync.Mutex
	// interrupted is set by Interrupt: every later write fails.
	interrupted bool
)

// Interrupt removes the temporary files of the writes in progress and returns how many it removed; every write
// after it fails without creating a file. A program calls it when a signal ends it, so that an interrupted command
// leaves each file it was replacing as it was and nothing beside it: a batch whose renames are under way is let
// finish them first (its files are then all replaced), any other is left with none replaced. The writes in
// progress fail (their files are gone); the caller is about to exit.
func Interrupt() int {
	commitMu.Lock()
	defer commitMu.Unlock()
	interrupted = true
	n := 0
	pending.Range(func(k, _ any) bool {
		if os.Remove(k.(string)) == nil {
			n++
		}
		pending.Delete(k)
		return true
	})
	return n
}

// Interrupted reports whether Interrupt was called: a failed command should then leave the exit to the signal's
// handler.
func Interrupted() bool {
	commitMu.Lock()
	defer commitMu.Unlock()
	return interrupted
}

// errInterrupted is the error of a write after Interrupt.
var errInterrupted = errors.New("interrupted")

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
