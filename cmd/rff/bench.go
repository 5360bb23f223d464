package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/cpu"
	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/progress"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/rule"
)

// The adapter to internal/linalg: the only place where this file (and repro quad-fig3) depends on its API.
// Importing the package installs the chosen backend (OpenBLAS when it loads, else pure Go) into gonum for the whole
// program, so every gonum call of rff — the dense rules' projections, learn's Gram accumulation, the Cholesky
// solve — runs on it.

// backendReport is what rff bench prints about the linear-algebra backend.
type backendReport struct {
	Summary        string `json:"summary"` // e.g. "openblas 0.3.21 (Zen, 2 threads)"
	Backend        string `json:"backend"` // "openblas" or "go"
	Version        string `json:"version,omitempty"`
	CoreType       string `json:"core_type,omitempty"`
	CoreTypeSource string `json:"core_type_source,omitempty"`
	Threads        int    `json:"threads"`
	ThreadTimeout  string `json:"thread_timeout,omitempty"` // OPENBLAS_THREAD_TIMEOUT at load
	Library        string `json:"library,omitempty"`
	Config         string `json:"config,omitempty"`
	Note           string `json:"note,omitempty"`
	Err            string `json:"error,omitempty"`
	GOMAXPROCS     int    `json:"gomaxprocs"`
}

func linalgBackend() backendReport {
	in := linalg.Info()
	r := backendReport{Summary: in.String(), Backend: in.Backend, Version: in.Version, CoreType: in.CoreType,
		CoreTypeSource: in.CoreTypeSource, Threads: in.Threads, ThreadTimeout: in.ThreadTimeout, Library: in.Library, Config: in.Config, Note: in.Note,
		GOMAXPROCS: runtime.GOMAXPROCS(0)}
	if in.Err != nil {
		r.Err = in.Err.Error()
	}
	return r
}

// linalgGemm is C = A·B for n×n row-major matrices.
func linalgGemm(n int, a, b, c []float64) { linalg.Gemm(false, false, n, n, n, 1, a, n, b, n, 0, c, n) }

// cpuReport names the CPU the figures were measured on.
type cpuReport struct {
	Name     string   `json:"name"` // the CPUID brand string (virtual machines often shorten it)
	Family   int      `json:"family"`
	Model    int      `json:"model"`
	Features []string `json:"features"` // of avx2, fma, avx512: what the fast paths may use
	CPUs     int      `json:"cpus"`     // runtime.NumCPU
}

func benchCPU() cpuReport {
	name, fam, model := cpu.Name()
	return cpuReport{Name: name, Family: fam, Model: model, Features: cpu.Features(), CPUs: runtime.NumCPU()}
}

// gramShape compares, in one run and for one number of features F, the fused map → Gram path with the BLAS-3
// calls it is made of, timed in alternation (the fastest of a few rounds of each): GEMM is C = ZᵀZ computed whole by dgemm (F×F from a k×F block Z, k = learn.GramChunk(F)
// rows, the chunk the accumulation adds at a time), Syrk its upper triangle by linalg.Syrk, and Fused is
// learn.Accumulate of N rows (d = 64 Gaussian inputs, D = F/2 points of rule g: the map, ZᵀZ, ZᵀY and the sums,
// with the allocation of ZᵀZ and its final mirroring). Rates are real flops: 2·k·F² for the GEMM, k·F² for the
// triangle (F(F+1)/2 entries of k multiply-adds, rounded to k·F²), N·F² for the fused path.
type gramShape struct {
	Features      int        `json:"features"`
	Points        int        `json:"points"`
	Rows          int        `json:"rows"`
	Chunk         int        `json:"chunk"`
	GEMM          rateResult `json:"gemm"`
	Syrk          rateResult `json:"syrk"`
	Fused         rateResult `json:"fused"`
	SyrkOverGEMM  float64    `json:"syrk_over_gemm"`
	FusedOverGEMM float64    `json:"fused_over_gemm"` // against the better of this GEMM and the square one
}

