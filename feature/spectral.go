package feature

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// sourceStream is the PCG stream of every map's random source.
const sourceStream = 0x9e3779b97f4a7c15

// NewSource returns the random source that a map drawn from seed uses: a PCG generator on a fixed stream. [New] and
// package ovk's maps both draw from it, so that a scalar map and an ORFF map with the same rule and seed share their
// points.
func NewSource(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, sourceStream)) }

// DrawSpectral draws the frequencies of a shift-invariant kernel with spectral law law (ω = T(z), z ~ N(0, I);
// kernel.Law, docs/conventions.md §2) from D points of rule r in dimension d. It draws the rule's points z_j (as
// for an even integrand: cos(ωᵀδ) = cos(−ωᵀδ), which lets symmetric rules merge ±z), then the per-point scale
// s_j = law.Scale·law.Mixing(rng) (law.Scale alone without a mixing law), in this order from rng, and returns
//
//   - without a coordinatewise transform: the rule's points and the scales s, with ω_j = s_j·z_j — the points stay
//     structured (a butterfly or Hadamard rule keeps its O(d log d) projection) and the scale multiplies their
//     projections;
//   - with one (law.Coord, product kernels): dense points ω_j = s_j·Coord(z_j), coordinatewise, with the rule's
//     weights and zero node, and a nil scale.
//
// SR rules round D up to whole rules: the points' Len reports the number drawn. [New] (for a kernel.Spectral kernel)
// and package ovk's New draw their frequencies with it, so both spend the random stream identically; what a caller
// draws from rng afterwards (the phases of a cos+phase map) follows.
//
// It returns an error for a nil rule or source, d < 1, D < 1, more than 2^31 point coordinates, a law whose scale
// 1/σ is not positive and finite, and the rule's errors.
func DrawSpectral(law kernel.Law, r rule.Rule, d, D int, rng *rand.Rand) (rule.Points, []float64, error) {
	if isNil(r) {
		return nil, nil, errors.New("feature.DrawSpectral: nil rule")
	}
	if rng == nil {
		return nil, nil, errors.New("feature.DrawSpectral: nil random source")
	}
	if err := checkSizes("feature.DrawSpectral", d, D); err != nil {
		return nil, nil, err
	}
	if !(law.Scale > 0) || math.IsInf(law.Scale, 0) {
		return nil, nil, fmt.Errorf("feature.DrawSpectral: the spectral law's scale 1/σ is %v (the bandwidth σ must be "+
			"positive and finite)", law.Scale)
	}
	p, err := r.Draw(d, D, true, rng)
	if err != nil {
		return nil, nil, err
	}
	n := p.Len()
	s := make([]float64, n)
	for j := range s {
		s[j] = law.Scale
		if law.Mixing != nil {
			s[j] *= law.Mixing(rng)
		}
		if !(s[j] > 0) || math.IsInf(s[j], 0) { // a mixing law of invalid parameters (a Matérn ν ≤ 0, say)
			return nil, nil, fmt.Errorf("feature.DrawSpectral: point %d's scale is %v: the kernel's spectral law is not a law "+
				"(check its parameters, e.g. a Matérn ν must be positive and finite)", j+1, s[j])
		}
	}
	if law.Coord == nil {
		return p, s, nil
	}
	// The coordinatewise transform needs the points themselves: materialize, transform, fold in the scale.
	W := rule.Dense(p)
	for j := range n {
		row := W[j*d : (j+1)*d]
		for i, z := range row {
			row[i] = s[j] * law.Coord(z)
		}
	}
	return rule.NewDense(W, n, d, p.Weights(), p.Zero()), nil, nil
}
