package learn

import (
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/solve"
)

// statsOperator is A = ZᵀZ − s sᵀ/N (intercept) + NλI applied from accumulated statistics: ZᵀZ V by blas64.Symm
// on the upper triangle, the centring as a rank-one correction.
type statsOperator struct {
	s         *Stats
	lambda    float64
	intercept bool
}

func (o statsOperator) apply(dst, V []float64) {
	s := o.s
	F, P := s.F, s.P
	blas64.Symm(blas.Left, 1,
		blas64.Symmetric{Uplo: blas.Upper, N: F, Stride: F, Data: s.ZtZ},
		blas64.General{Rows: F, Cols: P, Stride: P, Data: V},
		0, blas64.General{Rows: F, Cols: P, Stride: P, Data: dst})
	finishOperator(dst, V, s.SumZ, F, P, float64(s.N), o.lambda, o.intercept)
}

// finishOperator adds −s(sᵀV)/N (when intercept) and NλV to dst = ZᵀZ V.
func finishOperator(dst, V, sumZ []float64, F, P int, N, lambda float64, intercept bool) {
	if intercept {
		sv := make([]float64, P)
		for i := range F {
			for j := range P {
				sv[j] += sumZ[i] * V[i*P+j]
			}
		}
		for i := range F {
			c := sumZ[i] / N
			for j := range P {
				dst[i*P+j] -= c * sv[j]
			}
		}
	}
	nl := N * lambda
	for i, v := range V {
		dst[i] += nl * v
	}
}

// rhs returns the centred (when intercept) right-hand side ZᵀY − N z̄ȳᵀ.
func (o statsOperator) rhs() []float64 {
	s := o.s
	return centredRHS(s.ZtY, s.SumZ, s.SumY, s.F, s.P, float64(s.N), o.intercept)
}

func centredRHS(ZtY, sumZ, sumY []float64, F, P int, N float64, intercept bool) []float64 {
	B := append([]float64(nil), ZtY...)
	if intercept {
		for i := range F {
			c := sumZ[i] / N
			for j := range P {
				B[i*P+j] -= c * sumY[j]
			}
		}
	}
	return B
}

func (o statsOperator) diag() []float64 {
	s := o.s
	F := s.F
	d := make([]float64, F)
	for i := range F {
		d[i] = s.ZtZ[i*F+i]
	}
	return centredDiag(d, s.SumZ, float64(s.N), o.lambda, o.intercept)
}

// centredDiag turns diag(ZᵀZ) into diag(A) in place.
func centredDiag(d, sumZ []float64, N, lambda float64, intercept bool) []float64 {
	for i := range d {
		if intercept {
			d[i] -= sumZ[i] * sumZ[i] / N
		}
		d[i] += N * lambda
	}
	return d
}

