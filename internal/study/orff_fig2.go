package study

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/internal/plotting"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/metrics"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/vector"
)

// ORFFFig2 reproduces Figure 2 of the ORFF paper (§5.2): MNIST with a decomposable Gaussian kernel and simplex
// coding (docs/conventions.md §8.1; the paper prints k₀ = exp(−‖δ‖/σ²), docs/conventions.md §8.2 erratum: it is the
// Gaussian exp(−‖δ‖²/(2σ²))). The kernel is vector.SimplexKernel (A = CCᵀ = (k/(k−1))·I_{k−1}, k = 10 classes,
// targets the simplex code of the labels) for both ORFF (vector.Ridge.FitSimplex on an ovk map with D points) and
// the exact OVK (vector.KRR.FitSimplex), with an intercept and the same λ, so the ORFF model converges to the exact
// one as D grows. Two panels:
//
//   - time: wall time of one fit against N (log–log) for ORFF with TimeD points (map drawing included) and the
//     exact OVK (Gram matrix and Cholesky). Exact fits above ExactMaxN rows are not run (to bound the study's time)
//     and, when their 8N² bytes exceed the memory guard, the guard's refusal is recorded instead.
//   - error: test error against D at N = ErrorN, ORFF for every D and the exact OVK as a horizontal line.
//
// Inputs are the pixels divided by 255 (the "mnist" [Benchmark]); the paper scales them to [−1,1] and uses σ = 20,
// which is σ = 10 on pixels/255 (distances halve), the default here. The paper selects λ by 2-fold cross-validation
// on the training set; with Lambda = 0 λ is selected by 2-fold cross-validation of the exact OVK's error on the first
// run's ErrorN training rows over LambdaGrid, and then used by every fit. The default LambdaRule is the
// one-standard-error rule: on MNIST at N = 1000 the cross-validated error is flat for λ ≤ 10⁻⁴ (11.3–11.9%, one
// standard error ≈ 1 point), the smallest error sits on the grid's edge (10⁻⁶), and at that λ the ORFF model is
// close to interpolation (its error peaks where 2D ≈ N and is still 2 points above the exact OVK at D = 2000),
// while the rule picks 10⁻⁴, where the exact OVK loses half a point and ORFF converges monotonically. Each run draws
// its training rows at random from the 60000 of the training split (and the ORFF map); the test rows are the first
// Test of the test split.
type ORFFFig2 struct {
	// Data holds the directory of the datasets (MNIST under mnist/).
	Data
	// Sigma is the Gaussian bandwidth on pixels/255 (10 = the paper's 20 on [−1,1]).
	Sigma float64 `json:"sigma" flag:"sigma" help:"Gaussian bandwidth on pixels/255 (10 = the paper's σ = 20 on [−1,1])"`
	// Lambda is λ; 0 selects it by 2-fold cross-validation over LambdaGrid.
	Lambda float64 `json:"lambda" flag:"lambda" help:"ridge λ of every fit; 0 selects it by 2-fold cross-validation of the exact OVK"`
	// LambdaRule picks λ from the cross-validation errors: "1se", the largest λ whose error is within one standard
	// error √(e(1−e)/n) of the smallest (the one-standard-error rule of Breiman et al. 1984; Hastie et al., ESL
	// §7.10), or "min", the smallest error (ties to the larger λ).
	LambdaRule string `json:"lambda_rule" flag:"lambda-rule" help:"how the cross-validation picks λ: 1se (largest λ within one standard error of the best) or min"`
	// LambdaGrid is the cross-validation grid.
	LambdaGrid []float64 `json:"lambda_grid" flag:"lambda-grid" help:"comma list of λ for the cross-validation"`
	// ErrorN is the number of training rows of the error panel.
	ErrorN int `json:"error_n" flag:"n-error" help:"training rows of the error-vs-D panel"`
	// Ds are the points D of the error panel.
	Ds []int `json:"map_points" flag:"D" help:"comma list of D (points) of the error-vs-D panel"`
	// TimeD is D for the ORFF timings.
	TimeD int `json:"time_map_points" flag:"time-D" help:"D (points) of the ORFF timings"`
	// Ns are the training sizes of the time panel.
	Ns []int `json:"train_rows" flag:"N" help:"comma list of training sizes N of the time-vs-N panel"`
	// ExactMaxN is the largest N at which the exact OVK is timed (8000 by default: beyond, the pairwise N×N Gram
	// matrix in d = 784 dominates the study's time).
	ExactMaxN int `json:"exact_max_n" flag:"exact-max-n" help:"largest N at which the exact OVK is timed (larger N: refused by the memory guard, or skipped)"`
	// ExactMaxBytes is the exact OVK's memory guard (0: learn.DefaultKRRMaxBytes, 4 GiB).
	ExactMaxBytes GiB `json:"exact_max_bytes" flag:"exact-max-gib" help:"memory guard of the exact OVK in GiB (0: the library's default, 4)"`
	// Test is the number of test rows.
	Test int `json:"test" flag:"test" help:"test rows (the first of MNIST's test split)"`
	Draws
	Progress
}

