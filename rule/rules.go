package rule

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/rffkit/rff/internal/structured"
)

// G draws iid standard Gaussian points with equal weights (plain random Fourier features).
type G struct{}

// Name returns "g".
func (G) Name() string { return "g" }

// Draw returns D points with iid N(0, 1) coordinates as a dense realization, with weights 1/D and no zero node;
// even is ignored. It returns an error for a nil rng, d < 1, D < 1 or more than 2^31 coordinates.
func (r G) Draw(d, D int, even bool, rng *rand.Rand) (Points, error) {
	if err := checkSize(r.Name(), d, D, rng); err != nil {
		return nil, err
	}
	if err := checkMemory(r, d, D, even); err != nil {
		return nil, err
	}
	W := make([]float64, D*d)
	for i := range W {
		W[i] = rng.NormFloat64()
	}
	return newDense(W, D, d, nil, 0), nil
}

// ORF draws blocks of d orthogonal points S·Q: Q Haar orthogonal, S diagonal with iid χ_d entries, one per point.
// Independent blocks are stacked until D points; the last block is truncated.
type ORF struct{}

// Name returns "orf".
func (ORF) Name() string { return "orf" }

// Draw returns D points in ⌈D/d⌉ independent blocks S·Q (the last one truncated) as a dense realization, with
// weights 1/D and no zero node; even is ignored. Besides the size errors of every rule, it refuses d > MaxSquareDim.
func (r ORF) Draw(d, D int, even bool, rng *rand.Rand) (Points, error) {
	if err := checkSize(r.Name(), d, D, rng); err != nil {
		return nil, err
	}
	if err := checkSquare(r.Name(), d); err != nil {
		return nil, err
	}
	if err := checkMemory(r, d, D, even); err != nil {
		return nil, err
	}
	W := make([]float64, D*d)
	for start := 0; start < D; start += d {
		Q := structured.Haar(d, rng)
		for i := 0; i < d && start+i < D; i++ {
			s := chi(d, rng)
			row := W[(start+i)*d : (start+i+1)*d]
			for k := range row {
				row[k] = s * Q[i*d+k]
			}
		}
	}
	return newDense(W, D, d, nil, 0), nil
}

// chi draws from the χ distribution with k degrees of freedom (the norm of a k-dimensional standard Gaussian).
func chi(k int, rng *rand.Rand) float64 {
	var s float64
	for range k {
		z := rng.NormFloat64()
		s += z * z
	}
	return math.Sqrt(s)
}

// SORF draws structured orthogonal blocks √n·H D₁ H D₂ H D₃ (n = 2^⌈log₂ d⌉), applied with fast Walsh–Hadamard
// transforms. Blocks is the number of HD factors (default 3).
type SORF struct{ Blocks int }

// Name returns "sorf".
func (SORF) Name() string { return "sorf" }

// Draw returns a structured realization of D points: ⌈D/n⌉ independent blocks √n·H D₁ H D₂ H D₃ (Blocks random sign
// diagonals each), the rows of the last block truncated, applied to the zero-padded input by fast Walsh–Hadamard
// transforms without forming the points. The weights are 1/D and there is no zero node; even is ignored.
func (r SORF) Draw(d, D int, even bool, rng *rand.Rand) (Points, error) {
	if err := checkSize(r.Name(), d, D, rng); err != nil {
		return nil, err
	}
	k := r.Blocks
	if k <= 0 {
		k = 3
	}
	if k > maxSORFBlocks {
		return nil, fmt.Errorf("rule %s: %d Hadamard blocks per product, at most %d (3 is the usual)", r.Name(), k, maxSORFBlocks)
	}
	if err := checkMemory(r, d, D, even); err != nil {
		return nil, err
	}
	n := structured.NextPow2(d)
	nb := (D + n - 1) / n
	signs := make([][]float64, nb*k)
	for i := range signs {
		s := make([]float64, n)
		for j := range s {
			s[j] = 1
			if rng.Uint64()&1 == 1 {
				s[j] = -1
			}
		}
		signs[i] = s
	}
	return &sorfPoints{d: d, n: n, D: D, k: k, signs: signs, scale: math.Sqrt(float64(n)), w: uniform(D)}, nil
}

type sorfPoints struct {
	d, n, D, k int
	signs      [][]float64 // per block, k sign vectors; the first applied is signs[blk*k+k-1] (D_k), the last D₁
	scale      float64
	w          []float64
}

func (p *sorfPoints) Dim() int           { return p.d }
func (p *sorfPoints) Len() int           { return p.D }
func (p *sorfPoints) Weights() []float64 { return p.w }
func (p *sorfPoints) Zero() float64      { return 0 }
func (p *sorfPoints) Project(dst, x []float64, rows int) {
	n := p.n
	bufp := getScratch(2 * n * batch)
	defer scratchPool.Put(bufp)
	buf := *bufp
	for r0 := 0; r0 < rows; r0 += batch {
		B := min(batch, rows-r0)
		xt := buf[:n*B]
		y := buf[n*batch : n*batch+n*B]
		transposeIn(xt, x, r0, B, p.d, n)
		for blk := 0; blk*n < p.D; blk++ {
			copy(y, xt)
			for f := p.k - 1; f >= 0; f-- {
				structured.FWHTSigned(y, n, B, p.signs[blk*p.k+f])
			}
			m := min(n, p.D-blk*n)
			transposeOut(dst, y, nil, r0, B, m, blk*n, p.D, p.scale)
		}
	}
}

