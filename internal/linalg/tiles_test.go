package linalg

import (
	"math"
	"math/rand/v2"

	"fmt"
	"gonum.org/v1/gonum/blas"
	"testing"
)

// TestGramTiles checks the tiles of the Gram update: every entry of the upper triangle in exactly one tile, none
// below it, listed largest first.
func TestGramTiles(t *testing.T) {
	for _, tc := range []struct{ n, blocks int }{{1024, 4}, {2048, 4}, {2050, 4}, {2049, 6}, {2048, 8}, {3001, 16}, {1000, 10}, {20, 4}} {
		t.Run(fmt.Sprintf("n=%d,blocks=%d", tc.n, tc.blocks), func(t *testing.T) {
			seen := make([]int, tc.n*tc.n)
			prev := tc.n * tc.n
			for _, tl := range gramTiles(tc.n, tc.blocks) {
				if w := tl.work(); w > prev {
					t.Fatalf("tile %+v (work %d) after one of work %d", tl, w, prev)
				} else {
					prev = w
				}
				for i := tl.r0; i < tl.r1; i++ {
					j0 := tl.c0
					if tl.diagonal() {
						j0 = i
					}
					for j := j0; j < tl.c1; j++ {
						seen[i*tc.n+j]++
					}
				}
			}
			for i := 0; i < tc.n; i++ {
				for j := 0; j < tc.n; j++ {
					want := 0
					if j >= i {
						want = 1
					}
					if seen[i*tc.n+j] != want {
						t.Fatalf("entry (%d,%d) in %d tiles, want %d", i, j, seen[i*tc.n+j], want)
					}
				}
			}
		})
	}
}

// TestUseTiledGram pins the bounds: one thread, small sides, short blocks and large sides keep the BLAS's own dsyrk.
func TestUseTiledGram(t *testing.T) {
	for _, tc := range []struct {
		n, k, p int
		want    bool
	}{
		{2048, 1024, 2, true}, {2048, 1024, 1, false}, {512, 1024, 2, false}, {1024, 2048, 2, false}, {2048, 64, 2, false},
		{8192, 256, 2, false}, {4096, 512, 4, true}, {4096, 512, 8, false}, {1535, 1024, 2, false}, {1536, 1024, 2, true},
	} {
		if got := useTiledGram(tc.n, tc.k, tc.p); got != tc.want {
			t.Errorf("useTiledGram(%d, %d, %d) = %v, want %v", tc.n, tc.k, tc.p, got, tc.want)
		}
	}
}

// TestSyrkTiled runs Syrk on OpenBLAS with 2 and 3 threads at sizes that take the tiled update, with a padded
// leading dimension, a side that is not a multiple of 8, and beta ∈ {0, 1, 0.25} (C's upper triangle NaN for
// beta = 0, which must be overwritten); it checks the result against gonum's Dsyrk within the rounding bound of a
// sum of k products, that the strictly lower triangle and the padding are not touched, and that the tiles ran.
func TestSyrkTiled(t *testing.T) {
	restore := switchTo(t, OpenBLAS)
	defer restore()
	defer SetThreads(SetThreads(0))
	rng := rand.New(rand.NewPCG(7, 7))
	n, k, pad := 6*tiledGramMinSide+6, tiledGramMinK+3, 3 // tiled for 2 and 3 threads
	lda, ldc := n+pad, n+pad
	a := randMat(rng, k, n, lda, math.NaN())
	for _, p := range []int{2, 3} {
		for _, beta := range []float64{0, 1, 0.25} {
			t.Run(fmt.Sprintf("threads=%d,beta=%v", p, beta), func(t *testing.T) {
				SetThreads(p)
				c := randMat(rng, n, n, ldc, math.NaN())
				for i := 0; i < n; i++ {
					for j := 0; j < i; j++ {
						c[i*ldc+j] = math.NaN() // strictly lower: must stay NaN
					}
					if beta == 0 {
						for j := i; j < n; j++ {
							c[i*ldc+j] = math.NaN()
						}
					}
				}
				want := clone(c)
				if beta == 0 {
					for i := 0; i < n; i++ {
						for j := i; j < n; j++ {
							want[i*ldc+j] = 0
						}
					}
				}
				goBlas.Dsyrk(blas.Upper, blas.Trans, n, k, -0.5, a, lda, beta, want, ldc)
				before := tiledGramCalls.Load()
				got := clone(c)
				Syrk(n, k, -0.5, a, lda, beta, got, ldc)
				if tiledGramCalls.Load() != before+1 {
					t.Fatalf("Syrk(n=%d, k=%d) on %d threads did not take the tiled update", n, k, p)
				}
				maxDiff(t, got, want, 1e-13*float64(k+1), "tiled Syrk")
			})
		}
	}
}