// NewORFFFig2 returns the study with its defaults: σ = 10, λ by cross-validation (rule 1se) over 10⁻⁶ … 10⁻², the
// error panel at N = 1000 for D = 10 … 4000, the time panel for N = 500 … 60000 with D = 1000 and the exact OVK up
// to N = 8000, 5000 test rows, 3 runs of the rule g (the paper's); the data directory is left to the caller.
func NewORFFFig2() *ORFFFig2 {
	return &ORFFFig2{Sigma: 10, LambdaRule: "1se", LambdaGrid: learn.LogGrid(1e-6, 1e-2, 5), ErrorN: 1000,
		Ds: []int{10, 20, 50, 100, 200, 500, 1000, 2000, 4000}, TimeD: 1000,
		Ns: []int{500, 1000, 2000, 4000, 8000, 16000, 30000, 60000}, ExactMaxN: 8000, Test: 5000,
		Draws: defaultDraws(3)}
}

// Validate checks the settings.
func (s *ORFFFig2) Validate() error {
	if s.Lambda < 0 || math.IsNaN(s.Lambda) || math.IsInf(s.Lambda, 0) {
		return fmt.Errorf("λ must be positive and finite (0 selects it), got %v", s.Lambda)
	}
	if s.LambdaRule != "1se" && s.LambdaRule != "min" {
		return fmt.Errorf("λ rule must be 1se or min, got %q", s.LambdaRule)
	}
	if s.ErrorN < 4 || s.TimeD < 1 || s.ExactMaxN < 1 || s.Test < 1 || s.ExactMaxBytes < 0 {
		return fmt.Errorf("orff-fig2 needs error N ≥ 4 and time D, exact max N, test rows ≥ 1 (got %d, %d, %d, %d)",
			s.ErrorN, s.TimeD, s.ExactMaxN, s.Test)
	}
	errs := []error{checkBandwidth(s.Sigma), checkPositive("λ grid values", s.LambdaGrid...),
		checkPositiveInts("D", s.Ds), checkPositiveInts("N", s.Ns), s.Draws.check(), s.Data.check()}
	if err := firstError(errs...); err != nil {
		return err
	}
	b, _ := Lookup("mnist")
	errs = []error{checkArray("--n-error × d (the training rows)", s.ErrorN, b.dim),
		checkArray("--test × d (the test rows)", s.Test, b.dim), checkORFF("--time-D", s.TimeD, b.dim, b.classes-1),
		checkWork("--runs × (--D, --N)", s.Runs, len(s.Ds)+2*len(s.Ns)+2)}
	for _, D := range s.Ds {
		errs = append(errs, checkORFF("--D", D, b.dim, b.classes-1))
	}
	for _, N := range s.Ns {
		errs = append(errs, checkArray("--N × d (the training rows)", N, b.dim))
	}
	return firstError(errs...)
}