// benchReport is the JSON object rff bench --json prints.
type benchReport struct {
	CPU     cpuReport     `json:"cpu"`
	Backend backendReport `json:"backend"`
	Quick   bool          `json:"quick"`
	GEMM    rateResult    `json:"gemm"`
	// Gram is ZᵀZ of blasN features as rff fit forms it (learn.Accumulate: the fused map → Gram path, see
	// gramShape), GramSyrk one Syrk call on an n×n block, GramOverGEMM the fused rate over the square GEMM's;
	// Grams the fused path against GEMM and Syrk in its own shape, for F = 2048 and 8192 (--quick: 1024).
	Gram         rateResult  `json:"gram"`
	GramSyrk     rateResult  `json:"gram_syrk"`
	GramOverGEMM float64     `json:"gram_over_gemm"`
	Grams        []gramShape `json:"grams"`
	Map          []mapResult `json:"map"`
	KernelGram   kernelGram  `json:"kernel_gram"`
	Fit          fitResult   `json:"fit"`
	Seconds      float64     `json:"seconds"`
	// LoadAverage is /proc/loadavg before and after the run (Linux): numbers from a busy machine are low.
	LoadAverage [2]string `json:"load_average,omitempty"`
}

// loadAverage returns the 1-, 5- and 15-minute load averages, or "" where /proc/loadavg does not exist.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// rateResult is one BLAS-3 measurement: GFLOP/s count 2mnk for GEMM and n²k (one triangle's useful flops) for a
// Gram matrix of n features over k rows (N = n, K = k).
type rateResult struct {
	N       int     `json:"n"`
	K       int     `json:"k"`
	Reps    int     `json:"reps"`
	Seconds float64 `json:"seconds"` // per repetition (median)
	GFLOPS  float64 `json:"gflops"`
}

type mapResult struct {
	Dim        int     `json:"d"`
	Rule       string  `json:"rule"`
	Points     int     `json:"points"`
	Features   int     `json:"features"`
	Rows       int     `json:"rows"`
	RowsPerSec float64 `json:"rows_per_second"`
	// NsPerRowPoint is the time per row and per point, comparable across rules that round D differently.
	NsPerRowPoint float64 `json:"ns_per_row_point"`
	DrawSeconds   float64 `json:"draw_seconds"`
}

type fitResult struct {
	N        int                `json:"n"`
	Dim      int                `json:"d"`
	Kernel   string             `json:"kernel"`
	Rule     string             `json:"rule"`
	Points   int                `json:"points"`
	Features int                `json:"features"`
	Lambda   float64            `json:"lambda"`
	Phases   map[string]float64 `json:"phases"`
	Method   string             `json:"method"` // the solver's: "cholesky", or "mixed" where --precision auto chose it
	Seconds  float64            `json:"seconds"`
	TrainMSE float64            `json:"train_mse"`
}

// kernelGram is a Gaussian kernel matrix of rows of pixels/255 (80% zeros) against as many centres, as Nyström
// features and FALKON form it block after block (kernel.Centres.Gram): on the pixels, which lie on a grid (the exact
// single-precision path where the backend has fast float32 products, docs/conventions.md §13.4), and on the same
// pixels moved off the grid by at most 1e-9 (the double-precision product). GFLOP/s count 2·rows·centres·d.
type kernelGram struct {
	Rows    int        `json:"rows"`
	Centres int        `json:"centres"`
	Dim     int        `json:"d"`
	Grid    rateResult `json:"grid"`
	Double  rateResult `json:"double"`
	Speedup float64    `json:"speedup"` // Double.Seconds / Grid.Seconds
}

// benchConfig are the sizes of one bench run.
type benchConfig struct {
	blasN      int   // GEMM / Gram size
	gramRows   int   // rows accumulated by learn.Accumulate at F = blasN
	gramFs     []int // features of the Gram shapes
	gramN      []int // their rows
	gramRounds int   // alternations of dgemm, dsyrk and the fused path
	mapRows    int   // rows per map measurement
	mapDims    []int // input dimensions of the map measurements
	mapPoints  int   // D for the map measurements
	fitN       int   // rows of the standard fit problem
	kgRows     int   // rows and centres of the kernel matrix (kernelGram), d = 784
	kgRounds   int   // its alternations
	minTime    time.Duration
}

