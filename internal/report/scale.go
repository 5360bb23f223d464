package report

import (
	"math"
	"strconv"
	"strings"
)

// scale maps data values on [lo, hi] (both > 0 on a log scale) to pixels on [p0, p1].
type scale struct {
	lo, hi float64
	p0, p1 float64
	log    bool
}

// px is the pixel of the data value v.
func (s scale) px(v float64) float64 {
	lo, hi := s.lo, s.hi
	if s.log {
		v, lo, hi = math.Log10(v), math.Log10(lo), math.Log10(hi)
	}
	return s.p0 + (v/2-lo/2)/(hi/2-lo/2)*(s.p1-s.p0) // halves: no overflow for values near ±MaxFloat64
}

// drawable reports whether v has a place on the scale: finite, and positive on a log scale.
func (s scale) drawable(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && (!s.log || v > 0)
}

// span returns the padded range of the drawable values of vs (pad is the fraction of the range added on either
// side, in log units on a log scale), and false when there is none. A single value gets a range around it.
func span(vs []float64, log bool, pad float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) || (log && v <= 0) {
			continue
		}
		if log {
			v = math.Log10(v)
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if lo > hi {
		return 0, 0, false
	}
	if hi == lo {
		w := math.Max(math.Abs(lo)*0.1, 0.5)
		if log {
			w = 0.3
		}
		lo, hi = lo-w, hi+w
	} else {
		w := (hi/2 - lo/2) * 2 * pad // halves: hi − lo overflows for values near ±MaxFloat64
		lo, hi = math.Max(lo-w, -math.MaxFloat64), math.Min(hi+w, math.MaxFloat64)
	}
	if log {
		return math.Pow(10, lo), math.Pow(10, hi), true
	}
	return lo, hi, true
}

// tick is a mark on an axis; an empty label marks a minor tick.
type tick struct {
	v     float64
	label string
}

// ticks returns the ticks of the scale inside [lo, hi].
func (s scale) ticks() []tick {
	if s.log {
		if t := logTicks(s.lo, s.hi); t != nil {
			return t
		}
	}
	return linearTicks(s.lo, s.hi, 6)
}

// linearTicks labels the multiples inside [lo, hi] of the finest step of a 1-2-2.5-5 sequence that gives at most
// target+1 intervals.
func linearTicks(lo, hi float64, target int) []tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	half := hi/2 - lo/2 // half the width: hi − lo overflows for values near ±MaxFloat64
	raw := half / float64(target) * 2
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag * 10
	for _, m := range []float64{1, 2, 2.5, 5} {
		if half/(m*mag) <= float64(target+1)/2 {
			step = m * mag
			break
		}
	}
	// Digits after the decimal point that the step needs (2.5 needs one more than 2 or 5).
	digits := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	if r := step / math.Pow(10, -float64(digits)); math.Abs(r-math.Round(r)) > 1e-6 {
		digits++
	}
	// Significant digits that tell neighbouring ticks apart in scientific notation: those of the largest magnitude
	// down to the step's (a narrow range far from zero, such as 0.94600 ± 10⁻⁸, needs more than three).
	big := math.Max(math.Abs(lo), math.Abs(hi))
	sig := int(math.Floor(math.Log10(big))-math.Floor(math.Log10(step)+1e-9)) + 1
	if math.Abs(step/math.Pow(10, math.Floor(math.Log10(step)+1e-9))-2.5) < 1e-6 {
		sig++
	}
	sig = min(max(sig, 3), 15)
	var out []tick
	for k := math.Ceil(lo / step); k*step <= hi+half*2e-9 && !math.IsInf(k*step, 0); k++ {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		out = append(out, tick{v, formatLinear(v, digits, sig)})
		if len(out) > 4*target {
			break
		}
	}
	return out
}

