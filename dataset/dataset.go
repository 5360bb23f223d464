package dataset

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/spool"
)

// Data is a dense numeric dataset: X is row-major N×D, Y holds targets (len N) or nil.
type Data struct {
	X    []float64 // row-major, N*D
	N, D int
	Y    []float64 // nil when there is no target
	// Names are the feature column names (len D); generated "x1", "x2", … when
	// the file has no header (and always for LibSVM and IDX files).
	Names []string
	// TargetName is the name of the target column: the header name for CSV
	// files with a header, "y" for CSV files without one, "label" for LibSVM
	// and IDX; "" when Y is nil.
	TargetName string
	// TargetColumn is the target's column in a CSV file without a header, counting from 1; 0 otherwise (a header
	// names the target, the file has none, or another format).
	TargetColumn int
	// Labels is set for classification-like string targets: Y[i] is then the
	// index into Labels (which is sorted). Labels is nil for numeric targets.
	Labels []string
}

// Row returns row i of X. It shares memory with X. A nil Data has no rows: Row returns nil for it. Like a slice
// index it panics for i outside [0, N).
func (d *Data) Row(i int) []float64 {
	if d == nil {
		return nil
	}
	return d.X[i*d.D : (i+1)*d.D : (i+1)*d.D]
}

// Dense returns X as an N×D gonum matrix that shares memory with X. It
// panics if N or D is 0, which no loader returns.
func (d *Data) Dense() *mat.Dense {
	return mat.NewDense(d.N, d.D, d.X[:d.N*d.D])
}

// Split returns the first n rows as head and the remaining rows as tail
// (e.g. the usual "first 8500 rows = train" protocol). n is clamped to [0, N].
// head and tail share X, Y, Names and Labels with d; nothing is copied.
// Y of a part is nil when d.Y is nil. Both parts of a nil Data are nil.
func (d *Data) Split(n int) (head, tail *Data) {
	if d == nil {
		return nil, nil
	}
	n = max(0, min(n, d.N))
	head, tail = d.rows(0, n), d.rows(n, d.N)
	return head, tail
}

// rows returns rows [i, j) sharing memory with d.
func (d *Data) rows(i, j int) *Data {
	p := &Data{
		X:            d.X[i*d.D : j*d.D : j*d.D],
		N:            j - i,
		D:            d.D,
		Names:        d.Names,
		TargetName:   d.TargetName,
		TargetColumn: d.TargetColumn,
		Labels:       d.Labels,
	}
	if d.Y != nil {
		p.Y = d.Y[i:j:j]
	}
	return p
}

// Subset returns a new Data holding copies of the rows idx (in that order),
// e.g. the indices returned by Subsample. It panics if an index is out of range.
// It returns nil for a nil Data.
func (d *Data) Subset(idx []int) *Data {
	if d == nil {
		return nil
	}
	p := &Data{
		X:            make([]float64, len(idx)*d.D),
		N:            len(idx),
		D:            d.D,
		Names:        d.Names,
		TargetName:   d.TargetName,
		TargetColumn: d.TargetColumn,
		Labels:       d.Labels,
	}
	if d.Y != nil {
		p.Y = make([]float64, len(idx))
	}
	for r, i := range idx {
		copy(p.X[r*d.D:(r+1)*d.D], d.Row(i))
		if d.Y != nil {
			p.Y[r] = d.Y[i]
		}
	}
	return p
}

// Subsample returns k distinct indices in [0, n), drawn uniformly without
// replacement from rng: every k-subset is equally likely, and the indices come
// in a uniformly random order (sort them if row order matters). k is clamped
// to [0, n]. Memory is O(n) when k is a sizeable fraction of n and O(k)
// otherwise. The result depends only on the state of rng, which must not be nil.
func Subsample(rng *rand.Rand, n, k int) []int {
	n = max(n, 0)
	k = max(0, min(k, n))
	out := make([]int, k)
	if k == 0 {
		return out
	}
	// Partial Fisher–Yates shuffle of the virtual array 0..n-1: step i swaps
	// position i with a uniform position in [i, n) and emits the new value at i.
	if n <= 1<<16 || k >= n/8 {
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		for i := range k {
			j := i + rng.IntN(n-i)
			perm[i], perm[j] = perm[j], perm[i]
			out[i] = perm[i]
		}
		return out
	}
	moved := make(map[int]int, 2*k) // position → value, for positions touched
	at := func(p int) int {
		if v, ok := moved[p]; ok {
			return v
		}
		return p
	}
	for i := range k {
		j := i + rng.IntN(n-i)
		vi, vj := at(i), at(j)
		moved[j] = vi
		out[i] = vj
		delete(moved, i) // position i is never looked at again
	}
	return out
}

