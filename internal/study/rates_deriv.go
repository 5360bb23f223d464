package study

import (
	"context"
	"fmt"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/bound"
	"github.com/rffkit/rff/kernel"
)

// RatesDeriv reproduces the derivative part of Sriperumbudur & Szabó (NeurIPS 2015): the estimate
// ⟨∂^pψ(x), ∂^qψ(y)⟩ of ∂^{p,q}k from m random Fourier features has a uniform error on S×S that falls as m^{−1/2}
// (Theorem 4 for spectral laws of bounded support; Theorem 5, which covers the Gaussian's unbounded one, gives
// O(|S|√(log m/m)) as its guarantee). For each case (default ∂/∂x₁, ∂²/∂x₁∂y₁ and ∂²/∂x₁∂y₂, i.e.
// |p|+|q| = 1, 2, in d = 2) and each m, Runs maps are measured with approx.SupError; each row carries the
// Theorem 5 bound at Delta (bound.Compute "ss-deriv-unbounded", with Bernstein constants of the Gaussian law).
// The summary fits the log–log slope of the mean error against m for each case (theory −0.5 ± 0.1).
type RatesDeriv struct {
	// Dim is the input dimension d.
	Dim int `json:"d" flag:"d" help:"input dimension d"`
	// Cases are the derivatives p:q in the notation of [ParseDerivCase], for inputs of dimension Dim.
	Cases []string `json:"cases" flag:"cases" help:"comma list of derivatives p:q of ∂^{p,q}k, multi-indices as sums of unit vectors: e1:0 = ∂/∂x₁, e1:e2 = ∂²/∂x₁∂y₂, 2e1:0 = ∂²/∂x₁²"`
	// Ms are the numbers of points m.
	Ms []int `json:"m" flag:"m" help:"comma list of m, the number of points (frequencies); cos/sin maps have 2m columns"`
	Cube
	Draws
	Search Search `json:"search"`
	Progress
}

// NewRatesDeriv returns the study with its defaults: d = 2, the cases e1:0, e1:e1, e1:e2, m = 2⁴ … 2¹⁴, σ = 1,
// |S| = 4, δ = 0.05, 10 runs of the rule g, approx's default search budget.
func NewRatesDeriv() *RatesDeriv {
	return &RatesDeriv{Dim: 2, Cases: []string{"e1:0", "e1:e1", "e1:e2"}, Ms: powersOfTwo(4, 14), Cube: defaultCube(),
		Draws: defaultDraws(10), Search: defaultSearch()}
}

// Validate checks the settings, without building the multi-indices of length d.
func (s *RatesDeriv) Validate() error {
	if s.Dim < 1 || len(s.Cases) == 0 {
		return fmt.Errorf("need d ≥ 1 and a derivative case, got d = %d and %d cases", s.Dim, len(s.Cases))
	}
	errs := []error{checkPositiveInts("m", s.Ms), s.Cube.check(), s.Search.check(), s.Draws.check(),
		checkWork("--cases × --m × --runs", len(s.Cases), len(s.Ms), s.Runs)}
	if err := firstError(errs...); err != nil {
		return err
	}
	for _, c := range s.Cases {
		if err := checkDerivCase(c, s.Dim); err != nil {
			return fmt.Errorf("%w (d=%d)", err, s.Dim)
		}
	}
	return checkSup(s.Dim, s.Ms, s.Search.Candidates)
}

// Memory is the largest map and search over m (supBytes), the multi-indices of the cases and the results of the
// runs.
func (s *RatesDeriv) Memory() float64 {
	r := s.parseRule()
	var peak float64
	for _, m := range s.Ms {
		peak = largest(peak, supBytes(r, s.Dim, m, s.Search.Candidates))
	}
	return peak + floats(float64(len(s.Cases)), 2*float64(s.Dim)) + floats(float64(s.Runs))
}

// MemoryFlags names the flags that lower Memory.
func (s *RatesDeriv) MemoryFlags() string { return "--m, --d, --candidates, --runs" }

// cases parses the derivative cases for inputs of dimension Dim.
func (s *RatesDeriv) cases() ([]DerivCase, error) {
	if s.Dim < 1 || len(s.Cases) == 0 {
		return nil, fmt.Errorf("need d ≥ 1 and a derivative case, got d = %d and %d cases", s.Dim, len(s.Cases))
	}
	var cases []DerivCase
	for _, c := range s.Cases {
		dc, err := ParseDerivCase(c, s.Dim)
		if err != nil {
			return nil, fmt.Errorf("%w (d=%d)", err, s.Dim)
		}
		cases = append(cases, dc)
	}
	return cases, nil
}

