package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/atomicfile"
	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/plotting"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/metrics"
	"github.com/rffkit/rff/rule"
)

// QuadFig3 is the wall-time study of Munkhoeva et al. (2018), §4.4 and Figure 3 ("Time spent on explicit mapping"):
// for each dataset (by increasing input dimension d) and each rule, the mean wall time of mapping a fixed number of
// rows through the Gaussian feature map with D = 2n(d+1) points. The paper shows dense rules (G, ORF, GQ) growing
// like O(Dd) = O(nd²) and the butterfly SR rule like O(nd log d).
//
// The protocol, as far as the paper states it: "running each experiment 50 times and averaging the measurements",
// on LETTER (d = 16), USPS (256), MNIST (784), CIFAR100 (3072, not available here) and LEUKEMIA (7129). The paper
// gives neither n nor the number of rows; here they are fields: by default n = 1 and Rows = 1000 rows of the
// training split, taken cyclically when the split has fewer (LEUKEMIA's 38 training rows; the cost of a map does
// not depend on the values). Data are scaled as in the paper's other experiments (docs/conventions.md §10: divided
// by the global maximum of the training split; MNIST by 255), with the Gaussian kernel of γ = 1/d, cos/sin form (2D
// columns).
//
// What is timed is the map alone (feature.Map.TransformRows on all cores, the output allocated once and one
// untimed warm-up map first), not drawing the points: a map is drawn once per (dataset, rule) from Seed and mapped
// Runs times, and the time of that draw is reported separately (Timing.DrawSeconds; for ORF at d = 7129 it is two
// 7129×7129 QR factorizations). Dense rules run through gonum's Dgemm, which is OpenBLAS when the program installs
// the fast backend of internal/linalg (as the rff command does).
type QuadFig3 struct {
	Data
	// Datasets are benchmark names (see Lookup) or "leukemia" (read with dataset.LoadLeukemiaSplit from
	// DataDir/leukemia).
	Datasets []string `json:"datasets" flag:"datasets" help:"comma list of datasets"`
	// Rules are rule names (rule.ParseList).
	Rules []string `json:"rules" flag:"rules" help:"comma list of rules"`
	// N is n in D = 2n(d+1) points.
	N int `json:"n" flag:"n" help:"n in D = 2n(d+1) points (cos/sin: 2D columns)"`
	// Rows is the number of rows mapped per measurement.
	Rows int `json:"rows" flag:"rows" help:"rows mapped per measurement (taken cyclically from the training split)"`
	// Runs is the number of timed maps per (dataset, rule).
	Runs int `json:"runs" flag:"runs" help:"timed maps per dataset and rule (the paper averages 50)"`
	// Seed fixes the maps (approx.RunSeed derives one seed per rule and dataset dimension).
	Seed uint64 `json:"seed" flag:"seed" help:"random seed"`
	Progress
}

// QuadFig3Datasets lists the datasets of the paper's Figure 3 that the study can load, in order of dimension.
func QuadFig3Datasets() []string { return []string{"letter", "usps", "mnist", "leukemia"} }

// NewQuadFig3 returns the study with its defaults: LETTER, USPS, MNIST and LEUKEMIA; the rules g, orf, gq and
// sr-butterfly of the paper's figure; n = 1; 1000 rows; 10 runs (the paper averages 50); seed 1; the data directory
// is left to the caller.
func NewQuadFig3() *QuadFig3 {
	return &QuadFig3{Datasets: QuadFig3Datasets(), Rules: []string{"g", "orf", "gq", "sr-butterfly"}, N: 1, Rows: 1000,
		Runs: 10, Seed: 1}
}

// Validate checks the settings without reading any data.
func (q *QuadFig3) Validate() error {
	if q.N < 1 || q.Rows < 1 || q.Runs < 1 {
		return fmt.Errorf("n, rows and runs must be at least 1, got %d, %d, %d", q.N, q.Rows, q.Runs)
	}
	for _, name := range q.Datasets {
		if !slices.Contains(QuadFig3Datasets(), name) {
			return fmt.Errorf("unknown dataset %q (have %s)", name, strings.Join(QuadFig3Datasets(), ", "))
		}
	}
	if len(q.Datasets) == 0 {
		return fmt.Errorf("no dataset given")
	}
	if err := firstError(checkRules(q.Rules), q.Data.check(), checkArray("--runs (the timings)", q.Runs),
		checkWork("--datasets × --rules × --runs", len(q.Datasets), len(q.Rules), q.Runs)); err != nil {
		return err
	}
	for _, name := range q.Datasets {
		b := quadFig3Benchmark(name)
		D := approx.PointsForN(q.N, b.dim)
		if err := firstError(checkPoints("--n (D = 2n(d+1) points in dimension d of "+name+")", D, b.dim),
			checkArray("--rows × d (the rows of "+name+")", q.Rows, b.dim),
			checkArray("--rows × --n (the 2D = 4n(d+1) features of "+name+")", q.Rows, D, 2)); err != nil {
			return err
		}
	}
	return nil
}

