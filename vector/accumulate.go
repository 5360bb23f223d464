package vector

import (
	"errors"

	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/ovk"
)

// Accumulate maps the n rows of X (n×d, d = m.Dim()) through the scalar cos/sin features z(x) of the ORFF map m
// (2D columns, ovk.Map.ScalarBlock) and returns their finished statistics against Y (n×p, p = m.Outputs()): ZᵀZ,
// ZᵀY, Σz, Σy, Σy², N. These are sufficient for [Ridge.Solve] with every kernel. The rows go through
// [learn.Accumulate] (same chunks and shards, merged in row order), so the result is bit-for-bit the same for every
// GOMAXPROCS; statistics of different shards of the data can be combined with [learn.Stats.Merge]. To follow the
// progress of a long pass, or to add rows in batches, give Scalar(m) ([Scalar]) to a learn.Accumulator. For a
// decomposable kernel the scalar features are those of package feature for the same scalar kernel, rule and seed.
func Accumulate(m *ovk.Map, X []float64, n int, Y []float64) (*learn.Stats, error) {
	const where = "vector.Accumulate"
	if m == nil {
		return nil, errors.New(where + ": nil ORFF map")
	}
	if err := blocks.CheckData(where, X, n, m.Dim(), Y, m.Outputs()); err != nil {
		return nil, err
	}
	return learn.Accumulate(Scalar(m), X, n, Y, m.Outputs())
}

// Scalar returns the scalar cos/sin features z(x) of the ORFF map m as a [learn.Mapper]: Dim and Points are m's,
// Features is m.ScalarFeatures() = 2D and TransformBlock is m.ScalarBlock.
func Scalar(m *ovk.Map) learn.Mapper { return scalarMap{m} }

type scalarMap struct{ m *ovk.Map }

// Dim returns the input dimension d of the map.
func (s scalarMap) Dim() int { return s.m.Dim() }

// Features returns the number of scalar features, 2D.
func (s scalarMap) Features() int { return s.m.ScalarFeatures() }

// Points returns the number of points D of the map.
func (s scalarMap) Points() int { return s.m.Points() }

// TransformBlock writes the scalar features of the rows×d inputs x to z (rows×2D), with proj as scratch
// (ovk.Map.ScalarBlock).
func (s scalarMap) TransformBlock(z, x []float64, rows int, proj []float64) {
	s.m.ScalarBlock(z, x, rows, proj)
}

// scalarBlocks maps the n rows of X through the scalar features of m in S shards of blocks of learn.BlockRows rows
// (the partition of blocks.Shard), calling fn(s, z, r0, rows) for each block of each shard in row order.
func scalarBlocks(m *ovk.Map, X []float64, n, S int, fn func(s int, z []float64, r0, rows int)) {
	blocks.Map(scalarMap{m}, X, n, S, learn.BlockRows, nil, fn)
}
