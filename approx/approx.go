package approx

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// Errors compares an exact Gram matrix with its approximation.
type Errors struct {
	RelFrobenius float64 // ‖K − K̂‖_F / ‖K‖_F
	MaxAbs       float64 // max |K − K̂|
	MeanAbs      float64 // mean |K − K̂|
}

// Compare returns the errors of Khat against K (same length, row-major). It returns an error if the lengths differ
// or the matrices are empty.
func Compare(K, Khat []float64) (Errors, error) {
	if len(K) != len(Khat) {
		return Errors{}, fmt.Errorf("approx.Compare: K has %d entries, K̂ %d (the lengths must match)", len(K), len(Khat))
	}
	if len(K) == 0 {
		return Errors{}, errors.New("approx.Compare: empty matrices")
	}
	var num, den, mx, sum float64
	for i, k := range K {
		e := k - Khat[i]
		num += e * e
		den += k * k
		a := math.Abs(e)
		sum += a
		mx = math.Max(mx, a)
	}
	e := Errors{MaxAbs: mx, MeanAbs: sum / float64(len(K))}
	if den > 0 {
		e.RelFrobenius = math.Sqrt(num / den)
	} else {
		e.RelFrobenius = math.Inf(1)
	}
	return e, nil
}

// PointsForN is the protocol's number of points D = 2n(d+1). It returns −1, which no feature map accepts, when n or
// d is negative or the count overflows int.
func PointsForN(n, d int) int {
	D, ok := size.Mul(2, n, d+1)
	if !ok || d < 0 {
		return -1
	}
	return D
}

// Study is one kernel-approximation experiment.
type Study struct {
	Kernel kernel.Kernel
	Rules  []rule.Rule
	Ns     []int // D = 2n(d+1) points for each n
	Runs   int
	Seed   uint64
	Form   feature.Form
	// Progress, when set, is called once per finished run, on the goroutine that called Run.
	Progress func()
}

// Result summarizes the runs of one (rule, n).
type Result struct {
	Rule    string     `json:"rule"`
	N       int        `json:"n"`
	D       int        `json:"points"`
	Columns int        `json:"columns"`
	Runs    int        `json:"runs"`
	Mean    float64    `json:"mean"`
	Std     float64    `json:"std"`
	CI95    [2]float64 `json:"ci95"`
	MaxAbs  float64    `json:"max_abs"`
	MeanAbs float64    `json:"mean_abs"`
}

// RunSeed derives the seed of one run from the study seed, the rule, n and the run index, so that every run is
// reproducible on its own and independent of scheduling.
func RunSeed(seed uint64, ruleName string, n, run int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s/%d/%d", seed, ruleName, n, run)
	return h.Sum64()
}

// machineMemory is dataset.MachineMemory, read once.
var machineMemory = sync.OnceValue(dataset.MachineMemory)

