package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/bound"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/plotting"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// The rates studies (`rff repro rates-*`) reproduce the claims of Sriperumbudur & Szabó, "Optimal rates for random
// Fourier features" (NeurIPS 2015; poster 002_* and slides 004_* in ../shared/papers; docs/conventions.md §7): for the Gaussian
// kernel, the uniform error of m random Fourier features on a compact set S falls as m^{−1/2} (Theorem 1), grows
// only like √(log|S|) with the diameter of S (Theorem 1, against the |S|·√(log m/m) of Rahimi & Recht), the L^r
// errors fall as m^{−1/2} too (Theorem 2), and so do the errors of the derivative estimates (Theorems 4–5).
// Every study measures the error of independent maps (Runs of them per point), reports the mean with a 95%
// interval, draws the theorem's bound above it, and fits the rate.

// RateSlope and RateTolerance are the rate the studies test: a log–log slope of −0.5 ± 0.1 (issue 5).
const (
	RateSlope     = -0.5
	RateTolerance = 0.1
)

// Stat is a mean over independent runs with its spread: the sample standard deviation and the normal 95%
// interval of the mean, mean ± 1.96·std/√runs.
type Stat struct {
	Runs int        `json:"runs"`
	Mean float64    `json:"mean"`
	Std  float64    `json:"std"`
	CI95 [2]float64 `json:"ci95"`
}

