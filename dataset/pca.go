package dataset

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"

	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/internal/size"
)

// A principal component analysis (PCA) step, "pca:K" or "pca-whiten:K", projects the output u of the previous
// steps (d columns) onto the K leading eigenvectors v_1, …, v_K of its population covariance
// C = (1/n) Σ_i (u_i − ū)(u_i − ū)ᵀ, with eigenvalues λ_1 ≥ … ≥ λ_K:
//
//	p_k = v_kᵀ(u − ū) / s_k,   s_k = 1 (pca) or s_k = √λ_k (pca-whiten),
//
// so that the training data leave it with mean 0, uncorrelated columns and variances λ_k (pca) or 1 (pca-whiten).
// K is an integer 1 ≤ K ≤ d, or a fraction 0 < f < 1 written with a decimal point ("pca:0.99"): the smallest K with
// λ_1 + … + λ_K ≥ f·(λ_1 + … + λ_d), the share of the variance kept. Eigenvectors are defined up to sign; each is
// stored with its component of largest magnitude positive (the first such component on a tie). A PCA step must be
// the last step; it changes the number of columns from d to K (Scaler.OutDim).

// pcaPrefix and whitenPrefix start the names of PCA steps.
const (
	pcaPrefix    = "pca:"
	whitenPrefix = "pca-whiten:"
)

// pcaSpec is a parsed PCA step: K components, or the smallest number keeping the share Frac of the variance.
type pcaSpec struct {
	K      int
	Frac   float64
	Whiten bool
}

// PCA reports whether st is a principal component step ("pca:K" or "pca-whiten:K").
func (st Step) PCA() bool {
	return strings.HasPrefix(string(st), pcaPrefix) || strings.HasPrefix(string(st), whitenPrefix)
}

// pca parses a PCA step.
func (st Step) pca() (pcaSpec, error) {
	s := string(st)
	var p pcaSpec
	switch {
	case strings.HasPrefix(s, whitenPrefix):
		p.Whiten, s = true, s[len(whitenPrefix):]
	case strings.HasPrefix(s, pcaPrefix):
		s = s[len(pcaPrefix):]
	default:
		return p, fmt.Errorf("preprocessing step %q is not a PCA step", string(st))
	}
	bad := fmt.Errorf("preprocessing step %q: want pca:K or pca-whiten:K with an integer K ≥ 1 (components kept) or a fraction 0 < f < 1 such as 0.99 (share of the variance kept)", string(st))
	if strings.Contains(s, ".") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || !(f > 0 && f < 1) {
			return p, bad
		}
		p.Frac = f
		return p, nil
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 1 {
		return p, bad
	}
	p.K = k
	return p, nil
}

// checkChain checks that a PCA step, if any, is the last one.
func checkChain(steps []Step) error {
	for k, st := range steps {
		if st.PCA() && k != len(steps)-1 {
			return fmt.Errorf("preprocessing step %q must be the last step (it changes the number of columns); put it at the end of the list", string(st))
		}
	}
	return nil
}

// ErrPCAStream is returned when a PCA step is asked of statistics accumulated block by block without their
// co-moments (a ScalerAccumulator without TrackCovariance, or rebuilt from ScalerMoments as a distributed fit merges
// them): they hold the columns' moments but not their covariance.
var ErrPCAStream = errors.New("preprocess: a pca step needs the covariance of the inputs, which the merged column statistics of a distributed fit do not hold; fit in memory or stream one file (rff fit, with or without --stream), or drop the pca step")

// OutDim is the number of columns Apply produces: K after a PCA step, D otherwise (0 for a nil Scaler).
func (s *Scaler) OutDim() int {
	if s == nil {
		return 0
	}
	if n := len(s.Params); n > 0 && s.Params[n-1].Step.PCA() {
		return len(s.Params[n-1].Scale)
	}
	return s.D
}

// HasPCA reports whether the scaler ends with a PCA step (false for a nil Scaler).
func (s *Scaler) HasPCA() bool {
	return s != nil && len(s.Params) > 0 && s.Params[len(s.Params)-1].Step.PCA()
}

// Jacobian returns the OutDim()×D matrix ∂x'_k/∂x_j of the preprocessing x → x' (row-major); it is the same at
// every x, every step being affine. Without a PCA step it is diagonal, 1/Π Scale[j] over the steps (empty for a nil
// or zero Scaler).
func (s *Scaler) Jacobian() []float64 {
	if s == nil {
		return nil
	}
	d := s.D
	c := s.affineFactors()
	K := s.OutDim()
	J := make([]float64, K*d)
	if !s.HasPCA() {
		for j := range d {
			J[j*d+j] = c[j]
		}
		return J
	}
	p := s.Params[len(s.Params)-1]
	for k := range K {
		for j := range d {
			J[k*d+j] = p.Components[k*d+j] * c[j] / p.Scale[k]
		}
	}
	return J
}

