package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/plotting"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/rule"
)

// QuadFig2 is the downstream study of Munkhoeva et al. (2018), §4.3 and Figure 2: for each dataset, kernel, rule
// and n, map the whole training split with D = 2n(d+1) points (the protocol of Figure 1, docs/conventions.md §10: Gaussian
// kernel with γ = 1/d after the paper's scaling), train a linear model on the features and score it on the test
// split — accuracy for classification, R² for regression — over Runs independent draws of the rule.
//
// The paper trains scikit-learn's SVC and SVR (default C = 1) on the features. Here classification uses the
// linear SVM of package learn (hinge loss, dual coordinate descent, C = 1, i.e. λ = 1/(2N)), and regression uses
// ridge regression with the same λ (an ε-insensitive SVR is not implemented); the figure compares rules, which
// share the learner.
type QuadFig2 struct {
	// DataDir is the shared data directory (../shared/data from the project root).
	DataDir string
	// Datasets are benchmark names (default powerplant, letter, usps).
	Datasets []string
	// Kernels are kernel names (default gaussian, arccos0, arccos1).
	Kernels []string
	// Rules default to every rule of package rule.
	Rules []rule.Rule
	// Ns are the values of n (default 1…5).
	Ns []int
	// Runs is the number of independent draws per point (default 3).
	Runs int
	// Seed fixes every draw (approx.RunSeed derives one seed per rule, n and run).
	Seed uint64
	// Progress, when set, is called after each fitted model.
	Progress func()
}

// Score is the test metric of one (dataset, kernel, rule, n) over the runs.
type Score struct {
	Dataset string     `json:"dataset"`
	Kernel  string     `json:"kernel"`
	Rule    string     `json:"rule"`
	N       int        `json:"n"`
	D       int        `json:"D"`
	Metric  string     `json:"metric"` // "accuracy" or "r2"
	Runs    int        `json:"runs"`
	Mean    float64    `json:"mean"`
	Std     float64    `json:"std"`
	CI95    [2]float64 `json:"ci95"`
	Seconds float64    `json:"seconds"` // mean wall time of one map + fit + score
}

func (q *QuadFig2) defaults() error {
	if len(q.Datasets) == 0 {
		q.Datasets = []string{"powerplant", "letter", "usps"}
	}
	if len(q.Kernels) == 0 {
		q.Kernels = []string{"gaussian", "arccos0", "arccos1"}
	}
	if len(q.Rules) == 0 {
		var err error
		if q.Rules, err = rule.ParseList("g,orf,sorf,qmc,gq,sr-butterfly,sr-haar"); err != nil {
			return err
		}
	}
	if len(q.Ns) == 0 {
		q.Ns = []int{1, 2, 3, 4, 5}
	}
	if q.Runs == 0 {
		q.Runs = 3
	}
	if q.Runs < 1 {
		return fmt.Errorf("experiment: runs must be at least 1, got %d", q.Runs)
	}
	for _, n := range q.Ns {
		if n < 1 {
			return fmt.Errorf("experiment: n must be at least 1, got %d", n)
		}
	}
	return nil
}

// Steps is the number of models Run fits (for a progress bar).
func (q QuadFig2) Steps() int {
	if q.defaults() != nil {
		return 0
	}
	return len(q.Datasets) * len(q.Kernels) * len(q.Rules) * len(q.Ns) * q.Runs
}

// Run executes the study. It stops early, returning ctx.Err(), when ctx is cancelled.
func (q QuadFig2) Run(ctx context.Context) ([]Score, error) {
	if err := q.defaults(); err != nil {
		return nil, err
	}
	var out []Score
	for _, name := range q.Datasets {
		b, err := Lookup(name)
		if err != nil {
			return nil, err
		}
		s, err := b.Load(q.DataDir, 0)
		if err != nil {
			return nil, err
		}
		d := s.Train.D
		for _, kname := range q.Kernels {
			k, err := kernel.New(kname, kernel.SigmaFromGamma(1/float64(d)))
			if err != nil {
				return nil, err
			}
			for _, r := range q.Rules {
				for _, n := range q.Ns {
					sc := Score{Dataset: name, Kernel: kname, Rule: r.Name(), N: n, Metric: "accuracy", Runs: q.Runs}
					if b.Task == "regression" {
						sc.Metric = "r2"
					}
					vals := make([]float64, q.Runs)
					for run := range q.Runs {
						if err := ctx.Err(); err != nil {
							return nil, err
						}
						m, err := feature.New(k, r, d, approx.PointsForN(n, d), approx.RunSeed(q.Seed, r.Name(), n, run))
						if err != nil {
							return nil, err
						}
						sc.D = m.Points()
						t := time.Now()
						if vals[run], err = downstream(s, m, approx.RunSeed(q.Seed, "svm", n, run)); err != nil {
							return nil, fmt.Errorf("%s, %s, %s, n=%d: %w", name, kname, r.Name(), n, err)
						}
						sc.Seconds += time.Since(t).Seconds() / float64(q.Runs)
						if q.Progress != nil {
							q.Progress()
						}
					}
					sc.Mean, sc.Std, sc.CI95 = MeanCI(vals)
					out = append(out, sc)
				}
			}
		}
	}
	return out, nil
}

