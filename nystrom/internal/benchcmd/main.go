// Command benchcmd runs rff's side of scripts/bench-nystrom.sh: Nyström ridge regression or FALKON on LETTER or
// MNIST, with the preprocessing and bandwidth of the quadrature paper's protocol (docs/conventions.md §10: LETTER's
// first 10000 rows for training, divided by the training split's global maximum; MNIST's 60000 training images
// divided by 255; the Gaussian kernel with γ = 1/d), one-hot targets, an unpenalized intercept, and test accuracy by
// argmax. It prints one JSON object with the timings (excluding reading the data) and the accuracy.
//
//	go run ./nystrom/internal/benchcmd --dataset mnist --method falkon --centres 2000
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/datadir"
	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/nystrom"
)

type result struct {
	Dataset    string             `json:"dataset"`
	Method     string             `json:"method"`
	Selector   string             `json:"selector"`
	Centres    int                `json:"centres"`
	Features   int                `json:"features,omitempty"`
	Basis      string             `json:"basis,omitempty"`
	Lambda     float64            `json:"lambda"`
	Train      int                `json:"train"`
	Test       int                `json:"test"`
	Dim        int                `json:"dim"`
	Gamma      float64            `json:"gamma"`
	Seconds    map[string]float64 `json:"seconds"`
	Iterations int                `json:"iterations,omitempty"`
	Residual   float64            `json:"residual,omitempty"`
	Converged  *bool              `json:"converged,omitempty"`
	Accuracy   float64            `json:"accuracy"`
	Backend    string             `json:"backend"`
}

func main() {
	if err := linalg.UseEnv(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchcmd:", err)
		os.Exit(1)
	}
}

