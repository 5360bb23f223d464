package rule

import (
	"fmt"
	"math"

	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/internal/structured"
)

// Stored is a realization in explicit form: the parameters that determine its points, without the random stream
// that drew them. Dense realizations store their points; the structured ones store the parameters of their
// operators, which are far smaller and project in O(d log d):
//
//	"dense"         points: Len×d, row-major
//	"sorf"          signs:  ⌈Len/n⌉·k sign vectors of length n = 2^⌈log₂ d⌉ (±1), block after block, each block's
//	                        k = 3 vectors in the order they are stored by Draw
//	"sr-butterfly"  rho:    t·(d+1) radii ρ > 0, rule after rule;
//	                cos, sin: t·3·(n−1) butterfly angles (cos θ, sin θ), three factors per rule;
//	                perm:   t·3·d permutation entries (integers 0…d−1); signs: t·3·d signs (±1)
//
// with Len = t·(d+1) points for even integrands (cos/sin features) and 2t·(d+1) otherwise. Restore checks every field
// against the others and rebuilds a realization that projects bit for bit as the original: the structured operators
// do the same floating-point operations in the same order, every product rounded on its own, also in a build that
// fuses multiply-adds (Go on arm64, or GOAMD64=v3).
type Stored struct {
	Kind    string
	Dim     int
	Len     int
	Weights []float64
	Zero    float64
	Arrays  map[string][]float64
}

// Store returns the explicit form of p (copies). Realizations of other types are stored as their dense points. A
// nil p gives the zero Stored, which Restore refuses.
func Store(p Points) Stored {
	if isNilPoints(p) {
		return Stored{}
	}
	s := Stored{Dim: p.Dim(), Len: p.Len(), Weights: append([]float64(nil), p.Weights()...), Zero: p.Zero(),
		Arrays: map[string][]float64{}}
	switch q := p.(type) {
	case *sorfPoints:
		s.Kind = "sorf"
		signs := make([]float64, 0, len(q.signs)*q.n)
		for _, v := range q.signs {
			signs = append(signs, v...)
		}
		s.Arrays["signs"] = signs
	case *srButterfly:
		s.Kind = "sr-butterfly"
		s.Arrays["rho"] = append([]float64(nil), q.rho...)
		var cs, sn, perm, signs []float64
		for _, r := range q.bf {
			for f := range rotationFactors {
				b := r.b[f]
				cs = append(cs, b.Cos...)
				sn = append(sn, b.Sin...)
				for _, v := range b.Perm {
					perm = append(perm, float64(v))
				}
				signs = append(signs, r.signs[f]...)
			}
		}
		s.Arrays["cos"], s.Arrays["sin"], s.Arrays["perm"], s.Arrays["signs"] = cs, sn, perm, signs
	default:
		s.Kind = "dense"
		if dp, ok := p.(*densePoints); ok {
			s.Arrays["points"] = append([]float64(nil), dp.W...)
		} else {
			s.Arrays["points"] = Dense(p)
		}
	}
	return s
}

// StoredArrays lists the arrays of each kind of Stored.
var StoredArrays = map[string][]string{
	"dense":        {"points"},
	"sorf":         {"signs"},
	"sr-butterfly": {"rho", "cos", "sin", "perm", "signs"},
}

// Restore rebuilds a realization from its explicit form, after checking the arrays' sizes and values against each
// other (signs ±1, a permutation, unit angle pairs, positive radii, weights that the radii determine).
func Restore(s Stored) (Points, error) {
	d, L := s.Dim, s.Len
	names, ok := StoredArrays[s.Kind]
	switch {
	case !ok:
		return nil, fmt.Errorf("stored points: unknown kind %q", s.Kind)
	case d < 1 || L < 1 || int64(d)*int64(L) > 1<<31:
		return nil, fmt.Errorf("stored points: %d points in dimension %d", L, d)
	case len(s.Weights) != L:
		return nil, fmt.Errorf("stored points: %d weights for %d points", len(s.Weights), L)
	case math.IsNaN(s.Zero) || math.IsInf(s.Zero, 0):
		return nil, fmt.Errorf("stored points: zero-node weight %v", s.Zero)
	case len(s.Arrays) != len(names):
		return nil, fmt.Errorf("stored points: %d arrays for kind %s, want %v", len(s.Arrays), s.Kind, names)
	}
	for _, n := range names {
		if _, ok := s.Arrays[n]; !ok {
			return nil, fmt.Errorf("stored points: kind %s needs the array %q", s.Kind, n)
		}
		for _, v := range s.Arrays[n] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("stored points: %s holds %v", n, v)
			}
		}
	}
	for _, w := range s.Weights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("stored points: a weight is %v (weights are finite and ≥ 0)", w)
		}
	}
	switch s.Kind {
	case "sorf":
		return restoreSORF(s)
	case "sr-butterfly":
		return restoreSR(s)
	}
	W := s.Arrays["points"]
	if !size.Is(len(W), L, d) {
		return nil, fmt.Errorf("stored points: %d coordinates for %d points in dimension %d", len(W), L, d)
	}
	return newDense(append([]float64(nil), W...), L, d, append([]float64(nil), s.Weights...), s.Zero), nil
}