// Memory is the larger of loading MNIST (loadFactor times its 70000×785 values) and its rows held with the most
// demanding phase: the cross-validation of λ (the exact OVK on half of ErrorN rows with the eigendecomposition of
// its Gram matrix, 3·8(N/2)² bytes unless its guard refuses them, and the copy of the rows each of its fits keeps),
// the error panel (the exact OVK on ErrorN rows, 8N² bytes unless ExactMaxBytes refuses them, or the ORFF fit with
// the largest D: its map and the statistics of the 2D scalar features, ridgeBytes) and the time panel (the same at
// each N, the exact OVK up to ExactMaxN).
func (s *ORFFFig2) Memory() float64 {
	b, _ := Lookup("mnist")
	r, d, p := s.parseRule(), b.dim, b.classes-1
	fd, fp, test := float64(d), float64(p), float64(s.Test)
	predict := float64(32<<20) + floats(test, fp)
	exact := func(n, copies, limit float64) float64 {
		return guarded(copies*floats(n, n), limit) + floats(n, fd+2*fp) + predict
	}
	orff := func(n float64, D int) float64 {
		pts := drawnPoints(r, d, D, true)
		return orffMapBytes(ovk.Decomposable, r, d, D, p, p) + ridgeBytes(n, pts, 2*pts, fp, 2, 0) +
			floats(n, fp) + floats(test, fp) + blockBytes(64, pts, 2*pts)
	}
	ne := float64(s.ErrorN)
	var phase float64
	if s.Lambda == 0 {
		half := math.Ceil(ne / 2)
		phase = floats(2*ne, fd) + exact(half, 3, learn.DefaultKRRMaxBytes) +
			floats(float64(len(s.LambdaGrid)), half, fd+2*fp)
	}
	errPanel := exact(ne, 1, s.exactLimit())
	for _, D := range s.Ds {
		errPanel = largest(errPanel, orff(ne, D))
	}
	phase = largest(phase, floats(ne, fd)+errPanel)
	for _, N := range s.Ns {
		n, fit := float64(N), orff(float64(N), s.TimeD)
		if N <= s.ExactMaxN {
			fit = largest(fit, exact(n, 1, s.exactLimit()))
		}
		phase = largest(phase, floats(n, fd)+fit)
	}
	results := floats(float64(s.Runs), float64(len(s.Ds)+2*len(s.Ns)+1))
	return largest(loadFactor*b.dataBytes(), b.dataBytes()+phase) + results
}

// MemoryFlags names the flags that lower Memory.
func (s *ORFFFig2) MemoryFlags() string {
	return "--N, --n-error, --D, --time-D, --exact-max-n, --exact-max-gib, --runs"
}

// Steps is the number of fits Run makes (the cross-validation counts as one); 0 for invalid settings.
func (s *ORFFFig2) Steps() int {
	n := s.Runs * (1 + len(s.Ds))
	if s.Lambda == 0 {
		n++
	}
	for _, N := range s.Ns {
		n += s.Runs
		if N <= s.ExactMaxN {
			n += s.Runs
		}
	}
	return steps(s, n)
}

func (s *ORFFFig2) exactLimit() float64 {
	if s.ExactMaxBytes > 0 {
		return float64(s.ExactMaxBytes)
	}
	return learn.DefaultKRRMaxBytes
}

// orffName and exactName are the model names of the rows.
const (
	orffName  = "ORFF"
	exactName = "exact OVK"
)

