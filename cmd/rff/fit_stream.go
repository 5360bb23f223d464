package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/progress"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/model"
	"github.com/rffkit/rff/rule"
)

// streamFit is what runFit hands to fitStream: the parsed flags of a --stream fit.
type streamFit struct {
	df         *dataFlags
	kf         *kernelFlags
	task       string // regression or classification
	rule       rule.Rule
	points     int
	lambda     float64
	seed       uint64
	out        string
	asJSON     bool
	form       string // cossin or cosphase
	fmForm     feature.Form
	encoding   string // onehot or simplex
	solver     learn.Solver
	testData   string
	testLabels string
}

// streamChunkRows is the number of CSV rows a --stream fit holds at a time (two or three chunks are in memory: one
// being mapped, the next ones being read).
var streamChunkRows = 1 << 15

// checkStream rejects the flags a --stream fit does not support.
func checkStream(task string, exact bool, cv int, ovkKind string, loss learn.Loss, df *dataFlags) error {
	switch {
	case task != "regression" && task != "classification":
		return usagef("--stream fits --task regression or classification, not %s", task)
	case exact:
		return usagef("--stream fits random features, not --exact")
	case cv != 0:
		return usagef("--stream fits a fixed --lambda, not --cv")
	case ovkKind != "":
		return usagef("--stream does not fit --ovk models")
	case loss != learn.Squared:
		return usagef("--stream fits the squared loss, not --loss %s", loss)
	case df.labels != "":
		return usagef("--stream reads CSV files (no --labels)")
	}
	format, err := dataset.ParseFormat(df.format)
	if err != nil {
		return usageError{err.Error()}
	}
	if format == dataset.FormatAuto && df.path != "" {
		format = dataset.GuessFormat(df.path)
	}
	if format != dataset.FormatAuto && format != dataset.FormatCSV {
		return usagef("--stream reads CSV files; %s is %v", df.path, format)
	}
	return nil
}

// streamReader opens the training file and reads it in chunks, stopping after --train rows when that is set.
type streamReader struct {
	s     *dataset.CSVStream
	limit int // 0 = all rows
}

func (f *dataFlags) openStream() (*streamReader, error) {
	if f.path == "" {
		return nil, usagef("--data is required")
	}
	if f.train < 0 {
		return nil, usagef("--train must be ≥ 0, got %d", f.train)
	}
	s, err := dataset.OpenCSVStream(f.path, f.target)
	if err != nil {
		return nil, err
	}
	return &streamReader{s: s, limit: f.train}, nil
}

// next returns the next chunk, or io.EOF.
func (r *streamReader) next() (*dataset.Data, error) {
	rows := streamChunkRows
	if r.limit > 0 {
		if rows = min(rows, r.limit-r.s.Rows()); rows <= 0 {
			return nil, io.EOF
		}
	}
	return r.s.Next(rows)
}

// classCoder maps the raw target strings of a CSV file to class indices the way the in-memory fit does (labelsOf and
// classIndex): numeric targets are classes named by their shortest 'g' form and sorted numerically, other targets
// are sorted as strings.
type classCoder struct {
	labels []string
	index  map[string]int // raw target string → class
}

func newClassCoder(raw map[string]bool, numeric bool) *classCoder {
	c := &classCoder{index: map[string]int{}}
	if !numeric {
		for s := range raw {
			c.labels = append(c.labels, s)
		}
		slices.Sort(c.labels)
		for k, s := range c.labels {
			c.index[s] = k
		}
		return c
	}
	var vals []float64
	for s := range raw {
		vals = append(vals, parseTarget(s))
	}
	slices.Sort(vals)
	vals = slices.Compact(vals)
	named := map[string]int{}
	for k, v := range vals {
		name := strconv.FormatFloat(v, 'g', -1, 64)
		c.labels = append(c.labels, name)
		named[name] = k
	}
	for s := range raw {
		c.index[s] = named[strconv.FormatFloat(parseTarget(s), 'g', -1, 64)]
	}
	return c
}

