package rff_test

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/learn"
)

// A fit assembled from statistics that three workers accumulate on their own shards of the rows, as a distributed
// pipeline makes it: pass 1 merges the column statistics of the preprocessing, the median heuristic measures the
// rows SampleRows names, pass 2 merges the ridge statistics of the map every worker draws from the seed, and
// FitFromStats solves them. The model is the one Fit returns on all the rows, up to rounding.
func ExampleFitFromStats() {
	data := sine(600)
	cfg := rff.Config{Points: 128, Lambda: 1e-6, Seed: 1} // σ: the median heuristic
	const workers = 3
	shard := func(k int) (X, Y []float64, n int) { // the rows of worker k
		lo, hi := k*data.N/workers, (k+1)*data.N/workers
		return data.X[lo*data.D : hi*data.D], data.Y[lo:hi], hi - lo
	}

	// Pass 1: the statistics of the preprocessing (standardize), merged from the workers.
	steps, err := rff.PreprocessSteps(cfg)
	if err != nil {
		panic(err)
	}
	acc := dataset.NewScalerAccumulator(data.D)
	for k := range workers {
		a := dataset.NewScalerAccumulator(data.D)
		X, _, n := shard(k)
		if err := a.Add(X, n); err != nil {
			panic(err)
		}
		if err := acc.Merge(a); err != nil {
			panic(err)
		}
	}
	sc, err := acc.Scaler(steps)
	if err != nil {
		panic(err)
	}

	// The bandwidth: fetch the rows SampleRows names and measure them.
	idx, err := rff.SampleRows(cfg, acc.Rows())
	if err != nil {
		panic(err)
	}
	var sample []float64
	for _, i := range idx {
		sample = append(sample, data.X[i*data.D:(i+1)*data.D]...)
	}
	if cfg.Sigma, err = rff.ChooseSigma(cfg, sample, sc); err != nil {
		panic(err)
	}

	// Pass 2: every worker draws the same map and accumulates the ridge statistics of its preprocessed rows.
	var stats *learn.Stats
	for k := range workers {
		fmap, err := rff.NewMap(cfg, data.D)
		if err != nil {
			panic(err)
		}
		a, err := learn.NewAccumulator(fmap, 1)
		if err != nil {
			panic(err)
		}
		X, Y, n := shard(k)
		X = slices.Clone(X)
		sc.Apply(X, n, data.D)
		if err := a.Add(X, n, Y); err != nil {
			panic(err)
		}
		st, err := a.Stats()
		if err != nil {
			panic(err)
		}
		if stats == nil {
			stats = st
		} else if err := stats.Merge(st); err != nil {
			panic(err)
		}
	}

	m, err := rff.FitFromStats(cfg, rff.DistributedStats{Scaler: sc, Names: data.Names, Target: data.TargetName, Stats: stats})
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Info().Inputs, m.Info().Targets, m.Report().N)

	// The same fit in memory.
	ref, err := rff.Fit(rff.Config{Points: 128, Lambda: 1e-6, Seed: 1}, data)
	if err != nil {
		panic(err)
	}
	test := sine(50)
	p, _ := m.Predict(test)
	q, _ := ref.Predict(test)
	diff := 0.0
	for i := range p.Values {
		diff = math.Max(diff, math.Abs(p.Values[i]-q.Values[i]))
	}
	fmt.Println("σ of Fit:", math.Abs(cfg.Sigma-ref.Info().Sigma) <= 1e-12*cfg.Sigma)
	fmt.Println("predictions of Fit within 1e-6:", diff <= 1e-6)
	// Output:
	// [a b] [y] 600
	// σ of Fit: true
	// predictions of Fit within 1e-6: true
}

// The preprocessing a distributed fit fits with a dataset.ScalerAccumulator: the default, a list of steps, and a
// PCA step, which needs the rows twice and is refused.
func ExamplePreprocessSteps() {
	for _, pre := range []string{"", "minmax", "maxscale,standardize"} {
		steps, err := rff.PreprocessSteps(rff.Config{Preprocess: pre})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%q: %v\n", pre, steps)
	}
	_, err := rff.PreprocessSteps(rff.Config{Preprocess: "standardize,pca:2"})
	fmt.Println("pca refused:", errors.Is(err, dataset.ErrPCAStream))
	// Output:
	// "": [standardize]
	// "minmax": [minmax]
	// "maxscale,standardize": [maxscale standardize]
	// pca refused: true
}

// The rows the median heuristic measures: all of them on a small data set, a sample of 2000 on a larger one, none
// when σ is given.
func ExampleSampleRows() {
	small, _ := rff.SampleRows(rff.Config{Seed: 1}, 5)
	large, _ := rff.SampleRows(rff.Config{Seed: 1}, 100000)
	given, _ := rff.SampleRows(rff.Config{Sigma: 2}, 100000)
	fmt.Println(small, len(large), slices.Max(large) < 100000, given == nil)
	// Output: [0 1 2 3 4] 2000 true true
}

// The bandwidth of the median heuristic on rows after the preprocessing: σ is the median distance between the rows.
func ExampleChooseSigma() {
	// Three points on a line, 1 and 2 apart: distances 1, 2 and 3, median 2.
	cfg := rff.Config{Preprocess: "none"}
	sample := []float64{0, 0, 1, 0, 3, 0}
	steps, err := rff.PreprocessSteps(cfg)
	if err != nil {
		panic(err)
	}
	sc, err := dataset.FitScaler(sample, 3, 2, steps)
	if err != nil {
		panic(err)
	}
	sigma, err := rff.ChooseSigma(cfg, sample, sc)
	if err != nil {
		panic(err)
	}
	fmt.Println(sigma)
	cfg.Sigma = 0.5
	sigma, _ = rff.ChooseSigma(cfg, sample, sc) // a given σ is kept
	fmt.Println(sigma)
	// Output:
	// 2
	// 0.5
}

// Every worker of a distributed fit rebuilds the map from the Config: the same seed draws the same features.
func ExampleNewMap() {
	cfg := rff.Config{Sigma: 1, Points: 64, Seed: 7}
	a, err := rff.NewMap(cfg, 3)
	if err != nil {
		panic(err)
	}
	b, _ := rff.NewMap(cfg, 3)
	x := []float64{0.1, -0.2, 0.3}
	za, zb := make([]float64, a.Features()), make([]float64, b.Features())
	a.TransformBlock(za, x, 1, nil)
	b.TransformBlock(zb, x, 1, nil)
	fmt.Println(a.Rule().Name(), a.Points(), a.Features(), slices.Equal(za, zb))
	// Output: sr-butterfly 64 128 true
}

// A classification target with too many distinct values is refused: it is almost surely continuous.
func ExampleCheckClasses() {
	cfg := rff.Config{Task: "classification"}
	fmt.Println(rff.CheckClasses(cfg, 10, 500))
	fmt.Println(rff.CheckClasses(cfg, 300, 500))
	cfg.MaxClasses = 400
	fmt.Println(rff.CheckClasses(cfg, 300, 500))
	// Output:
	// <nil>
	// the target has 300 distinct values in 500 rows, more than 1000 or half the training rows: it looks continuous; fit a regression, or raise the class limit (Config.MaxClasses)
	// <nil>
}
