package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"text/tabwriter"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/progress"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/metrics"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
)

// ovkResult is the sup error of one (rule, D) of an operator-valued approximation study.
type ovkResult struct {
	Rule string     `json:"rule"`
	D    int        `json:"points"`
	Runs int        `json:"runs"`
	Mean float64    `json:"mean"`
	Std  float64    `json:"std"`
	CI95 [2]float64 `json:"ci95"`
}

// runApproxOVK measures sup_i ‖K̃(x_i, z_i) − K(x_i, z_i)‖₂ (spectral norm) over pairs of rows for an operator-valued
// kernel: the pairs come from the dataset (two random subsets), or are uniform in [−1, 1]^d without --data.
func runApproxOVK(kind string, data *dataset.Data, d int, sf *studyFlags, Ds []int, stdout, stderr io.Writer) error {
	if data != nil {
		d = data.D
	}
	if d < 1 {
		return usagef("--ovk without --data needs --dim ≥ 1")
	}
	name, sigma, err := sf.config()
	if err != nil {
		return err
	}
	if k0, err := kernel.New(name, 1); err != nil {
		return usageError{err.Error()}
	} else if k0.Name() != "gaussian" {
		return usagef("--ovk %s is built on a Gaussian kernel k₀, not %s; leave --kernel out", kind, k0.Name())
	}
	if sf.form != "cossin" {
		return usagef("--ovk maps have one form, cos/sin pairs; leave --form out")
	}
	if sigma == 0 {
		sigma = math.Sqrt(float64(d) / 2)
	}
	var A mat.Symmetric
	if kind == "decomposable" || kind == "dec" {
		A = eye(d)
	}
	k, err := ovk.Parse(kind, sigma, A)
	if err != nil {
		return usageError{err.Error()}
	}
	rules, err := rule.ParseList(sf.rules)
	if err != nil {
		return usageError{err.Error()}
	}
	if sf.runs < 1 || sf.samples < 1 {
		return usagef("--runs and --samples must be at least 1")
	}
	maxD := 0
	for _, D := range Ds {
		maxD = max(maxD, D)
	}
	// Memory: the pairs, per map its points, frequencies and matrices B(ω) (up to d×d per point), and one error per run.
	dd := float64(d)
	need := 8 * (2*float64(sf.samples)*dd + float64(maxD)*dd*(dd+2) + float64(sf.runs))
	if err := checkMemory(*sf.mem, need, "the study", "--runs, --Ds, --dim or --samples"); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(sf.seed, 0x0f1))
	n := sf.samples
	X, Z := make([]float64, n*d), make([]float64, n*d)
	if data != nil {
		if n > data.N {
			return usagef("--samples %d is more than the %d rows available", n, data.N)
		}
		X = data.Subset(dataset.Subsample(rng, data.N, n)).X
		Z = data.Subset(dataset.Subsample(rng, data.N, n)).X
	} else {
		for i := range X {
			X[i], Z[i] = 2*rng.Float64()-1, 2*rng.Float64()-1
		}
	}
	warn := ""
	k0, err := kernel.New("gaussian", sigma)
	if err != nil {
		return usageError{err.Error()}
	}
	// k₀ on the n pairs the study measures (O(n·d): the pairs, not every cross pair).
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range n {
		v := k0.Eval(X[i*d:(i+1)*d], Z[i*d:(i+1)*d])
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return usagef("the Gaussian kernel k₀ is %v on pair %d at σ = %g; choose another --sigma or --gamma", v, i+1, sigma)
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if !(hi-lo > 1e-6) { // warned once the study has run (a study that fails says why instead)
		warn = fmt.Sprintf("rff approx: warning: the Gaussian kernel k₀ is constant within %.1g on these pairs (k₀ ≈ %.6g): the bandwidth collapses the data, so the errors below say nothing about the rules\n", hi-lo, hi)
	}
	bar := progress.New(stderr, "approx --ovk", len(rules)*len(Ds)*sf.runs)
	var res []ovkResult
	for _, r := range rules {
		for _, D := range Ds {
			errs := make([]float64, sf.runs)
			out := ovkResult{Rule: r.Name(), Runs: sf.runs}
			for run := range sf.runs {
				m, err := ovk.New(k, r, d, D, approx.RunSeed(sf.seed, r.Name(), D, run))
				if err != nil {
					return err
				}
				out.D = m.Points()
				if errs[run], err = ovk.SupError(m, X, Z, n); err != nil {
					return err
				}
				bar.Add(1)
			}
			sum := metrics.Summarize(errs)
			if math.IsNaN(sum.Mean) || math.IsInf(sum.Mean, 0) || math.IsNaN(sum.Std) || math.IsInf(sum.Std, 0) {
				return usagef("the error of %s at D = %d is not finite (mean %v, std %v) at σ = %g: choose a --sigma or --gamma on the scale of the data", r.Name(), D, sum.Mean, sum.Std, sigma)
			}
			out.Mean, out.Std, out.CI95 = sum.Mean, sum.Std, sum.CI95
			res = append(res, out)
		}
	}
	bar.Done()
	fmt.Fprint(stderr, warn)
	if sf.json {
		return json.NewEncoder(stdout).Encode(map[string]any{"ovk": k.Name(), "d": d, "sigma": sigma, "pairs": n,
			"runs": sf.runs, "seed": sf.seed, "results": res})
	}
	fmt.Fprintf(stdout, "%s kernel, d = %d, σ = %.4g: sup over %d pairs of ‖K̃ − K‖₂, %d runs\n", k.Name(), d, sigma, n, sf.runs)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rule\tD\tmean\tstd\t95% CI\t")
	for _, r := range res {
		fmt.Fprintf(tw, "%s\t%d\t%.4g\t%.2g\t[%.4g, %.4g]\t\n", r.Rule, r.D, r.Mean, r.Std, r.CI95[0], r.CI95[1])
	}
	return tw.Flush()
}

func eye(p int) *mat.SymDense {
	a := mat.NewSymDense(p, nil)
	for i := range p {
		a.SetSym(i, i, 1)
	}
	return a
}
