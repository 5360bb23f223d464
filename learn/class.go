package learn

import (
	"fmt"
	"math"

	"github.com/rffkit/rff/internal/size"
)

// OneHot codes labels (each in [0, classes)) as regression targets, n×classes row-major: 1 in the label's column
// and 0 elsewhere, or −1 elsewhere when pm is set. For pm with classes = 2 the result is a single ±1 column (n×1):
// +1 for label 1 and −1 for label 0, which Argmax(scores, n, 2) decodes by sign. OneHot panics (with a message, on
// the calling goroutine) on a label out of range, classes < 2, or an n×classes matrix beyond the limit of one array
// (1 TiB): the labels come from a coder such as dataset.Classes, which cannot produce them.
func OneHot(labels []int, classes int, pm bool) []float64 {
	if classes < 2 {
		panic(fmt.Sprintf("learn.OneHot: need at least 2 classes, have %d", classes))
	}
	mustFit("learn.OneHot", len(labels), classes)
	checkLabels("learn.OneHot", labels, classes)
	if pm && classes == 2 {
		out := make([]float64, len(labels))
		for i, l := range labels {
			out[i] = float64(2*l - 1)
		}
		return out
	}
	off := 0.0
	if pm {
		off = -1
	}
	out := make([]float64, len(labels)*classes)
	for i, l := range labels {
		row := out[i*classes : (i+1)*classes]
		for j := range row {
			row[j] = off
		}
		row[l] = 1
	}
	return out
}

// mustFit panics, with a message prefixed by where, if an array of shape dims cannot be allocated.
func mustFit(where string, dims ...int) {
	if _, err := size.Floats(where, dims...); err != nil {
		panic(err.Error())
	}
}

func checkLabels(where string, labels []int, classes int) {
	for i, l := range labels {
		if l < 0 || l >= classes {
			panic(fmt.Sprintf("%s: label %d of row %d is outside [0, %d)", where, l, i+1, classes))
		}
	}
}

// Argmax returns, for each of the rows of scores (rows×classes, row-major), the index of its largest entry (the
// first on ties; NaN entries never win unless all are NaN). With classes = 2 and a single score column
// (len(scores) = rows, the ±1 coding of OneHot) it returns 1 where the score is > 0 and 0 otherwise. It panics (with
// a message) if rows < 0, classes < 1 or scores is too short.
func Argmax(scores []float64, rows, classes int) []int {
	if rows < 0 || classes < 1 {
		panic(fmt.Sprintf("learn.Argmax: need rows ≥ 0 and classes ≥ 1, have %d and %d", rows, classes))
	}
	if classes == 2 && len(scores) == rows {
		out := make([]int, rows)
		for i, s := range scores {
			if s > 0 {
				out[i] = 1
			}
		}
		return out
	}
	if need, ok := size.Mul(rows, classes); !ok || len(scores) < need {
		panic(fmt.Sprintf("learn.Argmax: %d rows × %d classes need %d scores, have %d", rows, classes, rows*classes, len(scores)))
	}
	out := make([]int, rows)
	for i := range rows {
		out[i] = argmax(scores[i*classes : (i+1)*classes])
	}
	return out
}

func argmax(x []float64) int {
	best := 0
	for j, v := range x {
		if v > x[best] || (math.IsNaN(x[best]) && !math.IsNaN(v)) {
			best = j
		}
	}
	return best
}

// Softmax returns the class probabilities of the multinomial logistic model for scores (rows×classes, row-major,
// the scores f(z) = Θᵀz + b of a classifier trained with the Logistic loss): softmax(f)_k = exp(f_k)/Σ_j exp(f_j),
// computed as exp(f_k − max f)/Σ_j exp(f_j − max f), so that no score overflows and every row sums to 1 within
// rounding. It returns an error for rows < 0, classes < 2, scores of another length, or a score that is not finite.
func Softmax(scores []float64, rows, classes int) ([]float64, error) {
	if rows < 0 || classes < 2 {
		return nil, fmt.Errorf("learn.Softmax: need rows ≥ 0 and classes ≥ 2, have %d and %d", rows, classes)
	}
	if need, ok := size.Mul(rows, classes); !ok || len(scores) != need {
		return nil, fmt.Errorf("learn.Softmax: %d rows × %d classes need %d scores, have %d", rows, classes, rows*classes, len(scores))
	}
	out := make([]float64, len(scores))
	for i := range rows {
		s, p := scores[i*classes:(i+1)*classes], out[i*classes:(i+1)*classes]
		m := math.Inf(-1)
		for j, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("learn.Softmax: score %d of row %d is %v", j+1, i+1, v)
			}
			m = math.Max(m, v)
		}
		sum := 0.0
		for j, v := range s {
			p[j] = math.Exp(v - m)
			sum += p[j]
		}
		for j := range p {
			p[j] /= sum
		}
	}
	return out, nil
}

