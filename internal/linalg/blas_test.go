package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

var transposes = []blas.Transpose{blas.NoTrans, blas.Trans, blas.ConjTrans}

// The sizes straddle nativeMinWork so that both the gonum and the OpenBLAS
// paths of the wrappers run; pad > 0 makes the leading dimensions exceed the
// row lengths.
var gemmShapes = [][3]int{
	{0, 0, 0}, {0, 3, 2}, {3, 0, 2}, {3, 2, 0}, {1, 1, 1}, {1, 7, 1}, {5, 1, 3},
	{7, 5, 3}, {17, 33, 9}, {33, 33, 33}, {40, 31, 57}, {65, 1, 300}, {1, 90, 400}, {129, 67, 71},
}

func TestGemm(t *testing.T) {
	withBackend(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 1))
		for _, s := range gemmShapes {
			m, n, k := s[0], s[1], s[2]
			for _, tA := range transposes {
				for _, tB := range transposes {
					for _, pad := range []int{0, 3} {
						for _, ab := range [][2]float64{{1, 0}, {-0.7, 1}, {0.3, 0.5}, {0, 0}, {0, 2}} {
							alpha, beta := ab[0], ab[1]
							ar, ac := m, k
							if tA != blas.NoTrans {
								ar, ac = k, m
							}
							br, bc := k, n
							if tB != blas.NoTrans {
								br, bc = n, k
							}
							lda, ldb, ldc := max(1, ac+pad), max(1, bc+pad), max(1, n+pad)
							a := randMat(rng, ar, ac, lda, math.NaN())
							b := randMat(rng, br, bc, ldb, math.NaN())
							c := randMat(rng, m, n, ldc, math.NaN())
							if beta == 0 {
								for i := 0; i < m; i++ {
									for j := 0; j < n; j++ {
										c[i*ldc+j] = math.NaN() // must be overwritten, not scaled
									}
								}
							}
							if alpha == 0 && len(a) > 0 {
								a[0] = math.NaN() // must not be read
							}
							want := clone(c)
							goBlas.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, want, ldc)
							got := clone(c)
							Blas{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, got, ldc)
							maxDiff(t, got, want, 1e-13*float64(k+1), fmt.Sprintf("Dgemm(%c,%c,%d,%d,%d,α=%v,β=%v,pad %d)",
								tA, tB, m, n, k, alpha, beta, pad))
							if tA == blas.ConjTrans || tB == blas.ConjTrans {
								continue
							}
							got = clone(c)
							Gemm(tA == blas.Trans, tB == blas.Trans, m, n, k, alpha, a, lda, b, ldb, beta, got, ldc)
							maxDiff(t, got, want, 1e-13*float64(k+1), "Gemm")
						}
					}
				}
			}
		}
	})
}

