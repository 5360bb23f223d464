package plotting

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// logTicks marks a log axis the way plot.LogTicks does (a labelled major
// tick at every power of ten, minor ticks at 2…9 times it), with three
// differences that keep the axis readable:
//   - tick values are exact decimal numbers (no 0.30000000000000004 labels),
//     and the first decade below min is included;
//   - when fewer than three powers of ten fall inside [min, max] the
//     multiples 2 and 5 are labelled too, and if that still gives fewer
//     than two labels it falls back to plot.DefaultTicks;
//   - only ticks inside [min, max] are labelled;
//   - when more than maxLabels powers of ten are in range only every k-th
//     is labelled.
type logTicks struct{}

var _ plot.Ticker = logTicks{}

const maxLabels = 8

func (logTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max >= min) || math.IsInf(max, 0) {
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	lo := int(math.Floor(math.Log10(min)))
	hi := int(math.Ceil(math.Log10(max)))
	inRange := func(v float64) bool { return v >= min*(1-1e-12) && v <= max*(1+1e-12) }

	// Powers of ten inside the range decide which labelling is used.
	var decades []int
	for k := lo; k <= hi; k++ {
		if inRange(decimal(1, k)) {
			decades = append(decades, k)
		}
	}
	labelled := map[int]bool{1: true}
	step := 1
	switch {
	case len(decades) > maxLabels:
		step = (len(decades) + maxLabels - 1) / maxLabels
	case len(decades) < 3:
		labelled[2], labelled[5] = true, true
	}

	var ticks []plot.Tick
	nLabels := 0
	for k := lo; k <= hi; k++ {
		for m := 1; m <= 9; m++ {
			v := decimal(m, k)
			t := plot.Tick{Value: v}
			// Only ticks inside the range get labels: gonum sizes the
			// axis by all labels it is given, drawn or not.
			if inRange(v) && labelled[m] && (m != 1 || (k%step+step)%step == 0) {
				t.Label = formatTick(v)
				nLabels++
			}
			ticks = append(ticks, t)
		}
	}
	if nLabels < 2 {
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	return ticks
}

// decimal returns m·10^k as the float64 nearest to the decimal number.
func decimal(m, k int) float64 {
	v, _ := strconv.ParseFloat(strconv.Itoa(m)+"e"+strconv.Itoa(k), 64)
	return v
}

// formatTick formats a tick value compactly: 0.01, 1000, 1e-05 → 1e-5,
// 1e+06 → 1e6.
func formatTick(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		mant, exp := s[:i], s[i+1:]
		sign := ""
		if exp[0] == '-' {
			sign = "-"
		}
		exp = strings.TrimLeft(exp, "+-0")
		s = mant + "e" + sign + exp
	}
	return s
}
