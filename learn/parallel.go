package learn

import (
	"sync"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/ovk"
)

// BlockRows is the number of rows mapped at a time by the prediction, cross-validation and matrix-free paths, and
// the unit of the chunks [Accumulate] maps and adds to ZᵀZ (see chunkRows).
const BlockRows = 256

// chunkRows is the number of rows Accumulate and AccumulateScalar map and add to ZᵀZ at a time for F features:
// many, so that each rank-k update amortizes its pass over the F×F matrix (OpenBLAS dsyrk at F = 2048 on the
// 2-core test machine: 60 GFLOP/s with k = 256, 76 with k = 1024; at F = 8192 already 89 with k = 256), but a
// chunk of features stays near 16 MiB: 16 MiB/(8F) rounded down to a multiple of BlockRows, between BlockRows and
// 8·BlockRows.
func chunkRows(F int) int {
	k := (16 << 20) / (8 * max(F, 1)) / BlockRows * BlockRows
	return min(max(k, BlockRows), 8*BlockRows)
}

// shardRange returns the rows [r0, r1) of shard s when n rows, cut into chunks of chunk rows, are split into S
// contiguous shards of whole chunks. The partition depends only on n, S and chunk.
func shardRange(n, S, s, chunk int) (r0, r1 int) {
	nb := (n + chunk - 1) / chunk
	b0 := s * nb / S
	b1 := (s + 1) * nb / S
	return min(b0*chunk, n), min(b1*chunk, n)
}

// numBlocks is the number of row blocks of n rows.
func numBlocks(n int) int { return (n + BlockRows - 1) / BlockRows }

// runShards calls work(s) for s in [0, S) on min(GOMAXPROCS, S) goroutines. Each work item must only write state
// owned by shard s; combining the shards (in order) is the caller's job, which keeps results independent of
// scheduling.
func runShards(S int, work func(s int)) { parallel.For(S, 0, work) }

// blockMap is what the block loops need of a feature map: input dimension, feature count, scratch size per row,
// and the block transform (feature.Map.TransformBlock, ovk.Map.ScalarBlock).
type blockMap struct {
	d, F, points int
	transform    func(z, x []float64, rows int, proj []float64)
}

func featureBlocks(m *feature.Map) blockMap {
	return blockMap{m.Dim(), m.Features(), m.Points(), m.TransformBlock}
}

func scalarBlocks(m *ovk.Map) blockMap {
	return blockMap{m.Dim(), m.ScalarFeatures(), m.Points(), m.ScalarBlock}
}

// mapChunks maps the n rows of X (n×bm.d) in S shards of whole chunks of chunk rows (see shardRange) on all cores
// and calls fn(s, z, r0, rows) for every chunk of each shard, in row order within the shard, with z the chunk's
// rows×F features (a buffer reused after fn returns). Different shards run concurrently; fn must only touch state
// owned by shard s.
func mapChunks(bm blockMap, X []float64, n, S, chunk int, fn func(s int, z []float64, r0, rows int)) {
	mapChunksTo(bm, X, n, S, chunk, nil, fn)
}

// mapChunksTo is mapChunks that, when projOut is not nil (n×bm.points), lets the transform use the chunk's rows of
// projOut as its projection scratch: for feature.Map.TransformBlock they then keep the projections of every row,
// from which ActivateBlock recomputes the features.
func mapChunksTo(bm blockMap, X []float64, n, S, chunk int, projOut []float64, fn func(s int, z []float64, r0, rows int)) {
	d, F := bm.d, bm.F
	type scratch struct{ z, proj []float64 }
	pool := sync.Pool{New: func() any {
		c := min(chunk, n)
		sc := &scratch{z: make([]float64, c*F)}
		if projOut == nil {
			sc.proj = make([]float64, c*bm.points)
		}
		return sc
	}}
	runShards(S, func(s int) {
		r0, r1 := shardRange(n, S, s, chunk)
		if r1 <= r0 {
			return
		}
		sc := pool.Get().(*scratch)
		defer pool.Put(sc)
		for b := r0; b < r1; b += chunk {
			r := min(chunk, r1-b)
			z, proj := sc.z[:r*F], sc.proj
			if projOut != nil {
				proj = projOut[b*bm.points : (b+r)*bm.points]
			}
			bm.transform(z, X[b*d:(b+r)*d], r, proj)
			fn(s, z, b, r)
		}
	})
}

// mapBlocks is mapChunks for a feature map in blocks of BlockRows rows.
func mapBlocks(m *feature.Map, X []float64, n, S int, fn func(s int, z []float64, r0, rows int)) {
	mapChunks(featureBlocks(m), X, n, S, BlockRows, fn)
}

// ovkScalarBlocks is mapBlocks for the scalar features of an ORFF map.
func ovkScalarBlocks(m *ovk.Map, X []float64, n, S int, fn func(s int, z []float64, r0, rows int)) {
	mapChunks(scalarBlocks(m), X, n, S, BlockRows, fn)
}
