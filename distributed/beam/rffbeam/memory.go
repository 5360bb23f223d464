package rffbeam

import (
	"fmt"
	"math"
	"runtime"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/learn"
)

// Memory is the estimated peak memory of the second pass, which dominates the fit, in bytes: what this package's
// code and the packages it calls hold, and the garbage collector's headroom. The runner's own memory is not in
// it: prism, which runs in the driver's process, adds about 50 MiB and keeps copies of the encoded accumulators
// it passes between the bundles (F(F+1)/2·8 bytes each).
type Memory struct {
	F int `json:"features"` // features
	P int `json:"outputs"`  // coded targets
	// Shards is the number of partial ZᵀZ matrices a bundle's learn.Accumulator holds: one per chunk of a batch, at
	// most 8 and together under 512 MiB, and one from F = 1024 on (package learn).
	Shards int `json:"shards"`
	// Bundle is what one bundle holds: the partial statistics, the buffers of the chunks being mapped (see
	// EstimateMemory), the rows waiting for a batch and the encoded accumulator (the packed upper triangle of ZᵀZ,
	// F(F+1)/2·8 bytes).
	Bundle int64 `json:"bundle_bytes"`
	// Bundles is the number of bundles a worker runs at once; Merge what the final merge needs (two statistics and
	// one encoded accumulator); Worker the larger of Bundles × Bundle and Merge, with the garbage collector's
	// headroom (WorkerGCPercent: the heap grows that much past the live data before a collection).
	Bundles int   `json:"bundles"`
	Merge   int64 `json:"merge_bytes"`
	Worker  int64 `json:"worker_bytes"`
	// Driver is what the program that launched the pipeline needs to read the statistics and solve, with the same
	// headroom.
	Driver int64 `json:"driver_bytes"`
}

// numCPU is the number of CPUs of this machine (runtime.NumCPU), a variable so that tests can simulate other
// machines. It enters only the memory estimate (EstimateMemory's default bundles and the buffers mapped at once) —
// never how rows are grouped into partial sums, which would then depend on the machine.
var numCPU = runtime.NumCPU

// batchChunks is the number of chunks the bundles of a worker map at once by default, together: the 8 partial
// ZᵀZ matrices of one learn.Accumulator, shared among up to 8 bundles. It is a constant, not the machine's
// cores, on which the grouping of rows into partial sums would then depend.
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
// cores: how rows are grouped into partial sums decides the rounding of the statistics, and the machine should not
// add to what the runner's grouping of the rows into bundles already varies (Options).
func DefaultBatchRows(F, bundles int) int {
	return ChunkRows(F) * max(1, min(learn.GramShards(F), batchChunks/max(bundles, 1)))
}

// EstimateMemory estimates the memory of the second pass for F features, P coded targets, d inputs, a map of
// points points, batches of batchRows rows (0: DefaultBatchRows) and bundles concurrent bundles per worker (0: the
// number of CPUs), on a worker with as many cores as this machine.
//
// The buffers a bundle maps its chunks into: below F = 1024 the features and the projections of each partial ZᵀZ
// mapped at once (one per core), from F = 1024 the chunk's features, the projections of each core mapping its
// blocks of learn.BlockRows rows and the linear statistics of every block of the chunk.
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
	m.Shards = min(learn.GramShards(F), batchRows/chunk+boolInt(batchRows%chunk != 0)) // ⌈batchRows/chunk⌉, without overflow
	stats := f*f + f*p + f + 2*p
	packed := f*(f+1)/2 + f*p + f + 2*p
	c, pts := float64(chunk), float64(points)
	mapping := float64(min(m.Shards, numCPU())) * c * (f + pts)
	if learn.GramShards(F) == 1 {
		blocks := (chunk + learn.BlockRows - 1) / learn.BlockRows
		mapping = c*f + float64(min(numCPU(), blocks)*min(learn.BlockRows, chunk))*pts + float64(blocks)*(p+1)*f
	}
	pending := (float64(batchRows) + 1024) * (float64(d) + p) * 2 // in floating point: batchRows may be near MaxInt
	m.Bundle = bytes8(float64(m.Shards)*stats + mapping + pending + packed)
	m.Merge = bytes8(2*stats + packed)
	m.Worker = withHeadroom(max(satMul(m.Bundle, int64(bundles)), m.Merge))
	m.Driver = withHeadroom(bytes8(stats + packed + f*p))
	return m
}

// withHeadroom adds the garbage collector's headroom to live bytes: with debug.SetGCPercent(WorkerGCPercent), the
// heap grows by that share of the live data before a collection.
func withHeadroom(live int64) int64 {
	return bytes8(float64(live) * (1 + WorkerGCPercent/100.0) / 8)
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
		m.F, m.P, rff.FormatBytes(m.Bundle), m.Shards, rff.FormatBytes(m.gram()), rff.FormatBytes(m.Worker),
		plural(m.Bundles, "bundle"), rff.FormatBytes(m.Merge), rff.FormatBytes(m.Driver))
}

// gram is the size of one ZᵀZ, F²·8 bytes, saturated as the estimates are (8·F·F overflows from F = 2³¹ on).
func (m Memory) gram() int64 { return bytes8(float64(m.F) * float64(m.F)) }

// FromMerge reports whether the worker's estimate comes from the final merge rather than the bundles.
func (m Memory) FromMerge() bool { return m.Merge >= satMul(m.Bundle, int64(m.Bundles)) }

// Need says what the worker's estimate comes from.
func (m Memory) Need() string {
	if m.FromMerge() {
		return fmt.Sprintf("the final merge: two ZᵀZ of F = %d features, %s each, and one packed, plus %d%% for the garbage collector",
			m.F, rff.FormatBytes(m.gram()), WorkerGCPercent)
	}
	return fmt.Sprintf("%s × %s: %s of F = %d features, %s each, plus %d%% for the garbage collector", plural(m.Bundles, "bundle"),
		rff.FormatBytes(m.Bundle), plural(m.Shards, "partial ZᵀZ"), m.F, rff.FormatBytes(m.gram()), WorkerGCPercent)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
