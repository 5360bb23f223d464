package study

import (
	"context"
	"fmt"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/bound"
	"github.com/rffkit/rff/kernel"
)

// RatesSup reproduces the rate of Theorem 1 of Sriperumbudur & Szabó (NeurIPS 2015): for m random Fourier features
// of the Gaussian kernel, the uniform error ‖k − k̂‖_{L∞(S×S)} on a fixed compact S is below
// (h(d,|S|,σ) + √(2 log(1/δ)))/√m with probability 1 − δ, so it falls as m^{−1/2} (no log m factor, unlike Rahimi &
// Recht's |S|√(log m/m)). For each d in Dims and m in Ms, Runs independent maps are drawn and the error of each is
// measured with approx.SupError (random search over δ ∈ S − S plus gradient ascent, within the Search budget: the
// value is attained, hence a lower bound on the true supremum). The Theorem 1 radius at Delta is reported with each
// point; the summary fits the log–log slope of the mean error against m, which the theorem predicts to be −1/2
// (tested at −0.5 ± 0.1).
type RatesSup struct {
	// Dims are the input dimensions d.
	Dims []int `json:"dims" flag:"d" help:"comma list of input dimensions d"`
	// Ms are the numbers of points m (frequencies; the cos/sin map has 2m columns).
	Ms []int `json:"m" flag:"m" help:"comma list of m, the number of points (frequencies); cos/sin maps have 2m columns"`
	Cube
	Draws
	Search Search `json:"search"`
	Progress
}

// NewRatesSup returns the study with its defaults: d = 1, 2, 5; m = 2⁴ … 2¹⁴; σ = 1, |S| = 4, δ = 0.05; 20 runs
// of the rule g; approx's default search budget.
func NewRatesSup() *RatesSup {
	return &RatesSup{Dims: []int{1, 2, 5}, Ms: powersOfTwo(4, 14), Cube: defaultCube(), Draws: defaultDraws(20),
		Search: defaultSearch()}
}

// Validate checks the settings.
func (s *RatesSup) Validate() error {
	errs := []error{checkPositiveInts("dimension", s.Dims), checkPositiveInts("m", s.Ms), s.Cube.check(),
		s.Search.check(), s.Draws.check(), checkWork("--d × --m × --runs", len(s.Dims), len(s.Ms), s.Runs)}
	for _, d := range s.Dims {
		errs = append(errs, checkSup(d, s.Ms, s.Search.Candidates))
	}
	return firstError(append(errs, checkSweep("--m", s.Ms))...)
}

// Memory is the largest map and search over d and m (supBytes) and the results of the runs.
func (s *RatesSup) Memory() float64 {
	r := s.parseRule()
	var peak float64
	for _, d := range s.Dims {
		for _, m := range s.Ms {
			peak = largest(peak, supBytes(r, d, m, s.Search.Candidates))
		}
	}
	return peak + floats(float64(s.Runs))
}

// MemoryFlags names the flags that lower Memory.
func (s *RatesSup) MemoryFlags() string { return "--m, --d, --candidates, --runs" }

// Steps is the number of maps Run measures; 0 for invalid settings.
func (s *RatesSup) Steps() int { return steps(s, len(s.Dims)*len(s.Ms)*s.Runs) }

// Run measures every (d, m), d by d and m by m.
func (s *RatesSup) Run(ctx context.Context) (Result, error) {
	return run(ctx, s, plan[SupRow]{s, s.Rule, s.measure, s.summarize, s.write, supTable})
}

var supTable = table[SupRow]{columns: "d\tm\tmean sup error\t±95%\tTheorem 1 bound", format: "%d\t%d\t%.4g\t%.2g\t%.4g",
	row: func(r SupRow) []any { return []any{r.Dim, r.Points, r.Mean, r.CI95[1] - r.Mean, r.Bound} }}

func (s *RatesSup) measure(ctx context.Context) ([]SupRow, error) {
	r := s.parseRule()
	k := kernel.Gaussian{S: s.Sigma}
	var rows []SupRow
	for _, d := range s.Dims {
		dom := approx.Domain{Shape: approx.Cube, Dim: d, Diameter: s.Diameter}
		sm, err := bound.SecondMoment("gaussian", d, s.Sigma)
		if err != nil {
			return nil, err
		}
		for _, m := range s.Ms {
			row, err := supPoint(ctx, fmt.Sprintf("rates-sup/d=%d", d), s.Seed, k, r, dom, m, s.Runs, nil, nil,
				s.Search.budget(s.Search.Candidates), s.Progress)
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

func supDim(r SupRow) string { return fmt.Sprintf("d=%d", r.Dim) }

// summarize fits, for each d, the log–log slope of the mean sup error against m (theory −0.5 ± 0.1) and states
// how far the Theorem 1 bound lies above the measurements.
func (s *RatesSup) summarize(rows []SupRow) (Summary, error) {
	return rateSummary(rows, supDim, ratePoint, "log mean sup error = a + b·log m", func(slopes string, lo, hi float64) string {
		return fmt.Sprintf("Theorem 1 predicts sup error = O(m^−1/2) on a fixed S; measured log–log slope of the "+
			"mean sup error vs m (Gaussian σ=%g, cube |S|=%g, m=%d…%d, %d runs): %s. The Theorem 1 bound (δ=%g) lies "+
			"%.0f–%.0f× above the mean.", s.Sigma, s.Diameter, rows[0].M, rows[len(rows)-1].M, rows[0].Runs, slopes,
			s.Delta, lo, hi)
	})
}

// write draws the mean sup error against m (log–log, one line per d with its 95% interval) and the Theorem 1
// bound above it as dir/rates-sup.png, with the data as rates-sup.csv beside it.
func (s *RatesSup) write(dir string, rows []SupRow) ([]string, error) {
	return saveRateFigure(dir, "rates-sup.png", fmt.Sprintf("Sriperumbudur–Szabó Thm 1: sup error on S×S vs "+
		"m\nGaussian σ=%g, cube |S|=%g; measured mean ± 95%% CI (%d runs), bound at δ=%g", s.Sigma, s.Diameter,
		rows[0].Runs, s.Delta), "uniform error on S×S", rows, supDim, ratePoint, "measured sup error",
		fmt.Sprintf("Theorem 1 bound (δ=%g)", s.Delta))
}
