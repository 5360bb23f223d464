package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/rffkit/rff/internal/linalg/avx2"
	"gonum.org/v1/gonum/blas"
)

// unitRoundoff is u = 2⁻⁵³, the relative rounding error of float64.
const unitRoundoff = 0x1p-53

// refProduct is the plain triple loop C = alpha·op(A)·op(B) + beta·C (dense
// m×n result, stride n) and, for each element, the scale
// M = |alpha|·Σ_l |op(A)_il·op(B)_lj| + |beta·C_ij| of its rounding error.
// A sum of k products in any order, with or without FMA, is within
// γ_k·Σ|terms| of the exact value, γ_j = j·u/(1−j·u) (Higham, Accuracy and
// Stability of Numerical Algorithms, §3.1). The reference then rounds alpha·s,
// beta·C and their sum (γ_{k+3} in all); the packed path rounds alpha·a_il and
// beta·C once each before its k FMAs (γ_{k+2}), the portable one alpha·a_il,
// its product and the sum (γ_{k+3}). Either stays within γ_{2k+6}·M of the
// reference: productTol.
func refProduct(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) (want, scale []float64) {
	want = make([]float64, m*n)
	scale = make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s, abs float64
			for l := 0; l < k; l++ {
				var x, y float64
				if tA {
					x = a[l*lda+i]
				} else {
					x = a[i*lda+l]
				}
				if tB {
					y = b[j*ldb+l]
				} else {
					y = b[l*ldb+j]
				}
				s += x * y
				abs += math.Abs(x * y)
			}
			w, sc := alpha*s, math.Abs(alpha)*abs
			if beta != 0 {
				w += beta * c[i*ldc+j]
				sc += math.Abs(beta * c[i*ldc+j])
			}
			want[i*n+j], scale[i*n+j] = w, sc
		}
	}
	return want, scale
}

// productTol is γ_{2k+6}, the error bound of refProduct relative to M.
func productTol(k int) float64 {
	j := float64(2*k+6) * unitRoundoff
	return j / (1 - j)
}

// checkProduct compares got with the reference on the elements tri selects
// (to within the error bound of refProduct), and requires every other element
// of got, padding included, to be bit for bit that of orig.
func checkProduct(t *testing.T, what string, tri triangle, m, n, k int, want, scale, got, orig []float64, ldc int) {
	t.Helper()
	tol := productTol(k)
	for idx := range got {
		i, j := idx/ldc, idx%ldc
		in := j < n && i < m
		switch tri {
		case triUpper:
			in = in && j >= i
		case triLower:
			in = in && j <= i
		}
		if !in {
			if math.Float64bits(got[idx]) != math.Float64bits(orig[idx]) {
				t.Fatalf("%s: element (%d,%d) outside the update changed: %v, was %v", what, i, j, got[idx], orig[idx])
			}
			continue
		}
		w, g := want[i*n+j], got[idx]
		if math.IsNaN(g) || math.Abs(g-w) > tol*scale[i*n+j] {
			t.Fatalf("%s: element (%d,%d) = %v, want %v ± %.3g (diff %.3g)", what, i, j, g, w, tol*scale[i*n+j], g-w)
		}
	}
}

// withKernel runs f with the packed kernel on and off (off only when the CPU
// lacks AVX2+FMA), restoring the switch.
func withKernel(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	prev := useKernel
	defer func() { useKernel = prev }()
	for _, on := range []bool{true, false} {
		name := "portable"
		if on {
			name = "avx2"
			if !avx2.Available {
				continue
			}
		}
		useKernel = on
		t.Run(name, f)
	}
}

// sameBits reports the first index where two slices differ bitwise, or -1.
func sameBits(x, y []float64) int {
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return i
		}
	}
	return -1
}

// fillC returns an n×n C with stride ldc of random values (padding too);
// with beta = 0 the elements to be updated hold NaN, which must be overwritten.
func fillC(rng *rand.Rand, tri triangle, m, n, ldc int, beta float64) []float64 {
	c := randSlice(rng, (m-1)*ldc+n)
	if beta != 0 {
		return c
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			if tri == triFull || (tri == triUpper && j >= i) || (tri == triLower && j <= i) {
				c[i*ldc+j] = math.NaN()
			}
		}
	}
	return c
}