// Steps is the number of maps Run measures; 0 for invalid settings.
func (s *RatesDeriv) Steps() int { return steps(s, len(s.Cases)*len(s.Ms)*s.Runs) }

// DerivRow is one point of [RatesDeriv].
type DerivRow struct {
	Case  string `json:"case"` // "p:q", see [ParseDerivCase]
	P     []int  `json:"p"`
	Q     []int  `json:"q"`
	Order int    `json:"order"` // |p| + |q|
	// SupRow holds the measurement; its Bound is the Theorem 5 error at the study's δ.
	SupRow
}

// Run measures every case and m, case by case and m by m.
func (s *RatesDeriv) Run(ctx context.Context) (Result, error) {
	return run(ctx, s, plan[DerivRow]{s, s.Rule, s.measure, s.summarize, s.write, derivTable})
}

var derivTable = table[DerivRow]{columns: "p:q\torder\tm\tmean sup error\t±95%\tTheorem 5 bound",
	format: "%s\t%d\t%d\t%.4g\t%.2g\t%.4g",
	row:    func(r DerivRow) []any { return []any{r.Case, r.Order, r.Points, r.Mean, r.CI95[1] - r.Mean, r.Bound} }}

func (s *RatesDeriv) measure(ctx context.Context) ([]DerivRow, error) {
	cases, err := s.cases()
	if err != nil {
		return nil, err
	}
	r := s.parseRule()
	k := kernel.Gaussian{S: s.Sigma}
	dom := approx.Domain{Shape: approx.Cube, Dim: s.Dim, Diameter: s.Diameter}
	var rows []DerivRow
	for _, c := range cases {
		name := c.String()
		for _, m := range s.Ms {
			row, err := supPoint(ctx, fmt.Sprintf("rates-deriv/d=%d/%s", s.Dim, name), s.Seed, k, r, dom, m,
				s.Runs, c.P, c.Q, s.Search.budget(s.Search.Candidates), s.Progress)
			if err != nil {
				return nil, err
			}
			g, err := bound.Compute("ss-deriv-unbounded", bound.Params{Dim: s.Dim, Diameter: s.Diameter,
				Kernel: "gaussian", Sigma: s.Sigma, M: row.Points, Delta: s.Delta, P: c.P, Q: c.Q})
			if err != nil {
				return nil, fmt.Errorf("rates-deriv %s: %w", name, err)
			}
			row.Bound = g.Eps
			rows = append(rows, DerivRow{Case: name, P: c.P, Q: c.Q, Order: multiOrder(c.P) + multiOrder(c.Q),
				SupRow: row})
		}
	}
	return rows, nil
}

func derivPoint(r DerivRow) point { return ratePoint(r.SupRow) }

// summarize fits, for each case, the log–log slope of the mean sup error against m (theory −0.5 ± 0.1).
func (s *RatesDeriv) summarize(rows []DerivRow) (Summary, error) {
	key := func(r DerivRow) string { return fmt.Sprintf("∂^{%s}, order %d", r.Case, r.Order) }
	return rateSummary(rows, key, derivPoint, "log mean sup error of ∂^{p,q}k̂ = a + b·log m",
		func(slopes string, lo, hi float64) string {
			return fmt.Sprintf("The derivative estimates converge at the rate m^−1/2 (Theorems 4–5); measured "+
				"log–log slope of the mean sup error of ∂^{p,q}k̂ vs m (Gaussian σ=%g, d=%d, cube |S|=%g, %d runs): %s. "+
				"The Theorem 5 bound (δ=%g) lies %.0f–%.0f× above the mean.", s.Sigma, s.Dim, s.Diameter, rows[0].Runs,
				slopes, s.Delta, lo, hi)
		})
}

// write draws the mean sup error of each derivative estimate against m (log–log) with the Theorem 5 bounds as
// dir/rates-deriv.png, with rates-deriv.csv beside it.
func (s *RatesDeriv) write(dir string, rows []DerivRow) ([]string, error) {
	return saveRateFigure(dir, "rates-deriv.png", fmt.Sprintf("Sriperumbudur–Szabó Thms 4–5: sup error of the "+
		"estimates of ∂^{p,q}k vs m (case p:q)\nGaussian σ=%g, d=%d, cube |S|=%g; measured mean ± 95%% CI (%d runs), "+
		"Thm 5 bound at δ=%g", s.Sigma, s.Dim, s.Diameter, rows[0].Runs, s.Delta),
		"uniform error of the derivative on S×S", rows, func(r DerivRow) string { return r.Case }, derivPoint,
		"measured", fmt.Sprintf("Theorem 5 bound (δ=%g)", s.Delta))
}