// QMC draws a randomized Halton point set mapped to N(0, I) by the normal quantile. Skip is the number of leading
// Halton indices dropped (DefaultSkip when 0).
type QMC struct{ Skip int }

// DefaultSkip is the number of leading Halton points QMC drops when Skip is 0.
const DefaultSkip = 1000

// maxSkip bounds QMC.Skip so that the Halton indices skip + 1 … skip + D stay within int (D ≤ 2³¹).
const maxSkip = 1 << 62

// MaxGQDegree is the largest Gauss–Hermite degree GQ draws from (and gq:M parses).
const MaxGQDegree = 64

// maxSORFBlocks bounds SORF.Blocks, the Hadamard–sign blocks of each product (3 by default; more add nothing but
// time).
const maxSORFBlocks = 64

// Name returns "qmc".
func (QMC) Name() string { return "qmc" }

// Draw returns D points as a dense realization, with weights 1/D and no zero node: the Halton points of indices
// Skip+1 … Skip+D in the first d prime bases, each coordinate shifted modulo 1 by a uniform drawn from rng
// (Cranley–Patterson rotation) and mapped through the standard normal quantile Φ⁻¹. even is ignored.
func (r QMC) Draw(d, D int, even bool, rng *rand.Rand) (Points, error) {
	if err := checkSize(r.Name(), d, D, rng); err != nil {
		return nil, err
	}
	skip := r.Skip
	if skip <= 0 {
		skip = DefaultSkip
	}
	if skip > maxSkip {
		return nil, fmt.Errorf("rule %s: skip %d is beyond the Halton indices it can reach (at most %d)", r.Name(), skip, maxSkip)
	}
	if err := checkMemory(r, d, D, even); err != nil {
		return nil, err
	}
	U := structured.HaltonSet(D, d, skip, rng)
	for i, u := range U {
		U[i] = structured.NormalQuantile(u)
	}
	return newDense(U, D, d, nil, 0), nil
}

// GQ draws points from the dense Gauss–Hermite tensor grid of degree Degree (default 2) with probability equal to
// their grid weight, coordinate by coordinate, with equal weights 1/D (Dao, De Sa & Ré 2017; docs/conventions.md
// §3.5).
//
// The estimate is unbiased for the tensor-grid quadrature, not for the kernel. For a kernel whose frequencies are
// ω_i = Scale·T(z_i) coordinate by coordinate (Gaussian, Laplacian, Cauchy) it converges, as D → ∞, to
//
//	K_grid(x, y) = Π_i Σ_k w_k cos(Scale·T(z_k)·(x_i − y_i)),
//
// with (z_k, w_k) the m Gauss–Hermite nodes and weights for N(0, 1), m = Degree: its error stops falling at the bias
// floor ‖K − K_grid‖ however many points are drawn (approx.GQFloor computes it on a sample; `rff approx` prints it).
// The floor shrinks as the degree grows, because the m-node rule is exact for polynomials of degree ≤ 2m − 1 in each
// coordinate. At the default m = 2 every coordinate of every point is ±1: on the Powerplant data (standardized,
// γ = 1/d) the relative Frobenius error of the Gaussian kernel stays above 0.33 at any D (Laplacian: 1.82; with
// m = 8, 0.004 and 0.60). The other kernels (Matérn, arc-cosine) are biased too, without a product formula.
type GQ struct{ Degree int }

// Name returns "gq" for the default degree (Degree 0 or 2) and "gq:M" for Degree M otherwise.
func (r GQ) Name() string {
	if r.Degree == 0 || r.Degree == 2 {
		return "gq"
	}
	return "gq:" + strconv.Itoa(r.Degree)
}

// Draw returns D points as a dense realization, with weights 1/D and no zero node: each coordinate of each point is
// one of the m = Degree (default 2) Gauss–Hermite nodes for N(0, 1), drawn independently with probability equal to
// the node's weight. even is ignored.
func (r GQ) Draw(d, D int, even bool, rng *rand.Rand) (Points, error) {
	if err := checkSize(r.Name(), d, D, rng); err != nil {
		return nil, err
	}
	m := r.Degree
	if m <= 0 {
		m = 2
	}
	if m > MaxGQDegree {
		return nil, fmt.Errorf("rule %s: degree %d, at most %d", r.Name(), m, MaxGQDegree)
	}
	if err := checkMemory(r, d, D, even); err != nil {
		return nil, err
	}
	nodes, weights := structured.GaussHermite(m)
	cum := make([]float64, m)
	var s float64
	for i, w := range weights {
		s += w
		cum[i] = s
	}
	W := make([]float64, D*d)
	for i := range W {
		u := rng.Float64() * s
		k := sort.SearchFloat64s(cum, u)
		if k >= m {
			k = m - 1
		}
		W[i] = nodes[k]
	}
	return newDense(W, D, d, nil, 0), nil
}
