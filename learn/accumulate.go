package learn

import (
	"errors"
	"fmt"
	"reflect"

	"gonum.org/v1/gonum/floats"

	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/parallel"
)

// maxShards bounds the number of partial ZᵀZ matrices an Accumulator keeps; shardBytes bounds their total size.
const (
	maxShards  = 8
	shardBytes = 512 << 20
)

// sharedGramMin is the smallest F for which an Accumulator keeps one ZᵀZ matrix updated by one multithreaded BLAS
// call per chunk (with the chunk mapped on all cores before it) instead of one matrix per shard of rows: from there
// on a rank-k update of ZᵀZ has enough work to keep every core busy, and one matrix is S times less memory, merge
// and cache traffic than S. Below it the updates are small and the shards run side by side.
const sharedGramMin = 1024

// numShards is the number of shards an Accumulator splits each batch of rows into for F features. It depends only
// on F (never on GOMAXPROCS), which makes accumulation deterministic.
func numShards(F int) int {
	if F >= sharedGramMin {
		return 1
	}
	return max(1, min(shardBytes/max(8*F*F, 1), maxShards))
}

// Accumulator builds the ridge statistics ([Stats]) of the features of rows that arrive in batches — a data set held
// in memory (one batch, [Accumulate]) or a file read in chunks — on all cores, with the features of only a few
// chunks in memory at any time (the N×F feature matrix is never formed).
//
// Each batch is cut into chunks of rows: 16 MiB of features, a multiple of BlockRows between 256 and 2048 rows
// (256 at F = 8192, 1024 at F = 2048), so that each rank-k update of ZᵀZ amortizes its pass over the F×F matrix.
// With F ≥ 1024 features there is one ZᵀZ: each chunk is mapped on all cores (blocks of BlockRows rows), then added
// to ZᵀZ by one BLAS-3 update that runs on all cores (OpenBLAS's threads, or the pure-Go kernel's goroutines), chunk
// after chunk in row order — the two phases never compete for the cores, and the Gram update, which is nearly all
// the work, runs at the rate of the BLAS. With fewer features the chunks are grouped into S contiguous shards (S ≤ 8)
// that run concurrently, each adding its chunks in row order to its own Stats, and [Accumulator.Stats] merges the
// shards in order. The layout depends only on the batch sizes and F, so the result is bit-for-bit identical for every
// GOMAXPROCS. Memory: S·F² (S = 1 from F = 1024) + 16 MiB per core (a shard's matrix is allocated when it first
// receives rows).
//
// An Accumulator is not safe for concurrent use; Add itself uses every core.
type Accumulator struct {
	m     Mapper
	p     int
	chunk int
	parts []*Stats
	done  bool

	// Progress, when not nil, is called after every chunk with the number of rows in it, from several goroutines
	// at once.
	Progress func(rows int)
}

// NewAccumulator returns an empty accumulator of the features of m (a *feature.Map, or any [Mapper]) against p
// outputs.
//
// It returns an error for a nil map, a map without features or inputs (a zero feature.Map), p < 1, and statistics
// too large for one array ([NewStats]).
func NewAccumulator(m Mapper, p int) (*Accumulator, error) {
	if isNil(m) {
		return nil, errors.New("learn.NewAccumulator: nil feature map")
	}
	if p < 1 {
		return nil, fmt.Errorf("learn.NewAccumulator: need p ≥ 1 outputs, have %d", p)
	}
	if err := checkMapper("learn.NewAccumulator", m); err != nil {
		return nil, err
	}
	if err := checkStatsSize("learn.NewAccumulator", m.Features(), p); err != nil {
		return nil, err
	}
	return newAccumulator(m, p), nil
}

// maxMapperPoints bounds a Mapper's Points, the projection scratch per row: a block of BlockRows rows needs
// BlockRows·Points values on every core (2 GiB at this bound), and no map a fit can hold comes near it.
const maxMapperPoints = 1 << 20

