package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/atomicfile"
	"github.com/rffkit/rff/internal/plotting"
	"github.com/rffkit/rff/internal/progress"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

const allRules = "g,orf,sorf,qmc,gq,sr-butterfly,sr-haar"

// studyFlags are the flags of a kernel-approximation study.
type studyFlags struct {
	kernelFlags
	mem                   *memoryFlag
	rules, ns, form, plot string
	runs, samples         int
	seed                  uint64
	json                  bool
}

func (f *studyFlags) register(fs *flag.FlagSet, runs int) {
	f.kernelFlags.register(fs, "γ = 1/d, i.e. σ = sqrt(d/2), the quadrature paper's protocol")
	fs.StringVar(&f.rules, "rules", allRules, "comma list of rules: g (rff), orf, sorf (rom), qmc, gq[:M], sr-butterfly (b), sr-haar (h)")
	fs.StringVar(&f.ns, "n", "1,2,3,4,5", "comma list of n; each rule gets D = 2n(d+1) points (frequencies); cos/sin maps have 2D columns")
	fs.IntVar(&f.runs, "runs", runs, "independent runs per (rule, n)")
	fs.IntVar(&f.samples, "samples", 550, "rows in each of the two random subsets X and Y")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed (same seed → same subsets and features)")
	fs.StringVar(&f.form, "form", "cossin", "shift-invariant map: cossin (2D columns) or cosphase (√2·cos(ωᵀx+b), D columns)")
	fs.BoolVar(&f.json, "json", false, "print one JSON object on stdout instead of a table")
	fs.StringVar(&f.plot, "plot", "", "write the error-vs-n figure to this .png/.svg/.pdf file, and its data as .csv beside it")
}

func parseInts(s, what string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 1 {
			return nil, usagef("%s: %q is not a positive integer", what, f)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, usagef("%s: no value given", what)
	}
	return out, nil
}

// studyReport is the JSON object printed by approx and demo.
type studyReport struct {
	Dataset    string          `json:"dataset"`
	Rows       int             `json:"rows"`
	Dim        int             `json:"d"`
	Kernel     string          `json:"kernel"`
	Sigma      *float64        `json:"sigma,omitempty"`
	Gamma      *float64        `json:"gamma,omitempty"`
	Preprocess string          `json:"preprocess"`
	Samples    int             `json:"samples"`
	Runs       int             `json:"runs"`
	Seed       uint64          `json:"seed"`
	Form       string          `json:"form"`
	Results    []approx.Result `json:"results"`
	// GQFloor maps each gq rule of the study to its bias floor (null where the kernel has none in closed form).
	GQFloor     map[string]*float64 `json:"gq_floor,omitempty"`
	GQFloorNote string              `json:"gq_floor_note,omitempty"`
}

