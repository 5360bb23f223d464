package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rffkit/rff/internal/linalg"
)

// withGrid runs f with Gram's grid path forced on (gridAlways) or off, on both backends where OpenBLAS loads.
func withGrid(t *testing.T, mode int, f func(t *testing.T)) {
	t.Helper()
	was, prev := gridMode, linalg.Info().Backend
	t.Cleanup(func() {
		gridMode = was
		if err := linalg.Use(prev); err != nil {
			t.Errorf("restoring the %s backend: %v", prev, err)
		}
	})
	gridMode = mode
	for _, b := range []string{linalg.PureGo, linalg.OpenBLAS} {
		if err := linalg.Use(b); err != nil {
			t.Logf("backend %s: %v", b, err)
			continue
		}
		t.Run(b, f)
	}
}

// gridData returns n×d entries q·step with integer q drawn from [lo, hi], a share zero of them 0.
func gridData(rng *rand.Rand, n, d int, step float64, lo, hi int, zero float64) []float64 {
	x := make([]float64, n*d)
	for i := range x {
		if rng.Float64() >= zero {
			x[i] = float64(lo+rng.IntN(hi-lo+1)) * step
		}
	}
	return x
}

// TestGramGrid checks Gram on data on a grid x = q·s: every squared distance must be exactly s·s·R with R the
// integer ‖q_x − q_y‖² (computed here in int64), so every entry equals ofSqDist of it bit for bit — the
// single-precision products are exact — and within the documented 4e-13 of the pairwise value. The cases cover
// pixels/255 with zeros, LETTER-like integers/15, a binary step, negative values, and columns wide enough to need
// several chunks (Σ r_j² > 2²⁴).
func TestGramGrid(t *testing.T) {
	cases := []struct {
		name    string
		n, m, d int
		step    float64
		lo, hi  int
		zero    float64
		chunks  [2]int // at least, at most
		// twoPoint: entries lo·step or hi·step only, long sums of large products of one sign
		twoPoint bool
	}{
		{"pixels/255", 70, 50, 784, 1.0 / 255, 0, 255, 0.6, [2]int{1, 1}, false}, // 784·128² < 2²⁴ after the shift
		{"letter/15", 40, 33, 16, 1.0 / 15, 0, 15, 0, [2]int{1, 1}, false},
		{"quarters", 9, 130, 40, 0.25, -8, 8, 0.1, [2]int{1, 1}, false},
		{"wide range", 31, 29, 300, 0.01, -400, 400, 0, [2]int{3, 4}, false}, // about 104 columns of r ≈ 400 per chunk
		// ‖x'‖² ≈ 300·400² > 2²⁴ for every row, not a multiple of float32's spacing there: the chunks' sums must be
		// added in double precision.
		{"extremes", 12, 40, 300, 0.01, -401, 400, 0, [2]int{3, 4}, true},
	}
	withGrid(t, gridAlways, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(8, 255))
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				X := gridData(rng, c.n, c.d, c.step, c.lo, c.hi, c.zero)
				Y := gridData(rng, c.m, c.d, c.step, c.lo, c.hi, c.zero)
				if c.twoPoint {
					for _, A := range [][]float64{X, Y} {
						for i, v := range A {
							A[i] = float64(c.hi) * c.step
							if v < 0 {
								A[i] = float64(c.lo) * c.step
							}
						}
					}
				}
				Y[0], X[0] = c.step, c.step // the step is the smallest nonzero entry
				copy(Y[c.d:2*c.d], X[:c.d]) // a distance 0
				g := newGridCentres(Y, c.m, c.d)
				lo, hi := make([]int32, c.d), make([]int32, c.d)
				if g == nil || !g.quantize(make([]float32, len(X)), nil, X, c.n, c.d, lo, hi) {
					t.Fatal("data on a grid not recognized")
				}
				if b := g.chunks(lo, hi); len(b)-1 < c.chunks[0] || len(b)-1 > c.chunks[1] {
					t.Fatalf("%d chunks, want %d to %d", len(b)-1, c.chunks[0], c.chunks[1])
				}
				s2 := g.step * g.step
				for _, k := range []Kernel{Gaussian{S: 0.3 * math.Sqrt(float64(c.d))}, Matern{Nu: 1.5, S: 2}} {
					got := make([]float64, c.n*c.m)
					if err := Gram(got, k, X, c.n, Y, c.m, c.d); err != nil {
						t.Fatal(err)
					}
					r := k.(sqRadial)
					for i := range c.n {
						for j := range c.m {
							var R int64
							for p := range c.d {
								q := int64(math.Round(X[i*c.d+p]/c.step)) - int64(math.Round(Y[j*c.d+p]/c.step))
								R += q * q
							}
							v := got[i*c.m+j]
							if want := r.ofSqDist(s2 * float64(R)); v != want {
								t.Fatalf("%v: K[%d,%d] = %v, want %v = κ(s²·%d) exactly", k, i, j, v, want, R)
							}
							if pw := k.Eval(X[i*c.d:(i+1)*c.d], Y[j*c.d:(j+1)*c.d]); math.Abs(v-pw) > 4e-13 {
								t.Fatalf("%v: K[%d,%d] = %v, pairwise %v", k, i, j, v, pw)
							}
						}
					}
				}
			})
		}
	})
}

