package study

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/plotting"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/metrics"
	"github.com/rffkit/rff/rule"
)

// QuadFig2 is the downstream study of Munkhoeva et al. (2018), §4.3 and Figure 2: for each dataset, kernel, rule
// and n, map the whole training split with D = 2n(d+1) points (the protocol of Figure 1, docs/conventions.md §10:
// Gaussian kernel with γ = 1/d after the paper's scaling), train a linear model on the features and score it on the
// test split — accuracy for classification, R² for regression — over Runs independent draws of the rule.
//
// The paper trains scikit-learn's SVC and SVR (default C = 1) on the features. Here classification uses the
// linear SVM of package learn (hinge loss, dual coordinate descent, C = 1, i.e. λ = 1/(2N)), and regression uses
// ridge regression with the same λ (an ε-insensitive SVR is not implemented); the figure compares rules, which
// share the learner.
type QuadFig2 struct {
	Data
	// Datasets are benchmark names (see Benchmarks).
	Datasets []string `json:"datasets" flag:"datasets" help:"comma list of datasets"`
	// Kernels are kernel names (kernel.New).
	Kernels []string `json:"kernels" flag:"kernels" help:"comma list of kernels"`
	// Rules are rule names (rule.ParseList).
	Rules []string `json:"rules" flag:"rules" help:"comma list of rules"`
	// Ns are the values of n.
	Ns []int `json:"n" flag:"n" help:"comma list of n; D = 2n(d+1) points"`
	// Runs is the number of independent draws per point.
	Runs int `json:"runs" flag:"runs" help:"independent draws per point"`
	// Seed fixes every draw (approx.RunSeed derives one seed per rule, n and run).
	Seed uint64 `json:"seed" flag:"seed" help:"random seed"`
	Progress
}

// NewQuadFig2 returns the study with its defaults: Powerplant, LETTER and USPS; the Gaussian and arc-cosine kernels
// of orders 0 and 1; every rule; n = 1 … 5; 3 runs; seed 1; the data directory is left to the caller.
func NewQuadFig2() *QuadFig2 {
	return &QuadFig2{Datasets: []string{"powerplant", "letter", "usps"}, Kernels: []string{"gaussian", "arccos0", "arccos1"},
		Rules: strings.Split("g,orf,sorf,qmc,gq,sr-butterfly,sr-haar", ","), Ns: []int{1, 2, 3, 4, 5}, Runs: 3, Seed: 1}
}

// Validate checks the settings.
func (q *QuadFig2) Validate() error {
	if q.Runs < 1 || len(q.Datasets) == 0 || len(q.Kernels) == 0 {
		return fmt.Errorf("need runs ≥ 1, a dataset and a kernel, got %d runs, %d datasets, %d kernels", q.Runs,
			len(q.Datasets), len(q.Kernels))
	}
	errs := []error{checkPositiveInts("n", q.Ns), checkRules(q.Rules), q.Data.check()}
	for _, d := range q.Datasets {
		_, err := Lookup(d)
		errs = append(errs, err)
	}
	for _, k := range q.Kernels {
		_, err := kernel.New(k, 1)
		errs = append(errs, err)
	}
	errs = append(errs, checkArray("--runs (the results of the runs)", q.Runs),
		checkWork("--datasets × --kernels × --rules × --n × --runs", len(q.Datasets), len(q.Kernels), len(q.Rules),
			len(q.Ns), q.Runs))
	if err := firstError(errs...); err != nil {
		return err
	}
	for _, name := range q.Datasets {
		b, _ := Lookup(name)
		for _, n := range q.Ns {
			if err := checkPoints("--n (D = 2n(d+1) points in dimension d of "+name+")",
				approx.PointsForN(n, b.dim), b.dim); err != nil {
				return err
			}
		}
	}
	return nil
}

// Memory is, over the datasets (one loaded at a time), the larger of loading one (loadFactor times its values) and
// its rows held with the most demanding fit: the map with D = 2n(d+1) points (pointsBytes) and, for regression, the
// ridge statistics of its features (ridgeBytes); for classification, the N×F feature matrix of the training split
// (unless learn.Features refuses it) with the dual variables of the K one-vs-rest SVMs and the K weight vectors;
// and the results of the runs of one point and the scores.
func (q *QuadFig2) Memory() float64 {
	rules, _ := rule.ParseList(strings.Join(q.Rules, ","))
	var peak float64
	for _, name := range q.Datasets {
		b, err := Lookup(name)
		if err != nil {
			continue
		}
		d, ntr, nte, K := b.dim, float64(b.trainRows()), float64(b.test), float64(b.classes)
		var fit float64
		for _, kname := range q.Kernels {
			k, err := kernel.New(kname, 1)
			if err != nil {
				continue
			}
			_, even := k.(kernel.Spectral)
			for _, r := range rules {
				for _, n := range q.Ns {
					D := approx.PointsForN(n, d)
					pts := drawnPoints(r, d, D, even)
					F := pts
					if even {
						F *= 2
					}
					m := pointsBytes(r, d, D, even, false)
					if b.classes == 0 {
						m += ridgeBytes(ntr, pts, F, 1, 1, 0) + floats(nte)
					} else {
						m += guarded(floats(ntr, F), learn.DefaultFeatureMaxBytes) + blockBytes(256, pts, F) +
							floats(ntr, 1+K) + math.Min(workers(), K)*floats(3*ntr+F) + floats(2*K, F+1) +
							floats(nte, K)
					}
					fit = largest(fit, m)
				}
			}
		}
		peak = largest(peak, loadFactor*b.dataBytes(), b.dataBytes()+fit)
	}
	scores := float64(len(q.Datasets)) * float64(len(q.Kernels)) * float64(len(rules)) * float64(len(q.Ns))
	return peak + floats(float64(q.Runs)) + floats(scores, 16)
}

