package rule

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

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

// Name returns "sr-butterfly" or, for Haar rotations, "sr-haar".
func (r SR) Name() string {
	if r.Rotation == Haar {
		return "sr-haar"
	}
	return "sr-butterfly"
}

// Rules returns the number of independent SR(3,3) rules a realization with D points in dimension d uses.
func (r SR) Rules(d, D int, even bool) int {
	if d < 1 || D < 1 {
		return 0
	}
	per := d + 1
	if !even {
		per *= 2
	}
	return (D + per - 1) / per
}

// Draw returns t = Rules(d, D, even) independent SR(3,3) rules, each with its own rotation Q and d+1 radii
// ρ_j ~ χ_{d+2}: for an even integrand the t(d+1) points ρ_jQv_j with weights d/((d+1)ρ_j²)/t, otherwise the 2t(d+1)
// points ±ρ_jQv_j with half that weight each (v_j the vertices of the regular simplex). Zero is the zero-node
// weight 1 − Σ_j w_j, which may be negative. With Haar rotations the realization is dense (and d > MaxSquareDim is
// refused); with butterfly rotations it is structured: it projects an input row in O(d log d) per rule without
// forming the points.
func (r SR) Draw(d, D int, even bool, rng *rand.Rand) (Points, error) {
	if err := checkSize(r.Name(), d, D, rng); err != nil {
		return nil, err
	}
	t := r.Rules(d, D, even)
	m := d + 1
	// D is rounded up to whole rules of d+1 points (2(d+1) for an odd integrand): the points drawn, not D, must
	// stay within the coordinates a map may hold, and a Haar rotation within its size, before anything is drawn.
	points := t * m // at most D + d: no overflow
	if !even {
		points *= 2
	}
	if err := checkSize(r.Name(), d, points, rng); err != nil {
		return nil, err
	}
	if r.Rotation == Haar {
		if err := checkSquare(r.Name(), d); err != nil {
			return nil, err
		}
	} else if r.Rotation != Butterfly {
		return nil, fmt.Errorf("rule %s: unknown rotation %d", r.Name(), int(r.Rotation))
	}
	if err := checkMemory(r, d, D, even); err != nil {
		return nil, err
	}
	rho := make([]float64, t*m)
	for i := range rho {
		rho[i] = chi(d+2, rng)
	}
	w, zero := srWeights(d, t, rho, even)
	per := len(w) / t
	if r.Rotation == Haar {
		V := structured.Simplex(d) // d×(d+1)
		W := make([]float64, t*per*d)
		QV := make([]float64, m*d) // row j is (Q v_j)ᵀ: QV = Vᵀ Qᵀ, one GEMM instead of m·d² strided dot products
		for k := 0; k < t; k++ {
			Q := structured.Haar(d, rng)
			blas64.Gemm(blas.Trans, blas.Trans, 1,
				blas64.General{Rows: d, Cols: m, Stride: m, Data: V},
				blas64.General{Rows: d, Cols: d, Stride: d, Data: Q},
				0, blas64.General{Rows: m, Cols: d, Stride: d, Data: QV})
			for j := 0; j < m; j++ {
				row := W[(k*per+j)*d : (k*per+j+1)*d]
				for i, v := range QV[j*d : (j+1)*d] {
					row[i] = rho[k*m+j] * v
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
	bf := make([]*rotation, t)
	for k := range bf {
		bf[k] = newRotation(d, rng)
	}
	return &srButterfly{d: d, t: t, even: even, per: per, rho: rho, bf: bf, w: w, zero: zero}, nil
}

// srWeights returns the weights of t SR(3,3) rules with radii rho (t·(d+1)) and the zero-node weight: each vertex
// carries d/((d+1)ρ²) per rule (averaged over the rules), split in half between ±ρQv when both points are kept.
func srWeights(d, t int, rho []float64, even bool) (w []float64, zero float64) {
	m := d + 1
	per := m
	if !even {
		per = 2 * m
	}
	w = make([]float64, t*per)
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
	return w, 1 - sum
}

// srButterfly projects ω_jᵀx = ρ_j v_jᵀ(Qᵀx) with a butterfly Q and the O(d) simplex product.
type srButterfly struct {
	d, t, per int
	even      bool
	rho       []float64
	bf        []*rotation
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
			rho := p.rho[k*m : (k+1)*m]
			if B == 1 { // one row: the simplex product scaled by the radii straight into dst, as transposeOut scales it
				row := dst[r0*D+k*p.per : r0*D+k*p.per+p.per]
				structured.SimplexTScaled(row[:m], y[:d], rho, d)
				if !p.even {
					for j, v := range row[:m] {
						row[m+j] = -v // (−ρ)·v = −(ρ·v) exactly
					}
				}
				continue
			}
			structured.SimplexT(out[:m*B], y[:d*B], d, B)
			transposeOut(dst, out[:m*B], rho, r0, B, m, k*p.per, D, 1)
			if !p.even {
				transposeOut(dst, out[:m*B], rho, r0, B, m, k*p.per+m, D, -1)
			}
		}
	}
}

// rotationFactors is the number of independent butterfly factors in a rotation.
const rotationFactors = 3

// rotation is Q = S₃B₃P₃·S₂B₂P₂·S₁B₁P₁: three independent random butterflies (Genz 1998), each with its own
// permutation P and random sign diagonal S. The reference code applies one (B·P) three times; independent factors
// and signs mix much better, which matters because SR(3,3) is unbiased only for Haar-distributed Q (Munkhoeva et
// al. 2018, §2.4): with repeated factors the estimate's bias is measurable (see TestButterflyBias). The cost per
// row is the same three butterfly passes.
type rotation struct {
	d     int
	b     [rotationFactors]*structured.Butterfly
	signs [rotationFactors][]float64
}

func newRotation(d int, rng *rand.Rand) *rotation {
	r := &rotation{d: d}
	for f := range r.b {
		r.b[f] = structured.NewButterfly(d, rng)
		r.b[f].Reps = 1
		s := make([]float64, d)
		for i := range s {
			s[i] = 1
			if rng.Uint64()&1 == 1 {
				s[i] = -1
			}
		}
		r.signs[f] = s
	}
	return r
}

// ApplyT computes y ← Qᵀy = P₁ᵀB₁ᵀS₁ P₂ᵀB₂ᵀS₂ P₃ᵀB₃ᵀS₃ y for a d×B coordinate-major block.
func (r *rotation) ApplyT(y []float64, B int, scratch []float64) {
	for f := rotationFactors - 1; f >= 0; f-- {
		r.b[f].ApplyTSigned(y, B, scratch, r.signs[f])
	}
}

// Dense returns Q as a d×d row-major matrix.
func (r *rotation) Dense() []float64 {
	d := r.d
	Q := make([]float64, d*d)
	for i := 0; i < d; i++ {
		Q[i*d+i] = 1
	}
	for f := 0; f < rotationFactors; f++ { // Q ← S_f B_f P_f · Q
		F := r.b[f].Dense()
		next := make([]float64, d*d)
		for i := 0; i < d; i++ {
			for k := 0; k < d; k++ {
				a := r.signs[f][i] * F[i*d+k]
				for j := 0; j < d; j++ {
					next[i*d+j] += a * Q[k*d+j]
				}
			}
		}
		Q = next
	}
	return Q
}