// TestOnGrid checks which inputs the grid path takes: only entries that are all within 3u·|v| of multiples of the
// smallest nonzero |y| of the centres with |q| ≤ gridMaxQ; anything else (standardized data, a value off the grid by
// 1e-12, a q beyond the bound, NaN, all zeros, rows of X on a finer grid than the centres') runs the double-precision
// path — in the rows X and in the centres Y alike.
func TestOnGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d = 10, 40
	base := func() []float64 {
		x := gridData(rng, n, d, 1.0/255, 0, 255, 0.3)
		x[1] = 1.0 / 255 // the step
		return x
	}
	std := make([]float64, n*d)
	for i := range std {
		std[i] = rng.NormFloat64()
	}
	for _, c := range []struct {
		name  string
		alter func(x []float64) []float64
		want  bool
	}{
		{"pixels", func(x []float64) []float64 { return x }, true},
		{"k/255 computed as k·(1/255)", func(x []float64) []float64 {
			for i := range x {
				x[i] = math.Round(x[i]*255) * (1.0 / 255)
			}
			return x
		}, true},
		{"standardized", func([]float64) []float64 { return std }, false},
		{"one entry off by 1e-12", func(x []float64) []float64 { x[77] = 17.0/255 + 1e-12; return x }, false},
		{"q beyond the bound", func(x []float64) []float64 { x[5] = (gridMaxQ + 1) / 255.0; return x }, false},
		{"q at the bound", func(x []float64) []float64 { x[5] = gridMaxQ / 255.0; return x }, true},
		{"NaN", func(x []float64) []float64 { x[3] = math.NaN(); return x }, false},
		{"all zero", func(x []float64) []float64 { clear(x); return x }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			good := base()
			if g := newGridCentres(c.alter(base()), n, d); (g != nil) != c.want {
				t.Fatalf("centres: on a grid = %v, want %v", g != nil, c.want)
			}
			g := newGridCentres(good, n, d)
			lo, hi := make([]int32, d), make([]int32, d)
			if ok := g.quantize(make([]float32, n*d), nil, c.alter(base()), n, d, lo, hi); ok != (c.want || c.name == "all zero") {
				t.Fatalf("rows: on the grid = %v, want %v", ok, c.want)
			}
		})
	}
	t.Run("rows on a finer grid", func(t *testing.T) {
		Y := base()
		g := newGridCentres(Y, n, d)
		X := base()
		X[9] = 0.5 / 255
		if g.quantize(make([]float32, n*d), nil, X, n, d, make([]int32, d), make([]int32, d)) {
			t.Fatal("a row between the centres' grid points passed")
		}
	})
}