// simplexCV returns the λ of grid chosen from the 2-fold cross-validated errors of the exact OVK (interleaved folds)
// and the errors: the smallest error (ties go to the larger λ) or, with oneSE, the largest λ whose error is within
// one standard error √(e(1−e)/n) of the smallest.
func simplexCV(k *ovk.Kernel, X []float64, n, d int, labels []int, classes int, grid []float64, oneSE bool) (float64, []float64, error) {
	errs := make([]float64, len(grid))
	for fold := 0; fold < 2; fold++ {
		var xtr, xva []float64
		var ltr, lva []int
		for i := 0; i < n; i++ {
			if i%2 == fold {
				xva, lva = append(xva, X[i*d:(i+1)*d]...), append(lva, labels[i])
			} else {
				xtr, ltr = append(xtr, X[i*d:(i+1)*d]...), append(ltr, labels[i])
			}
		}
		fits, err := vector.KRR{Kernel: k, Intercept: true}.FitPath(xtr, len(ltr), d,
			learn.SimplexEncode(ltr, classes), grid)
		if err != nil {
			return 0, nil, err
		}
		for i, f := range fits {
			pred, err := f.Classify(xva, len(lva))
			if err != nil {
				return 0, nil, err
			}
			errs[i] += (1 - metrics.Accuracy(pred, lva)) / 2
		}
	}
	best := 0
	for i := range errs {
		if errs[i] < errs[best] || errs[i] == errs[best] && grid[i] > grid[best] {
			best = i
		}
	}
	if oneSE {
		e := errs[best]
		limit := e + math.Sqrt(e*(1-e)/float64(n))
		for i := range errs {
			if errs[i] <= limit && grid[i] > grid[best] {
				best = i
			}
		}
	}
	return grid[best], errs, nil
}

// Run loads MNIST, selects λ (when Lambda = 0), then measures the error panel and the time panel. It returns an
// error wrapping ErrNoData when MNIST is missing.
func (s *ORFFFig2) Run(ctx context.Context) (Result, error) {
	return run(ctx, s, plan[LearnRow]{s, s.Rule, s.measure, s.summarize, s.write, learnTable(false)})
}

// fig2Data is MNIST as the study uses it.
type fig2Data struct {
	s                 *ORFFFig2
	k                 *ovk.Kernel
	d, classes, total int
	train             []float64
	trainClass        []int
	Xt                []float64 // the test rows
	lt                []int     // their labels
}

// sample draws the n training rows of a run.
func (f *fig2Data) sample(n, run int) ([]float64, []int) {
	rng := rand.New(rand.NewPCG(approx.RunSeed(f.s.Seed, "orff-fig2/rows", n, run), 0xf162))
	x, _, l := subsetRows(rng, f.total, n, f.train, f.d, nil, 0, f.trainClass)
	return x, l
}

func (s *ORFFFig2) load() (*fig2Data, error) {
	b, err := Lookup("mnist")
	if err != nil {
		return nil, err
	}
	sp, err := b.Load(s.DataDir, 0)
	if err != nil {
		return nil, err
	}
	f := &fig2Data{s: s, d: sp.Train.D, classes: len(sp.Classes), total: sp.Train.N, train: sp.Train.X,
		trainClass: sp.TrainClass}
	if N := max(s.ErrorN, slices.Max(s.Ns)); N > f.total {
		return nil, fmt.Errorf("orff-fig2: N = %d exceeds the %d training rows of MNIST", N, f.total)
	}
	if s.Test > sp.Test.N {
		return nil, fmt.Errorf("orff-fig2: %d test rows requested, MNIST has %d", s.Test, sp.Test.N)
	}
	f.Xt, f.lt = sp.Test.X[:s.Test*f.d], sp.TestClass[:s.Test]
	f.k, err = vector.SimplexKernel(kernel.Gaussian{S: s.Sigma}, f.classes)
	return f, err
}

