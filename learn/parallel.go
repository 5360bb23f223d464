package learn

import (
	"sync"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/parallel"
)

// BlockRows is the number of rows mapped and accumulated at a time. 256 rows of features keep the rank-k update
// ZᵀZ += Z_bᵀZ_b cache-friendly (measured fastest for F = 2048 among 64…1024).
const BlockRows = 256

// shardRange returns the rows [r0, r1) of shard s when n rows, cut into blocks of BlockRows, are split into S
// contiguous shards of whole blocks. The partition depends only on n and S.
func shardRange(n, S, s int) (r0, r1 int) {
	nb := (n + BlockRows - 1) / BlockRows
	b0 := s * nb / S
	b1 := (s + 1) * nb / S
	return min(b0*BlockRows, n), min(b1*BlockRows, n)
}

// numBlocks is the number of row blocks of n rows.
func numBlocks(n int) int { return (n + BlockRows - 1) / BlockRows }

// runShards calls work(s) for s in [0, S) on min(GOMAXPROCS, S) goroutines. Each work item must only write state
// owned by shard s; combining the shards (in order) is the caller's job, which keeps results independent of
// scheduling.
func runShards(S int, work func(s int)) { parallel.For(S, 0, work) }

// mapBlocks maps the n rows of X (n×m.Dim()) through m in S shards of whole blocks (see shardRange) on all cores
// and calls fn(s, z, r0, rows) for every block of each shard, in row order within the shard, with z the block's
// rows×F features (a buffer reused after fn returns). Different shards run concurrently; fn must only touch state
// owned by shard s.
func mapBlocks(m *feature.Map, X []float64, n, S int, fn func(s int, z []float64, r0, rows int)) {
	d, F := m.Dim(), m.Features()
	type scratch struct{ z, proj []float64 }
	pool := sync.Pool{New: func() any {
		return &scratch{z: make([]float64, BlockRows*F), proj: make([]float64, BlockRows*m.Points())}
	}}
	runShards(S, func(s int) {
		r0, r1 := shardRange(n, S, s)
		if r1 <= r0 {
			return
		}
		sc := pool.Get().(*scratch)
		defer pool.Put(sc)
		for b := r0; b < r1; b += BlockRows {
			r := min(BlockRows, r1-b)
			z := sc.z[:r*F]
			m.TransformBlock(z, X[b*d:(b+r)*d], r, sc.proj)
			fn(s, z, b, r)
		}
	})
}
