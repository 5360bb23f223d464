package nystrom

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/kernel"
)

// Params are the explicit parameters of a Nyström map: everything its features depend on besides the kernel. A map
// rebuilt from them by FromParams computes the same features (the same bits) without selecting landmarks or
// eigendecomposing anything, so a stored model never depends on the data, the seed or the backend that built it.
type Params struct {
	Selection string  // how the landmarks were chosen (informative)
	Seed      uint64  // the selection's seed (informative)
	Threshold float64 // the relative threshold (informative)
	Basis     string  // "cholesky" or "eigen" ("" reads as "eigen", the basis of files written before the choice)
	Centres   int     // M
	Dim       int     // d
	Features  int     // M'
	// Landmarks are the M landmarks, M×d row-major.
	Landmarks []float64
	// Norm is the normalization matrix (M×M' row-major): ψ(x) = Normᵀ k_M(x). In the eigen basis U Λ^{-1/2}; in the
	// Cholesky basis U₁₁⁻¹ (M = M', upper triangular, zeros below the diagonal).
	Norm []float64
	// Eigenvalues are the M' eigenvalues of K_MM that were kept, decreasing (Norm's columns are in this order); eigen
	// basis only.
	Eigenvalues []float64
	// Pivots are the squared pivots U_jj² of the pivoted Cholesky factorization (Map.Pivots); Cholesky basis only.
	Pivots []float64
	// Share lets FromParams keep the slices above instead of copying them, so that a map rebuilt from large
	// parameters (a model read from a file) does not hold them twice. The caller must then not modify them while the
	// map is in use. Params never sets it.
	Share bool `json:"-"`
}

// Params returns the explicit parameters of m (copies: m is not shared); the zero Params for a nil or zero Map.
func (m *Map) Params() Params {
	if m.check() != nil {
		return Params{}
	}
	return Params{
		Selection: m.selection, Seed: m.seed, Threshold: m.threshold, Basis: m.basis.String(),
		Centres: m.m, Dim: m.d, Features: m.f,
		Landmarks:   append([]float64(nil), m.landmarks...),
		Norm:        append([]float64(nil), m.norm...),
		Eigenvalues: m.Eigenvalues(),
		Pivots:      m.Pivots(),
	}
}

// paramsProbes is the number of landmarks FromParams checks the normalization against the kernel on.
const paramsProbes = 8

// paramsTol is the relative tolerance of that check: |‖ψ(c_i)‖² − k(c_i, c_i)| ≤ paramsTol·max_j k(c_j, c_j) + t·λ_max.
// In exact arithmetic ‖ψ(c_i)‖² = (K_MM K_MM⁺ K_MM)_ii = k(c_i, c_i) up to the dropped eigenvalues (≤ t·λ_max);
// rounding adds about √M·2⁻⁵³·λ_max/√(t·λ_max) to a coordinate of ψ, which the tolerance covers for M ≤ 10⁵ at the
// default threshold. A kernel or bandwidth other than the one the map was built for moves ‖ψ(c_i)‖² by O(1).
const paramsTol = 1e-4

