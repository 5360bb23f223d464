package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// mixedProblem is n rows of d = 6 Gaussian inputs with P = 3 smooth targets and a Gaussian map of D points.
func mixedProblem(t *testing.T, n, D int) (*feature.Map, []float64, []float64) {
	t.Helper()
	const d, P = 6, 3
	rng := rand.New(rand.NewPCG(7, 7))
	X := make([]float64, n*d)
	Y := make([]float64, n*P)
	for i := range n {
		var s float64
		for j := range d {
			X[i*d+j] = rng.NormFloat64()
			s += X[i*d+j]
		}
		Y[i*P], Y[i*P+1], Y[i*P+2] = math.Sin(s), math.Cos(X[i*d]), 0.1*rng.NormFloat64()
	}
	m, err := feature.New(kernel.Gaussian{S: 2}, rule.G{}, d, D, 3)
	if err != nil {
		t.Fatal(err)
	}
	return m, X, Y
}

// condition returns the 2-norm condition number of the system Solve factorises for s and r.
func condition(t *testing.T, s *Stats, r Ridge) float64 {
	t.Helper()
	A, _ := s.NormalEquations(r.Intercept)
	for i := range s.F {
		A[i*s.F+i] += float64(s.N) * r.Lambda
	}
	ev, _, err := linalg.EigenSym(s.F, A)
	if err != nil {
		t.Fatal(err)
	}
	return ev[len(ev)-1] / ev[0]
}

// TestMixedMatchesDouble: the mixed-precision fit must reach the double-precision solution. Both are backward
// stable: each solves (A + ΔA)θ = B with ‖ΔA‖ ≤ (n·F + 4F)·u·‖A‖ (u = 2⁻⁵³; the Gram or the residual accumulated
// over n rows of features with ‖|Z|ᵀ|Z|‖ ≤ trace ZᵀZ ≤ F‖A‖, plus the Cholesky and dsposv's test), so
// ‖θ_mixed − θ_double‖/‖θ_double‖ ≤ 2·cond(A)·(n·F + 4F)·u. A float32 solution without refinement misses this by
// orders of magnitude (its error is cond(A)·‖A − M‖/‖A‖ with ‖A − M‖ ≳ 2⁻²⁴·‖A‖/√n), so the test fails if the
// refinement is broken; refinement must take at least one step, since the float32 Gram cannot meet dsposv's test.
func TestMixedMatchesDouble(t *testing.T) {
	const n, D, P = 3000, 256, 3
	m, X, Y := mixedProblem(t, n, D)
	F := m.Features()
	for _, tc := range []struct {
		lambda    float64
		intercept bool
	}{{1e-6, true}, {1e-4, false}, {1e-8, true}} {
		dbl := Ridge{Lambda: tc.lambda, Intercept: tc.intercept}
		mix := dbl
		mix.Precision = Mixed
		want, err := dbl.FitMap(m, X, n, Y, P)
		if err != nil {
			t.Fatal(err)
		}
		got, err := mix.FitMap(m, X, n, Y, P)
		if err != nil {
			t.Fatal(err)
		}
		if got.Stats.Method != "mixed" || got.Stats.Note != "" {
			t.Fatalf("λ = %g: method %q, note %q; want mixed", tc.lambda, got.Stats.Method, got.Stats.Note)
		}
		if it := got.Stats.Iterations; it < 1 || it > mixedMaxSteps {
			t.Errorf("λ = %g: %d refinement steps, want 1..%d", tc.lambda, it, mixedMaxSteps)
		}
		s, err := Accumulate(m, X, n, Y, P)
		if err != nil {
			t.Fatal(err)
		}
		cond := condition(t, s, dbl)
		bound := 2 * cond * float64(n*F+4*F) * 0x1p-53
		if d := relDiff(got.Theta, want.Theta); !(d <= bound) {
			t.Errorf("λ = %g (cond %.3g): ‖θ_mixed − θ_double‖/‖θ_double‖ = %.3g > %.3g", tc.lambda, cond, d, bound)
		}
		if d := relDiff(got.Bias, want.Bias); tc.intercept && !(d <= bound) {
			t.Errorf("λ = %g: bias differs by %.3g > %.3g", tc.lambda, d, bound)
		}
		if !(got.Stats.Residual <= bound) {
			t.Errorf("λ = %g: residual %.3g", tc.lambda, got.Stats.Residual)
		}
	}
}