// Format is the file format of a dataset.
type Format int

// The formats Load understands.
const (
	FormatAuto   Format = iota // guess from the file name, then from the content
	FormatCSV                  // delimited text: ',', ';', tab or blanks
	FormatLibSVM               // "label idx:val …", sparse, 1-based indices (svmlight)
	FormatIDX                  // LeCun IDX binary (MNIST)
)

// String returns the name of the format as ParseFormat accepts it.
func (f Format) String() string {
	switch f {
	case FormatAuto:
		return "auto"
	case FormatCSV:
		return "csv"
	case FormatLibSVM:
		return "libsvm"
	case FormatIDX:
		return "idx"
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// ParseFormat parses a format name: "csv" (also "tsv"), "libsvm" (also
// "svmlight", "svm"), "idx", and "" or "auto" for FormatAuto. Case is ignored.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return FormatAuto, nil
	case "csv", "tsv":
		return FormatCSV, nil
	case "libsvm", "svmlight", "svm":
		return FormatLibSVM, nil
	case "idx":
		return FormatIDX, nil
	}
	return FormatAuto, fmt.Errorf("unknown data format %q (want csv, libsvm, svmlight, idx or auto)", s)
}

// GuessFormat guesses the format of a file from its name, after stripping a
// ".gz" suffix: .csv, .tsv, .txt, .data → CSV; .libsvm, .svm, .svmlight → LibSVM;
// .idx or a name containing "idx" and ending in "-ubyte" (MNIST's
// train-images-idx3-ubyte) → IDX. It returns FormatAuto when the name says
// nothing; Load then looks at the content.
func GuessFormat(path string) Format {
	base := strings.ToLower(filepath.Base(path))
	base = strings.TrimSuffix(base, ".gz")
	switch filepath.Ext(base) {
	case ".csv", ".tsv", ".txt", ".data":
		return FormatCSV
	case ".libsvm", ".svm", ".svmlight":
		return FormatLibSVM
	case ".idx":
		return FormatIDX
	}
	if strings.Contains(base, "idx") && strings.HasSuffix(base, "-ubyte") {
		return FormatIDX
	}
	return FormatAuto
}

// Options control Load and the readers that are methods of Options.
type Options struct {
	// Format of the file; FormatAuto guesses it (see GuessFormat).
	Format Format
	// Target selects the CSV target column: "first", "last", "none", a column
	// name from the header, or a 1-based column index. "" means "last".
	// For LibSVM and IDX files only "" and "none" (drop the labels) are valid.
	Target string
	// Labels is the path of an IDX labels file (optional, IDX only).
	Labels string
	// Columns, when not nil, names the input columns to read from a CSV
	// file with a header (Load and ReadCSV; the names as the header spells
	// them): the other columns but the target are skipped without being
	// parsed, so that they may hold anything — an identifier, a date, text.
	// The inputs keep the file's column order; a name the header lacks is
	// not an error (the caller checks what it needs), but a file holding none
	// of them is. A file without a header, and the other formats, are read
	// whole.
	Columns []string
	// Width, when positive, is the least number of feature columns of a
	// LibSVM file: one whose largest feature index is smaller has its rows
	// padded with zero columns up to Width — a test file for a model fitted
	// on wider data, whose last features happen to be zero in every row,
	// holds none of their indices. Other formats ignore it.
	Width int
	// MaxBytes is the memory budget of a load, in bytes: the most that the
	// arrays a loader builds may take (N×D×8 bytes for X, 8 bytes per target,
	// and what a format needs on the way), and the most decompressed input a
	// whole-file loader reads. A file that needs more is refused with a
	// *BudgetError as soon as that is known, before the memory is allocated
	// (see the package documentation, "Memory"). CSVStream applies it to each
	// block and does not bound the input. 0 means DefaultMaxBytes(); a
	// negative value means no limit but the machine's memory and swap, which
	// also caps a larger budget (CapBudget).
	MaxBytes int64
}

// Open opens a file for reading, decompressing it transparently when it is
// gzip-compressed (detected by the magic bytes 1f 8b, not by the name). The
// memory budget does not apply to it: the caller reads what it wants.
func Open(path string) (io.ReadCloser, error) {
	in, err := openFile(path)
	if err != nil {
		return nil, err
	}
	return in.rc, nil
}

// maxGzipRatio bounds the ratio of uncompressed to compressed size of a
// DEFLATE stream (the format cannot do better than about 1032:1).
const maxGzipRatio = 1032

