package rffbeam

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The accumulators and rows travel between workers in a compact binary form: unsigned varints for counts and
// lengths, float64 values little-endian, strings as a length and their bytes. Every decoder checks each length
// against the bytes left before allocating, so a corrupt message is an error, never a panic or a huge allocation.

type writer struct{ b []byte }

func (w *writer) uint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *writer) int(v int)     { w.uint(uint64(v)) }
func (w *writer) float(v float64) {
	w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(v))
}

func (w *writer) floats(v []float64) {
	w.int(len(v))
	for _, x := range v {
		w.float(x)
	}
}

func (w *writer) str(s string) {
	w.int(len(s))
	w.b = append(w.b, s...)
}

func (w *writer) strs(v []string) {
	w.int(len(v))
	for _, s := range v {
		w.str(s)
	}
}

type reader struct {
	b   []byte
	err error
}

var errCorrupt = errors.New("corrupt message")

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", errCorrupt, what)
	}
}

func (r *reader) uint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// int reads a non-negative int no larger than max.
func (r *reader) int(max int) int {
	v := r.uint()
	if r.err == nil && v > uint64(max) {
		r.fail(fmt.Sprintf("count %d above %d", v, max))
		return 0
	}
	return int(v)
}

// count reads the length of a list whose elements take at least per bytes each: it must fit in the bytes left
// after the length itself, so that a corrupt length is an error before anything is allocated or sliced.
func (r *reader) count(per int) int {
	v := r.uint()
	if r.err == nil && v > uint64(len(r.b)/per) {
		r.fail(fmt.Sprintf("%d elements of at least %d bytes in %d bytes", v, per, len(r.b)))
		return 0
	}
	return int(v)
}

func (r *reader) float() float64 {
	if r.err != nil {
		return 0
	}
	if len(r.b) < 8 {
		r.fail("truncated")
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}

// floatsInto fills dst.
func (r *reader) floatsInto(dst []float64) {
	if r.err != nil {
		return
	}
	if len(r.b) < 8*len(dst) {
		r.fail("truncated")
		return
	}
	for i := range dst {
		dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(r.b[8*i:]))
	}
	r.b = r.b[8*len(dst):]
}

func (r *reader) floats() []float64 {
	n := r.count(8)
	if r.err != nil {
		return nil
	}
	v := make([]float64, n)
	r.floatsInto(v)
	return v
}

func (r *reader) str() string {
	n := r.count(1)
	if r.err != nil {
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *reader) strs() []string {
	n := r.count(1) // a string takes at least the byte of its length
	if r.err != nil {
		return nil
	}
	v := make([]string, 0, n)
	for range n {
		v = append(v, r.str())
	}
	return v
}

// done returns the first error, or an error if bytes are left over.
func (r *reader) done() error {
	if r.err == nil && len(r.b) != 0 {
		r.fail(fmt.Sprintf("%d bytes left over", len(r.b)))
	}
	return r.err
}