func benchSizes(quick bool) benchConfig {
	if quick {
		return benchConfig{blasN: 512, gramRows: 2048, gramFs: []int{1024}, gramN: []int{2048}, gramRounds: 2, mapRows: 1000,
			mapDims: []int{16, 256}, mapPoints: 256, fitN: 2000, kgRows: 256, kgRounds: 2,
			minTime: 20 * time.Millisecond}
	}
	return benchConfig{blasN: 2048, gramRows: 32768, gramFs: []int{2048, 8192}, gramN: []int{32768, 24576}, gramRounds: 3,
		mapRows: 10000, mapDims: []int{16, 256, 784, 3072}, mapPoints: 1024, fitN: 100000, kgRows: 1024, kgRounds: 5,
		minTime: 500 * time.Millisecond}
}

// The standard fit problem of the performance comparison (docs/performance.md): N×64 Gaussian inputs, Gaussian kernel with γ = 1/d, D = 1024 iid points
// (rule g: exactly 2048 cos/sin columns, the shape of scikit-learn's RBFSampler(n_components=2048)), λ fixed.
const (
	benchFitDim    = 64
	benchFitPoints = 1024
	benchFitLambda = 1e-6
	benchFitRule   = "g"
)

// runBench is `rff bench`, everything measured in one run so that ratios are meaningful:
//   - the linear-algebra backend (internal/linalg: OpenBLAS version, core type and its source, threads);
//   - the CPU (brand string, family, model, the vector extensions the fast paths may use);
//   - GEMM GFLOP/s (C = A·B, n = 2048), the fused map → Gram rate (learn.Accumulate of 32768 rows × 2048 features,
//     as rff fit forms ZᵀZ), their ratio, and one linalg.Syrk call (n = k = 2048) for reference; then for F = 2048
//     and 8192 features the fused path against dgemm and dsyrk in the shape of its rank-k updates, timed in
//     alternation, the fastest of three rounds of each (gramShape);
//   - map throughput (rows/s, and ns per row and point) of every rule at d ∈ {16, 256, 784, 3072} with D = 1024
//     points (SR rules round up to whole rules of d+1 points: 1037, 1028, 1570, 3073) on 10⁴ rows of U[0,1)^d,
//     Gaussian kernel with γ = 1/d, cos/sin form, after one warm-up map; the time to draw each map is shown apart;
//   - a Gaussian kernel matrix of 1024 rows of pixels/255 against 1024 centres (kernel.Centres.Gram), on the grid
//     and moved off it, in alternation (kernelGram);
//   - the fit of the standard problem by phase (100000×64, see benchFitData; D = 1024 iid points, λ = 1e-6) with
//     the code path of rff fit.
//
// --quick shrinks every size (n = 512, d ∈ {16, 256} with D = 256, a 2000-row fit) for smoke tests.
func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench", stdout, "[--json] [--quick] [--rules LIST] [--dims LIST]")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout")
	quick := fs.Bool("quick", false, "small sizes (n = 512 products, d ∈ {16, 256} with D = 256 points, a 2000-row fit): seconds, for smoke tests")
	rulesFlag := fs.String("rules", "", "comma list of rules for the map measurements (default: every rule)")
	dimsFlag := fs.String("dims", "", "comma list of input dimensions d for the map measurements (default 16,256,784,3072; --quick 16,256)")
	mem := registerMemory(fs.FlagSet)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg := benchSizes(*quick)
	rules := rule.Names()
	if *rulesFlag != "" {
		rs, err := rule.ParseList(*rulesFlag)
		if err != nil {
			return usageError{err.Error()}
		}
		rules = rules[:0:0]
		for _, r := range rs {
			rules = append(rules, r.Name())
		}
	}
	if *dimsFlag != "" {
		dims, err := parseInts(*dimsFlag, "--dims")
		if err != nil {
			return err
		}
		cfg.mapDims = dims
	}
	for _, d := range cfg.mapDims {
		// The map measurement holds the rows (mapRows×d), their features, and dense points for the dense rules.
		need := 8 * float64(d) * (float64(cfg.mapRows) + float64(cfg.mapPoints) + float64(d))
		need += 8 * float64(cfg.mapRows) * 2 * float64(cfg.mapPoints+d)
		if err := checkMemory(*mem, need, fmt.Sprintf("the map measurement at d = %d", d), "--dims"); err != nil {
			return err
		}
	}
	// The other measurements, each on its own (their arrays are dropped before the next starts): the products
	// (three n×n matrices), the fused Gram (its rows, ZᵀZ and a chunk of features per core), the kernel Gram
	// (four 784-wide inputs and two n×n results) and the standard fit in double precision (its rows, ZᵀZ and its
	// factor); the fit runs in mixed precision only if its N×D projections fit in the budget too.
	// chunk is the features held at once while a Gram matrix accumulates: up to 16 MiB per core and one more.
	chunk := func(n, F int) float64 {
		return min(float64(n)*float64(F), float64(16<<20)/8*float64(runtime.GOMAXPROCS(0)+1))
	}
	type phase struct {
		what   string
		values float64
	}
	phases := []phase{
		{"the products", 3 * float64(cfg.blasN) * float64(cfg.blasN)},
		{"the kernel Gram matrix", 4*float64(cfg.kgRows)*784 + 2*float64(cfg.kgRows)*float64(cfg.kgRows)},
		{"the fit", float64(cfg.fitN)*(benchFitDim+2) + 2*float64(2*benchFitPoints)*float64(2*benchFitPoints) + chunk(cfg.fitN, 2*benchFitPoints)},
		{fmt.Sprintf("the Gram matrix at F = %d", cfg.blasN), float64(cfg.gramRows)*(benchFitDim+1) + 2*float64(cfg.blasN)*float64(cfg.blasN) + chunk(cfg.gramRows, cfg.blasN)},
	}
	for i, F := range cfg.gramFs {
		phases = append(phases, phase{fmt.Sprintf("the Gram matrix at F = %d", F),
			float64(cfg.gramN[i])*(benchFitDim+1) + 2*float64(F)*float64(F) + chunk(cfg.gramN[i], F)})
	}
	for _, p := range phases {
		if err := checkMemory(*mem, 8*p.values, p.what, "the sizes (--quick)"); err != nil {
			return err
		}
	}
	mixed := 8*(phases[2].values+float64(cfg.fitN)*benchFitPoints+float64(2*benchFitPoints)*float64(2*benchFitPoints)) <= float64(budgetOf(*mem))
	t0 := time.Now()
	bar := progress.New(stderr, "bench", 3+len(cfg.gramFs)+len(cfg.mapDims)*len(rules)+2)
	defer bar.Done()
	rep := benchReport{CPU: benchCPU(), Backend: linalgBackend(), Quick: *quick}
	rep.LoadAverage[0] = loadAverage()
	rng := rand.New(rand.NewPCG(1, 2))

	rep.GEMM = benchGemm(cfg, rng)
	bar.Add(1)
	var err error
	if rep.Gram, err = benchFused(cfg.blasN, cfg.gramRows, cfg.minTime); err != nil {
		return err
	}
	bar.Add(1)
	rep.GramSyrk = benchSyrk(cfg, rng)
	bar.Add(1)
	rep.GramOverGEMM = rep.Gram.GFLOPS / rep.GEMM.GFLOPS
	for i, F := range cfg.gramFs {
		g, err := benchGramShape(F, cfg.gramN[i], cfg.gramRounds, rep.GEMM, rng)
		if err != nil {
			return err
		}
		rep.Grams = append(rep.Grams, g)
		bar.Add(1)
	}
	for _, d := range cfg.mapDims {
		x := make([]float64, cfg.mapRows*d)
		for i := range x {
			x[i] = rng.Float64()
		}
		k := kernel.Gaussian{S: kernel.SigmaFromGamma(1 / float64(d))}
		for _, name := range rules {
			r, err := rule.Parse(name)
			if err != nil {
				return err
			}
			mr, err := benchMap(k, r, x, cfg.mapRows, d, cfg.mapPoints, cfg.minTime)
			if err != nil {
				return fmt.Errorf("map d=%d, %s: %w", d, name, err)
			}
			rep.Map = append(rep.Map, mr)
			bar.Add(1)
		}
	}
	if rep.KernelGram, err = benchKernelGram(cfg.kgRows, cfg.kgRounds, rng); err != nil {
		return err
	}
	bar.Add(1)
	if rep.Fit, err = benchFit(cfg.fitN, mixed, io.Discard); err != nil {
		return err
	}
	bar.Add(1)
	rep.Seconds = time.Since(t0).Seconds()
	rep.LoadAverage[1] = loadAverage()
	bar.Done()
	if *asJSON {
		return json.NewEncoder(stdout).Encode(rep)
	}
	printBench(stdout, rep, cfg)
	return nil
}

