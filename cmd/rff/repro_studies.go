package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/experiment"
	"github.com/rffkit/rff/internal/progress"
	"github.com/rffkit/rff/rule"
)

// The studies of the theory papers, registered into reproStudies: the rates of Sriperumbudur & Szabó (NeurIPS
// 2015) and Figure 1 of the ORFF paper (Brault et al., ACML 2016). Each writes a PNG and its CSV into --out, prints a
// table and a one-sentence finding (or, with --json, one JSON object with the settings, rows, fits and finding).
func init() {
	reproStudies["rates-sup"] = study{"Sriperumbudur–Szabó Thm 1: sup error vs m, Gaussian, d = 1, 2, 5, with the bound", runRatesSup}
	reproStudies["rates-diameter"] = study{"Sriperumbudur–Szabó Thm 1: sup error vs |S| at fixed m (√log|S| growth)", runRatesDiameter}
	reproStudies["rates-lr"] = study{"Sriperumbudur–Szabó Thm 2: L^r error (r = 1, 2, 4) vs m, with the bound", runRatesLr}
	reproStudies["rates-deriv"] = study{"Sriperumbudur–Szabó Thms 4–5: sup error of kernel-derivative estimates vs m", runRatesDeriv}
	reproStudies["orff-fig1a"] = study{"ORFF paper, Figure 1A: sup ‖K̃ − K‖₂ vs D, decomposable / curl-free / div-free", runORFFFig1A}
	reproStudies["orff-fig1b"] = study{"ORFF paper, Figure 1B: variance norm of curl-free ORFF vs D and Proposition 12", runORFFFig1B}
}

// reproFlags are the flags every rates-* and orff-* study shares.
type reproFlags struct {
	out, rule string
	runs      int
	seed      uint64
	json      bool
}

func (f *reproFlags) register(fs *cmdFlags, name string, runs int) {
	fs.StringVar(&f.out, "out", "docs/figures", fmt.Sprintf("directory for the figure (%s.png and %s.csv)", name, name))
	fs.IntVar(&f.runs, "runs", runs, "independent maps per point")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed (same seed → same maps and searches)")
	fs.BoolVar(&f.json, "json", false, "print one JSON object (settings, rows, fits, finding, figures) on stdout "+
		"instead of a table")
	fs.StringVar(&f.rule, "rule", "g", "rule drawing the points: g (iid, the theorems' setting), orf, sorf, qmc, gq, "+
		"sr-butterfly, sr-haar")
}

// parse checks the shared flags and returns the rule.
func (f *reproFlags) parse() (rule.Rule, error) {
	if f.runs < 1 {
		return nil, usagef("--runs must be at least 1")
	}
	r, err := rule.Parse(f.rule)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	return r, nil
}

// searchFlags are the budget of approx.SupError.
type searchFlags struct{ candidates, starts, steps int }

func (f *searchFlags) register(fs *cmdFlags, candidatesHelp string) {
	fs.IntVar(&f.candidates, "candidates", 4096, candidatesHelp)
	fs.IntVar(&f.starts, "starts", 8, "best candidates refined by gradient ascent")
	fs.IntVar(&f.steps, "steps", 100, "gradient-ascent trial steps per start")
}

func (f *searchFlags) search() (approx.Search, error) {
	if f.candidates < 1 || f.starts < 1 || f.steps < 1 {
		return approx.Search{}, usagef("--candidates, --starts and --steps must be at least 1")
	}
	return approx.Search{Candidates: f.candidates, Starts: f.starts, Steps: f.steps}, nil
}