// quadFig3Benchmark is the benchmark called name, or LEUKEMIA's sizes (38 training and 34 test rows of 7129 genes).
func quadFig3Benchmark(name string) Benchmark {
	if name == "leukemia" {
		return Benchmark{Name: name, rows: 72, test: 34, dim: 7129, classes: 2}
	}
	b, _ := Lookup(name)
	return b
}

// Memory is, over the datasets (one loaded at a time), the larger of loading one (loadFactor times its values, 3
// for LEUKEMIA's text) and its rows held with the Rows rows mapped, the largest map with D = 2n(d+1) points
// (pointsBytes; the orthogonal d×d matrices of orf and sr-haar are the largest part at high d), its Rows×2D
// features and the projections of a block of 256 rows per worker.
func (q *QuadFig3) Memory() float64 {
	rules, _ := rule.ParseList(strings.Join(q.Rules, ","))
	rows := float64(q.Rows)
	var peak float64
	for _, name := range q.Datasets {
		b := quadFig3Benchmark(name)
		D := approx.PointsForN(q.N, b.dim)
		var fit float64
		for _, r := range rules {
			pts := drawnPoints(r, b.dim, D, true)
			fit = largest(fit, pointsBytes(r, b.dim, D, true, false)+floats(rows, 2*pts)+
				blockBytes(math.Min(256, rows), pts, 0))
		}
		load := loadFactor
		if name == "leukemia" {
			load = 3
		}
		peak = largest(peak, load*b.dataBytes(), b.dataBytes()+floats(rows, float64(b.dim))+fit)
	}
	return peak + floats(float64(q.Runs))
}

// MemoryFlags names the flags that lower Memory.
func (q *QuadFig3) MemoryFlags() string { return "--rows, --n, --datasets, --rules, --runs" }

// Steps is the number of timed maps Run performs; 0 for invalid settings.
func (q *QuadFig3) Steps() int { return steps(q, len(q.Datasets)*len(q.Rules)*q.Runs) }

// Timing is the wall time of mapping Rows rows of one dataset with one rule, over Runs maps.
type Timing struct {
	Dataset string `json:"dataset"`
	Dim     int    `json:"d"`
	Rule    string `json:"rule"`
	N       int    `json:"n"`
	// D is the number of points drawn (the map has 2D columns).
	D    int `json:"points"`
	Rows int `json:"rows"`
	Runs int `json:"runs"`
	// Mean, Std and CI95 are the seconds of one map of Rows rows: mean, sample standard deviation and normal 95%
	// interval of the mean.
	Mean float64    `json:"mean_seconds"`
	Std  float64    `json:"std_seconds"`
	CI95 [2]float64 `json:"ci95_seconds"`
	// RowsPerSecond is Rows/Mean.
	RowsPerSecond float64 `json:"rows_per_second"`
	// DrawSeconds is the time taken to draw the map's points (once, not part of Mean).
	DrawSeconds float64 `json:"draw_seconds"`
}

// QuadFig3Result is what [QuadFig3] measured, with the linear-algebra backend it ran on.
type QuadFig3Result struct {
	N       int      `json:"n"`
	Rows    int      `json:"rows"`
	Runs    int      `json:"runs"`
	Seed    uint64   `json:"seed"`
	Backend string   `json:"backend"`
	Timings []Timing `json:"timings"`
}

// Run times every (dataset, rule), one dataset at a time (only one is held in memory). A missing dataset gives an
// error wrapping ErrNoData.
func (q *QuadFig3) Run(ctx context.Context) (Result, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	rules, err := rule.ParseList(strings.Join(q.Rules, ","))
	if err != nil {
		return nil, err
	}
	res := &QuadFig3Result{N: q.N, Rows: q.Rows, Runs: q.Runs, Seed: q.Seed, Backend: linalg.Info().String()}
	for _, name := range q.Datasets {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x, d, err := timingRows(q.DataDir, name, q.Rows)
		if err != nil {
			return nil, err
		}
		k := kernel.Gaussian{S: kernel.SigmaFromGamma(1 / float64(d))}
		for _, r := range rules {
			tm, err := q.time(ctx, name, x, d, k, r)
			if err != nil {
				return nil, fmt.Errorf("%s, %s: %w", name, r.Name(), err)
			}
			res.Timings = append(res.Timings, tm)
		}
	}
	return res, nil
}