// affineFactors returns g_j = Π 1/Scale[j] over the affine steps: they map column j to g_j·x_j plus a constant.
func (s *Scaler) affineFactors() []float64 {
	g := make([]float64, s.D)
	for j := range g {
		g[j] = 1
	}
	for _, p := range s.Params {
		if p.Shift == nil || p.Step.PCA() {
			continue
		}
		for j := range g {
			g[j] /= p.Scale[j]
		}
	}
	return g
}

// ExplainedVariance returns the share of the variance of its input that the PCA step keeps,
// (λ_1 + … + λ_K)/(λ_1 + … + λ_d), and 1 for a scaler without one (a nil or zero Scaler included).
func (s *Scaler) ExplainedVariance() float64 {
	if !s.HasPCA() {
		return 1
	}
	p := s.Params[len(s.Params)-1]
	var kept float64
	for _, v := range p.Variances {
		kept += v
	}
	if p.TotalVariance == 0 {
		return 1
	}
	return kept / p.TotalVariance
}

// pcaBlock is the number of rows whose cross products are accumulated at a time.
const pcaBlock = 256

// fitPCA fits the PCA step (the last of s.Steps) on the n×d raw data x, whose output through the previous steps
// has the column means mean: it accumulates the covariance of that output in blocks of rows (two-pass, with the
// rounding correction of the mean), diagonalizes it and keeps the leading components.
func (s *Scaler) fitPCA(x []float64, n, d int, mean []float64) error {
	last := len(s.Steps) - 1
	if _, err := s.pcaSpec(d); err != nil {
		return err
	}
	if n < d {
		return s.fitPCAGram(x, n, d, mean)
	}
	prev := &Scaler{Steps: s.Steps[:last], D: d, Params: s.Params[:last]}
	C := make([]float64, d*d)
	sum := make([]float64, d)
	buf := make([]float64, pcaBlock*d)
	for i0 := 0; i0 < n; i0 += pcaBlock {
		b := min(pcaBlock, n-i0)
		blk := buf[:b*d]
		copy(blk, x[i0*d:(i0+b)*d])
		prev.Apply(blk, b, d)
		for i := range b {
			row := blk[i*d : (i+1)*d]
			for j := range row {
				row[j] -= mean[j]
				sum[j] += row[j]
			}
		}
		linalg.Syrk(d, b, 1, blk, d, 1, C, d)
	}
	fn := float64(n)
	for i := range d {
		for j := i; j < d; j++ {
			v := (C[i*d+j] - sum[i]*sum[j]/fn) / fn
			C[i*d+j], C[j*d+i] = v, v
		}
	}
	return s.pcaFromCovariance(C, d, mean)
}

// pcaSpec parses the scaler's PCA step (its last) and checks K against the d columns.
func (s *Scaler) pcaSpec(d int) (pcaSpec, error) {
	st := s.Steps[len(s.Steps)-1]
	spec, err := st.pca()
	if err != nil {
		return spec, err
	}
	if spec.K > d {
		return spec, fmt.Errorf("preprocessing step %q keeps %d components of %d columns; use K ≤ %d", string(st), spec.K, d, d)
	}
	return spec, nil
}

// pcaFromCovariance fits the PCA step (the last of s.Steps) from the d×d covariance C of its input (symmetric,
// both triangles; it is overwritten) and the input's column means.
func (s *Scaler) pcaFromCovariance(C []float64, d int, mean []float64) error {
	var total float64
	for j := range d {
		total += C[j*d+j]
	}
	for i, v := range C {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("preprocess: pca: the covariance of columns %d and %d overflows: their values are too large "+
				"to square; scale them first (e.g. standardize,pca:K)", i/d+1, i%d+1)
		}
	}
	values, vectors, err := linalg.EigenSym(d, C)
	if err != nil {
		return fmt.Errorf("preprocess: pca: %w", err)
	}
	lam := make([]float64, d) // descending, clamped at 0
	for k := range d {
		lam[k] = max(0, values[d-1-k])
	}
	return s.finishPCA(d, mean, lam, total, false, func(k int, v []float64) {
		for j := range v {
			v[j] = vectors[j*d+d-1-k]
		}
	})
}