// TestSyrkBlockedKernel checks syrkBlocked on both paths against the triple
// loop, on every combination of the edge sizes, both triangles and both
// operand orientations, with padded strides, beta = 0 (over NaN), 1 and 0.5;
// the rest of C must not change, and the result must be bit for bit the same
// on 1, 2, 3 and 8 goroutines.
func TestSyrkBlockedKernel(t *testing.T) {
	ns := []int{1, 2, 3, 5, 7, 13, 31, 64, 100, 257}
	ks := []int{1, 3, 255, 256, 257, 1000}
	if raceEnabled {
		ns, ks = []int{1, 5, 13, 31}, []int{1, 3, 257}
	}
	withKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 7))
		v := 0
		for _, n := range ns {
			for _, k := range ks {
				for _, upper := range []bool{true, false} {
					for _, trans := range []bool{true, false} {
						v++
						beta := []float64{0, 1, 0.5}[v%3]
						alpha := []float64{1, -0.75, 2.5}[v%3]
						pad := []int{0, 3}[(v/3)%2]
						tri := triLower
						if upper {
							tri = triUpper
						}
						row, col := k, n
						if !trans {
							row, col = n, k
						}
						lda, ldc := col+pad, n+2*pad
						a := randMat(rng, row, col, lda, math.NaN()) // NaN padding: must not be read
						c := fillC(rng, tri, n, n, ldc, beta)
						want, scale := refProduct(trans, !trans, n, n, k, alpha, a, lda, a, lda, beta, c, ldc)
						name := fmt.Sprintf("syrkBlocked(upper=%v,trans=%v,n=%d,k=%d,α=%v,β=%v,pad %d)", upper, trans, n, k, alpha, beta, pad)
						var first []float64
						for _, workers := range []int{1, 2, 3, 8} {
							got := clone(c)
							syrkBlocked(upper, trans, n, k, alpha, a, lda, beta, got, ldc, workers)
							if first == nil {
								checkProduct(t, name, tri, n, n, k, want, scale, got, c, ldc)
								first = got
							} else if i := sameBits(got, first); i >= 0 {
								t.Fatalf("%s: %d goroutines give %v at %d, 1 gives %v", name, workers, got[i], i, first[i])
							}
						}
					}
				}
			}
		}
	})
}

// TestSyrkBlockedThreads checks the public SyrkBlocked under SetThreads: the
// same bits for 1, 2, 3 and 8 threads, and the reference within its bound.
func TestSyrkBlockedThreads(t *testing.T) {
	defer SetThreads(SetThreads(0))
	n, k := 301, 517
	if raceEnabled {
		n, k = 45, 70
	}
	withKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(8, 8))
		a := randSlice(rng, k*n)
		c := randSlice(rng, n*n)
		want, scale := refProduct(true, false, n, n, k, 0.3, a, n, a, n, 1, c, n)
		var first []float64
		for _, th := range []int{1, 2, 3, 8} {
			SetThreads(th)
			got := clone(c)
			SyrkBlocked(n, k, 0.3, a, n, 1, got, n)
			if first == nil {
				checkProduct(t, "SyrkBlocked", triUpper, n, n, k, want, scale, got, c, n)
				first = got
			} else if i := sameBits(got, first); i >= 0 {
				t.Fatalf("SetThreads(%d): element %d = %v, with 1 thread %v", th, i, got[i], first[i])
			}
		}
	})
}

// TestSyrkBlockedColumnBlocks shrinks the column blocking so that small
// matrices span several jc blocks (with an uneven last one).
func TestSyrkBlockedColumnBlocks(t *testing.T) {
	if !avx2.Available {
		t.Skip("no AVX2+FMA")
	}
	prev := packNCMax
	defer func() { packNCMax = prev }()
	rng := rand.New(rand.NewPCG(9, 9))
	for _, nc := range []int{12, 24, 36} {
		packNCMax = nc
		for _, n := range []int{13, 50, 101} {
			k := 300
			for _, upper := range []bool{true, false} {
				tri := triLower
				if upper {
					tri = triUpper
				}
				a := randSlice(rng, k*n)
				c := fillC(rng, tri, n, n, n+1, 0)
				want, scale := refProduct(true, false, n, n, k, 1, a, n, a, n, 0, c, n+1)
				var first []float64
				for _, workers := range []int{1, 2, 5} {
					got := clone(c)
					syrkBlocked(upper, true, n, k, 1, a, n, 0, got, n+1, workers)
					name := fmt.Sprintf("nc=%d n=%d upper=%v workers=%d", nc, n, upper, workers)
					if first == nil {
						checkProduct(t, name, tri, n, n, k, want, scale, got, c, n+1)
						first = got
					} else if i := sameBits(got, first); i >= 0 {
						t.Fatalf("%s: element %d differs from 1 goroutine", name, i)
					}
				}
			}
		}
	}
}

