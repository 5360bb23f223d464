package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/atomicfile"
	"github.com/rffkit/rff/internal/numparse"
)

var osStat = os.Stat

// modelFlags are the flags of the commands that apply a saved model to a dataset (predict, eval).
type modelFlags struct {
	data dataFlags
	path string
}

func (f *modelFlags) register(fs *cmdFlags) {
	f.data.register(fs.FlagSet, "")
	fs.Lookup("target").Usage = "CSV target column: first|last|none|NAME|INDEX (default: the model's target column when the header has it; for a file without a header with one more column than the model's inputs, the column the target had in a training file without a header, else the last)"
	fs.StringVar(&f.path, "model", "", "model file written by rff fit")
}

// parse parses the flags and loads the model.
func (f *modelFlags) parse(fs *cmdFlags, args []string) (*rff.Model, error) {
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if f.path == "" {
		return nil, usagef("--model is required")
	}
	if err := f.data.keepInputs(f.data.path, f.data.labels); err != nil {
		return nil, err
	}
	return f.load()
}

// load reads the model file at f.path within the memory budget of --max-memory.
func (f *modelFlags) load() (*rff.Model, error) {
	// A model is read whole: a file larger than the budget (a wrong file, or a corrupt one) is refused unread, a
	// device or a pipe once it has given more, and anything that is not a model file after its first 16 bytes.
	fh, err := os.Open(f.path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b := budgetOf(*f.data.mem)
	cr := &countingReader{File: fh}
	held := heapLive()
	m, err := rff.ReadAtMost(cr, b)
	// What the model holds in memory: its arrays, and the maps built from them (a Nyström map can double them).
	f.data.held = max(cr.n, heapLive()-held)
	if err == nil && f.data.held >= b {
		return nil, usagef("--model %s takes %s in memory, over the memory budget of %s; %s",
			f.path, rff.FormatBytes(f.data.held), rff.FormatBytes(b), advice(b))
	}
	// A version-1 file stores the seed of its map: redrawing it is counted against the budget before anything is
	// drawn.
	if re := (*rff.RedrawError)(nil); errors.As(err, &re) && re.Budget > 0 {
		return nil, usagef("--model %s: redrawing its %s map (d = %d, D = %d; a version-1 file stores only the seed) needs about %s, over the memory budget of %s; %s",
			f.path, re.Rule, re.Dim, re.Points, rff.FormatBytes(re.Held+re.Scratch), rff.FormatBytes(re.Budget), advice(re.Budget))
	}
	if errors.Is(err, rff.ErrTooLong) {
		size, budget := "over", rff.FormatBytes(b)
		if fi, err := fh.Stat(); err == nil && fi.Mode().IsRegular() {
			size = rff.FormatBytes(fi.Size()) + ", over"
			if rff.FormatBytes(fi.Size()) == budget { // rounded alike: say the bytes
				size, budget = fmt.Sprintf("%d bytes, over", fi.Size()), fmt.Sprintf("%d bytes", b)
			}
		}
		return nil, usagef("--model %s is %s the memory budget of %s (a model is read whole): is it a model file? If so, %s",
			f.path, size, budget, advice(b))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.path, err)
	}
	return m, nil
}

// heapLive returns the live heap after a garbage collection.
func heapLive() int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// countingReader counts the bytes read from its file; the file's Stat and Seek show through, so that a reader
// learns the length of a regular file (and refuses one over the budget unread).
type countingReader struct {
	*os.File
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.File.Read(p)
	c.n += int64(n)
	return n, err
}

// checkPredict refuses to predict the rows of data with m when the model, the rows, what the prediction allocates
// and extra bytes (outputs asked for besides the predictions) would exceed the memory budget.
func checkPredict(m *rff.Model, df *dataFlags, data *dataset.Data, extra float64, what string, lower []string) error {
	need := float64(df.held) + 8*float64(data.N)*float64(data.D+1) + float64(m.PredictBytes(data.N)) + extra
	for _, l := range data.Labels {
		need += float64(16 + len(l))
	}
	if data.Names != nil && !slices.Equal(data.Names, m.Info().Inputs) { // the columns are copied in the model's order
		need += 8 * float64(data.N) * float64(len(m.Info().Inputs))
	}
	if b := budgetOf(*df.mem); need > float64(b) {
		return usagef("%s %d rows needs about %s (the model, the rows and the outputs), over the memory budget of %s; %s",
			what, data.N, rff.FormatBytes(int64(min(need, math.MaxInt64/2))), rff.FormatBytes(b), advice(b, append(lower, "split the file")...))
	}
	return nil
}

