package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// decodeRef is the reference Read is tested against: the decoder of a whole file held in memory that Read replaced,
// which verifies the checksum of the whole body before it parses anything, then copies the arrays out of the file's
// bytes.
func decodeRef(b []byte) (*Model, error) {
	if err := CheckHead(b); err != nil {
		return nil, err
	}
	v := binary.LittleEndian.Uint32(b[8:])
	if len(b) < 16+sha256.Size {
		return nil, ErrTruncated
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	hl := binary.LittleEndian.Uint32(b[12:])
	if hl > maxHeader || 16+int(hl) > len(body) {
		return nil, ErrTruncated
	}
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, ErrChecksum
	}
	m := &Model{Version: int(v)}
	hdr := body[16 : 16+hl]
	if err := uniqueKeys(hdr); err != nil {
		return nil, fmt.Errorf("model header: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(hdr))
	if v >= 2 {
		dec.DisallowUnknownFields() // a field this reader does not know could change the meaning of the model
	}
	if err := dec.Decode(&m.Header); err != nil {
		return nil, fmt.Errorf("model header: %w", err)
	}
	// The header is one JSON object: Decode stops after it, so whatever follows within the declared length (a second
	// object, stray bytes) would otherwise be ignored. Only JSON white space may pad it.
	if extra := bytes.TrimLeft(hdr[dec.InputOffset():], " \t\r\n"); len(extra) > 0 {
		return nil, fmt.Errorf("model: the header has %d bytes after its JSON object (%.20q)", len(extra), extra)
	}
	rest := body[16+hl:]
	var err error
	if v == 1 {
		err = m.refV1(rest)
	} else {
		err = m.refV2(rest)
	}
	if err != nil {
		return nil, err
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m, nil
}

// refFloats reads a uint64 count and that many float64 values from the front of *rest.
func refFloats(rest *[]byte) ([]float64, error) {
	r := *rest
	if len(r) < 8 {
		return nil, ErrTruncated
	}
	n := binary.LittleEndian.Uint64(r)
	r = r[8:]
	if n > maxArray || uint64(len(r)) < 8*n {
		return nil, ErrTruncated
	}
	a := make([]float64, n)
	for i := range a {
		a[i] = math.Float64frombits(binary.LittleEndian.Uint64(r[8*i:]))
	}
	*rest = r[8*n:]
	return a, nil
}

// refV1 reads the five unnamed arrays of version 1 from rest.
func (m *Model) refV1(rest []byte) error {
	for _, dst := range []*[]float64{&m.Theta, &m.Bias, &m.Probe, &m.TrainX, &m.Alpha} {
		a, err := refFloats(&rest)
		if err != nil {
			return err
		}
		if len(a) > 0 {
			*dst = a
		}
	}
	if len(rest) != 0 {
		return fmt.Errorf("model file has %d unexpected trailing bytes", len(rest))
	}
	return nil
}

// refV2 reads the named arrays of version 2 from rest.
func (m *Model) refV2(rest []byte) error {
	if len(rest) < 4 {
		return ErrTruncated
	}
	count := binary.LittleEndian.Uint32(rest)
	rest = rest[4:]
	if count > maxArrays {
		return fmt.Errorf("model file lists %d arrays", count)
	}
	byName := map[string]*[]float64{}
	for _, a := range m.arrays() {
		byName[a.name] = a.a
	}
	seen := map[string]bool{}
	for range count {
		if len(rest) < 2 {
			return ErrTruncated
		}
		nl := int(binary.LittleEndian.Uint16(rest))
		rest = rest[2:]
		if len(rest) < nl {
			return ErrTruncated
		}
		name := string(rest[:nl])
		rest = rest[nl:]
		if seen[name] {
			return fmt.Errorf("model file has the array %q twice", name)
		}
		seen[name] = true
		a, err := refFloats(&rest)
		if err != nil {
			return err
		}
		if k, ok := strings.CutPrefix(name, pointsPrefix); ok && k != "" {
			if m.Points == nil {
				m.Points = map[string][]float64{}
			}
			m.Points[k] = a
			continue
		}
		dst, ok := byName[name]
		if !ok {
			return fmt.Errorf("model file has an unknown array %q", name)
		}
		*dst = a
	}
	if len(rest) != 0 {
		return fmt.Errorf("model file has %d unexpected trailing bytes", len(rest))
	}
	return nil
}
