package rffbeam

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/rffkit/rff/dataset"
)

// maxLine is the longest line the reader accepts.
const maxLine = 16 << 20

// ListFiles expands glob with Beam's file systems (local paths, gs://… when package
// github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs is imported, …) and returns the files in
// lexicographic order. No match is an error, and so is a local match that is not a regular file (CheckRegular).
func ListFiles(ctx context.Context, glob string) ([]string, error) {
	if glob == "" {
		return nil, errors.New("no input: give a file or a glob")
	}
	fs, err := filesystem.New(ctx, glob)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	files, err := fs.List(ctx, glob)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", glob, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no files match %s", glob)
	}
	slices.Sort(files)
	files = slices.Compact(files)
	if !strings.Contains(glob, "://") {
		for _, f := range files {
			if err := CheckRegular(f); err != nil {
				return nil, err
			}
		}
	}
	return files, nil
}

// CheckRegular refuses a local path that is not a regular file (links followed): a directory, a named pipe, a
// device or a socket. Every pass reads every file again, and a file is read whole by one worker, so a pipe or a
// device — read once, with no end or a different content each time — cannot be input (a named pipe would block
// the fit forever).
func CheckRegular(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	switch kind := fileKind(fi.Mode()); {
	case fi.IsDir():
		return fmt.Errorf("%s is a directory, not a data file; give the files in it (a glob such as %s)", path, filepath.Join(path, "*.csv"))
	case kind != "":
		return fmt.Errorf("%s is %s, not a regular file: the passes read every file two or three times, which a pipe or a device cannot give; copy the data to a file", path, kind)
	}
	return nil
}

// fileKind names the kind of a file that is not regular ("" for a regular file).
func fileKind(m os.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// openData opens a file with Beam's file systems, decompressed when it starts with the gzip magic bytes 1f 8b
// (whatever its name; concatenated gzip members are read in turn), as rff's own readers do.
func openData(ctx context.Context, path string) (io.ReadCloser, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	raw, err := fs.OpenRead(ctx, path)
	if err != nil {
		fs.Close()
		return nil, err
	}
	br := bufio.NewReaderSize(raw, 1<<20)
	rc := &dataFile{r: br, closers: []io.Closer{raw, fs}}
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := dataset.NewGzipReader(br) // members in turn, zero padding ignored, other trailing bytes an error
		if err != nil {
			rc.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		rc.r = zr
		rc.closers = append([]io.Closer{zr}, rc.closers...)
	}
	return rc, nil
}

type dataFile struct {
	r       io.Reader
	closers []io.Closer
}

func (f *dataFile) Read(p []byte) (int, error) { return f.r.Read(p) }

func (f *dataFile) Close() error {
	var first error
	for _, c := range f.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// lineReader returns the non-blank lines of a text file with their 1-based numbers, as rff's CSV readers see them:
// the line end and a trailing '\r' removed, a UTF-8 byte order mark stripped from line 1, and a line with a
// carriage return inside (and no quote) refused: the file's lines end in a bare CR.
type lineReader struct {
	sc        *bufio.Scanner
	name      string
	line      int
	firstLine int // the number of the first non-blank line
}

func newLineReader(r io.Reader, name string) *lineReader {
	er := &errReader{r: r}
	sc := bufio.NewScanner(er)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	// After a read error the scanner hands back what it holds of the last line as a line: a truncated file's cut
	// line would be parsed as a row (and reported as one with too few fields) before the error.
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if atEOF && er.err != nil && bytes.IndexByte(data, '\n') < 0 {
			return 0, nil, er.err
		}
		return bufio.ScanLines(data, atEOF)
	})
	return &lineReader{sc: sc, name: name}
}

// errReader is r, keeping the first error other than io.EOF that a read returned.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// next returns the next non-blank line (valid until the next call) and its number, or nil at the end.
func (lr *lineReader) next() ([]byte, int, error) {
	for lr.sc.Scan() {
		lr.line++
		b := lr.sc.Bytes()
		if lr.line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		if len(bytes.TrimSpace(b)) > 0 {
			// As in rff's readers: the scanner drops the '\r' of a CRLF line end, so one left inside a line without
			// quotes ends a line of a file whose lines end in a bare CR, which would read as one long line. A quoted
			// CSV field may hold one; the CSV parser judges it.
			if i := bytes.IndexByte(b, '\r'); i >= 0 && bytes.IndexByte(b, '"') < 0 {
				return nil, 0, fmt.Errorf("%s:%d: a carriage return (\\r) inside the line, after %d bytes: the lines seem to end in a bare CR "+
					"(classic Mac OS); convert the line ends to LF (e.g. tr '\\r' '\\n')", lr.name, lr.line, i)
			}
			if lr.firstLine == 0 {
				lr.firstLine = lr.line
			}
			return b, lr.line, nil
		}
	}
	if err := lr.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, 0, fmt.Errorf("%s:%d: line longer than %d MiB", lr.name, lr.line+1, maxLine>>20)
		}
		return nil, 0, fmt.Errorf("%s:%d: read error: %w", lr.name, lr.line+1, err)
	}
	return nil, 0, nil
}

// DetectLayout reads the first two non-blank lines of the first file of files that has any and returns the CSV
// layout they give (dataset.DetectCSVLayout: delimiter, header, target column), which every file is read with,
// and the name of that file.
func DetectLayout(ctx context.Context, files []string, target string) (*dataset.CSVLayout, string, error) {
	for _, f := range files {
		lines, err := firstLines(ctx, f, 2)
		if err != nil {
			return nil, "", err
		}
		if len(lines) == 0 {
			continue
		}
		var second []byte
		if len(lines) > 1 {
			second = lines[1]
		}
		l, err := dataset.DetectCSVLayout(f, lines[0], second, target)
		return l, f, err
	}
	return nil, "", fmt.Errorf("%s: every file is empty", describeFiles(files))
}

// firstLines returns up to k non-blank lines from the start of a file.
func firstLines(ctx context.Context, path string, k int) ([][]byte, error) {
	rc, err := openData(ctx, path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	lr := newLineReader(rc, path)
	var out [][]byte
	for len(out) < k {
		b, _, err := lr.next()
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		out = append(out, bytes.Clone(b))
	}
	return out, nil
}

// describeFiles names a list of files in a message: the file, or the first one and how many others.
func describeFiles(files []string) string {
	switch len(files) {
	case 0:
		return "no files"
	case 1:
		return files[0]
	}
	return files[0] + " and " + strconv.Itoa(len(files)-1) + " other files"
}
