package serve

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/parallel"
)

// chunkRows is the number of rows of a large request predicted at a time: the row block of the learners
// (blocks.Rows). Model.PredictRows maps and predicts its rows in blocks of this many rows, each block on one
// goroutine with scratch of about rows × (F + D) values (its features and projections: 29 MB for a d = 784,
// D = 4096 sr-butterfly map), and all of a call's blocks at once on GOMAXPROCS goroutines; requests answered
// together would multiply that. Cut into chunks of whole blocks, of which the whole server predicts at most
// GOMAXPROCS at once, the scratch stays at GOMAXPROCS blocks whatever the size and number of requests, and every
// block is computed as PredictRows on all rows computes it — the same bits.
const chunkRows = blocks.Rows

// chunkWorkers is a server-wide semaphore: one token per chunk of rows being predicted.
type chunkWorkers chan struct{}

func newChunkWorkers() chunkWorkers { return make(chunkWorkers, runtime.GOMAXPROCS(0)) }

// predict predicts the n rows of X (n×d) with m. Up to chunkRows rows are one call of m.PredictRows; more are cut
// into chunks of chunkRows rows that at most GOMAXPROCS goroutines of the whole server predict at once (see
// chunkRows). The chunks are PredictRows's own blocks, so the result holds the bits one PredictRows call on all n
// rows gives. A panic of a chunk is raised again on the caller's goroutine (the handler answers it 500). When ctx
// ends (the client left) the chunks not yet started are skipped and ctx's error is returned: a request nobody waits
// for stops holding its slot and the server's workers within a chunk's time.
func (s *Server) predict(ctx context.Context, m *rff.Model, X []float64, n, d int) (*rff.Prediction, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if n <= chunkRows {
		return m.PredictRows(X, n)
	}
	chunks := (n + chunkRows - 1) / chunkRows
	// The error answered is the first failed chunk's, as one PredictRows call would report the first bad row: a
	// chunk after a failed one is skipped, the chunks before it still run.
	var (
		out      *rff.Prediction
		outOnce  sync.Once
		errs     = make([]error, chunks)
		failedAt atomic.Int64 // the first failed chunk so far; chunks when none has failed
	)
	failedAt.Store(int64(chunks))
	work := func(c int) {
		if int64(c) > failedAt.Load() {
			return
		}
		r0 := c * chunkRows
		r1 := min(r0+chunkRows, n)
		p, err := s.predictChunk(ctx, m, X[r0*d:r1*d], r1-r0)
		if ctx.Err() != nil {
			return // the answer is ctx's error
		}
		if err != nil {
			if re, ok := errors.AsType[*rff.RowError](err); ok { // the row of the request, not of the chunk
				errs[c] = &rff.RowError{Row: r0 + re.Row, Reason: re.Reason}
			} else {
				errs[c] = fmt.Errorf("rows %d to %d: %w", r0+1, r1, err)
			}
			for f := failedAt.Load(); int64(c) < f && !failedAt.CompareAndSwap(f, int64(c)); f = failedAt.Load() {
			}
			return
		}
		outOnce.Do(func() {
			out = &rff.Prediction{N: n, Outputs: p.Outputs, Values: make([]float64, n*p.Outputs)}
			if p.Labels != nil {
				out.Classes, out.Labels = make([]int, n), make([]string, n)
			}
		})
		copy(out.Values[r0*p.Outputs:r1*p.Outputs], p.Values)
		if p.Labels != nil {
			copy(out.Classes[r0:r1], p.Classes)
			copy(out.Labels[r0:r1], p.Labels)
		}
	}
	// parallel.For runs the chunks on min(GOMAXPROCS, chunks) goroutines and raises a panic of one on this one.
	parallel.For(chunks, 0, work)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f := failedAt.Load(); f < int64(chunks) {
		return nil, errs[f]
	}
	return out, nil
}

// predictChunk predicts one chunk holding a token of s.chunks, which it returns even if PredictRows panics; it
// returns ctx's error instead when ctx ends before a token is free or before the chunk starts.
func (s *Server) predictChunk(ctx context.Context, m *rff.Model, X []float64, n int) (*rff.Prediction, error) {
	select {
	case s.chunks <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.chunks }()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return m.PredictRows(X, n)
}
