package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/rffkit/rff/rule"
)

// A Study is one experiment of `rff repro`. Its exported fields are its settings; the constructor of its [Entry]
// sets their defaults, and zero means zero (the few fields where 0 selects something else say so).
type Study interface {
	// Validate checks the settings without reading any data.
	Validate() error
	// Steps is the number of units of work Run reports to the progress callback; 0 for invalid settings.
	Steps() int
	// SetProgress sets the function Run calls after each unit of work.
	SetProgress(func())
	// Memory is the estimated peak of the bytes Run allocates for valid settings: the large arrays (data rows, the
	// maps' points, feature, Gram and statistics matrices, per-run results) of its most demanding phase, with the
	// scratch of every worker where work runs in parallel. It is computed in float64 and never overflows; a caller
	// compares it with its memory budget before Run.
	Memory() float64
	// MemoryFlags names the command-line flags that lower Memory, for the message that refuses a study over budget.
	MemoryFlags() string
	// Run validates the settings and runs the study. It stops early, returning ctx.Err(), when ctx is cancelled.
	Run(ctx context.Context) (Result, error)
}

// A Result is what a study measured. It marshals to the JSON object of `rff repro --json` (snake_case keys).
type Result interface {
	// Summarize writes the result as a text table, followed by what the study found when it states a finding.
	Summarize(w io.Writer) error
	// Write writes the study's figures into dir (PNG, with the data of each as CSV beside it, and for some
	// studies a JSON file of the measurements) and returns the paths of the PNGs (and of that JSON file).
	Write(dir string) ([]string, error)
}

// Progress is embedded in every study: it holds the progress callback.
type Progress struct {
	// OnStep, when set, is called after each unit of work (Steps in all).
	OnStep func() `json:"-"`
}

// SetProgress sets OnStep.
func (p *Progress) SetProgress(f func()) { p.OnStep = f }

func (p Progress) step() {
	if p.OnStep != nil {
		p.OnStep()
	}
}

// Draws are the settings of the studies that measure independent random maps: the rule drawing the points, the
// number of independent runs per point and the seed that fixes every draw.
type Draws struct {
	// Rule names the rule drawing the points (rule.Parse); "g", iid Gaussian frequencies, is the theorems' setting.
	Rule string `json:"rule" flag:"rule" help:"rule drawing the points: g (iid, the theorems' setting), orf, sorf, qmc, gq, sr-butterfly, sr-haar"`
	// Runs is the number of independent maps (and, for the learning studies, training sets) per point.
	Runs int `json:"runs" flag:"runs" help:"independent maps per point"`
	// Seed fixes every draw (approx.RunSeed derives one seed per point and run).
	Seed uint64 `json:"seed" flag:"seed" help:"random seed (same seed → same maps and searches)"`
}

// defaultDraws are the draws of the theorems: iid Gaussian frequencies, seed 1.
func defaultDraws(runs int) Draws { return Draws{Rule: "g", Runs: runs, Seed: 1} }

func (d Draws) check() error {
	if d.Runs < 1 {
		return fmt.Errorf("runs must be at least 1, got %d", d.Runs)
	}
	if err := checkArray("--runs (the results of the runs)", d.Runs); err != nil {
		return err
	}
	_, err := rule.Parse(d.Rule)
	return err
}

// parseRule returns the rule of draws that passed check.
func (d Draws) parseRule() rule.Rule {
	r, _ := rule.Parse(d.Rule)
	return r
}

// Data is embedded in the studies that read datasets.
type Data struct {
	// DataDir is the directory holding the datasets, one folder each (see Benchmark.Load and the LEUKEMIA loader of
	// package dataset).
	DataDir string `json:"data_dir" flag:"data-dir" env:"RFF_DATA" help:"directory holding the datasets (default: $RFF_DATA)"`
}

// errNoDataDir is the error of a data study run without a data directory.
var errNoDataDir = errors.New("no data directory: set --data-dir or RFF_DATA")

func (d Data) check() error {
	if d.DataDir == "" {
		return errNoDataDir
	}
	return nil
}

// steps is n for valid settings of s, 0 otherwise.
func steps(s Study, n int) int {
	if s.Validate() != nil {
		return 0
	}
	return n
}

// checkRules reports a list of rule names that rule.ParseList does not read, or that is empty.
func checkRules(names []string) error {
	rs, err := rule.ParseList(strings.Join(names, ","))
	if err == nil && len(rs) == 0 {
		err = errors.New("no rule given")
	}
	return err
}

// firstError returns the first of errs that is not nil.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkPositiveInts reports an empty list or its first value below 1.
func checkPositiveInts(what string, v []int) error {
	if len(v) == 0 {
		return fmt.Errorf("no %s given", what)
	}
	for _, x := range v {
		if x < 1 {
			return fmt.Errorf("%s must be at least 1, got %d", what, x)
		}
	}
	return nil
}

// checkSweep refuses a swept list (flag, as the command spells it) with fewer than two distinct values: the study
// fits a rate, a slope, over them.
func checkSweep(flag string, v []int) error {
	if len(slices.Compact(slices.Sorted(slices.Values(v)))) < 2 {
		return fmt.Errorf("%s needs at least 2 distinct values (the rate is a slope fitted over them), got %v", flag, v)
	}
	return nil
}

// checkBandwidth refuses a bandwidth σ whose square over- or underflows (|σ| beyond 1e150 or below 1e-150): the
// kernels and the frequencies' second moment d/σ² would be 0 or infinite in floating point.
func checkBandwidth(sigma float64) error {
	if err := checkPositive("bandwidth σ", sigma); err != nil {
		return err
	}
	if !(sigma >= 1e-150 && sigma <= 1e150) {
		return fmt.Errorf("bandwidth σ = %v: its square over- or underflows floating point; give σ between 1e-150 and 1e150", sigma)
	}
	return nil
}

// checkPositive reports an empty list or its first value that is not positive and finite.
func checkPositive(what string, v ...float64) error {
	if len(v) == 0 {
		return fmt.Errorf("no %s given", what)
	}
	for _, x := range v {
		if !(x > 0) || math.IsInf(x, 0) {
			return fmt.Errorf("%s must be positive and finite, got %v", what, x)
		}
	}
	return nil
}
