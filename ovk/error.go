package ovk

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/rule"
)

// spectralNorm returns ‖S‖₂ = max |λ| of the symmetric p×p matrix S (row-major).
func spectralNorm(S []float64, p int) float64 {
	if p == 1 {
		return math.Abs(S[0])
	}
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(p, S), false) {
		return math.NaN()
	}
	var v float64
	for _, l := range eig.Values(nil) {
		v = max(v, math.Abs(l))
	}
	return v
}

// SupError returns max_i ‖K̃(x_i, z_i) − K(x_i, z_i)‖₂ (spectral norm) over the n pairs formed by the rows of X and Z
// (both n×d, row-major): the empirical ‖K̃ − K‖_∞ of the ORFF paper, Eq. (8) and Fig. 1A, on a sample of pairs.
// Pairs are evaluated in parallel; each costs O(D·d² + p³). It returns an error if a length does not match or an
// input is not finite.
func SupError(m *Map, X, Z []float64, n int) (float64, error) {
	if m == nil {
		return 0, errors.New("ovk.SupError: nil map")
	}
	if n < 1 {
		return 0, fmt.Errorf("ovk.SupError: need at least one pair, got %d", n)
	}
	if err := m.checkX("ovk.SupError", X, n); err != nil {
		return 0, err
	}
	if err := m.checkX("ovk.SupError", Z, n); err != nil {
		return 0, err
	}
	d, p := m.d, m.p
	errs := make([]float64, n)
	parallel.For(n, 0, func(i int) {
		x, z := X[i*d:(i+1)*d], Z[i*d:(i+1)*d]
		delta := make([]float64, d)
		for c := range delta {
			delta[c] = x[c] - z[c]
		}
		kt := make([]float64, p*p)
		ke := make([]float64, p*p)
		m.estimate(kt, delta, nil)
		m.k.eval(ke, p, x, z)
		for c := range kt {
			kt[c] -= ke[c]
		}
		errs[i] = spectralNorm(kt, p)
	})
	var sup float64
	for _, e := range errs {
		if math.IsNaN(e) {
			return math.NaN(), errors.New("ovk.SupError: eigenvalue computation failed")
		}
		sup = max(sup, e)
	}
	return sup, nil
}

// EmpiricalVariance returns the p×p matrix (1/S)Σ_s (K̃_s(x,z) − K(x,z))² over the S seeds: one ORFF map of D points
// of rule r per seed, the same pair (x, z). For an unbiased rule it estimates V[K̃(x,z)] = E[(K̃ − E K̃)²], the matrix
// whose norm Proposition 12 of the ORFF paper bounds (Fig. 1B); for a biased rule it is the mean squared error.
// Seeds run in parallel and the sum is taken in seed order, so the result is deterministic.
func EmpiricalVariance(k *Kernel, r rule.Rule, d, D int, x, z []float64, seeds []uint64) (*mat.SymDense, error) {
	if k == nil || r == nil || isNilPtr(r) {
		return nil, errors.New("ovk.EmpiricalVariance: kernel and rule are required")
	}
	if len(seeds) == 0 {
		return nil, errors.New("ovk.EmpiricalVariance: no seeds")
	}
	if len(x) != d || len(z) != d {
		return nil, fmt.Errorf("ovk.EmpiricalVariance: points have %d and %d coordinates, want %d", len(x), len(z), d)
	}
	p, err := k.Outputs(d)
	if err != nil {
		return nil, fmt.Errorf("ovk.EmpiricalVariance: %w", err)
	}
	if D < 1 {
		return nil, fmt.Errorf("ovk.EmpiricalVariance: number of points D must be at least 1, got %d", D)
	}
	for _, v := range append(append([]float64(nil), x...), z...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("ovk.EmpiricalVariance: input value %v", v)
		}
	}
	exact := make([]float64, p*p)
	k.eval(exact, p, x, z)
	delta := make([]float64, d)
	for i := range delta {
		delta[i] = x[i] - z[i]
	}
	sq := make([][]float64, len(seeds))
	errs := make([]error, len(seeds))
	parallel.For(len(seeds), 0, func(s int) {
		m, err := New(k, r, d, D, seeds[s])
		if err != nil {
			errs[s] = err
			return
		}
		e := make([]float64, p*p)
		m.estimate(e, delta, nil)
		for i := range e {
			e[i] -= exact[i]
		}
		out := make([]float64, p*p) // E² = EEᵀ, E symmetric
		for a := 0; a < p; a++ {
			for b := 0; b < p; b++ {
				var v float64
				for c := 0; c < p; c++ {
					v += e[a*p+c] * e[b*p+c]
				}
				out[a*p+b] = v
			}
		}
		sq[s] = out
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	V := make([]float64, p*p)
	for _, s := range sq {
		for i, v := range s {
			V[i] += v
		}
	}
	for a := 0; a < p; a++ {
		for b := 0; b < p; b++ {
			V[a*p+b] /= float64(len(seeds))
		}
		for b := 0; b < a; b++ { // exact symmetry despite rounding
			V[a*p+b] = V[b*p+a]
		}
	}
	return mat.NewSymDense(p, V), nil
}

// VarianceNorm returns ‖EmpiricalVariance(k, r, d, D, x, z, seeds)‖₂, the empirical variance norm of Fig. 1B of the
// ORFF paper, to be compared with the bound of Proposition 12 (package bound).
func VarianceNorm(k *Kernel, r rule.Rule, d, D int, x, z []float64, seeds []uint64) (float64, error) {
	V, err := EmpiricalVariance(k, r, d, D, x, z, seeds)
	if err != nil {
		return 0, err
	}
	p := V.SymmetricDim()
	return spectralNorm(append([]float64(nil), V.RawSymmetric().Data...), p), nil
}
