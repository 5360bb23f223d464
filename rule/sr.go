package rule

import (
	"math/rand/v2"

	"github.com/rffkit/rff/internal/structured"
)

// Rotation selects the random orthogonal matrix of an SR rule.
type Rotation int

const (
	// Butterfly is a random butterfly matrix (Genz 1998), applied in O(d log d).
	Butterfly Rotation = iota
	// Haar is a Haar-distributed orthogonal matrix (sign-fixed QR), applied densely.
	Haar
)

// SR is the stochastic spherical–radial rule of degree (3,3) with one χ_{d+2} radius per simplex vertex.
type SR struct{ Rotation Rotation }

func (r SR) Name() string {
	if r.Rotation == Haar {
		return "sr-haar"
	}
	return "sr-butterfly"
}

// Rules returns the number of independent SR(3,3) rules a realization with D points in dimension d uses.
func (r SR) Rules(d, D int, even bool) int {
	per := d + 1
	if !even {
		per *= 2
	}
	return (D + per - 1) / per
}

func (r SR) Draw(d, D int, even bool, rng *rand.Rand) (Points, error) {
	if err := checkSize(r.Name(), d, D); err != nil {
		return nil, err
	}
	t := r.Rules(d, D, even)
	m := d + 1
	rho := make([]float64, t*m)
	for i := range rho {
		rho[i] = chi(d+2, rng)
	}
	// Weights: each vertex carries d/((d+1)ρ²) per rule, split in half between ±ρQv when both points are kept.
	per := m
	if !even {
		per = 2 * m
	}
	w := make([]float64, t*per)
	var sum float64
	for k := 0; k < t; k++ {
		for j := 0; j < m; j++ {
			a := float64(d) / (float64(m) * rho[k*m+j] * rho[k*m+j]) / float64(t)
			if even {
				w[k*per+j] = a
			} else {
				w[k*per+j], w[k*per+m+j] = a/2, a/2
			}
			sum += a
		}
	}
	zero := 1 - sum
	if r.Rotation == Haar {
		V := structured.Simplex(d) // d×(d+1)
		W := make([]float64, t*per*d)
		for k := 0; k < t; k++ {
			Q := structured.Haar(d, rng)
			for j := 0; j < m; j++ {
				row := W[(k*per+j)*d : (k*per+j+1)*d]
				for i := 0; i < d; i++ { // (Q v_j)_i
					var s float64
					for l := 0; l < d; l++ {
						s += Q[i*d+l] * V[l*m+j]
					}
					row[i] = rho[k*m+j] * s
				}
				if !even {
					neg := W[(k*per+m+j)*d : (k*per+m+j+1)*d]
					for i, v := range row {
						neg[i] = -v
					}
				}
			}
		}
		return newDense(W, t*per, d, w, zero), nil
	}
	bf := make([]*structured.Butterfly, t)
	for k := range bf {
		bf[k] = structured.NewButterfly(d, rng)
	}
	return &srButterfly{d: d, t: t, even: even, per: per, rho: rho, bf: bf, w: w, zero: zero}, nil
}

// srButterfly projects ω_jᵀx = ρ_j v_jᵀ(Qᵀx) with a butterfly Q and the O(d) simplex product.
type srButterfly struct {
	d, t, per int
	even      bool
	rho       []float64
	bf        []*structured.Butterfly
	w         []float64
	zero      float64
}

func (p *srButterfly) Dim() int           { return p.d }
func (p *srButterfly) Len() int           { return p.t * p.per }
func (p *srButterfly) Weights() []float64 { return p.w }
func (p *srButterfly) Zero() float64      { return p.zero }
func (p *srButterfly) Project(dst, x []float64, rows int) {
	d, m, D := p.d, p.d+1, p.Len()
	// Scratch: the input block, its rotated copy, the butterfly's permutation buffer (d×batch each) and the
	// simplex output ((d+1)×batch), all coordinate-major.
	bufp := getScratch((4*d + 1) * batch)
	defer scratchPool.Put(bufp)
	buf := *bufp
	xt, y, scr, out := buf[:d*batch], buf[d*batch:2*d*batch], buf[2*d*batch:3*d*batch], buf[3*d*batch:]
	for r0 := 0; r0 < rows; r0 += batch {
		B := min(batch, rows-r0)
		transposeIn(xt[:d*B], x, r0, B, d, d)
		for k := 0; k < p.t; k++ {
			copy(y[:d*B], xt[:d*B])
			p.bf[k].ApplyT(y[:d*B], B, scr)
			structured.SimplexT(out[:m*B], y[:d*B], d, B)
			rho := p.rho[k*m : (k+1)*m]
			transposeOut(dst, out[:m*B], rho, r0, B, m, k*p.per, D, 1)
			if !p.even {
				transposeOut(dst, out[:m*B], rho, r0, B, m, k*p.per+m, D, -1)
			}
		}
	}
}
