package learn

import (
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rffkit/rff/feature"
)

// cgResult is the outcome of a preconditioned CG run.
type cgResult struct {
	X          []float64 // F×P
	Iterations int
	Residual   float64 // max_j ‖B_j − (A X)_j‖/‖B_j‖, recomputed with one extra product
}

// pcg solves A X = B for the P columns of B (F×P, row-major) at once with the Jacobi-preconditioned conjugate
// gradient method: every iteration applies A once to all still-active columns (apply(dst, V) sets dst = A V), and a
// column stops when its recursive residual falls to tol·‖B_j‖. diag is the diagonal of A (entries ≤ 0 are
// replaced by 1, which keeps the preconditioner positive).
func pcg(apply func(dst, V []float64), B, diag []float64, F, P int, tol float64, maxIter int) (cgResult, error) {
	inv := make([]float64, F)
	for i, v := range diag {
		if v > 0 && !math.IsInf(v, 0) {
			inv[i] = 1 / v
		} else {
			inv[i] = 1
		}
	}
	X := make([]float64, F*P)
	R := append([]float64(nil), B...)
	Pm := make([]float64, F*P)
	Q := make([]float64, F*P)
	bnorm := colNorms(B, F, P)
	rz := make([]float64, P)
	active := make([]bool, P)
	nActive := 0
	for j := range P {
		if bnorm[j] == 0 {
			continue
		}
		active[j] = true
		nActive++
		for i := range F {
			z := inv[i] * R[i*P+j]
			Pm[i*P+j] = z
			rz[j] += R[i*P+j] * z
		}
	}
	it := 0
	var breakdown error
	for ; nActive > 0 && it < maxIter; it++ {
		apply(Q, Pm)
		for j := range P {
			if !active[j] {
				continue
			}
			var pq float64
			for i := range F {
				pq += Pm[i*P+j] * Q[i*P+j]
			}
			if !(pq > 0) {
				breakdown = fmt.Errorf("output %d: pᵀAp = %g ≤ 0, the system is not positive definite: increase λ", j+1, pq)
				active[j] = false
				nActive--
				continue
			}
			alpha := rz[j] / pq
			var rr, rzNew float64
			for i := range F {
				X[i*P+j] += alpha * Pm[i*P+j]
				r := R[i*P+j] - alpha*Q[i*P+j]
				R[i*P+j] = r
				rr += r * r
				rzNew += r * inv[i] * r
			}
			if math.Sqrt(rr) <= tol*bnorm[j] {
				active[j] = false
				nActive--
				for i := range F {
					Pm[i*P+j] = 0
				}
				continue
			}
			beta := rzNew / rz[j]
			rz[j] = rzNew
			for i := range F {
				Pm[i*P+j] = inv[i]*R[i*P+j] + beta*Pm[i*P+j]
			}
		}
	}
	// True residual B − A X.
	apply(Q, X)
	for i := range Q {
		Q[i] -= B[i]
	}
	res := cgResult{X: X, Iterations: it, Residual: relResidual(Q, B, F, P)}
	if breakdown != nil {
		return res, breakdown
	}
	if nActive > 0 {
		return res, fmt.Errorf("%w after %d iterations (relative residual %.3g > %.3g)", ErrNotConverged, it, res.Residual, tol)
	}
	return res, nil
}

func colNorms(B []float64, F, P int) []float64 {
	n := make([]float64, P)
	for i := range F {
		for j := range P {
			n[j] += B[i*P+j] * B[i*P+j]
		}
	}
	for j := range n {
		n[j] = math.Sqrt(n[j])
	}
	return n
}

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

// SolveCG fits ridge regression without intercept on the features of X (n×d, d = m.Dim()) against Y (n×p) by
// matrix-free conjugate gradients: ZᵀZ is never formed (see Ridge.SolveMatrixFree). tol ≤ 0 and maxIter ≤ 0 select
// the defaults of Ridge.
func SolveCG(m *feature.Map, X []float64, n int, Y []float64, p int, lambda, tol float64, maxIter int) (*Fit, error) {
	return Ridge{Lambda: lambda, Tol: tol, MaxIter: maxIter, Solver: CG}.SolveMatrixFree(m, X, n, Y, p)
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
	if err := checkData("learn.SolveMatrixFree", X, n, d, Y, p); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("learn.SolveMatrixFree: no data (N = 0)")
	}
	if math.IsNaN(r.Lambda) || math.IsInf(r.Lambda, 0) || r.Lambda < 0 {
		return nil, fmt.Errorf("learn.SolveMatrixFree: λ = %v: need a finite λ ≥ 0", r.Lambda)
	}
	S := min(numBlocks(n), 64)
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
	res, cgErr := pcg(apply, B, diag, F, p, r.tol(), r.maxIter(F))
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