// TestQuantizeRowKernels checks the AVX2 kernel of quantizeRow against quantizeRowGeneric on every row length from
// 0 to 13 and two long ones (a tail of 0–3 values after the groups of four): the same float32 integers, column
// ranges and sum of squares, and the same verdict — for rows on the grid, and with one value off it at every
// position: NaN, ±Inf, |q| one past the bound, the bound itself, a subnormal, and values moved by k ulps, k = −5…5,
// which straddle the tolerance of 3 ulps.
func TestQuantizeRowKernels(t *testing.T) {
	if !useQuantizeAVX2 {
		t.Skip("no AVX2 kernel on this CPU or build")
	}
	defer func(was bool) { useQuantizeAVX2 = was }(useQuantizeAVX2)
	rng := rand.New(rand.NewPCG(3, 4))
	const s = 1.0 / 255
	type result struct {
		out    []float32
		lo, hi []int32
		sq     float64
		ok     bool
	}
	run := func(avx bool, row []float64, shift, lo0, hi0 []int32) result {
		useQuantizeAVX2 = avx
		n := len(row)
		r := result{out: make([]float32, n), lo: append([]int32(nil), lo0...), hi: append([]int32(nil), hi0...)}
		r.sq, r.ok = quantizeRow(r.out, row, shift, r.lo, r.hi, 1/s, s)
		return r
	}
	var bad []float64
	for k := -5.0; k <= 5; k++ {
		bad = append(bad, 97*s*(1+k*0x1p-53))
	}
	bad = append(bad, math.NaN(), math.Inf(1), math.Inf(-1), (gridMaxQ+1)*s, -(gridMaxQ+1)*s, gridMaxQ*s, -gridMaxQ*s,
		5e-324, 0.5*s)
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 37, 784} {
		row := gridData(rng, 1, n, s, -gridMaxQ, gridMaxQ, 0.3)
		shift, lo0, hi0 := make([]int32, n), make([]int32, n), make([]int32, n)
		for j := range n {
			shift[j] = int32(rng.IntN(2*gridMaxQ+1) - gridMaxQ)
			lo0[j], hi0[j] = int32(rng.IntN(100)), int32(rng.IntN(100)-100)
		}
		check := func(t *testing.T, row []float64) {
			want, got := run(false, row, shift, lo0, hi0), run(true, row, shift, lo0, hi0)
			if got.ok != want.ok {
				t.Fatalf("on the grid: AVX2 %v, portable %v", got.ok, want.ok)
			}
			if !want.ok {
				return
			}
			if got.sq != want.sq {
				t.Errorf("sum of squares: AVX2 %v, portable %v", got.sq, want.sq)
			}
			for j := range n {
				if got.out[j] != want.out[j] || got.lo[j] != want.lo[j] || got.hi[j] != want.hi[j] {
					t.Fatalf("column %d: AVX2 (%v, %d, %d), portable (%v, %d, %d)", j, got.out[j], got.lo[j], got.hi[j],
						want.out[j], want.lo[j], want.hi[j])
				}
			}
		}
		t.Run(fmt.Sprintf("n=%d/on-grid", n), func(t *testing.T) { check(t, row) })
		for at := range n {
			for _, v := range bad {
				t.Run(fmt.Sprintf("n=%d/at=%d/%v", n, at, v), func(t *testing.T) {
					r := append([]float64(nil), row...)
					r[at] = v
					check(t, r)
				})
			}
		}
	}
}