func statOf(v []float64) Stat {
	m, s, ci := MeanCI(v)
	return Stat{Runs: len(v), Mean: m, Std: s, CI95: ci}
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
		return Fit{}, fmt.Errorf("experiment: fit: %d abscissae and %d ordinates", n, len(y))
	}
	if n < 2 {
		return Fit{}, fmt.Errorf("experiment: fit: need at least 2 points, got %d", n)
	}
	var mx, my float64
	for i := range x {
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) || math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return Fit{}, fmt.Errorf("experiment: fit: point %d is (%v, %v)", i, x[i], y[i])
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
		return Fit{}, errors.New("experiment: fit: all abscissae are equal")
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
		return Fit{}, fmt.Errorf("experiment: fit: %d abscissae and %d ordinates", len(x), len(y))
	}
	lx, ly := make([]float64, len(x)), make([]float64, len(y))
	for i := range x {
		if !(x[i] > 0 && y[i] > 0) {
			return Fit{}, fmt.Errorf("experiment: log–log fit: point %d is (%v, %v); values must be positive", i, x[i], y[i])
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

// signed formats v with a true minus sign and, when se > 0, its standard error.
func signed(v, se float64) string {
	s := strings.Replace(fmt.Sprintf("%.2f", v), "-", "−", 1)
	if se > 0 {
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

// checkRates checks the settings shared by the studies of m^{−1/2} rates.
func checkRates(ms []int, sigma, diameter float64, runs int, delta float64) error {
	for _, m := range ms {
		if m < 1 {
			return fmt.Errorf("experiment: m must be at least 1, got %d", m)
		}
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return fmt.Errorf("experiment: bandwidth σ must be positive and finite, got %v", sigma)
	}
	if !(diameter > 0) || math.IsInf(diameter, 0) {
		return fmt.Errorf("experiment: diameter |S| must be positive and finite, got %v", diameter)
	}
	if runs < 1 {
		return fmt.Errorf("experiment: runs must be at least 1, got %d", runs)
	}
	if !(delta > 0 && delta < 1) {
		return fmt.Errorf("experiment: δ must lie in (0, 1), got %v", delta)
	}
	return nil
}

func checkSearch(s approx.Search) error {
	if s.Candidates < 0 || s.Starts < 0 || s.Steps < 0 {
		return fmt.Errorf("experiment: negative search budget %+v", s)
	}
	return nil
}

// ---------------------------------------------------------------------------------------------------------------
// rates-sup

// RatesSup reproduces the rate of Theorem 1 of Sriperumbudur & Szabó (NeurIPS 2015): for m random Fourier features
// of the Gaussian kernel, the uniform error ‖k − k̂‖_{L∞(S×S)} on a fixed compact S is below
// (h(d,|S|,σ) + √(2 log(1/δ)))/√m with probability 1 − δ, so it falls as m^{−1/2} (no log m factor, unlike Rahimi &
// Recht's |S|√(log m/m)). For each d in Dims and m in Ms, Runs independent maps are drawn and the error of each is
// measured with approx.SupError (random search over δ ∈ S − S plus gradient ascent, within the Search budget: the
// value is attained, hence a lower bound on the true supremum). The Theorem 1 radius at Delta is reported with each
// point; [RatesSup.Summarize] fits the log–log slope of the mean error against m, which the theorem predicts to
// be −1/2 (tested at −0.5 ± 0.1).
//
// S is the cube centred at 0 with Euclidean diameter Diameter (side Diameter/√d), the same |S| in every dimension.
type RatesSup struct {
	// Dims are the input dimensions d (default 1, 2, 5).
	Dims []int `json:"dims"`
	// Ms are the numbers of points m (frequencies; the cos/sin map has 2m columns); default 2⁴, 2⁵, …, 2¹⁴.
	Ms []int `json:"m"`
	// Sigma is the Gaussian bandwidth σ_k (default 1); σ² = E‖ω‖² = d/σ_k² enters Theorem 1.
	Sigma float64 `json:"sigma"`
	// Diameter is |S| (default 4).
	Diameter float64 `json:"diameter"`
	// Rule draws the points (default rule.G: iid Gaussian frequencies, the theorem's setting).
	Rule rule.Rule `json:"-"`
	// Runs is the number of independent maps per (d, m) (default 20).
	Runs int `json:"runs"`
	// Seed fixes every map and search (approx.RunSeed derives one per d, m and run).
	Seed uint64 `json:"seed"`
	// Delta is the failure probability δ of the drawn bound (default 0.05).
	Delta float64 `json:"delta"`
	// Search is the budget of approx.SupError per map; zero fields take approx's defaults (4096 candidates,
	// 8 starts, 100 steps). Its Seed is ignored (derived per run).
	Search approx.Search `json:"search"`
	// Progress, when set, is called after each measured map.
	Progress func() `json:"-"`
}

// WithDefaults returns s with every zero field set to its default, or an error for settings that cannot run.
func (s RatesSup) WithDefaults() (RatesSup, error) {
	if len(s.Dims) == 0 {
		s.Dims = []int{1, 2, 5}
	}
	if len(s.Ms) == 0 {
		s.Ms = powersOfTwo(4, 14)
	}
	if s.Sigma == 0 {
		s.Sigma = 1
	}
	if s.Diameter == 0 {
		s.Diameter = 4
	}
	if s.Rule == nil {
		s.Rule = rule.G{}
	}
	if s.Runs == 0 {
		s.Runs = 20
	}
	if s.Delta == 0 {
		s.Delta = 0.05
	}
	for _, d := range s.Dims {
		if d < 1 {
			return s, fmt.Errorf("experiment: dimension must be at least 1, got %d", d)
		}
	}
	if err := checkRates(s.Ms, s.Sigma, s.Diameter, s.Runs, s.Delta); err != nil {
		return s, err
	}
	return s, checkSearch(s.Search)
}

// Steps is the number of maps Run measures (for a progress bar); 0 for invalid settings.
func (s RatesSup) Steps() int {
	s, err := s.WithDefaults()
	if err != nil {
		return 0
	}
	return len(s.Dims) * len(s.Ms) * s.Runs
}

// SupRow is one point of [RatesSup] (and of [RatesDiameter]): the sup error over S×S of maps with m points in
// dimension d, over the runs, and the Theorem 1 radius.
type SupRow struct {
	Dim      int     `json:"d"`
	M        int     `json:"m"`      // points requested
	Points   int     `json:"points"` // points drawn (SR rules round up)
	Diameter float64 `json:"diameter"`
	Stat
	// Bound is the Theorem 1 radius (h(d,|S|,σ) + √(2 log(1/δ)))/√m at the study's δ.
	Bound float64 `json:"bound"`
	// Candidates is the random-search budget of each sup (plus Starts gradient ascents).
	Candidates int `json:"candidates"`
}

// supPoint measures the sup error of runs independent maps and returns the row without its bound.
func supPoint(ctx context.Context, label string, seed uint64, k kernel.Kernel, r rule.Rule, dom approx.Domain, m,
	runs int, p, q []int, budget approx.Search, progress func()) (SupRow, error) {
	row := SupRow{Dim: dom.Dim, M: m, Diameter: dom.Diameter}
	vals := make([]float64, runs)
	for run := range runs {
		if err := ctx.Err(); err != nil {
			return row, err
		}
		fm, err := feature.New(k, r, dom.Dim, m, approx.RunSeed(seed, label, m, run))
		if err != nil {
			return row, err
		}
		b := budget
		b.Seed = approx.RunSeed(seed, label+"/search", m, run)
		sup, err := approx.SupError(fm, dom, p, q, b)
		if err != nil {
			return row, fmt.Errorf("%s, m=%d: %w", label, m, err)
		}
		vals[run] = sup.Value
		row.Points, row.Candidates = fm.Points(), sup.Search.Candidates
		if progress != nil {
			progress()
		}
	}
	row.Stat = statOf(vals)
	return row, nil
}

// Run executes the study, d by d and m by m. It stops early, returning ctx.Err(), when ctx is cancelled.
func (s RatesSup) Run(ctx context.Context) ([]SupRow, error) {
	s, err := s.WithDefaults()
	if err != nil {
		return nil, err
	}
	k := kernel.Gaussian{S: s.Sigma}
	var rows []SupRow
	for _, d := range s.Dims {
		dom := approx.Domain{Shape: approx.Cube, Dim: d, Diameter: s.Diameter}
		sm, err := bound.SecondMoment("gaussian", d, s.Sigma)
		if err != nil {
			return nil, err
		}
		for _, m := range s.Ms {
			row, err := supPoint(ctx, fmt.Sprintf("rates-sup/d=%d", d), s.Seed, k, s.Rule, dom, m, s.Runs, nil, nil,
				s.Search, s.Progress)
			if err != nil {
				return nil, err
			}
			t1 := bound.SSLinf{Dim: d, Diameter: s.Diameter, SecondMoment: sm}
			if row.Bound, err = t1.Error(row.Points, s.Delta); err != nil {
				return nil, err
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
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

// Summarize fits, for each d, the log–log slope of the mean sup error against m (theory −0.5 ± 0.1) and states
// how far the Theorem 1 bound lies above the measurements.
func (s RatesSup) Summarize(rows []SupRow) (Summary, error) {
	s, err := s.WithDefaults()
	if err != nil {
		return Summary{}, err
	}
	if len(rows) == 0 {
		return Summary{}, errors.New("experiment: rates-sup: no rows")
	}
	order, idx := groupBy(rows, func(r SupRow) string { return fmt.Sprintf("d=%d", r.Dim) })
	var out Summary
	var means, bounds []float64
	for _, key := range order {
		var x, y []float64
		for _, i := range idx[key] {
			x = append(x, float64(rows[i].Points))
			y = append(y, rows[i].Mean)
			means = append(means, rows[i].Mean)
			bounds = append(bounds, rows[i].Bound)
		}
		f, err := rateFit(key, "log mean sup error = a + b·log m", x, y, RateSlope, RateTolerance)
		if err != nil {
			return Summary{}, err
		}
		out.Fits = append(out.Fits, f)
	}
	lo, hi := ratioRange(bounds, means)
	out.Finding = fmt.Sprintf("Theorem 1 predicts sup error = O(m^−1/2) on a fixed S; measured log–log slope of "+
		"the mean sup error vs m (Gaussian σ=%g, cube |S|=%g, m=%d…%d, %d runs): %s. The Theorem 1 bound "+
		"(δ=%g) lies %.0f–%.0f× above the mean.", s.Sigma, s.Diameter, rows[0].M, rows[len(rows)-1].M, rows[0].Runs,
		slopesText(out.Fits), s.Delta, lo, hi)
	return out, nil
}

// Write draws the mean sup error against m (log–log, one line per d with its 95% interval) and the Theorem 1
// bound above it as dir/rates-sup.png, with the data as rates-sup.csv beside it, and returns the PNG's path.
func (s RatesSup) Write(dir string, rows []SupRow) ([]string, error) {
	s, err := s.WithDefaults()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errors.New("experiment: rates-sup: no rows to plot")
	}
	fig := plotting.Figure{
		Title: fmt.Sprintf("Sriperumbudur–Szabó Thm 1: sup error on S×S vs m\nGaussian σ=%g, cube |S|=%g; "+
			"measured mean ± 95%% CI (%d runs), bound at δ=%g", s.Sigma, s.Diameter, rows[0].Runs, s.Delta),
		XLabel: "m (points; 2m cos/sin features)", YLabel: "uniform error on S×S",
		LogX: true, LogY: true, Width: 8, Height: 5.5,
	}
	order, idx := groupBy(rows, func(r SupRow) string { return fmt.Sprintf("d=%d", r.Dim) })
	for _, key := range order {
		meas := plotting.Series{Name: key + " measured sup error"}
		bnd := plotting.Series{Name: fmt.Sprintf("%s Theorem 1 bound (δ=%g)", key, s.Delta)}
		for _, i := range idx[key] {
			r := rows[i]
			meas.X, meas.Y = append(meas.X, float64(r.Points)), append(meas.Y, r.Mean)
			meas.Lo, meas.Hi = append(meas.Lo, r.CI95[0]), append(meas.Hi, r.CI95[1])
			bnd.X, bnd.Y = append(bnd.X, float64(r.Points)), append(bnd.Y, r.Bound)
		}
		fig.Series = append(fig.Series, meas, bnd)
	}
	p := filepath.Join(dir, "rates-sup.png")
	if err := plotting.SaveWithCSV(p, fig); err != nil {
		return nil, err
	}
	return []string{p}, nil
}

// ---------------------------------------------------------------------------------------------------------------
// rates-diameter

// RatesDiameter reproduces the dependence on the diameter of S in Theorem 1 of Sriperumbudur & Szabó (NeurIPS
// 2015): at a fixed number of points m, the uniform error of the Gaussian random Fourier features on S grows only
// like √(log|S|) (the theorem's h(d,|S|,σ) grows like √(log(2|S|+1))), where the O_p(|S|·√(log m/m)) rate of
// Rahimi & Recht quoted on the poster grows linearly in |S|. The diameter grows exponentially (|S| = 2⁰ … 2¹⁰ by
// default); for each, Runs maps are measured with approx.SupError, with a random-search budget that grows with the
// volume of S − S (Density candidates per σ^d, at least Search.Candidates, at most MaxCandidates), since the
// number of local maxima of the error grows like the volume.
//
// Each row carries the Theorem 1 radius and, as a reference slope (not a bound), Linear: a quantity proportional
// to |S| that equals the measured mean at the smallest diameter — how the error would grow under the old
// linear-in-|S| rate. (Rahimi & Recht's Claim 1 itself, bound.RahimiRecht, depends on |S| only through a log at
// fixed m; the linear growth is that of its O_p statement for a given ε.) [RatesDiameter.Summarize] fits the mean
// error against √(ln|S|) and, for contrast, against |S|.
type RatesDiameter struct {
	// Dim is the input dimension d (default 1: the search budget needed grows like |S|^d).
	Dim int `json:"d"`
	// M is the number of points m (default 1024).
	M int `json:"m"`
	// Diameters are the |S| (default 2⁰, 2¹, …, 2¹⁰); S is the cube of that Euclidean diameter.
	Diameters []float64 `json:"diameters"`
	// Sigma is the Gaussian bandwidth (default 1).
	Sigma float64 `json:"sigma"`
	// Rule draws the points (default rule.G).
	Rule rule.Rule `json:"-"`
	// Runs is the number of independent maps per diameter (default 20).
	Runs int `json:"runs"`
	// Seed fixes every map and search.
	Seed uint64 `json:"seed"`
	// Delta is the failure probability of the drawn Theorem 1 bound (default 0.05).
	Delta float64 `json:"delta"`
	// Search is the base budget of approx.SupError (zero fields: approx's defaults); Candidates is a floor.
	Search approx.Search `json:"search"`
	// Density is the number of random candidates per unit volume σ^d of S − S (default 32).
	Density float64 `json:"density"`
	// MaxCandidates caps the candidates of one search (default 2²⁰).
	MaxCandidates int `json:"max_candidates"`
	// Progress, when set, is called after each measured map.
	Progress func() `json:"-"`
}

// WithDefaults returns s with every zero field set to its default, or an error for settings that cannot run.
func (s RatesDiameter) WithDefaults() (RatesDiameter, error) {
	if s.Dim == 0 {
		s.Dim = 1
	}
	if s.M == 0 {
		s.M = 1024
	}
	if len(s.Diameters) == 0 {
		for k := 0; k <= 10; k++ {
			s.Diameters = append(s.Diameters, math.Ldexp(1, k))
		}
	}
	if s.Sigma == 0 {
		s.Sigma = 1
	}
	if s.Rule == nil {
		s.Rule = rule.G{}
	}
	if s.Runs == 0 {
		s.Runs = 20
	}
	if s.Delta == 0 {
		s.Delta = 0.05
	}
	if s.Search.Candidates == 0 {
		s.Search.Candidates = 4096
	}
	if s.Density == 0 {
		s.Density = 32
	}
	if s.MaxCandidates == 0 {
		s.MaxCandidates = 1 << 20
	}
	if s.Dim < 1 {
		return s, fmt.Errorf("experiment: dimension must be at least 1, got %d", s.Dim)
	}
	for _, v := range s.Diameters {
		if err := checkRates([]int{s.M}, s.Sigma, v, s.Runs, s.Delta); err != nil {
			return s, err
		}
	}
	if !(s.Density >= 0) || math.IsInf(s.Density, 0) || s.MaxCandidates < 1 {
		return s, fmt.Errorf("experiment: bad search density %v or cap %d", s.Density, s.MaxCandidates)
	}
	return s, checkSearch(s.Search)
}

// Steps is the number of maps Run measures; 0 for invalid settings.
func (s RatesDiameter) Steps() int {
	s, err := s.WithDefaults()
	if err != nil {
		return 0
	}
	return len(s.Diameters) * s.Runs
}

// candidates is the random-search budget for the cube of diameter diam: Density per σ^d of S − S, within
// [Search.Candidates, MaxCandidates].
func (s RatesDiameter) candidates(diam float64) int {
	side := 2 * diam / math.Sqrt(float64(s.Dim)) / s.Sigma // side of S − S in units of σ
	c := s.Density * math.Pow(side, float64(s.Dim))
	if c > float64(s.MaxCandidates) {
		return s.MaxCandidates
	}
	return max(s.Search.Candidates, int(math.Ceil(c)))
}

// DiameterRow is one point of [RatesDiameter].
type DiameterRow struct {
	SupRow
	// Linear is the linear-in-|S| reference: the measured mean at the smallest diameter times |S|/|S|_min.
	Linear float64 `json:"linear_reference"`
}

// Run executes the study, diameter by diameter. It stops early, returning ctx.Err(), when ctx is cancelled.
func (s RatesDiameter) Run(ctx context.Context) ([]DiameterRow, error) {
	s, err := s.WithDefaults()
	if err != nil {
		return nil, err
	}
	k := kernel.Gaussian{S: s.Sigma}
	sm, err := bound.SecondMoment("gaussian", s.Dim, s.Sigma)
	if err != nil {
		return nil, err
	}
	var rows []DiameterRow
	for _, diam := range s.Diameters {
		dom := approx.Domain{Shape: approx.Cube, Dim: s.Dim, Diameter: diam}
		b := s.Search
		b.Candidates = s.candidates(diam)
		row, err := supPoint(ctx, fmt.Sprintf("rates-diameter/d=%d/S=%g", s.Dim, diam), s.Seed, k, s.Rule, dom, s.M,
			s.Runs, nil, nil, b, s.Progress)
		if err != nil {
			return nil, err
		}
		if row.Bound, err = (bound.SSLinf{Dim: s.Dim, Diameter: diam, SecondMoment: sm}).Error(row.Points, s.Delta); err != nil {
			return nil, err
		}
		rows = append(rows, DiameterRow{SupRow: row})
	}
	i0 := 0
	for i, r := range rows {
		if r.Diameter < rows[i0].Diameter {
			i0 = i
		}
	}
	for i := range rows {
		rows[i].Linear = rows[i0].Mean * rows[i].Diameter / rows[i0].Diameter
	}
	return rows, nil
}

// Summarize fits the mean sup error against √(ln|S|) (diameters ≥ 1; Theorem 1's growth), against |S| (the old
// linear growth) and on log–log axes, and compares the growth of the error with that of |S|.
func (s RatesDiameter) Summarize(rows []DiameterRow) (Summary, error) {
	s, err := s.WithDefaults()
	if err != nil {
		return Summary{}, err
	}
	if len(rows) < 2 {
		return Summary{}, errors.New("experiment: rates-diameter: need at least 2 rows")
	}
	rs := append([]DiameterRow(nil), rows...)
	sort.Slice(rs, func(a, b int) bool { return rs[a].Diameter < rs[b].Diameter })
	var sx, sy, lx, ly, all []float64
	for _, r := range rs {
		lx, ly = append(lx, r.Diameter), append(ly, r.Mean)
		all = append(all, r.Diameter)
		if r.Diameter >= 1 {
			sx, sy = append(sx, math.Sqrt(math.Log(r.Diameter))), append(sy, r.Mean)
		}
	}
	var out Summary
	if len(sx) >= 2 {
		f, err := FitLine(sx, sy)
		if err != nil {
			return Summary{}, err
		}
		out.Fits = append(out.Fits, SeriesFit{Series: "√log", Model: "mean = a + b·√(ln|S|), |S| ≥ 1", Fit: f})
	}
	fl, err := FitLine(lx, ly)
	if err != nil {
		return Summary{}, err
	}
	out.Fits = append(out.Fits, SeriesFit{Series: "linear", Model: "mean = a + b·|S|", Fit: fl})
	fll, err := FitLogLog(lx, ly)
	if err != nil {
		return Summary{}, err
	}
	out.Fits = append(out.Fits, SeriesFit{Series: "log-log", Model: "log mean = a + b·log|S|", Fit: fll})
	first, last := rs[0], rs[len(rs)-1]
	text := fmt.Sprintf("Theorem 1 predicts growth like √(log|S|) at fixed m; measured (d=%d, m=%d, Gaussian σ=%g, "+
		"%d runs): the mean sup error grows from %.3g at |S|=%g to %.3g at |S|=%g (×%.2f) while |S| grows ×%g "+
		"(the old linear-in-|S| rate).", s.Dim, first.M, s.Sigma, first.Runs, first.Mean, first.Diameter,
		last.Mean, last.Diameter, last.Mean/first.Mean, last.Diameter/first.Diameter)
	if len(sx) >= 2 {
		f := out.Fits[0]
		text += fmt.Sprintf(" Fit mean = %.3g + %.3g·√(ln|S|): R² = %.3f; against |S| instead: R² = %.3f;",
			f.Intercept, f.Slope, f.R2, fl.R2)
	}
	text += fmt.Sprintf(" log–log slope %s (the linear rate: 1). Theorem 1 bound (δ=%g) grows ×%.2f.",
		signed(fll.Slope, fll.SlopeSE), s.Delta, last.Bound/first.Bound)
	out.Finding = text
	return out, nil
}

// Write draws the mean sup error against |S| (log–log) with the Theorem 1 bound and the linear-in-|S| reference
// as dir/rates-diameter.png, with rates-diameter.csv beside it, and returns the PNG's path.
func (s RatesDiameter) Write(dir string, rows []DiameterRow) ([]string, error) {
	s, err := s.WithDefaults()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errors.New("experiment: rates-diameter: no rows to plot")
	}
	m := rows[0].Points
	fig := plotting.Figure{
		Title: fmt.Sprintf("Sriperumbudur–Szabó Thm 1: sup error vs diameter |S| at m=%d\nGaussian σ=%g, d=%d; "+
			"measured mean ± 95%% CI (%d runs), bound at δ=%g", m, s.Sigma, s.Dim, rows[0].Runs, s.Delta),
		XLabel: "|S| (diameter of the cube S)", YLabel: "uniform error on S×S",
		LogX: true, LogY: true, Width: 8, Height: 5.5,
	}
	meas := plotting.Series{Name: "measured sup error"}
	bnd := plotting.Series{Name: fmt.Sprintf("Theorem 1 bound (δ=%g), grows like √log|S|", s.Delta)}
	lin := plotting.Series{Name: "old rate, linear in |S| (anchored at the smallest |S|)"}
	for _, r := range rows {
		meas.X, meas.Y = append(meas.X, r.Diameter), append(meas.Y, r.Mean)
		meas.Lo, meas.Hi = append(meas.Lo, r.CI95[0]), append(meas.Hi, r.CI95[1])
		bnd.X, bnd.Y = append(bnd.X, r.Diameter), append(bnd.Y, r.Bound)
		lin.X, lin.Y = append(lin.X, r.Diameter), append(lin.Y, r.Linear)
	}
	fig.Series = []plotting.Series{meas, bnd, lin}
	p := filepath.Join(dir, "rates-diameter.png")
	if err := plotting.SaveWithCSV(p, fig); err != nil {
		return nil, err
	}
	return []string{p}, nil
}

// ---------------------------------------------------------------------------------------------------------------
// rates-lr

// RatesLr reproduces Theorem 2 of Sriperumbudur & Szabó (NeurIPS 2015): the L^r(S×S) error of m random Fourier
// features of the Gaussian kernel, 1 ≤ r < ∞, is below (π^{d/2}|S|^d/(2^dΓ(d/2+1)))^{2/r}·(h(d,|S|,σ) +
// √(2 log(1/δ)))/√m with probability 1 − δ, hence falls as m^{−1/2}. For each m, Runs maps are drawn; the L^r error
// of each map (for every r in Rs, on the same Monte Carlo sample of Samples pairs) is estimated with
// approx.LrError (unnormalized Lebesgue measure on S × S, as in the theorem). [RatesLr.Summarize] fits the
// log–log slope of the mean against m for each r (theory −0.5 ± 0.1).
type RatesLr struct {
	// Dim is the input dimension d (default 1).
	Dim int `json:"d"`
	// Ms are the numbers of points m (default 2⁴ … 2¹⁴).
	Ms []int `json:"m"`
	// Rs are the exponents r (default 1, 2, 4).
	Rs []float64 `json:"r"`
	// Sigma is the Gaussian bandwidth (default 1).
	Sigma float64 `json:"sigma"`
	// Diameter is |S| of the cube S (default 4).
	Diameter float64 `json:"diameter"`
	// Rule draws the points (default rule.G).
	Rule rule.Rule `json:"-"`
	// Runs is the number of independent maps per m (default 20).
	Runs int `json:"runs"`
	// Seed fixes every map and Monte Carlo sample.
	Seed uint64 `json:"seed"`
	// Delta is the failure probability of the drawn Theorem 2 bound (default 0.05).
	Delta float64 `json:"delta"`
	// Samples is the number of Monte Carlo pairs per estimate (default 4096).
	Samples int `json:"samples"`
	// Progress, when set, is called after each measured map.
	Progress func() `json:"-"`
}

// WithDefaults returns s with every zero field set to its default, or an error for settings that cannot run.
func (s RatesLr) WithDefaults() (RatesLr, error) {
	if s.Dim == 0 {
		s.Dim = 1
	}
	if len(s.Ms) == 0 {
		s.Ms = powersOfTwo(4, 14)
	}
	if len(s.Rs) == 0 {
		s.Rs = []float64{1, 2, 4}
	}
	if s.Sigma == 0 {
		s.Sigma = 1
	}
	if s.Diameter == 0 {
		s.Diameter = 4
	}
	if s.Rule == nil {
		s.Rule = rule.G{}
	}
	if s.Runs == 0 {
		s.Runs = 20
	}
	if s.Delta == 0 {
		s.Delta = 0.05
	}
	if s.Samples == 0 {
		s.Samples = 4096
	}
	if s.Dim < 1 {
		return s, fmt.Errorf("experiment: dimension must be at least 1, got %d", s.Dim)
	}
	for _, r := range s.Rs {
		if !(r >= 1) || math.IsInf(r, 0) {
			return s, fmt.Errorf("experiment: L^r needs 1 ≤ r < ∞, got %v", r)
		}
	}
	if s.Samples < 2 {
		return s, fmt.Errorf("experiment: need at least 2 Monte Carlo samples, got %d", s.Samples)
	}
	return s, checkRates(s.Ms, s.Sigma, s.Diameter, s.Runs, s.Delta)
}

// Steps is the number of maps Run measures; 0 for invalid settings.
func (s RatesLr) Steps() int {
	s, err := s.WithDefaults()
	if err != nil {
		return 0
	}
	return len(s.Ms) * s.Runs
}

// LrRow is one point of [RatesLr].
type LrRow struct {
	Dim      int     `json:"d"`
	M        int     `json:"m"`
	Points   int     `json:"points"`
	R        float64 `json:"r"`
	Diameter float64 `json:"diameter"`
	Stat
	// MCSE is the root mean square of the Monte Carlo standard errors of the runs' estimates.
	MCSE float64 `json:"mc_se"`
	// Bound is the Theorem 2 radius at the study's δ.
	Bound float64 `json:"bound"`
}

// Run executes the study. It stops early, returning ctx.Err(), when ctx is cancelled.
func (s RatesLr) Run(ctx context.Context) ([]LrRow, error) {
	s, err := s.WithDefaults()
	if err != nil {
		return nil, err
	}
	k := kernel.Gaussian{S: s.Sigma}
	dom := approx.Domain{Shape: approx.Cube, Dim: s.Dim, Diameter: s.Diameter}
	sm, err := bound.SecondMoment("gaussian", s.Dim, s.Sigma)
	if err != nil {
		return nil, err
	}
	label := fmt.Sprintf("rates-lr/d=%d", s.Dim)
	var rows []LrRow
	for _, m := range s.Ms {
		vals := make([][]float64, len(s.Rs))
		mcse := make([]float64, len(s.Rs))
		points := m
		for run := range s.Runs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			fm, err := feature.New(k, s.Rule, s.Dim, m, approx.RunSeed(s.Seed, label, m, run))
			if err != nil {
				return nil, err
			}
			points = fm.Points()
			mc := approx.MonteCarlo{Samples: s.Samples, Seed: approx.RunSeed(s.Seed, label+"/mc", m, run)}
			for i, r := range s.Rs {
				lr, err := approx.LrError(fm, dom, nil, nil, r, mc)
				if err != nil {
					return nil, fmt.Errorf("%s, m=%d, r=%g: %w", label, m, r, err)
				}
				vals[i] = append(vals[i], lr.Value)
				mcse[i] += lr.SE * lr.SE
			}
			if s.Progress != nil {
				s.Progress()
			}
		}
		for i, r := range s.Rs {
			b, err := bound.SSLr{Dim: s.Dim, Diameter: s.Diameter, SecondMoment: sm, R: r}.Error(points, s.Delta)
			if err != nil {
				return nil, err
			}
			rows = append(rows, LrRow{Dim: s.Dim, M: m, Points: points, R: r, Diameter: s.Diameter,
				Stat: statOf(vals[i]), MCSE: math.Sqrt(mcse[i] / float64(s.Runs)), Bound: b})
		}
	}
	return rows, nil
}

// Summarize fits, for each r, the log–log slope of the mean L^r error against m (theory −0.5 ± 0.1).
func (s RatesLr) Summarize(rows []LrRow) (Summary, error) {
	s, err := s.WithDefaults()
	if err != nil {
		return Summary{}, err
	}
	if len(rows) == 0 {
		return Summary{}, errors.New("experiment: rates-lr: no rows")
	}
	order, idx := groupBy(rows, func(r LrRow) string { return fmt.Sprintf("r=%g", r.R) })
	var out Summary
	var means, bounds []float64
	for _, key := range order {
		var x, y []float64
		for _, i := range idx[key] {
			x, y = append(x, float64(rows[i].Points)), append(y, rows[i].Mean)
			means, bounds = append(means, rows[i].Mean), append(bounds, rows[i].Bound)
		}
		f, err := rateFit(key, "log mean L^r error = a + b·log m", x, y, RateSlope, RateTolerance)
		if err != nil {
			return Summary{}, err
		}
		out.Fits = append(out.Fits, f)
	}
	lo, hi := ratioRange(bounds, means)
	out.Finding = fmt.Sprintf("Theorem 2 predicts L^r error = O(m^−1/2); measured log–log slope of the mean L^r "+
		"error vs m (Gaussian σ=%g, d=%d, cube |S|=%g, %d Monte Carlo pairs, %d runs): %s. The Theorem 2 bound "+
		"(δ=%g) lies %.0f–%.0f× above the mean.", s.Sigma, s.Dim, s.Diameter, s.Samples, rows[0].Runs,
		slopesText(out.Fits), s.Delta, lo, hi)
	return out, nil
}

// Write draws the mean L^r error against m (log–log, one line per r) with the Theorem 2 bounds as
// dir/rates-lr.png, with rates-lr.csv beside it, and returns the PNG's path.
func (s RatesLr) Write(dir string, rows []LrRow) ([]string, error) {
	s, err := s.WithDefaults()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errors.New("experiment: rates-lr: no rows to plot")
	}
	fig := plotting.Figure{
		Title: fmt.Sprintf("Sriperumbudur–Szabó Thm 2: L^r(S×S) error vs m\nGaussian σ=%g, d=%d, cube |S|=%g; "+
			"measured mean ± 95%% CI (%d runs), bound at δ=%g", s.Sigma, s.Dim, s.Diameter, rows[0].Runs, s.Delta),
		XLabel: "m (points; 2m cos/sin features)", YLabel: "L^r(S×S) error",
		LogX: true, LogY: true, Width: 8, Height: 5.5,
	}
	order, idx := groupBy(rows, func(r LrRow) string { return fmt.Sprintf("r=%g", r.R) })
	for _, key := range order {
		meas := plotting.Series{Name: key + " measured L^r error"}
		bnd := plotting.Series{Name: fmt.Sprintf("%s Theorem 2 bound (δ=%g)", key, s.Delta)}
		for _, i := range idx[key] {
			r := rows[i]
			meas.X, meas.Y = append(meas.X, float64(r.Points)), append(meas.Y, r.Mean)
			meas.Lo, meas.Hi = append(meas.Lo, r.CI95[0]), append(meas.Hi, r.CI95[1])
			bnd.X, bnd.Y = append(bnd.X, float64(r.Points)), append(bnd.Y, r.Bound)
		}
		fig.Series = append(fig.Series, meas, bnd)
	}
	p := filepath.Join(dir, "rates-lr.png")
	if err := plotting.SaveWithCSV(p, fig); err != nil {
		return nil, err
	}
	return []string{p}, nil
}

// ---------------------------------------------------------------------------------------------------------------
// rates-deriv

// DerivCase is one kernel derivative ∂^{p,q}k = ∂^{|p|}/∂x^p ∂^{|q|}/∂y^q k(x,y); nil multi-indices are zero.
type DerivCase struct {
	P []int `json:"p"`
	Q []int `json:"q"`
}

// String writes the case in the notation of ParseDerivCase, e.g. "e1:e1+e2" or "2e1:0".
func (c DerivCase) String() string { return multiIndexString(c.P) + ":" + multiIndexString(c.Q) }

func multiIndexString(p []int) string {
	var parts []string
	for i, v := range p {
		switch {
		case v == 1:
			parts = append(parts, fmt.Sprintf("e%d", i+1))
		case v > 1:
			parts = append(parts, fmt.Sprintf("%de%d", v, i+1))
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "+")
}

// ParseDerivCase reads a case "p:q" for inputs of dimension d, each multi-index written as a sum of unit vectors
// with optional multiplicities, or 0: "e1:0" is ∂/∂x₁, "e1:e2" is ∂²/∂x₁∂y₂, "2e1:0" is ∂²/∂x₁², "e1+e2:e1" is
// ∂³/∂x₁∂x₂∂y₁.
func ParseDerivCase(s string, d int) (DerivCase, error) {
	ps, qs, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return DerivCase{}, fmt.Errorf("experiment: derivative case %q: want p:q, e.g. e1:0 or e1:e2", s)
	}
	p, err := parseMultiIndexSum(ps, d)
	if err != nil {
		return DerivCase{}, fmt.Errorf("experiment: derivative case %q: %w", s, err)
	}
	q, err := parseMultiIndexSum(qs, d)
	if err != nil {
		return DerivCase{}, fmt.Errorf("experiment: derivative case %q: %w", s, err)
	}
	return DerivCase{P: p, Q: q}, nil
}

func parseMultiIndexSum(s string, d int) ([]int, error) {
	out := make([]int, d)
	s = strings.TrimSpace(s)
	if s == "0" || s == "" {
		return out, nil
	}
	for _, term := range strings.Split(s, "+") {
		term = strings.TrimSpace(term)
		mult, idx, ok := strings.Cut(term, "e")
		if !ok {
			return nil, fmt.Errorf("term %q is not of the form [k]e<i>", term)
		}
		k := 1
		if mult != "" {
			if _, err := fmt.Sscanf(mult, "%d", &k); err != nil || k < 1 || fmt.Sprint(k) != mult {
				return nil, fmt.Errorf("bad multiplicity in %q", term)
			}
		}
		var i int
		if _, err := fmt.Sscanf(idx, "%d", &i); err != nil || fmt.Sprint(i) != idx {
			return nil, fmt.Errorf("bad coordinate in %q", term)
		}
		if i < 1 || i > d {
			return nil, fmt.Errorf("coordinate e%d outside 1…%d", i, d)
		}
		out[i-1] += k
	}
	return out, nil
}

func multiOrder(p []int) int {
	n := 0
	for _, v := range p {
		n += v
	}
	return n
}

// RatesDeriv reproduces the derivative part of Sriperumbudur & Szabó (NeurIPS 2015): the estimate
// ⟨∂^pψ(x), ∂^qψ(y)⟩ of ∂^{p,q}k from m random Fourier features has a uniform error on S×S that falls as m^{−1/2}
// (Theorem 4 for spectral laws of bounded support; Theorem 5, which covers the Gaussian's unbounded one, gives
// O(|S|√(log m/m)) as its guarantee). For each case (default ∂/∂x₁, ∂²/∂x₁∂y₁ and ∂²/∂x₁∂y₂, i.e.
// |p|+|q| = 1, 2, in d = 2) and each m, Runs maps are measured with approx.SupError; each row carries the
// Theorem 5 bound at Delta (bound.Compute "ss-deriv-unbounded", with Bernstein constants of the Gaussian law).
// [RatesDeriv.Summarize] fits the log–log slope of the mean error against m for each case (theory −0.5 ± 0.1).
type RatesDeriv struct {
	// Dim is the input dimension d (default 2).
	Dim int `json:"d"`
	// Cases are the derivatives (default e1:0, e1:e1, e1:e2; see [ParseDerivCase]).
	Cases []DerivCase `json:"cases"`
	// Ms are the numbers of points m (default 2⁴ … 2¹⁴).
	Ms []int `json:"m"`
	// Sigma is the Gaussian bandwidth (default 1).
	Sigma float64 `json:"sigma"`
	// Diameter is |S| of the cube S (default 4).
	Diameter float64 `json:"diameter"`
	// Rule draws the points (default rule.G).
	Rule rule.Rule `json:"-"`
	// Runs is the number of independent maps per (case, m) (default 10).
	Runs int `json:"runs"`
	// Seed fixes every map and search.
	Seed uint64 `json:"seed"`
	// Delta is the failure probability of the drawn Theorem 5 bound (default 0.05).
	Delta float64 `json:"delta"`
	// Search is the budget of approx.SupError (zero fields: approx's defaults).
	Search approx.Search `json:"search"`
	// Progress, when set, is called after each measured map.
	Progress func() `json:"-"`
}

// WithDefaults returns s with every zero field set to its default, or an error for settings that cannot run.
func (s RatesDeriv) WithDefaults() (RatesDeriv, error) {
	if s.Dim == 0 {
		s.Dim = 2
	}
	if len(s.Cases) == 0 {
		for _, c := range []string{"e1:0", "e1:e1", "e1:e2"} {
			dc, err := ParseDerivCase(c, s.Dim)
			if err != nil {
				return s, fmt.Errorf("experiment: the default derivative cases need d ≥ 2: %w", err)
			}
			s.Cases = append(s.Cases, dc)
		}
	}
	if len(s.Ms) == 0 {
		s.Ms = powersOfTwo(4, 14)
	}
	if s.Sigma == 0 {
		s.Sigma = 1
	}
	if s.Diameter == 0 {
		s.Diameter = 4
	}
	if s.Rule == nil {
		s.Rule = rule.G{}
	}
	if s.Runs == 0 {
		s.Runs = 10
	}
	if s.Delta == 0 {
		s.Delta = 0.05
	}
	if s.Dim < 1 {
		return s, fmt.Errorf("experiment: dimension must be at least 1, got %d", s.Dim)
	}
	for _, c := range s.Cases {
		for _, p := range [][]int{c.P, c.Q} {
			if p == nil {
				continue
			}
			if _, err := kernel.MultiIndexOrder(p, s.Dim); err != nil {
				return s, fmt.Errorf("experiment: derivative case %v: %w", c, err)
			}
		}
	}
	if err := checkRates(s.Ms, s.Sigma, s.Diameter, s.Runs, s.Delta); err != nil {
		return s, err
	}
	return s, checkSearch(s.Search)
}

// Steps is the number of maps Run measures; 0 for invalid settings.
func (s RatesDeriv) Steps() int {
	s, err := s.WithDefaults()
	if err != nil {
		return 0
	}
	return len(s.Cases) * len(s.Ms) * s.Runs
}

// DerivRow is one point of [RatesDeriv].
type DerivRow struct {
	Case  string `json:"case"` // "p:q", see [ParseDerivCase]
	P     []int  `json:"p"`
	Q     []int  `json:"q"`
	Order int    `json:"order"` // |p| + |q|
	// SupRow holds the measurement; its Bound is the Theorem 5 error at the study's δ.
	SupRow
}

// Run executes the study, case by case and m by m. It stops early, returning ctx.Err(), when ctx is cancelled.
func (s RatesDeriv) Run(ctx context.Context) ([]DerivRow, error) {
	s, err := s.WithDefaults()
	if err != nil {
		return nil, err
	}
	k := kernel.Gaussian{S: s.Sigma}
	dom := approx.Domain{Shape: approx.Cube, Dim: s.Dim, Diameter: s.Diameter}
	var rows []DerivRow
	for _, c := range s.Cases {
		p, q := make([]int, s.Dim), make([]int, s.Dim)
		copy(p, c.P)
		copy(q, c.Q)
		name := DerivCase{P: p, Q: q}.String()
		for _, m := range s.Ms {
			row, err := supPoint(ctx, fmt.Sprintf("rates-deriv/d=%d/%s", s.Dim, name), s.Seed, k, s.Rule, dom, m,
				s.Runs, p, q, s.Search, s.Progress)
			if err != nil {
				return nil, err
			}
			g, err := bound.Compute("ss-deriv-unbounded", bound.Params{Dim: s.Dim, Diameter: s.Diameter,
				Kernel: "gaussian", Sigma: s.Sigma, M: row.Points, Delta: s.Delta, P: p, Q: q})
			if err != nil {
				return nil, fmt.Errorf("experiment: rates-deriv %s: %w", name, err)
			}
			row.Bound = g.Eps
			rows = append(rows, DerivRow{Case: name, P: p, Q: q, Order: multiOrder(p) + multiOrder(q), SupRow: row})
		}
	}
	return rows, nil
}

// Summarize fits, for each case, the log–log slope of the mean sup error against m (theory −0.5 ± 0.1).
func (s RatesDeriv) Summarize(rows []DerivRow) (Summary, error) {
	s, err := s.WithDefaults()
	if err != nil {
		return Summary{}, err
	}
	if len(rows) == 0 {
		return Summary{}, errors.New("experiment: rates-deriv: no rows")
	}
	order, idx := groupBy(rows, func(r DerivRow) string { return fmt.Sprintf("∂^{%s}, order %d", r.Case, r.Order) })
	var out Summary
	var means, bounds []float64
	for _, key := range order {
		var x, y []float64
		for _, i := range idx[key] {
			x, y = append(x, float64(rows[i].Points)), append(y, rows[i].Mean)
			means, bounds = append(means, rows[i].Mean), append(bounds, rows[i].Bound)
		}
		f, err := rateFit(key, "log mean sup error of ∂^{p,q}k̂ = a + b·log m", x, y, RateSlope, RateTolerance)
		if err != nil {
			return Summary{}, err
		}
		out.Fits = append(out.Fits, f)
	}
	lo, hi := ratioRange(bounds, means)
	out.Finding = fmt.Sprintf("The derivative estimates converge at the rate m^−1/2 (Theorems 4–5); measured "+
		"log–log slope of the mean sup error of ∂^{p,q}k̂ vs m (Gaussian σ=%g, d=%d, cube |S|=%g, %d runs): %s. "+
		"The Theorem 5 bound (δ=%g) lies %.0f–%.0f× above the mean.", s.Sigma, s.Dim, s.Diameter, rows[0].Runs,
		slopesText(out.Fits), s.Delta, lo, hi)
	return out, nil
}

// Write draws the mean sup error of each derivative estimate against m (log–log) with the Theorem 5 bounds as
// dir/rates-deriv.png, with rates-deriv.csv beside it, and returns the PNG's path.
func (s RatesDeriv) Write(dir string, rows []DerivRow) ([]string, error) {
	s, err := s.WithDefaults()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errors.New("experiment: rates-deriv: no rows to plot")
	}
	fig := plotting.Figure{
		Title: fmt.Sprintf("Sriperumbudur–Szabó Thms 4–5: sup error of the estimates of ∂^{p,q}k vs m (case p:q)\nGaussian σ=%g, d=%d, "+
			"cube |S|=%g; measured mean ± 95%% CI (%d runs), Thm 5 bound at δ=%g", s.Sigma, s.Dim, s.Diameter,
			rows[0].Runs, s.Delta),
		XLabel: "m (points; 2m cos/sin features)", YLabel: "uniform error of the derivative on S×S",
		LogX: true, LogY: true, Width: 8, Height: 5.5,
	}
	order, idx := groupBy(rows, func(r DerivRow) string { return r.Case })
	for _, key := range order {
		meas := plotting.Series{Name: key + " measured"}
		bnd := plotting.Series{Name: fmt.Sprintf("%s Theorem 5 bound (δ=%g)", key, s.Delta)}
		for _, i := range idx[key] {
			r := rows[i]
			meas.X, meas.Y = append(meas.X, float64(r.Points)), append(meas.Y, r.Mean)
			meas.Lo, meas.Hi = append(meas.Lo, r.CI95[0]), append(meas.Hi, r.CI95[1])
			bnd.X, bnd.Y = append(bnd.X, float64(r.Points)), append(bnd.Y, r.Bound)
		}
		fig.Series = append(fig.Series, meas, bnd)
	}
	p := filepath.Join(dir, "rates-deriv.png")
	if err := plotting.SaveWithCSV(p, fig); err != nil {
		return nil, err
	}
	return []string{p}, nil
}
