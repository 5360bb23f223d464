package approx

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/misusetest"
	"github.com/rffkit/rff/internal/structured"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// gaussianRows returns n rows of d standard normal coordinates (standardized data).
func gaussianRows(n, d int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 2))
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// bruteGrid is E_grid[cos(ωᵀδ)] by enumerating all m^d points of the tensor grid, each with its product weight and
// its frequency ω_i = Scale·T(z_{k_i}) — what the gq rule samples, with no product formula.
func bruteGrid(law kernel.Law, m int, delta []float64) float64 {
	nodes, weights := structured.GaussHermite(m)
	d := len(delta)
	idx := make([]int, d)
	var sum float64
	for {
		w, dot := 1.0, 0.0
		for i, k := range idx {
			z := nodes[k]
			if law.Coord != nil {
				z = law.Coord(z)
			}
			w *= weights[k]
			dot += law.Scale * z * delta[i]
		}
		sum += w * math.Cos(dot)
		i := 0
		for ; i < d; i++ {
			if idx[i]++; idx[i] < m {
				break
			}
			idx[i] = 0
		}
		if i == d {
			return sum
		}
	}
}

func floorKernels() []kernel.Spectral {
	return []kernel.Spectral{kernel.Gaussian{S: 0.7}, kernel.Laplacian{S: 1.3}, kernel.Cauchy{S: 0.9}}
}

// TestGQKernelBruteForce: the product formula Π_i Σ_k w_k cos(Scale·T(z_k)δ_i) equals the average of cos(ωᵀδ) over
// the full m^d grid, and GQFloor equals ‖K − K_grid‖_F/‖K‖_F of the enumerated grid. Both sides sum at most 5³
// terms of magnitude ≤ 1, so they agree to 125·2⁻⁵² < 3e-14 plus the cosines' own ulps: 1e-13 absolute, and 1e-12
// relative for the floor (a ratio of sums of such entries).
func TestGQKernelBruteForce(t *testing.T) {
	for _, k := range floorKernels() {
		for d := 1; d <= 3; d++ {
			for m := 1; m <= 5; m++ {
				g, err := GQKernel(k, m)
				if err != nil {
					t.Fatal(err)
				}
				const n = 7
				X, Y := gaussianRows(n, d, uint64(10*d+m)), gaussianRows(n, d, uint64(100+10*d+m))
				K := make([]float64, n*n)
				G := make([]float64, n*n)
				delta := make([]float64, d)
				for i := range n {
					for j := range n {
						x, y := X[i*d:(i+1)*d], Y[j*d:(j+1)*d]
						for c := range delta {
							delta[c] = x[c] - y[c]
						}
						want := bruteGrid(k.Law(), m, delta)
						if got := g.Eval(x, y); math.Abs(got-want) > 1e-13 {
							t.Errorf("%s d=%d m=%d: K_grid(δ=%v) = %v, grid enumeration %v", k.Name(), d, m, delta, got, want)
						}
						K[i*n+j], G[i*n+j] = k.Eval(x, y), want
					}
				}
				want, _ := Compare(K, G)
				got, err := GQFloor(k, m, X, n, Y, n, d)
				if err != nil || math.Abs(got-want.RelFrobenius) > 1e-12*want.RelFrobenius+1e-15 {
					t.Errorf("%s d=%d m=%d: GQFloor = %v (%v), enumeration %v", k.Name(), d, m, got, err, want.RelFrobenius)
				}
			}
		}
	}
	// The default degree is 2, as for rule.GQ.
	k := kernel.Gaussian{S: 1}
	X := gaussianRows(9, 2, 1)
	a, _ := GQFloor(k, 0, X, 9, X, 9, 2)
	b, _ := GQFloor(k, 2, X, 9, X, 9, 2)
	if a != b || !(a > 0) {
		t.Errorf("degree 0 gives floor %v, degree 2 gives %v: 0 must mean the default 2", a, b)
	}
}