func (s *ORFFFig2) measure(ctx context.Context) ([]LearnRow, error) {
	r := s.parseRule()
	data, err := s.load()
	if err != nil {
		return nil, err
	}
	d, classes, k := data.d, data.classes, data.k
	lambda, note := s.Lambda, "λ given"
	if lambda == 0 {
		X, l := data.sample(s.ErrorN, 0)
		var cv []float64
		if lambda, cv, err = simplexCV(k, X, s.ErrorN, d, l, classes, s.LambdaGrid, s.LambdaRule == "1se"); err != nil {
			return nil, fmt.Errorf("orff-fig2 cross-validation: %w", err)
		}
		parts := make([]string, len(cv))
		for i, e := range cv {
			parts[i] = fmt.Sprintf("%g: %.2f%%", s.LambdaGrid[i], 100*e)
		}
		note = fmt.Sprintf("λ by 2-fold CV of the exact OVK at N=%d, rule %s (%s)", s.ErrorN, s.LambdaRule,
			strings.Join(parts, ", "))
		s.step()
	}
	orff := vector.Ridge{Lambda: lambda, Intercept: true}
	exact := vector.KRR{Kernel: k, Lambda: lambda, Intercept: true, MaxBytes: int64(s.ExactMaxBytes)}
	testError := func(pred []int, err error) (float64, error) {
		return 1 - metrics.Accuracy(pred, data.lt), err
	}

	// Error panel.
	exactErr := make([]float64, s.Runs)
	orffErr := make([][]float64, len(s.Ds))
	for i := range orffErr {
		orffErr[i] = make([]float64, s.Runs)
	}
	points := make([]int, len(s.Ds))
	for run := range s.Runs {
		X, l := data.sample(s.ErrorN, run)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := exact.FitSimplex(X, s.ErrorN, d, l, classes)
		if err != nil {
			return nil, fmt.Errorf("orff-fig2 exact OVK, N=%d: %w", s.ErrorN, err)
		}
		if exactErr[run], err = testError(f.Classify(data.Xt, s.Test)); err != nil {
			return nil, err
		}
		s.step()
		for i, D := range s.Ds {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			m, err := ovk.New(k, r, d, D, approx.RunSeed(s.Seed, "orff-fig2/map", D, run))
			if err != nil {
				return nil, err
			}
			points[i] = m.Points()
			of, err := orff.FitSimplex(m, X, s.ErrorN, l, classes)
			if err != nil {
				return nil, fmt.Errorf("orff-fig2 ORFF, D=%d: %w", D, err)
			}
			if orffErr[i][run], err = testError(of.Classify(m, data.Xt, s.Test)); err != nil {
				return nil, err
			}
			s.step()
		}
	}
	rows := []LearnRow{{Panel: "error", Model: exactName, N: s.ErrorN, Metric: "test error", Stat: statOf(exactErr),
		Lambda: lambda, Note: note}}
	for i := range s.Ds {
		rows = append(rows, LearnRow{Panel: "error", Model: orffName, N: s.ErrorN, D: points[i], Metric: "test error",
			Stat: statOf(orffErr[i]), Lambda: lambda})
	}

	// Time panel. A small fit first, so that thread start-up is not timed.
	{
		X, l := data.sample(50, 0)
		m, err := ovk.New(k, r, d, 20, 1)
		if err != nil {
			return nil, err
		}
		if _, err := orff.FitSimplex(m, X, 50, l, classes); err != nil {
			return nil, err
		}
	}
	for _, N := range s.Ns {
		ot, et := make([]float64, s.Runs), make([]float64, s.Runs)
		D := 0
		var X []float64
		var l []int
		exactFit := func() error {
			_, err := exact.FitSimplex(X, N, d, l, classes)
			return err
		}
		for run := range s.Runs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			X, l = data.sample(N, run)
			if ot[run], err = timed(func() error {
				m, err := ovk.New(k, r, d, s.TimeD, approx.RunSeed(s.Seed, "orff-fig2/time", N, run))
				if err != nil {
					return err
				}
				D = m.Points()
				_, err = orff.FitSimplex(m, X, N, l, classes)
				return err
			}); err != nil {
				return nil, fmt.Errorf("orff-fig2 ORFF, N=%d: %w", N, err)
			}
			s.step()
			if N <= s.ExactMaxN {
				if et[run], err = timed(exactFit); err != nil {
					return nil, fmt.Errorf("orff-fig2 exact OVK, N=%d: %w", N, err)
				}
				s.step()
			}
		}
		rows = append(rows, LearnRow{Panel: "time", Model: orffName, N: N, D: D, Metric: "seconds", Stat: statOf(ot),
			Lambda: lambda})
		er := LearnRow{Panel: "time", Model: exactName, N: N, Metric: "seconds", Lambda: lambda}
		if N <= s.ExactMaxN {
			er.Stat = statOf(et)
		} else {
			er.Note = skippedOrRefused(N, s.exactLimit(), exactFit,
				fmt.Sprintf("N above the study's exact_max_n = %d", s.ExactMaxN))
		}
		rows = append(rows, er)
	}
	return rows, nil
}