func TestSyrk(t *testing.T) {
	withBackend(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(2, 2))
		for _, s := range [][2]int{{0, 0}, {0, 4}, {4, 0}, {1, 1}, {1, 9}, {9, 1}, {33, 20}, {40, 40}, {130, 20}, {257, 64}, {300, 33}, {300, 64}} {
			n, k := s[0], s[1]
			for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
				for _, tA := range transposes {
					for _, pad := range []int{0, 2} {
						for _, ab := range [][2]float64{{1, 1}, {0.5, 0}, {-1, 0.25}, {0, 0}, {0, 3}} {
							alpha, beta := ab[0], ab[1]
							row, col := k, n
							if tA == blas.NoTrans {
								row, col = n, k
							}
							lda, ldc := max(1, col+pad), max(1, n+pad)
							a := randMat(rng, row, col, lda, math.NaN())
							c := randMat(rng, n, n, ldc, math.NaN())
							if beta == 0 {
								for i := 0; i < n; i++ {
									for j := 0; j < n; j++ {
										if (ul == blas.Upper && j >= i) || (ul == blas.Lower && j <= i) {
											c[i*ldc+j] = math.NaN()
										}
									}
								}
							}
							want := clone(c)
							if beta == 0 {
								// gonum v0.17 scales NaN by 0 for Lower/Trans; the reference
								// starts from zeros instead.
								for i := range want {
									if math.IsNaN(want[i]) && i%ldc < n {
										want[i] = 0
									}
								}
							}
							goBlas.Dsyrk(ul, tA, n, k, alpha, a, lda, beta, want, ldc)
							name := fmt.Sprintf("Dsyrk(%c,%c,n=%d,k=%d,α=%v,β=%v,pad %d)", ul, tA, n, k, alpha, beta, pad)
							got := clone(c)
							Blas{}.Dsyrk(ul, tA, n, k, alpha, a, lda, beta, got, ldc)
							maxDiff(t, got, want, 1e-13*float64(k+1), name)
							if alpha != 0 && k > 0 && n > 0 {
								for _, workers := range []int{1, 2, 3} {
									got = clone(c)
									syrkBlocked(ul == blas.Upper, tA != blas.NoTrans, n, k, alpha, a, lda, beta, got, ldc, workers)
									maxDiff(t, got, want, 1e-13*float64(k+1), fmt.Sprintf("syrkBlocked/%d %s", workers, name))
								}
							}
							if ul == blas.Upper && tA == blas.Trans {
								got = clone(c)
								Syrk(n, k, alpha, a, lda, beta, got, ldc)
								maxDiff(t, got, want, 1e-13*float64(k+1), "Syrk "+name)
								got = clone(c)
								SyrkBlocked(n, k, alpha, a, lda, beta, got, ldc)
								maxDiff(t, got, want, 1e-13*float64(k+1), "SyrkBlocked "+name)
							}
						}
					}
				}
			}
		}
	})
}

// TestSyrkBlockedWide covers several column chunks (n > 2·gramCols) with an uneven last one.
func TestSyrkBlockedWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	n, k := 2*gramCols+77, 19
	a := randSlice(rng, k*n)
	c := randSlice(rng, n*n)
	want := clone(c)
	goBlas.Dsyrk(blas.Upper, blas.Trans, n, k, 1.5, a, n, 1, want, n)
	got := clone(c)
	SyrkBlocked(n, k, 1.5, a, n, 1, got, n)
	maxDiff(t, got, want, 1e-12, "SyrkBlocked wide")
}

func TestSyr2k(t *testing.T) {
	withBackend(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(4, 4))
		for _, s := range [][2]int{{0, 3}, {1, 1}, {5, 0}, {7, 3}, {40, 30}, {70, 50}} {
			n, k := s[0], s[1]
			for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
				for _, tA := range transposes {
					for _, beta := range []float64{0, 0.5} {
						row, col := k, n
						if tA == blas.NoTrans {
							row, col = n, k
						}
						ld := max(1, col+1)
						a, b := randMat(rng, row, col, ld, 7), randMat(rng, row, col, ld, 7)
						c := randMat(rng, n, n, n+2, 9)
						want := clone(c)
						goBlas.Dsyr2k(ul, tA, n, k, 0.8, a, ld, b, ld, beta, want, n+2)
						got := clone(c)
						Blas{}.Dsyr2k(ul, tA, n, k, 0.8, a, ld, b, ld, beta, got, n+2)
						maxDiff(t, got, want, 1e-13*float64(k+1), fmt.Sprintf("Dsyr2k(%c,%c,%d,%d)", ul, tA, n, k))
					}
				}
			}
		}
	})
}

// triangular returns a well-conditioned triangular-friendly m×m matrix (stride ld).
func triangular(rng *rand.Rand, m, ld int) []float64 {
	a := randMat(rng, m, m, ld, math.NaN())
	for i := 0; i < m; i++ {
		a[i*ld+i] = 2 + rng.Float64()
		for j := 0; j < m; j++ {
			if j != i {
				a[i*ld+j] /= float64(m)
			}
		}
	}
	return a
}

