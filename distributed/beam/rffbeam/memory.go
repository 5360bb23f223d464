package rffbeam

import (
	"fmt"
	"math"
	"runtime"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/learn"
)

// Memory is the estimated peak memory of the second pass, which dominates the fit, in bytes.
type Memory struct {
	F int `json:"features"` // features
	P int `json:"outputs"`  // coded targets
	// Shards is the number of partial ZᵀZ matrices a bundle's learn.Accumulator holds: one per chunk of a batch, at
	// most 8 and together under 512 MiB, and one from F = 1024 on (package learn).
	Shards int `json:"shards"`
	// Bundle is what one bundle holds: the partial statistics, the features of the chunks being mapped, the rows
	// waiting for a batch and the encoded accumulator (the packed upper triangle of ZᵀZ, F(F+1)/2·8 bytes).
	Bundle int64 `json:"bundle_bytes"`
	// Bundles is the number of bundles a worker runs at once; Merge what the final merge needs (two statistics and
	// one encoded accumulator); Worker the larger of Bundles × Bundle and Merge.
	Bundles int   `json:"bundles"`
	Merge   int64 `json:"merge_bytes"`
	Worker  int64 `json:"worker_bytes"`
	// Driver is what the program that launched the pipeline needs to read the statistics and solve.
	Driver int64 `json:"driver_bytes"`
}

// numCPU is the number of CPUs of this machine (runtime.NumCPU), a variable so that tests can simulate other
// machines. It enters only the memory estimate (EstimateMemory's default bundles and the chunks mapped at once) —
// never how rows are grouped into partial sums, so that a fit gives the same model bytes on any number of cores.
var numCPU = runtime.NumCPU

// batchChunks is the number of chunks the bundles of a worker map at once by default, together: the 8 partial
// ZᵀZ matrices of one learn.Accumulator, shared among up to 8 bundles. It is a constant, not the machine's
// cores, on which the model's bytes would then depend.
const batchChunks = 8

// ChunkRows is the number of rows of the chunks learn.Accumulator maps at a time for F features
// (learn.GramChunk): 16 MiB of features, a multiple of 256 rows between 256 and 2048.
func ChunkRows(F int) int {
	return learn.GramChunk(F)
}

// DefaultBatchRows is the batch StatsFn maps at a time by default for F features when a worker runs bundles
// bundles at once: whole chunks (ChunkRows), 8 among the bundles — 8 for one bundle, 4 each for two, one each
// from five — each chunk one partial ZᵀZ mapped on its own core; from F = 1024 on, one chunk, which
// learn.Accumulator maps on all cores into one ZᵀZ. It depends only on F and the bundles, never on this machine's
// cores: how rows are grouped into partial sums decides the rounding of the statistics, so the same input and
// options give the same model bytes on any machine.
func DefaultBatchRows(F, bundles int) int {
	return ChunkRows(F) * max(1, min(learn.GramShards(F), batchChunks/max(bundles, 1)))
}

// EstimateMemory estimates the memory of the second pass for F features, P coded targets, d inputs, a map of
// points points, batches of batchRows rows (0: DefaultBatchRows) and bundles concurrent bundles per worker (0: the
// number of CPUs).
func EstimateMemory(F, P, d, points, batchRows, bundles int) Memory {
	if bundles <= 0 {
		bundles = numCPU()
	}
	if batchRows <= 0 {
		batchRows = DefaultBatchRows(F, bundles)
	}
	m := Memory{F: F, P: P, Bundles: bundles}
	f, p := float64(F), float64(P)
	// learn.Accumulator: a batch fills one shard per chunk, up to learn.GramShards(F).
	chunk := ChunkRows(F)
	m.Shards = min(learn.GramShards(F), (batchRows+chunk-1)/chunk)
	stats := f*f + f*p + f + 2*p
	packed := f*(f+1)/2 + f*p + f + 2*p
	mapping := float64(min(m.Shards, numCPU())) * float64(chunk) * (f + float64(points))
	pending := float64(batchRows+1024) * (float64(d) + p) * 2
	m.Bundle = bytes8(float64(m.Shards)*stats + mapping + pending + packed)
	m.Merge = bytes8(2*stats + packed)
	m.Worker = max(satMul(m.Bundle, int64(bundles)), m.Merge)
	m.Driver = bytes8(stats + packed + f*p)
	return m
}

func bytes8(values float64) int64 {
	if v := 8 * values; v < math.MaxInt64/2 {
		return int64(v)
	}
	return math.MaxInt64 / 2
}

func satMul(a, b int64) int64 {
	if a > 0 && b > (math.MaxInt64/2)/a {
		return math.MaxInt64 / 2
	}
	return a * b
}

// String describes the estimate in one line.
func (m Memory) String() string {
	return fmt.Sprintf("F = %d features, %d outputs: %s per bundle (%d partial ZᵀZ of %s), %s per worker running %s, %s for the final merge, %s for the driver",
		m.F, m.P, rff.FormatBytes(m.Bundle), m.Shards, rff.FormatBytes(int64(8*m.F*m.F)), rff.FormatBytes(m.Worker),
		plural(m.Bundles, "bundle"), rff.FormatBytes(m.Merge), rff.FormatBytes(m.Driver))
}

// Need says what the worker's estimate comes from.
func (m Memory) Need() string {
	if m.Merge >= m.Worker {
		return fmt.Sprintf("the final merge: two ZᵀZ of F = %d features, %s each, and one packed", m.F, rff.FormatBytes(int64(8*m.F*m.F)))
	}
	return fmt.Sprintf("%s × %s: %s of F = %d features, %s each", plural(m.Bundles, "bundle"), rff.FormatBytes(m.Bundle),
		plural(m.Shards, "partial ZᵀZ"), m.F, rff.FormatBytes(int64(8*m.F*m.F)))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