// reproFloats parses a comma list of positive numbers.
func reproFloats(s, what string) ([]float64, error) {
	var out []float64
	for _, f := range splitList(s) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v > 0) {
			return nil, usagef("%s: %q is not a positive number", what, f)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, usagef("%s: no value given", what)
	}
	return out, nil
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func joinFloats(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

// reproStudy is what reproExecute needs from a study.
type reproStudy[R any] struct {
	name      string
	settings  any // the study with its defaults, for --json
	steps     int
	run       func(ctx context.Context, progress func()) ([]R, error) // sets the study's Progress and runs it
	summarize func([]R) (experiment.Summary, error)
	write     func(dir string, rows []R) ([]string, error)
	header    string               // tab-separated column names of the table
	row       func(R) []any        // one table row
	format    string               // its format, tab-separated
	extra     func(io.Writer, []R) // optional lines after the table
}

// reproExecute runs a study with a progress bar on stderr, writes its figure and prints the table and the finding,
// or one JSON object.
func reproExecute[R any](s reproStudy[R], f *reproFlags, stdout, stderr io.Writer) error {
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	bar := progress.New(stderr, s.name, s.steps)
	start := time.Now()
	rows, err := s.run(ctx, func() { bar.Add(1) })
	bar.Done()
	if err != nil {
		return err
	}
	seconds := time.Since(start).Seconds()
	sum, err := s.summarize(rows)
	if err != nil {
		return err
	}
	paths, err := s.write(f.out, rows)
	if err != nil {
		return err
	}
	if f.json {
		return json.NewEncoder(stdout).Encode(map[string]any{"study": s.name, "rule": f.rule, "settings": s.settings,
			"rows": rows, "fits": sum.Fits, "finding": sum.Finding, "figures": paths, "seconds": seconds})
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, s.header+"\t")
	for _, r := range rows {
		fmt.Fprintf(tw, s.format+"\t\n", s.row(r)...)
	}
	tw.Flush()
	if s.extra != nil {
		s.extra(stdout, rows)
	}
	fmt.Fprintf(stdout, "finding: %s\nfigures: %s (%.1f s)\n", sum.Finding, strings.Join(paths, ", "), seconds)
	return nil
}

func runRatesSup(args []string, stdout, stderr io.Writer) error {
	def, _ := experiment.RatesSup{}.WithDefaults()
	fs := newFlags("repro rates-sup", stdout, "[flags]")
	var rf reproFlags
	rf.register(fs, "rates-sup", def.Runs)
	var sf searchFlags
	sf.register(fs, "random candidates δ ∈ S − S per sup search")
	dims := fs.String("d", joinInts(def.Dims), "comma list of input dimensions d")
	ms := fs.String("m", joinInts(def.Ms), "comma list of m, the number of points (frequencies); cos/sin maps have 2m columns")
	sigma := fs.Float64("sigma", def.Sigma, "Gaussian bandwidth σ")
	diam := fs.Float64("diameter", def.Diameter, "Euclidean diameter |S| of the cube S")
	delta := fs.Float64("delta", def.Delta, "failure probability δ of the drawn Theorem 1 bound")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r, err := rf.parse()
	if err != nil {
		return err
	}
	search, err := sf.search()
	if err != nil {
		return err
	}
	dv, err := parseInts(*dims, "--d")
	if err != nil {
		return err
	}
	mv, err := parseInts(*ms, "--m")
	if err != nil {
		return err
	}
	s, err := experiment.RatesSup{Dims: dv, Ms: mv, Sigma: *sigma, Diameter: *diam, Rule: r, Runs: rf.runs,
		Seed: rf.seed, Delta: *delta, Search: search}.WithDefaults()
	if err != nil {
		return usageError{err.Error()}
	}
	return reproExecute(reproStudy[experiment.SupRow]{
		name: "rates-sup", settings: s, steps: s.Steps(),
		run: func(ctx context.Context, p func()) ([]experiment.SupRow, error) {
			s.Progress = p
			return s.Run(ctx)
		},
		summarize: s.Summarize, write: s.Write,
		header: "d\tm\tmean sup error\t±95%\tTheorem 1 bound",
		format: "%d\t%d\t%.4g\t%.2g\t%.4g",
		row:    func(r experiment.SupRow) []any { return []any{r.Dim, r.Points, r.Mean, r.CI95[1] - r.Mean, r.Bound} },
	}, &rf, stdout, stderr)
}

func runRatesDiameter(args []string, stdout, stderr io.Writer) error {
	def, _ := experiment.RatesDiameter{}.WithDefaults()
	fs := newFlags("repro rates-diameter", stdout, "[flags]")
	var rf reproFlags
	rf.register(fs, "rates-diameter", def.Runs)
	var sf searchFlags
	sf.register(fs, "minimum random candidates per sup search (the budget grows with the volume of S − S)")
	d := fs.Int("d", def.Dim, "input dimension d (the search budget needed grows like |S|^d)")
	m := fs.Int("m", def.M, "number of points m (frequencies); cos/sin maps have 2m columns")
	diams := fs.String("diameters", joinFloats(def.Diameters), "comma list of diameters |S| of the cube S")
	sigma := fs.Float64("sigma", def.Sigma, "Gaussian bandwidth σ")
	delta := fs.Float64("delta", def.Delta, "failure probability δ of the drawn Theorem 1 bound")
	density := fs.Float64("density", def.Density, "random candidates per unit volume σ^d of S − S")
	maxCand := fs.Int("max-candidates", def.MaxCandidates, "cap on the random candidates of one search")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r, err := rf.parse()
	if err != nil {
		return err
	}
	search, err := sf.search()
	if err != nil {
		return err
	}
	dv, err := reproFloats(*diams, "--diameters")
	if err != nil {
		return err
	}
	if *d < 1 || *m < 1 || *maxCand < 1 || !(*density > 0) {
		return usagef("--d, --m, --max-candidates and --density must be positive")
	}
	s, err := experiment.RatesDiameter{Dim: *d, M: *m, Diameters: dv, Sigma: *sigma, Rule: r, Runs: rf.runs,
		Seed: rf.seed, Delta: *delta, Search: search, Density: *density, MaxCandidates: *maxCand}.WithDefaults()
	if err != nil {
		return usageError{err.Error()}
	}
	return reproExecute(reproStudy[experiment.DiameterRow]{
		name: "rates-diameter", settings: s, steps: s.Steps(),
		run: func(ctx context.Context, p func()) ([]experiment.DiameterRow, error) {
			s.Progress = p
			return s.Run(ctx)
		},
		summarize: s.Summarize, write: s.Write,
		header: "|S|\tmean sup error\t±95%\tTheorem 1 bound\tlinear-in-|S| reference\tcandidates",
		format: "%g\t%.4g\t%.2g\t%.4g\t%.4g\t%d",
		row: func(r experiment.DiameterRow) []any {
			return []any{r.Diameter, r.Mean, r.CI95[1] - r.Mean, r.Bound, r.Linear, r.Candidates}
		},
	}, &rf, stdout, stderr)
}

func runRatesLr(args []string, stdout, stderr io.Writer) error {
	def, _ := experiment.RatesLr{}.WithDefaults()
	fs := newFlags("repro rates-lr", stdout, "[flags]")
	var rf reproFlags
	rf.register(fs, "rates-lr", def.Runs)
	d := fs.Int("d", def.Dim, "input dimension d")
	ms := fs.String("m", joinInts(def.Ms), "comma list of m, the number of points (frequencies); cos/sin maps have 2m columns")
	rs := fs.String("r", joinFloats(def.Rs), "comma list of exponents r ≥ 1 of the L^r(S×S) norms")
	sigma := fs.Float64("sigma", def.Sigma, "Gaussian bandwidth σ")
	diam := fs.Float64("diameter", def.Diameter, "Euclidean diameter |S| of the cube S")
	delta := fs.Float64("delta", def.Delta, "failure probability δ of the drawn Theorem 2 bound")
	samples := fs.Int("samples", def.Samples, "Monte Carlo pairs (x, y) per L^r estimate")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r, err := rf.parse()
	if err != nil {
		return err
	}
	mv, err := parseInts(*ms, "--m")
	if err != nil {
		return err
	}
	rv, err := reproFloats(*rs, "--r")
	if err != nil {
		return err
	}
	if *d < 1 || *samples < 2 {
		return usagef("--d must be at least 1 and --samples at least 2")
	}
	s, err := experiment.RatesLr{Dim: *d, Ms: mv, Rs: rv, Sigma: *sigma, Diameter: *diam, Rule: r, Runs: rf.runs,
		Seed: rf.seed, Delta: *delta, Samples: *samples}.WithDefaults()
	if err != nil {
		return usageError{err.Error()}
	}
	return reproExecute(reproStudy[experiment.LrRow]{
		name: "rates-lr", settings: s, steps: s.Steps(),
		run: func(ctx context.Context, p func()) ([]experiment.LrRow, error) {
			s.Progress = p
			return s.Run(ctx)
		},
		summarize: s.Summarize, write: s.Write,
		header: "r\tm\tmean L^r error\t±95%\tMonte Carlo SE\tTheorem 2 bound",
		format: "%g\t%d\t%.4g\t%.2g\t%.2g\t%.4g",
		row: func(r experiment.LrRow) []any {
			return []any{r.R, r.Points, r.Mean, r.CI95[1] - r.Mean, r.MCSE, r.Bound}
		},
	}, &rf, stdout, stderr)
}

func runRatesDeriv(args []string, stdout, stderr io.Writer) error {
	def, _ := experiment.RatesDeriv{}.WithDefaults()
	fs := newFlags("repro rates-deriv", stdout, "[flags]")
	var rf reproFlags
	rf.register(fs, "rates-deriv", def.Runs)
	var sf searchFlags
	sf.register(fs, "random candidates δ ∈ S − S per sup search")
	d := fs.Int("d", def.Dim, "input dimension d")
	var cs []string
	for _, c := range def.Cases {
		cs = append(cs, c.String())
	}
	cases := fs.String("cases", strings.Join(cs, ","), "comma list of derivatives p:q of ∂^{p,q}k, multi-indices as sums "+
		"of unit vectors: e1:0 = ∂/∂x₁, e1:e2 = ∂²/∂x₁∂y₂, 2e1:0 = ∂²/∂x₁²")
	ms := fs.String("m", joinInts(def.Ms), "comma list of m, the number of points (frequencies); cos/sin maps have 2m columns")
	sigma := fs.Float64("sigma", def.Sigma, "Gaussian bandwidth σ")
	diam := fs.Float64("diameter", def.Diameter, "Euclidean diameter |S| of the cube S")
	delta := fs.Float64("delta", def.Delta, "failure probability δ of the drawn Theorem 5 bound")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r, err := rf.parse()
	if err != nil {
		return err
	}
	search, err := sf.search()
	if err != nil {
		return err
	}
	if *d < 1 {
		return usagef("--d must be at least 1")
	}
	var cv []experiment.DerivCase
	for _, c := range splitList(*cases) {
		dc, err := experiment.ParseDerivCase(c, *d)
		if err != nil {
			return usageError{"--cases: " + err.Error()}
		}
		cv = append(cv, dc)
	}
	if len(cv) == 0 {
		return usagef("--cases: no case given")
	}
	mv, err := parseInts(*ms, "--m")
	if err != nil {
		return err
	}
	s, err := experiment.RatesDeriv{Dim: *d, Cases: cv, Ms: mv, Sigma: *sigma, Diameter: *diam, Rule: r,
		Runs: rf.runs, Seed: rf.seed, Delta: *delta, Search: search}.WithDefaults()
	if err != nil {
		return usageError{err.Error()}
	}
	return reproExecute(reproStudy[experiment.DerivRow]{
		name: "rates-deriv", settings: s, steps: s.Steps(),
		run: func(ctx context.Context, p func()) ([]experiment.DerivRow, error) {
			s.Progress = p
			return s.Run(ctx)
		},
		summarize: s.Summarize, write: s.Write,
		header: "p:q\torder\tm\tmean sup error\t±95%\tTheorem 5 bound",
		format: "%s\t%d\t%d\t%.4g\t%.2g\t%.4g",
		row: func(r experiment.DerivRow) []any {
			return []any{r.Case, r.Order, r.Points, r.Mean, r.CI95[1] - r.Mean, r.Bound}
		},
	}, &rf, stdout, stderr)
}

func runORFFFig1A(args []string, stdout, stderr io.Writer) error {
	def, _ := experiment.ORFFFig1A{}.WithDefaults()
	fs := newFlags("repro orff-fig1a", stdout, "[flags]")
	var rf reproFlags
	rf.register(fs, "orff-fig1a", def.Runs)
	kernels := fs.String("kernels", strings.Join(def.Kernels, ","), "comma list of operator-valued kernels "+
		"(decomposable uses A = I)")
	d := fs.Int("d", def.Dim, "input dimension d = number of outputs p")
	points := fs.Int("points", def.Points, "points drawn uniformly from [−1,1]^d")
	pairs := fs.Int("pairs", def.Pairs, "pairs of points over which the sup is taken")
	ds := fs.String("D", joinInts(def.Ds), "comma list of D, the number of points (frequencies) of the ORFF maps")
	sigma := fs.Float64("sigma", def.Sigma, "Gaussian bandwidth σ")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r, err := rf.parse()
	if err != nil {
		return err
	}
	dv, err := parseInts(*ds, "--D")
	if err != nil {
		return err
	}
	if *d < 1 || *points < 1 || *pairs < 1 {
		return usagef("--d, --points and --pairs must be at least 1")
	}
	s, err := experiment.ORFFFig1A{Kernels: splitList(*kernels), Dim: *d, Points: *points, Pairs: *pairs, Ds: dv,
		Sigma: *sigma, Rule: r, Runs: rf.runs, Seed: rf.seed}.WithDefaults()
	if err != nil {
		return usageError{err.Error()}
	}
	return reproExecute(reproStudy[experiment.Fig1ARow]{
		name: "orff-fig1a", settings: s, steps: s.Steps(),
		run: func(ctx context.Context, p func()) ([]experiment.Fig1ARow, error) {
			s.Progress = p
			return s.Run(ctx)
		},
		summarize: s.Summarize, write: s.Write,
		header: "kernel\tD\tmean sup ‖K̃ − K‖₂\t±95%",
		format: "%s\t%d\t%.4g\t%.2g",
		row:    func(r experiment.Fig1ARow) []any { return []any{r.Kernel, r.Points, r.Mean, r.CI95[1] - r.Mean} },
	}, &rf, stdout, stderr)
}

func runORFFFig1B(args []string, stdout, stderr io.Writer) error {
	def, _ := experiment.ORFFFig1B{}.WithDefaults()
	fs := newFlags("repro orff-fig1b", stdout, "[flags]")
	var rf reproFlags
	rf.register(fs, "orff-fig1b", def.Runs)
	d := fs.Int("d", def.Dim, "input dimension d = number of outputs p")
	ds := fs.String("D", joinInts(def.Ds), "comma list of D, the number of points (frequencies) of the ORFF maps")
	seeds := fs.Int("seeds", def.Seeds, "maps behind one variance estimate")
	sigma := fs.Float64("sigma", def.Sigma, "Gaussian bandwidth σ")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r, err := rf.parse()
	if err != nil {
		return err
	}
	dv, err := parseInts(*ds, "--D")
	if err != nil {
		return err
	}
	if *d < 1 || *seeds < 2 {
		return usagef("--d must be at least 1 and --seeds at least 2")
	}
	s, err := experiment.ORFFFig1B{Dim: *d, Ds: dv, Seeds: *seeds, Sigma: *sigma, Rule: r, Runs: rf.runs,
		Seed: rf.seed}.WithDefaults()
	if err != nil {
		return usageError{err.Error()}
	}
	return reproExecute(reproStudy[experiment.Fig1BRow]{
		name: "orff-fig1b", settings: s, steps: s.Steps(),
		run: func(ctx context.Context, p func()) ([]experiment.Fig1BRow, error) {
			s.Progress = p
			return s.Run(ctx)
		},
		summarize: s.Summarize, write: s.Write,
		header: "D\tmean ‖V̂‖₂\t±95%\tProposition 12\tsup over |C|",
		format: "%d\t%.4g\t%.2g\t%.4g\t%.4g",
		row: func(r experiment.Fig1BRow) []any {
			return []any{r.Points, r.Mean, r.CI95[1] - r.Mean, r.Bound, r.BoundSup}
		},
		extra: func(w io.Writer, rows []experiment.Fig1BRow) {
			if len(rows) > 0 {
				fmt.Fprintf(w, "pair: x = %.4g, z = %.4g, ‖x − z‖ = %.4g\n", s.X, s.Z, rows[0].DeltaNorm)
			}
		},
	}, &rf, stdout, stderr)
}