// repeat runs f at least twice (after one untimed warm-up) and until minTime has passed, and returns the median
// seconds per call and the number of timed calls.
func repeat(minTime time.Duration, f func()) (float64, int) {
	f()
	var secs []float64
	start := time.Now()
	for len(secs) < 2 || time.Since(start) < minTime {
		t := time.Now()
		f()
		secs = append(secs, time.Since(t).Seconds())
	}
	slices.Sort(secs)
	return secs[len(secs)/2], len(secs)
}

func randSlice(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = 2*rng.Float64() - 1
	}
	return x
}

func benchGemm(cfg benchConfig, rng *rand.Rand) rateResult {
	n := cfg.blasN
	a, b, c := randSlice(rng, n*n), randSlice(rng, n*n), make([]float64, n*n)
	s, reps := repeat(cfg.minTime, func() { linalgGemm(n, a, b, c) })
	return rateResult{N: n, K: n, Reps: reps, Seconds: s, GFLOPS: 2 * math.Pow(float64(n), 3) / s / 1e9}
}

// benchFused times learn.Accumulate of n rows of d = 64 Gaussian inputs through a Gaussian map of F/2 points of
// rule g (F cos/sin features), one output: rff fit's fused map → Gram path. GFLOP/s count n·F².
func benchFused(F, n int, minTime time.Duration) (rateResult, error) {
	m, X, Y, err := benchFusedProblem(F, n)
	if err != nil {
		return rateResult{}, err
	}
	var aerr error
	s, reps := repeat(minTime, func() {
		if _, err := learn.Accumulate(m, X, n, Y, 1); err != nil {
			aerr = err
		}
	})
	if aerr != nil {
		return rateResult{}, aerr
	}
	return rateResult{N: F, K: n, Reps: reps, Seconds: s, GFLOPS: float64(F) * float64(F) * float64(n) / s / 1e9}, nil
}