// TestMixedFallback: with cond(A) far beyond 1/(2·2⁻²⁴) — here fewer rows than features and a tiny λ — the float32
// Gram cannot be refined, and the fit must fall back to the double-precision statistics of the same features — the
// bits of the Double fit — and say so.
func TestMixedFallback(t *testing.T) {
	const n, D, P = 400, 256, 3
	m, X, Y := mixedProblem(t, n, D)
	r := Ridge{Lambda: 1e-13, Intercept: true}
	want, err := r.FitMap(m, X, n, Y, P)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Accumulate(m, X, n, Y, P)
	if err != nil {
		t.Fatal(err)
	}
	if c := condition(t, s, r); c < 1e10 {
		t.Fatalf("cond = %.3g: the problem is not ill-conditioned enough for the test", c)
	}
	r.Precision = Mixed
	got, err := r.FitMap(m, X, n, Y, P)
	if err != nil {
		t.Fatal(err)
	}
	if got.Stats.Method != "cholesky" || !strings.Contains(got.Stats.Note, "solved in double precision") {
		t.Fatalf("method %q, note %q; want a fallback to cholesky", got.Stats.Method, got.Stats.Note)
	}
	for i := range want.Theta {
		if got.Theta[i] != want.Theta[i] {
			t.Fatalf("θ[%d] = %v after the fallback, want the Double fit's %v", i, got.Theta[i], want.Theta[i])
		}
	}
	// λ = 0 on fewer rows than features: singular in every precision, an error rather than a fit.
	r.Lambda = 0
	if _, err := r.FitMap(m, X[:100*6], 100, Y[:100*P], P); err == nil {
		t.Fatal("λ = 0 with 100 rows and 512 features: no error")
	}
}

// TestPrecisionAuto: Auto's choice in every case of its rule, with the machine's memory read from MemTotal — a
// constant of the machine — and not from MemAvailable, which changes from run to run (and with it the bits).
func TestPrecisionAuto(t *testing.T) {
	mi := filepath.Join(t.TempDir(), "meminfo")
	if err := os.WriteFile(mi, []byte("MemTotal:       16777216 kB\nMemFree:  1024 kB\nMemAvailable:   2048 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := meminfoBytes(mi, "MemTotal:"); got != 16<<30 {
		t.Errorf("MemTotal read as %d bytes, want %d", got, int64(16<<30))
	}
	if total := meminfoBytes("/proc/meminfo", "MemTotal:"); total > 0 && memTotal() != total {
		t.Errorf("memTotal() = %d, MemTotal = %d", memTotal(), total)
	}
	defer func(m func() int64, f func() bool, c func() MixedCost) {
		memTotal, fastFloat32, mixedCost = m, f, c
	}(memTotal, fastFloat32, mixedCost)
	const n, F, D = 60000, 8192, 4096 // MNIST: 1.97 GB of projections
	avx512, avx2 := DefaultMixedCost(512), DefaultMixedCost(256)
	slowAct := avx512
	slowAct.Activate *= 50 // a nonlinearity far dearer than cos/sin
	for _, tc := range []struct {
		name    string
		r       Ridge
		mem     int64
		fast    bool
		cost    MixedCost
		n, F, P int
		want    bool
	}{
		{"mnist", Ridge{Lambda: 1e-6, Precision: Auto}, 16 << 30, true, avx512, n, F, 10, true},
		{"mnist, AVX2", Ridge{Lambda: 1e-6, Precision: Auto}, 16 << 30, true, avx2, n, F, 10, true},
		{"target 1: 100000 rows, F = 2048", Ridge{Lambda: 1e-6, Precision: Auto}, 16 << 30, true, avx512, 100000, 2048, 1, true},
		{"memory unknown: 4 GiB", Ridge{Lambda: 1e-6, Precision: Auto}, 0, true, avx512, n, F, 1, true},
		{"half the memory too small", Ridge{Lambda: 1e-6, Precision: Auto}, 3 << 30, true, avx512, n, F, 1, false},
		{"no fast float32", Ridge{Lambda: 1e-6, Precision: Auto}, 16 << 30, false, avx512, n, F, 1, false},
		{"few features", Ridge{Lambda: 1e-6, Precision: Auto}, 16 << 30, true, avx512, n, MixedMinFeatures - 2, 1, false},
		{"as many outputs as features", Ridge{Lambda: 1e-6, Precision: Auto}, 16 << 30, true, avx512, n, 2048, 2048, false},
		{"refinement too dear", Ridge{Lambda: 1e-6, Precision: Auto}, 16 << 30, true, slowAct, n, F, 1, false},
		{"λ = 0", Ridge{Precision: Auto}, 16 << 30, true, avx512, n, F, 1, false},
		{"cg", Ridge{Lambda: 1e-6, Solver: CG, Precision: Auto}, 16 << 30, true, avx512, n, F, 1, false},
		{"double", Ridge{Lambda: 1e-6}, 16 << 30, true, avx512, n, F, 1, false},
		{"mixed", Ridge{Precision: Mixed}, 0, false, slowAct, n, 2, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			memTotal = func() int64 { return tc.mem }
			fastFloat32 = func() bool { return tc.fast }
			mixedCost = func() MixedCost { return tc.cost }
			if got := tc.r.mixed(tc.n, tc.F, tc.F/2, tc.P); got != tc.want {
				t.Errorf("mixed = %v, want %v (model: double %.3g s, mixed %.3g s)", got, tc.want,
					tc.cost.Double(tc.n, tc.F), tc.cost.Mixed(tc.n, tc.F, tc.F/2, tc.P))
			}
		})
	}
}

