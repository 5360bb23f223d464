package study

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/rffkit/rff/metrics"
)

// RateSlope and RateTolerance are the rate the m^{−1/2} studies test: a log–log slope of −0.5 ± 0.1.
const (
	RateSlope     = -0.5
	RateTolerance = 0.1
)

// Stat is a mean over independent runs with its spread: the sample standard deviation and the normal 95%
// interval of the mean, mean ± 1.96·std/√runs (metrics.Summarize).
type Stat struct {
	Runs int        `json:"runs"`
	Mean float64    `json:"mean"`
	Std  float64    `json:"std"`
	CI95 [2]float64 `json:"ci95"`
}

func statOf(v []float64) Stat {
	s := metrics.Summarize(v)
	return Stat{Runs: len(v), Mean: s.Mean, Std: s.Std, CI95: s.CI95}
}

// Fit is a least-squares line y = Intercept + Slope·x through N points.
type Fit struct {
	Slope     float64 `json:"slope"`
	Intercept float64 `json:"intercept"`
	SlopeSE   float64 `json:"slope_se"` // standard error of the slope (0 for two points)
	R2        float64 `json:"r2"`       // coefficient of determination (1 when y is constant and fitted exactly)
	N         int     `json:"n"`
}

// FitLine fits y = a + b·x by ordinary least squares. It needs at least two points, finite values and two
// distinct abscissae.
func FitLine(x, y []float64) (Fit, error) {
	n := len(x)
	if len(y) != n {
		return Fit{}, fmt.Errorf("fit: %d abscissae and %d ordinates", n, len(y))
	}
	if n < 2 {
		return Fit{}, fmt.Errorf("fit: need at least 2 points, got %d", n)
	}
	var mx, my float64
	for i := range x {
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) || math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return Fit{}, fmt.Errorf("fit: point %d is (%v, %v)", i, x[i], y[i])
		}
		mx += x[i]
		my += y[i]
	}
	mx /= float64(n)
	my /= float64(n)
	var sxx, sxy, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if sxx == 0 {
		return Fit{}, errors.New("fit: all abscissae are equal")
	}
	f := Fit{Slope: sxy / sxx, N: n}
	f.Intercept = my - f.Slope*mx
	var sse float64
	for i := range x {
		r := y[i] - f.Intercept - f.Slope*x[i]
		sse += r * r
	}
	f.R2 = 1
	if syy > 0 {
		f.R2 = 1 - sse/syy
	}
	if n > 2 {
		f.SlopeSE = math.Sqrt(sse / float64(n-2) / sxx)
	}
	return f, nil
}

// FitLogLog fits log y = a + b·log x (natural logarithms), i.e. the power law y = e^a·x^b: Slope is the exponent b.
// Every value must be positive.
func FitLogLog(x, y []float64) (Fit, error) {
	if len(x) != len(y) {
		return Fit{}, fmt.Errorf("fit: %d abscissae and %d ordinates", len(x), len(y))
	}
	lx, ly := make([]float64, len(x)), make([]float64, len(y))
	for i := range x {
		if !(x[i] > 0 && y[i] > 0) {
			return Fit{}, fmt.Errorf("log–log fit: point %d is (%v, %v); values must be positive", i, x[i], y[i])
		}
		lx[i], ly[i] = math.Log(x[i]), math.Log(y[i])
	}
	return FitLine(lx, ly)
}

// SeriesFit is the fit of one series of a study, with the slope the theory predicts when it predicts one.
type SeriesFit struct {
	Series string `json:"series"`
	Model  string `json:"model"` // what was fitted against what, e.g. "log mean = a + b·log m"
	Fit
	Theory    float64 `json:"theory,omitempty"`    // predicted slope
	Tolerance float64 `json:"tolerance,omitempty"` // accepted |slope − theory|; 0: no prediction to test
	Within    bool    `json:"within"`              // |slope − theory| ≤ tolerance (false without a prediction)
}

