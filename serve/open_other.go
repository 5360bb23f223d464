//go:build !unix

package serve

import (
	"io/fs"
	"os"
)

// openRegular opens path for reading and returns its FileInfo, or fails without reading when it is not a regular
// file.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := statRegular(f)
	if err != nil {
		return nil, nil, err
	}
	return f, fi, nil
}

// fileID returns the device and inode of the file fi describes: 0, 0, as the system does not say them in a
// FileInfo here.
func fileID(fs.FileInfo) (dev, ino uint64) { return 0, 0 }

// isLoop reports whether err says a path has too many levels of symbolic links: the system's own error says so
// here.
func isLoop(error) bool { return false }