func TestTrsmTrmm(t *testing.T) {
	withBackend(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 5))
		for _, s := range [][2]int{{0, 3}, {3, 0}, {1, 1}, {1, 40}, {40, 1}, {7, 5}, {33, 40}, {64, 65}, {100, 37}} {
			m, n := s[0], s[1]
			for _, side := range []blas.Side{blas.Left, blas.Right} {
				for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
					for _, tA := range transposes {
						for _, d := range []blas.Diag{blas.NonUnit, blas.Unit} {
							for _, alpha := range []float64{1, -0.5, 0} {
								k := n
								if side == blas.Left {
									k = m
								}
								lda, ldb := max(1, k+1), max(1, n+3)
								a := triangular(rng, k, lda)
								b := randMat(rng, m, n, ldb, math.NaN())
								name := fmt.Sprintf("(%c,%c,%c,%c,%d,%d,α=%v)", side, ul, tA, d, m, n, alpha)
								want, got := clone(b), clone(b)
								goBlas.Dtrsm(side, ul, tA, d, m, n, alpha, a, lda, want, ldb)
								Blas{}.Dtrsm(side, ul, tA, d, m, n, alpha, a, lda, got, ldb)
								maxDiff(t, got, want, 1e-12, "Dtrsm"+name)
								want, got = clone(b), clone(b)
								goBlas.Dtrmm(side, ul, tA, d, m, n, alpha, a, lda, want, ldb)
								Blas{}.Dtrmm(side, ul, tA, d, m, n, alpha, a, lda, got, ldb)
								maxDiff(t, got, want, 1e-12, "Dtrmm"+name)
							}
						}
					}
				}
			}
		}
	})
}

func TestSymm(t *testing.T) {
	withBackend(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(6, 6))
		for _, s := range [][2]int{{0, 2}, {2, 0}, {1, 1}, {5, 9}, {40, 33}, {70, 80}} {
			m, n := s[0], s[1]
			for _, side := range []blas.Side{blas.Left, blas.Right} {
				for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
					for _, beta := range []float64{0, 1.5} {
						k := n
						if side == blas.Left {
							k = m
						}
						a := randMat(rng, k, k, k+2, math.NaN())
						b := randMat(rng, m, n, n+1, 5)
						c := randMat(rng, m, n, n+4, math.NaN())
						if beta == 0 {
							for i := 0; i < m; i++ {
								for j := 0; j < n; j++ {
									c[i*(n+4)+j] = math.NaN()
								}
							}
						}
						want, got := clone(c), clone(c)
						goBlas.Dsymm(side, ul, m, n, -0.9, a, k+2, b, n+1, beta, want, n+4)
						Blas{}.Dsymm(side, ul, m, n, -0.9, a, k+2, b, n+1, beta, got, n+4)
						maxDiff(t, got, want, 1e-12*float64(k+1), fmt.Sprintf("Dsymm(%c,%c,%d,%d,β=%v)", side, ul, m, n, beta))
					}
				}
			}
		}
	})
}

