package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/spool"
)

// dataFlags are the flags every command that reads a dataset shares.
type dataFlags struct {
	path, format, target, labels, preprocess string
	train                                    int
	mem                                      *memoryFlag // --max-memory
	// held is memory the command already holds when it loads the data (predict and eval: the model); the loader
	// gets the rest of the budget.
	held int64
	// columns are the input columns to read from a CSV file with a header (predict and eval: the model's); the
	// others but the target are skipped unparsed. nil reads every column.
	columns []string
	// width is the least number of feature columns of a LibSVM file (predict and eval: the model's inputs); a
	// narrower file, whose last features are zero in every row, is padded with zero columns.
	width int
	// kept holds the bytes of the inputs keepInputs read into memory, by path: they stay there, so a load counts
	// those of the other inputs as held (its own it charges itself).
	kept map[string]int64
}

func (f *dataFlags) register(fs *flag.FlagSet, defaultPreprocess string) {
	fs.StringVar(&f.path, "data", "", "dataset file (CSV, LibSVM or IDX; gzip is detected)")
	fs.StringVar(&f.format, "format", "", "csv|libsvm|idx (guessed from the file name when omitted)")
	fs.StringVar(&f.target, "target", "", "CSV target column: first|last|none|NAME|INDEX (1-based), left out of the features (default: last for CSV; LibSVM and IDX carry their labels)")
	fs.StringVar(&f.labels, "labels", "", "IDX labels file")
	fs.IntVar(&f.train, "train", 0, "use only the first N rows (the training split; 0 = all)")
	f.mem = registerMemory(fs)
	if defaultPreprocess == "" { // predict and eval apply the model's own preprocessing
		return
	}
	fs.StringVar(&f.preprocess, "preprocess", defaultPreprocess, "comma list of steps applied in order: standardize, minmax, maxscale (divide by the global maximum), isotropic, none, and last pca:K or pca-whiten:K (project onto the K leading principal components, whitened; K a count or a share of the variance such as 0.99); paper = maxscale")
}

// load reads the dataset (see loadRaw) and applies the preprocessing fitted on it, which it returns.
func (f *dataFlags) load() (*dataset.Data, *dataset.Scaler, error) {
	steps, err := f.steps()
	if err != nil {
		return nil, nil, err
	}
	data, err := f.loadRaw()
	if err != nil {
		return nil, nil, err
	}
	sc, err := scaleWith(data, steps)
	return data, sc, err
}

// scale fits the --preprocess steps on data's inputs, applies them to a copy and returns the fitted scaler.
func (f *dataFlags) scale(data *dataset.Data) (*dataset.Scaler, error) {
	steps, err := f.steps()
	if err != nil {
		return nil, err
	}
	return scaleWith(data, steps)
}

// steps parses --preprocess ("paper" is maxscale); an empty value is refused rather than read as no steps.
func (f *dataFlags) steps() ([]dataset.Step, error) {
	if strings.TrimSpace(f.preprocess) == "" {
		return nil, usagef("--preprocess is empty: give the steps (e.g. standardize), or none")
	}
	steps, err := dataset.ParseSteps(strings.ReplaceAll(f.preprocess, "paper", string(dataset.StepMaxScale)))
	if err != nil {
		return nil, usageError{err.Error()}
	}
	return steps, nil
}

func scaleWith(data *dataset.Data, steps []dataset.Step) (*dataset.Scaler, error) {
	sc, err := dataset.FitScaler(data.X, data.N, data.D, steps)
	if err != nil {
		return nil, err
	}
	x := append([]float64(nil), data.X...)
	sc.Apply(x, data.N, data.D)
	data.X = x
	if K := sc.OutDim(); K != data.D { // a PCA step: the data become their K principal components
		data.X, data.D, data.Names = x[:data.N*K], K, make([]string, K)
		for k := range data.Names {
			data.Names[k] = fmt.Sprintf("pc%d", k+1)
		}
	}
	return sc, nil
}

