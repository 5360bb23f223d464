package feature

import (
	"fmt"
	"math"
	"runtime"

	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// Derivative features (Sriperumbudur & Szabó 2015, "Kernel derivative approximation"; docs/conventions.md §6).
//
// For a shift-invariant kernel, ∂^{p,q}k(x,y) = ∫ ω^p(−ω)^q h_{|p+q|}(ωᵀ(x−y)) dΛ(ω) with h_n = cos⁽ⁿ⁾, and the
// estimator is ⟨∂^p ψ(x), ∂^q ψ(y)⟩: differentiate the feature map. Each column differentiates by the cycle
// cos → −sin → −cos → sin → cos (and sin → cos → −sin → −cos → sin), times ω_j^p = Π_i ω_{ji}^{p_i}:
//
//	∂^p [√w_j cos(ω_jᵀx)] = √w_j ω_j^p h_{|p|}(ω_jᵀx),   ∂^p [√w_j sin(ω_jᵀx)] = √w_j ω_j^p sin^{(|p|)}(ω_jᵀx),
//
// so that ⟨∂^p ψ(x), ∂^q ψ(y)⟩ = Σ_j w_j ω_j^p(−ω_j)^q h_{|p+q|}(ω_jᵀ(x−y)), the paper's estimator with the rule's
// weights in place of 1/m. The cos+phase form differentiates the same way, √(2w_j) ω_j^p h_{|p|}(ω_jᵀx + b_j), and
// its estimator has the same mean. The zero node of an SR rule contributes f(0) = 0^{p+q}h_{|p+q|}(0) = 0 unless
// p = q = 0, so the offset enters the estimate of k itself only: the derivative estimates of every rule that is
// unbiased for k (G, ORF, QMC, SR with Haar rotations) are unbiased too.
//
// Pointwise (arc-cosine) maps have no derivative features: φ₀ = Θ and φ₁ = max(0,·) are not differentiable.

// Derivative fills dst (rows×Features(), row-major) with the derivative features ∂^p ψ(x_r) of the n = rows rows of x
// (rows×d, row-major), for a multi-index p of length d (nil means p = 0, which gives exactly TransformRows). The
// columns are laid out as ψ's: for the cos/sin form, D columns √w_j ω_j^p h_{|p|}(ω_jᵀx) then D columns
// √w_j ω_j^p sin^{(|p|)}(ω_jᵀx), that is 2D columns for D points. It uses all cores.
//
// This is ∂^pψ of Sriperumbudur & Szabó (2015), the features whose inner products estimate ∂^{p,q}k (docs/conventions.md §6). The
// features of every rule and shift-invariant kernel are differentiable, but the estimate has a mean only when
// E|ω^{p+q}| < ∞, that is for |p|+|q| ≤ MaxOrder() of the kernel (kernel.Differentiable): any order for the Gaussian
// and Cauchy kernels, ≤ 2ν − 1 for Matérn, none for the Laplacian.
//
// It returns an error for a nil map, a pointwise kernel, a bad multi-index (wrong length, negative entry, order above
// kernel.MaxDerivOrder), rows < 0, lengths that do not match, or a NaN or infinite input.
func (m *Map) Derivative(dst, x []float64, rows int, p []int) error {
	n, err := m.checkDeriv(dst, x, rows, 1, p)
	if err != nil {
		return err
	}
	coef := m.monomials([][]int{p})
	m.derivRows(dst, x, rows, n, coef)
	return nil
}

// Gradient fills dst (rows × d·Features(), row-major) with the first partial derivatives of the features of every
// row of x (rows×d): row r holds d blocks of Features() columns (2D for the cos/sin form), block i being
// ∂ψ(x_r)/∂x_i laid out as in Derivative with p = e_i. The gradient of a model f(x) = ψ(x)ᵀθ at x_r is therefore
// (block_i · θ)_{i=1..d}. It uses all cores; errors as for Derivative.
func (m *Map) Gradient(dst, x []float64, rows int) error {
	if err := m.check("feature map: Gradient"); err != nil {
		return err
	}
	if _, err := m.checkDeriv(dst, x, rows, m.d, nil); err != nil {
		return err
	}
	ps := make([][]int, m.d)
	for i := range ps {
		ps[i] = make([]int, m.d)
		ps[i][i] = 1
	}
	m.derivRows(dst, x, rows, 1, m.monomials(ps))
	return nil
}

// EstimateDeriv returns the estimate ⟨∂^p ψ(x), ∂^q ψ(y)⟩ of ∂^{p,q}k(x,y) = ∂^{|p|}/∂x^p ∂^{|q|}/∂y^q k(x,y)
// (Sriperumbudur & Szabó 2015, the estimator below Theorem 3), plus Offset() when p = q = 0, so that it equals
// [Map.Estimate] of the plain features in that case. nil multi-indices are zero. Errors as for Derivative.
func (m *Map) EstimateDeriv(x, y []float64, p, q []int) (float64, error) {
	if err := m.check("feature map: EstimateDeriv"); err != nil {
		return 0, err
	}
	zx := make([]float64, m.cols)
	zy := make([]float64, m.cols)
	if err := m.Derivative(zx, x, 1, p); err != nil {
		return 0, err
	}
	if err := m.Derivative(zy, y, 1, q); err != nil {
		return 0, err
	}
	np, _ := kernel.MultiIndexOrder(p, m.d)
	nq, _ := kernel.MultiIndexOrder(q, m.d)
	s := 0.0
	if np+nq == 0 {
		s = m.offset
	}
	for i, v := range zx {
		s += v * zy[i]
	}
	return s, nil
}

// Frequencies returns the points of the map as a new Points()×d row-major matrix: the frequencies ω_j of a
// shift-invariant kernel (after the kernel's spectral transform, bandwidth included), or the Gaussian points w_j of a
// pointwise kernel. For the cos/sin form, k̂(x,y) = Σ_j w_j cos(ω_jᵀ(x−y)) + Offset() with w_j from [Map.Weights].
// It costs one projection of the d×d identity (O(D·d²) for dense rules).
func (m *Map) Frequencies() []float64 {
	if m == nil || m.points == nil {
		return nil
	}
	W := rule.Dense(m.points)
	if m.scale != nil {
		for j, s := range m.scale {
			row := W[j*m.d : (j+1)*m.d]
			for i := range row {
				row[i] *= s
			}
		}
	}
	return W
}

// Weights returns a copy of the rule's weights w_j, one per point (they sum with the zero-node weight to 1; see
// [Map.Offset]). The feature amplitudes are √w_j (cos/sin), √(2w_j) (cos+phase) or √(c·w_j) (pointwise).
func (m *Map) Weights() []float64 {
	if m == nil || m.points == nil {
		return nil
	}
	return append([]float64(nil), m.points.Weights()...)
}

// checkDeriv validates a derivative request whose output has blocks×Features() columns per row and returns |p|.
func (m *Map) checkDeriv(dst, x []float64, rows, blocks int, p []int) (int, error) {
	if err := m.check("feature map derivative"); err != nil {
		return 0, err
	}
	if m.phi != nil {
		return 0, fmt.Errorf("feature map %s/%s: derivative features need a shift-invariant kernel (the pointwise "+
			"nonlinearity is not differentiable)", m.kern.Name(), m.rule.Name())
	}
	n, err := kernel.MultiIndexOrder(p, m.d)
	if err != nil {
		return 0, fmt.Errorf("feature map derivative: %w", err)
	}
	if rows < 0 {
		return 0, fmt.Errorf("feature map derivative: negative number of rows %d", rows)
	}
	if !size.Is(len(x), rows, m.d) {
		return 0, fmt.Errorf("feature map derivative: input has %d values, want %d rows × %d columns", len(x), rows, m.d)
	}
	if !size.Is(len(dst), rows, blocks, m.cols) {
		return 0, fmt.Errorf("feature map derivative: output has %d values, want %d rows × %d columns", len(dst), rows, blocks*m.cols)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("feature map derivative: row %d, column %d is %v", i/m.d+1, i%m.d+1, v)
		}
	}
	return n, nil
}