// benchFusedProblem is the map and rows benchFused accumulates: n rows of the standard fit problem, a Gaussian map
// of F/2 points of rule g.
func benchFusedProblem(F, n int) (*feature.Map, []float64, []float64, error) {
	X, Y := benchFitData(n)
	k := kernel.Gaussian{S: kernel.SigmaFromGamma(1.0 / benchFitDim)}
	r, err := rule.Parse(benchFitRule)
	if err != nil {
		return nil, nil, nil, err
	}
	m, err := feature.New(k, r, benchFitDim, F/2, 1)
	return m, X, Y, err
}

// benchGramShape measures gramShape for F features and n rows. The three are timed in alternation, rounds times
// after one untimed call of each, and each keeps its fastest round: other work on the machine slows some rounds
// of each by chance, and the fastest are the rates the code reaches (Seconds is the fastest round, Reps the rounds).
func benchGramShape(F, n, rounds int, square rateResult, rng *rand.Rand) (gramShape, error) {
	k := learn.GramChunk(F)
	g := gramShape{Features: F, Points: F / 2, Rows: n, Chunk: k}
	z, c := randSlice(rng, k*F), make([]float64, F*F)
	m, X, Y, err := benchFusedProblem(F, n)
	if err != nil {
		return g, err
	}
	var aerr error
	calls := []func(){
		func() { linalg.Gemm(true, false, F, F, k, 1, z, F, z, F, 1, c, F) },
		func() { linalg.Syrk(F, k, 1, z, F, 1, c, F) },
		func() {
			if _, err := learn.Accumulate(m, X, n, Y, 1); err != nil {
				aerr = err
			}
		},
	}
	best := []float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	for r := range rounds + 1 {
		for i, f := range calls {
			t := time.Now()
			f()
			if s := time.Since(t).Seconds(); r > 0 {
				best[i] = min(best[i], s)
			}
		}
	}
	if aerr != nil {
		return g, aerr
	}
	flops := float64(k) * float64(F) * float64(F)
	g.GEMM = rateResult{N: F, K: k, Reps: rounds, Seconds: best[0], GFLOPS: 2 * flops / best[0] / 1e9}
	g.Syrk = rateResult{N: F, K: k, Reps: rounds, Seconds: best[1], GFLOPS: flops / best[1] / 1e9}
	g.Fused = rateResult{N: F, K: n, Reps: rounds, Seconds: best[2], GFLOPS: float64(F) * float64(F) * float64(n) / best[2] / 1e9}
	g.SyrkOverGEMM = g.Syrk.GFLOPS / g.GEMM.GFLOPS
	g.FusedOverGEMM = g.Fused.GFLOPS / max(g.GEMM.GFLOPS, square.GFLOPS)
	return g, nil
}