func checkSigns(name string, v []float64) error {
	for _, x := range v {
		if x != 1 && x != -1 {
			return fmt.Errorf("stored points: %s holds %v (want ±1)", name, x)
		}
	}
	return nil
}

func restoreSORF(s Stored) (Points, error) {
	d, L := s.Dim, s.Len
	n := structured.NextPow2(d)
	nb := (L + n - 1) / n
	signs := s.Arrays["signs"]
	if len(signs) == 0 || len(signs)%(nb*n) != 0 {
		return nil, fmt.Errorf("stored points: %d sorf signs for %d blocks of size %d", len(signs), nb, n)
	}
	if err := checkSigns("signs", signs); err != nil {
		return nil, err
	}
	if s.Zero != 0 {
		return nil, fmt.Errorf("stored points: sorf has no zero node (weight %v)", s.Zero)
	}
	w := uniform(L)
	for j, v := range s.Weights {
		if v != w[j] {
			return nil, fmt.Errorf("stored points: sorf weight %d is %v, want 1/%d", j, v, L)
		}
	}
	k := len(signs) / (nb * n)
	vecs := make([][]float64, nb*k)
	for i := range vecs {
		vecs[i] = append([]float64(nil), signs[i*n:(i+1)*n]...)
	}
	return &sorfPoints{d: d, n: n, D: L, k: k, signs: vecs, scale: math.Sqrt(float64(n)), w: w}, nil
}

func restoreSR(s Stored) (Points, error) {
	d, L := s.Dim, s.Len
	m := d + 1
	rho := s.Arrays["rho"]
	if len(rho) == 0 || len(rho)%m != 0 {
		return nil, fmt.Errorf("stored points: %d radii for rules of %d vertices", len(rho), m)
	}
	t := len(rho) / m
	even := L == t*m
	if !even && L != 2*t*m {
		return nil, fmt.Errorf("stored points: %d points for %d rules of %d vertices", L, t, m)
	}
	for _, r := range rho {
		if !(r > 0) {
			return nil, fmt.Errorf("stored points: a radius is %v (radii are > 0)", r)
		}
	}
	n := structured.NextPow2(d)
	cs, sn, perm, signs := s.Arrays["cos"], s.Arrays["sin"], s.Arrays["perm"], s.Arrays["signs"]
	f := t * rotationFactors
	switch {
	case !size.Is(len(cs), f, n-1) || !size.Is(len(sn), f, n-1):
		return nil, fmt.Errorf("stored points: %d and %d butterfly angles, want %d", len(cs), len(sn), f*(n-1))
	case !size.Is(len(perm), f, d) || !size.Is(len(signs), f, d):
		return nil, fmt.Errorf("stored points: %d permutation entries and %d signs, want %d", len(perm), len(signs), f*d)
	}
	if err := checkSigns("signs", signs); err != nil {
		return nil, err
	}
	for i := range cs {
		if math.Abs(cs[i]*cs[i]+sn[i]*sn[i]-1) > 1e-12 {
			return nil, fmt.Errorf("stored points: butterfly angle %d is not a rotation (cos² + sin² = %v)", i, cs[i]*cs[i]+sn[i]*sn[i])
		}
	}
	// The weights follow from the radii as in Draw, operation for operation.
	w, zero := srWeights(d, t, rho, even)
	per := len(w) / t
	for j, v := range s.Weights {
		if v != w[j] {
			return nil, fmt.Errorf("stored points: weight %d is %v, the radii give %v", j, v, w[j])
		}
	}
	if s.Zero != zero {
		return nil, fmt.Errorf("stored points: zero-node weight %v, the radii give %v", s.Zero, zero)
	}
	bf := make([]*rotation, t)
	for k := range bf {
		r := &rotation{d: d}
		for q := range rotationFactors {
			i := k*rotationFactors + q
			p := make([]int, d)
			seen := make([]bool, d)
			for j, v := range perm[i*d : (i+1)*d] {
				if v != math.Trunc(v) || v < 0 || v >= float64(d) || seen[int(v)] {
					return nil, fmt.Errorf("stored points: butterfly %d's permutation is not one of 0…%d", i, d-1)
				}
				p[j], seen[int(v)] = int(v), true
			}
			r.b[q] = &structured.Butterfly{D: d, N: n, Cos: append([]float64(nil), cs[i*(n-1):(i+1)*(n-1)]...),
				Sin: append([]float64(nil), sn[i*(n-1):(i+1)*(n-1)]...), Perm: p, Reps: 1}
			r.signs[q] = append([]float64(nil), signs[i*d:(i+1)*d]...)
		}
		bf[k] = r
	}
	return &srButterfly{d: d, t: t, even: even, per: per, rho: append([]float64(nil), rho...), bf: bf, w: w, zero: zero}, nil
}
