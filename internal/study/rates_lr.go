package study

import (
	"context"
	"fmt"
	"math"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/bound"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
)

// RatesLr reproduces Theorem 2 of Sriperumbudur & Szabó (NeurIPS 2015): the L^r(S×S) error of m random Fourier
// features of the Gaussian kernel, 1 ≤ r < ∞, is below (π^{d/2}|S|^d/(2^dΓ(d/2+1)))^{2/r}·(h(d,|S|,σ) +
// √(2 log(1/δ)))/√m with probability 1 − δ, hence falls as m^{−1/2}. For each m, Runs maps are drawn; the L^r error
// of each map (for every r in Rs, on the same Monte Carlo sample of Samples pairs) is estimated with
// approx.LrError (unnormalized Lebesgue measure on S × S, as in the theorem). The summary fits the log–log slope
// of the mean against m for each r (theory −0.5 ± 0.1).
type RatesLr struct {
	// Dim is the input dimension d.
	Dim int `json:"d" flag:"d" help:"input dimension d"`
	// Ms are the numbers of points m.
	Ms []int `json:"m" flag:"m" help:"comma list of m, the number of points (frequencies); cos/sin maps have 2m columns"`
	// Rs are the exponents r.
	Rs []float64 `json:"r" flag:"r" help:"comma list of exponents r ≥ 1 of the L^r(S×S) norms"`
	Cube
	// Samples is the number of Monte Carlo pairs per estimate.
	Samples int `json:"samples" flag:"samples" help:"Monte Carlo pairs (x, y) per L^r estimate"`
	Draws
	Progress
}

// NewRatesLr returns the study with its defaults: d = 1, m = 2⁴ … 2¹⁴, r = 1, 2, 4, σ = 1, |S| = 4, δ = 0.05, 4096
// Monte Carlo pairs, 20 runs of the rule g.
func NewRatesLr() *RatesLr {
	return &RatesLr{Dim: 1, Ms: powersOfTwo(4, 14), Rs: []float64{1, 2, 4}, Cube: defaultCube(), Samples: 4096,
		Draws: defaultDraws(20)}
}

// Validate checks the settings.
func (s *RatesLr) Validate() error {
	if s.Dim < 1 || s.Samples < 2 {
		return fmt.Errorf("d must be at least 1 and the Monte Carlo samples at least 2, got %d and %d", s.Dim, s.Samples)
	}
	for _, r := range s.Rs {
		if !(r >= 1) || math.IsInf(r, 0) {
			return fmt.Errorf("L^r needs 1 ≤ r < ∞, got %v", r)
		}
	}
	errs := []error{checkPositiveInts("m", s.Ms), checkPositive("exponent r", s.Rs...), s.Cube.check(),
		s.Draws.check(), checkArray("--samples × --d (the Monte Carlo pairs)", s.Samples, s.Dim),
		checkWork("--m × --r × --runs", len(s.Ms), len(s.Rs), s.Runs)}
	for _, m := range s.Ms {
		errs = append(errs, checkPoints("--m × --d", m, s.Dim))
	}
	return firstError(errs...)
}

// Memory is, for the largest m, the map and its frequencies (pointsBytes), the Samples differences δ with their
// errors (Samples·(d+1) values), the projections of a block of 256 of them per worker, and the results of the runs.
func (s *RatesLr) Memory() float64 {
	r := s.parseRule()
	var peak float64
	for _, m := range s.Ms {
		n := drawnPoints(r, s.Dim, m, true)
		peak = largest(peak, pointsBytes(r, s.Dim, m, true, true)+floats(n)+workers()*floats(256, n))
	}
	return peak + floats(float64(s.Samples), float64(s.Dim)+1) + floats(float64(len(s.Rs)), float64(s.Runs))
}

// MemoryFlags names the flags that lower Memory.
func (s *RatesLr) MemoryFlags() string { return "--samples, --m, --d, --runs" }

// Steps is the number of maps Run measures; 0 for invalid settings.
func (s *RatesLr) Steps() int { return steps(s, len(s.Ms)*s.Runs) }

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

// Run measures every m.
func (s *RatesLr) Run(ctx context.Context) (Result, error) {
	return run(ctx, s, plan[LrRow]{s, s.Rule, s.measure, s.summarize, s.write, lrTable})
}

var lrTable = table[LrRow]{columns: "r\tm\tmean L^r error\t±95%\tMonte Carlo SE\tTheorem 2 bound",
	format: "%g\t%d\t%.4g\t%.2g\t%.2g\t%.4g",
	row:    func(r LrRow) []any { return []any{r.R, r.Points, r.Mean, r.CI95[1] - r.Mean, r.MCSE, r.Bound} }}

func (s *RatesLr) measure(ctx context.Context) ([]LrRow, error) {
	rl := s.parseRule()
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
			fm, err := feature.New(k, rl, s.Dim, m, approx.RunSeed(s.Seed, label, m, run))
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
			s.step()
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

func lrExponent(r LrRow) string { return fmt.Sprintf("r=%g", r.R) }

func lrPoint(r LrRow) point { return point{float64(r.Points), r.Stat, r.Bound} }

// summarize fits, for each r, the log–log slope of the mean L^r error against m (theory −0.5 ± 0.1).
func (s *RatesLr) summarize(rows []LrRow) (Summary, error) {
	return rateSummary(rows, lrExponent, lrPoint, "log mean L^r error = a + b·log m", func(slopes string, lo, hi float64) string {
		return fmt.Sprintf("Theorem 2 predicts L^r error = O(m^−1/2); measured log–log slope of the mean L^r error "+
			"vs m (Gaussian σ=%g, d=%d, cube |S|=%g, %d Monte Carlo pairs, %d runs): %s. The Theorem 2 bound (δ=%g) "+
			"lies %.0f–%.0f× above the mean.", s.Sigma, s.Dim, s.Diameter, s.Samples, rows[0].Runs, slopes, s.Delta,
			lo, hi)
	})
}

// write draws the mean L^r error against m (log–log, one line per r) with the Theorem 2 bounds as
// dir/rates-lr.png, with rates-lr.csv beside it.
func (s *RatesLr) write(dir string, rows []LrRow) ([]string, error) {
	return saveRateFigure(dir, "rates-lr.png", fmt.Sprintf("Sriperumbudur–Szabó Thm 2: L^r(S×S) error vs "+
		"m\nGaussian σ=%g, d=%d, cube |S|=%g; measured mean ± 95%% CI (%d runs), bound at δ=%g", s.Sigma, s.Dim,
		s.Diameter, rows[0].Runs, s.Delta), "L^r(S×S) error", rows, lrExponent, lrPoint, "measured L^r error",
		fmt.Sprintf("Theorem 2 bound (δ=%g)", s.Delta))
}