// benchKernelGram measures kernelGram for n rows and n centres, the grid and double-precision paths timed in
// alternation after one untimed call of each, each keeping its median.
func benchKernelGram(n, rounds int, rng *rand.Rand) (kernelGram, error) {
	const d = 784
	kg := kernelGram{Rows: n, Centres: n, Dim: d}
	pixels := func() []float64 {
		x := make([]float64, n*d)
		for i := range x {
			if rng.Float64() < 0.2 {
				x[i] = float64(1+rng.IntN(255)) / 255
			}
		}
		return x
	}
	X, Y := pixels(), pixels()
	Xoff, Yoff := slices.Clone(X), slices.Clone(Y)
	for _, a := range [][]float64{Xoff, Yoff} {
		for i := range a {
			a[i] += 1e-9 * rng.Float64()
		}
	}
	k := kernel.Gaussian{S: 5}
	dst := make([]float64, n*n)
	var calls []func() error
	for _, p := range [][2][]float64{{X, Y}, {Xoff, Yoff}} {
		c, err := kernel.NewCentres(k, p[1], n, d)
		if err != nil {
			return kg, err
		}
		calls = append(calls, func() error { return c.Gram(dst, p[0], n) })
	}
	times := make([][]float64, 2)
	for r := range rounds + 1 {
		for i, f := range calls {
			t := time.Now()
			if err := f(); err != nil {
				return kg, err
			}
			if r > 0 {
				times[i] = append(times[i], time.Since(t).Seconds())
			}
		}
	}
	flops := 2 * float64(n) * float64(n) * d
	for i, r := range []*rateResult{&kg.Grid, &kg.Double} {
		slices.Sort(times[i])
		s := times[i][len(times[i])/2]
		*r = rateResult{N: n, K: d, Reps: rounds, Seconds: s, GFLOPS: flops / s / 1e9}
	}
	kg.Speedup = kg.Double.Seconds / kg.Grid.Seconds
	return kg, nil
}

// benchSyrk is one Gram update C += AᵀA of an n×n block through linalg.Syrk.
func benchSyrk(cfg benchConfig, rng *rand.Rand) rateResult {
	n := cfg.blasN
	a, c := randSlice(rng, n*n), make([]float64, n*n)
	s, reps := repeat(cfg.minTime, func() { linalg.Syrk(n, n, 1, a, n, 1, c, n) })
	return rateResult{N: n, K: n, Reps: reps, Seconds: s, GFLOPS: math.Pow(float64(n), 3) / s / 1e9}
}