// SolveMatrixFree fits the ridge model r (Lambda, Intercept, Tol, MaxIter; Solver is ignored) on the features of X
// (n×d, d = m.Dim()) against Y (n×p) by Jacobi-preconditioned conjugate gradients that never form ZᵀZ: one pass
// over the data gathers ZᵀY, Σz, Σy and diag(ZᵀZ), then every iteration maps X again block by block and applies
// Zᵀ(ZV) (two Gemm per block), plus the rank-one centring and NλV. Memory is O(F·P + cores·BlockRows·F); time is
// (iterations + 2) passes of the feature map. Partial products are summed in a fixed shard order, so the result does
// not depend on GOMAXPROCS. A run that stops at MaxIter returns the last iterate with an error wrapping
// ErrNotConverged.
func (r Ridge) SolveMatrixFree(m *feature.Map, X []float64, n int, Y []float64, p int) (*Fit, error) {
	start := time.Now()
	if m == nil {
		return nil, errors.New("learn.SolveMatrixFree: nil feature map")
	}
	d, F := m.Dim(), m.Features()
	if err := blocks.CheckData("learn.SolveMatrixFree", X, n, d, Y, p); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("learn.SolveMatrixFree: no data (N = 0)")
	}
	if math.IsNaN(r.Lambda) || math.IsInf(r.Lambda, 0) || r.Lambda < 0 {
		return nil, fmt.Errorf("learn.SolveMatrixFree: λ = %v: need a finite λ ≥ 0", r.Lambda)
	}
	if !(r.Tol >= 0 && r.Tol < 1) || r.MaxIter < 0 {
		return nil, fmt.Errorf("learn.SolveMatrixFree: CG tolerance %v and iterations %d: need 0 ≤ Tol < 1 and MaxIter ≥ 0", r.Tol, r.MaxIter)
	}
	S := min(blocks.Count(n), 64)
	N := float64(n)

	// Pass 1: YᵀZ, Σz, Σy, diag(ZᵀZ) per shard, merged in shard order.
	type part struct{ ytZ, sumZ, sq []float64 }
	parts := make([]part, S)
	for s := range parts {
		parts[s] = part{make([]float64, p*F), make([]float64, F), make([]float64, F)}
	}
	mapBlocks(m, X, n, S, func(s int, z []float64, r0, rows int) {
		pt := parts[s]
		blas64.Gemm(blas.Trans, blas.NoTrans, 1,
			blas64.General{Rows: rows, Cols: p, Stride: p, Data: Y[r0*p : (r0+rows)*p]},
			blas64.General{Rows: rows, Cols: F, Stride: F, Data: z},
			1, blas64.General{Rows: p, Cols: F, Stride: F, Data: pt.ytZ})
		for i := range rows {
			for j, v := range z[i*F : (i+1)*F] {
				pt.sumZ[j] += v
				pt.sq[j] += v * v
			}
		}
	})
	ytZ, sumZ, sq := parts[0].ytZ, parts[0].sumZ, parts[0].sq
	for _, pt := range parts[1:] {
		addTo(ytZ, pt.ytZ)
		addTo(sumZ, pt.sumZ)
		addTo(sq, pt.sq)
	}
	ztY := transpose(ytZ, p, F)
	sumY := make([]float64, p)
	for i := range n {
		for j := range p {
			sumY[j] += Y[i*p+j]
		}
	}
	B := centredRHS(ztY, sumZ, sumY, F, p, N, r.Intercept)
	diag := centredDiag(sq, sumZ, N, r.Lambda, r.Intercept)

	// Each product A V is one more pass over the data.
	acc := make([][]float64, S)
	for s := range acc {
		acc[s] = make([]float64, F*p)
	}
	tbuf := make([][]float64, S)
	for s := range tbuf {
		tbuf[s] = make([]float64, BlockRows*p)
	}
	// Products run on transposes (Vᵀ, (ZᵀZV)ᵀ: p×F) so that gonum's Gemm works along rows of length F.
	apply := func(dst, V []float64) {
		vt := blas64.General{Rows: p, Cols: F, Stride: F, Data: transpose(V, F, p)}
		for s := range acc {
			clear(acc[s])
		}
		mapBlocks(m, X, n, S, func(s int, z []float64, _ int, rows int) {
			t := blas64.General{Rows: rows, Cols: p, Stride: p, Data: tbuf[s][:rows*p]}
			zb := blas64.General{Rows: rows, Cols: F, Stride: F, Data: z}
			blas64.Gemm(blas.NoTrans, blas.Trans, 1, zb, vt, 0, t)
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, t, zb, 1, blas64.General{Rows: p, Cols: F, Stride: F, Data: acc[s]})
		})
		for _, a := range acc[1:] {
			addTo(acc[0], a)
		}
		clear(dst)
		addTransposed(dst, acc[0], p, F)
		finishOperator(dst, V, sumZ, F, p, N, r.Lambda, r.Intercept)
	}
	res, cgErr := solve.PCG(apply, B, diag, F, p, r.tol(), r.maxIter(F))
	fit := &Fit{F: F, P: p, Theta: res.X, Bias: make([]float64, p), Lambda: r.Lambda, Intercept: r.Intercept}
	fit.Stats = SolveStats{Method: "cg-matrix-free", Iterations: res.Iterations, Residual: res.Residual}
	if r.Intercept {
		setBias(fit, sumZ, sumY, N)
	}
	fit.Stats.Seconds = time.Since(start).Seconds()
	if cgErr != nil {
		return fit, fmt.Errorf("learn.SolveMatrixFree: %w", cgErr)
	}
	return fit, nil
}
