package dataset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// IDX element types (the third byte of the magic number).
const (
	idxUint8   = 0x08
	idxInt8    = 0x09
	idxInt16   = 0x0B
	idxInt32   = 0x0C
	idxFloat32 = 0x0D
	idxFloat64 = 0x0E
)

// idxSize returns the size in bytes of an IDX element type, 0 if unknown.
func idxSize(t byte) int {
	switch t {
	case idxUint8, idxInt8:
		return 1
	case idxInt16:
		return 2
	case idxInt32, idxFloat32:
		return 4
	case idxFloat64:
		return 8
	}
	return 0
}

// ReadIDX reads a file in LeCun's IDX format (as used by MNIST) from r and
// returns its values in row-major order and its dimensions. name is used in
// error messages.
//
// The file is the magic number 00 00 TT NN (TT the element type: 08 unsigned
// byte, 09 signed byte, 0B int16, 0C int32, 0D float32, 0E float64; NN the
// number of dimensions), NN big-endian uint32 sizes, then the elements,
// big-endian. Bytes after the last element are ignored. NaN and Inf values are
// an error.
//
// ReadIDX reads within the default memory budget, DefaultMaxBytes;
// Options.ReadIDX takes the budget from its Options.
func ReadIDX(r io.Reader, name string) (x []float64, dims []int, err error) {
	return Options{}.ReadIDX(r, name)
}

// ReadIDX is the function ReadIDX within the memory budget o.MaxBytes: it
// refuses with a *BudgetError, before reading the elements, an array whose
// dimensions need more than the budget (8 bytes per element), and an input
// with more bytes than the budget. When r tells its size (a bytes.Reader,
// strings.Reader or regular *os.File), an array larger than what follows the
// header is refused as truncated before that. Only o.MaxBytes is used. A nil
// r is an error.
func (o Options) ReadIDX(r io.Reader, name string) (x []float64, dims []int, err error) {
	if r == nil {
		return nil, nil, errNilReader
	}
	b := newBudget(name, o.MaxBytes)
	size := inputSize(r)
	if r, err = limitInput(b, r, size, false); err != nil {
		return nil, nil, err
	}
	return readIDX(r, name, size, size, b, false)
}

// readIDX is ReadIDX with the size of the input in bytes when it is known
// exactly (an uncompressed file; -1 if not), against which the array the
// header claims is checked, an estimate of that size (-1 if unknown), used
// only to preallocate, and the budget b, which r already enforces on the
// input. With names, b is charged for the names of the columns too (those of
// LoadIDX's X).
func readIDX(r io.Reader, name string, fileSize, sizeHint int64, b *budget, names bool) (x []float64, dims []int, err error) {
	var magic [4]byte
	if n, err := io.ReadFull(r, magic[:]); err != nil {
		if n == 0 && errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("%s: empty file", name)
		}
		return nil, nil, idxReadErr(name, "header", err)
	}
	size := idxSize(magic[2])
	if magic[0] != 0 || magic[1] != 0 || size == 0 || magic[3] == 0 {
		return nil, nil, fmt.Errorf("%s: bad IDX magic number % x (want 00 00, a type 08/09/0b/0c/0d/0e, then the number of dimensions)", name, magic)
	}
	nd := int(magic[3])
	hdr := make([]byte, 4*nd)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, nil, idxReadErr(name, "dimensions", err)
	}
	dims = make([]int, nd)
	need := int64(8) // bytes of the array, saturated
	for k := range dims {
		dims[k] = int(binary.BigEndian.Uint32(hdr[4*k:]))
		need = satMul(need, int64(dims[k]))
	}
	if need == math.MaxInt64 {
		return nil, nil, fmt.Errorf("%s: IDX dimensions %v are too large", name, dimsUpTo(hdr, nd))
	}
	total := int(need / 8)
	// A plain file shorter than the array its header claims is truncated or
	// corrupt: say so before the budget, which raising would not help.
	if payload, rest := int64(total)*int64(size), fileSize-int64(4+4*nd); fileSize >= 0 && rest < payload {
		return nil, nil, fmt.Errorf("%s: truncated or corrupt IDX file: its header claims an array %s of %d-byte elements (%s), but only %d bytes follow the header",
			name, dimsUpTo(hdr, nd), size, formatBytes(payload), max(0, rest))
	}
	if names && dims[0] > 0 {
		need = satAdd(need, nameCost*int64(total/dims[0]))
	}
	if err := b.charge(need, 0, "the IDX array "+dimsUpTo(hdr, nd)+" (as its header claims)"); err != nil {
		return nil, nil, err
	}

	// Read the payload in chunks, growing x as data actually arrives, so that
	// a corrupt header cannot make us allocate far more than the file holds.
	// While x grows its old copy coexists with the new one: that takes up to
	// the array's size again beside the array charged above, so when the
	// budget has no room for it, x is allocated whole at once instead.
	const chunk = 1 << 16 // elements per read
	prealloc := min(total, 1<<23)
	if sizeHint >= 0 {
		prealloc = int(min(int64(total), max(0, sizeHint-int64(4+4*nd))/int64(size)))
	}
	if prealloc < total && b.room() < 8*int64(total) {
		prealloc = total
	}
	x = make([]float64, 0, prealloc)
	buf := make([]byte, min(total, chunk)*size)
	for len(x) < total {
		k := min(total-len(x), chunk)
		n, err := io.ReadFull(r, buf[:k*size])
		k = n / size
		if len(x)+k > cap(x) {
			old := 8 * int64(cap(x))
			b.fits(old) // true: the room holds the largest old copy (see prealloc)
			x = growCap(x, min(total, max(2*cap(x), len(x)+k)))
			b.spent += old
		}
		dst := x[len(x) : len(x)+k]
		if bad := decodeIDX(dst, buf[:k*size], magic[2]); bad >= 0 {
			return nil, nil, fmt.Errorf("%s: element %d: NaN/Inf not allowed", name, len(x)+bad)
		}
		x = x[:len(x)+k]
		if err != nil {
			if be := budgetError(err); be != nil {
				return nil, nil, be
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, nil, fmt.Errorf("%s: truncated IDX file: %s needs %d elements, got %d", name, dimsText(dims), total, len(x))
			}
			return nil, nil, fmt.Errorf("%s: read error after %d of %d elements: %w", name, len(x), total, err)
		}
	}
	// An IDX file is one array: bytes after it mean a damaged header or files joined together, and reading the
	// array the header claims would silently drop them.
	var one [1]byte
	if n, _ := io.ReadFull(r, one[:]); n > 0 {
		return nil, nil, fmt.Errorf("%s: more bytes follow the IDX array %s than its header claims: a damaged file, or several joined together?", name, dimsText(dims))
	}
	return x, dims, nil
}

