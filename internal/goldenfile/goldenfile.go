// Package goldenfile writes and compares the golden files of the packages' tests: JSON files that pin a format and
// the maps drawn at a fixed seed, with one drawn map per line so that a change to one draw is a change to one line.
package goldenfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/rffkit/rff/internal/atomicfile"
)

// Encode writes v, which must marshal to a JSON object, with its members in their order (a struct's field order) one
// per line, except the member named list, an array, whose elements are written one per line. Values are written by
// encoding/json, numbers in their shortest form that reads back exactly.
func Encode(v any, list string) ([]byte, error) {
	enc, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(enc))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("goldenfile.Encode: %T is not a JSON object", v)
	}
	var b bytes.Buffer
	b.WriteString("{")
	found := false
	for first := true; dec.More(); first = false {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name := tok.(string) // an object's key
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		if !first {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(name) // a string always marshals
		fmt.Fprintf(&b, "\n  %s: ", key)
		if name != list {
			b.Write(val)
			continue
		}
		var items []json.RawMessage
		if err := json.Unmarshal(val, &items); err != nil {
			return nil, fmt.Errorf("goldenfile.Encode: member %s is not an array", key)
		}
		found = true
		b.WriteString("[\n")
		for i, it := range items {
			b.WriteString("    ")
			b.Write(it)
			if i < len(items)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString("  ]")
	}
	if !found {
		return nil, fmt.Errorf("goldenfile.Encode: %T has no member %q", v, list)
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// Write writes Encode(v, list) to path, creating its directory, so that path holds either its old content or all of
// the new one.
func Write(path string, v any, list string) error {
	data, err := Encode(v, list)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data)
}

// Read reads the golden file at path into v; the error names the file.
func Read(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err // names the file
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Mismatch compares the rows got with the golden rows want, entry by entry, and describes the first entry that
// differs by more than its tolerance tol[i][j] (or is NaN), or the first golden row of another length; "" when every
// entry is within its tolerance. Entries where skip[i][j] is true are not compared; skip may be nil. got and tol
// have the same shape.
func Mismatch(got, want, tol [][]float64, skip [][]bool) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d rows, golden %d", len(got), len(want))
	}
	for i := range got {
		if len(want[i]) != len(got[i]) {
			return fmt.Sprintf("golden row %d has %d features", i, len(want[i]))
		}
		for j, v := range got[i] {
			if e := math.Abs(v - want[i][j]); !(e <= tol[i][j]) && (skip == nil || !skip[i][j]) {
				return fmt.Sprintf("row %d feature %d = %.17g, golden %.17g (difference %.3g, tolerance %.3g)", i, j, v,
					want[i][j], e, tol[i][j])
			}
		}
	}
	return ""
}

// MaxScaledDiff is the largest |got − want|/tol over the entries of the rows, +Inf when the shapes differ: how many
// tolerances apart two draws are.
func MaxScaledDiff(got, want, tol [][]float64) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	var m float64
	for i := range got {
		if len(got[i]) != len(want[i]) {
			return math.Inf(1)
		}
		for j, v := range got[i] {
			m = max(m, math.Abs(v-want[i][j])/tol[i][j])
		}
	}
	return m
}