// loadFor loads a data file for model m: the target column is the model's own unless --target names one, and of
// a CSV file with a header only the model's input columns are read (others may hold text: an identifier, a date).
func loadFor(m *rff.Model, df *dataFlags) (*dataset.Data, error) {
	info := m.Info()
	df.columns = append(info.Inputs, info.Targets...) // a vector-valued model's targets are columns of the data
	df.width = len(info.Inputs)                       // a sparse file need not hold the last features' indices
	if df.target == "" && df.path != "" {
		format, err := dataset.ParseFormat(df.format)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		if df.target, err = m.TargetOption(df.path, format); err != nil {
			return nil, err
		}
	}
	return df.loadRaw()
}

// scoreFile loads a labelled file for m and scores m on it.
func scoreFile(m *rff.Model, df *dataFlags) (*rff.Score, error) {
	data, err := loadFor(m, df)
	if err != nil {
		return nil, err
	}
	if err := checkPredict(m, df, data, 0, "scoring", nil); err != nil {
		return nil, err
	}
	s, err := m.Score(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", df.path, err)
	}
	return s, nil
}

func fmtNum(v float64, format string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return fmt.Sprintf(format, v)
}

func printScore(w io.Writer, what string, s *rff.Score) {
	if c := s.Classification; c != nil {
		logLoss := ""
		if c.LogLoss != nil {
			logLoss = ", log loss " + fmtNum(*c.LogLoss, "%.4g")
		}
		if c.CalibrationError != nil {
			logLoss += ", calibration error " + fmtNum(*c.CalibrationError, "%.3g")
		}
		fmt.Fprintf(w, "%s: %d rows, accuracy %s%s\n", what, s.N, fmtNum(c.Accuracy, "%.4f"), logLoss)
		for _, k := range c.PerClass {
			fmt.Fprintf(w, "  %-10s %5d / %-5d correct\n", k.Label, k.Correct, k.Total)
		}
		return
	}
	r := s.Regression
	fmt.Fprintf(w, "%s: %d rows, RMSE %s, MAE %s, R² %s\n", what, s.N, fmtNum(r.RMSE, "%.4g"), fmtNum(r.MAE, "%.4g"), fmtNum(r.R2, "%.4f"))
	for _, o := range r.PerOutput {
		fmt.Fprintf(w, "  %-10s RMSE %s, MAE %s, R² %s\n", o.Name, fmtNum(o.RMSE, "%.4g"), fmtNum(o.MAE, "%.4g"), fmtNum(o.R2, "%.4f"))
	}
}

