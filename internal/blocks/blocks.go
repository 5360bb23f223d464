// Package blocks passes over the rows of a data set for the learners of packages learn and vector: it validates
// them ([CheckData], [CheckX]) and λ ([CheckLambda]) and maps them through a feature map in chunks of rows on all
// cores ([Map]). The rows are cut into S contiguous shards of whole chunks ([Shard]), a partition that depends only
// on the number of rows, S and the chunk size — never on the number of goroutines — so that sums kept per shard and
// combined in shard order are the same bits on every machine and core count.
package blocks

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/rffkit/rff/internal/finite"
	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/internal/size"
)

// Rows is the number of rows in a block: the unit of the chunks that learners map at a time.
const Rows = 256

// Mapper is what the row loops need of a feature map: the input dimension d, the number of features F, the scratch
// per row for the projections (Points values), and the block transform of rows×d inputs into rows×F features
// (feature.Map.TransformBlock, or the scalar cos/sin features of an ORFF map).
type Mapper interface {
	Dim() int
	Features() int
	Points() int
	TransformBlock(z, x []float64, rows int, proj []float64)
}

// Count is the number of blocks of Rows rows in n rows (0 for n ≤ 0; no overflow for n near math.MaxInt).
func Count(n int) int {
	if n <= 0 {
		return 0
	}
	return (n-1)/Rows + 1
}

// Shard returns the rows [r0, r1) of shard s when n rows, cut into chunks of chunk rows, are split into S
// contiguous shards of whole chunks. The partition depends only on n, S and chunk.
func Shard(n, S, s, chunk int) (r0, r1 int) {
	nb := (n + chunk - 1) / chunk
	b0 := s * nb / S
	b1 := (s + 1) * nb / S
	return min(b0*chunk, n), min(b1*chunk, n)
}

// Map maps the n rows of X (n×m.Dim()) in S shards of whole chunks of chunk rows (see [Shard]) on all cores and
// calls fn(s, z, r0, rows) for every chunk of each shard, in row order within the shard, with z the chunk's
// rows×F features (a buffer reused after fn returns). Different shards run concurrently; fn must only touch state
// owned by shard s. When projOut is not nil (n×m.Points()), the transform uses the chunk's rows of projOut as its
// projection scratch: for feature.Map.TransformBlock they then keep the projections of every row.
func Map(m Mapper, X []float64, n, S, chunk int, projOut []float64, fn func(s int, z []float64, r0, rows int)) {
	d, F, pts := m.Dim(), m.Features(), m.Points()
	c := min(chunk, n)
	// Buffers per goroutine, not per shard: a shard's buffers are free again when it ends, and fresh memory costs
	// a page fault per 4 KiB at first touch (a tenth of a small fit's time).
	workers := max(1, min(runtime.GOMAXPROCS(0), S))
	zbs, pbs := make([]*[]float64, workers), make([]*[]float64, workers)
	defer func() {
		for w := range workers {
			for _, b := range []*[]float64{zbs[w], pbs[w]} {
				if b != nil {
					putBuf(b)
				}
			}
		}
	}()
	parallel.ForWorker(S, workers, func(w, s int) {
		r0, r1 := Shard(n, S, s, chunk)
		if r1 <= r0 {
			return
		}
		if zbs[w] == nil {
			zbs[w] = getBuf(c * F)
			if projOut == nil && pts > 0 {
				pbs[w] = getBuf(c * pts)
			}
		}
		zb, pb := zbs[w], pbs[w]
		for b := r0; b < r1; b += chunk {
			r := min(chunk, r1-b)
			var proj []float64
			if pb != nil {
				proj = *pb
			}
			z := (*zb)[:r*F]
			if projOut != nil {
				proj = projOut[b*pts : (b+r)*pts]
			}
			m.TransformBlock(z, X[b*d:(b+r)*d], r, proj)
			fn(s, z, b, r)
		}
	})
}