// time draws the map of rule r and measures Runs maps of the rows x (q.Rows × d).
func (q *QuadFig3) time(ctx context.Context, name string, x []float64, d int, k kernel.Kernel, r rule.Rule) (Timing, error) {
	t := Timing{Dataset: name, Dim: d, Rule: r.Name(), N: q.N, Rows: q.Rows, Runs: q.Runs}
	t0 := time.Now()
	m, err := feature.New(k, r, d, approx.PointsForN(q.N, d), approx.RunSeed(q.Seed, r.Name(), q.N, d))
	if err != nil {
		return t, err
	}
	t.DrawSeconds = time.Since(t0).Seconds()
	t.D = m.Points()
	z := make([]float64, q.Rows*m.Features())
	if err := m.TransformRows(z, x, q.Rows); err != nil { // warm-up: page in z, start the BLAS threads
		return t, err
	}
	secs := make([]float64, q.Runs)
	for i := range secs {
		if err := ctx.Err(); err != nil {
			return t, err
		}
		t1 := time.Now()
		if err := m.TransformRows(z, x, q.Rows); err != nil {
			return t, err
		}
		secs[i] = time.Since(t1).Seconds()
		q.step()
	}
	s := metrics.Summarize(secs)
	t.Mean, t.Std, t.CI95 = s.Mean, s.Std, s.CI95
	t.RowsPerSecond = float64(q.Rows) / t.Mean
	return t, nil
}

// timingRows loads the training split of a dataset with the paper's scaling and returns rows of it (cycled when
// the split is shorter) and the dimension.
func timingRows(dir, name string, rows int) ([]float64, int, error) {
	var train *dataset.Data
	if name == "leukemia" {
		var err error
		train, _, err = dataset.LoadLeukemiaSplit(filepath.Join(dir, "leukemia"))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, fmt.Errorf("leukemia: %w (%v)", ErrNoData, err)
		}
		if err != nil {
			return nil, 0, err
		}
		sc, err := dataset.FitScaler(train.X, train.N, train.D, []dataset.Step{dataset.StepMaxScale})
		if err != nil {
			return nil, 0, fmt.Errorf("leukemia: %w", err)
		}
		x := slices.Clone(train.X)
		sc.Apply(x, train.N, train.D)
		train.X = x
	} else {
		b, err := Lookup(name)
		if err != nil {
			return nil, 0, err
		}
		s, err := b.Load(dir, 0)
		if err != nil {
			return nil, 0, err
		}
		train = s.Train
	}
	d := train.D
	x := make([]float64, rows*d)
	for i := range rows {
		copy(x[i*d:(i+1)*d], train.Row(i%train.N))
	}
	return x, d, nil
}

// Summarize writes what was timed and one line per dataset and rule.
func (r *QuadFig3Result) Summarize(w io.Writer) error {
	fmt.Fprintf(w, "time to map %d rows, n = %d (D = 2n(d+1) points, 2D columns), mean of %d maps; backend %s\n",
		r.Rows, r.N, r.Runs, r.Backend)
	return writeTable(w, "dataset\td\trule\tD\tseconds\t±95%\trows/s\tdraw s", "%s\t%d\t%s\t%d\t%.4g\t%.2g\t%.4g\t%.3g",
		r.Timings, func(t Timing) []any {
			return []any{t.Dataset, t.Dim, t.Rule, t.D, t.Mean, t.CI95[1] - t.Mean, t.RowsPerSecond, t.DrawSeconds}
		})
}

// Write draws the paper's Figure 3 from the timings — mean seconds per map against the input dimension d, both
// axes logarithmic, one line per rule with its 95% interval — as dir/quad-fig3.png, with the figure's table as
// quad-fig3.csv (series = rule, x = d, y = mean seconds, lo/hi = the interval) and every field of the timings
// (dataset, D, rows, runs, rows/s, draw time) as quad-fig3.json. It returns the three paths.
func (r *QuadFig3Result) Write(dir string) ([]string, error) {
	if len(r.Timings) == 0 {
		return nil, fmt.Errorf("quad-fig3: %w", errNoRows)
	}
	ts := slices.Clone(r.Timings)
	slices.SortStableFunc(ts, func(a, b Timing) int { return a.Dim - b.Dim })
	var names []string
	for _, t := range ts {
		if n := fmt.Sprintf("%s (%d)", t.Dataset, t.Dim); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	f := plotting.Figure{
		Title:  fmt.Sprintf("Time to map %d rows, n = %d (D = 2n(d+1) points)", ts[0].Rows, ts[0].N),
		XLabel: "input dimension d: " + strings.Join(names, ", "),
		YLabel: "seconds per map (mean, 95% interval)",
		LogX:   true, LogY: true,
	}
	rules, _ := groupBy(r.Timings, func(t Timing) string { return t.Rule }) // series in the caller's rule order
	for _, name := range rules {
		se := plotting.Series{Name: name}
		for _, t := range ts {
			if t.Rule == name {
				measured(&se, float64(t.Dim), Stat{Mean: t.Mean, CI95: t.CI95})
			}
		}
		f.Series = append(f.Series, se)
	}
	paths, err := saveFigures(dir, figure{"quad-fig3.png", f})
	if err != nil {
		return nil, err
	}
	js := filepath.Join(dir, "quad-fig3.json")
	b, err := json.MarshalIndent(r.Timings, "", " ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(js, append(b, '\n')); err != nil {
		return nil, err
	}
	return append(paths, filepath.Join(dir, "quad-fig3.csv"), js), nil
}