// TestMixedCostBreakEven: for a cos/sin map (F = 2D) the model's condition Mixed ≤ 0.9·Double is, per row,
// F²·(0.9 − 1/Speed32)/Rate64 ≥ F·(4·Touch + Passes·(Activate/2 + 2·P·MultiplyAdd)): Auto chooses Mixed exactly
// from F* = Rate64·(4·Touch + Passes·(Activate/2 + 2·P·MultiplyAdd))/(0.9 − 1/Speed32) on, whatever N. F* is
// higher for the faster AVX-512 Gram (the saving is smaller next to the same refinement) and grows with P.
func TestMixedCostBreakEven(t *testing.T) {
	for _, bits := range []int{256, 512} {
		c := DefaultMixedCost(bits)
		for _, P := range []int{1, 10} {
			fstar := c.Rate64 * (4*c.Touch + c.Passes*(c.Activate/2+2*float64(P)*c.MultiplyAdd)) / (0.9 - 1/c.Speed32)
			lo, hi := 2*int(math.Floor(fstar/2*0.99)), 2*int(math.Ceil(fstar/2*1.01))
			for _, n := range []int{1000, 100000} {
				if c.Pays(n, lo, lo/2, P) || !c.Pays(n, hi, hi/2, P) {
					t.Errorf("%d bits, P = %d, N = %d: F* = %.0f, but Pays(F = %d) = %v, Pays(F = %d) = %v", bits, P, n,
						fstar, lo, c.Pays(n, lo, lo/2, P), hi, c.Pays(n, hi, hi/2, P))
				}
			}
		}
	}
	if a, b := DefaultMixedCost(256), DefaultMixedCost(512); !(a.Rate64 < b.Rate64) {
		t.Errorf("AVX2 rate %g not below the AVX-512 rate %g", a.Rate64, b.Rate64)
	}
}

func TestParsePrecision(t *testing.T) {
	for _, p := range []Precision{Double, Mixed, Auto} {
		if q, err := ParsePrecision(p.String()); err != nil || q != p {
			t.Errorf("ParsePrecision(%q) = %v, %v", p.String(), q, err)
		}
	}
	if _, err := ParsePrecision("single"); err == nil {
		t.Error("ParsePrecision(single): no error")
	}
	if err := (Ridge{Solver: CG, Precision: Mixed}).validParams(); err == nil {
		t.Error("Mixed with CG: no error")
	}
	if err := (Ridge{Precision: Precision(9)}).validParams(); err == nil {
		t.Error("Precision(9): no error")
	}
}

