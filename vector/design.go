package vector

import (
	"gonum.org/v1/gonum/floats"

	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/ovk"
)

// designOp applies the ORFF design matrix of the training rows and its transpose: predict writes Φ̃(x_i)ᵀθ
// (n×p) and adjoint adds Σ_i Φ̃(x_i)y_i to dst (F).
type designOp interface {
	predict(dst, theta []float64) error
	adjoint(dst, y []float64) error
}

// mapDesign recomputes the features at every product through ovk.Map.Predict and ovk.Map.Adjoint (memory O(F + n·p)).
type mapDesign struct {
	m *ovk.Map
	X []float64
	n int
}

func (l mapDesign) predict(dst, theta []float64) error { return l.m.Predict(dst, l.X, l.n, theta) }
func (l mapDesign) adjoint(dst, y []float64) error     { return l.m.Adjoint(dst, l.X, l.n, y) }

// cachedDesign holds the scalar features Z (n×2D) of the training rows and applies the design matrix from them and
// the factors B(ω_j), with the layout of ovk.Map: with U[i,(j,k)] = z_ij θ_(j,k) + z_i,D+j θ_(D+j,k),
// Φ̃(x_i)ᵀθ = Σ_{j,k} U[i,(j,k)]·B_j[·,k], a product U·Bst with Bst the (D·p')×p stack of the columns of the B_j; the
// adjoint forms V = Y·Bstᵀ and sums z_ij·V[i,(j,k)] and z_i,D+j·V[i,(j,k)] over i. No sines or cosines are
// recomputed: O(n·D·p'·p) per product. Row blocks run in parallel; the adjoint's partial sums are merged in a fixed
// order, so results do not depend on scheduling.
type cachedDesign struct {
	Z              []float64 // n×2D
	Bst            []float64 // (D·p')×p
	n, D, p, pr, S int
	buf            [][]float64 // per shard: learn.BlockRows×(D·p') scratch
}

func newCachedDesign(m *ovk.Map, fac factors, X []float64, n int) *cachedDesign {
	D, p, pr := fac.D, fac.p, fac.pr
	c := &cachedDesign{Z: make([]float64, n*2*D), Bst: make([]float64, D*pr*p), n: n, D: D, p: p, pr: pr,
		S: min(blocks.Count(n), 16)}
	scalarBlocks(m, X, n, blocks.Count(n), func(_ int, z []float64, r0, rows int) {
		copy(c.Z[r0*2*D:(r0+rows)*2*D], z)
	})
	c.buf = make([][]float64, c.S)
	for s := range c.buf {
		c.buf[s] = make([]float64, min(learn.BlockRows, n)*D*pr)
	}
	for j := 0; j < D; j++ {
		Bj := fac.B[j*p*pr : (j+1)*p*pr]
		for k := 0; k < pr; k++ {
			for a := 0; a < p; a++ {
				c.Bst[(j*pr+k)*p+a] = Bj[a*pr+k]
			}
		}
	}
	return c
}

func cachedBytes(n, D, pr int) float64 {
	return 8 * (float64(n)*2*float64(D) + float64(min(n, learn.BlockRows))*float64(D*pr)*float64(min(blocks.Count(n), 16)))
}

func (c *cachedDesign) predict(dst, theta []float64) error {
	D, p, pr, Dp := c.D, c.p, c.pr, c.D*c.pr
	parallel.For(c.S, 0, func(s int) {
		r0, r1 := blocks.Shard(c.n, c.S, s, learn.BlockRows)
		for b := r0; b < r1; b += learn.BlockRows {
			rows := min(learn.BlockRows, r1-b)
			U := c.buf[s][:rows*Dp]
			for i := 0; i < rows; i++ {
				z := c.Z[(b+i)*2*D : (b+i+1)*2*D]
				u := U[i*Dp : (i+1)*Dp]
				for j := 0; j < D; j++ {
					zc, zs := z[j], z[D+j]
					tc, ts := theta[j*pr:(j+1)*pr], theta[(D+j)*pr:(D+j+1)*pr]
					for k := range tc {
						u[j*pr+k] = zc*tc[k] + zs*ts[k]
					}
				}
			}
			gemm(false, false, rows, p, Dp, 1, U, c.Bst, 0, dst[b*p:(b+rows)*p])
		}
	})
	return nil
}

