package dataset

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"unsafe"

	"github.com/rffkit/rff/internal/size"
)

// The memory budget (Options.MaxBytes) is described in the package documentation, "Memory".

// BudgetError is the error of a loader that refuses a file because reading it would exceed the memory budget,
// Options.MaxBytes. Its message names the file (and the line, when there is one), the bytes, and the setting that
// raises the budget; a command-line tool names its own flag with Message.
type BudgetError struct {
	// Name is the file as the loader was given it, followed by ":line" when the error arises at a line.
	Name string
	// What is what needs the memory: "the decompressed input", "the parsed data", "densifying 2 rows × 9 features",
	// "the IDX array [60000 28 28]", or, with Bytes 0, "line longer than 16384 bytes: …".
	What string
	// Bytes is the number of bytes needed, with what the loader already holds: a lower bound, since the loader
	// stops as soon as the budget is exceeded. 0 when the error is a line longer than the budget allows.
	Bytes int64
	// Budget is the memory budget in bytes.
	Budget int64
}

// Error returns the message with the advice to set Options.MaxBytes (see Message); "<nil>" for a nil *BudgetError.
func (e *BudgetError) Error() string { return e.Message("set Options.MaxBytes to raise it") }

// Message returns the error's message with raise, in place of "set Options.MaxBytes to raise it", telling how to
// raise the budget; a command-line tool passes, say, "raise it with --max-memory". It returns "<nil>" for a nil
// *BudgetError.
func (e *BudgetError) Message(raise string) string {
	if e == nil {
		return "<nil>"
	}
	if e.Bytes == 0 {
		return fmt.Sprintf("%s: %s of %d bytes (%s); %s", e.Name, e.What, e.Budget, formatBytes(e.Budget), raise)
	}
	return fmt.Sprintf("%s: %s needs at least %d bytes (%s), over the memory budget of %d bytes (%s); %s",
		e.Name, e.What, e.Bytes, formatBytes(e.Bytes), e.Budget, formatBytes(e.Budget), raise)
}

// formatBytes formats n bytes in binary units, rounded down to one decimal ("512 B", "1.5 GiB").
func formatBytes(n int64) string { return size.Format(n) }

// Memory budget defaults (see DefaultMaxBytes).
const (
	minDefaultMaxBytes      = 256 << 20
	fallbackDefaultMaxBytes = 4 << 30
)

// DefaultMaxBytes is the memory budget a loader uses when Options.MaxBytes is 0: half of the memory available to
// the process, and at least 256 MiB. On Linux the memory available is MemAvailable in /proc/meminfo, lowered to
// what the process's cgroup (v1 or v2) still allows when that is less; elsewhere, or when these files cannot be
// read, the budget is 4 GiB. It is evaluated at every call, so it follows the state of the machine.
func DefaultMaxBytes() int64 {
	avail := availableMemory()
	if avail <= 0 {
		return fallbackDefaultMaxBytes
	}
	return max(avail/2, minDefaultMaxBytes)
}

// limitOf returns the budget in bytes that opt.MaxBytes stands for: DefaultMaxBytes for 0, CapBudget of any
// other value (the machine's memory for a negative one).
func limitOf(maxBytes int64) int64 {
	if maxBytes == 0 {
		return DefaultMaxBytes()
	}
	return CapBudget(maxBytes)
}

// lineShare is the share of the budget a text line may take: splitting the first lines of a CSV file into fields
// (the line, the field slices of 24 bytes for every two bytes at worst, a copy of the first row) takes up to about
// 40 bytes per byte of line.
const lineShare = 64

// lineLimit is the longest line a text reader accepts under a budget of limit bytes.
func lineLimit(limit int64) int {
	return int(min(int64(maxLine), limit/lineShare))
}

// budget accounts for the arrays a loader holds against its limit.
//
// It also counts the arrays the loader has given up (the old copy of an array that grew, an array dropped) until
// they are collected: they are garbage, but the runtime collects garbage only once its heap has grown well past
// what is live (to about twice that, by default), so a loader that grows its arrays to the budget would otherwise
// make the process hold up to about twice the budget. When an array does not fit beside the live arrays and that
// garbage, the budget has the runtime collect the garbage and return its memory to the operating system before the
// array is allocated (see budget.collect). The heap a load makes the process hold thus stays within about the
// budget, while whether an array fits depends on the live arrays alone.
type budget struct {
	name  string
	limit int64
	used  int64 // bytes of the live arrays, and of the input held in memory
	spent int64 // bytes of the arrays given up since the last collection
	held  int64 // bytes of the input held in memory (a pipe kept by package spool), counted in used
}

// newBudget returns the budget of one load of the file called name, for Options.MaxBytes = maxBytes.
func newBudget(name string, maxBytes int64) *budget {
	return &budget{name: name, limit: limitOf(maxBytes)}
}

