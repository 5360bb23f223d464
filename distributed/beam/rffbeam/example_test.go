package rffbeam_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // local paths
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"       // the in-process runner

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/distributed/beam/rffbeam"
)

// sineRows returns n rows of y = sin(3·x1) + x2, with x1 = sin(7i) and x2 = cos(5i).
func sineRows(n int) *dataset.Data {
	d := &dataset.Data{N: n, D: 2, Names: []string{"x1", "x2"}, TargetName: "y"}
	for i := range n {
		a, b := math.Sin(float64(7*i)), math.Cos(float64(5*i))
		d.X = append(d.X, a, b)
		d.Y = append(d.Y, math.Sin(3*a)+b)
	}
	return d
}

// writeShards writes the rows of data to len(names) CSV files in dir, contiguous blocks of rows in the order of
// names, each file with the header x1,x2,y.
func writeShards(dir string, data *dataset.Data, names ...string) error {
	k := len(names)
	for s, name := range names {
		var b strings.Builder
		b.WriteString("x1,x2,y\n")
		for i := s * data.N / k; i < (s+1)*data.N/k; i++ {
			fmt.Fprintf(&b, "%s,%s,%s\n", num(data.X[2*i]), num(data.X[2*i+1]), num(data.Y[i]))
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// num formats v with the shortest digits that read back to v.
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Fit on three CSV shards with the in-process prism runner: the model is the one rff.Fit fits on the rows
// concatenated (in the lexicographic order of the files), up to the order of floating-point sums.
func ExampleFit() {
	// A program calls beam.Init once, after parsing its flags, before building or running a pipeline.
	if !beam.Initialized() {
		beam.Init()
	}
	dir, err := os.MkdirTemp("", "rffbeam-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	data := sineRows(90)
	if err := writeShards(dir, data, "part-0.csv", "part-1.csv", "part-2.csv"); err != nil {
		log.Fatal(err)
	}

	cfg := rff.Config{Points: 64, Lambda: 1e-4, Seed: 1} // σ: the median heuristic, measured by a Beam pass
	res, err := rffbeam.Fit(context.Background(), rffbeam.Options{
		Config: cfg,
		Input:  filepath.Join(dir, "part-*.csv"),
		Runner: "prism", // the default
	})
	if err != nil {
		log.Fatal(err)
	}
	info := res.Model.Info()
	fmt.Println("files:", len(res.Files), "rows:", res.Rows, "skipped:", res.Skipped)
	fmt.Println("inputs:", info.Inputs, "targets:", info.Targets)

	// The same fit in memory.
	ref, err := rff.Fit(cfg, data)
	if err != nil {
		log.Fatal(err)
	}
	test := sineRows(20)
	p, err := res.Model.Predict(test)
	if err != nil {
		log.Fatal(err)
	}
	q, err := ref.Predict(test)
	if err != nil {
		log.Fatal(err)
	}
	diff := 0.0
	for i := range p.Values {
		diff = math.Max(diff, math.Abs(p.Values[i]-q.Values[i]))
	}
	fmt.Println("σ of rff.Fit:", math.Abs(info.Sigma-ref.Info().Sigma) <= 1e-12*info.Sigma)
	fmt.Println("predictions of rff.Fit within 1e-8:", diff <= 1e-8)
	// Output:
	// files: 3 rows: 90 skipped: 0
	// inputs: [x1 x2] targets: [y]
	// σ of rff.Fit: true
	// predictions of rff.Fit within 1e-8: true
}

// ListFiles expands a glob and returns the matching files in lexicographic order; a glob that matches nothing is
// an error.
func ExampleListFiles() {
	dir, err := os.MkdirTemp("", "rffbeam-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, name := range []string{"part-10.csv", "part-2.csv.gz", "part-1.csv", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	ctx := context.Background()
	files, err := rffbeam.ListFiles(ctx, filepath.Join(dir, "part-*"))
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		fmt.Println(filepath.Base(f))
	}
	_, err = rffbeam.ListFiles(ctx, filepath.Join(dir, "*.parquet"))
	fmt.Println(strings.ReplaceAll(err.Error(), dir, "DIR"))
	// Output:
	// part-1.csv
	// part-10.csv
	// part-2.csv.gz
	// no files match DIR/*.parquet
}

// DetectLayout reads the delimiter, the header and the target column from the first file that is not empty; every
// file is then read with that layout.
func ExampleDetectLayout() {
	dir, err := os.MkdirTemp("", "rffbeam-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	contents := map[string]string{
		"a.csv": "",
		"b.csv": "load;temperature;pressure\n12.5;21.3;1013\n13.1;19.8;1009\n",
	}
	for name, text := range contents {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	files, err := rffbeam.ListFiles(context.Background(), filepath.Join(dir, "*.csv"))
	if err != nil {
		log.Fatal(err)
	}
	layout, first, err := rffbeam.DetectLayout(context.Background(), files, "first")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("read from:", filepath.Base(first))
	fmt.Printf("delimiter %q, %d columns, inputs %v, target %q\n", layout.Delim, layout.Cols, layout.Names(), layout.TargetName())
	// Output:
	// read from: b.csv
	// delimiter ';', 3 columns, inputs [temperature pressure], target "load"
}

// ChunkRows is 16 MiB of features per chunk, rounded down to a multiple of 256 rows and kept between 256 and 2048.
func ExampleChunkRows() {
	for _, F := range []int{128, 2048, 4096, 8192, 1 << 16} {
		fmt.Println(F, rffbeam.ChunkRows(F))
	}
	// Output:
	// 128 2048
	// 2048 1024
	// 4096 512
	// 8192 256
	// 65536 256
}

// DefaultBatchRows shares 8 chunks among the bundles a worker runs at once below F = 1024 features (one partial
// ZᵀZ each), and is one chunk from F = 1024 on (mapped on all cores into one ZᵀZ) — whatever the machine's cores.
func ExampleDefaultBatchRows() {
	for _, F := range []int{64, 1000, 1024, 8192} {
		fmt.Print(F, ":")
		for _, bundles := range []int{1, 2, 3, 4, 5, 8, 16} {
			fmt.Print(" ", rffbeam.DefaultBatchRows(F, bundles)/rffbeam.ChunkRows(F))
		}
		fmt.Println(" chunks of", rffbeam.ChunkRows(F), "rows")
	}
	// Output:
	// 64: 8 4 2 2 1 1 1 chunks of 2048 rows
	// 1000: 8 4 2 2 1 1 1 chunks of 2048 rows
	// 1024: 1 1 1 1 1 1 1 chunks of 2048 rows
	// 8192: 1 1 1 1 1 1 1 chunks of 256 rows
}

// EstimateMemory says what the second pass holds for a map of 4096 points (F = 8192 features), and Need what the
// estimate per worker comes from: four bundles at once, or with one bundle the final merge of two statistics.
func ExampleEstimateMemory() {
	const F, P, d, points = 8192, 1, 10, 4096
	batch := rffbeam.ChunkRows(F) // one chunk per batch: one partial ZᵀZ per bundle
	for _, bundles := range []int{4, 1} {
		m := rffbeam.EstimateMemory(F, P, d, points, batch, bundles)
		fmt.Println(m.Need())
		fmt.Println("worker:", rff.FormatBytes(m.Worker), "driver:", rff.FormatBytes(m.Driver))
	}
	// Output:
	// 4 bundles × 792.6 MiB: 1 partial ZᵀZ of F = 8192 features, 512 MiB each, plus 20% for the garbage collector
	// worker: 3.7 GiB driver: 922 MiB
	// the final merge: two ZᵀZ of F = 8192 features, 512 MiB each, and one packed, plus 20% for the garbage collector
	// worker: 1.5 GiB driver: 922 MiB
}

// Fit refuses a run whose second pass would need more memory per worker than Options.WorkerMemory, before any
// pipeline starts.
func ExampleMemoryError() {
	dir, err := os.MkdirTemp("", "rffbeam-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := writeShards(dir, sineRows(20), "part-0.csv", "part-1.csv"); err != nil {
		log.Fatal(err)
	}
	_, err = rffbeam.Fit(context.Background(), rffbeam.Options{
		Config:       rff.Config{Points: 4096, Lambda: 1e-4, Seed: 1},
		Input:        filepath.Join(dir, "part-*.csv"),
		WorkerMemory: 256 << 20,
		Bundles:      4,   // given, with BatchRows, so that the estimate
		BatchRows:    256, // does not depend on this machine's cores
	})
	var me *rffbeam.MemoryError
	if errors.As(err, &me) {
		fmt.Println(me.Who, me.Memory.F, me.Need > me.Budget)
		fmt.Println(err)
	}
	// Output:
	// worker 8196 true
	// each worker needs about 3.7 GiB (4 bundles × 793.2 MiB: 1 partial ZᵀZ of F = 8196 features, 512.5 MiB each, plus 20% for the garbage collector), over the worker memory budget of 256 MiB; lower D or the bundles per worker, or raise the budget
}

// The pieces of Fit compose into a pipeline: ReadRows reads the shards with the layout of the first, ScanFn
// combines the rows into the statistics of the first pass, and WriteResult leaves them in a file the driver reads
// and decodes (DecodeScan).
func ExampleWriteResult() {
	if !beam.Initialized() {
		beam.Init()
	}
	dir, err := os.MkdirTemp("", "rffbeam-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := writeShards(dir, sineRows(30), "part-0.csv", "part-1.csv"); err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	files, err := rffbeam.ListFiles(ctx, filepath.Join(dir, "part-*.csv"))
	if err != nil {
		log.Fatal(err)
	}
	layout, first, err := rffbeam.DetectLayout(ctx, files, "last")
	if err != nil {
		log.Fatal(err)
	}

	p, s := beam.NewPipelineWithRoot()
	rows := rffbeam.ReadRows(s, beam.CreateList(s, files), rffbeam.ReadSpec{Layout: *layout, FirstFile: first})
	out := filepath.Join(dir, "scan")
	rffbeam.WriteResult(s, out, beam.Combine(s, &rffbeam.ScanFn{D: layout.D()}, rows))
	if _, err := beam.Run(ctx, "prism", p); err != nil {
		log.Fatal(err)
	}

	b, err := os.ReadFile(out)
	if err != nil {
		log.Fatal(err)
	}
	scan, err := rffbeam.DecodeScan(b)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("inputs:", layout.Names(), "rows:", scan.Rows)
	for _, f := range files {
		fmt.Println(filepath.Base(f), scan.FileRows[f])
	}
	// Output:
	// inputs: [x1 x2] rows: 30
	// part-0.csv 15
	// part-1.csv 15
}

// FailureMessage finds the one line of a worker's data error in the error a runner returns for the failed
// pipeline; an error of another kind carries none.
func ExampleFailureMessage() {
	if !beam.Initialized() {
		beam.Init()
	}
	dir, err := os.MkdirTemp("", "rffbeam-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("x1,x2,y\n1,2,3\n4,five,6\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	files := []string{bad}
	layout, first, err := rffbeam.DetectLayout(ctx, files, "last")
	if err != nil {
		log.Fatal(err)
	}
	p, s := beam.NewPipelineWithRoot()
	rows := rffbeam.ReadRows(s, beam.CreateList(s, files), rffbeam.ReadSpec{Layout: *layout, FirstFile: first})
	rffbeam.WriteResult(s, filepath.Join(dir, "scan"), beam.Combine(s, &rffbeam.ScanFn{D: layout.D()}, rows))
	logger := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil))) // prism reports the failed bundle at length
	_, err = beam.Run(ctx, "prism", p)
	slog.SetDefault(logger)
	if msg, ok := rffbeam.FailureMessage(err); ok {
		fmt.Println(strings.ReplaceAll(msg, dir, "DIR"))
	}
	// A pipeline that fails for another reason:
	_, ok := rffbeam.FailureMessage(errors.New("connection refused"))
	fmt.Println(ok)
	// Output:
	// DIR/bad.csv:3: column 2: "five" is not a number
	// false
}

// ScanFn is a Beam CombineFn; here its methods run by hand on two blocks of rows, as two workers would, and the
// output decodes to the Scan the first pass of Fit reads.
func ExampleScanFn() {
	f := &rffbeam.ScanFn{D: 2, Classify: true}
	a, err := f.CreateAccumulator()
	if err != nil {
		log.Fatal(err)
	}
	a, err = f.AddInput(a, rffbeam.Rows{File: "a.csv", N: 2, X: []float64{1, 10, 3, 30}, T: []string{"dog", "cat"}})
	if err != nil {
		log.Fatal(err)
	}
	b, err := f.CreateAccumulator()
	if err != nil {
		log.Fatal(err)
	}
	b, err = f.AddInput(b, rffbeam.Rows{File: "b.csv", N: 2, X: []float64{5, 50, 7, 70}, T: []string{"emu", "cat"}})
	if err != nil {
		log.Fatal(err)
	}
	if a, err = f.MergeAccumulators(a, b); err != nil {
		log.Fatal(err)
	}
	out, err := f.ExtractOutput(a)
	if err != nil {
		log.Fatal(err)
	}
	scan, err := rffbeam.DecodeScan(out)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("rows:", scan.Rows, "per file:", scan.FileRows)
	fmt.Println("mean:", scan.Moments.Mean, "min:", scan.Moments.Min, "max:", scan.Moments.Max)
	fmt.Println("labels:", scan.Labels, "numeric:", scan.Numeric)
	// Output:
	// rows: 4 per file: map[a.csv:2 b.csv:2]
	// mean: [4 40] min: [1 10] max: [7 70]
	// labels: [cat dog emu] numeric: false
}

// EncodeScan and DecodeScan carry the result of the first pass from the pipeline to the driver.
func ExampleDecodeScan() {
	s := &rffbeam.Scan{D: 1, Rows: 3, Labels: []string{"no", "yes"}, Skipped: 1,
		First:    rffbeam.RowError{File: "a.csv", Line: 7, Msg: `column 1: "?" is not a number`},
		FileRows: map[string]int{"a.csv": 3}}
	back, err := rffbeam.DecodeScan(rffbeam.EncodeScan(s))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(back.Rows, back.Labels, back.Skipped, back.FileRows)
	fmt.Println(back.First)
	_, err = rffbeam.DecodeScan([]byte{1})
	fmt.Println(err != nil)
	// Output:
	// 3 [no yes] 1 map[a.csv:3]
	// a.csv:7: column 1: "?" is not a number
	// true
}

// StatsFn accumulates the ridge statistics of the second pass; here its methods run by hand on two shards of rows
// and DecodeStats reads the merged output, the statistics rff.FitFromStats solves.
func ExampleDecodeStats() {
	data := sineRows(60)
	cfg := rff.Config{Sigma: 1, Points: 32, Lambda: 1e-4, Seed: 1}
	// The preprocessing, as the first pass fits it.
	steps, err := rff.PreprocessSteps(cfg)
	if err != nil {
		log.Fatal(err)
	}
	acc := dataset.NewScalerAccumulator(data.D)
	if err := acc.Add(data.X, data.N); err != nil {
		log.Fatal(err)
	}
	sc, err := acc.Scaler(steps)
	if err != nil {
		log.Fatal(err)
	}

	f, err := rffbeam.NewStatsFn(cfg, data.D, sc, nil, false)
	if err != nil {
		log.Fatal(err)
	}
	shard := func(lo, hi int) rffbeam.Rows {
		return rffbeam.Rows{File: "data.csv", Start: lo, N: hi - lo, X: data.X[2*lo : 2*hi], Y: data.Y[lo:hi]}
	}
	a, err := f.CreateAccumulator()
	if err != nil {
		log.Fatal(err)
	}
	if a, err = f.AddInput(a, shard(0, 25)); err != nil {
		log.Fatal(err)
	}
	b, err := f.CreateAccumulator()
	if err != nil {
		log.Fatal(err)
	}
	if b, err = f.AddInput(b, shard(25, 60)); err != nil {
		log.Fatal(err)
	}
	if a, err = f.MergeAccumulators(a, b); err != nil {
		log.Fatal(err)
	}
	out, err := f.ExtractOutput(a)
	if err != nil {
		log.Fatal(err)
	}
	st, err := rffbeam.DecodeStats(out)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("N:", st.N, "F:", st.F, "P:", st.P)

	m, err := rff.FitFromStats(cfg, rff.DistributedStats{Scaler: sc, Names: data.Names, Target: data.TargetName, Stats: st})
	if err != nil {
		log.Fatal(err)
	}
	ref, err := rff.Fit(cfg, data)
	if err != nil {
		log.Fatal(err)
	}
	p, _ := m.Predict(data)
	q, _ := ref.Predict(data)
	diff := 0.0
	for i := range p.Values {
		diff = math.Max(diff, math.Abs(p.Values[i]-q.Values[i]))
	}
	fmt.Println("predictions of rff.Fit within 1e-8:", diff <= 1e-8)
	// Output:
	// N: 60 F: 66 P: 1
	// predictions of rff.Fit within 1e-8: true
}