// Run executes the study on X (nx×d) and Y (ny×d), row-major. The exact Gram is computed once. It returns an error
// for a missing kernel, rule, n or run, shapes that do not match, an n whose D = 2n(d+1) overflows, matrices beyond
// the size limit of one array (1 TiB), more runs than the machine's memory can keep the errors of, a nil ctx, and
// the errors of the feature maps (a panic while drawing or applying one, on a worker goroutine, is returned as an
// error too) — of the first failed run in the order of Rules, Ns and runs. When ctx is cancelled, the runs not yet
// started are skipped and Run returns ctx's error.
func (s Study) Run(ctx context.Context, X []float64, nx int, Y []float64, ny int, d int) ([]Result, error) {
	if ctx == nil {
		return nil, errors.New("approx: nil context (use context.Background())")
	}
	if s.Kernel == nil || len(s.Rules) == 0 || len(s.Ns) == 0 || s.Runs < 1 {
		return nil, errors.New("approx: a kernel, at least one rule, one n and one run are required")
	}
	for i, r := range s.Rules {
		if r == nil {
			return nil, fmt.Errorf("approx: rule %d is nil", i+1)
		}
	}
	if nx < 1 || ny < 1 || d < 1 || !size.Is(len(X), nx, d) || !size.Is(len(Y), ny, d) {
		return nil, fmt.Errorf("approx: bad shapes (X %d values for %d×%d, Y %d values for %d×%d)", len(X), nx, d, len(Y), ny, d)
	}
	if _, err := size.Floats("approx: Gram matrix", nx, ny); err != nil {
		return nil, err
	}
	// Every run's errors are kept (3 values each), for summaries that do not depend on the order runs finish in.
	held, err := size.Floats("approx: the errors of all runs", len(s.Rules), len(s.Ns), s.Runs, 3)
	if err != nil {
		return nil, err
	}
	if mem := machineMemory(); mem > 0 && 8*int64(held) > mem {
		return nil, fmt.Errorf("approx: the errors of %d runs for each of %d rules and %d n need %s, "+
			"more than this machine's memory and swap (%s)",
			s.Runs, len(s.Rules), len(s.Ns), size.Format(8*int64(held)), size.Format(mem))
	}
	for _, n := range s.Ns {
		if n < 1 {
			return nil, fmt.Errorf("approx: n must be at least 1, got %d", n)
		}
		if PointsForN(n, d) < 1 {
			return nil, fmt.Errorf("approx: n = %d gives too many points 2n(d+1) in dimension %d", n, d)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	K := make([]float64, nx*ny)
	if err := kernel.Gram(K, s.Kernel, X, nx, Y, ny, d); err != nil {
		return nil, err
	}
	type job struct{ ri, ni, run int }
	type out struct {
		job
		e       Errors
		D, cols int
		err     error
	}
	jobs := make(chan job)
	outs := make(chan out)
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var zx, zy, khat []float64
			// one runs a job; a panic in it (a caller's kernel or rule) becomes the job's error, because nothing could
			// recover it on this goroutine.
			one := func(j job) (o out) {
				o.job = j
				defer func() {
					if v := recover(); v != nil {
						o.err = fmt.Errorf("approx: rule %s, n = %d, run %d: panic: %v", s.Rules[j.ri].Name(),
							s.Ns[j.ni], j.run+1, v)
					}
				}()
				r, n := s.Rules[j.ri], s.Ns[j.ni]
				m, err := feature.New(s.Kernel, r, d, PointsForN(n, d), RunSeed(s.Seed, r.Name(), n, j.run), feature.WithForm(s.Form))
				if err != nil {
					o.err = err
					return o
				}
				F := m.Features()
				if _, err := size.Floats("approx: features", max(nx, ny), F); err != nil {
					o.err = err
					return o
				}
				zx = grow(zx, nx*F)
				zy = grow(zy, ny*F)
				khat = grow(khat, nx*ny)
				m.TransformBlock(zx, X, nx, nil)
				m.TransformBlock(zy, Y, ny, nil)
				for i := range khat {
					khat[i] = m.Offset()
				}
				blas64.Gemm(blas.NoTrans, blas.Trans, 1,
					blas64.General{Rows: nx, Cols: F, Stride: F, Data: zx},
					blas64.General{Rows: ny, Cols: F, Stride: F, Data: zy},
					1, blas64.General{Rows: nx, Cols: ny, Stride: ny, Data: khat})
				o.e, o.err = Compare(K, khat)
				o.D, o.cols = m.Points(), F
				return o
			}
			for j := range jobs {
				if ctx.Err() != nil { // a job handed out just before the cancellation is skipped
					continue
				}
				outs <- one(j)
			}
		}()
	}
	go func() {
		defer close(jobs)
		for ri := range s.Rules {
			for ni := range s.Ns {
				for run := 0; run < s.Runs; run++ {
					select {
					case jobs <- job{ri, ni, run}:
					case <-ctx.Done():
						return
					}
				}
			}
		}
	}()
	go func() { wg.Wait(); close(outs) }()

	nr, nn := len(s.Rules), len(s.Ns)
	// Each run's errors are stored at its own index, so that the summaries do not depend on completion order.
	errs := make([][]Errors, nr*nn)
	for k := range errs {
		errs[k] = make([]Errors, s.Runs)
	}
	dims := make([][2]int, nr*nn)
	// The error returned is that of the first failed run in the study's order (rules, then n, then runs), whatever
	// the order in which runs finish; a panic in Progress is raised again once every worker has stopped.
	var firstErr error
	firstJob := -1
	var progressPanic any
	for o := range outs {
		k := o.ri*nn + o.ni
		if o.err != nil {
			if idx := k*s.Runs + o.run; firstJob < 0 || idx < firstJob {
				firstErr, firstJob = o.err, idx
			}
			continue
		}
		errs[k][o.run] = o.e
		dims[k] = [2]int{o.D, o.cols}
		if s.Progress != nil && progressPanic == nil {
			func() {
				defer func() { progressPanic = recover() }()
				s.Progress()
			}()
		}
	}
	if progressPanic != nil {
		panic(progressPanic)
	}
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := make([]Result, 0, nr*nn)
	for ri, r := range s.Rules {
		for ni, n := range s.Ns {
			k := ri*nn + ni
			res = append(res, summarize(r.Name(), n, dims[k][0], dims[k][1], errs[k]))
		}
	}
	return res, nil
}

func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

func summarize(name string, n, D, cols int, es []Errors) Result {
	r := Result{Rule: name, N: n, D: D, Columns: cols, Runs: len(es)}
	for _, e := range es {
		r.Mean += e.RelFrobenius
		r.MaxAbs += e.MaxAbs
		r.MeanAbs += e.MeanAbs
	}
	k := float64(len(es))
	r.Mean /= k
	r.MaxAbs /= k
	r.MeanAbs /= k
	if len(es) > 1 {
		var ss float64
		for _, e := range es {
			ss += (e.RelFrobenius - r.Mean) * (e.RelFrobenius - r.Mean)
		}
		r.Std = math.Sqrt(ss / (k - 1))
	}
	h := 1.96 * r.Std / math.Sqrt(k)
	r.CI95 = [2]float64{r.Mean - h, r.Mean + h}
	return r
}