// MemoryFlags names the flags that lower Memory.
func (q *QuadFig2) MemoryFlags() string { return "--n, --datasets, --runs" }

// Steps is the number of models Run fits; 0 for invalid settings.
func (q *QuadFig2) Steps() int {
	return steps(q, len(q.Datasets)*len(q.Kernels)*len(q.Rules)*len(q.Ns)*q.Runs)
}

// Score is the test metric of one (dataset, kernel, rule, n) over the runs.
type Score struct {
	Dataset string     `json:"dataset"`
	Kernel  string     `json:"kernel"`
	Rule    string     `json:"rule"`
	N       int        `json:"n"`
	D       int        `json:"points"`
	Metric  string     `json:"metric"` // "accuracy" or "r2"
	Runs    int        `json:"runs"`
	Mean    float64    `json:"mean"`
	Std     float64    `json:"std"`
	CI95    [2]float64 `json:"ci95"`
	Seconds float64    `json:"seconds"` // mean wall time of one map + fit + score
}

// QuadFig2Result is what [QuadFig2] measured.
type QuadFig2Result struct {
	Runs   int     `json:"runs"`
	Seed   uint64  `json:"seed"`
	Scores []Score `json:"scores"`
}

// Run maps, fits and scores every (dataset, kernel, rule, n), one dataset at a time.
func (q *QuadFig2) Run(ctx context.Context) (Result, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	rules, err := rule.ParseList(strings.Join(q.Rules, ","))
	if err != nil {
		return nil, err
	}
	res := &QuadFig2Result{Runs: q.Runs, Seed: q.Seed}
	for _, name := range q.Datasets {
		b, err := Lookup(name)
		if err != nil {
			return nil, err
		}
		s, err := b.Load(q.DataDir, 0)
		if err != nil {
			return nil, err
		}
		for _, kname := range q.Kernels {
			sc, err := q.scores(ctx, s, kname, rules)
			if err != nil {
				return nil, err
			}
			res.Scores = append(res.Scores, sc...)
		}
	}
	return res, nil
}

// scores measures every rule and n on one dataset with one kernel.
func (q *QuadFig2) scores(ctx context.Context, s *Split, kname string, rules []rule.Rule) ([]Score, error) {
	d := s.Train.D
	k, err := kernel.New(kname, kernel.SigmaFromGamma(1/float64(d)))
	if err != nil {
		return nil, err
	}
	var out []Score
	for _, r := range rules {
		for _, n := range q.Ns {
			sc := Score{Dataset: s.Name, Kernel: kname, Rule: r.Name(), N: n, Metric: "accuracy", Runs: q.Runs}
			if s.Task == "regression" {
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
					return nil, fmt.Errorf("%s, %s, %s, n=%d: %w", s.Name, kname, r.Name(), n, err)
				}
				sc.Seconds += time.Since(t).Seconds() / float64(q.Runs)
				q.step()
			}
			st := metrics.Summarize(vals)
			sc.Mean, sc.Std, sc.CI95 = st.Mean, st.Std, st.CI95
			out = append(out, sc)
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
		return metrics.R2(pred, s.Test.Y), nil
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
	return metrics.Accuracy(learn.Argmax(scores, s.Test.N, K), s.TestClass), nil
}

// Summarize writes one line per score.
func (r *QuadFig2Result) Summarize(w io.Writer) error {
	return writeTable(w, "dataset\tkernel\trule\tn\tD\tmetric\tmean\t±95%\tseconds", "%s\t%s\t%s\t%d\t%d\t%s\t%.4f\t%.4f\t%.2f",
		r.Scores, func(s Score) []any {
			return []any{s.Dataset, s.Kernel, s.Rule, s.N, s.D, s.Metric, s.Mean, s.CI95[1] - s.Mean, s.Seconds}
		})
}

// Write draws one figure per (dataset, kernel) — the metric against n, one line per rule with its 95% interval —
// as dir/quad-fig2-<dataset>-<kernel>.png with the data as .csv beside it.
func (r *QuadFig2Result) Write(dir string) ([]string, error) {
	if len(r.Scores) == 0 {
		return nil, fmt.Errorf("quad-fig2: %w", errNoRows)
	}
	var figs []figure
	order, idx := groupBy(r.Scores, func(s Score) string { return s.Dataset + "-" + s.Kernel })
	for _, key := range order {
		s0 := r.Scores[idx[key][0]]
		y := "test accuracy"
		if s0.Metric == "r2" {
			y = "test R²"
		}
		f := plotting.Figure{Title: fmt.Sprintf("%s, %s kernel", s0.Dataset, s0.Kernel),
			XLabel: "n  (D = 2n(d+1) points)", YLabel: y}
		rules, byRule := groupBy(idx[key], func(i int) string { return r.Scores[i].Rule })
		for _, name := range rules {
			se := plotting.Series{Name: name}
			for _, j := range byRule[name] {
				s := r.Scores[idx[key][j]]
				measured(&se, float64(s.N), Stat{Mean: s.Mean, CI95: s.CI95})
			}
			f.Series = append(f.Series, se)
		}
		figs = append(figs, figure{fmt.Sprintf("quad-fig2-%s.png", key), f})
	}
	return saveFigures(dir, figs...)
}
