package study

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/bound"
	"github.com/rffkit/rff/internal/plotting"
	"github.com/rffkit/rff/kernel"
)

// RatesDiameter reproduces the dependence on the diameter of S in Theorem 1 of Sriperumbudur & Szabó (NeurIPS
// 2015): at a fixed number of points m, the uniform error of the Gaussian random Fourier features on S grows only
// like √(log|S|) (the theorem's h(d,|S|,σ) grows like √(log(2|S|+1))), where the O_p(|S|·√(log m/m)) rate of
// Rahimi & Recht grows linearly in |S|. The diameter grows exponentially (|S| = 2⁰ … 2¹⁰ by default); for each,
// Runs maps are measured with approx.SupError, with a random-search budget that grows with the volume of S − S
// (Density candidates per σ^d, at least Search.Candidates, at most MaxCandidates), since the number of local maxima
// of the error grows like the volume.
//
// Each row carries the Theorem 1 radius and, as a reference slope (not a bound), Linear: a quantity proportional
// to |S| that equals the measured mean at the smallest diameter — how the error would grow under the old
// linear-in-|S| rate. (Rahimi & Recht's Claim 1 itself, bound.RahimiRecht, depends on |S| only through a log at
// fixed m; the linear growth is that of its O_p statement for a given ε.) The summary fits the mean error against
// √(ln|S|) and, for contrast, against |S|.
type RatesDiameter struct {
	// Dim is the input dimension d (the search budget needed grows like |S|^d).
	Dim int `json:"d" flag:"d" help:"input dimension d (the search budget needed grows like |S|^d)"`
	// M is the number of points m.
	M int `json:"m" flag:"m" help:"number of points m (frequencies); cos/sin maps have 2m columns"`
	// Diameters are the |S|; S is the cube of that Euclidean diameter.
	Diameters []float64 `json:"diameters" flag:"diameters" help:"comma list of diameters |S| of the cube S"`
	// Sigma is the Gaussian bandwidth.
	Sigma float64 `json:"sigma" flag:"sigma" help:"Gaussian bandwidth σ"`
	// Delta is the failure probability of the drawn Theorem 1 bound.
	Delta float64 `json:"delta" flag:"delta" help:"failure probability δ of the drawn Theorem 1 bound"`
	// Search is the base budget of approx.SupError; Candidates is a floor.
	Search Search `json:"search"`
	// Density is the number of random candidates per unit volume σ^d of S − S.
	Density float64 `json:"density" flag:"density" help:"random candidates per unit volume σ^d of S − S"`
	// MaxCandidates caps the candidates of one search.
	MaxCandidates int `json:"max_candidates" flag:"max-candidates" help:"cap on the random candidates of one search"`
	Draws
	Progress
}

// NewRatesDiameter returns the study with its defaults: d = 1, m = 1024, |S| = 2⁰ … 2¹⁰, σ = 1, δ = 0.05, at
// least 4096 and at most 2²⁰ candidates, 32 per unit volume, 20 runs of the rule g.
func NewRatesDiameter() *RatesDiameter {
	s := &RatesDiameter{Dim: 1, M: 1024, Sigma: 1, Delta: 0.05, Search: defaultSearch(), Density: 32,
		MaxCandidates: 1 << 20, Draws: defaultDraws(20)}
	for k := 0; k <= 10; k++ {
		s.Diameters = append(s.Diameters, math.Ldexp(1, k))
	}
	return s
}

// Validate checks the settings.
func (s *RatesDiameter) Validate() error {
	if s.Dim < 1 || s.M < 1 {
		return fmt.Errorf("d and m must be at least 1, got %d and %d", s.Dim, s.M)
	}
	if !(s.Density > 0) || math.IsInf(s.Density, 0) || s.MaxCandidates < 1 {
		return fmt.Errorf("the search density must be positive and finite and the cap at least 1, got %v and %d",
			s.Density, s.MaxCandidates)
	}
	errs := []error{checkPositive("diameter |S|", s.Diameters...), s.Search.check(), s.Draws.check(),
		checkPoints("--m × --d", s.M, s.Dim), checkWork("--diameters × --runs", len(s.Diameters), s.Runs)}
	for _, v := range s.Diameters {
		errs = append(errs, checkRates(s.Sigma, v, s.Delta))
	}
	if err := firstError(errs...); err != nil {
		return err
	}
	for _, v := range s.Diameters {
		if err := checkArray("--candidates, --max-candidates × --d (the candidates of a search)", s.candidates(v),
			s.Dim); err != nil {
			return err
		}
	}
	return nil
}

