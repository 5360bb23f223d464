package ovk

import (
	"errors"
	"fmt"
	"math"

	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/internal/size"
)

// The operations of a model f̃(x) = Φ̃(x)ᵀθ on an ORFF map without forming Φ̃: predictions, the adjoint (the two
// halves of the normal-equation operator of ridge regression, ORFF paper Eq. (11)) and the Jacobian.

func (m *Map) checkTheta(theta []float64) error {
	if m == nil {
		return errors.New("ORFF map: nil map")
	}
	if len(theta) != m.Features() {
		return fmt.Errorf("ORFF map: θ has %d values, want %d features", len(theta), m.Features())
	}
	return nil
}

// predictRow writes f̃(x) = Φ̃(x)ᵀθ (length p) from the scalar features z (length 2D).
func (m *Map) predictRow(dst, z, theta []float64, u []float64) {
	n, p, pr := m.n, m.p, m.pr
	clear(dst[:p])
	if m.bstride == 0 { // decomposable: f = B·(Θᵀz)
		clear(u[:pr])
		for f, zf := range z {
			th := theta[f*pr : (f+1)*pr]
			for k, t := range th {
				u[k] += zf * t
			}
		}
		for a := 0; a < p; a++ {
			b := m.bs[a*pr : (a+1)*pr]
			var s float64
			for k, bk := range b {
				s += bk * u[k]
			}
			dst[a] = s
		}
		return
	}
	for j := 0; j < n; j++ {
		zc, zs := z[j], z[n+j]
		tc, ts := theta[j*pr:(j+1)*pr], theta[(n+j)*pr:(n+j+1)*pr]
		for k := range u[:pr] {
			u[k] = zc*tc[k] + zs*ts[k]
		}
		B := m.bs[j*m.bstride : (j+1)*m.bstride]
		for a := 0; a < p; a++ {
			b := B[a*pr : (a+1)*pr]
			var s float64
			for k, bk := range b {
				s += bk * u[k]
			}
			dst[a] += s
		}
	}
}

// Predict writes f̃(x_r) = Φ̃(x_r)ᵀθ for the rows of x (rows×d) into dst (rows×p, row-major), in O(D·p·p') per
// row without forming Φ̃, using all cores. It returns an error if a length does not match or an input is not finite.
func (m *Map) Predict(dst, x []float64, rows int, theta []float64) error {
	if err := m.checkX("ORFF map: Predict", x, rows); err != nil {
		return err
	}
	if err := m.checkTheta(theta); err != nil {
		return err
	}
	if !size.Is(len(dst), rows, m.p) {
		return fmt.Errorf("ORFF map: prediction has %d values, want %d rows × %d outputs", len(dst), rows, m.p)
	}
	m.forBlocks(rows, func(r0, nr int, proj []float64) {
		proj = m.project(proj, x[r0*m.d:(r0+nr)*m.d], nr)
		z := make([]float64, 2*m.n)
		u := make([]float64, m.pr)
		for r := 0; r < nr; r++ {
			m.scalar(z, proj[r*m.n:(r+1)*m.n])
			m.predictRow(dst[(r0+r)*m.p:(r0+r+1)*m.p], z, theta, u)
		}
	})
	return nil
}