func rateFit(series, model string, x, y []float64, theory, tol float64) (SeriesFit, error) {
	f, err := FitLogLog(x, y)
	if err != nil {
		return SeriesFit{}, fmt.Errorf("%s: %w", series, err)
	}
	return SeriesFit{Series: series, Model: model, Fit: f, Theory: theory, Tolerance: tol,
		Within: math.Abs(f.Slope-theory) <= tol}, nil
}

// Summary is what a study found: the fits of its series and one or two sentences comparing them with the
// theory, for the command's output and the README.
type Summary struct {
	Fits    []SeriesFit `json:"fits"`
	Finding string      `json:"finding"`
}

// point is one measurement of a series at x, with the theorem's bound at x.
type point struct {
	x     float64
	stat  Stat
	bound float64
}

// rateSummary groups rows by key (in first-seen order), fits the log–log slope of the mean against x of each group
// (theory RateSlope ± RateTolerance), and states the finding from the slopes (slopesText) and the range of
// bound/mean over the rows.
func rateSummary[R any](rows []R, key func(R) string, at func(R) point, model string,
	finding func(slopes string, lo, hi float64) string) (Summary, error) {
	order, idx := groupBy(rows, key)
	var out Summary
	var means, bounds []float64
	for _, k := range order {
		var x, y []float64
		for _, i := range idx[k] {
			p := at(rows[i])
			x, y = append(x, p.x), append(y, p.stat.Mean)
			means, bounds = append(means, p.stat.Mean), append(bounds, p.bound)
		}
		f, err := rateFit(k, model, x, y, RateSlope, RateTolerance)
		if err != nil {
			return Summary{}, err
		}
		out.Fits = append(out.Fits, f)
	}
	lo, hi := ratioRange(bounds, means)
	out.Finding = finding(slopesText(out.Fits), lo, hi)
	return out, nil
}

// slopesText renders "−0.50 ± 0.01 (d=1), …" and whether all are within the tolerance.
func slopesText(fits []SeriesFit) string {
	var parts []string
	all := true
	for _, f := range fits {
		parts = append(parts, fmt.Sprintf("%s (%s)", signed(f.Slope, f.SlopeSE), f.Series))
		all = all && f.Within
	}
	s := strings.Join(parts, ", ")
	if len(fits) > 0 {
		verdict := "all within"
		if !all {
			verdict = "NOT all within"
		}
		s += fmt.Sprintf(" — theory %s ± %.1f: %s", signed(fits[0].Theory, 0), fits[0].Tolerance, verdict)
	}
	return s
}

// signed formats v with a true minus sign and, when se is more than rounding noise (points exactly on a line leave a
// standard error of about 10⁻¹⁶, which a build fusing multiply-adds rounds differently), its standard error.
func signed(v, se float64) string {
	s := strings.Replace(fmt.Sprintf("%.2f", v), "-", "−", 1)
	if se > 1e-9*max(1, math.Abs(v)) {
		s += fmt.Sprintf(" ± %.2f", se)
	}
	return s
}

// ratioRange returns the smallest and largest a[i]/b[i].
func ratioRange(a, b []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range a {
		r := a[i] / b[i]
		lo, hi = math.Min(lo, r), math.Max(hi, r)
	}
	return lo, hi
}

// powersOfTwo returns 2^lo, …, 2^hi.
func powersOfTwo(lo, hi int) []int {
	var out []int
	for e := lo; e <= hi; e++ {
		out = append(out, 1<<e)
	}
	return out
}

// groupBy returns the distinct keys of rows in first-seen order and the row indices of each.
func groupBy[R any](rows []R, key func(R) string) ([]string, map[string][]int) {
	var order []string
	idx := map[string][]int{}
	for i, r := range rows {
		k := key(r)
		if _, ok := idx[k]; !ok {
			order = append(order, k)
		}
		idx[k] = append(idx[k], i)
	}
	return order, idx
}