// errorAt returns the BudgetError for what needing need bytes, at a 1-based line (0 for none). The input held in
// memory, which need counts, is named beside what.
func (b *budget) errorAt(line int, what string, need int64) error {
	name := b.name
	if line > 0 {
		name += ":" + strconv.Itoa(line)
	}
	if b.held > 0 && need > 0 {
		what += " (with " + formatBytes(b.held) + " of input held in memory)"
	}
	return &BudgetError{Name: name, What: what, Bytes: need, Budget: b.limit}
}

// charge accounts for n more bytes, or returns the error (and charges nothing) if they do not fit.
func (b *budget) charge(n int64, line int, what string) error {
	if !b.fits(n) {
		return b.errorAt(line, what, satAdd(b.used, n))
	}
	b.used += n
	return nil
}

// fits reports whether n more bytes fit beside the live arrays, collecting the arrays given up first if n bytes do
// not also fit beside them.
func (b *budget) fits(n int64) bool {
	if n > b.room() {
		return false
	}
	if n > b.room()-b.spent {
		b.collect()
	}
	return true
}

// release gives back n bytes of an array the loader no longer holds, which is garbage until it is collected.
func (b *budget) release(n int64) {
	n = min(n, b.used)
	b.used -= n
	b.spent += n
}

// room returns how many more bytes fit beside the live arrays.
func (b *budget) room() int64 { return b.limit - b.used }

// freeMemory has the runtime collect the garbage and return the memory it frees to the operating system (see
// budget.collect); tests replace it to count the collections.
var freeMemory = debug.FreeOSMemory

// collect has the runtime collect the arrays b's loader has given up and return their memory to the operating
// system, before an array that does not fit beside them is allocated. A loader collects only when its arrays come
// close to the budget, a few times per load at most (they double), so a collection costs little beside reading the
// data that filled the budget.
func (b *budget) collect() {
	freeMemory()
	b.spent = 0
}

// grow returns s with room for at least k more elements, charging b for the capacity it adds before allocating it
// (what and line name the data in the error). The new array is allocated while the old one (already charged) is
// still live, so both must fit at once; the old one is then given up. The capacity doubles as append's would, but
// never beyond what the budget allows; the error comes only when len(s)+k elements and the old array do not fit.
func grow[T any](b *budget, s []T, k int, line int, what string) ([]T, error) {
	if cap(s)-len(s) >= k {
		return s, nil
	}
	var zero T
	size := int64(unsafe.Sizeof(zero))
	need := int64(len(s)) + int64(k)
	most := b.room() / size // the largest new array that fits beside the old one
	if need > most {
		return nil, b.errorAt(line, what, satAdd(b.used, satMul(need, size)))
	}
	c := min(max(need, 2*int64(cap(s)), 64/size), most, math.MaxInt/size)
	b.fits(c * size)
	t := make([]T, len(s), c)
	copy(t, s)
	b.used += c * size
	b.release(int64(cap(s)) * size)
	return t, nil
}

// satAdd is a+b for non-negative a, b, saturated at math.MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// satMul is a*b for non-negative a, b, saturated at math.MaxInt64.
func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// limitReader returns the error of b's budget once more than limit bytes have been read through it.
type limitReader struct {
	r     io.Reader
	n     int64 // bytes read so far
	limit int64
	err   func(n int64) error
}

// Read reads from the underlying reader and fails with the budget's error once more than limit bytes have been
// read.
func (l *limitReader) Read(p []byte) (int, error) {
	if l.n > l.limit {
		return 0, l.err(l.n)
	}
	if room := l.limit - l.n + 1; int64(len(p)) > room {
		p = p[:room] // read one byte past the limit to know it is exceeded
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	if l.n > l.limit {
		return n, l.err(l.n)
	}
	return n, err
}

// errNilReader is the error of a reader method given a nil io.Reader.
var errNilReader = errors.New("dataset: nil reader")

// inputSize returns the number of bytes left in r when r tells it cheaply (a bytes, strings or regular-file
// reader), else -1.
func inputSize(r io.Reader) int64 {
	switch r := r.(type) {
	case interface{ Len() int }: // bytes.Reader, strings.Reader, bytes.Buffer
		return int64(r.Len())
	case *os.File:
		if fi, err := r.Stat(); err == nil && fi.Mode().IsRegular() {
			if off, err := r.Seek(0, io.SeekCurrent); err == nil {
				return max(0, fi.Size()-off)
			}
		}
	}
	return -1
}

// limitInput checks the known size of an input (-1 if unknown) against the budget of b and returns r wrapped so
// that reading more than the budget fails. gzipped says the input is decompressed content (for the message).
func limitInput(b *budget, r io.Reader, size int64, gzipped bool) (io.Reader, error) {
	what := "the input"
	if gzipped {
		what = "the decompressed input"
	}
	if size > b.limit {
		return nil, b.errorAt(0, what, size)
	}
	if b.limit == math.MaxInt64 {
		return r, nil
	}
	return &limitReader{r: r, limit: b.limit, err: func(n int64) error { return b.errorAt(0, what, n) }}, nil
}

// budgetError returns the *BudgetError in err's chain, or nil.
func budgetError(err error) *BudgetError {
	var be *BudgetError
	if errors.As(err, &be) {
		return be
	}
	return nil
}