// monomials returns, for each multi-index p in ps (all of the same order), the per-point factors ω_j^p. The
// coordinates of the frequencies that are needed are obtained by projecting unit vectors through the rule (so a
// structured rule stays structured) and scaling by the per-point multiplier.
func (m *Map) monomials(ps [][]int) [][]float64 {
	D := m.points.Len()
	need := make([]bool, m.d)
	for _, p := range ps {
		for i := range p {
			need[i] = need[i] || p[i] > 0
		}
	}
	var idx []int
	for i, v := range need {
		if v {
			idx = append(idx, i)
		}
	}
	cols := make([][]float64, m.d) // cols[i][j] = ω_{ji}
	if len(idx) > 0 {
		e := make([]float64, len(idx)*m.d)
		for r, i := range idx {
			e[r*m.d+i] = 1
		}
		proj := make([]float64, len(idx)*D)
		m.points.Project(proj, e, len(idx))
		for r, i := range idx {
			c := proj[r*D : (r+1)*D]
			if m.scale != nil {
				for j := range c {
					c[j] *= m.scale[j]
				}
			}
			cols[i] = c
		}
	}
	out := make([][]float64, len(ps))
	for b, p := range ps {
		c := make([]float64, D)
		for j := range c {
			c[j] = 1
		}
		for i, pi := range p {
			for range pi {
				for j := range c {
					c[j] *= cols[i][j]
				}
			}
		}
		out[b] = c
	}
	return out
}