// formatLinear formats a tick value with the given digits after the point, switching to scientific notation with sig
// significant digits for very large or small magnitudes and for steps finer than 10⁻⁶ (where zero is "0").
func formatLinear(v float64, digits, sig int) string {
	a := math.Abs(v)
	if a == 0 && digits > 6 {
		return "0"
	}
	if a != 0 && (a >= 1e6 || a < 1e-4 || digits > 6) {
		return scientificDigits(v, sig)
	}
	return minus(strconv.FormatFloat(v, 'f', digits, 64))
}

// scientific formats v with three significant digits as m·10ⁿ ("2·10⁶", "−1.5·10⁻⁵").
func scientific(v float64) string { return scientificDigits(v, 3) }

// scientificDigits formats v with sig ≥ 1 significant digits as m·10ⁿ, trailing zeros of m dropped.
func scientificDigits(v float64, sig int) string {
	s := strconv.FormatFloat(v, 'e', sig-1, 64) // "-1.50e-05"
	i := strings.IndexByte(s, 'e')
	m := s[:i]
	if strings.Contains(m, ".") {
		m = strings.TrimRight(strings.TrimRight(m, "0"), ".")
	}
	k, _ := strconv.Atoi(s[i+1:])
	return minus(m) + "·10" + superscript(k)
}

// logTicks puts a labelled tick at every power of ten inside [lo, hi] (every k-th when there are more than nine),
// minor ticks at 2…9 times them, and labels 2 and 5 times them too when fewer than three powers of ten are inside.
// It returns nil when fewer than two labels would result.
func logTicks(lo, hi float64) []tick {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return nil
	}
	k0, k1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	inside := func(v float64) bool { return v >= lo*(1-1e-12) && v <= hi*(1+1e-12) }
	decades := 0
	for k := k0; k <= k1; k++ {
		if inside(pow10(1, k)) {
			decades++
		}
	}
	step := 1
	if decades > 9 {
		step = (decades + 8) / 9
	}
	labelled := map[int]bool{1: true}
	if decades < 3 {
		labelled[2], labelled[5] = true, true
	}
	var out []tick
	labels := 0
	for k := k0; k <= k1; k++ {
		for m := 1; m <= 9; m++ {
			v := pow10(m, k)
			if !inside(v) {
				continue
			}
			t := tick{v: v}
			if labelled[m] && (m != 1 || ((k%step)+step)%step == 0) {
				t.label = formatPow(m, k)
				labels++
			} else if decades > 6 {
				continue // minor ticks would crowd a long axis
			}
			out = append(out, t)
		}
	}
	if labels < 2 {
		return nil
	}
	return out
}

// pow10 is m·10^k as the float64 nearest to the decimal number.
func pow10(m, k int) float64 {
	v, _ := strconv.ParseFloat(strconv.Itoa(m)+"e"+strconv.Itoa(k), 64)
	return v
}

// formatPow formats m·10^k: plainly for 10⁻³ ≤ v < 10⁴, otherwise with a superscript power ("10⁻⁶", "2·10⁵").
func formatPow(m, k int) string {
	if k >= -3 && k <= 3 {
		return strconv.FormatFloat(pow10(m, k), 'f', -1, 64)
	}
	p := "10" + superscript(k)
	if m != 1 {
		p = strconv.Itoa(m) + "·" + p
	}
	return p
}

func superscript(k int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	sup := []rune(digits)
	var b strings.Builder
	if k < 0 {
		b.WriteRune('⁻')
		k = -k
	}
	for _, c := range strconv.Itoa(k) {
		b.WriteRune(sup[c-'0'])
	}
	return b.String()
}

// minus replaces a leading hyphen with the minus sign.
func minus(s string) string {
	if strings.HasPrefix(s, "-") {
		return "−" + s[1:]
	}
	return s
}

// Number formats v for a caption or a table with about sig significant digits; NaN and infinities read "n/a".
func Number(v float64, sig int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return minus(strconv.FormatFloat(v, 'g', sig, 64))
}
