// Package numparse reads decimal numbers as strconv.ParseFloat does, correctly rounded for any number of digits and
// any exponent.
//
// strconv.ParseFloat keeps at most 800 digits of a decimal mantissa and stops accumulating an exponent at 10000, and
// both limits lose the decimal point's place: "1" followed by 800 zeros and "e-800" reads as 0.1, and
// "0.000…001e100001" with a hundred thousand zeros as 0. ParseFloat here rewrites a number of more than 780
// mantissa digits as 0.DDD…e±X with its significant digits only: at most
// 780 of them, then a 1 standing for every non-zero digit dropped. That keeps the rounding: a float64 or float32
// rounds at boundaries (the floats and the points halfway between them) that have at most 767 significant digits,
// so a number and its shortened form lie strictly between the same two boundaries, or are the same number. Anything
// else goes to strconv.ParseFloat unchanged, as do its errors.
package numparse

import (
	"errors"
	"strconv"
	"strings"
)

// keep is the number of significant digits a long mantissa keeps (below strconv's 800, above the 767 a boundary
// between float64 roundings can have).
const keep = 780

// ParseFloat is strconv.ParseFloat(s, bits) for every s, except that a plain decimal number ([+-]digits[.digits]
// [(e|E)[+-]digits]) with more than 780 mantissa digits is read correctly rounded (with fewer, an exponent beyond
// strconv's 10000 means 0 or out of range, as strconv says). An error is strconv's (a *strconv.NumError whose Num is s).
func ParseFloat(s string, bits int) (float64, error) {
	short, ok := shorten(s)
	if !ok {
		return strconv.ParseFloat(s, bits)
	}
	v, err := strconv.ParseFloat(short, bits)
	if ne, isNum := errors.AsType[*strconv.NumError](err); isNum {
		ne.Num = strings.Clone(s) // a copy, so that s does not escape: callers pass string(bytes) without a copy
	}
	return v, err
}

// shorten returns s rewritten as [-]0.DDD…e±X (or [-]0 for a zero), with ok false when s is not a plain decimal
// number or strconv reads it right as it is.
func shorten(s string) (string, bool) {
	// Most numbers are short: count the mantissa's digits first, without allocating.
	mantissa := 0
	for _, c := range []byte(s) {
		if c >= '0' && c <= '9' {
			mantissa++
		} else if c == 'e' || c == 'E' {
			break
		}
	}
	if mantissa <= keep {
		return "", false
	}
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var digits []byte // the significant digits kept, the first non-zero
	sticky := false   // a non-zero digit was dropped
	var point int64   // the value is 0.digits × 10^point (before the exponent)
	mantissa = 0      // digits in the mantissa, leading zeros too
	dot := false
	for ; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			if dot {
				return "", false
			}
			dot = true
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		mantissa++
		if c == '0' && len(digits) == 0 {
			if dot {
				point-- // a leading zero after the point
			}
			continue
		}
		if !dot {
			point++
		}
		if len(digits) < keep {
			digits = append(digits, c)
		} else if c != '0' {
			sticky = true
		}
	}
	if mantissa == 0 {
		return "", false
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		start := i
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if exp < 1e15 { // far beyond any float; saturating keeps it so
				exp = exp*10 + int64(s[i]-'0')
			}
		}
		if i == start {
			return "", false
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) || mantissa <= keep {
		return "", false
	}
	sign := ""
	if neg {
		sign = "-"
	}
	if len(digits) == 0 {
		return sign + "0", true
	}
	if sticky {
		digits = append(digits, '1')
	}
	// Beyond ±5000 a number of at most 781 digits is 0 or out of range at every precision; strconv sees the same.
	e := min(max(point+exp, -5000), 5000)
	return sign + "0." + string(digits) + "e" + strconv.FormatInt(e, 10), true
}

// ParseField is ParseFloat for numbers in data files: every number strconv.ParseFloat reads — decimal, hexadecimal
// floating point as C's printf("%a") writes it (0x1.8p+1), inf, infinity and nan in any case — except numbers with
// the digit separators of Go's syntax (1_000): those are a syntax error (a *strconv.NumError whose Num is s), so that a
// column of identifiers such as 1_000 is not read as numbers.
func ParseField(s string, bits int) (float64, error) {
	if strings.IndexByte(s, '_') >= 0 {
		return 0, &strconv.NumError{Func: "ParseFloat", Num: strings.Clone(s), Err: strconv.ErrSyntax}
	}
	return ParseFloat(s, bits)
}