// cycle returns (h_n(t), s_n(t)) = (cos⁽ⁿ⁾, sin⁽ⁿ⁾) at t from c = cos t and s = sin t: the four-step cycle.
func cycle(n int, c, s float64) (float64, float64) {
	switch n & 3 {
	case 1:
		return -s, c
	case 2:
		return -c, -s
	case 3:
		return s, -c
	}
	return c, s
}

// derivRows fills dst (rows × len(coef)·cols) with len(coef) blocks per row: block b is the n-th derivative cycle of
// the features with point j multiplied by coef[b][j]. Rows are processed in blocks on all cores.
func (m *Map) derivRows(dst, x []float64, rows, n int, coef [][]float64) {
	D := m.points.Len()
	stride := len(coef) * m.cols
	blocks := (rows + blockRows - 1) / blockRows
	type scratch struct{ base, proj []float64 }
	br := min(blockRows, rows) // a call on a few rows allocates for those only
	// Scratch per goroutine of this call (a sync.Pool made per call would stay reachable until two collections
	// later, keeping the scratch of every call in a loop alive).
	scratches := make([]*scratch, runtime.GOMAXPROCS(0))
	parallel.ForWorker(blocks, len(scratches), func(w, b int) {
		if scratches[w] == nil {
			scratches[w] = &scratch{base: make([]float64, br*m.cols), proj: make([]float64, br*D)}
		}
		sc := scratches[w]
		r0 := b * blockRows
		rb := min(blockRows, rows-r0)
		xb := x[r0*m.d : (r0+rb)*m.d]
		if m.form == CosPhase {
			// amp_j·cos(t + b_j) only: the odd derivatives need the sine too, so project here.
			proj := sc.proj[:rb*D]
			m.points.Project(proj, xb, rb)
			for r := 0; r < rb; r++ {
				t := proj[r*D : (r+1)*D]
				row := dst[(r0+r)*stride : (r0+r+1)*stride]
				for k, cf := range coef {
					out := row[k*m.cols : (k+1)*m.cols]
					for j, tj := range t {
						if m.scale != nil {
							tj *= m.scale[j]
						}
						s, c := math.Sincos(tj + m.phase[j])
						h, _ := cycle(n, c, s)
						out[j] = m.amp[j] * cf[j] * h
					}
				}
			}
			return
		}
		base := sc.base[:rb*m.cols]
		m.TransformBlock(base, xb, rb, sc.proj)
		for r := 0; r < rb; r++ {
			cs, sn := base[r*m.cols:r*m.cols+D], base[r*m.cols+D:(r+1)*m.cols]
			// The cycle, hoisted out of the loop: (h_n, s_n) = (sx·X, sy·Y) with X, Y ∈ {cos, sin}.
			X, Y := cs, sn
			if n&1 == 1 {
				X, Y = sn, cs
			}
			sx, sy := 1.0, 1.0
			switch n & 3 {
			case 1:
				sx = -1
			case 2:
				sx, sy = -1, -1
			case 3:
				sy = -1
			}
			row := dst[(r0+r)*stride : (r0+r+1)*stride]
			for k, cf := range coef {
				oc, os := row[k*m.cols:k*m.cols+D], row[k*m.cols+D:(k+1)*m.cols]
				cf = cf[:D]
				X, Y := X[:D], Y[:D]
				for j, c := range cf {
					oc[j] = sx * (c * X[j])
					os[j] = sy * (c * Y[j])
				}
			}
		}
	})
}
