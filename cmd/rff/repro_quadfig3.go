package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/rffkit/rff/experiment"
	"github.com/rffkit/rff/internal/progress"
	"github.com/rffkit/rff/rule"
)

// quad-fig3: the quadrature paper's wall-time figure (Munkhoeva et al. 2018, §4.4, Figure 3), registered into
// reproStudies.
func init() {
	reproStudies["quad-fig3"] = study{"quadrature paper, Figure 3: time to map vs d for G, ORF, GQ, SR-butterfly (LETTER, USPS, MNIST, LEUKEMIA)", runQuadFig3}
}

func runQuadFig3(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("repro quad-fig3", stdout, "[flags]")
	dataDir := fs.String("data-dir", "../shared/data", "directory holding the shared datasets")
	out := fs.String("out", "docs/figures", "directory for the figure (quad-fig3.png, .csv and .json)")
	datasets := fs.String("datasets", strings.Join(experiment.QuadFig3Datasets(), ","), "comma list of datasets")
	rules := fs.String("rules", "g,orf,gq,sr-butterfly", "comma list of rules")
	n := fs.Int("n", 1, "n in D = 2n(d+1) points (cos/sin: 2D columns)")
	rows := fs.Int("rows", 1000, "rows mapped per measurement (taken cyclically from the training split)")
	runs := fs.Int("runs", 10, "timed maps per dataset and rule (the paper averages 50)")
	seed := fs.Uint64("seed", 1, "random seed")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout instead of a table")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	rs, err := rule.ParseList(*rules)
	if err != nil {
		return usageError{err.Error()}
	}
	if *n < 1 || *rows < 1 || *runs < 1 {
		return usagef("--n, --rows and --runs must be at least 1")
	}
	q := experiment.QuadFig3{DataDir: *dataDir, Datasets: splitList(*datasets), Rules: rs, N: *n, Rows: *rows,
		Runs: *runs, Seed: *seed}
	if err := q.Validate(); err != nil {
		return usageError{err.Error()}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	bar := progress.New(stderr, "quad-fig3", q.Steps())
	q.Progress = func() { bar.Add(1) }
	timings, err := q.Run(context.Background())
	bar.Done()
	if err != nil {
		return err
	}
	paths, err := experiment.WriteQuadFig3(*out, timings)
	if err != nil {
		return err
	}
	backend := linalgBackend()
	if *asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"study": "quad-fig3", "n": *n, "rows": *rows,
			"runs": *runs, "seed": *seed, "backend": backend.Summary, "figures": paths, "timings": timings})
	}
	fmt.Fprintf(stdout, "time to map %d rows, n = %d (D = 2n(d+1) points, 2D columns), mean of %d maps; backend %s\n",
		*rows, *n, *runs, backend.Summary)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dataset\td\trule\tD\tseconds\t±95%\trows/s\tdraw s\t")
	for _, t := range timings {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%.4g\t%.2g\t%.4g\t%.3g\t\n", t.Dataset, t.Dim, t.Rule, t.D, t.Mean,
			t.CI95[1]-t.Mean, t.RowsPerSecond, t.DrawSeconds)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "figures: %s\n", strings.Join(paths, ", "))
	return nil
}
