package study

import (
	"context"
	"fmt"
	"math"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// The rates studies (`rff repro rates-*`) reproduce the claims of Sriperumbudur & Szabó, "Optimal rates for random
// Fourier features" (NeurIPS 2015; docs/conventions.md §7): for the Gaussian kernel, the uniform error of m random
// Fourier features on a compact set S falls as m^{−1/2} (Theorem 1), grows only like √(log|S|) with the diameter
// of S (Theorem 1, against the |S|·√(log m/m) of Rahimi & Recht), the L^r errors fall as m^{−1/2} too (Theorem 2),
// and so do the errors of the derivative estimates (Theorems 4–5). Every study measures the error of independent
// maps (Runs of them per point), reports the mean with a 95% interval, draws the theorem's bound above it, and
// fits the rate.

// Cube is the setting of the theorems: the Gaussian kernel on the cube S centred at 0 with Euclidean diameter
// Diameter (side Diameter/√d), and the failure probability of the drawn bound.
type Cube struct {
	// Sigma is the Gaussian bandwidth σ_k; σ² = E‖ω‖² = d/σ_k² enters the bounds.
	Sigma float64 `json:"sigma" flag:"sigma" help:"Gaussian bandwidth σ"`
	// Diameter is |S|.
	Diameter float64 `json:"diameter" flag:"diameter" help:"Euclidean diameter |S| of the cube S"`
	// Delta is the failure probability δ of the drawn bound.
	Delta float64 `json:"delta" flag:"delta" help:"failure probability δ of the drawn bound"`
}

// defaultCube is σ = 1, |S| = 4, δ = 0.05.
func defaultCube() Cube { return Cube{Sigma: 1, Diameter: 4, Delta: 0.05} }

func (c Cube) check() error { return checkRates(c.Sigma, c.Diameter, c.Delta) }

// Search is the budget of one sup search (approx.SupError): Candidates points δ drawn from S − S, then gradient
// ascent from the Starts best of them, Steps trial steps each.
type Search struct {
	Candidates int `json:"candidates" flag:"candidates" help:"random candidates δ ∈ S − S per sup search (rates-diameter: the least number; it grows with the volume of S − S)"`
	Starts     int `json:"starts" flag:"starts" help:"best candidates refined by gradient ascent"`
	Steps      int `json:"steps" flag:"steps" help:"gradient-ascent trial steps per start"`
}

// defaultSearch is approx's default budget: 4096 candidates, 8 starts, 100 steps.
func defaultSearch() Search { return Search{Candidates: 4096, Starts: 8, Steps: 100} }

func (s Search) check() error {
	if s.Candidates < 1 || s.Starts < 1 || s.Steps < 1 {
		return fmt.Errorf("the search budget (candidates, starts, steps) must be at least 1, got %d, %d, %d",
			s.Candidates, s.Starts, s.Steps)
	}
	return nil
}

// checkRates checks the kernel and bound settings of the rates studies.
func checkRates(sigma, diameter, delta float64) error {
	if err := checkBandwidth(sigma); err != nil {
		return err
	}
	if !(diameter > 0) || math.IsInf(diameter, 0) {
		return fmt.Errorf("diameter |S| must be positive and finite, got %v", diameter)
	}
	if !(delta > 0 && delta < 1) {
		return fmt.Errorf("δ must lie in (0, 1), got %v", delta)
	}
	return nil
}

// SupRow is one point of [RatesSup] (and of [RatesDiameter], [RatesDeriv]): the sup error over S×S of maps with m
// points in dimension d, over the runs, and the theorem's bound.
type SupRow struct {
	Dim      int     `json:"d"`
	M        int     `json:"m"`      // points requested
	Points   int     `json:"points"` // points drawn (SR rules round up)
	Diameter float64 `json:"diameter"`
	Stat
	// Bound is the theorem's error at the study's δ (Theorem 1: (h(d,|S|,σ) + √(2 log(1/δ)))/√m).
	Bound float64 `json:"bound"`
	// Candidates is the random-search budget of each sup (plus Starts gradient ascents).
	Candidates int `json:"candidates"`
}

// supPoint measures the sup error of ∂^{p,q} (nil: the kernel) for runs independent maps and returns the row
// without its bound.
func supPoint(ctx context.Context, label string, seed uint64, k kernel.Kernel, r rule.Rule, dom approx.Domain, m,
	runs int, p, q []int, budget approx.Search, pr Progress) (SupRow, error) {
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
		pr.step()
	}
	row.Stat = statOf(vals)
	return row, nil
}

// budget is the approx.Search of s with c candidates.
func (s Search) budget(c int) approx.Search {
	return approx.Search{Candidates: c, Starts: s.Starts, Steps: s.Steps}
}

// ratePoint is the point of a row against m for the fits and the figures.
func ratePoint(r SupRow) point { return point{float64(r.Points), r.Stat, r.Bound} }

// mAxis is the x label of the figures against m.
const mAxis = "m (points; 2m cos/sin features)"

// supBytes is the memory of one map of the sup studies and its approx.SupError search: the map with m points of rule
// r in dimension d and its frequencies materialized (pointsBytes; the search's coefficients, m values), the
// candidates+1 candidates δ with their values and order, and the projections of a block of 256 candidates per
// worker (allocated per block: one more for the block whose garbage is not collected yet).
func supBytes(r rule.Rule, d, m, candidates int) float64 {
	n := drawnPoints(r, d, m, true)
	return pointsBytes(r, d, m, true, true) + floats(n) + floats(float64(candidates)+1, float64(d)+2) +
		(workers()+1)*floats(256, n)
}

// checkSup checks that maps with each of ms points in dimension d can be drawn and that the candidates of a search
// fit in an array.
func checkSup(d int, ms []int, candidates int) error {
	errs := []error{checkArray("--candidates × --d (the candidates of a search)", candidates, d)}
	for _, m := range ms {
		errs = append(errs, checkPoints("--m × --d", m, d))
	}
	return firstError(errs...)
}
