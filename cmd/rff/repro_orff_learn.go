package main

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/rffkit/rff/experiment"
)

// The learning experiments of the ORFF paper (Brault et al., ACML 2016, §5.2 and supplement D.2), registered into
// reproStudies: Figure 2 (MNIST), Figure 3 (the 5-D curl-free field) and the R²⁰ → R⁴ multi-task data. Each writes
// two PNGs with their CSVs into --out, prints a table, the notes of the missing points and a finding (or, with
// --json, one JSON object with the settings, rows, fits and finding).
func init() {
	reproStudies["orff-fig2"] = study{"ORFF paper, Figure 2: MNIST, decomposable + simplex coding: fit time vs N and test error vs D, ORFF vs exact OVK", runORFFFig2}
	reproStudies["orff-fig3"] = study{"ORFF paper, Figure 3: 5-D curl-free field: test R² vs D and fit time vs N, curl-free/independent, ORFF/exact", runORFFFig3}
	reproStudies["orff-multitask"] = study{"ORFF paper, supplement D.2: R²⁰→R⁴ multi-task, decomposable ORFF with A = output covariance vs A = I", runORFFMultitask}
}

// learnTable is the table of the learning studies: one line per row, then the notes of the rows that have one.
func learnTable(withAsym bool) (header, format string, row func(experiment.LearnRow) []any, extra func(io.Writer, []experiment.LearnRow)) {
	header = "panel\tmodel\tN\tD\tmetric\tmean\t±95%\truns\tλ"
	format = "%s\t%s\t%d\t%d\t%s\t%.4g\t%.2g\t%d\t%.3g"
	if withAsym {
		header += "\tJacobian asymmetry"
		format += "\t%.2g"
	}
	row = func(r experiment.LearnRow) []any {
		v := []any{r.Panel, r.Model, r.N, r.D, r.Metric, r.Mean, r.CI95[1] - r.Mean, r.Runs, r.Lambda}
		if withAsym {
			v = append(v, r.Asymmetry)
		}
		return v
	}
	extra = func(w io.Writer, rows []experiment.LearnRow) {
		for _, r := range rows {
			if r.Note != "" {
				fmt.Fprintf(w, "note (%s, %s, N=%d): %s\n", r.Panel, r.Model, r.N, r.Note)
			}
		}
	}
	return header, format, row, extra
}

// gibBytes converts a --*-max-gib value to bytes (0 stays 0, the default).
func gibBytes(v float64, flag string) (int64, error) {
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, usagef("%s must be a positive number of GiB", flag)
	}
	return int64(v * (1 << 30)), nil
}