// panicOf returns the value f panics with, or nil.
func panicOf(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// TestPanicsLikeGonum checks that invalid arguments produce gonum's own panics
// on every backend.
func TestPanicsLikeGonum(t *testing.T) {
	withBackend(t, func(t *testing.T) {
		big := make([]float64, 100*100)
		short := make([]float64, 10)
		cases := []struct {
			name      string
			ours, ref func()
		}{
			{"gemm short A", func() { Blas{}.Dgemm('N', 'N', 50, 50, 50, 1, short, 50, big, 50, 0, big, 50) },
				func() { goBlas.Dgemm('N', 'N', 50, 50, 50, 1, short, 50, big, 50, 0, big, 50) }},
			{"gemm bad lda", func() { Blas{}.Dgemm('T', 'N', 50, 50, 50, 1, big, 49, big, 50, 0, big, 50) },
				func() { goBlas.Dgemm('T', 'N', 50, 50, 50, 1, big, 49, big, 50, 0, big, 50) }},
			{"gemm bad trans", func() { Blas{}.Dgemm('X', 'N', 50, 50, 50, 1, big, 50, big, 50, 0, big, 50) },
				func() { goBlas.Dgemm('X', 'N', 50, 50, 50, 1, big, 50, big, 50, 0, big, 50) }},
			{"gemm m<0", func() { Blas{}.Dgemm('N', 'N', -1, 50, 50, 1, big, 50, big, 50, 0, big, 50) },
				func() { goBlas.Dgemm('N', 'N', -1, 50, 50, 1, big, 50, big, 50, 0, big, 50) }},
			{"syrk short C", func() { Blas{}.Dsyrk('U', 'T', 60, 60, 1, big, 60, 0, short, 60) },
				func() { goBlas.Dsyrk('U', 'T', 60, 60, 1, big, 60, 0, short, 60) }},
			{"syrk bad uplo", func() { Blas{}.Dsyrk('X', 'T', 60, 60, 1, big, 60, 0, big, 60) },
				func() { goBlas.Dsyrk('X', 'T', 60, 60, 1, big, 60, 0, big, 60) }},
			{"trsm short B", func() { Blas{}.Dtrsm('L', 'U', 'N', 'N', 60, 60, 1, big, 60, short, 60) },
				func() { goBlas.Dtrsm('L', 'U', 'N', 'N', 60, 60, 1, big, 60, short, 60) }},
			{"symm bad ldc", func() { Blas{}.Dsymm('L', 'U', 60, 60, 1, big, 60, big, 60, 0, big, 59) },
				func() { goBlas.Dsymm('L', 'U', 60, 60, 1, big, 60, big, 60, 0, big, 59) }},
			{"potrf short", func() { Lapack{}.Dpotrf('U', 60, short, 60) },
				func() { goLapack.Dpotrf('U', 60, short, 60) }},
			{"syev lwork", func() { Lapack{}.Dsyev('V', 'U', 60, big, 60, big, big, 10) },
				func() { goLapack.Dsyev('V', 'U', 60, big, 60, big, big, 10) }},
			{"syev short w", func() { Lapack{}.Dsyev('V', 'U', 60, big, 60, short, big, 1000) },
				func() { goLapack.Dsyev('V', 'U', 60, big, 60, short, big, 1000) }},
		}
		for _, c := range cases {
			got, want := panicOf(c.ours), panicOf(c.ref)
			if want == nil {
				t.Fatalf("%s: gonum did not panic; bad test", c.name)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: panic %v, want %v", c.name, got, want)
			}
		}
	})
}

// TestHugeLeadingDimension: a stride beyond a 32-bit C int (one row, so the slices stay small) is not passed to
// OpenBLAS, where it would wrap to a small number that OpenBLAS refuses, on stderr, leaving C as it was: the call
// takes the pure-Go path and computes the product.
func TestHugeLeadingDimension(t *testing.T) {
	defer switchTo(t, OpenBLAS)()
	const huge = 1<<32 + 5 // as a C int: 5, shorter than a row of A
	rng := rand.New(rand.NewPCG(31, 31))
	n, k := 256, 256
	a, b := randSlice(rng, k), randSlice(rng, k*n)
	c, want := make([]float64, n), make([]float64, n)
	Blas{}.Dgemm(blas.NoTrans, blas.NoTrans, 1, n, k, 1, a, huge, b, n, 0, c, huge)
	goBlas.Dgemm(blas.NoTrans, blas.NoTrans, 1, n, k, 1, a, huge, b, n, 0, want, huge)
	maxDiff(t, c, want, 0, "Dgemm with lda = ldc = 2³² + 5")
}