// SimplexCode returns the simplex code C for k ≥ 2 classes, a (k−1)×k row-major matrix whose columns c_1 … c_k are
// unit vectors with pairwise inner products −1/(k−1) (Mroueh et al. 2012), built by the corrected recursion of
// docs/conventions.md §8.1:
//
//	C₂ = [1, −1],   C_{j+1} = [[1, −(1/j)·1ᵀ_j], [0_{j−1}, √(1 − 1/j²)·C_j]].
//
// It panics (with a message) for k < 2 and for a code beyond the limit of one array (1 TiB).
func SimplexCode(k int) []float64 {
	if k < 2 {
		panic(fmt.Sprintf("learn.SimplexCode: need k ≥ 2 classes, have %d", k))
	}
	mustFit("learn.SimplexCode", k-1, k)
	C := []float64{1, -1} // C_j is (j−1)×j
	for j := 2; j < k; j++ {
		// Build C_{j+1} (j × (j+1)) from C_j ((j−1) × j).
		next := make([]float64, j*(j+1))
		next[0] = 1
		for c := 1; c <= j; c++ {
			next[c] = -1 / float64(j)
		}
		s := math.Sqrt(1 - 1/float64(j*j))
		for r := 0; r < j-1; r++ {
			row := next[(r+1)*(j+1) : (r+2)*(j+1)]
			row[0] = 0
			for c := 0; c < j; c++ {
				row[c+1] = s * C[r*j+c]
			}
		}
		C = next
	}
	return C
}

// SimplexEncode codes labels (each in [0, k)) as n×(k−1) targets, row i being the column c_{labels[i]} of
// SimplexCode(k). It panics (with a message) on a label out of range, k < 2 or an output beyond the limit of one
// array.
func SimplexEncode(labels []int, k int) []float64 {
	if k < 2 {
		panic(fmt.Sprintf("learn.SimplexEncode: need k ≥ 2 classes, have %d", k))
	}
	mustFit("learn.SimplexEncode", len(labels), k-1)
	C := SimplexCode(k)
	checkLabels("learn.SimplexEncode", labels, k)
	q := k - 1
	out := make([]float64, len(labels)*q)
	for i, l := range labels {
		for r := range q {
			out[i*q+r] = C[r*k+l]
		}
	}
	return out
}

// SimplexDecode returns, for each of the rows of scores (rows×(k−1), row-major), the class j maximising
// ⟨score, c_j⟩ (the first on ties). It panics (with a message) if rows < 0, scores is too short or k < 2.
func SimplexDecode(scores []float64, rows, k int) []int {
	if rows < 0 || k < 2 {
		panic(fmt.Sprintf("learn.SimplexDecode: need rows ≥ 0 and k ≥ 2 classes, have %d and %d", rows, k))
	}
	q := k - 1
	if need, ok := size.Mul(rows, q); !ok || len(scores) < need {
		panic(fmt.Sprintf("learn.SimplexDecode: %d rows × %d columns need %d scores, have %d", rows, q, rows*q, len(scores)))
	}
	C := SimplexCode(k)
	out := make([]int, rows)
	proj := make([]float64, k)
	for i := range rows {
		s := scores[i*q : (i+1)*q]
		clear(proj)
		for r, v := range s {
			row := C[r*k : (r+1)*k]
			for j, c := range row {
				proj[j] += v * c
			}
		}
		out[i] = argmax(proj)
	}
	return out
}