// parseTarget parses a numeric target as the CSV reader does (out-of-range values saturate).
func parseTarget(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// fitStream fits ridge regression on random features of a CSV file read twice in chunks: pass 1 fits the
// preprocessing (and collects the class labels), pass 2 maps every chunk and accumulates the ridge statistics, so
// memory does not grow with the number of rows. The model equals the in-memory fit's up to the order of
// floating-point sums.
func fitStream(a streamFit, stdout, stderr io.Writer) error {
	df := a.df
	steps, err := dataset.ParseSteps(strings.ReplaceAll(df.preprocess, "paper", string(dataset.StepMaxScale)))
	if err != nil {
		return usageError{err.Error()}
	}
	rep := fitReport{Task: a.task, Model: a.out, Seconds: map[string]float64{}, FitPhases: map[string]float64{}}
	// The live heap is dominated by the shards' ZᵀZ matrices, which never become garbage; the chunks are the only
	// garbage. The default GOGC of 100 would let the heap grow to twice the live size before collecting.
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	classify := a.task == "classification"

	// Pass 1: the scaler and the labels. A regression without preprocessing needs no first pass.
	t0 := time.Now()
	r, err := df.openStream()
	if err != nil {
		return err
	}
	defer func() { r.s.Close() }()
	if !r.s.HasTarget() {
		return usagef("%s has no target column (use --target)", df.path)
	}
	d := r.s.D()
	needScan := classify
	for _, st := range steps {
		needScan = needScan || st != dataset.StepNone
	}
	var sc *dataset.Scaler
	var coder *classCoder
	n := 0
	if needScan {
		acc := dataset.NewScalerAccumulator(d)
		raw := map[string]bool{}
		for {
			b, err := r.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			if err := acc.Add(b.X, b.N); err != nil {
				return err
			}
			if classify {
				for i := range b.N {
					if t := r.s.Target(i); !raw[t] {
						raw[t] = true
					}
				}
			}
		}
		if !classify && !r.s.Numeric() {
			return fmt.Errorf("%s: --stream regression needs a numeric target column", df.path)
		}
		if sc, err = acc.Scaler(steps); err != nil {
			return err
		}
		n = acc.Rows()
		if classify {
			coder = newClassCoder(raw, r.s.Numeric())
			if len(coder.labels) < 2 {
				return fmt.Errorf("%s: classification needs at least 2 classes, found %d", df.path, len(coder.labels))
			}
		}
		r.s.Close()
		if r, err = df.openStream(); err != nil {
			return err
		}
	} else { // what FitScaler returns for steps that are all none
		sc = &dataset.Scaler{Steps: append([]dataset.Step(nil), steps...), D: d, Params: make([]dataset.StepParams, len(steps))}
		for k, st := range steps {
			sc.Params[k].Step = st
		}
	}
	rep.Seconds["load"] = time.Since(t0).Seconds()

	k, sigma, err := a.kf.build(d)
	if err != nil {
		return err
	}
	fmap, err := feature.New(k, a.rule, d, a.points, a.seed, feature.WithForm(a.fmForm))
	if err != nil {
		return err
	}
	hdr := model.Header{Task: a.task, Kernel: k.Name(), Seed: a.seed, Dim: d, Intercept: true,
		Preprocess: sc, Extra: map[string]any{"data": filepath.Base(df.path)}}
	if !math.IsNaN(sigma) {
		hdr.Sigma, rep.Sigma = sigma, sigma
	}
	P := 1
	if classify {
		K := len(coder.labels)
		hdr.Labels, hdr.Loss = coder.labels, learn.Squared.String()
		if a.encoding == "simplex" {
			P, hdr.Encoding = K-1, "simplex"
		} else {
			P, hdr.Encoding = K, "onehot"
		}
	}
	hdr.Outputs = P
	hdr.Rule, hdr.Points, hdr.Features, hdr.Form = a.rule.Name(), fmap.Points(), fmap.Features(), a.form
	rep.Rule, rep.Points, rep.Features = a.rule.Name(), fmap.Points(), fmap.Features()
	hdr.Lambda, rep.Lambda = a.lambda, a.lambda
	rep.Dim, rep.Kernel = d, k.Name()

	// Pass 2: map the chunks and accumulate the statistics. A goroutine reads ahead one chunk.
	t1 := time.Now()
	type chunk struct {
		data *dataset.Data
		y    []float64
		err  error
	}
	chunks := make(chan chunk, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(chunks)
		for {
			b, err := r.next()
			c := chunk{data: b, err: err}
			if err == nil {
				c.y, c.err = streamTargets(r.s, b, coder, a.encoding, df.path)
				if c.err == nil {
					sc.Apply(b.X, b.N, b.D)
				}
			}
			select {
			case chunks <- c:
			case <-stop:
				return
			}
			if c.err != nil {
				return
			}
		}
	}()
	acc, err := learn.NewAccumulator(fmap, P)
	if err != nil {
		return err
	}
	bar := progress.New(stderr, "features+gram", n)
	var first *dataset.Data
	for c := range chunks {
		if c.err == io.EOF {
			break
		}
		if c.err != nil {
			bar.Done()
			return c.err
		}
		if first == nil {
			first = c.data
		}
		if err := acc.Add(c.data.X, c.data.N, c.y); err != nil {
			bar.Done()
			return err
		}
		bar.Add(c.data.N)
	}
	bar.Done()
	st, err := acc.Stats()
	if err != nil {
		return err
	}
	if st.N == 0 {
		return fmt.Errorf("no data rows")
	}
	rep.FitPhases["features+gram"] = time.Since(t1).Seconds()
	rep.N = st.N
	hdr.Names = first.Names
	if !classify {
		hdr.Targets = []string{first.TargetName}
	}
	ts := time.Now()
	fit, err := learn.Ridge{Lambda: a.lambda, Intercept: true, Solver: a.solver}.SolveInPlace(st)
	if err != nil {
		return err
	}
	rep.FitPhases["solve"] = time.Since(ts).Seconds()
	m := &model.Model{Header: hdr, Theta: fit.Theta, Bias: fit.Bias}
	m.Probe = make([]float64, fmap.Features())
	fmap.TransformBlock(m.Probe, model.ProbeInput(d), 1, nil)
	rep.Seconds["fit"] = time.Since(t1).Seconds()
	if err := model.Save(a.out, m); err != nil {
		return err
	}
	if a.testData != "" {
		t2 := time.Now()
		tf := *df
		tf.path, tf.labels, tf.train = a.testData, a.testLabels, 0
		met, err := evaluate(m, &tf)
		if err != nil {
			return err
		}
		rep.Test = met
		rep.Seconds["test"] = time.Since(t2).Seconds()
	}
	if a.asJSON {
		return json.NewEncoder(stdout).Encode(rep)
	}
	fmt.Fprintf(stdout, "fitted %s on %d rows × %d columns (streamed): kernel %s, %s features (%d points, %d columns), λ = %.3g, in %.2fs\n",
		a.task, rep.N, d, k.Name(), rep.Rule, rep.Points, rep.Features, a.lambda, rep.Seconds["load"]+rep.Seconds["fit"])
	fmt.Fprintf(stdout, "model written to %s\n", a.out)
	if rep.Test != nil {
		printMetrics(stdout, "test", rep.Test)
	}
	return nil
}

// streamTargets returns the chunk's coded targets: Y for regression, the one-hot or simplex codes of the classes
// for classification.
func streamTargets(s *dataset.CSVStream, b *dataset.Data, coder *classCoder, encoding, path string) ([]float64, error) {
	if coder == nil {
		if b.Labels != nil {
			return nil, fmt.Errorf("%s: --stream regression needs a numeric target column", path)
		}
		return b.Y, nil
	}
	cls := make([]int, b.N)
	for i := range cls {
		c, ok := coder.index[s.Target(i)]
		if !ok { // the file changed between the passes
			return nil, fmt.Errorf("%s: label %q was not seen in the first pass", path, s.Target(i))
		}
		cls[i] = c
	}
	K := len(coder.labels)
	if encoding == "simplex" {
		return learn.SimplexEncode(cls, K), nil
	}
	return learn.OneHot(cls, K, false), nil
}