func runPredict(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("predict", stdout, "--model MODEL --data FILE [--out FILE]")
	var mf modelFlags
	mf.register(fs)
	out := fs.String("out", "", "write predictions to this CSV file, atomically (default stdout)")
	withStd := fs.Bool("std", false, "also write the predictive standard deviation of each output, noise included (models fitted with --uncertainty)")
	samples := fs.Int("samples", 0, "also write K joint posterior samples of the function at the rows (models fitted with --uncertainty)")
	seed := fs.Uint64("seed", 1, "seed of --samples")
	withScores := fs.Bool("scores", false, "classifiers: also write the class scores, one column per class (score_LABEL; a simplex-coded model's k−1 coordinates, simplex1…)")
	withProbs := fs.Bool("probabilities", false, "classifiers fitted with --loss logistic: also write the class probabilities, one column per class (p_LABEL: the softmax of the scores)")
	withGrads := fs.Bool("gradients", false, "also write the model's gradient ∂f/∂x_j at every row (single-output regression and hermite models on random features of a shift-invariant kernel, and regression models on Nyström features of a differentiable kernel)")
	m, err := mf.parse(fs, args)
	if err != nil {
		return err
	}
	if *samples < 0 {
		return usagef("--samples must be ≥ 0, got %d", *samples)
	}
	if flagSet(fs, "seed") && *samples == 0 {
		return usagef("--seed seeds the posterior samples of --samples K; without them it would be ignored, so leave it out")
	}
	if *out != "" {
		if err := checkOutput(*out, mf.data.path, mf.path, mf.data.labels); err != nil {
			return err
		}
	}
	info := m.Info()
	switch {
	case (*withScores || *withProbs) && info.Labels == nil:
		return usagef("--scores and --probabilities are for classifiers; %s is a %s model, whose predictions are its outputs", mf.path, info.Task)
	case *withProbs && info.Loss != "logistic":
		loss := info.Loss
		if loss == "" {
			loss = "squared"
		}
		return usagef("--probabilities needs a classifier fitted with --loss logistic; %s has the %s loss, whose class scores are not probabilities (--scores writes them)", mf.path, loss)
	}
	df := &mf.data
	data, err := loadFor(m, df)
	if err != nil {
		return err
	}
	// The outputs asked for besides the predictions: a standard deviation and K samples per output, a gradient per
	// input (each with a preprocessed copy of the rows).
	P, d := float64(info.Outputs), float64(len(info.Inputs))
	extra := 8 * float64(data.N) * P * float64(*samples)
	if *withStd {
		extra += 8 * float64(data.N) * (P + d)
	}
	if *withGrads {
		extra += 8 * float64(data.N) * (P*d + d)
	}
	if *withProbs {
		extra += 8 * float64(data.N) * P
	}
	var lower []string
	if *samples > 0 {
		lower = []string{"lower --samples"}
	}
	if err := checkPredict(m, df, data, extra, "predicting", lower); err != nil {
		return err
	}
	X, err := m.Inputs(data)
	if err != nil {
		return fmt.Errorf("%s: %w", df.path, err)
	}
	p, err := m.PredictRows(X, data.N)
	if err != nil {
		return fmt.Errorf("%s: %w", df.path, err)
	}
	var std, smp []float64
	if *withStd {
		if std, err = m.PredictStd(X, data.N, true); err != nil {
			return posteriorError("--std", err, info)
		}
	}
	if *samples > 0 {
		if smp, err = m.Sample(X, data.N, *samples, *seed); err != nil {
			return posteriorError("--samples", err, info)
		}
	}
	var probs []float64
	if *withProbs {
		if probs, err = p.Probabilities(); err != nil {
			return fmt.Errorf("%s: %w", df.path, err)
		}
	}
	var grads []float64
	if *withGrads {
		if grads, err = m.Gradients(X, data.N); err != nil {
			return usageError{"--gradients: " + err.Error()}
		}
	}
	write := func(w io.Writer) error {
		b := bufio.NewWriter(w)
		// Class labels and column names are text from the training file: csv quotes those that hold a comma, a
		// quote or a line break (RFC 4180), so the output reads back as it was meant.
		cw := csv.NewWriter(b)
		if p.Labels != nil {
			header := []string{"label"}
			for j := 0; *withScores && j < p.Outputs; j++ {
				if info.Encoding == "simplex" {
					header = append(header, fmt.Sprintf("simplex%d", j+1))
				} else {
					header = append(header, "score_"+info.Labels[j])
				}
			}
			for j := 0; probs != nil && j < p.Outputs; j++ {
				header = append(header, "p_"+info.Labels[j])
			}
			_ = cw.Write(header)
			row := make([]string, 0, len(header))
			var num []byte
			for i, l := range p.Labels {
				row = append(row[:0], l)
				for j := 0; *withScores && j < p.Outputs; j++ {
					num = strconv.AppendFloat(num[:0], p.Values[i*p.Outputs+j], 'g', -1, 64)
					row = append(row, string(num))
				}
				for j := 0; probs != nil && j < p.Outputs; j++ {
					num = strconv.AppendFloat(num[:0], probs[i*p.Outputs+j], 'g', -1, 64)
					row = append(row, string(num))
				}
				_ = cw.Write(row)
			}
			cw.Flush()
			if err := cw.Error(); err != nil {
				return err
			}
			return b.Flush()
		}
		names := info.Targets
		if len(names) != p.Outputs {
			names = nil
			for j := 0; j < p.Outputs; j++ {
				names = append(names, fmt.Sprintf("y%d", j+1))
			}
		}
		header := slices.Clone(names)
		for j := 0; std != nil && j < p.Outputs; j++ {
			header = append(header, names[j]+"_std")
		}
		for k := 0; k < *samples; k++ {
			for j := 0; j < p.Outputs; j++ {
				header = append(header, fmt.Sprintf("%s_sample%d", names[j], k+1))
			}
		}
		for j := 0; grads != nil && j < len(info.Inputs); j++ {
			header = append(header, "d"+names[0]+"/d"+info.Inputs[j])
		}
		_ = cw.Write(header)
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		d := len(info.Inputs)
		var num []byte
		for i := 0; i < p.N; i++ {
			for j := 0; j < p.Outputs; j++ {
				if j > 0 {
					b.WriteByte(',')
				}
				num = strconv.AppendFloat(num[:0], p.Values[i*p.Outputs+j], 'g', -1, 64)
				b.Write(num)
			}
			for j := 0; std != nil && j < p.Outputs; j++ {
				b.WriteByte(',')
				num = strconv.AppendFloat(num[:0], std[i*p.Outputs+j], 'g', -1, 64)
				b.Write(num)
			}
			for k := 0; k < *samples; k++ {
				for j := 0; j < p.Outputs; j++ {
					b.WriteByte(',')
					num = strconv.AppendFloat(num[:0], smp[(k*p.N+i)*p.Outputs+j], 'g', -1, 64)
					b.Write(num)
				}
			}
			for j := 0; grads != nil && j < d; j++ {
				b.WriteByte(',')
				num = strconv.AppendFloat(num[:0], grads[i*d+j], 'g', -1, 64)
				b.Write(num)
			}
			b.WriteByte('\n')
		}
		return b.Flush()
	}
	if *out != "" {
		return atomicfile.WriteWith(*out, write)
	}
	return write(stdout)
}