// TestGQKernelExactDegree: the m-node Gauss–Hermite rule is exact for polynomials of degree ≤ 2m − 1 and integrates
// z^{2m} to (2m−1)!! − m! (its remainder m!/(2m)!·f^{(2m)}), so in one dimension the Gaussian's grid kernel differs
// from exp(−a²/2), a = δ/σ, first at order a^{2m}:
//
//	K_grid − K = (−1)^{m+1} m!/(2m)! · a^{2m} · (1 + r),
//
// where the next term of the cosine series bounds |r| ≤ a²·(2m+1)!!·(2m)!/((2m+2)!·m!) (the grid's moment of z^{2m+2}
// lies in [0, (2m+1)!!]); the test allows twice that for the terms after it (a ≤ 0.2 makes them geometric with
// ratio < 0.05).
func TestGQKernelExactDegree(t *testing.T) {
	for m := 1; m <= 6; m++ {
		for _, a := range []float64{0.2, 0.1} {
			k := kernel.Gaussian{S: 1}
			g, err := GQKernel(k, m)
			if err != nil {
				t.Fatal(err)
			}
			diff := g.Eval([]float64{a}, []float64{0}) - math.Exp(-a*a/2)
			lead := math.Pow(-1, float64(m+1)) * factorial(m) / factorial(2*m) * math.Pow(a, float64(2*m))
			bound := 2 * a * a * doubleFactorial(2*m+1) * factorial(2*m) / (factorial(2*m+2) * factorial(m))
			// Rounding: diff is a difference of two numbers near 1, good to a few ulps.
			if r := diff/lead - 1; math.Abs(r) > bound+8e-16/math.Abs(lead) {
				t.Errorf("m=%d a=%v: K_grid − K = %.6g, leading term %.6g (relative gap %.3g > %.3g)", m, a, diff, lead, r, bound)
			}
		}
	}
}

func factorial(n int) float64 {
	f := 1.0
	for i := 2; i <= n; i++ {
		f *= float64(i)
	}
	return f
}

func doubleFactorial(n int) float64 {
	f := 1.0
	for i := n; i > 1; i -= 2 {
		f *= float64(i)
	}
	return f
}

// gqVariance is V = Σ_ij Var_grid[cos(ωᵀδ_ij)] / ‖K‖²_F, with Var = (1 + K_grid(2δ))/2 − K_grid(δ)² (cos² = (1 +
// cos 2·)/2). A cos/sin map of D grid points has K̂_ij = (1/D)Σ_j cos(ω_jᵀδ_ij) with ω_j iid on the grid, so
// E[e²] = floor² + V/D exactly for the relative Frobenius error e.
func gqVariance(t *testing.T, k kernel.Kernel, m int, X []float64, nx int, Y []float64, ny, d int) float64 {
	t.Helper()
	g, err := GQKernel(k, m)
	if err != nil {
		t.Fatal(err)
	}
	var v, den float64
	x2, y2 := make([]float64, d), make([]float64, d)
	for i := range nx {
		for j := range ny {
			x, y := X[i*d:(i+1)*d], Y[j*d:(j+1)*d]
			for c := range d {
				x2[c], y2[c] = 2*x[c], 2*y[c]
			}
			kg := g.Eval(x, y)
			v += (1+g.Eval(x2, y2))/2 - kg*kg
			kv := k.Eval(x, y)
			den += kv * kv
		}
	}
	return v / den
}

