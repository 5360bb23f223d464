package rff

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/gcpercent"
	"github.com/rffkit/rff/internal/numparse"
	"github.com/rffkit/rff/internal/progress"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/model"
)

// StreamOptions say how FitCSV reads its file.
type StreamOptions struct {
	// Target is the target column: "first", "last" (the default), a header name or a 1-based index.
	Target string
	// Rows, when > 0, uses only the first Rows rows (a training split); a file with fewer rows is an error.
	Rows int
	// ChunkRows is the number of rows read at a time (default 32768), at most: wide rows are read in fewer, about
	// 32 MiB of values a chunk. The second pass holds three chunks at once (one accumulated, one passed on, one
	// read ahead).
	ChunkRows int
}

// FitCSV fits ridge regression or a squared-loss classifier on random features or Nyström features of the CSV
// file at path, read in chunks, twice: the first pass fits the preprocessing and collects the class labels, the
// second maps every chunk and accumulates the ridge statistics, so memory does not grow with the number of rows.
// On random features the model equals Fit's on the same rows up to the order of floating-point sums. A Nyström
// map's landmarks (unless given, Config.LandmarkPoints) are chosen among a uniform sample of the rows that a
// reservoir keeps during the first pass — other rows than Fit's draw from the rows in memory, with the same
// distribution — so the two models are fits of the same kind, not the same fit. While it runs, the process's
// garbage-collection percentage is lowered to 20 (unless the program's own is lower), since the chunks mapped are
// the only garbage beside the statistics; overlapping calls share the lowering, and the last to end restores the
// program's value.
func FitCSV(cfg Config, path string, opt StreamOptions) (*Model, error) {
	s, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	switch {
	case s.Task != "regression" && s.Task != "classification":
		return nil, fmt.Errorf("a streamed fit is for regression or classification, not %s", s.Task)
	case s.falkon:
		return nil, errors.New("FALKON passes over the data at every iteration; a streamed Nyström fit uses the default solver")
	case s.Tune:
		return nil, errors.New("tuning maps the rows once per bandwidth and needs them in memory: tune without streaming on the first rows (Config.Tune on them), then stream with the chosen σ and λ")
	case s.Exact || s.OVK != "" || s.CV != 0 || s.loss != learn.Squared || s.precision == learn.Mixed:
		return nil, errors.New("a streamed fit is ridge on random or Nyström features with a fixed λ (not exact, vector-valued, cross-validated, mixed precision or another loss)")
	case opt.Rows < 0:
		return nil, fmt.Errorf("rows = %d: want ≥ 0", opt.Rows)
	}
	if opt.ChunkRows <= 0 {
		opt.ChunkRows = 1 << 15
	}
	// The live heap is dominated by the shards' ZᵀZ matrices; the chunks are the only garbage.
	defer gcpercent.Lower(20)()
	rep := &Report{Phases: map[string]float64{}}
	classify := s.Task == "classification"
	open := func() (*chunker, error) {
		cs, err := dataset.Options{Target: opt.Target, MaxBytes: s.MaxMemory}.OpenCSVStream(path)
		if err != nil {
			return nil, err
		}
		if !cs.HasTarget() {
			cs.Close()
			return nil, fmt.Errorf("%s has no target column", path)
		}
		return &chunker{s: cs, limit: opt.Rows, chunk: opt.ChunkRows}, nil
	}

	// Pass 1: the scaler and the labels.
	t0 := time.Now()
	r, err := open()
	if err != nil {
		return nil, err
	}
	defer func() { r.s.Close() }()
	d := r.s.D()
	opt.ChunkRows = min(opt.ChunkRows, max(blocks.Rows, streamChunkBytes/(8*(d+1))))
	r.chunk = opt.ChunkRows
	if !hasPCA(s.steps) { // the map's inputs are the columns: an SR rule's rounding is refused before reading the file
		if kind, err := kernel.New(s.Kernel, 1); err != nil {
			return nil, err
		} else if err := s.checkRounding(d, kind); err != nil {
			return nil, err
		}
	}
	acc := dataset.NewScalerAccumulator(d)
	if hasPCA(s.steps) { // the co-moments a PCA step is fitted from
		if err := s.checkPCABudget(0, d, true); err != nil {
			return nil, err
		}
		if err := acc.TrackCovariance(); err != nil {
			return nil, err
		}
	}
	sample := newReservoir(d, s.Seed)
	pool := s.landmarkPool(d)                           // Nyström landmarks' candidates (nil for random features)
	raw, values := map[string]bool{}, map[string]bool{} // the distinct targets, and the classes of those that are numbers
	var ySum float64                                    // of a regression's targets, whose mean is subtracted from them (as Fit does)
	var names []string                                  // the input columns' names, from the first chunk
	for {
		b, err := r.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if names == nil {
			names = b.Names
		}
		if !classify && b.Labels != nil { // a regression's target that is not a number: say where, at once
			for i := range b.N {
				if _, err := numparse.ParseField(strings.TrimSpace(r.s.Target(i)), 64); err != nil {
					return nil, fmt.Errorf("%s: row %d: the target %q is not a number; regression needs a numeric target column", path, acc.Rows()+i+1, r.s.Target(i))
				}
			}
		}
		if err := acc.Add(b.X, b.N); err != nil {
			return nil, err
		}
		if !classify {
			for _, v := range b.Y[:b.N] {
				ySum += v
			}
		}
		sample.add(b.X, b.N)
		if pool != nil {
			pool.add(b.X, b.N)
		}
		if classify {
			for i := range b.N {
				t := r.s.Target(i)
				raw[t] = true
				if v, err := numparse.ParseField(strings.TrimSpace(t), 64); err == nil {
					values[dataset.ClassNumber(v)] = true
				}
			}
			// More classes than any class limit allows — numbers that are equal are one class while every target is
			// a number (1, 1.0, 01) — are refused now, before they take memory without bound; so are more spellings
			// than spellingCap allows.
			classes := len(values)
			if !r.s.Numeric() {
				classes = len(raw)
			}
			if classes > s.classCap() {
				return nil, fmt.Errorf("%s: %w", path, s.checkClasses(classes, acc.Rows(), "", !r.s.Numeric()))
			}
			if len(raw) > spellingCap(s.classCap()) {
				return nil, fmt.Errorf("%s: the target is written in more than %d different ways in %d rows: it looks continuous; fit a regression", path, spellingCap(s.classCap()), acc.Rows())
			}
		}
	}
	if !classify && !r.s.Numeric() {
		return nil, fmt.Errorf("%s: regression needs a numeric target column", path)
	}
	sc, err := acc.Scaler(s.steps)
	if err != nil {
		return nil, err
	}
	dm := sc.OutDim() // the map's inputs: K after a PCA step, d otherwise
	if err := s.prepareGiven(sc, names, d); err != nil {
		return nil, err
	}
	var coder *dataset.Classes
	if classify {
		coder = dataset.NewClasses(slices.Sorted(maps.Keys(raw)), r.s.Numeric())
		if len(coder.Labels) < 2 {
			return nil, fmt.Errorf("%s: classification needs at least 2 classes, found %d", path, len(coder.Labels))
		}
		if err := s.checkClasses(len(coder.Labels), acc.Rows(), "", !r.s.Numeric()); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	total := acc.Rows()
	if opt.Rows > total {
		return nil, fmt.Errorf("%s has %d data rows, fewer than the %d asked for as the training split", path, total, opt.Rows)
	}
	var shift float64 // the mean of a regression's targets, subtracted from them in the second pass (as in Fit)
	if !classify && total > 0 {
		shift = ySum / float64(total)
	}
	r.s.Close()
	if streamBetweenPasses != nil {
		streamBetweenPasses()
	}
	if r, err = open(); err != nil {
		return nil, err
	}
	rep.Phases["load"] = time.Since(t0).Seconds()

	P := 1
	if classify {
		P = len(coder.Labels)
	}
	if kind, err := kernel.New(s.Kernel, 1); err != nil {
		return nil, err
	} else if err := s.checkRounding(dm, kind); err != nil {
		return nil, err
	} else if err := s.checkBudget(streamHeldRows(total, opt.ChunkRows, sample, pool), dm, P, kind); err != nil {
		return nil, err
	}
	sample.preprocess(sc) // the sample in the preprocessed coordinates, as Fit measures it
	k, sigma, err := s.kernel(sample)
	if err != nil {
		return nil, err
	}
	if pool != nil {
		pool.preprocess(sc)
	}
	fmap, err := s.streamMapper(k, pool, dm)
	if err != nil {
		return nil, err
	}
	h := model.Header{Task: s.Task, Kernel: k.Name(), Seed: s.Seed, Dim: d, Intercept: true, Lambda: s.Lambda,
		Preprocess: sc}
	if _, ok := k.(kernel.Spectral); ok && !math.IsNaN(sigma) {
		h.Sigma, rep.Sigma = sigma, sigma
	}
	if classify {
		K := len(coder.Labels)
		h.Labels, h.Loss = coder.Labels, learn.Squared.String()
		if s.Encoding == "simplex" {
			P, h.Encoding = K-1, "simplex"
		} else {
			P, h.Encoding = K, "onehot"
		}
	}
	h.Outputs = P

	// Pass 2: map the chunks and accumulate the statistics; a goroutine reads one chunk ahead.
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
		seen := 0 // rows before the chunk, for the row numbers of errors
		for {
			b, err := r.next()
			c := chunk{data: b, err: err}
			if err == nil {
				c.y, c.err = chunkTargets(r.s, b, coder, s.Encoding, path)
				if c.err == nil {
					sc.Apply(b.X, b.N, b.D)
					b.X = b.X[:b.N*dm] // b.D and b.Names stay the raw columns'
					// The inputs and regression targets Fit refuses as too large for the statistics.
					var names []string
					if dm == b.D {
						names = b.Names
					}
					c.err = CheckInputMagnitude(b.X, dm, names, seen)
					if c.err == nil && coder == nil {
						c.err = checkTargets(c.y, nil, []string{orDefault(b.TargetName, "y")}, nil, seen)
						for i := range c.y {
							c.y[i] -= shift
						}
					}
					if c.err != nil {
						c.err = fmt.Errorf("%s: %w", path, c.err)
					}
				}
				seen += b.N
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
	sacc, err := learn.NewAccumulator(fmap, P)
	if err != nil {
		return nil, err
	}
	bar := progress.New(s.Progress, "features+gram", total)
	defer bar.Done()
	var first *dataset.Data
	for c := range chunks {
		if c.err == io.EOF {
			break
		}
		if c.err != nil {
			return nil, c.err
		}
		if first == nil {
			first = c.data
		}
		if err := sacc.Add(c.data.X, c.data.N, c.y); err != nil {
			return nil, err
		}
		bar.Add(c.data.N)
	}
	st, err := sacc.Stats()
	if err != nil {
		return nil, err
	}
	if st.N == 0 || first == nil {
		return nil, fmt.Errorf("%s: no data rows", path)
	}
	if st.N != total { // the preprocessing and the labels are the first pass's: a fit of other rows
		return nil, fmt.Errorf("%s: the second pass read %d rows, the first %d: the file changed between the passes; fit it again once it is complete", path, st.N, total)
	}
	rep.Phases["features_gram"] = time.Since(t1).Seconds()
	rep.N = st.N
	h.Names = first.Names
	h.Targets = []string{orDefault(first.TargetName, "y")}
	h.TargetColumn = first.TargetColumn
	var shifts []float64
	if !classify {
		shifts = []float64{shift}
	}
	return s.solveStats(st, h, fmap, rep, shifts)
}

// spellingCap is the most distinct spellings of the targets (1, 1.0, 01 …) a streamed classification keeps for a
// class limit: 8 per class, and at least 65536 (a few MiB), so that a small limit is not reached by spellings alone.
func spellingCap(classes int) int { return max(8*classes, 1<<16) }

// chunker reads a CSV stream in chunks, stopping after limit rows when that is set.
type chunker struct {
	s            *dataset.CSVStream
	limit, chunk int
}

func (r *chunker) next() (*dataset.Data, error) {
	rows := r.chunk
	if r.limit > 0 {
		if rows = min(rows, r.limit-r.s.Rows()); rows <= 0 {
			return nil, io.EOF
		}
	}
	return r.s.Next(rows)
}

// chunkTargets returns a chunk's coded targets: Y for regression, the one-hot or simplex codes of the classes.
func chunkTargets(s *dataset.CSVStream, b *dataset.Data, coder *dataset.Classes, encoding, path string) ([]float64, error) {
	if coder == nil {
		if b.Labels != nil {
			return nil, fmt.Errorf("%s: regression needs a numeric target column", path)
		}
		return b.Y, nil
	}
	cls := make([]int, b.N)
	for i := range cls {
		c, ok := coder.Class(s.Target(i))
		if !ok { // the file changed between the passes
			return nil, fmt.Errorf("%s: label %q was not seen in the first pass", path, s.Target(i))
		}
		cls[i] = c
	}
	K := len(coder.Labels)
	if encoding == "simplex" {
		return learn.SimplexEncode(cls, K), nil
	}
	return learn.OneHot(cls, K, false), nil
}

// solveStats solves the ridge problem of the accumulated statistics st (λ and the solver of s; the posterior when
// s.Uncertainty), completes the header h with the map fmap and returns the model with the report rep: the last step
// of a streamed and of a distributed fit. st is overwritten. shift, when not nil, was subtracted from the targets
// before they were accumulated (one value per output): it is added to the intercept.
func (s *settings) solveStats(st *learn.Stats, h model.Header, fmap learn.Mapper, rep *Report, shift []float64) (*Model, error) {
	ts := time.Now()
	f := &model.Model{Version: model.Version}
	var fit *learn.Fit
	if s.Uncertainty {
		post, err := learn.NewPosterior(st, s.Lambda, true)
		if err != nil {
			return nil, err
		}
		fit = post.Fit
		f.PosteriorFactor, f.PosteriorZMean, f.NoiseVar = post.Factor, post.ZMean, post.NoiseVar
		h.PosteriorN, h.PosteriorDF = post.N, post.DF
	} else {
		var err error
		if fit, err = (learn.Ridge{Lambda: s.Lambda, Intercept: true, Solver: s.solver}).SolveInPlace(st); err != nil {
			return nil, err
		}
	}
	rep.Phases["solve"] = time.Since(ts).Seconds()
	rep.Solve, rep.Lambda = &fit.Stats, s.Lambda
	f.Theta, f.Bias = fit.Theta, fit.Bias
	for j, c := range shift {
		f.Bias[j] += c
	}
	storeMap(&h, f, fmap, s.Form)
	f.Header = h
	m, err := fromFile(f, 0)
	if err != nil {
		return nil, fmt.Errorf("the fitted model does not check (a bug, please report it): %w", err)
	}
	m.report = rep
	return m, nil
}

// streamBetweenPasses, when set (by tests), is called between FitCSV's two passes.
var streamBetweenPasses func()

// streamChunkBytes is about the most a chunk of a streamed fit holds: its rows are cut to fit.
const streamChunkBytes = 32 << 20

// streamHeldRows is the rows of input a streamed fit holds at once in its second pass, for its budget: three chunks
// (one accumulated, one passed on, one read ahead) besides the median heuristic's sample and the Nyström landmarks'
// candidates kept from the first pass.
func streamHeldRows(total, chunk int, sample, pool *reservoir) int {
	n := 3*min(total, chunk) + min(total, sample.capacity())
	if pool != nil {
		n += min(total, pool.capacity())
	}
	return n
}