// input is an open file, decompressed when it is gzip-compressed.
type input struct {
	rc   io.ReadCloser
	gzip bool
	// size is the size of a plain regular file (or of a plain file read from
	// memory), -1 otherwise.
	size int64
	// isize is, for a gzip file, the size of its last member's content as its
	// trailer states it (ISIZE, modulo 2³²): a lower bound of the size of the
	// content of a valid file. -1 when unknown.
	isize int64
	// hint estimates the size of the content, -1 when unknown: the file size,
	// or ISIZE bounded by what DEFLATE can expand to. Readers use it only to
	// preallocate; they never trust it for correctness.
	hint int64
	// held is the size of a file read from memory (an input package spool
	// kept, such as a pipe), whose bytes stay in memory while it is read; 0
	// for a file read from disk.
	held int64
}

// openFile opens a file, decompressing it when it starts with the gzip magic
// bytes.
func openFile(path string) (*input, error) {
	var f fileReader
	size, held := int64(-1), int64(0)
	if c, ok := spool.Get(path); ok { // an input read into memory once, such as a pipe
		f, size, held = memFile{c.Reader()}, c.Size(), c.Size()
	} else {
		osf, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		if fi, err := osf.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		f = osf
	}
	br := bufio.NewReaderSize(f, 1<<16)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := NewGzipReader(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: gzip: %w", path, err)
		}
		in := &input{gzip: true, size: -1, isize: -1, hint: -1, held: held}
		var trailer [4]byte
		if size >= 18 {
			// A trailer that states more than DEFLATE can expand the file to is not one (bytes appended to the file,
			// or damage): it is ignored, and the read reports what follows the last member.
			if _, err := f.ReadAt(trailer[:], size-4); err == nil {
				if isize := int64(binary.LittleEndian.Uint32(trailer[:])); isize <= maxGzipRatio*size {
					in.isize, in.hint = isize, isize
				}
			}
		}
		in.rc = &readCloser{Reader: zr, close: func() error {
			err := zr.Close()
			if err2 := f.Close(); err == nil {
				err = err2
			}
			return err
		}}
		return in, nil
	}
	return &input{rc: &readCloser{Reader: br, close: f.Close}, size: size, isize: -1, hint: size, held: held}, nil
}

// NewGzipReader returns a reader of the gzip file br holds, member after member (see members), as the readers of
// this package read gzip files; closing it closes the decompressor only.
func NewGzipReader(br *bufio.Reader) (io.ReadCloser, error) {
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, err
	}
	zr.Multistream(false)
	return &members{zr: zr, br: br}, nil
}

// Close closes the decompressor.
func (m *members) Close() error { return m.zr.Close() }

// members reads the gzip members of br one after the other (concatenated gzip files are one stream, as gzip -d reads
// them), ignores zero bytes after the last one (padding, which gzip -d ignores too) and reports other bytes after it
// as such: an appended or damaged file would otherwise read as "unexpected EOF" or "invalid header", like a
// truncated one.
type members struct {
	zr  *gzip.Reader
	br  *bufio.Reader
	err error // the error that ended the stream, returned by every later Read
}

func (m *members) Read(p []byte) (int, error) {
	if m.err != nil {
		return 0, m.err
	}
	n, err := m.read(p)
	if err != nil {
		m.err = err
	}
	return n, err
}

func (m *members) read(p []byte) (int, error) {
	for {
		n, err := m.zr.Read(p)
		if err != io.EOF {
			return n, err
		}
		// The end of a member: the end of the file, another member, or something else.
		if _, perr := m.br.Peek(1); perr == io.EOF {
			return n, io.EOF
		}
		magic, _ := m.br.Peek(2)
		if len(magic) == 1 && magic[0] == 0x1f {
			return n, io.ErrUnexpectedEOF // a member cut after its first byte
		}
		if len(magic) < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
			for {
				c, err := m.br.ReadByte()
				if err == io.EOF {
					return n, io.EOF // zero padding only
				}
				if err != nil {
					return n, err
				}
				if c != 0 {
					return n, errors.New("data after the end of the gzip stream (the file was appended to, or is damaged); recompress it")
				}
			}
		}
		if err := m.zr.Reset(m.br); err != nil {
			return n, err
		}
		m.zr.Multistream(false)
		if n > 0 {
			return n, nil
		}
	}
}

// fileReader is what openFile reads: an *os.File, or a memFile over an input package spool kept.
type fileReader interface {
	io.Reader
	io.ReaderAt
	io.Closer
}

// memFile is a fileReader over bytes in memory.
type memFile struct{ *io.SectionReader }

// Close does nothing: the bytes stay with package spool.
func (memFile) Close() error { return nil }

