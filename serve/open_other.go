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

// isLoop reports whether err says a path has too many levels of symbolic links: the system's own error says so
// here.
func isLoop(error) bool { return false }