// MapChunks maps the n rows of X (n×m.Dim()) in chunks of chunk rows, one chunk after the other in row order, and
// calls fn(z, r0, rows) on the calling goroutine after each chunk with its rows×F features (a buffer reused after fn
// returns). Each chunk is cut into blocks of [Rows] rows that are mapped on all cores, so the features are the same
// bits for every number of goroutines, and fn — a Gram update that runs its own threads, say — has every core to
// itself. each, when not nil, is called on the mapping goroutine after every block with the block's features and
// its first row and number of rows (to round them to float32 in parallel, for example); it must only write state
// owned by those rows. When projOut is not nil (n×m.Points()), the transforms use the blocks' rows of projOut as
// their projection scratch and keep the projections of every row.
//
// Blocks of Rows rows are small enough that a chunk of 1024 rows keeps two cores busy, and large enough that the
// dense projection of a block (a matrix product) runs at the product's rate.
func MapChunks(m Mapper, X []float64, n, chunk int, projOut []float64, each func(z []float64, r0, rows int),
	fn func(z []float64, r0, rows int)) {
	if n <= 0 {
		return
	}
	d, F, pts := m.Dim(), m.Features(), m.Points()
	chunk = max(chunk, 1)
	c := min(chunk, n)
	zb := getBuf(c * F)
	defer putBuf(zb)
	workers := max(1, min(runtime.GOMAXPROCS(0), Count(c)))
	var scratch []*[]float64
	if projOut == nil && pts > 0 {
		scratch = make([]*[]float64, workers)
		for w := range scratch {
			scratch[w] = getBuf(min(Rows, c) * pts)
			defer putBuf(scratch[w])
		}
	}
	mapChunk := func(z []float64, b, r int) {
		parallel.ForWorker(Count(r), workers, func(w, i int) {
			i0 := i * Rows
			i1 := min(i0+Rows, r)
			var proj []float64
			switch {
			case projOut != nil:
				proj = projOut[(b+i0)*pts : (b+i1)*pts]
			case scratch != nil:
				proj = (*scratch[w])[:(i1-i0)*pts]
			}
			zi := z[i0*F : i1*F]
			m.TransformBlock(zi, X[(b+i0)*d:(b+i1)*d], i1-i0, proj)
			if each != nil {
				each(zi, b+i0, i1-i0)
			}
		})
	}
	for b := 0; b < n; b += chunk {
		r := min(chunk, n-b)
		z := (*zb)[:r*F]
		mapChunk(z, b, r)
		fn(z, b, r)
	}
}

// bufPools holds scratch buffers across calls of Map and MapChunks, so that a long run of calls (a streamed fit, a
// server) reuses them instead of leaving a new set to the garbage collector at every call: one *sync.Pool per
// length. A pool shared by every size would hand a small request (a core's projections) a whole chunk of features,
// and the next chunk request, finding only small buffers, a new one — the memory of the chunks twice over.
var bufPools sync.Map // int → *sync.Pool of *[]float64 of that length

func bufPool(n int) *sync.Pool {
	if p, ok := bufPools.Load(n); ok {
		return p.(*sync.Pool)
	}
	p, _ := bufPools.LoadOrStore(n, new(sync.Pool))
	return p.(*sync.Pool)
}

// getBuf returns a buffer of length and capacity n from the pool of its length, or a new one.
func getBuf(n int) *[]float64 {
	if b, ok := bufPool(n).Get().(*[]float64); ok {
		return b
	}
	b := make([]float64, n)
	return &b
}

// putBuf returns a buffer from getBuf to the pool of its length.
func putBuf(b *[]float64) { bufPool(len(*b)).Put(b) }

// CheckLambda returns an error when N·λ, the penalty on the diagonal of ZᵀZ + NλI (and of K + NλI) for n rows, is
// not a finite float64: the system cannot be formed, and a larger λ cannot help. where prefixes the message.
func CheckLambda(where string, n int, lambda float64) error {
	if math.IsInf(float64(n)*lambda, 0) {
		return fmt.Errorf("%sλ = %g: N·λ = %d·%g overflows floating point, so the ridge term NλI cannot be formed; lower λ", where, lambda, n, lambda)
	}
	return nil
}

// CheckData validates the shapes and values of a data set (X n×d, Y n×p); where prefixes the message.
func CheckData(where string, X []float64, n, d int, Y []float64, p int) error {
	if n < 0 || d < 1 || p < 1 {
		return fmt.Errorf("%s: need n ≥ 0, d ≥ 1, p ≥ 1, have n=%d, d=%d, p=%d", where, n, d, p)
	}
	if !size.Is(len(X), n, d) {
		return fmt.Errorf("%s: X has %d values, want %d rows × %d columns", where, len(X), n, d)
	}
	if !size.Is(len(Y), n, p) {
		return fmt.Errorf("%s: Y has %d values, want %d rows × %d outputs", where, len(Y), n, p)
	}
	if err := CheckX(where, X, n, d); err != nil {
		return err
	}
	if i := finite.Index(Y); i >= 0 {
		return fmt.Errorf("%s: Y row %d, output %d is %v", where, i/p+1, i%p+1, Y[i])
	}
	return nil
}

// CheckX validates the shape and values of inputs X (n×d); where prefixes the message.
func CheckX(where string, X []float64, n, d int) error {
	if n < 0 || d < 1 {
		return fmt.Errorf("%s: need n ≥ 0 and d ≥ 1, have n=%d, d=%d", where, n, d)
	}
	if !size.Is(len(X), n, d) {
		return fmt.Errorf("%s: X has %d values, want %d rows × %d columns", where, len(X), n, d)
	}
	if i := finite.Index(X); i >= 0 {
		return fmt.Errorf("%s: X row %d, column %d is %v", where, i/d+1, i%d+1, X[i])
	}
	return nil
}
