package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/rffkit/rff/dataset"
)

// inputScale returns c_j with x'_j = a_j + c_j x_j for the preprocessing sc (every step is affine per coordinate),
// or all ones without preprocessing. Derivatives transform by ∂f/∂x'_j = (∂f/∂x_j)/c_j.
func inputScale(sc *dataset.Scaler, d int) []float64 {
	c := make([]float64, d)
	for j := range c {
		c[j] = 1
	}
	if sc == nil {
		return c
	}
	zero := make([]float64, d)
	sc.Apply(zero, 1, d)
	sc.Apply(c, 1, d)
	for j := range c {
		c[j] -= zero[j]
	}
	return c
}

// readColumns reads a CSV of numbers (an optional header line, then n rows of exactly cols fields; gzip allowed) in
// which an empty field or NaN marks an unobserved entry.
func readColumns(path string, n, cols int, what string) ([]float64, error) {
	rc, err := dataset.Open(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	r := csv.NewReader(rc)
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	out := make([]float64, 0, n*cols)
	line := 0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", what, path, err)
		}
		line++
		if len(rec) != cols {
			return nil, usagef("%s %s:%d: %d fields, want %d", what, path, line, len(rec), cols)
		}
		row := make([]float64, cols)
		numeric := true
		for j, f := range rec {
			f = strings.TrimSpace(f)
			if f == "" {
				row[j] = math.NaN()
				continue
			}
			v, err := strconv.ParseFloat(f, 64)
			if err != nil || math.IsInf(v, 0) {
				numeric = false
				break
			}
			row[j] = v
		}
		if !numeric {
			if line == 1 { // a header
				continue
			}
			return nil, usagef("%s %s:%d: not a number (write NaN or leave the field empty for an unobserved entry)", what, path, line)
		}
		out = append(out, row...)
	}
	if len(out) != n*cols {
		return nil, usagef("%s %s has %d rows, want %d (one per row of --data)", what, path, len(out)/cols, n)
	}
	return out, nil
}

// loadHermite reads the observed values (n) and partial derivatives (n×d) of a --task hermite fit; a missing file
// gives nil. Derivatives are converted to the preprocessed inputs' coordinates.
func loadHermite(valuesPath, gradsPath string, n, d int, sc *dataset.Scaler) (vals, grads []float64, err error) {
	if valuesPath != "" {
		if vals, err = readColumns(valuesPath, n, 1, "--values"); err != nil {
			return nil, nil, err
		}
	}
	if gradsPath != "" {
		if grads, err = readColumns(gradsPath, n, d, "--gradients"); err != nil {
			return nil, nil, err
		}
		c := inputScale(sc, d)
		for i, g := range grads {
			if c[i%d] == 0 || math.IsInf(c[i%d], 0) {
				return nil, nil, fmt.Errorf("--gradients: input column %d is constant; its derivative cannot be learned", i%d+1)
			}
			grads[i] = g / c[i%d]
		}
	}
	return vals, grads, nil
}