// checkMapper returns an error if m has no features or no input dimension (a zero feature.Map, say), or asks for
// more projection scratch per row than maxMapperPoints.
func checkMapper(where string, m Mapper) error {
	if m.Features() < 1 || m.Dim() < 1 {
		return fmt.Errorf("%s: the feature map has %d features on %d inputs (a map made by feature.New has at least "+
			"one of each)", where, m.Features(), m.Dim())
	}
	if p := m.Points(); p < 0 || p > maxMapperPoints {
		return fmt.Errorf("%s: the feature map asks for %d points of projection scratch per row (0 to %d)", where, p, maxMapperPoints)
	}
	return nil
}

func newAccumulator(m Mapper, p int) *Accumulator {
	F := m.Features()
	return &Accumulator{m: m, p: p, chunk: chunkRows(F), parts: make([]*Stats, numShards(F))}
}

// isNil reports whether m is nil or a nil pointer (a nil *feature.Map passed as a Mapper).
func isNil(m any) bool {
	if m == nil {
		return true
	}
	v := reflect.ValueOf(m)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// Add maps the n rows of X (n×d, row-major, d the map's input dimension) and accumulates them against Y (n×p). It
// returns an error, and accumulates nothing, if a length does not match or a value is NaN or infinite (row numbers
// in the message count from the start of this batch), or after Stats.
func (a *Accumulator) Add(X []float64, n int, Y []float64) error {
	return a.add("learn.Accumulator.Add", X, n, Y)
}

func (a *Accumulator) add(where string, X []float64, n int, Y []float64) error {
	if a == nil {
		return fmt.Errorf("%s: nil accumulator", where)
	}
	if isNil(a.m) {
		return fmt.Errorf("%s: the accumulator was not made by learn.NewAccumulator", where)
	}
	if a.done {
		return fmt.Errorf("%s: the accumulator's statistics were already taken", where)
	}
	if err := blocks.CheckData(where, X, n, a.m.Dim(), Y, a.p); err != nil {
		return err
	}
	if err := checkMapper(where, a.m); err != nil {
		return err
	}
	S, p := len(a.parts), a.p
	for s := range S {
		if r0, r1 := blocks.Shard(n, S, s, a.chunk); r1 > r0 && a.parts[s] == nil {
			st, err := NewStats(a.m.Features(), p)
			if err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			a.parts[s] = st
		}
	}
	if S == 1 {
		st := a.parts[0]
		lin := newLinearParts(a.m.Features(), p, a.chunk)
		blocks.MapChunks(a.m, X, n, a.chunk, nil, lin.block(Y), func(z []float64, r0, rows int) {
			linalg.Syrk(st.F, rows, 1, z, st.F, 1, st.ZtZ, st.F)
			st.sym = false
			lin.addTo(st, Y, r0, rows)
			if a.Progress != nil {
				a.Progress(rows)
			}
		})
		return nil
	}
	blocks.Map(a.m, X, n, S, a.chunk, nil, func(s int, z []float64, r0, rows int) {
		a.parts[s].Add(z, Y[r0*p:(r0+rows)*p], rows)
		if a.Progress != nil {
			a.Progress(rows)
		}
	})
	return nil
}

// linearParts computes the linear statistics of a chunk — ZᵀY, Σz, Σy, Σy² — block by block while the blocks are
// mapped (on all cores, each block's features still in cache), and adds them to a Stats in block order after the
// chunk: the same sums for every number of goroutines. A block's YᵀZ and Σz are axpys of its rows of features
// (gonum's assembly), row after row.
type linearParts struct {
	F, P, chunk int
	parts       []float64 // per block of the chunk: (P+1)×F, rows YᵀZ then Σz
}

func newLinearParts(F, P, chunk int) *linearParts {
	return &linearParts{F: F, P: P, chunk: chunk, parts: make([]float64, blocks.Count(chunk)*(P+1)*F)}
}

// block returns the per-block callback of blocks.MapChunks for targets Y (n×P) of the batch.
func (l *linearParts) block(Y []float64) func(z []float64, r0, rows int) {
	F, P := l.F, l.P
	return func(z []float64, r0, rows int) {
		b := r0 % l.chunk / blocks.Rows
		part := l.parts[b*(P+1)*F : (b+1)*(P+1)*F]
		clear(part)
		sum := part[P*F:]
		for r := range rows {
			zr := z[r*F : (r+1)*F]
			for j, y := range Y[(r0+r)*P : (r0+r+1)*P] {
				floats.AddScaled(part[j*F:(j+1)*F], y, zr)
			}
			floats.Add(sum, zr)
		}
	}
}

// addTo adds the linear statistics of the chunk of rows [r0, r0+rows) to st, block by block in row order.
func (l *linearParts) addTo(st *Stats, Y []float64, r0, rows int) {
	F, P := l.F, l.P
	for b := range blocks.Count(rows) {
		part := l.parts[b*(P+1)*F : (b+1)*(P+1)*F]
		addTransposed(st.ZtY, part[:P*F], P, F)
		addTo(st.SumZ, part[P*F:])
	}
	for i := r0; i < r0+rows; i++ {
		for j, v := range Y[i*P : (i+1)*P] {
			st.SumY[j] += v
			st.SumYY[j] += v * v
		}
	}
	st.N += rows
}

// Stats merges the shards in order and returns the finished statistics of every row added (N = 0 if none were).
// The accumulator cannot be used afterwards.
func (a *Accumulator) Stats() (*Stats, error) {
	if a == nil {
		return nil, errors.New("learn.Accumulator.Stats: nil accumulator")
	}
	if isNil(a.m) {
		return nil, errors.New("learn.Accumulator.Stats: the accumulator was not made by learn.NewAccumulator")
	}
	if a.done {
		return nil, errors.New("learn.Accumulator.Stats: the statistics were already taken")
	}
	a.done = true
	var total *Stats
	for _, o := range a.parts {
		switch {
		case o == nil:
		case total == nil:
			total = o
		default:
			if err := total.Merge(o); err != nil {
				return nil, fmt.Errorf("learn.Accumulator.Stats: %w", err)
			}
		}
	}
	a.parts = nil
	if total == nil {
		var err error
		if total, err = NewStats(a.m.Features(), a.p); err != nil {
			return nil, fmt.Errorf("learn.Accumulator.Stats: %w", err)
		}
	}
	if !total.sym {
		mirrorUpperParallel(total.ZtZ, total.F)
		total.sym = true
	}
	return total, nil
}

// mirrorUpperParallel is mirrorUpper (Stats.Finish) on all cores: the tiles of a row of tiles i0 are copied into
// the columns [i0, i0+mirrorTile) below the diagonal, which no other row of tiles writes. At F = 8192 the copy moves
// 256 MiB each way, a tenth of a second or more on one core.
func mirrorUpperParallel(A []float64, F int) {
	parallel.For((F+mirrorTile-1)/mirrorTile, 0, func(t int) {
		i0 := t * mirrorTile
		i1 := min(i0+mirrorTile, F)
		for j0 := i0; j0 < F; j0 += mirrorTile {
			j1 := min(j0+mirrorTile, F)
			for i := i0; i < i1; i++ {
				for j := max(j0, i+1); j < j1; j++ {
					A[j*F+i] = A[i*F+j]
				}
			}
		}
	})
}

// Accumulate maps the n rows of X (n×d, row-major, d = m.Dim()) through m and returns the finished statistics of
// the features against Y (n×p): one batch through an [Accumulator] (chunks of rows mapped on all cores and added
// to per-shard ZᵀZ matrices, merged in row order; bit-for-bit the same for every GOMAXPROCS). To follow the
// progress of a long batch, or to add rows in several batches, use an Accumulator and its Progress field.
func Accumulate(m Mapper, X []float64, n int, Y []float64, p int) (*Stats, error) {
	if isNil(m) {
		return nil, errors.New("learn.Accumulate: nil feature map")
	}
	acc := newAccumulator(m, p)
	if err := acc.add("learn.Accumulate", X, n, Y); err != nil {
		return nil, err
	}
	return acc.Stats()
}
