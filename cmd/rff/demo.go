package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"text/tabwriter"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/progress"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// demoData is the demo's built-in dataset: n rows in R^d drawn around a few random cluster centres in [0,1]^d,
// scaled by the global maximum as in the quadrature paper's protocol.
func demoData(n, d int, seed uint64) *dataset.Data {
	data, _ := demoLabelled(n, d, seed)
	return data
}

// demoLabelled is demoData with the cluster of each row as its class label.
func demoLabelled(n, d int, seed uint64) (*dataset.Data, []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	const clusters = 5
	centres := make([]float64, clusters*d)
	for i := range centres {
		centres[i] = rng.Float64()
	}
	x := make([]float64, n*d)
	labels := make([]int, n)
	for i := 0; i < n; i++ {
		c := rng.IntN(clusters)
		labels[i] = c
		for j := 0; j < d; j++ {
			x[i*d+j] = centres[c*d+j] + 0.15*rng.NormFloat64()
		}
	}
	sc, _ := dataset.FitScaler(x, n, d, []dataset.Step{dataset.StepMaxScale})
	sc.Apply(x, n, d)
	return &dataset.Data{X: x, N: n, D: d}, labels
}

// demoLearning fits classifiers on the demo clusters (2000 training rows, 1000 test rows) through the library:
// ridge on random and quadrature features of the Gaussian kernel, a linear SVM and logistic regression on SR
// features, against exact kernel ridge regression with the same λ.
func demoLearning(w io.Writer, seed uint64) error {
	const ntr, nte, d, classes, D, sigma, lambda = 2000, 1000, 8, 5, 128, 0.3, 1e-4
	data, labels := demoLabelled(ntr+nte, d, seed+1)
	data.Y = make([]float64, data.N)
	for i, c := range labels {
		data.Y[i] = float64(c)
	}
	train, test := data.Split(ntr)
	fmt.Fprintf(w, "\nclassifying the %d clusters (%d training rows, %d test rows), Gaussian kernel σ = %.2g, λ = %.0e:\n", classes, ntr, nte, sigma, lambda)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tpoints\ttest accuracy\t")
	base := rff.Config{Task: "classification", Sigma: sigma, Points: D, Lambda: lambda, Seed: seed, Preprocess: "none"}
	row := func(name string, cfg rff.Config) error {
		m, err := rff.Fit(cfg, train)
		if err != nil {
			return err
		}
		s, err := m.Score(test)
		if err != nil {
			return err
		}
		points := "–"
		if !cfg.Exact {
			points = fmt.Sprint(m.Info().Points)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t\n", name, points, s.Classification.Accuracy)
		return nil
	}
	for _, r := range []string{"g", "orf", "sr-butterfly"} {
		cfg := base
		cfg.Rule = r
		if err := row("ridge on "+r+" features", cfg); err != nil {
			return err
		}
	}
	for _, loss := range []string{"hinge", "logistic"} {
		cfg := base
		cfg.Loss = loss
		if err := row(loss+" on sr-butterfly features", cfg); err != nil {
			return err
		}
	}
	cfg := base
	cfg.Exact, cfg.Points = true, 0
	if err := row("exact kernel ridge", cfg); err != nil {
		return err
	}
	return tw.Flush()
}

func runDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("demo", stdout, "[--runs R] [--seed S] [--json] [--max-memory B]")
	runs := fs.Int("runs", 50, "independent runs per (rule, n)")
	seed := fs.Uint64("seed", 1, "random seed")
	asJSON := fs.Bool("json", false, "print the kernel-approximation tables as one JSON object on stdout, and nothing else (the learning, model, field and bound parts are text only)")
	mem := registerMemory(fs.FlagSet)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *runs < 1 {
		return usagef("--runs must be at least 1")
	}
	const n, d, samples = 3000, 8, 400
	rules, _ := rule.ParseList(allRules)
	ns := []int{1, 2, 3}
	kernels := []kernel.Kernel{kernel.Gaussian{S: kernel.SigmaFromGamma(1 / float64(d))}, kernel.ArcCos{Order: 1}}
	// Memory: the data, and per kernel the study's few numbers per (rule, n, run) — as for approx.
	need := 8 * (float64(n*d) + 4*float64(len(kernels)*len(rules)*len(ns))*float64(*runs))
	if err := checkMemory(*mem, need, "the demo", "--runs"); err != nil {
		return err
	}
	data := demoData(n, d, *seed)
	rng := rand.New(rand.NewPCG(*seed, 0x5eed))
	X := data.Subset(dataset.Subsample(rng, n, samples))
	Y := data.Subset(dataset.Subsample(rng, n, samples))
	bar := progress.New(stderr, "demo", len(kernels)*len(rules)*len(ns)*(*runs))
	out := map[string][]approx.Result{}
	for _, k := range kernels {
		st := approx.Study{Kernel: k, Rules: rules, Ns: ns, Runs: *runs, Seed: *seed, Progress: func() { bar.Add(1) }}
		res, err := st.Run(context.Background(), X.X, X.N, Y.X, Y.N, d)
		if err != nil {
			bar.Done()
			return err
		}
		out[k.Name()] = res
	}
	bar.Done()
	if *asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{
			"dataset": fmt.Sprintf("built-in clusters, %d rows, d = %d, scaled by the global maximum", n, d),
			"samples": samples, "runs": *runs, "seed": *seed, "results": out,
		})
	}
	fmt.Fprintf(stdout, "rff demo: how well each rule approximates the kernel on built-in data (%d rows in R^%d)\n", n, d)
	fmt.Fprintf(stdout, "mean relative Frobenius error ‖K − K̂‖_F/‖K‖_F over %d runs, two random subsets of %d rows;\n", *runs, samples)
	fmt.Fprintf(stdout, "every rule gets the same D = 2n(d+1) points. Lower is better.\n")
	for _, k := range kernels {
		fmt.Fprintf(stdout, "\nkernel %s\n", describeKernel(k))
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "rule\t")
		for _, v := range ns {
			fmt.Fprintf(tw, "n=%d (D=%d)\t", v, approx.PointsForN(v, d))
		}
		fmt.Fprintln(tw)
		res := out[k.Name()]
		for i, r := range rules {
			fmt.Fprintf(tw, "%s\t", r.Name())
			for j := range ns {
				fmt.Fprintf(tw, "%.3g\t", res[i*len(ns)+j].Mean)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
	}
	for _, part := range []func(io.Writer, uint64) error{demoLearning, demoModel, demoField, demoBound} {
		if err := part(stdout, *seed); err != nil {
			return err
		}
	}
	fmt.Fprintln(stdout, "\nsr-butterfly and sr-haar are the SR(3,3) quadrature rules (Munkhoeva et al. 2018); g is plain random Fourier features.")
	fmt.Fprintln(stdout, "Next: rff approx --data FILE (see README), rff help.")
	return nil
}

func describeKernel(k kernel.Kernel) string {
	if s, ok := k.(kernel.Spectral); ok {
		return fmt.Sprintf("%s (σ = %.3g)", k.Name(), s.Sigma())
	}
	return k.Name()
}