// runStudy samples the two subsets, runs the study with a progress bar and reports it.
func (f *studyFlags) runStudy(name string, data *dataset.Data, preprocess string, stdout, stderr io.Writer) error {
	k, sigma, err := f.build(data.D)
	if err != nil {
		return err
	}
	rules, err := rule.ParseList(f.rules)
	if err != nil {
		return usagef("--rules: %v", err)
	}
	ns, err := parseInts(f.ns, "--n")
	if err != nil {
		return err
	}
	if f.runs < 1 {
		return usagef("--runs must be at least 1")
	}
	if f.samples < 1 {
		return usagef("--samples must be at least 1")
	}
	if f.samples > data.N {
		return usagef("--samples %d is more than the %d rows available", f.samples, data.N)
	}
	var form feature.Form
	switch f.form {
	case "cossin":
		form = feature.CosSin
	case "cosphase":
		form = feature.CosPhase
	default:
		return usagef("--form must be cossin or cosphase, got %q", f.form)
	}
	// Memory: per map drawn at once (one per worker) what drawing it holds and allocates besides (its points, and the
	// d×d Haar rotations of orf and sr-haar: rule.DrawBytes, as a fit counts them), the features of both subsets and
	// K̂ (samples²); the exact K, and a few numbers per run.
	maxD := 0
	for _, n := range ns {
		maxD = max(maxD, approx.PointsForN(n, data.D))
	}
	jobs := float64(len(rules)) * float64(len(ns)) * float64(f.runs)
	S, workers, d := float64(f.samples), min(float64(runtime.GOMAXPROCS(0)), jobs), float64(data.D)
	_, even := k.(kernel.Spectral) // cos/sin pairs: the rule draws symmetric points
	var perMap float64             // values
	for _, r := range rules {
		held, scratch := rule.DrawBytes(r, data.D, maxD, even)
		perMap = max(perMap, float64(held+scratch)/8)
	}
	need := 8 * (workers*(perMap+2*S*2*float64(maxD)+S*S) + S*S + 4*float64(len(rules)*len(ns))*float64(f.runs) + 2*S*d)
	if err := checkMemory(*f.mem, need, "the study", "--runs, --n or --samples"); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(f.seed, 0x5eed))
	X := data.Subset(dataset.Subsample(rng, data.N, f.samples))
	Y := data.Subset(dataset.Subsample(rng, data.N, f.samples))
	if lo, hi, err := gramRange(k, X, Y); err != nil {
		return err
	} else if !(hi-lo > 1e-6) {
		fmt.Fprintf(stderr, "rff approx: warning: the kernel matrix is constant within %.1g on these rows (K ≈ %.6g): the preprocessing or the bandwidth collapses the data, so the errors below say nothing about the rules\n", hi-lo, hi)
	}
	bar := progress.New(stderr, name, len(rules)*len(ns)*f.runs)
	st := approx.Study{Kernel: k, Rules: rules, Ns: ns, Runs: f.runs, Seed: f.seed, Form: form, Progress: func() { bar.Add(1) }}
	res, err := st.Run(context.Background(), X.X, X.N, Y.X, Y.N, data.D)
	bar.Done()
	if err != nil {
		return err
	}
	for _, x := range res {
		if math.IsNaN(x.Mean) || math.IsInf(x.Mean, 0) || math.IsNaN(x.Std) || math.IsInf(x.Std, 0) {
			return usagef("the error of %s at n = %d is not finite (%v): the exact kernel matrix is zero or overflows at this bandwidth; choose another --sigma or --gamma", x.Rule, x.N, x.Mean)
		}
	}
	rep := studyReport{Dataset: name, Rows: data.N, Dim: data.D, Kernel: k.Name(), Preprocess: preprocess,
		Samples: f.samples, Runs: f.runs, Seed: f.seed, Form: f.form, Results: res}
	if !math.IsNaN(sigma) {
		g := 1 / (2 * sigma * sigma)
		rep.Sigma, rep.Gamma = &sigma, &g
	}
	if err := gqFloors(&rep, k, rules, X, Y, stderr); err != nil {
		return err
	}
	// The figure, its data and what is printed are all written before any file is replaced.
	var batch atomicfile.Batch
	defer batch.Abort()
	if f.plot != "" {
		if err := plotStudy(&batch, f.plot, rep); err != nil {
			return err
		}
	}
	var text bytes.Buffer
	if f.json {
		if err := json.NewEncoder(&text).Encode(rep); err != nil {
			return err
		}
	} else {
		printStudy(&text, rep)
		if f.plot != "" {
			fmt.Fprintf(&text, "\nfigure: %s (data: %s)\n", f.plot, csvPath(f.plot))
		}
	}
	batch.Then(func() error { return printOutput(stdout, text.Bytes()) })
	return batch.Commit()
}

