package numparse

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// exact returns the float64 and float32 nearest the decimal number s (ties to even), from its exact rational value;
// -0 for a negative number that rounds to zero.
func exact(t *testing.T, s string) (float64, float32) {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("big.Rat cannot read %.60q", s)
	}
	f64, _ := r.Float64()
	f32, _ := r.Float32()
	if strings.HasPrefix(s, "-") && r.Sign() == 0 || strings.HasPrefix(s, "-") && f64 == 0 {
		f64 = math.Copysign(0, -1) // a rational has no sign of zero; a negative number that rounds to 0 reads as -0
	}
	if strings.HasPrefix(s, "-") && f32 == 0 {
		f32 = float32(math.Copysign(0, -1))
	}
	return f64, f32
}

// halfway returns the decimal expansion of the point halfway between the float64 v > 0 and the next one up: a
// number with hundreds of significant digits for small v.
func halfway(v float64) string {
	a := new(big.Rat).SetFloat64(v)
	b := new(big.Rat).SetFloat64(math.Nextafter(v, math.Inf(1)))
	m := new(big.Rat).Add(a, b)
	m.Quo(m, big.NewRat(2, 1))
	return m.FloatString(1100) // exact: the denominator is a power of two below 2^1100
}

// Every number is read as its exact value rounded to float64 and float32 — long mantissas, long exponents, leading
// and trailing zeros, and the points halfway between two floats with a non-zero digit far beyond the 800th (which
// decides the rounding) or without it (ties to even).
func TestParseFloat(t *testing.T) {
	zeros := strings.Repeat
	cases := []string{
		"1" + zeros("0", 800) + "e-800",
		"1" + zeros("0", 5000) + "e-5000",
		"-1" + zeros("0", 799) + "e-799",
		"0." + zeros("0", 100000) + "1e100001",
		"0." + zeros("0", 1000) + "1e1001",
		"1" + zeros("0", 900),
		"1." + zeros("0", 900) + "1",
		"1e-99999", "1e99999", "-1e+12345", "0e99999", "-0." + zeros("0", 900), "1E00000000000000000000001",
		"123456789012345678901234567890",
		zeros("9", 2000),
		"2.4703282292062327" + zeros("0", 900) + "e-324",
		"2.4703282292062328e-324", // just above half the smallest subnormal
		"4.9406564584124654e-324",
		"1.7976931348623158" + zeros("0", 800) + "e308",
		"1.7976931348623159" + zeros("0", 800) + "e308",
		"3.4028235677973366" + zeros("0", 900) + "e38",
	}
	for _, v := range []float64{1, 3.5, math.Pi, 1e-300, 5e-324, 2.2250738585072014e-308, math.MaxFloat64 / 2, 123456.789e-310} {
		h := halfway(v)
		h = strings.TrimRight(h, "0")
		cases = append(cases, h, h+zeros("0", 2000)+"1", h+zeros("0", 2000), "-"+h+zeros("0", 3000)+"7")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var b strings.Builder
		if rng.IntN(2) == 0 {
			b.WriteByte('-')
		}
		n := 1 + rng.IntN(3000)
		dot := rng.IntN(n + 1)
		for i := range n {
			if i == dot {
				b.WriteByte('.')
			}
			c := byte('0' + rng.IntN(10))
			if rng.IntN(4) == 0 {
				c = '0'
			}
			b.WriteByte(c)
		}
		b.WriteString("e" + strconv.Itoa(rng.IntN(4000)-2000))
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		want64, want32 := exact(t, s)
		for _, c := range []struct {
			bits int
			want float64
		}{{64, want64}, {32, float64(want32)}} {
			got, err := ParseFloat(s, c.bits)
			if math.IsInf(c.want, 0) {
				if !errors.Is(err, strconv.ErrRange) || got != c.want {
					t.Errorf("%.50q… (%d bits): %v, %v; want %v and a range error", s, c.bits, got, err, c.want)
				}
				continue
			}
			if err != nil || math.Float64bits(got) != math.Float64bits(c.want) {
				t.Errorf("%.50q… (%d digits, %d bits): %v, %v; want %v", s, len(s), c.bits, got, err, c.want)
			}
		}
	}
}