// FromParams rebuilds a map for kernel k from its explicit parameters, after checking them against each other
// (shapes, finite values, positive decreasing eigenvalues, or a triangular normalization and positive pivots) and
// against k: for up to 8 landmarks c_i it checks that
// ‖ψ(c_i)‖² = k(c_i, c_i), which holds for the kernel and bandwidth the map was built with (to 1e-4 of the largest
// k(c_i, c_i), plus the dropped eigenvalues' t·λ_max) and fails for others.
func FromParams(k kernel.Kernel, p Params) (*Map, error) {
	if k == nil {
		return nil, errors.New("nystrom.FromParams: nil kernel")
	}
	M, d, f := p.Centres, p.Dim, p.Features
	switch {
	case M < 1 || d < 1 || f < 1 || f > M:
		return nil, fmt.Errorf("nystrom map parameters: need 1 ≤ M' ≤ M and d ≥ 1, have M = %d, M' = %d, d = %d", M, f, d)
	case !size.Is(len(p.Landmarks), M, d):
		return nil, fmt.Errorf("nystrom map parameters: %d landmark values for M×d = %d×%d", len(p.Landmarks), M, d)
	case !size.Is(len(p.Norm), M, f):
		return nil, fmt.Errorf("nystrom map parameters: %d normalization values for M×M' = %d×%d", len(p.Norm), M, f)
	case !(p.Threshold >= 0 && p.Threshold < 1):
		return nil, fmt.Errorf("nystrom map parameters: threshold %v is not in [0, 1)", p.Threshold)
	}
	basis := Eigen
	if p.Basis != "" {
		var err error
		if basis, err = ParseBasis(p.Basis); err != nil {
			return nil, fmt.Errorf("nystrom map parameters: %w", err)
		}
	}
	if err := blocks.CheckX("nystrom map parameters: landmarks", p.Landmarks, M, d); err != nil {
		return nil, err
	}
	for _, v := range p.Norm {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("nystrom map parameters: the normalization matrix has a NaN or infinite value")
		}
	}
	diag := p.Eigenvalues
	if basis == Eigen {
		if len(p.Eigenvalues) != f || p.Pivots != nil {
			return nil, fmt.Errorf("nystrom map parameters: %d eigenvalues (and %d pivots) for M' = %d features in the eigen basis", len(p.Eigenvalues), len(p.Pivots), f)
		}
		for j, v := range p.Eigenvalues {
			if !(v > 0) || math.IsInf(v, 0) || (j > 0 && v > p.Eigenvalues[j-1]) {
				return nil, errors.New("nystrom map parameters: the eigenvalues are not positive, finite and decreasing")
			}
		}
	} else {
		switch {
		case M != f:
			return nil, fmt.Errorf("nystrom map parameters: %d features of %d landmarks in the Cholesky basis (need M' = M)", f, M)
		case len(p.Pivots) != f || p.Eigenvalues != nil:
			return nil, fmt.Errorf("nystrom map parameters: %d pivots (and %d eigenvalues) for M' = %d features in the Cholesky basis", len(p.Pivots), len(p.Eigenvalues), f)
		}
		for _, v := range p.Pivots {
			if !(v > 0) || math.IsInf(v, 0) {
				return nil, errors.New("nystrom map parameters: the pivots are not positive and finite")
			}
		}
		for i := range f {
			if !(p.Norm[i*f+i] > 0) || slices.ContainsFunc(p.Norm[i*f:i*f+i], func(v float64) bool { return v != 0 }) {
				return nil, errors.New("nystrom map parameters: the normalization of the Cholesky basis is not upper triangular with a positive diagonal")
			}
		}
		diag = p.Pivots
	}
	m := &Map{kern: k, d: d, m: M, f: f, threshold: p.Threshold, selection: p.Selection, seed: p.Seed,
		basis: basis, tri: basis == Cholesky, landmarks: p.Landmarks, norm: p.Norm, diag: diag}
	if !p.Share {
		m.landmarks, m.norm, m.diag = slices.Clone(p.Landmarks), slices.Clone(p.Norm), slices.Clone(diag)
	}
	if err := m.probe(); err != nil {
		return nil, err
	}
	return m, nil
}

// probe checks ‖ψ(c_i)‖² = k(c_i, c_i) on up to paramsProbes landmarks spread over the list.
func (m *Map) probe() error {
	r := min(paramsProbes, m.m)
	x := make([]float64, r*m.d)
	idx := make([]int, r)
	for j := range r {
		idx[j] = j * m.m / r
		copy(x[j*m.d:(j+1)*m.d], m.landmarks[idx[j]*m.d:(idx[j]+1)*m.d])
	}
	z := make([]float64, r*m.f)
	m.TransformBlock(z, x, r, nil)
	diag := make([]float64, r)
	top := 0.0
	for j := range r {
		xj := x[j*m.d : (j+1)*m.d]
		diag[j] = m.kern.Eval(xj, xj)
		top = max(top, math.Abs(diag[j]))
	}
	for j := range r {
		var q float64
		for _, v := range z[j*m.f : (j+1)*m.f] {
			q += v * v
		}
		if !(math.Abs(q-diag[j]) <= paramsTol*top+m.threshold*m.diag[0]) {
			return fmt.Errorf("nystrom map parameters do not fit kernel %s: at landmark %d, ‖ψ(c)‖² = %.6g but k(c, c) = %.6g (another kernel or bandwidth?)",
				m.kern.Name(), idx[j]+1, q, diag[j])
		}
	}
	return nil
}