// loadRaw reads the dataset and keeps the training split, without preprocessing (predict and eval apply the
// model's own).
func (f *dataFlags) loadRaw() (*dataset.Data, error) {
	if f.path == "" {
		return nil, usagef("--data is required")
	}
	if f.train < 0 {
		return nil, usagef("--train must be ≥ 0, got %d", f.train)
	}
	format, err := dataset.ParseFormat(f.format)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	data, err := dataset.Load(f.path, dataset.Options{Format: format, Target: f.target, Labels: f.labels, MaxBytes: f.maxBytes(), Columns: f.columns, Width: f.width})
	if de, ok := errors.AsType[*dataset.BudgetError](err); ok && f.heldBytes() > 0 && de.Bytes > 0 {
		var beside []string
		if f.held > 0 {
			beside = append(beside, "the model ("+rff.FormatBytes(f.held)+")")
		}
		if o := f.otherInputs(); o > 0 {
			beside = append(beside, "the other inputs read into memory ("+rff.FormatBytes(o)+")")
		}
		return nil, usagef("%s: %s needs at least %s, over the %s the memory budget of %s leaves beside %s; %s",
			de.Name, de.What, rff.FormatBytes(de.Bytes), rff.FormatBytes(de.Budget), rff.FormatBytes(budgetOf(*f.mem)),
			strings.Join(beside, " and "), advice(budgetOf(*f.mem)))
	}
	if err != nil {
		return nil, budgetHint(err)
	}
	if f.train > data.N {
		return nil, usagef("--train %d: %s has %d data rows (give at most %d, or 0 for all of them)", f.train, f.path, data.N, data.N)
	}
	if f.train > 0 {
		data, _ = data.Split(f.train)
	}
	if data.N == 0 || data.D == 0 {
		return nil, fmt.Errorf("%s: no data rows or no feature columns", f.path)
	}
	return data, nil
}

// keepInputs reads the inputs among paths that are pipes or devices (/dev/stdin, a process substitution) into memory
// once, within the memory budget, so that reading one more than once — its format, its header, then its rows —
// sees the same bytes (package spool). Regular files are read as usual. The inputs kept share the budget: each may
// take what those kept before it leave. The loader of a kept input counts its bytes in the budget too, since they
// stay in memory while it reads them.
func (f *dataFlags) keepInputs(paths ...string) error {
	limit := f.maxBytes()
	if limit == 0 {
		limit = dataset.DefaultMaxBytes()
	}
	var kept int64 // bytes of the inputs kept so far
	seen := map[string]bool{}
	for _, p := range paths {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		left := limit
		if limit >= 0 {
			left = max(0, limit-kept)
		}
		ok, err := spool.Keep(p, left)
		if err != nil {
			if errors.Is(err, spool.ErrTooLarge) {
				if kept > 0 {
					return usagef("%s: a pipe longer than the %s the memory budget of %s leaves beside the inputs read before it (%s); %s",
						p, rff.FormatBytes(left), rff.FormatBytes(limit), rff.FormatBytes(kept), advice(limit, "write it to a file"))
				}
				return usagef("%s: a pipe longer than the memory budget of %s; %s", p, rff.FormatBytes(limit), advice(limit, "write it to a file"))
			}
			return err
		}
		if c, found := spool.Get(p); ok && found {
			kept += c.Size()
			if f.kept == nil {
				f.kept = map[string]int64{}
			}
			f.kept[p] = c.Size()
		}
	}
	return nil
}

// maxBytes is the --max-memory budget as dataset.Options.MaxBytes takes it (0: the default, negative: none), less
// what the command already holds.
func (f *dataFlags) maxBytes() int64 {
	if f.mem == nil {
		return 0
	}
	if h := f.heldBytes(); h > 0 && *f.mem >= 0 {
		return max(1, budgetOf(*f.mem)-h)
	}
	return int64(*f.mem)
}

// heldBytes is what the command holds when it loads f.path: the model (held) and the inputs read into memory but
// those of this load.
func (f *dataFlags) heldBytes() int64 { return f.held + f.otherInputs() }

// otherInputs is the bytes of the inputs read into memory (keepInputs) other than the files of this load.
func (f *dataFlags) otherInputs() int64 {
	var n int64
	for p, b := range f.kept {
		if p != f.path && p != f.labels {
			n += b
		}
	}
	return n
}

// testFile returns the flags that read the test file path (IDX labels in labels) the way rff fit scores it: all its
// rows, the target found by the model's column name when the file has a header, and otherwise at the position
// --target gave for the training file, which a headerless test file shares; a hermite test file holds the inputs
// and f(x) last.
func (f dataFlags) testFile(path, labels string, hermite bool) dataFlags {
	t := f
	t.path, t.labels, t.train, t.target = path, labels, 0, ""
	switch {
	case hermite:
		t.target = "last"
	case f.target != "":
		format, err := dataset.ParseFormat(f.format)
		if err == nil && format == dataset.FormatAuto {
			format, err = dataset.DetectFormat(path) // the name, else the content, as the file will be read
		}
		if err == nil && format == dataset.FormatCSV {
			if names, _, err := dataset.CSVHeader(path); err == nil && names == nil {
				t.target = f.target
			}
		}
	}
	return t
}
