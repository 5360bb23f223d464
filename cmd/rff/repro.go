package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/rffkit/rff/experiment"
	"github.com/rffkit/rff/internal/progress"
	"github.com/rffkit/rff/rule"
)

// study is one experiment of rff repro: a one-line summary and the command that runs it.
type study struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

// reproStudies are the papers' experiments that rff repro runs, by name; the files repro_*.go add theirs from init.
var reproStudies = map[string]study{
	"quad-fig2": {"quadrature paper, Figure 2: SVM accuracy / ridge R² vs n for every rule (Powerplant, LETTER, USPS)", runQuadFig2},
}

func reproNames() []string {
	var names []string
	for n := range reproStudies {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func runRepro(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Fprintln(stdout, "Usage: rff repro <study> [flags]   (rff repro <study> -h for its flags)\n\nStudies:")
			for _, n := range reproNames() {
				fmt.Fprintf(stdout, "  %-15s %s\n", n, reproStudies[n].summary)
			}
			return nil
		}
		return usagef("name a study: %s", strings.Join(reproNames(), ", "))
	}
	s, ok := reproStudies[args[0]]
	if !ok {
		return usagef("unknown study %q (have %s)", args[0], strings.Join(reproNames(), ", "))
	}
	return s.run(args[1:], stdout, stderr)
}

// splitList splits a comma list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func runQuadFig2(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("repro quad-fig2", stdout, "[flags]")
	dataDir := fs.String("data-dir", "../shared/data", "directory holding the shared datasets")
	out := fs.String("out", "docs/figures", "directory for the figures (quad-fig2-<dataset>-<kernel>.png and .csv)")
	datasets := fs.String("datasets", "powerplant,letter,usps", "comma list of datasets")
	kernels := fs.String("kernels", "gaussian,arccos0,arccos1", "comma list of kernels")
	rules := fs.String("rules", allRules, "comma list of rules")
	ns := fs.String("n", "1,2,3,4,5", "comma list of n; D = 2n(d+1) points")
	runs := fs.Int("runs", 3, "independent draws per point")
	seed := fs.Uint64("seed", 1, "random seed")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout instead of a table")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	rs, err := rule.ParseList(*rules)
	if err != nil {
		return usageError{err.Error()}
	}
	nv, err := parseInts(*ns, "--n")
	if err != nil {
		return err
	}
	if *runs < 1 {
		return usagef("--runs must be at least 1")
	}
	q := experiment.QuadFig2{DataDir: *dataDir, Datasets: splitList(*datasets), Kernels: splitList(*kernels),
		Rules: rs, Ns: nv, Runs: *runs, Seed: *seed}
	for _, d := range q.Datasets {
		if _, err := experiment.Lookup(d); err != nil {
			return usageError{err.Error()}
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	bar := progress.New(stderr, "quad-fig2", q.Steps())
	q.Progress = func() { bar.Add(1) }
	scores, err := q.Run(context.Background())
	bar.Done()
	if err != nil {
		return err
	}
	paths, err := experiment.WriteQuadFig2(*out, scores)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"study": "quad-fig2", "runs": *runs, "seed": *seed,
			"figures": paths, "scores": scores})
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dataset\tkernel\trule\tn\tD\tmetric\tmean\t±95%\tseconds\t")
	for _, s := range scores {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%.4f\t%.4f\t%.2f\t\n", s.Dataset, s.Kernel, s.Rule, s.N, s.D, s.Metric,
			s.Mean, s.CI95[1]-s.Mean, s.Seconds)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "figures: %s\n", strings.Join(paths, ", "))
	return nil
}
