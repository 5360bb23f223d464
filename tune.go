package rff

import (
	"fmt"
	"math"
	"slices"

	"github.com/rffkit/rff/internal/progress"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
)

// TuneResult reports how Fit chose σ and λ (Config.Tune).
type TuneResult struct {
	Criterion string  `json:"criterion"` // "gcv", "evidence" or "cv"
	Rows      int     `json:"rows"`      // the rows tuned on
	Median    float64 `json:"median_sigma,omitempty"`
	// Sigmas and Lambdas are the bandwidths and penalties scored; Scores[i][j] is the score of (Sigmas[i],
	// Lambdas[j]): the GCV estimate or the held-out mean squared error per entry (lower is better), or the log
	// evidence (higher is better, HigherIsBetter). NaN marks a pair that could not be scored.
	Sigmas         []float64   `json:"sigmas"`
	Lambdas        []float64   `json:"lambdas"`
	Scores         [][]float64 `json:"scores"`
	HigherIsBetter bool        `json:"higher_is_better"`
	// Points is D of the maps the bandwidths were scored with; when it is below the fit's D, λ was then chosen on
	// the λ path of the chosen σ at the full D, whose scores are FinalScores.
	Points      int       `json:"points"`
	FinalScores []float64 `json:"final_scores,omitempty"`
	Sigma       float64   `json:"sigma"`
	Lambda      float64   `json:"lambda"`
}

// maxTunePoints is D of the bandwidth search when the fit's D is larger: the search then costs a fraction of a
// full-size pass and eigendecomposition per bandwidth, and λ is chosen at the full D for the chosen σ.
const maxTunePoints = 1024

// tune chooses σ and λ on the rows of X (n×d, preprocessed) against Y (n×P coded targets) and sets them in s. The
// bandwidths are a log grid around the median heuristic, 2^{-2}…2^{2} times it, refined by half steps around the
// best, or Sigmas; every bandwidth costs one pass over the rows, after which the whole λ path is scored in closed
// form (GCV, evidence) or from fold statistics (CV).
func (s *settings) tune(X []float64, n, d int, Y []float64, P int) (*TuneResult, error) {
	rows := n
	if s.TuneRows > 0 && s.TuneRows < n {
		rows = s.TuneRows
	}
	Xt, Yt := X[:rows*d], Y[:rows*P]
	res := &TuneResult{Criterion: s.Select, Rows: rows, Lambdas: s.Lambdas, HigherIsBetter: s.Select == "evidence"}
	res.Points = s.Points
	if s.TunePoints > 0 {
		res.Points = min(s.TunePoints, s.Points)
	} else if s.Points > maxTunePoints {
		res.Points = maxTunePoints
	}
	scaleFree := isScaleFree(s.Kernel)
	grid := s.Sigmas
	if len(grid) == 0 && !scaleFree {
		sample := newReservoir(d, s.Seed)
		sample.add(Xt, rows)
		m, err := s.median(sample)
		if err != nil {
			return nil, err
		}
		res.Median = m
		for k := -2; k <= 2; k++ {
			grid = append(grid, m*math.Pow(2, float64(k)))
		}
	}
	if scaleFree {
		grid = []float64{1}
	}
	better := func(a, b float64) bool {
		if math.IsNaN(b) {
			return !math.IsNaN(a)
		}
		if res.HigherIsBetter {
			return a > b
		}
		return a < b
	}
	bar := progress.New(s.Progress, "tune", len(grid)+2)
	defer bar.Done()
	path := func(sigma float64, points int) ([]float64, error) {
		k, err := kernel.New(s.Kernel, sigma)
		if err != nil {
			return nil, err
		}
		fmap, err := s.newMap(k, Xt, rows, d, points)
		if err != nil {
			return nil, err
		}
		if s.Select == "cv" {
			cv, err := learn.CrossValidate(fmap, Xt, rows, Yt, P, s.CV, s.Lambdas, true)
			if err != nil {
				return nil, err
			}
			return cv.MSE, nil
		}
		st, err := learn.Accumulate(fmap, Xt, rows, Yt, P)
		if err != nil {
			return nil, err
		}
		sel, err := learn.SelectLambda(st, s.Lambdas, true)
		if err != nil {
			return nil, err
		}
		if s.Select == "evidence" {
			return sel.LogEvidence, nil
		}
		return sel.GCV, nil
	}
	score := func(sigma float64) error {
		k, err := kernel.New(s.Kernel, sigma)
		if err != nil {
			return err
		}
		if err := s.checkRounding(d, k); err != nil {
			return err
		}
		if err := s.checkBudget(rows, d, P, k); err != nil {
			return err
		}
		sc, err := path(sigma, res.Points)
		if err != nil {
			return err
		}
		res.Sigmas = append(res.Sigmas, sigma)
		res.Scores = append(res.Scores, append([]float64(nil), sc...))
		bar.Add(1)
		return nil
	}
	for _, sigma := range grid {
		if err := score(sigma); err != nil {
			return nil, err
		}
	}
	best := func() (int, int) {
		bi, bj := -1, -1
		for i, row := range res.Scores {
			for j, v := range row {
				if bi < 0 || better(v, res.Scores[bi][bj]) {
					bi, bj = i, j
				}
			}
		}
		return bi, bj
	}
	if len(s.Sigmas) == 0 && !scaleFree {
		// Extend the grid while the best σ lies on its edge (at most three more octaves either way), then refine by
		// half steps around the best.
		for range 3 {
			bi, _ := best()
			lo, hi := slices.Min(res.Sigmas), slices.Max(res.Sigmas)
			c := res.Sigmas[bi]
			if c != lo && c != hi {
				break
			}
			next := c / 2
			if c == hi {
				next = c * 2
			}
			if err := score(next); err != nil {
				return nil, err
			}
		}
		bi, _ := best()
		c := res.Sigmas[bi]
		for _, f := range []float64{math.Sqrt2, 1 / math.Sqrt2} {
			if !slices.Contains(res.Sigmas, c*f) {
				if err := score(c * f); err != nil {
					return nil, err
				}
			}
		}
	}
	bi, bj := best()
	if bi < 0 || math.IsNaN(res.Scores[bi][bj]) {
		return nil, fmt.Errorf("tuning: no (σ, λ) pair could be scored")
	}
	// Report the bandwidths in increasing order.
	order := make([]int, len(res.Sigmas))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case res.Sigmas[a] < res.Sigmas[b]:
			return -1
		case res.Sigmas[a] > res.Sigmas[b]:
			return 1
		}
		return 0
	})
	sig, scs := make([]float64, len(order)), make([][]float64, len(order))
	for i, o := range order {
		sig[i], scs[i] = res.Sigmas[o], res.Scores[o]
	}
	res.Sigma, res.Lambda = res.Sigmas[bi], res.Lambdas[bj]
	res.Sigmas, res.Scores = sig, scs
	if res.Points < s.Points {
		// λ at the fit's D for the chosen σ.
		fin, err := path(res.Sigma, s.Points)
		if err != nil {
			return nil, err
		}
		bj = -1
		for j, v := range fin {
			if bj < 0 || better(v, fin[bj]) {
				bj = j
			}
		}
		if bj < 0 || math.IsNaN(fin[bj]) {
			return nil, fmt.Errorf("tuning: no λ could be scored at D = %d", s.Points)
		}
		res.FinalScores, res.Lambda = fin, res.Lambdas[bj]
	}
	if !scaleFree {
		s.Sigma = res.Sigma
	}
	s.Lambda = res.Lambda
	return res, nil
}
