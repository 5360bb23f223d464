package rff

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/finite"
	"github.com/rffkit/rff/internal/progress"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/vector"
)

// TuneResult reports how Fit chose σ and λ (Config.Tune).
type TuneResult struct {
	Criterion string `json:"criterion"` // "gcv", "evidence" or "cv"
	// Score names what Scores hold: "GCV" and "CV MSE" (mean squared error per (row, output) entry; lower is
	// better), "log evidence" or "CV accuracy" (the share of held-out rows classified correctly; higher is better).
	Score  string  `json:"score"`
	Rows   int     `json:"rows"` // the rows tuned on
	Median float64 `json:"median_sigma,omitempty"`
	// Sigmas and Lambdas are the bandwidths and penalties scored; Scores[i][j] is the score of (Sigmas[i],
	// Lambdas[j]); HigherIsBetter says which way is better. NaN marks a pair that could not be scored.
	Sigmas         []float64   `json:"sigmas"`
	Lambdas        []float64   `json:"lambdas"`
	Scores         [][]float64 `json:"scores"`
	HigherIsBetter bool        `json:"higher_is_better"`
	// Points is D of the maps σ and λ were scored with (Config.TunePoints; 0 for exact models, scored on the kernel
	// matrix); the model is then fitted with the chosen pair at its own D.
	Points int     `json:"points"`
	Sigma  float64 `json:"sigma"`
	Lambda float64 `json:"lambda"`
	// ScaleFree reports a kernel without a bandwidth (the arc-cosine kernels): only λ was chosen, and Sigmas is
	// the placeholder {1}.
	ScaleFree bool `json:"scale_free,omitempty"`
}

// MarshalJSON writes the result with the keys of its fields' tags, and null for a pair that could not be scored
// (NaN).
func (r TuneResult) MarshalJSON() ([]byte, error) {
	type plain TuneResult // without this method
	scores := make([][]any, len(r.Scores))
	for i, v := range r.Scores {
		scores[i] = finite.JSON(v)
	}
	return json.Marshal(struct {
		plain
		Scores [][]any `json:"scores"` // shadows plain's
	}{plain(r), scores})
}

// maxTunePoints is D of the maps that score (σ, λ) when the fit's D is larger. Every σ costs a pass over the rows,
// O(N·F²), and an eigendecomposition, O(F³) with a large constant (on 2 cores at F = 4100: 3 s and 15 s, against 3 s
// for the whole fit): with 512 points about eight bandwidths cost less than one full-size fit. Rescoring λ at the
// full D would cost the eigenvalues of the full F×F system (4 s there) or a trace of its inverse per λ, and on the
// data measured it moved λ by one grid step without improving the test error (docs/results.md).
const maxTunePoints = 512

// tuneTargets is what tuning fits: coded targets Y (n×P) for the squared loss, the classes for classifiers.
type tuneTargets struct {
	Y   []float64
	P   int
	cls []int // class of every row (classification), nil otherwise
	K   int   // number of classes
	// scale[j] multiplies λ for output j (a decomposable kernel's outputs rotated onto the eigenvectors of A: Y is
	// then the rotated targets); nil means 1 for every output.
	scale []float64
	// field: a curl-free, divergence-free or Helmholtz kernel (Config.OVK), scored by vector.SelectLambdaField.
	field bool
	// hermite: gradient-enhanced regression on the observed values hvals (n, or nil) and partial derivatives hgrads
	// (n×d in the preprocessed coordinates, or nil), scored by learn.Hermite.SelectLambda.
	hermite       bool
	hvals, hgrads []float64
}

// tuneOVK returns the tuning targets of a decomposable vector-valued model: the targets Y (n×p) rotated onto the
// eigenvectors of the model's output matrix A, with the λ scales 1/a_k (vector.Decoupling).
func (s *settings) tuneOVK(Y []float64, n, p int) (*tuneTargets, error) {
	if k, err := ovk.Parse(s.OVK, 1, nil); err == nil && k.Kind() != ovk.Decomposable {
		// Curl-free, divergence-free and Helmholtz kernels are scored on their assembled normal equations.
		if s.nystrom {
			return nil, fmt.Errorf("tuning the %s kernel needs random features (its B(ω) depends on the frequencies)", s.OVK)
		}
		return &tuneTargets{Y: Y, P: p, field: true}, nil
	}
	A, err := outputMatrix(s.A, s.AMatrix, Y, n, p)
	if err != nil {
		return nil, err
	}
	dc, err := vector.Decouple(A)
	if err != nil {
		return nil, fmt.Errorf("tuning: %w", err)
	}
	Yr, err := dc.Rotate(Y, n)
	if err != nil {
		return nil, err
	}
	t := &tuneTargets{Y: Yr, P: p, scale: dc.Scale}
	if slices.IndexFunc(dc.Scale, func(v float64) bool { return v != 1 }) < 0 {
		t.scale = nil
	}
	return t, nil
}