// gqErrors returns the relative Frobenius error of `runs` independent gq maps with D points.
func gqErrors(t *testing.T, k kernel.Kernel, m int, X []float64, nx int, Y []float64, ny, d, D, runs int) []float64 {
	t.Helper()
	K := make([]float64, nx*ny)
	if err := kernel.Gram(K, k, X, nx, Y, ny, d); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, runs)
	khat := make([]float64, nx*ny)
	for r := range runs {
		mp, err := feature.New(k, rule.GQ{Degree: m}, d, D, uint64(1000+r))
		if err != nil {
			t.Fatal(err)
		}
		F := mp.Features()
		zx, zy := make([]float64, nx*F), make([]float64, ny*F)
		mp.TransformBlock(zx, X, nx, nil)
		mp.TransformBlock(zy, Y, ny, nil)
		for i := range nx {
			for j := range ny {
				s := mp.Offset()
				for c := range F {
					s += zx[i*F+c] * zy[j*F+c]
				}
				khat[i*ny+j] = s
			}
		}
		e, err := Compare(K, khat)
		if err != nil {
			t.Fatal(err)
		}
		out[r] = e.RelFrobenius
	}
	return out
}

func meanSE(v []float64) (mean, se float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1) / float64(len(v)))
}

type floorCase struct {
	k kernel.Kernel
	m int
}

func floorCases() []floorCase {
	return []floorCase{
		{kernel.Gaussian{S: 1}, 2}, {kernel.Gaussian{S: 1}, 3}, {kernel.Laplacian{S: 1.5}, 2}, {kernel.Cauchy{S: 1}, 4},
	}
}

// TestGQMeanSquaredError: the mean of e² over runs of the gq rule is floor² + V/D (gqVariance), both where the Monte
// Carlo term dominates (D = 8) and where the floor does (D = 1000), within 4 standard errors of the mean of e².
func TestGQMeanSquaredError(t *testing.T) {
	const d, nx, ny, runs = 3, 25, 20, 400
	X, Y := gaussianRows(nx, d, 21), gaussianRows(ny, d, 22)
	for _, c := range floorCases() {
		f, err := GQFloor(c.k, c.m, X, nx, Y, ny, d)
		if err != nil {
			t.Fatal(err)
		}
		V := gqVariance(t, c.k, c.m, X, nx, Y, ny, d)
		for _, D := range []int{8, 1000} {
			es := gqErrors(t, c.k, c.m, X, nx, Y, ny, d, D, runs)
			sq := make([]float64, runs)
			for i, e := range es {
				sq[i] = e * e
			}
			mean, se := meanSE(sq)
			want := f*f + V/float64(D)
			t.Logf("%s gq:%d D=%d: mean e² %.6g ± %.2g, floor² + V/D = %.6g (floor² %.4g)", c.k.Name(), c.m, D, mean, se, want, f*f)
			if math.Abs(mean-want) > 4*se {
				t.Errorf("%s gq:%d D=%d: mean e² = %.6g ± %.2g, want floor² + V/D = %.6g² + %.4g/%d = %.6g",
					c.k.Name(), c.m, D, mean, se, f, V, D, want)
			}
		}
	}
}