// finishPCA chooses K from the eigenvalues lam (descending; fewer than d when the others are 0) and the total
// variance, and stores the step's parameters: vector(k, v) writes the k-th unit eigenvector into v. fromGram says
// that the vectors are formed from the rows (fitPCAGram), which needs λ_k above the rounding level for every kept
// component. The sign convention is applied here.
func (s *Scaler) finishPCA(d int, mean, lam []float64, total float64, fromGram bool, vector func(k int, v []float64)) error {
	last := len(s.Steps) - 1
	st := s.Steps[last]
	spec, err := s.pcaSpec(d)
	if err != nil {
		return err
	}
	K := spec.K
	if spec.Frac > 0 {
		var all float64
		for _, v := range lam {
			all += v
		}
		K = len(lam)
		var acc float64
		for k, v := range lam {
			acc += v
			if acc >= spec.Frac*all {
				K = k + 1
				break
			}
		}
	}
	// A direction of variance within the rounding of the covariance (d·u·λ_1) is numerically null: whitening would
	// amplify rounding errors into unit-variance noise, and a direction formed from the rows would be rounding noise.
	// Constant inputs have no direction of variance at all: no component to project on, and no share of a variance
	// of 0 to keep.
	null := func(k int) bool { return k >= len(lam) || !(lam[k] > float64(d)*0x1p-52*lam[0]) }
	if len(lam) == 0 || !(lam[0] > 0) {
		return fmt.Errorf("preprocessing step %q: the inputs are constant; there are no principal components", string(st))
	}
	for k := range K {
		if !null(k) || !(spec.Whiten || fromGram) {
			continue
		}
		if fromGram {
			v := 0.0 // beyond the rows' Gram matrix: no variance at all
			if k < len(lam) {
				v = lam[k]
			}
			return fmt.Errorf("preprocessing step %q: the %d training rows span only %d directions of the %d columns (component %d has variance %.3g); keep at most %d components", string(st), len(lam)+1, k, d, k+1, v, k)
		}
		return fmt.Errorf("preprocessing step %q: component %d has variance %.3g, numerically zero (the inputs have rank %d); whiten fewer components (pca-whiten:%d) or use pca without whitening", string(st), k+1, lam[k], k, k)
	}
	p := StepParams{Step: st, Shift: append([]float64(nil), mean...), Scale: make([]float64, K),
		Components: make([]float64, K*d), Variances: append([]float64(nil), lam[:K]...), TotalVariance: total}
	for k := range K {
		vector(k, p.Components[k*d:(k+1)*d])
	}
	if fromGram {
		orthonormalize(p.Components, K, d)
	}
	for k := range K {
		v := p.Components[k*d : (k+1)*d]
		big := 0
		for j := range d {
			if math.Abs(v[j]) > math.Abs(v[big]) {
				big = j
			}
		}
		if v[big] < 0 {
			for j := range v {
				v[j] = -v[j]
			}
		}
		p.Scale[k] = 1
		if spec.Whiten {
			p.Scale[k] = math.Sqrt(lam[k])
		}
	}
	s.Params[last] = p
	return nil
}

// applyPCA projects the n rows of x (n×d, the output of the previous steps) in place: the first n×K values of x
// receive the components. Blocks of rows, centred, are multiplied by the components on all cores
// (Packing.GemmSerial) into a separate n×K result, copied into x at the end (row i's output overlaps the inputs of
// earlier rows). A block shorter than linalg.GemmSerialMinDim rows is padded with zero rows, so that every row goes
// through the same operations whether it is projected alone or in a block: the result does not depend on how the
// rows are batched or on GOMAXPROCS.
func applyPCA(p StepParams, x []float64, n, d int) {
	copy(x, projectPCA(p, x, n, d, nil))
}

// projectPCA returns the n×K components of the rows of x (n×d, not modified) as applyPCA computes them; prep, if
// not nil, is first applied in place to every block of rows copied from x (the steps before the PCA step).
func projectPCA(p StepParams, x []float64, n, d int, prep func(x []float64, n, d int)) []float64 {
	K := len(p.Scale)
	out := make([]float64, n*K)
	// Packing buffers per goroutine of this call: allocated once by each, garbage when the call returns.
	packs := make([]*linalg.Packing, runtime.GOMAXPROCS(0))
	parallel.ForWorker((n+pcaBlock-1)/pcaBlock, len(packs), func(w, b int) {
		if packs[w] == nil {
			packs[w] = new(linalg.Packing)
		}
		r0 := b * pcaBlock
		rows := min(n, r0+pcaBlock) - r0
		m := max(rows, linalg.GemmSerialMinDim)
		cen := make([]float64, m*d)
		copy(cen, x[r0*d:(r0+rows)*d])
		if prep != nil {
			prep(cen, rows, d)
		}
		for i := range rows {
			row := cen[i*d : (i+1)*d]
			for j := range row {
				row[j] -= p.Shift[j]
			}
		}
		res := make([]float64, m*K)
		packs[w].GemmSerial(false, true, m, K, d, 1, cen, d, p.Components, d, 0, res, K)
		for i := range rows {
			for k := range K {
				out[(r0+i)*K+k] = res[i*K+k] / p.Scale[k]
			}
		}
	})
	return out
}

