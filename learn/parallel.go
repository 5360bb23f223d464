package learn

import (
	"github.com/rffkit/rff/internal/blocks"
)

// BlockRows is the number of rows mapped at a time by the prediction, cross-validation and matrix-free paths, and
// the unit of the chunks [Accumulate] maps and adds to ZᵀZ (see chunkRows).
const BlockRows = blocks.Rows

// Mapper is what the accumulation of statistics needs of a feature map: the input dimension d, the number of
// features F, the number of points (the projection scratch per row), and TransformBlock, which maps rows×d inputs
// into rows×F features on the calling goroutine with proj as scratch (rows×Points(), or nil to allocate).
// *feature.Map is a Mapper; package vector adapts the scalar cos/sin features of an ORFF map.
type Mapper interface {
	Dim() int
	Features() int
	Points() int
	TransformBlock(z, x []float64, rows int, proj []float64)
}

// chunkRows is the number of rows Accumulate maps and adds to ZᵀZ at a time for F features: many, so that each
// rank-k update amortizes its pass over the F×F matrix (OpenBLAS dsyrk at F = 2048 on a 2-core AMD Zen 3: 60 GFLOP/s
// with k = 256, 76 with k = 1024; at F = 8192 already 89 with k = 256), but a chunk of features stays near 16 MiB:
// 16 MiB/(8F) rounded down to a multiple of BlockRows, between BlockRows and 8·BlockRows.
func chunkRows(F int) int {
	k := (16 << 20) / (8 * min(max(F, 1), 1<<40)) / BlockRows * BlockRows // min: 8F must not overflow
	return min(max(k, BlockRows), 8*BlockRows)
}

// GramChunk is the number of rows [Accumulate] and an [Accumulator] map and add to ZᵀZ in one rank-k update for F
// features (k = GramChunk(F)): 16 MiB of features, a multiple of BlockRows between 256 and 2048 rows. Benchmarks
// use it to time the BLAS update alone in the shape the accumulation runs it.
func GramChunk(F int) int { return chunkRows(F) }

// GramShards is the number of partial ZᵀZ matrices an [Accumulator] splits each batch of rows into for F features:
// up to 8 side by side (together at most 512 MiB) below F = 1024, one from F = 1024, where each rank-k update keeps
// every core busy. It depends only on F, never on the machine, so accumulation gives the same bits anywhere.
func GramShards(F int) int { return numShards(F) }

// mapBlocks maps the n rows of X through m in S shards of blocks of BlockRows rows (blocks.Map).
func mapBlocks(m Mapper, X []float64, n, S int, fn func(s int, z []float64, r0, rows int)) {
	blocks.Map(m, X, n, S, BlockRows, nil, fn)
}