// TestGridChunks checks the column chunks: consecutive, covering every column, each with Σ a_j·b_j ≤ 2²⁴, and as
// few as a greedy cut allows (every chunk but the last is full: adding the next column would exceed the bound); and
// the centres' shift: the midpoint of each column's range, so that b_j is at most half the range, rounded up.
func TestGridChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, d := range []int{1, 7, 100, 2000} {
		t.Run(fmt.Sprint(d), func(t *testing.T) {
			const m = 5
			Y := make([]float64, m*d)
			for i := range Y {
				Y[i] = float64(rng.IntN(2*gridMaxQ+1) - gridMaxQ)
			}
			Y[0] = 1
			g := newGridCentres(Y, m, d)
			for j := range d {
				lo, hi := math.Inf(1), math.Inf(-1)
				for i := range m {
					lo, hi = min(lo, Y[i*d+j]), max(hi, Y[i*d+j])
				}
				if float64(g.b[j]) > math.Ceil((hi-lo)/2) || float64(g.shift[j])-float64(g.b[j]) > lo ||
					float64(g.shift[j])+float64(g.b[j]) < hi {
					t.Fatalf("column %d: range [%v, %v], shift %d, bound %d", j, lo, hi, g.shift[j], g.b[j])
				}
			}
			lo, hi := make([]int32, d), make([]int32, d)
			for j := range d {
				lo[j], hi[j] = -int32(rng.IntN(2*gridMaxQ)), int32(rng.IntN(2*gridMaxQ))
			}
			bounds := g.chunks(lo, hi)
			if bounds[0] != 0 || bounds[len(bounds)-1] != d {
				t.Fatalf("bounds %v do not span [0, %d)", bounds, d)
			}
			ab := func(j int) int64 { return int64(max(-lo[j], hi[j])) * g.b[j] }
			for c := 0; c+1 < len(bounds); c++ {
				var sum int64
				for j := bounds[c]; j < bounds[c+1]; j++ {
					sum += ab(j)
				}
				if bounds[c+1] <= bounds[c] || sum > gridChunk {
					t.Fatalf("chunk [%d, %d): Σ a·b = %d", bounds[c], bounds[c+1], sum)
				}
				if c+2 < len(bounds) && sum+ab(bounds[c+1]) <= gridChunk {
					t.Fatalf("chunk [%d, %d) could take column %d", bounds[c], bounds[c+1], bounds[c+1])
				}
			}
		})
	}
}

// TestGramGridOff checks that the grid and the double-precision paths agree within the documented bound on the same
// data (pixels/255), and that off the grid Gram gives the same bits with the grid path on or off.
func TestGramGridOff(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	n, m, d := 150, 140, 64
	X, Y := gridData(rng, n, d, 1.0/255, 0, 255, 0.5), gridData(rng, m, d, 1.0/255, 0, 255, 0.5)
	k := Gaussian{S: 2}
	run := func(mode int, X, Y []float64) []float64 {
		was := gridMode
		defer func() { gridMode = was }()
		gridMode = mode
		out := make([]float64, n*m)
		if err := Gram(out, k, X, n, Y, m, d); err != nil {
			t.Fatal(err)
		}
		return out
	}
	on, off := run(gridAlways, X, Y), run(gridOff, X, Y)
	for i := range on {
		if math.Abs(on[i]-off[i]) > 8e-13 {
			t.Fatalf("entry %d: grid %v, double precision %v", i, on[i], off[i])
		}
	}
	for i := range X {
		X[i] += 1e-3 * rng.Float64()
	}
	on, off = run(gridAlways, X, Y), run(gridOff, X, Y)
	for i := range on {
		if on[i] != off[i] {
			t.Fatalf("off the grid, entry %d: %v with the grid path allowed, %v without", i, on[i], off[i])
		}
	}
}