// invertPCA maps the n×K components in the first n·K values of x back to the input of the step,
// u = ū + Σ_k s_k·p_k·v_k (the orthogonal projection of the original row onto the kept components), filling x as
// n×d. Rows are written from the last, whose input lies at or before its output.
func invertPCA(p StepParams, x []float64, n, d int) {
	K := len(p.Scale)
	in := make([]float64, K)
	for i := n - 1; i >= 0; i-- {
		copy(in, x[i*K:(i+1)*K])
		row := x[i*d : (i+1)*d]
		copy(row, p.Shift)
		for k, c := range in {
			c *= p.Scale[k]
			v := p.Components[k*d : (k+1)*d]
			for j := range row {
				row[j] += c * v[j]
			}
		}
	}
}

// validatePCA checks the parameters of a PCA step (step k, 1-based, on d columns): sizes, finite values, the
// scales of the step's kind, non-negative decreasing variances, and columns orthonormal to a rounding bound.
func validatePCA(k int, p StepParams, d int) error {
	spec, err := p.Step.pca()
	if err != nil {
		return err
	}
	K := len(p.Scale)
	switch {
	case K < 1 || K > d || (spec.K > 0 && spec.K != K):
		return fmt.Errorf("preprocess: step %d (%s) has %d components for %d columns", k, p.Step, K, d)
	case len(p.Shift) != d || !size.Is(len(p.Components), K, d) || len(p.Variances) != K:
		return fmt.Errorf("preprocess: step %d (%s) has %d shifts, %d component values and %d variances, want %d, %d×%d and %d", k, p.Step, len(p.Shift), len(p.Components), len(p.Variances), d, K, d, K)
	case !(p.TotalVariance >= 0) || math.IsInf(p.TotalVariance, 0):
		return fmt.Errorf("preprocess: step %d (%s): total variance %v", k, p.Step, p.TotalVariance)
	}
	for _, a := range [][]float64{p.Shift, p.Components} {
		for _, v := range a {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("preprocess: step %d (%s): a parameter is %v", k, p.Step, v)
			}
		}
	}
	var kept float64
	for c, v := range p.Variances {
		if !(v >= 0) || math.IsInf(v, 0) || (c > 0 && v > p.Variances[c-1]) {
			return fmt.Errorf("preprocess: step %d (%s): variance %d is %v; want finite, non-negative, decreasing", k, p.Step, c+1, v)
		}
		want := 1.0
		if spec.Whiten {
			want = math.Sqrt(v)
		}
		if p.Scale[c] != want || !(want > 0) {
			return fmt.Errorf("preprocess: step %d (%s): component %d has scale %v, want %v", k, p.Step, c+1, p.Scale[c], want)
		}
		kept += v
	}
	// The eigenvalues sum to the trace; each is computed within a few d·u·λ_1 of the exact one.
	if kept > p.TotalVariance*(1+float64(4*d)*0x1p-52)+float64(4*d)*0x1p-52*p.Variances[0] {
		return fmt.Errorf("preprocess: step %d (%s): the kept variances sum to %v, more than the total %v", k, p.Step, kept, p.TotalVariance)
	}
	// Eigenvectors from a backward-stable symmetric eigensolver are orthonormal to a small multiple of d·u; the
	// inner product of two of them is computed with a further error of at most d·u. 16·d·u bounds both.
	tol := float64(16*d) * 0x1p-52
	for a := range K {
		va := p.Components[a*d : (a+1)*d]
		for b := a; b < K; b++ {
			vb := p.Components[b*d : (b+1)*d]
			var s float64
			for j := range d {
				s += va[j] * vb[j]
			}
			if a == b {
				s--
			}
			if math.Abs(s) > tol {
				return fmt.Errorf("preprocess: step %d (%s): components %d and %d are not orthonormal (inner product off by %.3g)", k, p.Step, a+1, b+1, s)
			}
		}
	}
	return nil
}