// tune chooses σ and λ on the rows of X (n×d, preprocessed) for the targets t and sets them in s. The bandwidths
// are a log grid around the median heuristic, 2^{-2}…2^{2} times it, extended while the best lies on an edge and
// refined by half steps around the best, or Sigmas. Every bandwidth costs one pass over the rows, after which the
// whole λ path is scored in closed form (GCV, evidence) or from fold statistics (CV: the held-out squared error,
// or for classifiers with the squared loss the held-out accuracy from one more map of the held-out rows); the
// hinge and logistic losses are cross-validated by refits, hermite models scored by the GCV or the evidence of
// their stacked value and derivative rows, and exact models by those of the N×N kernel matrix (learn.KRR.SelectLambda). Ties of accuracy go to the larger λ, then the larger σ.
func (s *settings) tune(X []float64, n, d int, t *tuneTargets) (*TuneResult, error) {
	rows := n
	if s.TuneRows > 0 && s.TuneRows < n {
		rows = s.TuneRows
	}
	Xt := X[:rows*d]
	var Yt []float64
	if t.Y != nil {
		Yt = t.Y[:rows*t.P]
	}
	var clst []int
	if t.cls != nil {
		clst = t.cls[:rows]
	}
	var hv, hg []float64
	if t.hvals != nil {
		hv = t.hvals[:rows]
	}
	if t.hgrads != nil {
		hg = t.hgrads[:rows*d]
	}
	// A constant regression target fits exactly at every σ and λ: GCV is 0/0 and the evidence unbounded, and held-out
	// errors are rounding noise that would choose a pair at random.
	if Yt != nil && t.cls == nil && t.scale == nil && !t.field {
		for j := range t.P {
			lo, hi := math.Inf(1), math.Inf(-1)
			for i := j; i < len(Yt); i += t.P {
				lo, hi = math.Min(lo, Yt[i]), math.Max(hi, Yt[i])
			}
			if lo == hi {
				what := "the target"
				if t.P > 1 {
					what = fmt.Sprintf("target %d of %d", j+1, t.P)
				}
				return nil, fmt.Errorf("%s is constant on the %d rows tuned on: every σ and λ fit it exactly, so there is nothing to tune; fit it with a given σ and λ", what, rows)
			}
		}
	}
	accuracy := s.Select == "cv" && t.cls != nil
	res := &TuneResult{Criterion: s.Select, Rows: rows, Lambdas: s.Lambdas}
	switch {
	case accuracy:
		res.Score, res.HigherIsBetter = "CV accuracy", true
	case s.Select == "cv":
		res.Score = "CV MSE"
	case s.Select == "evidence":
		res.Score, res.HigherIsBetter = "log evidence", true
	default:
		res.Score = "GCV"
	}
	res.Points = s.Points
	if s.Exact {
		res.Points = 0 // no map: the kernel matrix itself
	} else if s.TunePoints > 0 {
		res.Points = min(s.TunePoints, s.Points)
	} else if limit := s.maxTunePoints(d, t); s.Points > limit {
		res.Points = limit
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
		res.ScaleFree = true
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
	// When σ and λ are scored with a random-feature map at the fit's D on all rows, the statistics of the best σ so far
	// are those the fit would accumulate: they are kept (s.tuned, of σ = keptSigma) and solved instead of another pass.
	reuse := res.Points == s.Points && rows == n && t.scale == nil && s.OVK == "" && !s.nystrom && !s.Exact
	keptSigma, keptScore := math.NaN(), math.NaN()
	// path scores the λ of lambdas for σ with a map of the given points.
	path := func(sigma float64, points int, lambdas []float64) ([]float64, error) {
		if t.field {
			return s.fieldPath(Xt, rows, d, Yt, sigma, points, lambdas)
		}
		k, err := kernel.New(s.Kernel, sigma)
		if err != nil {
			return nil, err
		}
		if s.Exact {
			sel, err := learn.KRR{Kernel: k, Intercept: true, MaxBytes: s.budget()}.SelectLambda(Xt, rows, d, Yt, t.P, lambdas)
			if err != nil {
				return nil, err
			}
			return s.criterion(sel), nil
		}
		fmap, err := s.newMap(k, Xt, rows, d, points)
		if err != nil {
			return nil, err
		}
		if fm, ok := fmap.(*feature.Map); ok && t.hermite {
			sel, err := learn.Hermite{Intercept: hv != nil}.SelectLambda(fm, Xt, rows, hv, hg, lambdas)
			if err != nil {
				return nil, err
			}
			return s.criterion(sel), nil
		}
		if s.Select == "cv" {
			switch {
			case t.cls != nil && s.loss != learn.Squared:
				c := learn.Classifier{Loss: s.loss, MaxIter: s.MaxIter, Seed: s.Seed, MaxBytes: s.budget()}
				cv, err := learn.CrossValidateClassifier(c, fmap, Xt, rows, clst, t.K, s.CV, lambdas)
				if err != nil {
					return nil, err
				}
				return cv.Accuracy, nil
			case t.cls != nil:
				coding := learn.OneHotCoding
				if s.Encoding == "simplex" {
					coding = learn.SimplexCoding
				}
				cv, err := learn.CrossValidateClasses(fmap, Xt, rows, clst, t.K, coding, s.CV, lambdas, true)
				if err != nil {
					return nil, err
				}
				return cv.Accuracy, nil
			}
			scale := t.scale
			if scale == nil {
				scale = slices.Repeat([]float64{1}, t.P)
			}
			cv, err := learn.CrossValidateScaled(fmap, Xt, rows, Yt, t.P, s.CV, lambdas, scale, true)
			if err != nil {
				return nil, err
			}
			return cv.MSE, nil
		}
		_, keep := fmap.(*feature.Map)
		keep = keep && reuse
		if t.scale == nil && !keep { // without statistics to keep: the cheaper of the primal and the dual form
			sel, err := learn.SelectLambdaMap(fmap, Xt, rows, Yt, t.P, lambdas, true)
			if err != nil {
				return nil, err
			}
			return s.criterion(sel), nil
		}
		st, err := learn.Accumulate(fmap, Xt, rows, Yt, t.P)
		if err != nil {
			return nil, err
		}
		var sel *learn.Selection
		if t.scale != nil {
			sel, err = learn.SelectLambdaScaled(st, lambdas, t.scale, true)
		} else {
			sel, err = learn.SelectLambda(st, lambdas, true)
		}
		if err != nil {
			return nil, err
		}
		sc := s.criterion(sel)
		if keep {
			for _, v := range sc {
				if !better(keptScore, v) { // as good as the best so far: keep (ties are settled below)
					s.tuned, keptSigma, keptScore = st, sigma, v
				}
			}
		}
		return sc, nil
	}
	score := func(sigma float64) error {
		k, err := kernel.New(s.Kernel, sigma)
		if err != nil {
			return err
		}
		if err := s.checkRounding(d, k); err != nil {
			return err
		}
		if err := s.checkBudget(rows, d, t.P, k); err != nil {
			return err
		}
		sc, err := path(sigma, res.Points, s.Lambdas)
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
	// best returns the best pair: ties go to the larger λ, then to the larger σ (the smoother model).
	best := func() (int, int) {
		bi, bj := -1, -1
		for i, row := range res.Scores {
			for j, v := range row {
				if bi < 0 || better(v, res.Scores[bi][bj]) {
					bi, bj = i, j
					continue
				}
				if v == res.Scores[bi][bj] && (s.Lambdas[j] > s.Lambdas[bj] || (s.Lambdas[j] == s.Lambdas[bj] && res.Sigmas[i] > res.Sigmas[bi])) {
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
	slices.SortStableFunc(order, func(a, b int) int {
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
	if s.tuned != nil && keptSigma != res.Sigma {
		s.tuned = nil // the statistics kept are not those of the chosen σ: the fit makes its own pass
	}
	if !scaleFree {
		s.Sigma = res.Sigma
	}
	s.Lambda = res.Lambda
	return res, nil
}

// maxTunePoints is the default D of the scoring maps: maxTunePoints, or for a field kernel, whose map has 2·D·p'
// features (p' the rank of B(ω)), the D that gives as many features as maxTunePoints scalar points.
func (s *settings) maxTunePoints(d int, t *tuneTargets) int {
	if !t.field {
		return maxTunePoints
	}
	k, err := ovk.Parse(s.OVK, 1, nil)
	if err != nil {
		return maxTunePoints
	}
	m, err := ovk.New(k, s.rule, d, 1, s.Seed)
	if err != nil {
		return maxTunePoints
	}
	return max(1, maxTunePoints/m.Rank())
}

// fieldPath scores the λ of lambdas for a curl-free, divergence-free or Helmholtz kernel of bandwidth sigma with an
// ORFF map of the given points on the rows of X (n×d) against Y (n×p), from the assembled normal equations
// (vector.SelectLambdaField).
func (s *settings) fieldPath(X []float64, n, d int, Y []float64, sigma float64, points int, lambdas []float64) ([]float64, error) {
	k, err := ovk.Parse(s.OVK, sigma, nil)
	if err != nil {
		return nil, err
	}
	m, err := ovk.New(k, s.rule, d, points, s.Seed)
	if err != nil {
		return nil, err
	}
	st, err := vector.Accumulate(m, X, n, Y)
	if err != nil {
		return nil, err
	}
	sel, err := vector.SelectLambdaField(m, st, lambdas, true)
	if err != nil {
		return nil, err
	}
	return s.criterion(sel), nil
}

// criterion returns the scores of the λ grid by the selection criterion: the log evidence, or GCV.
func (s *settings) criterion(sel *learn.Selection) []float64 {
	if s.Select == "evidence" {
		return sel.LogEvidence
	}
	return sel.GCV
}