// downstream fits the study's learner on the training features and returns the test metric.
func downstream(s *Split, m *feature.Map, seed uint64) (float64, error) {
	lambda := 1 / (2 * float64(s.Train.N)) // C = 1 in ½‖w‖² + C Σ ℓ
	if s.Task == "regression" {
		fit, err := learn.Ridge{Lambda: lambda, Intercept: true}.FitMap(m, s.Train.X, s.Train.N, s.Train.Y, 1)
		if err != nil {
			return 0, err
		}
		pred := make([]float64, s.Test.N)
		if err := fit.PredictMap(pred, m, s.Test.X, s.Test.N); err != nil {
			return 0, err
		}
		return R2(pred, s.Test.Y), nil
	}
	K := len(s.Classes)
	fit, err := learn.Classifier{Loss: learn.Hinge, Lambda: lambda, Tol: 0.1, Seed: seed}.FitMap(m, s.Train.X, s.Train.N, s.TrainClass, K)
	if err != nil {
		return 0, err
	}
	scores := make([]float64, s.Test.N*K)
	if err := fit.PredictMap(scores, m, s.Test.X, s.Test.N); err != nil {
		return 0, err
	}
	return Accuracy(learn.Argmax(scores, s.Test.N, K), s.TestClass), nil
}

// Accuracy is the fraction of pred equal to truth.
func Accuracy(pred, truth []int) float64 {
	if len(truth) == 0 {
		return math.NaN()
	}
	c := 0
	for i, p := range pred {
		if p == truth[i] {
			c++
		}
	}
	return float64(c) / float64(len(truth))
}

// R2 is the coefficient of determination 1 − Σ(y − ŷ)²/Σ(y − ȳ)².
func R2(pred, y []float64) float64 {
	var mean float64
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	var se, ss float64
	for i, v := range y {
		se += (v - pred[i]) * (v - pred[i])
		ss += (v - mean) * (v - mean)
	}
	return 1 - se/ss
}

// MeanCI returns the mean, the sample standard deviation and the normal 95% interval of the mean.
func MeanCI(v []float64) (mean, std float64, ci [2]float64) {
	k := float64(len(v))
	for _, x := range v {
		mean += x
	}
	mean /= k
	if len(v) > 1 {
		var ss float64
		for _, x := range v {
			ss += (x - mean) * (x - mean)
		}
		std = math.Sqrt(ss / (k - 1))
	}
	h := 1.96 * std / math.Sqrt(k)
	return mean, std, [2]float64{mean - h, mean + h}
}

// WriteQuadFig2 draws one figure per (dataset, kernel) — the metric against n, one line per rule with its 95%
// interval — as dir/quad-fig2-<dataset>-<kernel>.png with the data as .csv beside it, and returns the paths.
func WriteQuadFig2(dir string, scores []Score) ([]string, error) {
	if len(scores) == 0 {
		return nil, errors.New("experiment: no scores to plot")
	}
	type key struct{ ds, k string }
	var order []key
	figs := map[key]*plotting.Figure{}
	for _, s := range scores {
		kk := key{s.Dataset, s.Kernel}
		f, ok := figs[kk]
		if !ok {
			y := "test accuracy"
			if s.Metric == "r2" {
				y = "test R²"
			}
			f = &plotting.Figure{Title: fmt.Sprintf("%s, %s kernel", s.Dataset, s.Kernel),
				XLabel: "n  (D = 2n(d+1) points)", YLabel: y}
			figs[kk] = f
			order = append(order, kk)
		}
		i := 0
		for i < len(f.Series) && f.Series[i].Name != s.Rule {
			i++
		}
		if i == len(f.Series) {
			f.Series = append(f.Series, plotting.Series{Name: s.Rule})
		}
		se := &f.Series[i]
		se.X = append(se.X, float64(s.N))
		se.Y = append(se.Y, s.Mean)
		se.Lo = append(se.Lo, s.CI95[0])
		se.Hi = append(se.Hi, s.CI95[1])
	}
	var paths []string
	for _, kk := range order {
		p := filepath.Join(dir, fmt.Sprintf("quad-fig2-%s-%s.png", kk.ds, kk.k))
		if err := plotting.SaveWithCSV(p, *figs[kk]); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