// TestGramApply checks the residual's product Zᵀ(Zθ) from the stored projections, on the row-by-row path (P <
// applyGemmMinP) and the packed products, against plain loops over the features: each entry is a sum of n·F
// products, so the two differ by at most γ_{n+F}·(|Z|ᵀ(|Z||θ|)) entry by entry (Higham, Accuracy and Stability of
// Numerical Algorithms, §3.5), γ_k = k·u/(1 − k·u), u = 2⁻⁵³.
func TestGramApply(t *testing.T) {
	const n, D = 1100, 64
	m, X, _ := mixedProblem(t, n, D)
	F, pts := m.Features(), m.Points()
	proj := make([]float64, n*pts)
	Z := make([]float64, n*F)
	for b := 0; b < n; b += 256 {
		rows := min(256, n-b)
		m.ProjectBlock(proj[b*pts:], X[b*6:], rows)
		m.ActivateBlock(Z[b*F:], proj[b*pts:], rows)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for _, P := range []int{1, 3, applyGemmMinP, 12} {
		t.Run(strconv.Itoa(P), func(t *testing.T) {
			theta := make([]float64, F*P)
			for i := range theta {
				theta[i] = rng.NormFloat64()
			}
			got := make([]float64, F*P)
			gramApply(got, m, proj, n, theta, P)
			k := float64(n + F)
			gamma := k * 0x1p-53 / (1 - k*0x1p-53)
			for j := range P {
				T, A := make([]float64, n), make([]float64, n)
				for r := range n {
					for i := range F {
						T[r] += Z[r*F+i] * theta[i*P+j]
						A[r] += math.Abs(Z[r*F+i] * theta[i*P+j])
					}
				}
				for i := range F {
					var want, bound float64
					for r := range n {
						want += Z[r*F+i] * T[r]
						bound += math.Abs(Z[r*F+i]) * A[r]
					}
					if d := math.Abs(got[i*P+j] - want); !(d <= gamma*bound) {
						t.Fatalf("P = %d: entry (%d, %d) = %v, want %v ± %.3g", P, i, j, got[i*P+j], want, gamma*bound)
					}
				}
			}
		})
	}
}

// ExampleMixedCost shows where Auto chooses mixed precision for a cos/sin map (F = 2D, one output) with the rates
// assumed for AVX-512 and AVX2 Gram kernels: from about 1500 features on with AVX-512, from fewer with AVX2 (Auto
// never considers fewer than MixedMinFeatures), since the faster AVX-512 Gram leaves less to save next to the same
// refinement.
func ExampleMixedCost() {
	for _, bits := range []int{512, 256} {
		c := DefaultMixedCost(bits)
		fmt.Printf("%d-bit kernels:", bits)
		for _, F := range []int{1024, 1536, 2048, 8192} {
			fmt.Printf(" F=%d %v", F, c.Pays(100000, F, F/2, 1))
		}
		fmt.Println()
	}
	// Output:
	// 512-bit kernels: F=1024 false F=1536 true F=2048 true F=8192 true
	// 256-bit kernels: F=1024 true F=1536 true F=2048 true F=8192 true
}

// TestMixedDeterministic: the mixed-precision fit (one float32 Gram matrix updated chunk after chunk, residuals
// summed over fixed shards) gives the same bits for every GOMAXPROCS.
func TestMixedDeterministic(t *testing.T) {
	const n, D, P = 3000, 600, 2
	m, X, Y := mixedProblem(t, n, D)
	Y2 := make([]float64, n*P)
	for i := range n {
		Y2[i*P], Y2[i*P+1] = Y[i*3], Y[i*3+1]
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var ref []float64
	for _, procs := range []int{1, 2, 5} {
		runtime.GOMAXPROCS(procs)
		fit, err := Ridge{Lambda: 1e-6, Intercept: true, Precision: Mixed}.FitMap(m, X, n, Y2, P)
		if err != nil {
			t.Fatal(err)
		}
		if fit.Stats.Method != "mixed" {
			t.Fatalf("method %q, note %q", fit.Stats.Method, fit.Stats.Note)
		}
		got := append(slices.Clone(fit.Theta), fit.Bias...)
		if ref == nil {
			ref = got
		} else if !slices.Equal(got, ref) {
			t.Errorf("GOMAXPROCS=%d: θ and bias differ from GOMAXPROCS=1", procs)
		}
	}
}