// write draws the time panel (log–log) as dir/orff-fig2-time.png and the error panel (test error in % against D,
// log D, the exact OVK as a horizontal line) as dir/orff-fig2-error.png, each with its CSV.
func (s *ORFFFig2) write(dir string, rows []LearnRow) ([]string, error) {
	runs := rows[0].Runs
	tfig := logLog(fmt.Sprintf("ORFF (Brault et al. 2016, Fig. 2): MNIST fit time vs N, decomposable kernel + "+
		"simplex coding\nσ=%g (pixels/255); mean ± 95%% CI (%d runs)", s.Sigma, runs), "N (training rows)",
		"fit time (s)")
	tfig.Series = []plotting.Series{
		learnSeries(fmt.Sprintf("ORFF, D=%d", s.TimeD), "time", orffName, rows, byN, 1),
		learnSeries("exact OVK", "time", exactName, rows, byN, 1),
	}
	efig := logLog(fmt.Sprintf("ORFF (Brault et al. 2016, Fig. 2): MNIST test error vs D at N=%d\nσ=%g "+
		"(pixels/255), %d test rows; mean ± 95%% CI (%d runs)", s.ErrorN, s.Sigma, s.Test, runs),
		"D (points; 2·D·9 features)", "test error (%)")
	efig.LogY = false
	orff := learnSeries("ORFF", "error", orffName, rows, byD, 100)
	efig.Series = append(efig.Series, orff)
	if ex := rowsOf(rows, "error", exactName, false); len(ex) > 0 && len(orff.X) > 0 {
		efig.Series = append(efig.Series, hline("exact OVK", ex[0], orff.X[0], orff.X[len(orff.X)-1], 100))
	}
	return saveFigures(dir, figure{"orff-fig2-time.png", tfig}, figure{"orff-fig2-error.png", efig})
}

