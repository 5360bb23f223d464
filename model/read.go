package model

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"strings"
)

// Read decodes a model file from r, read to its end, and validates it: the same model and the same errors as
// [Decode] of the same bytes (an error from r itself is returned as it is). The values of the arrays are decoded
// from the stream straight into the model's slices as they arrive, and the checksum is computed on the way, so the
// file's bytes are never held whole: reading allocates the model's arrays (8 bytes a value: about the file's length),
// its header and a buffer of 64 KiB. Nothing is returned before the whole stream has been checked.
//
// size is the stream's length when the caller knows it (-1 otherwise), and limit the most bytes r can give (an
// io.LimitReader's limit; 0 or less: none). They guide the allocation only: an array is allocated at its length when
// the size (the size unknown: the limit) leaves room for it, is skipped unallocated when the limit does not (the
// stream ends inside it: the file is damaged, or longer than the limit), and otherwise grows as its values arrive,
// to at most about three times what the stream gives: a damaged or crafted length cannot make Read allocate much more
// than the stream itself.
func Read(r io.Reader, size, limit int64) (*Model, error) {
	if r == nil {
		return nil, errors.New("model.Read: nil reader")
	}
	s := &source{r: r, h: sha256.New()}
	var head [HeadSize]byte
	n, _ := io.ReadFull(s, head[:])
	if s.err != nil {
		return nil, s.err
	}
	if err := CheckHead(head[:n]); err != nil {
		return nil, err
	}
	v := binary.LittleEndian.Uint32(head[8:])
	hl := int64(binary.LittleEndian.Uint32(head[12:]))
	buf := int64(readBuffer) // a small file needs no more than its length
	if size > 0 {
		buf = min(buf, size)
	}
	if limit > 0 {
		buf = min(buf, limit)
	}
	p := &parser{br: bufio.NewReaderSize(s, int(max(buf, 512))), pos: HeadSize, size: size, limit: limit}
	hdr, ok := p.header(hl)
	m := &Model{Version: int(v)}
	var at int64 // where the stream must reach for perr's check
	var perr error
	switch {
	case !ok:
		at, perr = math.MaxInt64, ErrTruncated
	case v == 1:
		at, perr = p.readV1(m)
	default:
		at, perr = p.readV2(m)
	}
	end := p.pos
	for { // to the end of the stream, for its length and its checksum
		if _, err := p.br.Discard(readBuffer); err != nil {
			break
		}
	}
	if s.err != nil {
		return nil, s.err
	}
	// As Decode sees the whole file: a body (all but the last 32 bytes) and the checksum of the body.
	body := s.n - sha256.Size
	switch {
	case s.n < HeadSize+sha256.Size || HeadSize+hl > body:
		return nil, ErrTruncated
	case !bytes.Equal(s.h.Sum(nil), s.tail[:]):
		return nil, ErrChecksum
	}
	if err := m.decodeHeader(hdr, v); err != nil {
		return nil, err
	}
	switch {
	case perr != nil && at > body, perr == nil && end > body: // Decode would have found the body too short first
		return nil, ErrTruncated
	case perr != nil:
		return nil, perr
	case end < body:
		return nil, fmt.Errorf("model file has %d unexpected trailing bytes", body-end)
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m, nil
}

// readBuffer is the size of the buffer Read reads the stream through: the largest piece of an array it decodes at
// once.
const readBuffer = 64 << 10

// growFrom is the first capacity, in values, of an array that Read grows as its values arrive (1 MiB).
const growFrom = 1 << 17

// decodeHeader decodes the JSON header hdr of a file of version v into m.Header.
func (m *Model) decodeHeader(hdr []byte, v uint32) error {
	if err := uniqueKeys(hdr); err != nil {
		return fmt.Errorf("model header: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(hdr))
	if v >= 2 {
		dec.DisallowUnknownFields() // a field this reader does not know could change the meaning of the model
	}
	if err := dec.Decode(&m.Header); err != nil {
		return fmt.Errorf("model header: %w", err)
	}
	// The header is one JSON object: Decode stops after it, so whatever follows within the declared length (a second
	// object, stray bytes) would otherwise be ignored. Only JSON white space may pad it.
	if extra := bytes.TrimLeft(hdr[dec.InputOffset():], " \t\r\n"); len(extra) > 0 {
		return fmt.Errorf("model: the header has %d bytes after its JSON object (%.20q)", len(extra), extra)
	}
	return nil
}

// source is the stream Read reads: it counts the bytes, hashes all but the last sha256.Size of them (which end the
// file with the checksum of the others) and keeps those, and stops at the first error (an error other than io.EOF
// is kept).
type source struct {
	r    io.Reader
	n    int64
	h    hash.Hash
	tail [sha256.Size]byte // the last bytes read, tail[:nt]
	nt   int
	end  error // io.EOF or the error of r, once r gave it
	err  error // the error of r, not io.EOF
}

func (s *source) Read(b []byte) (int, error) {
	if s.end != nil {
		return 0, s.end
	}
	n, err := s.r.Read(b)
	if n < 0 || n > len(b) {
		n, err = 0, errors.New("model.Read: the reader returned an invalid count")
	}
	s.add(b[:n])
	if err != nil {
		s.end = err
		if err != io.EOF {
			s.err = err
		}
	}
	return n, err
}

// add counts and hashes b, keeping its last bytes back.
func (s *source) add(b []byte) {
	s.n += int64(len(b))
	if len(b) >= len(s.tail) {
		s.h.Write(s.tail[:s.nt])
		s.h.Write(b[:len(b)-len(s.tail)])
		s.nt = copy(s.tail[:], b[len(b)-len(s.tail):])
		return
	}
	if over := s.nt + len(b) - len(s.tail); over > 0 {
		s.h.Write(s.tail[:over])
		s.nt = copy(s.tail[:], s.tail[over:s.nt])
	}
	s.nt += copy(s.tail[s.nt:], b)
}

// parser reads the structure of a file after its head. pos is the bytes consumed, the head's included; size and
// limit are Read's. An error of its reading functions comes with the position the stream must reach for the check
// that found it (math.MaxInt64: the stream ended first), so that Read reports what Decode of the whole file would.
type parser struct {
	br          *bufio.Reader
	pos         int64
	size, limit int64
}

// take returns the next k bytes, valid until the next call; ok is false when the stream ends first.
func (p *parser) take(k int) (b []byte, ok bool) {
	if k > p.br.Size() { // a long name, past a small buffer
		b = make([]byte, k)
		n, err := io.ReadFull(p.br, b)
		p.pos += int64(n)
		return b, err == nil
	}
	b, _ = p.br.Peek(k)
	if len(b) < k {
		return nil, false
	}
	p.br.Discard(k) // buffered: b stays valid
	p.pos += int64(k)
	return b, true
}

// skip consumes the next k bytes and reports whether the stream had them.
func (p *parser) skip(k int64) bool {
	for k > 0 {
		n, err := p.br.Discard(int(min(k, 1<<30)))
		p.pos += int64(n)
		k -= int64(n)
		if err != nil {
			return false
		}
	}
	return true
}

// room says how to read k bytes at pos, which at least the checksum must follow: allocated whole (they fit in the
// stream's known size or, the size unknown, in the limit), skipped (the limit leaves no room for them: the stream is
// cut before their end), or else grown as they arrive.
func (p *parser) room(k int64) (whole, none bool) {
	end := p.pos + k + sha256.Size // k ≤ 8·maxArray: no overflow
	switch {
	case p.limit > 0 && end > p.limit:
		return false, true
	case p.size >= 0:
		return end <= p.size, false
	}
	return p.limit > 0, false
}

// header returns the next k bytes (k ≤ maxHeader); ok is false when the stream ends first.
func (p *parser) header(k int64) (b []byte, ok bool) {
	whole, none := p.room(k)
	switch {
	case none:
		p.skip(k)
		return nil, false
	case whole:
		b = make([]byte, k)
		n, err := io.ReadFull(p.br, b)
		p.pos += int64(n)
		return b, err == nil
	}
	var buf bytes.Buffer
	n, err := io.CopyN(&buf, p.br, k)
	p.pos += n
	return buf.Bytes(), err == nil
}

// floats reads a uint64 count and that many float64 values, decoded straight into their slice.
func (p *parser) floats() (a []float64, at int64, err error) {
	b, ok := p.take(8)
	if !ok {
		return nil, math.MaxInt64, ErrTruncated
	}
	n := binary.LittleEndian.Uint64(b)
	if n > maxArray {
		return nil, p.pos, ErrTruncated
	}
	whole, none := p.room(int64(8 * n))
	switch {
	case none:
		p.skip(int64(8 * n))
		return nil, math.MaxInt64, ErrTruncated
	case whole:
		a = make([]float64, n)
	default:
		a = make([]float64, 0, min(n, growFrom))
	}
	for i := 0; i < int(n); {
		c := min(int(n)-i, p.br.Size()/8)
		b, ok := p.take(8 * c)
		if !ok {
			return nil, math.MaxInt64, ErrTruncated
		}
		if len(a) < i+c {
			if cap(a) < i+c { // doubled, up to n
				g := make([]float64, i, min(int(n), max(2*cap(a), i+c)))
				copy(g, a)
				a = g
			}
			a = a[:i+c]
		}
		for j := range c {
			a[i+j] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*j:]))
		}
		i += c
	}
	return a, p.pos, nil
}