// growCap returns x with capacity c (≥ len(x)).
func growCap(x []float64, c int) []float64 {
	y := make([]float64, len(x), c)
	copy(y, x)
	return y
}

// dimsUpTo formats the nd dimensions in hdr for an error message (dimsText).
func dimsUpTo(hdr []byte, nd int) string {
	dims := make([]int, nd)
	for k := range dims {
		dims[k] = int(binary.BigEndian.Uint32(hdr[4*k:]))
	}
	return dimsText(dims)
}

// dimsText formats dimensions for an error message: at most eight, then how many there are in all (a header may
// claim 255).
func dimsText(dims []int) string {
	const show = 8
	s := "["
	for k, v := range dims[:min(len(dims), show)] {
		if k > 0 {
			s += " "
		}
		s += strconv.Itoa(v)
	}
	if len(dims) > show {
		s += fmt.Sprintf(" … %d dimensions in all", len(dims))
	}
	return s + "]"
}

func idxReadErr(name, what string, err error) error {
	if be := budgetError(err); be != nil {
		return be
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: truncated IDX file (in the %s)", name, what)
	}
	return fmt.Errorf("%s: read error in the IDX %s: %w", name, what, err)
}

// decodeIDX converts big-endian elements of type t from b into dst. It returns
// the index of the first NaN or Inf, or -1.
func decodeIDX(dst []float64, b []byte, t byte) int {
	switch t {
	case idxUint8:
		for i, v := range b[:len(dst)] {
			dst[i] = float64(v)
		}
	case idxInt8:
		for i, v := range b[:len(dst)] {
			dst[i] = float64(int8(v))
		}
	case idxInt16:
		for i := range dst {
			dst[i] = float64(int16(binary.BigEndian.Uint16(b[2*i:])))
		}
	case idxInt32:
		for i := range dst {
			dst[i] = float64(int32(binary.BigEndian.Uint32(b[4*i:])))
		}
	case idxFloat32:
		for i := range dst {
			v := float64(math.Float32frombits(binary.BigEndian.Uint32(b[4*i:])))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return i
			}
			dst[i] = v
		}
	case idxFloat64:
		for i := range dst {
			v := math.Float64frombits(binary.BigEndian.Uint64(b[8*i:]))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return i
			}
			dst[i] = v
		}
	}
	return -1
}

// LoadIDX loads an IDX images file (gzip-compressed or not) as X, with
// N = the first dimension and D = the product of the others (784 for MNIST),
// and, when labels is not "", an IDX labels file with N elements as Y.
// Names are "x1" … "xD" and TargetName is "label". It reads within the
// default memory budget, DefaultMaxBytes; Load with Format FormatIDX takes
// the budget from its Options.
func LoadIDX(images, labels string) (*Data, error) {
	return Options{Labels: labels}.loadIDX(images)
}

// loadIDX is LoadIDX with the labels file o.Labels, the budget o.MaxBytes
// (shared by both files) and o.Target "none" to drop the labels.
func (o Options) loadIDX(images string) (*Data, error) {
	drop, err := dropTarget(images, o.Target, FormatIDX)
	if err != nil {
		return nil, err
	}
	b := newBudget(images, o.MaxBytes)
	x, dims, err := readIDXFile(images, b, true)
	if err != nil {
		return nil, err
	}
	n := dims[0]
	if n == 0 {
		return nil, fmt.Errorf("%s: no items (first IDX dimension is 0)", images)
	}
	d := len(x) / n
	if d == 0 {
		return nil, fmt.Errorf("%s: items have no values (IDX dimensions %s)", images, dimsText(dims))
	}
	data := &Data{X: x, N: n, D: d, Names: genNames(d)}
	if o.Labels == "" {
		return data, nil
	}
	labels := o.Labels
	b.name = labels
	y, ldims, err := readIDXFile(labels, b, false)
	if err != nil {
		return nil, err
	}
	if len(y) != ldims[0] {
		return nil, fmt.Errorf("%s: a labels file must hold one value per item, its IDX dimensions are %s", labels, dimsText(ldims))
	}
	if len(y) != n {
		return nil, fmt.Errorf("%s: has %d labels, but %s has %d items", labels, len(y), images, n)
	}
	if !drop {
		data.Y, data.TargetName = y, "label"
	}
	return data, nil
}

func readIDXFile(path string, b *budget, names bool) ([]float64, []int, error) {
	r, in, err := openLimited(path, b)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	return readIDX(r, path, in.size, in.hint, b, names)
}
