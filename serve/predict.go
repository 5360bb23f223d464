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
// into chunks of chunkRows rows (inChunks). The chunks are PredictRows's own blocks, so the result holds the bits
// one PredictRows call on all n rows gives.
func (s *Server) predict(ctx context.Context, m *rff.Model, X []float64, n, d int) (*rff.Prediction, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if n <= chunkRows {
		return m.PredictRows(X, n)
	}
	var (
		out     *rff.Prediction
		outOnce sync.Once
	)
	err := s.inChunks(ctx, n, func(r0, r1 int) error {
		p, err := m.PredictRows(X[r0*d:r1*d], r1-r0)
		if err != nil {
			return err
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
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// predictStd returns the n×p predictive standard deviations, noise included (Model.PredictStd), of the n rows of X
// (n×d), in chunks of chunkRows rows (inChunks), each row with the bits of one PredictStd call on all rows (a row's
// value does not depend on the others).
func (s *Server) predictStd(ctx context.Context, m *rff.Model, X []float64, n, d, p int) ([]float64, error) {
	out := make([]float64, n*p)
	err := s.inChunks(ctx, n, func(r0, r1 int) error {
		sd, err := m.PredictStd(X[r0*d:r1*d], r1-r0, true)
		if err != nil {
			return err
		}
		copy(out[r0*p:r1*p], sd)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// inChunks runs work on the n rows cut into chunks of chunkRows rows (r0 to r1), on min(GOMAXPROCS, chunks)
// goroutines of which at most GOMAXPROCS of the whole server work at once (one token of s.chunks per chunk, given
// back even if work panics; a panic is raised again on the caller's goroutine, and the handler answers it 500). It
// returns ctx's error when ctx ends — the chunks not yet started are skipped, a chunk waiting for a token stops
// waiting, so that a request nobody waits for stops holding its slot and the workers within a chunk's time — and
// otherwise the first failed chunk's error, as one call on all rows would report its first bad row (a chunk after a
// failed one is skipped, the chunks before it still run), naming the row of the request.
func (s *Server) inChunks(ctx context.Context, n int, work func(r0, r1 int) error) error {
	chunks := (n + chunkRows - 1) / chunkRows
	var (
		errs     = make([]error, chunks)
		failedAt atomic.Int64 // the first failed chunk so far; chunks when none has failed
	)
	failedAt.Store(int64(chunks))
	parallel.For(chunks, 0, func(c int) {
		if int64(c) > failedAt.Load() {
			return
		}
		select {
		case s.chunks <- struct{}{}:
		case <-ctx.Done():
			return
		}
		defer func() { <-s.chunks }()
		if ctx.Err() != nil {
			return
		}
		r0 := c * chunkRows
		r1 := min(r0+chunkRows, n)
		if err := work(r0, r1); err != nil {
			errs[c] = chunkError(err, r0, r1)
			for f := failedAt.Load(); int64(c) < f && !failedAt.CompareAndSwap(f, int64(c)); f = failedAt.Load() {
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	if f := failedAt.Load(); f < int64(chunks) {
		return errs[f]
	}
	return nil
}

// chunkError names, in err of the chunk of rows r0+1 to r1, the row of the request rather than of the chunk.
func chunkError(err error, r0, r1 int) error {
	if re, ok := errors.AsType[*rff.RowError](err); ok {
		return &rff.RowError{Row: r0 + re.Row, Reason: re.Reason}
	}
	return fmt.Errorf("rows %d to %d: %w", r0+1, r1, err)
}