// readV1 reads the five unnamed arrays of version 1 into m.
func (p *parser) readV1(m *Model) (at int64, err error) {
	for _, dst := range []*[]float64{&m.Theta, &m.Bias, &m.Probe, &m.TrainX, &m.Alpha} {
		a, at, err := p.floats()
		if err != nil {
			return at, err
		}
		if len(a) > 0 {
			*dst = a
		}
	}
	return p.pos, nil
}

// readV2 reads the named arrays of version 2 into m.
func (p *parser) readV2(m *Model) (at int64, err error) {
	b, ok := p.take(4)
	if !ok {
		return math.MaxInt64, ErrTruncated
	}
	count := binary.LittleEndian.Uint32(b)
	if count > maxArrays {
		return p.pos, fmt.Errorf("model file lists %d arrays", count)
	}
	byName := map[string]*[]float64{}
	for _, a := range m.arrays() {
		byName[a.name] = a.a
	}
	seen := map[string]bool{}
	for range count {
		b, ok := p.take(2)
		if !ok {
			return math.MaxInt64, ErrTruncated
		}
		if b, ok = p.take(int(binary.LittleEndian.Uint16(b))); !ok {
			return math.MaxInt64, ErrTruncated
		}
		name := string(b)
		if seen[name] {
			return p.pos, fmt.Errorf("model file has the array %q twice", name)
		}
		seen[name] = true
		k, isPoints := strings.CutPrefix(name, pointsPrefix)
		isPoints = isPoints && k != ""
		dst, known := byName[name]
		if !isPoints && !known { // refused after its values, as Decode reads them before it looks at the name
			if b, ok = p.take(8); !ok {
				return math.MaxInt64, ErrTruncated
			}
			n := binary.LittleEndian.Uint64(b)
			switch {
			case n > maxArray:
				return p.pos, ErrTruncated
			case !p.skip(int64(8 * n)):
				return math.MaxInt64, ErrTruncated
			}
			return p.pos, fmt.Errorf("model file has an unknown array %q", name)
		}
		a, at, err := p.floats()
		if err != nil {
			return at, err
		}
		if isPoints {
			if m.Points == nil {
				m.Points = map[string][]float64{}
			}
			m.Points[k] = a
			continue
		}
		*dst = a
	}
	return p.pos, nil
}