// Memory is the map and the largest search over the diameters (supBytes) and the results of the runs.
func (s *RatesDiameter) Memory() float64 {
	r := s.parseRule()
	var peak float64
	for _, v := range s.Diameters {
		peak = largest(peak, supBytes(r, s.Dim, s.M, s.candidates(v)))
	}
	return peak + floats(float64(s.Runs))
}

// MemoryFlags names the flags that lower Memory.
func (s *RatesDiameter) MemoryFlags() string { return "--m, --d, --max-candidates, --density, --runs" }

// Steps is the number of maps Run measures; 0 for invalid settings.
func (s *RatesDiameter) Steps() int { return steps(s, len(s.Diameters)*s.Runs) }

// candidates is the random-search budget for the cube of diameter diam: Density per σ^d of S − S, within
// [Search.Candidates, MaxCandidates].
func (s *RatesDiameter) candidates(diam float64) int {
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

// Run measures every diameter.
func (s *RatesDiameter) Run(ctx context.Context) (Result, error) {
	return run(ctx, s, plan[DiameterRow]{s, s.Rule, s.measure, s.summarize, s.write, diameterTable})
}

var diameterTable = table[DiameterRow]{
	columns: "|S|\tmean sup error\t±95%\tTheorem 1 bound\tlinear-in-|S| reference\tcandidates",
	format:  "%g\t%.4g\t%.2g\t%.4g\t%.4g\t%d",
	row: func(r DiameterRow) []any {
		return []any{r.Diameter, r.Mean, r.CI95[1] - r.Mean, r.Bound, r.Linear, r.Candidates}
	}}

func (s *RatesDiameter) measure(ctx context.Context) ([]DiameterRow, error) {
	r := s.parseRule()
	k := kernel.Gaussian{S: s.Sigma}
	sm, err := bound.SecondMoment("gaussian", s.Dim, s.Sigma)
	if err != nil {
		return nil, err
	}
	var rows []DiameterRow
	for _, diam := range s.Diameters {
		dom := approx.Domain{Shape: approx.Cube, Dim: s.Dim, Diameter: diam}
		row, err := supPoint(ctx, fmt.Sprintf("rates-diameter/d=%d/S=%g", s.Dim, diam), s.Seed, k, r, dom, s.M,
			s.Runs, nil, nil, s.Search.budget(s.candidates(diam)), s.Progress)
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

// summarize fits the mean sup error against √(ln|S|) (diameters ≥ 1; Theorem 1's growth), against |S| (the old
// linear growth) and on log–log axes, and compares the growth of the error with that of |S|.
func (s *RatesDiameter) summarize(rows []DiameterRow) (Summary, error) {
	if len(rows) < 2 {
		return Summary{}, fmt.Errorf("rates-diameter: need at least 2 rows")
	}
	rs := append([]DiameterRow(nil), rows...)
	sort.Slice(rs, func(a, b int) bool { return rs[a].Diameter < rs[b].Diameter })
	var sx, sy, lx, ly []float64
	for _, r := range rs {
		lx, ly = append(lx, r.Diameter), append(ly, r.Mean)
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

// write draws the mean sup error against |S| (log–log) with the Theorem 1 bound and the linear-in-|S| reference
// as dir/rates-diameter.png, with rates-diameter.csv beside it.
func (s *RatesDiameter) write(dir string, rows []DiameterRow) ([]string, error) {
	fig := logLog(fmt.Sprintf("Sriperumbudur–Szabó Thm 1: sup error vs diameter |S| at m=%d\nGaussian σ=%g, d=%d; "+
		"measured mean ± 95%% CI (%d runs), bound at δ=%g", rows[0].Points, s.Sigma, s.Dim, rows[0].Runs, s.Delta),
		"|S| (diameter of the cube S)", "uniform error on S×S")
	meas := plotting.Series{Name: "measured sup error"}
	bnd := plotting.Series{Name: fmt.Sprintf("Theorem 1 bound (δ=%g), grows like √log|S|", s.Delta)}
	lin := plotting.Series{Name: "old rate, linear in |S| (anchored at the smallest |S|)"}
	for _, r := range rows {
		measured(&meas, r.Diameter, r.Stat)
		line(&bnd, r.Diameter, r.Bound)
		line(&lin, r.Diameter, r.Linear)
	}
	fig.Series = []plotting.Series{meas, bnd, lin}
	return saveFigures(dir, figure{"rates-diameter.png", fig})
}
