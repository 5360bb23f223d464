package learn

import (
	"math"
	"math/rand/v2"
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

func TestPrecisionAuto(t *testing.T) {
	defer func(m func() int64, f func() bool) { memAvailable, fastFloat32 = m, f }(memAvailable, fastFloat32)
	const n, F, D = 60000, 8192, 4096 // MNIST: 1.97 GB of projections
	for _, tc := range []struct {
		name string
		r    Ridge
		mem  int64
		fast bool
		F    int
		want bool
	}{
		{"mnist", Ridge{Lambda: 1e-6, Precision: Auto}, 16 << 30, true, F, true},
		{"memory unknown: 4 GiB", Ridge{Lambda: 1e-6, Precision: Auto}, 0, true, F, true},
		{"half the memory too small", Ridge{Lambda: 1e-6, Precision: Auto}, 3 << 30, true, F, false},
		{"no fast float32", Ridge{Lambda: 1e-6, Precision: Auto}, 16 << 30, false, F, false},
		{"few features", Ridge{Lambda: 1e-6, Precision: Auto}, 16 << 30, true, MixedMinFeatures - 2, false},
		{"λ = 0", Ridge{Precision: Auto}, 16 << 30, true, F, false},
		{"cg", Ridge{Lambda: 1e-6, Solver: CG, Precision: Auto}, 16 << 30, true, F, false},
		{"double", Ridge{Lambda: 1e-6}, 16 << 30, true, F, false},
		{"mixed", Ridge{Precision: Mixed}, 0, false, 2, true},
	} {
		memAvailable = func() int64 { return tc.mem }
		fastFloat32 = func() bool { return tc.fast }
		if got := tc.r.mixed(n, tc.F, D); got != tc.want {
			t.Errorf("%s: mixed = %v, want %v", tc.name, got, tc.want)
		}
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