// benchMap measures TransformRows of rows×d inputs with a Gaussian map of about D points of rule r (SR rules round
// up to whole rules of d+1 points, SORF and ORF to nothing: Points() is reported).
func benchMap(k kernel.Kernel, r rule.Rule, x []float64, rows, d, D int, minTime time.Duration) (mapResult, error) {
	t := time.Now()
	m, err := feature.New(k, r, d, D, 1)
	if err != nil {
		return mapResult{}, err
	}
	draw := time.Since(t).Seconds()
	z := make([]float64, rows*m.Features())
	var merr error
	s, _ := repeat(minTime, func() {
		if err := m.TransformRows(z, x, rows); err != nil {
			merr = err
		}
	})
	if merr != nil {
		return mapResult{}, merr
	}
	return mapResult{Dim: d, Rule: r.Name(), Points: m.Points(), Features: m.Features(), Rows: rows,
		RowsPerSec: float64(rows) / s, NsPerRowPoint: s * 1e9 / float64(rows) / float64(m.Points()), DrawSeconds: draw}, nil
}

// benchFitData is the standard regression problem: x ~ N(0, I₆₄), y = Σⱼ sin(xⱼ)/8 + 0.1·ε (seeded).
func benchFitData(n int) (X, Y []float64) {
	rng := rand.New(rand.NewPCG(7, 7))
	X, Y = make([]float64, n*benchFitDim), make([]float64, n)
	for i := range n {
		var s float64
		for j := range benchFitDim {
			v := rng.NormFloat64()
			X[i*benchFitDim+j] = v
			s += math.Sin(v)
		}
		Y[i] = s/8 + 0.1*rng.NormFloat64()
	}
	return X, Y
}

// benchFit fits the standard problem as rff fit does (fused map → ZᵀZ, ZᵀY, then Cholesky)
// and reports its phases: draw (the map's points), features_gram, solve, and predict (the training rows).
func benchFit(n int, mixed bool, stderr io.Writer) (fitResult, error) {
	X, Y := benchFitData(n)
	k := kernel.Gaussian{S: kernel.SigmaFromGamma(1.0 / benchFitDim)}
	r, err := rule.Parse(benchFitRule)
	if err != nil {
		return fitResult{}, err
	}
	res := fitResult{N: n, Dim: benchFitDim, Kernel: k.Name(), Rule: r.Name(), Lambda: benchFitLambda,
		Phases: map[string]float64{}}
	t0 := time.Now()
	m, err := feature.New(k, r, benchFitDim, benchFitPoints, 1)
	if err != nil {
		return res, err
	}
	res.Phases["draw"] = time.Since(t0).Seconds()
	res.Points, res.Features = m.Points(), m.Features()
	tg := time.Now()
	bar := progress.New(stderr, "features+gram", n)
	precision := learn.Auto
	if !mixed {
		precision = learn.Double
	}
	fit, err := learn.Ridge{Lambda: benchFitLambda, Intercept: true, Precision: precision, Progress: bar.Add}.FitMap(m, X, n, Y, 1)
	bar.Done()
	if err != nil {
		return res, err
	}
	// The solve is what follows the last chunk: the factorisation and, in mixed precision, the refinement.
	res.Phases["features_gram"] = time.Since(tg).Seconds() - fit.Stats.Seconds
	res.Phases["solve"] = fit.Stats.Seconds
	res.Method = fit.Stats.Method
	res.Seconds = time.Since(t0).Seconds()
	tp := time.Now()
	pred := make([]float64, n)
	if err := fit.PredictMap(pred, m, X, n); err != nil {
		return res, err
	}
	res.Phases["predict"] = time.Since(tp).Seconds()
	for i, p := range pred {
		res.TrainMSE += (p - Y[i]) * (p - Y[i]) / float64(n)
	}
	return res, nil
}

