package linalg

import (
	"slices"
	"sync/atomic"
)

// Splitting a Gram update C += alpha·AᵀA (upper triangle, n×n) among the threads of a BLAS ourselves.
//
// A multithreaded dsyrk divides its triangle among its threads less evenly than dgemm divides a square: on two cores
// of an AMD Zen 3, OpenBLAS's dsyrk with n = 2048 and k = 1024 rows ran at a median 83% of its dgemm's rate (real
// flops), and the same triangle cut into tiles — the diagonal blocks by single-threaded dsyrk, the blocks above them
// by single-threaded dgemm, each thread taking the next tile as it finishes one — at 89–90%; at n = 4096, k = 512
// 90% against 95% (docs/performance.md, "The Gram matrix: fused path against dgemm"). Those tiles cut the triangle
// into 2p blocks a side for p threads; p blocks a side (on two threads: one n/2 square and two n/2 triangles, which
// the two threads share evenly) were then measured on an AMD Zen 4 with OpenBLAS's AVX-512 kernels at n = 2048, k =
// 1024: 95–97% of dgemm's rate against 85–88% for 2p a side, the larger single-threaded calls running closer to
// their peak. For large n (F = 8192) dsyrk is already at dgemm's rate and the tiles gain nothing; for small n the
// tiles are too small. The tiles run on OpenBLAS's pthreads build only (Debian's default), whose memory allocator is
// locked for simultaneous callers; its OpenMP build keeps its own dsyrk.

// tiledGramCalls counts the tiled updates, for tests.
var tiledGramCalls atomic.Int64

// gramTile is a block of the upper triangle of C: rows [r0, r1), columns [c0, c1). A diagonal tile (r0 == c0) is a
// triangle of its own, updated by a symmetric rank-k update; the others are full rectangles, updated by a product.
type gramTile struct{ r0, r1, c0, c1 int }

func (t gramTile) diagonal() bool { return t.r0 == t.c0 }

// work is the tile's number of multiply-adds per row of A, in half units: a rectangle counts twice a triangle of
// the same side.
func (t gramTile) work() int {
	if t.diagonal() {
		s := t.r1 - t.r0
		return s * (s + 1) / 2
	}
	return (t.r1 - t.r0) * (t.c1 - t.c0)
}

// Bounds of the tiled Gram update, for which it paid on the CPUs measured (two cores): n at least 2p·tiledGramMinSide
// for p threads (blocks of n/p, at least twice that side), so that each single-threaded call runs at its dgemm rate; n
// at most tiledGramMaxN, beyond which dsyrk is as fast; k (the rows of A) at least tiledGramMinK.
const (
	tiledGramMinSide = 384
	tiledGramMaxN    = 6144
	tiledGramMinK    = 256
)

// useTiledGram reports whether the Gram update of an n×n triangle from k rows on p threads is split into tiles.
func useTiledGram(n, k, p int) bool {
	return p >= 2 && n >= 2*p*tiledGramMinSide && n <= tiledGramMaxN && k >= tiledGramMinK
}

// gramTiles cuts the upper triangle of an n×n matrix into blocks block rows and columns (block boundaries are
// multiples of 8 but the last) and lists its tiles largest first: the rectangles above the diagonal, then the
// diagonal triangles, each of which has half a rectangle's work. Workers that take the next tile of the list as
// they finish one end within about one triangle of each other whatever the speed of each call; the result does not
// depend on which worker runs a tile (each tile is one single-threaded call with the same arguments).
func gramTiles(n, blocks int) []gramTile {
	b := make([]int, blocks+1)
	for i := 1; i < blocks; i++ {
		b[i] = min(n, (i*n/blocks+4)/8*8)
	}
	b[blocks] = n
	var rect, diag []gramTile
	for i := 0; i < blocks; i++ {
		if b[i+1] > b[i] {
			diag = append(diag, gramTile{b[i], b[i+1], b[i], b[i+1]})
		}
		for j := i + 1; j < blocks; j++ {
			if b[i+1] > b[i] && b[j+1] > b[j] {
				rect = append(rect, gramTile{b[i], b[i+1], b[j], b[j+1]})
			}
		}
	}
	tiles := append(rect, diag...)
	slices.SortStableFunc(tiles, func(x, y gramTile) int { return y.work() - x.work() })
	return tiles
}
