// Package goldenfile writes and compares the golden files of the packages' tests: JSON files that pin a format and
// the maps drawn at a fixed seed, with one drawn map per line so that a change to one draw is a change to one line.
package goldenfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/rffkit/rff/internal/atomicfile"
)

// Field is one top-level member of a golden file.
type Field struct {
	Name  string
	Value any
}

// Encode returns the JSON object of fields, in their order, followed by the member list holding items, one item per
// line. Values are written by encoding/json, numbers in their shortest form that reads back exactly.
func Encode[T any](fields []Field, list string, items []T) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n")
	for _, f := range fields {
		enc, err := json.Marshal(f.Value)
		if err != nil {
			return nil, fmt.Errorf("golden field %q: %w", f.Name, err)
		}
		key, _ := json.Marshal(f.Name) // a string always marshals
		fmt.Fprintf(&b, "  %s: %s,\n", key, enc)
	}
	key, _ := json.Marshal(list)
	fmt.Fprintf(&b, "  %s: [\n", key)
	for i, it := range items {
		line, err := json.Marshal(it)
		if err != nil {
			return nil, fmt.Errorf("golden %s[%d]: %w", list, i, err)
		}
		b.WriteString("    ")
		b.Write(line)
		if i < len(items)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]\n}\n")
	if !json.Valid(b.Bytes()) {
		return nil, errors.New("goldenfile.Encode produced invalid JSON")
	}
	return b.Bytes(), nil
}

// Write writes Encode(fields, list, items) to path, creating its directory, so that path holds either its old content
// or all of the new one.
func Write[T any](path string, fields []Field, list string, items []T) error {
	data, err := Encode(fields, list, items)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data)
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