// TestGQConvergesToFloor: through Study, the mean error of the gq rule at large D sits on the floor: E e ≥ floor
// (Jensen: ‖·‖_F is convex and E K̂ = K_grid) and E e ≤ √(floor² + V/D) ≤ floor + V/(2D·floor), so the mean over
// runs must lie in [floor − 4 SE, floor + V/(2D·floor) + 4 SE]. The window is checked to be narrow against the floor,
// so that a floor of zero (an unbiased rule) or of another degree would fail.
func TestGQConvergesToFloor(t *testing.T) {
	const d, nx, ny, runs, n = 3, 30, 25, 100, 500 // D = 2n(d+1) = 4000
	X, Y := gaussianRows(nx, d, 31), gaussianRows(ny, d, 32)
	for _, c := range floorCases() {
		f, err := GQFloor(c.k, c.m, X, nx, Y, ny, d)
		if err != nil {
			t.Fatal(err)
		}
		V := gqVariance(t, c.k, c.m, X, nx, Y, ny, d)
		st := Study{Kernel: c.k, Rules: []rule.Rule{rule.GQ{Degree: c.m}}, Ns: []int{1, n}, Runs: runs, Seed: 5}
		res, err := st.Run(context.Background(), X, nx, Y, ny, d)
		if err != nil {
			t.Fatal(err)
		}
		small, large := res[0], res[1]
		D := float64(large.D)
		se := large.Std / math.Sqrt(runs)
		lo, hi := f-4*se, f+V/(2*D*f)+4*se
		t.Logf("%s gq:%d D=%v: mean %.6g, window [%.6g, %.6g], floor %.6g", c.k.Name(), c.m, D, large.Mean, lo, hi, f)
		if hi-lo > 0.1*f {
			t.Fatalf("%s gq:%d: window [%v, %v] is too wide against the floor %v to test anything", c.k.Name(), c.m, lo, hi, f)
		}
		if large.Mean < lo || large.Mean > hi {
			t.Errorf("%s gq:%d D=%v: mean error %.6g ± %.2g, want within [%.6g, %.6g] around the floor %.6g",
				c.k.Name(), c.m, D, large.Mean, se, lo, hi, f)
		}
		// At D = 8 the Monte Carlo term dominates: the error is well above the floor.
		if !(small.CI95[0] > f) {
			t.Errorf("%s gq:%d n=1: error %v %v not above the floor %v", c.k.Name(), c.m, small.Mean, small.CI95, f)
		}
	}
}

// TestGQFloorShrinksWithDegree: on standardized data with the default bandwidth σ = √(d/2), the floor falls as the
// degree grows (exactness up to degree 2m − 1 per coordinate); for the Gaussian, whose integrand is entire, it
// falls below 1e-9 by m = 32.
func TestGQFloorShrinksWithDegree(t *testing.T) {
	const d, n = 4, 40
	X, Y := gaussianRows(n, d, 41), gaussianRows(n, d, 42)
	s := math.Sqrt(d / 2.0)
	for _, k := range []kernel.Kernel{kernel.Gaussian{S: s}, kernel.Laplacian{S: s}, kernel.Cauchy{S: s}} {
		prev := math.Inf(1)
		for _, m := range []int{2, 4, 8, 16, 32} {
			f, err := GQFloor(k, m, X, n, Y, n, d)
			if err != nil {
				t.Fatal(err)
			}
			if !(f < prev) {
				t.Errorf("%s: floor %v at degree %d, not below %v at the previous degree", k.Name(), f, m, prev)
			}
			t.Logf("%s degree %d: floor %.4g", k.Name(), m, f)
			prev = f
		}
		if _, ok := k.(kernel.Gaussian); ok && !(prev < 1e-9) {
			t.Errorf("gaussian: floor %v at degree 32, want < 1e-9", prev)
		}
	}
}