// Adjoint adds Σ_r Φ̃(x_r)·y_r to dst (length F) for the rows of x (rows×d) and y (rows×p, row-major): the
// transpose of [Map.Predict], so that the ridge normal-equation operator is θ ↦ Adjoint(Predict(θ)) (matrix-free CG,
// and the gradient of the squared loss for L-BFGS). Rows are processed in parallel; partial sums are added in a fixed
// order, so the result does not depend on scheduling. It returns an error if a length does not match or an input is
// not finite.
func (m *Map) Adjoint(dst, x []float64, rows int, y []float64) error {
	if err := m.checkX("ORFF map: Adjoint", x, rows); err != nil {
		return err
	}
	F := m.Features()
	if len(dst) != F {
		return fmt.Errorf("ORFF map: adjoint destination has %d values, want %d features", len(dst), F)
	}
	if !size.Is(len(y), rows, m.p) {
		return fmt.Errorf("ORFF map: y has %d values, want %d rows × %d outputs", len(y), rows, m.p)
	}
	// A fixed number of chunks of consecutive rows (independent of the core count), each summed serially into its
	// own partial vector: bounded memory (adjointChunks·F) and a result independent of scheduling.
	blocks := (rows + blockRows - 1) / blockRows
	chunks := min(blocks, adjointChunks)
	perChunk := (blocks + chunks - 1) / chunks * blockRows
	partial := make([][]float64, chunks)
	parallel.For(chunks, 0, func(ch int) {
		g := make([]float64, F)
		n, p, pr := m.n, m.p, m.pr
		proj := make([]float64, blockRows*n)
		z := make([]float64, 2*n)
		c := make([]float64, pr)
		for r0 := ch * perChunk; r0 < min(rows, (ch+1)*perChunk); r0 += blockRows {
			nr := min(blockRows, rows-r0)
			t := m.project(proj, x[r0*m.d:(r0+nr)*m.d], nr)
			for r := 0; r < nr; r++ {
				m.scalar(z, t[r*n:(r+1)*n])
				yr := y[(r0+r)*p : (r0+r+1)*p]
				for j := 0; j < n; j++ {
					if j == 0 || m.bstride != 0 { // c = B_jᵀ y_r
						B := m.bs[j*m.bstride : j*m.bstride+p*pr]
						clear(c)
						for a, ya := range yr {
							b := B[a*pr : (a+1)*pr]
							for k, bk := range b {
								c[k] += bk * ya
							}
						}
					}
					gc, gs := g[j*pr:(j+1)*pr], g[(n+j)*pr:(n+j+1)*pr]
					zc, zs := z[j], z[n+j]
					for k, ck := range c {
						gc[k] += zc * ck
						gs[k] += zs * ck
					}
				}
			}
		}
		partial[ch] = g
	})
	for _, g := range partial {
		for i, v := range g {
			dst[i] += v
		}
	}
	return nil
}

// Jacobian writes the Jacobian ∂f̃_a/∂x_b of the model f̃(x) = Φ̃(x)ᵀθ at x into dst (p×d, row-major):
//
//	J = Σ_j √w_j · B(ω_j)·(−sin(ω_jᵀx)·Θ_j + cos(ω_jᵀx)·Θ_{D+j}) ω_jᵀ,
//
// with Θ_f the p' entries of θ for scalar column f. For a curl-free map J = Σ_j c_j ω_jω_jᵀ is symmetric; for a
// divergence-free map tr J = Σ_j c_jᵀB(ω_j)ᵀω_j = 0 (B(ω)ᵀω = 0): the learned fields are exactly curl-free or
// divergence-free, for every rule.
func (m *Map) Jacobian(dst, x, theta []float64) error {
	if err := m.checkX("ORFF map: Jacobian", x, 1); err != nil {
		return err
	}
	if err := m.checkTheta(theta); err != nil {
		return err
	}
	n, p, pr, d := m.n, m.p, m.pr, m.d
	if len(dst) != p*d {
		return fmt.Errorf("ORFF map: Jacobian has %d values, want %d×%d", len(dst), p, d)
	}
	m.omegaOnce.Do(m.computeOmega)
	t := m.project(nil, x, 1)
	clear(dst)
	u := make([]float64, pr)
	g := make([]float64, p)
	for j := 0; j < n; j++ {
		s, c := math.Sincos(t[j])
		tc, ts := theta[j*pr:(j+1)*pr], theta[(n+j)*pr:(n+j+1)*pr]
		for k := range u {
			u[k] = m.amp[j] * (c*ts[k] - s*tc[k])
		}
		B := m.bs[j*m.bstride : j*m.bstride+p*pr]
		for a := 0; a < p; a++ {
			b := B[a*pr : (a+1)*pr]
			var v float64
			for k, bk := range b {
				v += bk * u[k]
			}
			g[a] = v
		}
		om := m.omega[j*d : (j+1)*d]
		for a, ga := range g {
			row := dst[a*d : (a+1)*d]
			for b, ob := range om {
				row[b] += ga * ob
			}
		}
	}
	return nil
}