// gramRange returns the smallest and largest exact kernel value between the rows of X and Y.
func gramRange(k kernel.Kernel, X, Y *dataset.Data) (lo, hi float64, err error) {
	K := make([]float64, X.N*Y.N)
	if err := kernel.Gram(K, k, X.X, X.N, Y.X, Y.N, X.D); err != nil {
		return 0, 0, err
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range K {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, 0, usagef("the exact kernel %s is %v between some rows at this bandwidth; choose another --sigma or --gamma", k.Name(), v)
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi, nil
}

// checkPlot refuses, before any work, a --plot path without a figure's extension, or where the figure or its data
// (the .csv beside it) would overwrite an input, a directory, or go into a missing directory.
func (f *studyFlags) checkPlot(inputs ...string) error {
	if f.plot == "" {
		return nil
	}
	switch strings.ToLower(filepath.Ext(f.plot)) {
	case ".png", ".svg", ".pdf":
	default:
		return usagef("--plot %q: the file must end in .png, .svg or .pdf", f.plot)
	}
	if err := checkOutputAs("--plot", f.plot, inputs...); err != nil {
		return err
	}
	return checkOutputAs("--plot's data file", csvPath(f.plot), inputs...)
}

func csvPath(p string) string { return strings.TrimSuffix(p, filepath.Ext(p)) + ".csv" }

func printStudy(w io.Writer, r studyReport) {
	bw := "scale-free"
	if r.Sigma != nil {
		bw = fmt.Sprintf("σ = %.4g, γ = %.4g", *r.Sigma, *r.Gamma)
	}
	fmt.Fprintf(w, "%s: %d rows, d = %d; kernel %s (%s); preprocess %s\n", r.Dataset, r.Rows, r.Dim, r.Kernel, bw, r.Preprocess)
	fmt.Fprintf(w, "relative Frobenius error ‖K − K̂‖_F/‖K‖_F on two random subsets of %d rows, %d runs, seed %d\n", r.Samples, r.Runs, r.Seed)
	fmt.Fprintf(w, "D = 2n(d+1) points per rule; %s\n\n", map[string]string{"cossin": "cos/sin maps have 2D columns", "cosphase": "cos+phase maps have D columns"}[r.Form])
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rule\tn\tD\tcolumns\tmean\tstd\t95% CI of the mean\tmean |K−K̂|\tmax |K−K̂|\t")
	for _, x := range r.Results {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.4g\t%.3g\t[%.4g, %.4g]\t%.3g\t%.3g\t\n",
			x.Rule, x.N, x.D, x.Columns, x.Mean, x.Std, x.CI95[0], x.CI95[1], x.MeanAbs, x.MaxAbs)
	}
	tw.Flush()
	printGQFloors(w, r)
}

func plotStudy(b *atomicfile.Batch, path string, r studyReport) error {
	fig := plotting.Figure{
		Title:  fmt.Sprintf("%s, %s kernel (d = %d)", r.Dataset, r.Kernel, r.Dim),
		XLabel: "n  (D = 2n(d+1) points)",
		YLabel: "relative Frobenius error",
		LogY:   true,
	}
	idx := map[string]int{}
	for _, x := range r.Results {
		i, ok := idx[x.Rule]
		if !ok {
			i = len(fig.Series)
			idx[x.Rule] = i
			fig.Series = append(fig.Series, plotting.Series{Name: x.Rule})
		}
		s := &fig.Series[i]
		s.X = append(s.X, float64(x.N))
		s.Y = append(s.Y, x.Mean)
		s.Lo = append(s.Lo, x.CI95[0])
		s.Hi = append(s.Hi, x.CI95[1])
	}
	return plotting.AddWithCSV(b, path, fig)
}

func runApprox(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("approx", stdout, "--data FILE [flags]")
	var df dataFlags
	df.register(fs.FlagSet, "paper")
	var sf studyFlags
	sf.register(fs.FlagSet, 100)
	sf.mem = df.mem
	kind := fs.String("ovk", "", "operator-valued kernel (decomposable with A = I, curl-free, div-free, helmholtz[:w]): measure sup ‖K̃ − K‖₂ over pairs instead")
	dim := fs.Int("dim", 4, "with --ovk and no --data: pairs uniform in [−1, 1]^dim")
	Ds := fs.String("Ds", "100,1000,10000", "with --ovk: comma list of D (points)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := sf.checkPlot(df.path, df.labels); err != nil {
		return err
	}
	if err := df.keepInputs(df.path, df.labels); err != nil {
		return err
	}
	set := func(name string) bool { return flagSet(fs, name) }
	switch {
	case *kind == "" && (set("Ds") || set("dim")):
		return usagef("--Ds and --dim belong to --ovk")
	case *kind != "" && set("n"):
		return usagef("--ovk measures the error at the -D of --Ds, not at the multiples --n")
	case *kind != "" && set("dim") && df.path != "":
		return usagef("--dim is the dimension of the pairs drawn without --data; with --data it is the file's")
	case *kind == "" && set("form") && strings.HasPrefix(sf.name, "arccos"):
		return usagef("--form chooses the cos/sin or cos+phase features of a shift-invariant kernel; the %s kernel's features are pointwise: leave --form out", sf.name)
	}
	if *kind != "" {
		if sf.plot != "" {
			return usagef("--plot draws the error of the scalar study against n; --ovk prints its table only")
		}
		ds, err := parseInts(*Ds, "--Ds")
		if err != nil {
			return err
		}
		var data *dataset.Data
		if df.path != "" {
			if data, _, err = df.load(); err != nil {
				return err
			}
		}
		return runApproxOVK(*kind, data, *dim, &sf, ds, stdout, stderr)
	}
	data, _, err := df.load()
	if err != nil {
		return err
	}
	return sf.runStudy(filepath.Base(df.path), data, df.preprocess, stdout, stderr)
}