// TestGQFloorDeterministic: the floor does not depend on the number of cores, and equals the direct evaluation of
// GQKernel when the rows of Y span several tables (d = 64, degree 64: 32 frequencies, 4096 table entries a row,
// 1024 rows a table). The two differ by rounding: each factor Σ_k w_k cos(c_k δ_i), a sum of terms of total
// magnitude ≤ Σ w_k = 1, is good to (2·32 + 4) ulps of 1 in either form, so relatively to 68 ulps / f_min, with
// f_min ≈ min 1/(1 + δ_i²/σ²) the smallest factor; a grid entry is good to d·68/f_min ulps, and the error
// ‖K − K_grid‖_F moves by at most twice that times ‖K_grid‖_F.
func TestGQFloorDeterministic(t *testing.T) {
	X := gaussianRows(50, 3, 51)
	k := kernel.Laplacian{S: 1}
	a, _ := GQFloor(k, 3, X, 50, X, 50, 3)
	func() {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		b, _ := GQFloor(k, 3, X, 50, X, 50, 3)
		if a != b {
			t.Errorf("floor %v on all cores, %v on one", a, b)
		}
	}()

	const d, nx, ny = 64, 3, 2100
	Xb, Yb := gaussianRows(nx, d, 52), gaussianRows(ny, d, 53)
	kc := kernel.Cauchy{S: 4}
	if per := 2 * d * 32; gqTableFloats/per >= ny {
		t.Fatalf("a table holds %d rows: the test needs more than one", gqTableFloats/per)
	}
	got, err := GQFloor(kc, 64, Xb, nx, Yb, ny, d)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := GQKernel(kc, 64)
	K, G := make([]float64, nx*ny), make([]float64, nx*ny)
	fmin := 1.0
	for i := range nx {
		for j := range ny {
			x, y := Xb[i*d:(i+1)*d], Yb[j*d:(j+1)*d]
			K[i*ny+j], G[i*ny+j] = kc.Eval(x, y), g.Eval(x, y)
			for c := range d {
				fmin = math.Min(fmin, kc.Eval(x[c:c+1], y[c:c+1]))
			}
		}
	}
	want, _ := Compare(K, G)
	var gg, kk float64
	for i := range G {
		gg += G[i] * G[i]
		kk += K[i] * K[i]
	}
	tol := 2 * d * 68 / (fmin / 2) * 0x1p-53 * math.Sqrt(gg/kk) // fmin/2: the grid's factors are within a few % of κ's
	t.Logf("cauchy gq:64, d = %d: floor %.9g over several tables, %.9g direct (tolerance %.2g, smallest factor %.3g)", d, got, want.RelFrobenius, tol, fmin)
	if math.Abs(got-want.RelFrobenius) > tol || !(want.RelFrobenius > 100*tol) {
		t.Errorf("floor over several tables %v, direct %v", got, want.RelFrobenius)
	}
}

// TestGQFloorErrors: kernels without a product-form grid quadrature get ErrNoFloor; bad degrees, shapes, nil
// kernels and a zero bandwidth get errors.
func TestGQFloorErrors(t *testing.T) {
	X := gaussianRows(4, 2, 61)
	for _, k := range []kernel.Kernel{kernel.Matern{Nu: 1.5, S: 1}, kernel.ArcCos{Order: 1}} {
		if _, err := GQFloor(k, 2, X, 2, X, 2, 2); !errors.Is(err, ErrNoFloor) {
			t.Errorf("%s: error %v, want ErrNoFloor", k.Name(), err)
		}
	}
	g := kernel.Gaussian{S: 1}
	misusetest.Check(t, []misuse{
		{"GQFloor negative degree", func() error { _, err := GQFloor(g, -1, X, 2, X, 2, 2); return err }, "degree"},
		{"GQFloor huge degree", func() error { _, err := GQFloor(g, MaxGQDegree+1, X, 2, X, 2, 2); return err }, "degree"},
		{"GQFloor nil kernel", func() error { _, err := GQFloor(nil, 2, X, 2, X, 2, 2); return err }, "nil"},
		{"GQFloor zero bandwidth", func() error { _, err := GQFloor(kernel.Gaussian{}, 2, X, 2, X, 2, 2); return err }, "σ"},
		{"GQFloor shapes", func() error { _, err := GQFloor(g, 2, X, 3, X, 2, 2); return err }, "shapes"},
		{"GQFloor n·d overflows", func() error { _, err := GQFloor(g, 2, X, 1<<62, X, 2, 4); return err }, "shapes"},
		{"GQFloor no rows", func() error { _, err := GQFloor(g, 2, nil, 0, X, 2, 2); return err }, "shapes"},
	})
	if f, err := GQFloor(g, 64, X, 4, X, 4, 2); err != nil || !(f < 1e-12) {
		t.Errorf("degree 64: floor %v (%v), want < 1e-12", f, err)
	}
	if k, _ := GQKernel(kernel.Cauchy{S: 2}, 3); k == nil || k.Name() != fmt.Sprintf("gq-grid:3(%s)", "cauchy") {
		t.Errorf("GQKernel name: %v", k)
	}
}