// Anything but a long plain decimal number is strconv.ParseFloat's, value and error alike; errors name the number.
func TestParseFloatAsStrconv(t *testing.T) {
	for _, s := range []string{"", "1", "-0", "1.5e3", "0x1p-2", "Inf", "-inf", "NaN", "1_000", "1e", "1e+", ".", "-.",
		"1..2", "1e400", "-1e400", "1e-400", "abc", "1.5x", "+", "١", strings.Repeat("9", 700) + "x",
		strings.Repeat("1", 900) + "e", strings.Repeat("1", 900) + ".5.5"} {
		for _, bits := range []int{32, 64} {
			want, werr := strconv.ParseFloat(s, bits)
			got, err := ParseFloat(s, bits)
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) || (err == nil) != (werr == nil) ||
				err != nil && err.Error() != werr.Error() {
				t.Errorf("%.40q (%d bits): %v, %v; strconv %v, %v", s, bits, got, err, want, werr)
			}
		}
	}
	long := "1" + strings.Repeat("0", 800) + "e99999"
	_, err := ParseFloat(long, 64)
	if ne, ok := errors.AsType[*strconv.NumError](err); !ok || ne.Num != long || !errors.Is(err, strconv.ErrRange) {
		t.Errorf("out of range: %v", err)
	}
}

// ParseField reads what ParseFloat reads except numbers with digit separators, which are a syntax error naming the
// input.
func TestParseField(t *testing.T) {
	for _, c := range []struct {
		s  string
		ok bool
	}{
		{"1", true}, {"-0", true}, {"+1.5e3", true}, {".5", true}, {"0x1.8p+1", true}, {"0X1P-2", true}, {"Inf", true},
		{"nAn", true}, {"1e400", true}, {strings.Repeat("1", 900) + ".5e-3", true}, {"1.5x", true}, {"", true},
		{"1_000", false}, {"0x_1p3", false}, {"1_0.5", false}, {"1e1_0", false}, {"_", false}, {"1__0", false},
	} {
		got, err := ParseField(c.s, 64)
		if !c.ok {
			ne, isNum := errors.AsType[*strconv.NumError](err)
			if !isNum || ne.Num != c.s || !errors.Is(err, strconv.ErrSyntax) || got != 0 {
				t.Errorf("%q: %v, %v; want 0 and a syntax error naming it", c.s, got, err)
			}
			continue
		}
		want, werr := ParseFloat(c.s, 64)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) ||
			(err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Errorf("%.40q: %v, %v; ParseFloat %v, %v", c.s, got, err, want, werr)
		}
	}
}

// FuzzParseFloat: for any string, ParseFloat gives strconv's value and error where strconv reads the number right (at
// most 780 mantissa digits, or not a plain decimal number), and the exactly rounded value of a plain decimal number
// of any length; a long number built from the input's digits is read exactly too.
func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"1", "-0.5e-3", "1e400", "Inf", "0x1p3", "1_000", "", ".", "1" + strings.Repeat("0", 800) + "e-800"} {
		f.Add(s, uint16(0))
	}
	f.Fuzz(func(t *testing.T, s string, pad uint16) {
		for _, text := range []string{s, longForm(s, int(pad))} {
			if len(text) > 1<<16 {
				continue
			}
			got, err := ParseFloat(text, 64)
			fgot, ferr := ParseField(text, 64)
			if sep := strings.Contains(text, "_"); sep && !errors.Is(ferr, strconv.ErrSyntax) || !sep &&
				(math.Float64bits(fgot) != math.Float64bits(got) && !(math.IsNaN(got) && math.IsNaN(fgot)) || (ferr == nil) != (err == nil)) {
				t.Fatalf("%.40q: ParseField %v, %v; ParseFloat %v, %v", text, fgot, ferr, got, err)
			}
			if _, long := shorten(text); !long {
				want, werr := strconv.ParseFloat(text, 64)
				if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) || (err == nil) != (werr == nil) {
					t.Fatalf("%.40q: %v, %v; strconv %v, %v", text, got, err, want, werr)
				}
				continue
			}
			r, ok := new(big.Rat).SetString(text)
			if !ok {
				t.Fatalf("%.40q is long and plain, but big.Rat cannot read it", text)
			}
			want, _ := r.Float64()
			if strings.HasPrefix(text, "-") && want == 0 {
				want = math.Copysign(0, -1)
			}
			if math.IsInf(want, 0) {
				if !errors.Is(err, strconv.ErrRange) || got != want {
					t.Fatalf("%.40q…: %v, %v; want %v and a range error", text, got, err, want)
				}
			} else if err != nil || math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%.40q… (%d bytes): %v, %v; want %v", text, len(text), got, err, want)
			}
		}
	})
}

// longForm turns the digits of s into a plain decimal number of more than 780 digits: its digits (or 1), pad zeros,
// its digits again, and an exponent from its length.
func longForm(s string, pad int) string {
	var digits []byte
	for _, c := range []byte(s) {
		if c >= '0' && c <= '9' {
			digits = append(digits, c)
		}
	}
	if len(digits) == 0 {
		digits = []byte{'1'}
	}
	return string(digits) + "." + strings.Repeat("0", 781+pad%3000) + string(digits) + "e-" + strconv.Itoa(len(s)%400)
}