// BenchmarkGramGrid compares Centres.Gram on pixels/255 (a Nyström block of MNIST: 1024 rows, 1000 centres, d = 784)
// with the grid path and with the double-precision product.
func BenchmarkGramGrid(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	n, m, d := 1024, 1000, 784
	X, Y := gridData(rng, n, d, 1.0/255, 0, 255, 0.8), gridData(rng, m, d, 1.0/255, 0, 255, 0.8)
	dst := make([]float64, n*m)
	k := Gaussian{S: 5}
	for _, mode := range []struct {
		name string
		m    int
	}{{"grid", gridAuto}, {"double", gridOff}} {
		b.Run(mode.name, func(b *testing.B) {
			was := gridMode
			defer func() { gridMode = was }()
			gridMode = mode.m
			c, err := NewCentres(k, Y, m, d)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(2 * n * m * d)) // flops, reported as "MB/s" = MFLOP/s
			for b.Loop() {
				if err := c.Gram(dst, X, n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCentresGram checks that Centres.Gram, called on blocks of rows, gives what Gram gives on all rows at once for
// every kernel, on and off a grid, below and above the dimensions where the matrix-product and grid paths start: the
// same bits where the entries do not depend on the blocking (the pairwise loop, the exact grid path), and within the
// documented 4e-13 of the pairwise value each (so 8e-13 of each other) where a double-precision matrix product, whose
// rounding may depend on the shape, forms the distances.
func TestCentresGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, d := range []int{3, 8, 40} {
		for _, onGrid := range []bool{true, false} {
			n, m := 37, 150
			X, Y := gridData(rng, n, d, 1.0/255, 0, 255, 0.3), gridData(rng, m, d, 1.0/255, 0, 255, 0.3)
			if !onGrid {
				for i := range X {
					X[i] += rng.NormFloat64()
				}
			}
			for _, k := range []Kernel{Gaussian{S: 1.5}, Matern{Nu: 2.5, S: 1}, Laplacian{S: 2}, ArcCos{Order: 1}} {
				want := make([]float64, n*m)
				if err := Gram(want, k, X, n, Y, m, d); err != nil {
					t.Fatal(err)
				}
				c, err := NewCentres(k, Y, m, d)
				if err != nil {
					t.Fatal(err)
				}
				got := make([]float64, n*m)
				for r0 := 0; r0 < n; r0 += 10 {
					b := min(10, n-r0)
					if err := c.Gram(got[r0*m:(r0+b)*m], X[r0*d:(r0+b)*d], b); err != nil {
						t.Fatal(err)
					}
				}
				tol := 0.0
				if _, sq := k.(sqRadial); sq && d >= directMaxDim() && !(onGrid && useGrid(m, d, n)) {
					tol = 8e-13
				}
				for i := range got {
					if !(math.Abs(got[i]-want[i]) <= tol) {
						t.Fatalf("d=%d grid=%v %v: entry %d: Centres.Gram %v, Gram %v", d, onGrid, k, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestGramGridAuto checks that on the OpenBLAS backend Gram takes the exact path by itself for pixel data at the
// sizes where it pays (d ≥ 32, n and m ≥ 128): every entry is κ(s²·R) for the exact integer R.
func TestGramGridAuto(t *testing.T) {
	if !linalg.FastFloat32() {
		t.Skip("the grid path runs by itself on the OpenBLAS backend only")
	}
	if gridMode != gridAuto {
		t.Fatalf("gridMode = %d, want gridAuto", gridMode)
	}
	rng := rand.New(rand.NewPCG(6, 6))
	n, m, d := gridMinRows, gridMinRows, gridMinDim
	X, Y := gridData(rng, n, d, 1.0/255, 0, 255, 0.2), gridData(rng, m, d, 1.0/255, 0, 255, 0.2)
	Y[0] = 1.0 / 255
	k := Gaussian{S: 0.7}
	got := make([]float64, n*m)
	if err := Gram(got, k, X, n, Y, m, d); err != nil {
		t.Fatal(err)
	}
	s := 1.0 / 255
	for i := range n {
		for j := range m {
			var R int64
			for p := range d {
				q := int64(math.Round(X[i*d+p]*255)) - int64(math.Round(Y[j*d+p]*255))
				R += q * q
			}
			if want := k.ofSqDist(s * s * float64(R)); got[i*m+j] != want {
				t.Fatalf("K[%d,%d] = %v, want κ(s²·%d) = %v: the grid path did not run", i, j, got[i*m+j], R, want)
			}
		}
	}
}

// BenchmarkQuantize times the conversion of a block of MNIST-like rows (1024 × 784 pixels/255, two thirds nonzero)
// to the grid's integers, with the AVX2 kernel (where the CPU has it) and with the portable loop.
func BenchmarkQuantize(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	rows, d := 1024, 784
	A := gridData(rng, rows, d, 1.0/255, 0, 255, 1.0/3)
	g := &gridCentres{step: 1.0 / 255, inv: 255, shift: make([]int32, d)}
	dst, norms := make([]float32, rows*d), make([]float64, rows)
	lo, hi := make([]int32, d), make([]int32, d)
	defer func(was bool) { useQuantizeAVX2 = was }(useQuantizeAVX2)
	for _, c := range []struct {
		name string
		avx  bool
	}{{"avx2", true}, {"portable", false}} {
		if c.avx && !useQuantizeAVX2 {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			useQuantizeAVX2 = c.avx
			for b.Loop() {
				if !g.quantize(dst, norms, A, rows, d, lo, hi) {
					b.Fatal("off the grid")
				}
			}
		})
	}
}