// TestGemmPacked checks the packed Dgemm (directly, and through Blas.Dgemm on
// the pure-Go backend for shapes above its thresholds) against the triple
// loop, for every transposition, with padded strides and beta = 0 (over NaN),
// 1 and −0.5, and bit-for-bit determinism across goroutine counts.
func TestGemmPacked(t *testing.T) {
	if !avx2.Available {
		t.Skip("no AVX2+FMA")
	}
	defer switchTo(t, PureGo)()
	shapes := [][3]int{{1, 1, 1}, {1, 13, 5}, {13, 1, 300}, {5, 7, 3}, {17, 33, 257}, {64, 64, 64}, {65, 70, 67}, {100, 17, 520}, {9, 300, 100}, {130, 131, 257}}
	if raceEnabled {
		shapes = [][3]int{{1, 13, 5}, {5, 7, 3}, {17, 33, 40}}
	}
	rng := rand.New(rand.NewPCG(10, 10))
	v := 0
	for _, s := range shapes {
		m, n, k := s[0], s[1], s[2]
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				v++
				beta := []float64{0, 1, -0.5}[v%3]
				alpha := []float64{1, 0.6, -2}[v%3]
				pad := v % 2 * 5
				ar, ac := m, k
				if tA {
					ar, ac = k, m
				}
				br, bc := k, n
				if tB {
					br, bc = n, k
				}
				lda, ldb, ldc := ac+pad, bc+pad, n+pad
				a := randMat(rng, ar, ac, lda, math.NaN())
				b := randMat(rng, br, bc, ldb, math.NaN())
				c := fillC(rng, triFull, m, n, ldc, beta)
				want, scale := refProduct(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
				name := fmt.Sprintf("gemmPacked(%v,%v,%d,%d,%d,α=%v,β=%v,pad %d)", tA, tB, m, n, k, alpha, beta, pad)
				var first []float64
				for _, workers := range []int{1, 2, 3, 8} {
					got := clone(c)
					gemmPacked(triFull, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, got, ldc, workers)
					if first == nil {
						checkProduct(t, name, triFull, m, n, k, want, scale, got, c, ldc)
						first = got
					} else if i := sameBits(got, first); i >= 0 {
						t.Fatalf("%s: %d goroutines differ from 1 at %d", name, workers, i)
					}
				}
				got := clone(c)
				Blas{}.Dgemm(trans(tA), trans(tB), m, n, k, alpha, a, lda, b, ldb, beta, got, ldc)
				checkProduct(t, "Blas.Dgemm "+name, triFull, m, n, k, want, scale, got, c, ldc)
			}
		}
	}
}

// TestDsyrkPureGoKernel runs Blas.Dsyrk on the pure-Go backend above the
// SyrkBlocked thresholds, all four triangle/orientation combinations, so that
// the routing reaches the kernel.
func TestDsyrkPureGoKernel(t *testing.T) {
	if raceEnabled {
		t.Skip("large")
	}
	defer switchTo(t, PureGo)()
	n, k := blockedSyrkMinN+5, 40
	rng := rand.New(rand.NewPCG(11, 11))
	withKernel(t, func(t *testing.T) {
		for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
			for _, tA := range []blas.Transpose{blas.Trans, blas.NoTrans} {
				row, col := k, n
				if tA == blas.NoTrans {
					row, col = n, k
				}
				tri := triUpper
				if ul == blas.Lower {
					tri = triLower
				}
				a := randSlice(rng, row*col)
				c := fillC(rng, tri, n, n, n, 0)
				want, scale := refProduct(tA == blas.Trans, tA == blas.NoTrans, n, n, k, 1.5, a, col, a, col, 0, c, n)
				got := clone(c)
				Blas{}.Dsyrk(ul, tA, n, k, 1.5, a, col, 0, got, n)
				checkProduct(t, fmt.Sprintf("Dsyrk(%c,%c)", ul, tA), tri, n, n, k, want, scale, got, c, n)
			}
		}
	})
}

