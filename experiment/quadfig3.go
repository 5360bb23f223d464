package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/plotting"
	"github.com/rffkit/rff/kernel"
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
// not depend on the values). Data are scaled as in the paper's other experiments (docs/conventions.md §10: divided by the global
// maximum of the training split; MNIST by 255), with the Gaussian kernel of γ = 1/d, cos/sin form (2D columns).
//
// What is timed is the map alone (feature.Map.TransformRows on all cores, the output allocated once and one
// untimed warm-up map first), not drawing the points: a map is drawn once per (dataset, rule) from Seed and mapped
// Runs times, and the time of that draw is reported separately (Timing.DrawSeconds; for ORF at d = 7129 it is two
// 7129×7129 QR factorizations). Dense rules run through gonum's Dgemm, which is OpenBLAS when the program installs
// the fast backend of internal/linalg (as the rff command does).
type QuadFig3 struct {
	// DataDir is the shared data directory (../shared/data from the project root).
	DataDir string
	// Datasets are benchmark names (see Lookup) or "leukemia" (read with dataset.LoadLeukemia from
	// DataDir/leukemia); default letter, usps, mnist, leukemia.
	Datasets []string
	// Rules default to g, orf, gq and sr-butterfly, the rules of the paper's Figure 3.
	Rules []rule.Rule
	// N is n in D = 2n(d+1) points (default 1).
	N int
	// Rows is the number of rows mapped per measurement (default 1000).
	Rows int
	// Runs is the number of timed maps per (dataset, rule) (default 10; the paper averages 50).
	Runs int
	// Seed fixes the maps (approx.RunSeed derives one seed per rule and dataset dimension).
	Seed uint64
	// Progress, when set, is called after each timed map.
	Progress func()
}

// Timing is the wall time of mapping Rows rows of one dataset with one rule, over Runs maps.
type Timing struct {
	Dataset string `json:"dataset"`
	Dim     int    `json:"d"`
	Rule    string `json:"rule"`
	N       int    `json:"n"`
	// D is the number of points drawn (the map has 2D columns).
	D    int `json:"D"`
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

// QuadFig3Datasets lists the datasets of the paper's Figure 3 that the study can load, in order of dimension.
func QuadFig3Datasets() []string { return []string{"letter", "usps", "mnist", "leukemia"} }

func (q *QuadFig3) defaults() error {
	if len(q.Datasets) == 0 {
		q.Datasets = QuadFig3Datasets()
	}
	if len(q.Rules) == 0 {
		var err error
		if q.Rules, err = rule.ParseList("g,orf,gq,sr-butterfly"); err != nil {
			return err
		}
	}
	if q.N == 0 {
		q.N = 1
	}
	if q.Rows == 0 {
		q.Rows = 1000
	}
	if q.Runs == 0 {
		q.Runs = 10
	}
	switch {
	case q.N < 1:
		return fmt.Errorf("experiment: n must be at least 1, got %d", q.N)
	case q.Rows < 1:
		return fmt.Errorf("experiment: rows must be at least 1, got %d", q.Rows)
	case q.Runs < 1:
		return fmt.Errorf("experiment: runs must be at least 1, got %d", q.Runs)
	}
	for _, name := range q.Datasets {
		if name == "leukemia" {
			continue
		}
		if _, err := Lookup(name); err != nil {
			return fmt.Errorf("unknown dataset %q (have %v)", name, QuadFig3Datasets())
		}
	}
	return nil
}

// Validate checks the settings (after filling in the defaults) without reading any data.
func (q QuadFig3) Validate() error { return q.defaults() }

// Steps is the number of timed maps Run performs (for a progress bar).
func (q QuadFig3) Steps() int {
	if q.defaults() != nil {
		return 0
	}
	return len(q.Datasets) * len(q.Rules) * q.Runs
}

// Run executes the study, one dataset at a time (only one is held in memory). It stops early, returning
// ctx.Err(), when ctx is cancelled; a missing dataset gives an error wrapping ErrNoData.
func (q QuadFig3) Run(ctx context.Context) ([]Timing, error) {
	if err := q.defaults(); err != nil {
		return nil, err
	}
	var out []Timing
	for _, name := range q.Datasets {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x, d, err := timingRows(q.DataDir, name, q.Rows)
		if err != nil {
			return nil, err
		}
		k := kernel.Gaussian{S: kernel.SigmaFromGamma(1 / float64(d))}
		for _, r := range q.Rules {
			tm, err := q.time(ctx, name, x, d, k, r)
			if err != nil {
				return nil, fmt.Errorf("%s, %s: %w", name, r.Name(), err)
			}
			out = append(out, tm)
		}
	}
	return out, nil
}

// time draws the map of rule r and measures Runs maps of the rows x (q.Rows × d).
func (q QuadFig3) time(ctx context.Context, name string, x []float64, d int, k kernel.Kernel, r rule.Rule) (Timing, error) {
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
		if q.Progress != nil {
			q.Progress()
		}
	}
	t.Mean, t.Std, t.CI95 = MeanCI(secs)
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

// WriteQuadFig3 draws the paper's Figure 3 from the timings — mean seconds per map against the input dimension d,
// both axes logarithmic, one line per rule with its 95% interval — as dir/quad-fig3.png, with the figure's table
// as quad-fig3.csv (series = rule, x = d, y = mean seconds, lo/hi = the interval) and every field of the timings
// (dataset, D, rows, runs, rows/s, draw time) as quad-fig3.json. It returns the paths.
func WriteQuadFig3(dir string, timings []Timing) ([]string, error) {
	if len(timings) == 0 {
		return nil, errors.New("experiment: no timings to plot")
	}
	ts := slices.Clone(timings)
	slices.SortStableFunc(ts, func(a, b Timing) int { return a.Dim - b.Dim })
	var names []string
	seen := map[string]bool{}
	for _, t := range ts {
		if !seen[t.Dataset] {
			seen[t.Dataset] = true
			names = append(names, fmt.Sprintf("%s (%d)", t.Dataset, t.Dim))
		}
	}
	f := plotting.Figure{
		Title:  fmt.Sprintf("Time to map %d rows, n = %d (D = 2n(d+1) points)", ts[0].Rows, ts[0].N),
		XLabel: "input dimension d: " + strings.Join(names, ", "),
		YLabel: "seconds per map (mean, 95% interval)",
		LogX:   true, LogY: true,
	}
	for _, t := range timings { // series in the caller's rule order
		i := slices.IndexFunc(f.Series, func(s plotting.Series) bool { return s.Name == t.Rule })
		if i < 0 {
			f.Series = append(f.Series, plotting.Series{Name: t.Rule})
		}
	}
	for _, t := range ts {
		i := slices.IndexFunc(f.Series, func(s plotting.Series) bool { return s.Name == t.Rule })
		s := &f.Series[i]
		s.X = append(s.X, float64(t.Dim))
		s.Y = append(s.Y, t.Mean)
		s.Lo = append(s.Lo, t.CI95[0])
		s.Hi = append(s.Hi, t.CI95[1])
	}
	png := filepath.Join(dir, "quad-fig3.png")
	if err := plotting.SaveWithCSV(png, f); err != nil {
		return nil, err
	}
	js := filepath.Join(dir, "quad-fig3.json")
	b, err := json.MarshalIndent(timings, "", " ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(js, append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	return []string{png, filepath.Join(dir, "quad-fig3.csv"), js}, nil
}