func run() error {
	dir := flag.String("data", datadir.Dir(), "data directory (RFF_DATA)")
	name := flag.String("dataset", "letter", "letter or mnist")
	method := flag.String("method", "ridge", "ridge (Nyström features + learn.Ridge) or falkon")
	M := flag.Int("centres", 1000, "number of centres (landmarks) M")
	sel := flag.String("selector", "uniform", "landmark selection: uniform, kmeans++, leverage")
	basisName := flag.String("basis", "cholesky", "ridge: basis of the Nyström features, cholesky or eigen")
	lambda := flag.Float64("lambda", 1e-6, "λ of (1/N)Σ(f(x_i) − y_i)² + λ‖f‖²")
	seed := flag.Uint64("seed", 1, "seed of the landmark selection")
	tol := flag.Float64("tol", 1e-6, "FALKON: CG tolerance")
	maxIter := flag.Int("maxiter", 50, "FALKON: CG iteration limit")
	version := flag.Bool("version", false, "print the linear-algebra backend as JSON and exit")
	flag.Parse()
	if *version {
		info := linalg.Info()
		out, err := json.Marshal(map[string]string{"backend": info.Backend, "core_type": info.CoreType, "string": info.String()})
		if err != nil {
			return err
		}
		fmt.Println(string(out))
		return nil
	}

	train, test, classes, err := load(*dir, *name)
	if err != nil {
		return err
	}
	n, d := train.N, train.D
	gamma := 1 / float64(d)
	k := kernel.Gaussian{S: kernel.SigmaFromGamma(gamma)}
	labels := func(data *dataset.Data) []int {
		out := make([]int, data.N)
		for i, v := range data.Y {
			out[i] = int(v)
		}
		return out
	}
	Y := learn.OneHot(labels(train), classes, false)
	s, err := nystrom.SelectorByName(*sel)
	if err != nil {
		return err
	}
	res := result{Dataset: *name, Method: *method, Selector: s.Name(), Centres: *M, Lambda: *lambda, Train: n, Test: test.N,
		Dim: d, Gamma: gamma, Seconds: map[string]float64{}, Backend: linalg.Info().String()}
	pred := make([]float64, test.N*classes)
	t0 := time.Now()
	idx, err := s.Select(k, train.X, n, d, *M, *seed)
	if err != nil {
		return err
	}
	C, err := nystrom.Gather(train.X, n, d, idx)
	if err != nil {
		return err
	}
	res.Seconds["select"] = time.Since(t0).Seconds()
	switch *method {
	case "ridge":
		basis, err := nystrom.ParseBasis(*basisName)
		if err != nil {
			return err
		}
		t1 := time.Now()
		m, err := nystrom.FromLandmarks(k, C, *M, d, nystrom.WithMaxBytes(-1), nystrom.WithBasis(basis))
		if err != nil {
			return err
		}
		res.Features, res.Basis = m.Features(), basis.String()
		t2 := time.Now()
		st, err := learn.Accumulate(m, train.X, n, Y, classes)
		if err != nil {
			return err
		}
		t3 := time.Now()
		fit, err := learn.Ridge{Lambda: *lambda, Intercept: true}.SolveInPlace(st)
		if err != nil {
			return err
		}
		t4 := time.Now()
		res.Seconds["map"], res.Seconds["accumulate"], res.Seconds["solve"] = t2.Sub(t1).Seconds(), t3.Sub(t2).Seconds(), t4.Sub(t3).Seconds()
		res.Seconds["fit"] = t4.Sub(t0).Seconds()
		if err := m.Predict(pred, fit, test.X, test.N); err != nil {
			return err
		}
		res.Seconds["predict"] = time.Since(t4).Seconds()
	case "falkon":
		t1 := time.Now()
		fit, err := nystrom.Falkon{Lambda: *lambda, Intercept: true, Tol: *tol, MaxIter: *maxIter, MaxBytes: -1}.
			Fit(k, C, *M, d, train.X, n, Y, classes)
		conv := err == nil
		if err != nil && fit == nil {
			return err
		}
		t2 := time.Now()
		res.Iterations, res.Residual, res.Converged = fit.Iterations, fit.Residual, &conv
		res.Seconds["solve"] = t2.Sub(t1).Seconds()
		res.Seconds["fit"] = t2.Sub(t0).Seconds()
		if err := fit.Predict(pred, test.X, test.N); err != nil {
			return err
		}
		res.Seconds["predict"] = time.Since(t2).Seconds()
	default:
		return fmt.Errorf("unknown method %q (ridge, falkon)", *method)
	}
	correct := 0
	for i, c := range learn.Argmax(pred, test.N, classes) {
		if c == int(test.Y[i]) {
			correct++
		}
	}
	res.Accuracy = float64(correct) / float64(test.N)
	out, err := json.Marshal(res)
	if err != nil {
		return err
	}
	fmt.Println(string(out))
	return nil
}

// load reads a dataset's training and test splits, preprocessed as in the quadrature paper's protocol.
func load(dir, name string) (train, test *dataset.Data, classes int, err error) {
	switch name {
	case "letter":
		all, err := dataset.Load(filepath.Join(dir, "letter", "letter-recognition.data"), dataset.Options{Target: "first"})
		if err != nil {
			return nil, nil, 0, err
		}
		train, test = all.Split(10000)
		top := 0.0
		for _, v := range train.X {
			top = max(top, math.Abs(v))
		}
		for _, data := range []*dataset.Data{train, test} {
			for i := range data.X {
				data.X[i] /= top
			}
		}
		return train, test, len(all.Labels), nil
	case "mnist":
		mn := filepath.Join(dir, "mnist")
		if train, err = dataset.LoadIDX(filepath.Join(mn, "train-images-idx3-ubyte.gz"), filepath.Join(mn, "train-labels-idx1-ubyte.gz")); err != nil {
			return nil, nil, 0, err
		}
		if test, err = dataset.LoadIDX(filepath.Join(mn, "t10k-images-idx3-ubyte.gz"), filepath.Join(mn, "t10k-labels-idx1-ubyte.gz")); err != nil {
			return nil, nil, 0, err
		}
		for _, data := range []*dataset.Data{train, test} {
			for i := range data.X {
				data.X[i] /= 255
			}
		}
		return train, test, 10, nil
	}
	return nil, nil, 0, fmt.Errorf("unknown dataset %q (letter, mnist)", name)
}
