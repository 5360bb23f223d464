package rff_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
)

// noisy returns n rows of y = sin(3x) + ε on x ∈ [−1, 1], with ε ~ N(0, 0.1²) drawn from a fixed seed.
func noisy(n int) *dataset.Data {
	rng := rand.New(rand.NewPCG(1, 2))
	d := &dataset.Data{N: n, D: 1, Names: []string{"x"}, TargetName: "y"}
	for i := range n {
		x := -1 + 2*float64(i)/float64(n-1)
		d.X = append(d.X, x)
		d.Y = append(d.Y, math.Sin(3*x)+0.1*rng.NormFloat64())
	}
	return d
}

// Save writes the model file atomically; Load reads it back, and the loaded model predicts the same bits.
func ExampleModel_Save() {
	m, err := rff.Fit(rff.Config{Points: 64, Sigma: 1, Lambda: 1e-6, Seed: 1}, sine(200))
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "rff-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "sine.rff")
	if err := m.Save(path); err != nil {
		panic(err)
	}
	loaded, err := rff.Load(path)
	if err != nil {
		panic(err)
	}
	x := []float64{0.3, -0.4}
	p, _ := m.PredictRows(x, 1)
	q, _ := loaded.PredictRows(x, 1)
	fmt.Println(loaded.Info().Inputs, "same prediction:", p.Values[0] == q.Values[0])
	// Output: [a b] same prediction: true
}

// Write sends the model file to any io.Writer, here a gzip stream; Read takes it back from the matching reader.
func ExampleModel_Write() {
	m, err := rff.Fit(rff.Config{Points: 64, Sigma: 1, Lambda: 1e-6, Seed: 1}, sine(200))
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := m.Write(zw); err != nil {
		panic(err)
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	zr, err := gzip.NewReader(&buf)
	if err != nil {
		panic(err)
	}
	back, err := rff.Read(zr)
	if err != nil {
		panic(err)
	}
	fmt.Println(back) // D = 64 is rounded up to whole SR rules of d + 1 = 3 points
	// Output: regression: kernel gaussian (σ = 1), sr-butterfly features (D = 66 points, 132 columns), λ = 1e-06, preprocessing [standardize]
}

// Predict matches the input columns by name: a table with its columns in another order and an extra column gives
// the predictions of the model's own order.
func ExampleModel_Predict() {
	m, err := rff.Fit(rff.Config{Points: 128, Sigma: 1, Lambda: 1e-8, Seed: 1}, sine(400)) // inputs a, b
	if err != nil {
		panic(err)
	}
	table := &dataset.Data{N: 2, D: 3, Names: []string{"id", "b", "a"}, X: []float64{
		1, 0.5, 0.2, // id 1: a = 0.2, b = 0.5
		2, -0.3, -0.6, // id 2: a = -0.6, b = -0.3
	}}
	p, err := m.Predict(table)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.2f %.2f\n", p.Values[0], p.Values[1])
	fmt.Printf("%.2f %.2f\n", math.Sin(0.6)+0.5, math.Sin(-1.8)-0.3) // sin 3a + b
	// Output:
	// 1.06 -1.27
	// 1.06 -1.27
}

// With Config.Uncertainty the model keeps the posterior of Bayesian linear regression on its features: the
// uncertainty of f(x) is small where the data are and grows away from them, and an observation adds the noise.
func ExampleModel_PredictStd() {
	m, err := rff.Fit(rff.Config{Points: 64, Sigma: 0.5, Lambda: 1e-4, Seed: 1, Uncertainty: true}, noisy(200))
	if err != nil {
		panic(err)
	}
	x := []float64{0, 3} // inside the training range [−1, 1], and far outside
	f, err := m.PredictStd(x, 2, false)
	if err != nil {
		panic(err)
	}
	y, _ := m.PredictStd(x, 2, true)
	fmt.Printf("std of f(x): %.2f inside, %.1f far away\n", f[0], f[1])
	fmt.Printf("std of the noise: %.2f (ε ~ N(0, 0.1²))\n", math.Sqrt(y[0]*y[0]-f[0]*f[0]))
	// Output:
	// std of f(x): 0.02 inside, 0.6 far away
	// std of the noise: 0.09 (ε ~ N(0, 0.1²))
}

// Sample draws joint functions from the posterior, pathwise; the same seed draws the same functions.
func ExampleModel_Sample() {
	m, err := rff.Fit(rff.Config{Points: 64, Sigma: 0.5, Lambda: 1e-4, Seed: 1, Uncertainty: true}, noisy(200))
	if err != nil {
		panic(err)
	}
	x := []float64{-0.5, 0, 0.5}
	const K = 400
	s, err := m.Sample(x, 3, K, 42) // K×3 values, sample after sample
	if err != nil {
		panic(err)
	}
	again, _ := m.Sample(x, 3, K, 42)
	p, _ := m.PredictRows(x, 3)
	std, _ := m.PredictStd(x, 3, false)
	agree := true // the samples' mean and spread at each row are the posterior's
	for i := range 3 {
		mean, sq := 0.0, 0.0
		for k := range K {
			mean += s[k*3+i] / K
		}
		for k := range K {
			sq += (s[k*3+i] - mean) * (s[k*3+i] - mean) / (K - 1)
		}
		agree = agree && math.Abs(mean-p.Values[i]) < 3*std[i]/math.Sqrt(K) && math.Abs(math.Sqrt(sq)/std[i]-1) < 0.2
	}
	fmt.Println(len(s), slices.Equal(s, again), agree)
	// Output: 1200 true true
}

// Report says how a model was fitted: here the bandwidth of the median heuristic and λ chosen by 5-fold
// cross-validation. A loaded model has none.
func ExampleModel_Report() {
	m, err := rff.Fit(rff.Config{Points: 64, CV: 5, Lambdas: []float64{1e-8, 1e-2, 1}, Seed: 1}, sine(300))
	if err != nil {
		panic(err)
	}
	r := m.Report()
	fmt.Printf("N = %d, σ = %.3g, λ = %g chosen among %v\n", r.N, r.Sigma, r.Lambda, r.CV.Lambdas)
	fmt.Printf("held-out MSE: %.2g %.2g %.2g\n", r.CV.MSE[0], r.CV.MSE[1], r.CV.MSE[2])
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		panic(err)
	}
	loaded, err := rff.Read(&buf)
	if err != nil {
		panic(err)
	}
	fmt.Println("report of a loaded model:", loaded.Report())
	// Output:
	// N = 300, σ = 1.85, λ = 1e-08 chosen among [1e-08 0.01 1]
	// held-out MSE: 1.9e-06 0.16 0.76
	// report of a loaded model: <nil>
}