func (c *cachedDesign) adjoint(dst, y []float64) error {
	D, p, pr, Dp, F := c.D, c.p, c.pr, c.D*c.pr, 2*c.D*c.pr
	partial := make([][]float64, c.S)
	parallel.For(c.S, 0, func(s int) {
		g := make([]float64, F)
		r0, r1 := blocks.Shard(c.n, c.S, s, learn.BlockRows)
		for b := r0; b < r1; b += learn.BlockRows {
			rows := min(learn.BlockRows, r1-b)
			v := c.buf[s][:rows*Dp]
			gemm(false, true, rows, Dp, p, 1, y[b*p:(b+rows)*p], c.Bst, 0, v)
			for i := 0; i < rows; i++ {
				z := c.Z[(b+i)*2*D : (b+i+1)*2*D]
				vi := v[i*Dp : (i+1)*Dp]
				for j := 0; j < D; j++ {
					zc, zs := z[j], z[D+j]
					gc, gs := g[j*pr:(j+1)*pr], g[(D+j)*pr:(D+j+1)*pr]
					for k, vk := range vi[j*pr : (j+1)*pr] {
						gc[k] += zc * vk
						gs[k] += zs * vk
					}
				}
			}
		}
		partial[s] = g
	})
	for _, g := range partial {
		floats.Add(dst, g)
	}
	return nil
}

// linear returns the design-matrix operator of the training rows for CG and L-BFGS: cached scalar features when they
// fit in MaxBytes, the map's Predict/Adjoint otherwise.
func (r Ridge) linear(m *ovk.Map, fac factors, X []float64, n int) designOp {
	limit := r.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	if cachedBytes(n, m.Points(), m.Rank()) <= float64(limit) {
		return newCachedDesign(m, fac, X, n)
	}
	return mapDesign{m: m, X: X, n: n}
}

// normalOp applies the (centred) normal-equation operator θ ↦ Σ_i (Φ̃_i − Φ̄)(Φ̃_i − Φ̄)ᵀθ + Nλθ without forming
// ΦᵀΦ; the centring subtracts the column means of the predictions, since Σ_i (Φ̃_i − Φ̄) = 0.
type normalOp struct {
	lin       designOp
	n, p      int
	lambda    float64
	intercept bool
	pred      []float64
	err       error
}

func (o *normalOp) apply(dst, v []float64) {
	if o.pred == nil {
		o.pred = make([]float64, o.n*o.p)
	}
	if err := o.lin.predict(o.pred, v); err != nil && o.err == nil {
		o.err = err
	}
	if o.intercept {
		centreColumns(o.pred, o.n, o.p)
	}
	clear(dst)
	if err := o.lin.adjoint(dst, o.pred); err != nil && o.err == nil {
		o.err = err
	}
	floats.AddScaled(dst, float64(o.n)*o.lambda, v)
}

// designRHS returns h = Σ_i Φ̃_i(y_i − ȳ) (or Σ_i Φ̃_i y_i without intercept; F values) and ȳ.
func designRHS(lin designOp, F, n, p int, Y []float64, intercept bool) (h, ybar []float64, err error) {
	ybar = make([]float64, p)
	yc := Y
	if intercept {
		yc = append([]float64(nil), Y...)
		ybar = centreColumns(yc, n, p)
	}
	h = make([]float64, F)
	if err := lin.adjoint(h, yc); err != nil {
		return nil, nil, err
	}
	return h, ybar, nil
}

// designDiag returns the diagonal of the (centred) normal matrix, Σ_i (z_f(x_i) − z̄_f)²·‖B_j[·,k]‖² + Nλ, from one
// pass over the scalar features (the Jacobi preconditioner of CG).
func designDiag(m *ovk.Map, fac factors, X []float64, n int, lambda float64, intercept bool) []float64 {
	F2 := m.ScalarFeatures()
	S := min(blocks.Count(n), 8)
	sums := make([][]float64, S)
	sqs := make([][]float64, S)
	for s := range sums {
		sums[s], sqs[s] = make([]float64, F2), make([]float64, F2)
	}
	scalarBlocks(m, X, n, S, func(s int, z []float64, _ int, rows int) {
		for i := 0; i < rows; i++ {
			for f, v := range z[i*F2 : (i+1)*F2] {
				sums[s][f] += v
				sqs[s][f] += v * v
			}
		}
	})
	for s := 1; s < S; s++ {
		floats.Add(sums[0], sums[s])
		floats.Add(sqs[0], sqs[s])
	}
	N := float64(n)
	D, p, pr := fac.D, fac.p, fac.pr
	diag := make([]float64, m.Features())
	for f := 0; f < F2; f++ {
		v := sqs[0][f]
		if intercept {
			v -= sums[0][f] * sums[0][f] / N
		}
		Bj := fac.B[(f%D)*p*pr : (f%D+1)*p*pr]
		for k := 0; k < pr; k++ {
			var c float64
			for a := 0; a < p; a++ {
				c += Bj[a*pr+k] * Bj[a*pr+k]
			}
			diag[f*pr+k] = v*c + N*lambda
		}
	}
	return diag
}

// designBias returns b = ȳ − (1/N)Σ_i Φ̃(x_i)ᵀθ.
func designBias(lin designOp, n, p int, theta, ybar []float64) ([]float64, error) {
	pred := make([]float64, n*p)
	if err := lin.predict(pred, theta); err != nil {
		return nil, err
	}
	mean := centreColumns(pred, n, p)
	b := make([]float64, p)
	for a := range b {
		b[a] = ybar[a] - mean[a]
	}
	return b, nil
}