func printBench(w io.Writer, rep benchReport, cfg benchConfig) {
	b := rep.Backend
	fmt.Fprintf(w, "backend: %s; GOMAXPROCS %d", b.Summary, b.GOMAXPROCS)
	if b.CoreTypeSource != "" {
		fmt.Fprintf(w, "; core type from %s", b.CoreTypeSource)
	}
	fmt.Fprintln(w)
	if b.Note != "" {
		fmt.Fprintf(w, "note: %s\n", b.Note)
	}
	c := rep.CPU
	fmt.Fprintf(w, "cpu: %s (family %d, model %d), %d CPUs; %s\n", c.Name, c.Family, c.Model, c.CPUs,
		strings.Join(c.Features, " "))
	fmt.Fprintf(w, "\nGEMM  n=%d: %.1f GFLOP/s (%.3fs)\n", rep.GEMM.N, rep.GEMM.GFLOPS, rep.GEMM.Seconds)
	fmt.Fprintf(w, "Gram  ZᵀZ by learn.Accumulate (map + Gram), %d features × %d rows: %.1f GFLOP/s (%.3fs) = %.0f%% of GEMM\n",
		rep.Gram.N, rep.Gram.K, rep.Gram.GFLOPS, rep.Gram.Seconds, 100*rep.GramOverGEMM)
	fmt.Fprintf(w, "Syrk  n=%d, k=%d (one call): %.1f GFLOP/s (%.3fs)\n", rep.GramSyrk.N, rep.GramSyrk.K,
		rep.GramSyrk.GFLOPS, rep.GramSyrk.Seconds)
	fmt.Fprintln(w, "\nGram in the shape of its updates (GFLOP/s, real flops: 2kF² for dgemm, kF² for the triangle, NF² fused):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "F\tk\tdgemm\tdsyrk\tfused (N rows)\tsyrk/gemm\tfused/gemm\t")
	for _, g := range rep.Grams {
		fmt.Fprintf(tw, "%d\t%d\t%.1f\t%.1f\t%.1f (%d)\t%.0f%%\t%.0f%%\t\n", g.Features, g.Chunk, g.GEMM.GFLOPS,
			g.Syrk.GFLOPS, g.Fused.GFLOPS, g.Rows, 100*g.SyrkOverGEMM, 100*g.FusedOverGEMM)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nmap: %d rows of U[0,1)^d, Gaussian kernel γ = 1/d, about %d points (cos/sin: 2D columns; SR rules round up to whole rules of d+1 points)\n",
		cfg.mapRows, cfg.mapPoints)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "d\trule\tD\trows/s\tns/(row·point)\tvs g\tdraw s\t")
	for _, m := range rep.Map {
		var g float64
		for _, o := range rep.Map {
			if o.Dim == m.Dim && o.Rule == "g" {
				g = o.NsPerRowPoint
			}
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%.4g\t%.3g\t%.2f×\t%.3g\t\n", m.Dim, m.Rule, m.Points, m.RowsPerSec,
			m.NsPerRowPoint, g/m.NsPerRowPoint, m.DrawSeconds)
	}
	tw.Flush()
	kg := rep.KernelGram
	fmt.Fprintf(w, "\nkernel matrix %d rows × %d centres, d = %d, pixels/255: %.1f GFLOP/s (%.3fs) on the grid, "+
		"%.1f GFLOP/s (%.3fs) moved off it: %.2f×\n", kg.Rows, kg.Centres, kg.Dim, kg.Grid.GFLOPS, kg.Grid.Seconds,
		kg.Double.GFLOPS, kg.Double.Seconds, kg.Speedup)
	f := rep.Fit
	fmt.Fprintf(w, "\nfit: %d×%d Gaussian inputs, kernel %s (γ = 1/d), rule %s, D = %d points (%d columns), λ = %g\n",
		f.N, f.Dim, f.Kernel, f.Rule, f.Points, f.Features, f.Lambda)
	for _, p := range []string{"draw", "features_gram", "solve", "predict"} {
		fmt.Fprintf(w, "  %-14s %8.3fs\n", p, f.Phases[p])
	}
	fmt.Fprintf(w, "  %-14s %8.3fs (draw + features_gram + solve, %s; train MSE %.4g)\n", "fit", f.Seconds, f.Method,
		f.TrainMSE)
	fmt.Fprintf(w, "\ntotal %.1fs", rep.Seconds)
	if rep.LoadAverage[0] != "" {
		fmt.Fprintf(w, "; load average %s before, %s after", rep.LoadAverage[0], rep.LoadAverage[1])
	}
	fmt.Fprintln(w)
}