func runORFFFig2(args []string, stdout, stderr io.Writer) error {
	def, _ := experiment.ORFFFig2{}.WithDefaults()
	fs := newFlags("repro orff-fig2", stdout, "[flags]")
	var rf reproFlags
	rf.register(fs, "orff-fig2-{time,error}", def.Runs)
	dataDir := fs.String("data-dir", def.DataDir, "directory holding the shared datasets (MNIST under mnist/)")
	sigma := fs.Float64("sigma", def.Sigma, "Gaussian bandwidth on pixels/255 (10 = the paper's σ = 20 on [−1,1])")
	lambda := fs.Float64("lambda", 0, "ridge λ of every fit; 0 selects it by 2-fold cross-validation of the exact OVK")
	grid := fs.String("lambda-grid", joinFloats(def.LambdaGrid), "comma list of λ for the cross-validation")
	lrule := fs.String("lambda-rule", def.LambdaRule, "how the cross-validation picks λ: 1se (largest λ within one "+
		"standard error of the best) or min")
	nErr := fs.Int("n-error", def.ErrorN, "training rows of the error-vs-D panel")
	ds := fs.String("D", joinInts(def.Ds), "comma list of D (points) of the error-vs-D panel")
	timeD := fs.Int("time-D", def.TimeD, "D (points) of the ORFF timings")
	ns := fs.String("N", joinInts(def.Ns), "comma list of training sizes N of the time-vs-N panel")
	exactMaxN := fs.Int("exact-max-n", def.ExactMaxN, "largest N at which the exact OVK is timed (larger N: "+
		"refused by the memory guard, or skipped)")
	exactGiB := fs.Float64("exact-max-gib", 0, "memory guard of the exact OVK in GiB (0: learn's default, 4)")
	test := fs.Int("test", def.Test, "test rows (the first of MNIST's test split)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r, err := rf.parse()
	if err != nil {
		return err
	}
	gv, err := reproFloats(*grid, "--lambda-grid")
	if err != nil {
		return err
	}
	dv, err := parseInts(*ds, "--D")
	if err != nil {
		return err
	}
	nv, err := parseInts(*ns, "--N")
	if err != nil {
		return err
	}
	if *lambda < 0 || *nErr < 4 || *timeD < 1 || *exactMaxN < 1 || *test < 1 {
		return usagef("--lambda must be ≥ 0, --n-error ≥ 4, --time-D, --exact-max-n and --test ≥ 1")
	}
	mb, err := gibBytes(*exactGiB, "--exact-max-gib")
	if err != nil {
		return err
	}
	s, err := experiment.ORFFFig2{DataDir: *dataDir, Sigma: *sigma, Lambda: *lambda, LambdaRule: *lrule,
		LambdaGrid: gv, ErrorN: *nErr,
		Ds: dv, TimeD: *timeD, Ns: nv, ExactMaxN: *exactMaxN, ExactMaxBytes: mb, Test: *test, Rule: r,
		Runs: rf.runs, Seed: rf.seed}.WithDefaults()
	if err != nil {
		return usageError{err.Error()}
	}
	header, format, row, extra := learnTable(false)
	return reproExecute(reproStudy[experiment.LearnRow]{
		name: "orff-fig2", settings: s, steps: s.Steps(),
		run: func(ctx context.Context, p func()) ([]experiment.LearnRow, error) {
			s.Progress = p
			return s.Run(ctx)
		},
		summarize: s.Summarize, write: s.Write,
		header: header, format: format, row: row, extra: extra,
	}, &rf, stdout, stderr)
}

func runORFFFig3(args []string, stdout, stderr io.Writer) error {
	def, _ := experiment.ORFFFig3{}.WithDefaults()
	fs := newFlags("repro orff-fig3", stdout, "[flags]")
	var rf reproFlags
	rf.register(fs, "orff-fig3-{r2,time}", def.Runs)
	train := fs.Int("train", def.Train, "training rows of the R² panel")
	test := fs.Int("test", def.Test, "test rows")
	noise := fs.Float64("noise", 0, "standard deviation of Gaussian noise on the training targets (R² is against "+
		"the noise-free field)")
	sigma := fs.Float64("sigma", def.Sigma, "Gaussian bandwidth of every model")
	lambda := fs.Float64("lambda", def.Lambda, "ridge λ of every model")
	ds := fs.String("D", joinInts(def.Ds), "comma list of D (points; 2D features) of the R² panel")
	exactN := fs.Int("exact-n", 0, "training rows of the exact curl-free OVK (0: all of --train)")
	exactGiB := fs.Float64("exact-max-gib", float64(def.ExactMaxBytes)/(1<<30), "memory guard of the exact models in GiB")
	timeNs := fs.String("time-N", joinInts(def.TimeNs), "comma list of training sizes N of the time panel")
	timeD := fs.Int("time-D", def.TimeD, "D (points) of the ORFF and RFF timings")
	timeRows := fs.Int("time-exact-max-rows", def.TimeExactMaxRows, "largest system (N·p rows for the curl-free "+
		"OVK, N for KRR) timed in the time panel")
	checks := fs.Int("checks", def.Checks, "test points of the Jacobian (curl-free) check")
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
	tv, err := parseInts(*timeNs, "--time-N")
	if err != nil {
		return err
	}
	if *train < 2 || *test < 2 || *exactN < 0 || *timeD < 1 || *timeRows < 1 || *checks < 1 || !(*exactGiB > 0) ||
		!(*lambda > 0) {
		return usagef("--train and --test must be ≥ 2, --exact-n ≥ 0, --time-D, --time-exact-max-rows, --checks ≥ 1, " +
			"--exact-max-gib and --lambda > 0")
	}
	mb, err := gibBytes(*exactGiB, "--exact-max-gib")
	if err != nil {
		return err
	}
	s, err := experiment.ORFFFig3{Train: *train, Test: *test, Noise: *noise, Sigma: *sigma, Lambda: *lambda, Ds: dv,
		ExactN: *exactN, ExactMaxBytes: mb, TimeNs: tv, TimeD: *timeD, TimeExactMaxRows: *timeRows, Checks: *checks,
		Rule: r, Runs: rf.runs, Seed: rf.seed}.WithDefaults()
	if err != nil {
		return usageError{err.Error()}
	}
	header, format, row, extra := learnTable(true)
	return reproExecute(reproStudy[experiment.LearnRow]{
		name: "orff-fig3", settings: s, steps: s.Steps(),
		run: func(ctx context.Context, p func()) ([]experiment.LearnRow, error) {
			s.Progress = p
			return s.Run(ctx)
		},
		summarize: s.Summarize, write: s.Write,
		header: header, format: format, row: row, extra: extra,
	}, &rf, stdout, stderr)
}

func runORFFMultitask(args []string, stdout, stderr io.Writer) error {
	def, _ := experiment.ORFFMultitask{}.WithDefaults()
	fs := newFlags("repro orff-multitask", stdout, "[flags]")
	var rf reproFlags
	rf.register(fs, "orff-multitask-{rmse,r2}", def.Runs)
	ns := fs.String("N", joinInts(def.Ns), "comma list of training sizes N (at least 2 each)")
	test := fs.Int("test", def.Test, "test rows (scored against the noise-free targets)")
	val := fs.Int("validation", def.Validation, "validation rows selecting λ")
	noise := fs.Float64("noise", def.Noise, "standard deviation of Gaussian noise on the training and validation "+
		"targets (0: noise-free)")
	sigma := fs.Float64("sigma", def.Sigma, "Gaussian bandwidth")
	D := fs.Int("D", def.D, "points of the ORFF maps (2D scalar features)")
	grid := fs.String("lambda-grid", joinFloats(def.LambdaGrid), "comma list of λ selected from on the validation rows")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r, err := rf.parse()
	if err != nil {
		return err
	}
	nv, err := parseInts(*ns, "--N")
	if err != nil {
		return err
	}
	gv, err := reproFloats(*grid, "--lambda-grid")
	if err != nil {
		return err
	}
	if *test < 2 || *val < 1 || *D < 1 || *noise < 0 {
		return usagef("--test must be ≥ 2, --validation and --D ≥ 1, --noise ≥ 0")
	}
	nz := *noise
	if nz == 0 {
		nz = -1 // the study's zero value means its default; negative means noise-free
	}
	s, err := experiment.ORFFMultitask{Ns: nv, Test: *test, Validation: *val, Noise: nz, Sigma: *sigma, D: *D,
		LambdaGrid: gv, Rule: r, Runs: rf.runs, Seed: rf.seed}.WithDefaults()
	if err != nil {
		return usageError{err.Error()}
	}
	header, format, row, extra := learnTable(false)
	return reproExecute(reproStudy[experiment.LearnRow]{
		name: "orff-multitask", settings: s, steps: s.Steps(),
		run: func(ctx context.Context, p func()) ([]experiment.LearnRow, error) {
			s.Progress = p
			return s.Run(ctx)
		},
		summarize: s.Summarize, write: s.Write,
		header: header, format: format, row: row, extra: extra,
	}, &rf, stdout, stderr)
}
