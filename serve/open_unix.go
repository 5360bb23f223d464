//go:build unix

package serve

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openRegular opens path for reading and returns its FileInfo, or fails without waiting and without reading when
// it is not a regular file: it is opened non-blocking, so that a FIFO without a writer does not block the open,
// and the descriptor is put back in blocking mode once it is known to be a regular file's.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := statRegular(f)
	if err != nil {
		return nil, nil, err
	}
	rc, err := f.SyscallConn()
	if err == nil {
		cerr := rc.Control(func(fd uintptr) { err = syscall.SetNonblock(int(fd), false) })
		err = errors.Join(cerr, err)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// fileID returns the device and inode of the file fi describes (0, 0 when the system does not say).
func fileID(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}

// isLoop reports whether err says a path has too many levels of symbolic links.
func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
