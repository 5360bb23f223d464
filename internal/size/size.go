// Package size checks array shapes before they are indexed or allocated: products of dimensions that overflow int
// (which would make a wrong length look right), and allocations no machine can hold, are reported as errors instead
// of a panic (or an out-of-memory crash, which no program can recover from).
package size

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
)

// MaxBytes is the largest array the library allocates on a caller's behalf: 1 TiB. A request beyond it cannot be
// met on any machine it runs on and is refused with an error before anything is allocated.
const MaxBytes = 1 << 40

// MaxFloats is MaxBytes in float64 values (2^37).
const MaxFloats = MaxBytes / 8

// Mul returns the product of dims, and false if a dimension is negative or the product overflows int.
func Mul(dims ...int) (int, bool) {
	p := 1
	for _, d := range dims {
		if d < 0 {
			return 0, false
		}
		hi, lo := bits.Mul64(uint64(p), uint64(d))
		if hi != 0 || lo > uint64(maxInt) {
			return 0, false
		}
		p = int(lo)
	}
	return p, true
}

const maxInt = int(^uint(0) >> 1)

// Is reports whether n equals the product of dims, computed without overflow (false if a dimension is negative).
func Is(n int, dims ...int) bool {
	p, ok := Mul(dims...)
	return ok && p == n
}

// Floats returns the number of float64 values in an array of shape dims, or an error naming what if a dimension is
// negative, the product overflows, or the array would exceed MaxBytes.
func Floats(what string, dims ...int) (int, error) {
	p, ok := Mul(dims...)
	if !ok {
		return 0, fmt.Errorf("%s: impossible size %s", what, shape(dims))
	}
	if p > MaxFloats {
		return 0, fmt.Errorf("%s: %s values would need %d GiB (more than the %d GiB limit of one array)",
			what, shape(dims), p/(1<<27), MaxBytes>>30)
	}
	return p, nil
}

// shape formats dims as "a×b×c".
func shape(dims []int) string {
	s := ""
	for i, d := range dims {
		if i > 0 {
			s += "×"
		}
		s += fmt.Sprint(d)
	}
	return s
}

// Format formats n bytes in binary units, rounded down to one decimal ("512 B", "1.5 GiB").
func Format(n int64) string {
	if n < 1<<10 {
		return strconv.FormatInt(n, 10) + " B"
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v, k := float64(n), -1
	for v >= 1<<10 && k < len(units)-1 {
		v /= 1 << 10
		k++
	}
	return strconv.FormatFloat(math.Floor(v*10)/10, 'f', -1, 64) + " " + units[k]
}