// openLimited opens a file for a whole-file loader with budget b: it refuses
// a file whose content is known to exceed the budget (a plain file's size, a
// gzip trailer's ISIZE) before reading it, and returns a reader that fails
// once more than the budget has been read, with what is known of the file's
// sizes (in's size, isize and hint). A file read from memory (in.held, such
// as a pipe) is charged to b for the bytes it holds there while it is read.
func openLimited(path string, b *budget) (io.ReadCloser, *input, error) {
	in, err := openFile(path)
	if err != nil {
		return nil, nil, err
	}
	if in.gzip && in.isize > b.limit {
		in.rc.Close()
		return nil, nil, b.errorAt(0, "the decompressed input (as its gzip trailer states)", in.isize)
	}
	r, err := limitInput(b, in.rc, in.size, in.gzip)
	if err == nil {
		if err = b.charge(in.held, 0, "the input"); err == nil {
			b.held += in.held
		}
	}
	if err != nil {
		in.rc.Close()
		return nil, nil, err
	}
	return &readCloser{Reader: r, close: in.rc.Close}, in, nil
}

type readCloser struct {
	io.Reader
	close func() error
}

// Close calls the close function.
func (r *readCloser) Close() error { return r.close() }

// Load reads a dataset file in any supported format, gzip-compressed or not,
// within the memory budget opt.MaxBytes. Errors name the file (as given in
// path) and, where it applies, the line and column. See the package
// documentation for the formats.
func Load(path string, opt Options) (*Data, error) {
	format := opt.Format
	if format == FormatAuto {
		var err error
		if format, err = DetectFormat(path); err != nil {
			return nil, err
		}
	}
	if format != FormatIDX && opt.Labels != "" {
		return nil, fmt.Errorf("%s: a separate labels file applies only to IDX data (format is %v)", path, format)
	}
	if format != FormatCSV {
		if _, err := dropTarget(path, opt.Target, format); err != nil {
			return nil, err
		}
	}
	switch format {
	case FormatIDX:
		return opt.loadIDX(path)
	case FormatCSV, FormatLibSVM:
		b := newBudget(path, opt.MaxBytes)
		r, _, err := openLimited(path, b)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		if format == FormatCSV {
			return readCSV(r, path, opt.Target, opt.Columns, b)
		}
		return readLibSVM(r, path, opt.Target, opt.Width, b)
	}
	return nil, fmt.Errorf("%s: unknown format %v", path, format)
}

// dropTarget reports whether Options.Target asks to drop the labels of a
// LibSVM or IDX file ("none"); "" keeps them and anything else is an error.
func dropTarget(name, target string, format Format) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(target)) {
	case "":
		return false, nil
	case "none":
		return true, nil
	}
	return false, fmt.Errorf("%s: target %q applies only to CSV files (format is %v; use \"\" or \"none\")", name, target, format)
}

// DetectFormat returns the format Load reads path in when Options.Format is FormatAuto: GuessFormat's from the name,
// or, when the name says nothing, from the content (an IDX magic number, a first line "label idx:val …" of LibSVM,
// else CSV). It returns an error when the file cannot be read.
func DetectFormat(path string) (Format, error) {
	if f := GuessFormat(path); f != FormatAuto {
		return f, nil
	}
	return sniffFile(path)
}

// sniffFile guesses the format of a file from its content.
func sniffFile(path string) (Format, error) {
	r, err := Open(path)
	if err != nil {
		return FormatAuto, err
	}
	defer r.Close()
	format, err := sniff(bufio.NewReaderSize(r, 4096))
	if err != nil {
		return FormatAuto, fmt.Errorf("%s: %w", path, err)
	}
	return format, nil
}

// sniff guesses the format from the first bytes of the (decompressed) content:
// an IDX magic number, a first data line of the form "label idx:val …", or
// else CSV.
func sniff(br *bufio.Reader) (Format, error) {
	head, err := br.Peek(4096)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return FormatAuto, fmt.Errorf("read error: %w", err)
	}
	if len(head) >= 4 && head[0] == 0 && head[1] == 0 && idxSize(head[2]) > 0 && head[3] > 0 {
		return FormatIDX, nil
	}
	// First line that is not blank or a comment.
	for len(head) > 0 {
		line := head
		if i := indexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		line = trimSpace(stripBOM(line))
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		f := fieldsBlank(line, nil)
		if len(f) >= 2 && indexByte(f[1], ':') > 0 && indexByte(f[0], ':') < 0 {
			return FormatLibSVM, nil
		}
		break
	}
	return FormatCSV, nil
}

// maxDense bounds N×D of a generated dataset (see Generate). Tests lower it.
var maxDense = 1 << 30

// nameCost is what the budget charges for a generated column name: its
// string header and its bytes.
const nameCost = 32

// genNames returns "x1" … "xd".
func genNames(d int) []string {
	names := make([]string, d)
	for j := range names {
		names[j] = "x" + strconv.Itoa(j+1)
	}
	return names
}