func runEval(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval", stdout, "--model MODEL --data FILE [--json]")
	var mf modelFlags
	mf.register(fs)
	asJSON := fs.Bool("json", false, "print one JSON object on stdout")
	m, err := mf.parse(fs, args)
	if err != nil {
		return err
	}
	s, err := scoreFile(m, &mf.data)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(s)
	}
	printScore(stdout, filepath.Base(mf.data.path), s)
	return nil
}

// readColumns reads a CSV of numbers (an optional header line, then n rows of exactly cols fields; gzip allowed) in
// which an empty field or NaN marks an unobserved entry.
func readColumns(path string, n, cols int, what string) ([]float64, error) {
	rc, err := dataset.Open(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	r := csv.NewReader(rc)
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	out := make([]float64, 0, n*cols)
	line := 0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", what, path, err)
		}
		line++
		if len(rec) != cols {
			return nil, usagef("%s %s:%d: %d fields, want %d", what, path, line, len(rec), cols)
		}
		row := make([]float64, cols)
		bad := -1 // the first field that is not a number
		for j, f := range rec {
			f = strings.TrimSpace(f)
			if f == "" {
				row[j] = math.NaN()
				continue
			}
			v, err := numparse.ParseField(f, 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				bad = j
				break
			}
			if math.IsInf(v, 0) {
				return nil, usagef("%s %s:%d: column %d: %q is infinite (write NaN or leave the field empty for an unobserved entry)", what, path, line, j+1, f)
			}
			row[j] = v
		}
		if bad >= 0 {
			if line == 1 { // a header
				continue
			}
			return nil, usagef("%s %s:%d: column %d: %q is not a number (write NaN or leave the field empty for an unobserved entry)", what, path, line, bad+1, rec[bad])
		}
		if len(out)+cols > n*cols {
			return nil, usagef("%s %s has more than %d rows (one per row of --data)", what, path, n)
		}
		out = append(out, row...)
	}
	if len(out) != n*cols {
		return nil, usagef("%s %s has %d rows, want %d (one per row of --data)", what, path, len(out)/cols, n)
	}
	return out, nil
}

// readMatrix reads a square matrix of numbers from a CSV file (--A).
func readMatrix(path string) ([]float64, error) {
	rc, err := dataset.Open(path)
	if err != nil {
		return nil, usagef("--A %s: %v (give identity, covariance or a CSV file of the p×p matrix)", path, err)
	}
	defer rc.Close()
	r := csv.NewReader(rc)
	r.FieldsPerRecord = -1 // counted below, with a message about the matrix
	recs, err := r.ReadAll()
	if err != nil {
		return nil, usagef("--A %s: %v", path, err)
	}
	p := len(recs)
	if p == 0 {
		return nil, usagef("--A %s: empty file; write the p×p matrix A as p rows of p numbers", path)
	}
	var a []float64
	for i, rec := range recs {
		for _, f := range rec {
			v, err := numparse.ParseField(strings.TrimSpace(f), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, usagef("--A %s: row %d: %q is not a finite number (the file has no header: p rows of p numbers)", path, i+1, f)
			}
			a = append(a, v)
		}
		if len(rec) != p {
			return nil, usagef("--A %s: row %d has %d fields; the matrix must be square (%d rows of %d)", path, i+1, len(rec), p, p)
		}
	}
	return a, nil
}

// posteriorError is the one line for a failed --std or --samples (flag): what to do about a model fitted without
// uncertainty, in the CLI's words — refit, or for a model that cannot hold it, what can — or the error.
func posteriorError(flag string, err error, info rff.Info) error {
	if errors.Is(err, rff.ErrNoUncertainty) {
		if info.Task != "regression" || info.Exact || info.OVK != "" {
			return usagef("%s: this %s model has no predictive uncertainty: only regression on random or Nyström features fitted with rff fit --uncertainty has one", flag, info.Task)
		}
		return usagef("%s: this model was fitted without uncertainty; refit it with rff fit --uncertainty", flag)
	}
	return usageError{flag + ": " + err.Error()}
}