// summarize fits the log–log slopes of the fit times against N (the paper: ORFF scales better than OVK; ORFF is
// linear in N, the exact OVK cubic asymptotically), lists the N refused by the memory guard, and compares the ORFF
// test error with the exact OVK's at every D (the acceptance: within 1.5 percentage points for D ≥ 2000).
func (s *ORFFFig2) summarize(rows []LearnRow) (Summary, error) {
	var out Summary
	var parts []string
	if f, ok, err := timeFit(rows, orffName, 1); err != nil {
		return Summary{}, err
	} else if ok {
		out.Fits = append(out.Fits, f)
		parts = append(parts, fmt.Sprintf("ORFF (D=%d) fit time vs N: log–log slope %s (affine fit t = a + b·N: "+
			"R² = %.3f)", s.TimeD, signed(f.Slope, f.SlopeSE), affineR2(rows, orffName)))
	}
	exactTimes, orffTimes := rowsOf(rows, "time", exactName, true), rowsOf(rows, "time", orffName, true)
	if f, ok, err := timeFit(rows, exactName, 3); err != nil {
		return Summary{}, err
	} else if ok {
		out.Fits = append(out.Fits, f)
		parts = append(parts, fmt.Sprintf("exact OVK: slope %s over N = %d…%d", signed(f.Slope, f.SlopeSE),
			exactTimes[0].N, exactTimes[len(exactTimes)-1].N))
	}
	// Largest N with both times.
	var ratio string
	for _, r := range exactTimes {
		if o, ok := findRow(orffTimes, func(o LearnRow) bool { return o.N == r.N }); ok {
			ratio = fmt.Sprintf("at N=%d the exact fit takes %.3g s against %.3g s for ORFF (%.1f×)", r.N, r.Mean,
				o.Mean, r.Mean/o.Mean)
		}
	}
	if ratio != "" {
		parts = append(parts, ratio)
	}
	last := LearnRow{Stat: Stat{Mean: math.NaN()}}
	if len(orffTimes) > 0 {
		last = orffTimes[len(orffTimes)-1]
	}
	refused := notedNs(rows, exactName, "refused")
	if len(refused) > 0 {
		r, _ := findRow(rows, func(r LearnRow) bool { return r.Panel == "time" && r.Model == exactName && r.N == refused[0] })
		parts = append(parts, fmt.Sprintf("the exact OVK is stopped by the memory guard at N = %s (%s), where ORFF "+
			"still fits (largest N = %d: %.3g s)", intsText(refused),
			strings.TrimPrefix(r.Note, "refused by the memory guard: "), last.N, last.Mean))
	}
	if ns := notedNs(rows, exactName, "skipped"); len(ns) > 0 {
		parts = append(parts, fmt.Sprintf("exact fits at N = %s were skipped to bound the study's time", intsText(ns)))
	}
	// The acceptance of the time panel: ORFF fit time grows linearly in N up to N = 60000 while the exact model is
	// stopped by the memory guard.
	if last.N > 0 {
		lin := affineR2(rows, orffName)
		stopped := len(refused) > 0 && refused[len(refused)-1] == last.N
		verdict := "met"
		if last.N < 60000 || !(lin >= 0.98) || !stopped {
			verdict = "NOT met"
		}
		parts = append(parts, fmt.Sprintf("acceptance (ORFF time linear in N up to N = 60000, exact OVK stopped by the "+
			"memory guard): largest ORFF N = %d, affine R² %.3f (≥ 0.98 taken as linear), exact refused at the "+
			"largest N: %v — %s", last.N, lin, stopped, verdict))
	}
	if ex := rowsOf(rows, "error", exactName, false); len(ex) > 0 {
		parts = append(parts, fig2Errors(ex[0], rowsOf(rows, "error", orffName, false), s.Test)...)
	}
	out.Finding = fmt.Sprintf("Figure 2 (MNIST, decomposable Gaussian kernel σ=%g on pixels/255 with simplex coding, "+
		"%d runs): the paper shows ORFF scaling better than the exact OVK in N and the ORFF test error converging to "+
		"the OVK's as D grows. Measured: %s.", s.Sigma, rows[0].Runs, strings.Join(parts, "; "))
	return out, nil
}

// fig2Errors compares the ORFF test errors with the exact OVK's: the errors, where the ORFF error rises
// significantly with D, and the largest gap for D ≥ 2000 (the acceptance: at most 1.5 percentage points).
func fig2Errors(ex LearnRow, orff []LearnRow, test int) []string {
	var errs, peaks []string
	worst, any := 0.0, false
	for i, r := range orff {
		errs = append(errs, fmt.Sprintf("%.2f%% (D=%d)", 100*r.Mean, r.D))
		if r.D >= 2000 {
			worst, any = max(worst, math.Abs(r.Mean-ex.Mean)), true
		}
		if i > 0 && r.CI95[0] > orff[i-1].CI95[1] {
			peaks = append(peaks, fmt.Sprintf("D=%d (%d scalar features against N=%d rows)", r.D, 2*r.D, r.N))
		}
	}
	parts := []string{fmt.Sprintf("test error at N=%d (%d test rows, λ=%.3g, %s): exact OVK %.2f%% ± %.2f, ORFF %s",
		ex.N, test, ex.Lambda, ex.Note, 100*ex.Mean, 100*(ex.CI95[1]-ex.Mean), strings.Join(errs, ", "))}
	if len(peaks) > 0 {
		parts = append(parts, "the ORFF error rises significantly with D at "+strings.Join(peaks, ", "))
	}
	if any {
		verdict := "met"
		if worst > 0.015 {
			verdict = "NOT met"
		}
		parts = append(parts, fmt.Sprintf("largest |ORFF − exact| gap for D ≥ 2000: %.2f percentage points "+
			"(acceptance ≤ 1.5: %s)", 100*worst, verdict))
	}
	return parts
}
