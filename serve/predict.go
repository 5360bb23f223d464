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
			errs[c] = chunkError(err, r0, r1)
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

// chunkError names, in err of the chunk of rows r0+1 to r1, the row of the request rather than of the chunk.
func chunkError(err error, r0, r1 int) error {
	if re, ok := errors.AsType[*rff.RowError](err); ok {
		return &rff.RowError{Row: r0 + re.Row, Reason: re.Reason}
	}
	return fmt.Errorf("rows %d to %d: %w", r0+1, r1, err)
}

// predictStd returns the n×p predictive standard deviations, noise included (Model.PredictStd), of the n rows of X
// (n×d): in chunks of chunkRows rows on the server's workers as predict does, each row with the bits of one
// PredictStd call on all rows (a row's value does not depend on the others). The first failed chunk's error is
// returned, and ctx's error when ctx ends (the chunks not yet started are skipped).
func (s *Server) predictStd(ctx context.Context, m *rff.Model, X []float64, n, d, p int) ([]float64, error) {
	out := make([]float64, n*p)
	chunks := (n + chunkRows - 1) / chunkRows
	errs := make([]error, chunks)
	parallel.For(chunks, 0, func(c int) {
		r0 := c * chunkRows
		r1 := min(r0+chunkRows, n)
		select {
		case s.chunks <- struct{}{}:
		case <-ctx.Done():
			return
		}
		defer func() { <-s.chunks }()
		if ctx.Err() != nil {
			return
		}
		sd, err := m.PredictStd(X[r0*d:r1*d], r1-r0, true)
		if err != nil {
			errs[c] = chunkError(err, r0, r1)
			return
		}
		copy(out[r0*p:r1*p], sd)
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
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