// Inputs takes the model's input columns out of a table, in the model's order, by name.
func ExampleModel_Inputs() {
	m, err := rff.Fit(rff.Config{Points: 32, Sigma: 1, Lambda: 1e-6}, sine(100)) // inputs a, b
	if err != nil {
		panic(err)
	}
	table := &dataset.Data{N: 2, D: 3, Names: []string{"b", "note", "a"}, X: []float64{
		10, 0, 1,
		20, 0, 2,
	}}
	X, err := m.Inputs(table)
	if err != nil {
		panic(err)
	}
	fmt.Println(X)
	_, err = m.Inputs(&dataset.Data{N: 1, D: 1, Names: []string{"a"}, X: []float64{1}})
	fmt.Println(err)
	// Output:
	// [1 10 2 20]
	// no column "b": the model takes a, b
}

// TargetOption says how to load a CSV file for a model when the user named no target column: the model's target
// when the header has it, none when the file holds inputs only, and the last column of a headerless file with one
// column more than the inputs.
func ExampleModel_TargetOption() {
	m, err := rff.Fit(rff.Config{Points: 32, Sigma: 1, Lambda: 1e-6}, sine(100)) // inputs a, b; target y
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "rff-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	for _, f := range []struct{ name, text string }{
		{"labelled.csv", "b,a,y\n0.5,0.2,1.06\n"},
		{"inputs.csv", "a,b\n0.2,0.5\n"},
		{"headerless.csv", "0.2,0.5,1.06\n"},
	} {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, []byte(f.text), 0o644); err != nil {
			panic(err)
		}
		target, err := m.TargetOption(path, dataset.FormatAuto)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %q\n", f.name, target)
	}
	// Output:
	// labelled.csv: "y"
	// inputs.csv: "none"
	// headerless.csv: "last"
}

// A program opts in to OpenBLAS once, at the start of main. Where OpenBLAS is not installed it keeps running in pure
// Go; the error reports an invalid RFF_BLAS or RFF_THREADS, or RFF_BLAS=openblas without OpenBLAS.
func ExampleUseOpenBLAS() {
	if err := rff.UseOpenBLAS(); err != nil {
		panic(err)
	}
	m, err := rff.Fit(rff.Config{Points: 128, Sigma: 1, Lambda: 1e-8, Seed: 1}, sine(400))
	if err != nil {
		panic(err)
	}
	s, _ := m.Score(sine(50))
	fmt.Println("test RMSE below 0.01:", s.Regression.RMSE < 0.01)
	// Output: test RMSE below 0.01: true
}

// FormatBytes writes sizes in binary units, as the memory budget's errors do.
func ExampleFormatBytes() {
	fmt.Println(rff.FormatBytes(512), rff.FormatBytes(1536), rff.FormatBytes(3<<30+700<<20))
	// Output: 512 B 1.5 KiB 3.6 GiB
}

// PredictBytes says how much memory PredictRows needs besides the rows themselves, so that a caller with a memory
// budget can refuse (or split) a large batch before predicting it. It grows with the rows only by their outputs:
// the rows are preprocessed and mapped a segment of blocks at a time.
func ExampleModel_PredictBytes() {
	m, err := rff.Fit(rff.Config{Points: 64, Sigma: 1, Lambda: 1e-6, Seed: 1}, sine(200))
	if err != nil {
		panic(err)
	}
	const budget = 64 << 20
	for _, n := range []int{1000, 100_000_000} {
		need := m.PredictBytes(n)
		fmt.Printf("%d rows: at least their 8-byte predictions: %v; within 64 MiB: %v\n", n, need >= 8*int64(n), need <= budget)
	}
	// Output:
	// 1000 rows: at least their 8-byte predictions: true; within 64 MiB: true
	// 100000000 rows: at least their 8-byte predictions: true; within 64 MiB: false
}