// TestSyrkBlockedStreaming checks that accumulating a Gram matrix over blocks
// of rows (beta = 1 after the first) gives the bits of one call on all the
// rows, on both paths, for either triangle and orientation: streamed and
// in-memory fits see the same matrix.
func TestSyrkBlockedStreaming(t *testing.T) {
	n, k := 77, 1000
	splits := []int{0, 256, 300, 301, 999, 1000}
	if raceEnabled {
		n, k, splits = 21, 60, []int{0, 13, 50, 60}
	}
	withKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(12, 12))
		for _, upper := range []bool{true, false} {
			for _, trans := range []bool{true, false} {
				for _, alpha := range []float64{1, -0.3} {
					row, col := k, n
					if !trans {
						row, col = n, k
					}
					a := randSlice(rng, row*col)
					c0 := randSlice(rng, n*n)
					whole := clone(c0)
					syrkBlocked(upper, trans, n, k, alpha, a, col, 0.5, whole, n, 2)
					streamed := clone(c0)
					beta := 0.5
					for s := 0; s+1 < len(splits); s++ {
						l0, l1 := splits[s], splits[s+1]
						// Rows [l0, l1) of the k×n data: rows of A (trans), or
						// columns of the n×k A, sliced with its stride.
						var part []float64
						if trans {
							part = a[l0*col:]
						} else {
							part = a[l0:]
						}
						syrkBlocked(upper, trans, n, l1-l0, alpha, part, col, beta, streamed, n, 3)
						beta = 1
					}
					if i := sameBits(streamed, whole); i >= 0 {
						t.Fatalf("upper=%v trans=%v alpha=%v: streamed element %d = %v, one call %v", upper, trans, alpha, i, streamed[i], whole[i])
					}
				}
			}
		}
	})
}

// TestGemmSerialBytes: GemmSerial from an empty pool allocates its packing buffers, which GemmSerialBytes counts
// rounded up to whole pages (two buffers: less than two pages over), and little else (the pool's record and the
// workers' closures); so does a Packing the first time, and then nothing.
func TestGemmSerialBytes(t *testing.T) {
	if !avx2.Available {
		t.Skip("the CPU has no packed kernel")
	}
	const slack = 2 << 10
	for _, s := range [][3]int{{8, 8, 8}, {256, 8, 300}, {1, 40, 40}, {37, 13, 1000}, {400, 50, 784}, {96, 5000, 20}} {
		m, n, k := s[0], s[1], s[2]
		t.Run(fmt.Sprintf("%dx%dx%d", m, n, k), func(t *testing.T) {
			a, b, c := make([]float64, m*k), make([]float64, k*n), make([]float64, m*n)
			for i := range b {
				b[i] = float64(i%7) - 3
			}
			for i := range a {
				a[i] = 1
			}
			packPool = sync.Pool{}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			GemmSerial(false, false, m, n, k, 1, a, k, b, n, 0, c, n)
			runtime.ReadMemStats(&after)
			got, want := int64(after.TotalAlloc-before.TotalAlloc), GemmSerialBytes(m, n, k)
			if min(m, n, k) < GemmSerialMinDim {
				if want != 0 {
					t.Errorf("GemmSerialBytes = %d for a product that does not take the packed kernel", want)
				}
				return
			}
			if got < want-16<<10 || got > want+slack {
				t.Errorf("GemmSerial allocated %d bytes, GemmSerialBytes says %d (+ at most %d)", got, want, slack)
			}
			// A Packing allocates the same the first time, nothing more the second, for the same bits.
			var p Packing
			for call := range 2 {
				c2 := make([]float64, m*n)
				runtime.ReadMemStats(&before)
				p.GemmSerial(false, false, m, n, k, 1, a, k, b, n, 0, c2, n)
				runtime.ReadMemStats(&after)
				got, lo := int64(after.TotalAlloc-before.TotalAlloc), want-16<<10
				if call > 0 {
					want, lo = 0, 0
				}
				if got < lo || got > want+slack {
					t.Errorf("call %d of Packing.GemmSerial allocated %d bytes, want %d (+ at most %d)", call+1, got, want, slack)
				}
				if !slices.Equal(c2, c) {
					t.Errorf("call %d of Packing.GemmSerial differs from GemmSerial", call+1)
				}
			}
		})
	}
}