// TrackCovariance makes the accumulator also collect the co-moment matrix Σ (x − mean)(x − mean)ᵀ of the rows, which
// a PCA step needs: [ScalerAccumulator.Scaler] then fits pca:K and pca-whiten:K too. Each block adds d² work per
// row and the accumulator holds d² more values. Call it before adding rows; it returns an error otherwise.
// [ScalerAccumulator.Moments] does not carry the co-moments, so an accumulator rebuilt from them has none. A nil or
// zero accumulator returns an error.
func (a *ScalerAccumulator) TrackCovariance() error {
	if err := a.check("TrackCovariance"); err != nil {
		return err
	}
	if a.n > 0 {
		return fmt.Errorf("preprocess: TrackCovariance after %d rows were added", a.n)
	}
	if a.cov == nil {
		a.cov = make([]float64, a.d*a.d)
	}
	return nil
}

// addCov adds the co-moments of the block x (n rows) to a.cov before a's means are updated: bm is the block's mean
// as first computed and bs = Σ (x − bm), its rounding correction. The block's co-moments about its corrected mean
// m = bm + bs/n are Σ e eᵀ − bs bsᵀ/n with e = x − bm (cross products of rows centred in sub-blocks, Syrk); they are
// merged by the pairwise update of Chan, Golub and LeVeque, M = M_a + M_b + δδᵀ·n_a·n_b/(n_a + n_b),
// δ = m − mean_a. Only the upper triangle of a.cov is kept.
func (a *ScalerAccumulator) addCov(x []float64, n int, bm, bs []float64) {
	d := a.d
	Q := make([]float64, d*d)
	buf := make([]float64, min(n, pcaBlock)*d)
	for i0 := 0; i0 < n; i0 += pcaBlock {
		b := min(pcaBlock, n-i0)
		blk := buf[:b*d]
		for i := range b {
			row, src := blk[i*d:(i+1)*d], x[(i0+i)*d:(i0+i+1)*d]
			for j, v := range src {
				row[j] = v - bm[j]
			}
		}
		linalg.Syrk(d, b, 1, blk, d, 1, Q, d)
	}
	nb := float64(n)
	if a.n == 0 {
		for i := range d {
			for j := i; j < d; j++ {
				a.cov[i*d+j] = Q[i*d+j] - bs[i]*bs[j]/nb
			}
		}
		return
	}
	na := float64(a.n)
	f := na * nb / (na + nb)
	delta := make([]float64, d)
	for j := range d {
		delta[j] = bm[j] + bs[j]/nb - a.mean[j]
	}
	for i := range d {
		for j := i; j < d; j++ {
			a.cov[i*d+j] += Q[i*d+j] - bs[i]*bs[j]/nb + delta[i]*delta[j]*f
		}
	}
}

// mergeCov adds the co-moments of o to a (before a's means are updated), as addCov does for a block.
func (a *ScalerAccumulator) mergeCov(o *ScalerAccumulator) error {
	if (a.cov == nil) != (o.cov == nil) {
		return errors.New("preprocess: merging statistics with and without co-moments (TrackCovariance on one side only)")
	}
	if a.cov == nil || o.n == 0 {
		return nil
	}
	d := a.d
	if a.n == 0 {
		copy(a.cov, o.cov)
		return nil
	}
	na, nb := float64(a.n), float64(o.n)
	f := na * nb / (na + nb)
	for i := range d {
		di := o.mean[i] - a.mean[i]
		for j := i; j < d; j++ {
			a.cov[i*d+j] += o.cov[i*d+j] + di*(o.mean[j]-a.mean[j])*f
		}
	}
	return nil
}

// pcaFromMoments fits the PCA step of s (fitted by scalerFromStats from a's moments, mean holding the means of the
// PCA step's input) from a's co-moments: the input u of the step is x scaled per column by g_j (the product of the
// reciprocal scales of the previous steps) plus a constant, so its covariance is g_i·g_j·M_ij/n.
func (a *ScalerAccumulator) pcaFromMoments(s *Scaler, mean []float64) error {
	d := a.d
	g := s.affineFactors()
	C := make([]float64, d*d)
	fn := float64(a.n)
	for i := range d {
		for j := i; j < d; j++ {
			v := g[i] * g[j] * a.cov[i*d+j] / fn
			C[i*d+j], C[j*d+i] = v, v
		}
	}
	return s.pcaFromCovariance(C, d, mean)
}
