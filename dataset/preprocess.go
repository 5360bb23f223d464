package dataset

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rffkit/rff/internal/size"
)

// Step is one preprocessing step. Every step but PCA maps column j affinely,
// x ← (x − Shift[j]) / Scale[j] with Scale[j] > 0, with parameters fitted on
// training data; a PCA step ("pca:K", "pca-whiten:K", see [Step.PCA]) projects
// the columns onto K principal directions.
type Step string

// The preprocessing steps.
const (
	// StepStandardize gives every column mean 0 and (population) standard
	// deviation 1. A constant column becomes 0 (its scale is 1, not 0).
	StepStandardize Step = "standardize"
	// StepMinMax maps every column onto [0, 1]: min → 0, max → 1. A constant
	// column becomes 0.
	StepMinMax Step = "minmax"
	// StepMaxScale divides all values by the global maximum of the data (the
	// protocol of the quadrature-features paper, Munkhoeva et al. 2018). If
	// that maximum is 0 or negative the maximum absolute value is used; data
	// that are all zeros are left as they are.
	StepMaxScale Step = "maxscale"
	// StepIsotropic centres every column (mean 0) and divides all columns by
	// one common factor, the root mean square of their (population) standard
	// deviations, so that the data have unit average variance while their
	// geometry is only translated and uniformly scaled: a vector field that is
	// curl-free or divergence-free in the scaled coordinates is so in the raw
	// ones. Data whose columns are all constant are only centred.
	StepIsotropic Step = "isotropic"
	// StepNone does nothing.
	StepNone Step = "none"
)

// ParseSteps parses a comma-separated list of steps, e.g.
// "standardize,maxscale". Case and blanks around names are ignored; "" gives
// no steps. "paper" is not a step: the command line maps it to the steps of
// each dataset's published protocol.
func ParseSteps(s string) ([]Step, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var steps []Step
	for _, f := range strings.Split(s, ",") {
		st := Step(strings.ToLower(strings.TrimSpace(f)))
		if err := st.check(); err != nil {
			return nil, err
		}
		steps = append(steps, st)
	}
	if err := checkChain(steps); err != nil {
		return nil, err
	}
	return steps, nil
}

func (st Step) check() error {
	switch st {
	case StepStandardize, StepMinMax, StepMaxScale, StepIsotropic, StepNone:
		return nil
	}
	if st.PCA() {
		_, err := st.pca()
		return err
	}
	return fmt.Errorf("unknown preprocessing step %q (want standardize, minmax, maxscale, isotropic, pca:K, pca-whiten:K or none)", string(st))
}

// StepParams are the fitted parameters of one step: column j is mapped by
// x ← (x − Shift[j]) / Scale[j]. Shift and Scale are nil for StepNone and have
// length D otherwise (StepMaxScale repeats its one global scale D times and
// has Shift all 0). A PCA step maps the D columns u to K by
// p_k = Σ_j Components[k·D+j]·(u_j − Shift[j]) / Scale[k]: Shift (length D) is
// the mean of u, Components (K×D, row-major) the principal directions,
// Variances (K) the eigenvalues λ_k of the covariance of u, TotalVariance its
// trace, and Scale (K) is 1 or √λ_k (whitening).
type StepParams struct {
	Step          Step      `json:"step"`
	Shift         []float64 `json:"shift,omitempty"`
	Scale         []float64 `json:"scale,omitempty"`
	Components    []float64 `json:"components,omitempty"`
	Variances     []float64 `json:"variances,omitempty"`
	TotalVariance float64   `json:"total_variance,omitempty"`
}

// Scaler is a fitted chain of preprocessing steps for data with D columns. Its
// fields are exported so that a model file can store it; call Validate after
// decoding one. The accessors describe a nil *Scaler as the zero Scaler, with
// no steps and no columns; Validate returns an error for it.
type Scaler struct {
	Steps  []Step       `json:"steps"`
	D      int          `json:"d"`
	Params []StepParams `json:"params"` // one per step, in order
}

// FitScaler fits the steps on the row-major n×d training data x, step by
// step: each step is fitted on the output of the previous ones. x is not
// modified; call Apply to transform it.
//
// Every step is a per-column affine map with a positive scale, so the mean,
// standard deviation, minimum and maximum of each column after a step follow
// exactly from those before it: FitScaler computes them in two passes over x
// (a corrected two-pass variance) and never copies the data. A PCA step (the
// last) takes one more pass, which accumulates the covariance of the output of
// the previous steps in blocks of rows.
func FitScaler(x []float64, n, d int, steps []Step) (*Scaler, error) {
	if n < 1 || d < 1 {
		return nil, fmt.Errorf("preprocess: need at least one row and one column, have %d×%d", n, d)
	}
	if !size.Is(len(x), n, d) {
		return nil, fmt.Errorf("preprocess: len(x) = %d, want n×d = %d×%d = %d", len(x), n, d, n*d)
	}
	s := &Scaler{Steps: append([]Step(nil), steps...), D: d, Params: make([]StepParams, len(steps))}
	need := false
	for k, st := range steps {
		if err := st.check(); err != nil {
			return nil, err
		}
		s.Params[k].Step = st
		need = need || st != StepNone
	}
	if err := checkChain(steps); err != nil {
		return nil, err
	}
	if !need {
		return s, nil
	}

	// Column statistics of the raw data.
	mean := make([]float64, d)
	lo := make([]float64, d)
	hi := make([]float64, d)
	copy(lo, x[:d])
	copy(hi, x[:d])
	for i := range n {
		row := x[i*d : (i+1)*d]
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("preprocess: row %d, column %d: NaN/Inf not allowed", i+1, j+1)
			}
			mean[j] += v
			lo[j] = min(lo[j], v)
			hi[j] = max(hi[j], v)
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	ss := make([]float64, d) // Σ (x − mean)²
	sd := make([]float64, d) // Σ (x − mean), rounding correction
	for i := range n {
		row := x[i*d : (i+1)*d]
		for j, v := range row {
			e := v - mean[j]
			ss[j] += e * e
			sd[j] += e
		}
	}
	std := ss
	for j := range std {
		std[j] = math.Sqrt(max(0, (ss[j]-sd[j]*sd[j]/float64(n))/float64(n)))
		mean[j] += sd[j] / float64(n) // corrects the rounding of the first pass
		if lo[j] == hi[j] && (math.IsInf(mean[j], 0) || math.IsNaN(mean[j]) || math.IsNaN(std[j])) {
			mean[j], std[j] = lo[j], 0 // a constant column whose sum overflowed: its mean is its value
		}
	}

	rawLo, rawHi := slices.Clone(lo), slices.Clone(hi)
	s, err := scalerFromStats(steps, d, mean, std, lo, hi)
	if err != nil || !s.HasPCA() {
		return s, err
	}
	if err := checkPCASpread(steps, rawLo, rawHi, lo, hi); err != nil {
		return nil, err
	}
	if err := s.fitPCA(x, n, d, mean); err != nil { // mean now holds the means of the PCA step's input
		return nil, err
	}
	return s, nil
}

// overflowErr is the error of a step whose statistics of column j (−1: of all columns) overflow floating point.
func overflowErr(st Step, j int) error {
	col, its := "the columns span", "their"
	if j >= 0 {
		col, its = fmt.Sprintf("column %d spans", j+1), "its"
	}
	return fmt.Errorf("preprocess: %s: %s too wide a range for floating point (%s mean, spread or range overflows); "+
		"divide by a power of ten first", st, col, its)
}

// underflowErr is the error of a step that divides by the standard deviation of column j (−1: of all columns), whose
// sum of squares underflowed: the values differ (by spread), but their squared deviations are below the smallest
// float64.
func underflowErr(st Step, j int, spread float64) error {
	col := "the columns' values differ"
	if j >= 0 {
		col = fmt.Sprintf("column %d's values differ", j+1)
	}
	return fmt.Errorf("preprocess: %s: %s by %.3g, too little for their squares in floating point (the standard deviation "+
		"underflows); multiply by a power of ten first, or use minmax or maxscale", st, col, spread)
}

// allUnderflowed reports whether some column varies and every column that varies has squared deviations that
// underflow (underflowed), with the largest spread of a column.
func allUnderflowed(lo, hi []float64) (float64, bool) {
	spread, varies := 0.0, false
	for j := range lo {
		if lo[j] == hi[j] {
			continue
		}
		if !underflowed(lo[j], hi[j]) {
			return 0, false
		}
		varies, spread = true, max(spread, hi[j]-lo[j])
	}
	return spread, varies
}

// underflowed reports whether the squared deviations from their mean of values spanning [lo, hi] (not all equal) lie
// below the normal range of float64, where they underflow to 0 or keep a few digits: whether hi − lo < 2⁻⁵¹⁰
// (about 3e-154; the largest deviation is at least half the spread, and 2⁻¹⁰²² is the smallest normal float64).
func underflowed(lo, hi float64) bool {
	return lo != hi && hi-lo < 0x1p-510
}

// scalerFromStats fits the steps from the column statistics of the raw data (mean, population standard deviation,
// minimum, maximum), which it overwrites with those of the output of the last affine step. It leaves the parameters
// of a PCA step empty (FitScaler fits them).
func scalerFromStats(steps []Step, d int, mean, std, lo, hi []float64) (*Scaler, error) {
	s := &Scaler{Steps: append([]Step(nil), steps...), D: d, Params: make([]StepParams, len(steps))}
	// The standard deviations come from the raw values' squares, whatever steps come before the one that uses them.
	rawLo, rawHi := slices.Clone(lo), slices.Clone(hi)
	for k, st := range steps {
		if err := st.check(); err != nil {
			return nil, err
		}
		s.Params[k].Step = st
	}
	for k, st := range steps {
		if st == StepNone || st.PCA() {
			continue
		}
		shift := make([]float64, d)
		scale := make([]float64, d)
		switch st {
		case StepStandardize:
			for j := range d {
				if lo[j] == hi[j] {
					shift[j], scale[j] = lo[j], 1
					continue
				}
				shift[j], scale[j] = mean[j], std[j]
				if math.IsInf(scale[j], 0) || math.IsNaN(scale[j]) || math.IsInf(shift[j], 0) {
					return nil, overflowErr(st, j)
				}
				if underflowed(rawLo[j], rawHi[j]) {
					return nil, underflowErr(st, j, rawHi[j]-rawLo[j])
				}
				if !(scale[j] > 0) {
					scale[j] = 1
				}
			}
		case StepMinMax:
			for j := range d {
				shift[j], scale[j] = lo[j], hi[j]-lo[j]
				if math.IsInf(scale[j], 0) {
					return nil, overflowErr(st, j)
				}
				if !(scale[j] > 0) {
					scale[j] = 1
				}
			}
		case StepIsotropic:
			// The common factor is the root mean square of the columns' standard deviations: a column whose squares
			// underflow adds nothing to it, which matters only when every column that varies is such a column —
			// unless a step before stretched the column (minmax), whose standard deviation then counts but was
			// lost with the raw squares.
			if rescalesColumns(steps[:k]) {
				for j := range d {
					if underflowed(rawLo[j], rawHi[j]) {
						return nil, underflowErr(st, j, rawHi[j]-rawLo[j])
					}
				}
			}
			if spread, all := allUnderflowed(rawLo, rawHi); all {
				return nil, underflowErr(st, -1, spread)
			}
			c := rms(std)
			if math.IsInf(c, 0) || math.IsNaN(c) {
				return nil, overflowErr(st, -1)
			}
			if !(c > 0) {
				c = 1
			}
			for j := range d {
				shift[j], scale[j] = mean[j], c
			}
		case StepMaxScale:
			m := math.Inf(-1)
			for j := range d {
				m = max(m, hi[j])
			}
			if m <= 0 {
				for j := range d {
					m = max(m, math.Abs(lo[j]), math.Abs(hi[j]))
				}
			}
			if m == 0 {
				m = 1
			}
			for j := range d {
				scale[j] = m
			}
		}
		s.Params[k].Shift, s.Params[k].Scale = shift, scale
		// The statistics of the step's output.
		for j := range d {
			mean[j] = (mean[j] - shift[j]) / scale[j]
			std[j] /= scale[j]
			lo[j] = (lo[j] - shift[j]) / scale[j]
			hi[j] = (hi[j] - shift[j]) / scale[j]
		}
	}
	return s, nil
}

// checkPCASpread refuses the PCA step (the last of steps) when every column of its input that varies (spanning
// [lo_j, hi_j]) has squared deviations that underflow: its covariance would be 0, and the inputs taken for constant.
// A column that alone is that small only adds a direction of negligible variance, as it would without underflow —
// unless a step before stretched it (minmax): a streamed fit maps the raw co-moments through the steps, and the
// raw squares of such a column (spanning [rawLo_j, rawHi_j]) were lost, so it is refused in one pass too.
func checkPCASpread(steps []Step, rawLo, rawHi, lo, hi []float64) error {
	pca := steps[len(steps)-1]
	if rescalesColumns(steps[:len(steps)-1]) {
		for j := range rawLo {
			if underflowed(rawLo[j], rawHi[j]) {
				return underflowErr(pca, j, rawHi[j]-rawLo[j])
			}
		}
	}
	if spread, all := allUnderflowed(lo, hi); all {
		return underflowErr(pca, -1, spread)
	}
	return nil
}

// rescalesColumns reports whether a step of steps scales the columns by factors of their own (minmax, standardize),
// which can stretch a column of negligible spread to one that counts.
func rescalesColumns(steps []Step) bool {
	return slices.ContainsFunc(steps, func(st Step) bool { return st == StepMinMax || st == StepStandardize })
}

// rms is √(Σ v_j²/d), computed on the v_j scaled by a power of two near the largest |v_j|, so that the squares
// neither underflow nor overflow where the result does not; the scaling is exact, so where the plain formula does
// not underflow or overflow the two give the same bits.
func rms(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	if m == 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		return m
	}
	_, e := math.Frexp(m)
	lo, hi := math.Ldexp(1, -e/2), math.Ldexp(1, -e+e/2) // lo·hi = 2^−e, each representable
	var ss float64
	for _, x := range v {
		y := x * lo * hi
		ss += y * y
	}
	return math.Ldexp(math.Sqrt(ss/float64(len(v))), e)
}

// Isotropic reports whether every step maps all columns by one common positive factor (and a shift): maxscale,
// isotropic and none. Such preprocessing changes the geometry of the inputs only by a translation and a uniform
// scaling, which curl-free and divergence-free vector fields survive; [Scaler.Factor] gives the factor. A scaler
// with a PCA step is not isotropic (it changes the number of columns). A nil or zero Scaler, which has no steps, is.
func (s *Scaler) Isotropic() bool {
	if s == nil {
		return true
	}
	if s.HasPCA() {
		return false
	}
	for _, p := range s.Params {
		for _, c := range p.Scale {
			if c != p.Scale[0] {
				return false
			}
		}
	}
	return true
}

// Factor returns the product of the steps' common scales: x' = (x − shift)/Factor() for an isotropic scaler, so
// that ∂/∂x = (1/Factor())·∂/∂x'. It is meaningful only when [Scaler.Isotropic] is true (1 for a nil or zero
// Scaler, which has no steps).
func (s *Scaler) Factor() float64 {
	f := 1.0
	if s == nil {
		return f
	}
	for _, p := range s.Params {
		if len(p.Scale) > 0 {
			f *= p.Scale[0]
		}
	}
	return f
}

// Validate checks that the scaler is consistent (known steps, parameter
// lengths equal to D, finite parameters, positive scales; for a PCA step, the
// last, orthonormal components to a rounding bound), e.g. after it was decoded
// from a model file. It returns an error for a nil or zero Scaler.
func (s *Scaler) Validate() error {
	if s == nil {
		return errors.New("preprocess: nil scaler")
	}
	if s.D < 1 {
		return fmt.Errorf("preprocess: scaler has D = %d", s.D)
	}
	if len(s.Params) != len(s.Steps) {
		return fmt.Errorf("preprocess: scaler has %d steps but %d parameter sets", len(s.Steps), len(s.Params))
	}
	for k, st := range s.Steps {
		if err := st.check(); err != nil {
			return err
		}
		p := s.Params[k]
		if p.Step != st {
			return fmt.Errorf("preprocess: step %d is %q but its parameters are for %q", k+1, st, p.Step)
		}
		if st.PCA() {
			if k != len(s.Steps)-1 {
				return fmt.Errorf("preprocess: step %d (%s) is not the last", k+1, st)
			}
			if err := validatePCA(k+1, p, s.D); err != nil {
				return err
			}
			continue
		}
		if p.Components != nil || p.Variances != nil || p.TotalVariance != 0 {
			return fmt.Errorf("preprocess: step %d (%s) has PCA parameters", k+1, st)
		}
		if st == StepNone {
			if p.Shift != nil || p.Scale != nil {
				return fmt.Errorf("preprocess: step %d (none) has parameters", k+1)
			}
			continue
		}
		if len(p.Shift) != s.D || len(p.Scale) != s.D {
			return fmt.Errorf("preprocess: step %d (%s) has %d shifts and %d scales, want %d", k+1, st, len(p.Shift), len(p.Scale), s.D)
		}
		for j := range s.D {
			if math.IsNaN(p.Shift[j]) || math.IsInf(p.Shift[j], 0) || !(p.Scale[j] > 0) || math.IsInf(p.Scale[j], 0) {
				return fmt.Errorf("preprocess: step %d (%s), column %d: bad parameters shift %v, scale %v", k+1, st, j+1, p.Shift[j], p.Scale[j])
			}
		}
	}
	return nil
}

// Apply transforms the row-major n×d data x in place by the fitted steps, in
// order. After a PCA step the result has OutDim() columns: it is the first
// n×OutDim() values of x (the rest is left unspecified). It panics if s is
// nil, d != s.D or len(x) < n*d (check s.D against the data first where the
// data come from a user).
func (s *Scaler) Apply(x []float64, n, d int) {
	s.checkDims(x, n, d)
	for _, p := range s.Params {
		if p.Step.PCA() {
			applyPCA(p, x, n, d)
			continue
		}
		if p.Shift == nil {
			continue
		}
		for i := range n {
			row := x[i*d : (i+1)*d]
			for j := range row {
				row[j] = (row[j] - p.Shift[j]) / p.Scale[j]
			}
		}
	}
}

// Transform returns the preprocessed rows of x (n×d, not modified) as a new n×OutDim() slice: the values Apply
// would leave in the first n·OutDim() entries of a copy of x, bit for bit. With a PCA step each block of rows is
// scaled and projected as it is copied, so the n×d input is never copied whole. It panics like Apply.
func (s *Scaler) Transform(x []float64, n, d int) []float64 {
	s.checkDims(x, n, d)
	last := len(s.Params) - 1
	if last < 0 || !s.Params[last].Step.PCA() {
		out := append([]float64(nil), x[:n*d]...)
		s.Apply(out, n, d)
		return out
	}
	prev := &Scaler{Steps: s.Steps[:last], D: d, Params: s.Params[:last]}
	return projectPCA(s.Params[last], x, n, d, prev.Apply)
}

// Invert undoes Apply in place (up to rounding): the steps are inverted in
// reverse order, x ← x·Scale[j] + Shift[j]. It is useful for a scaler fitted
// on regression targets (d = 1). With a PCA step, x holds n×OutDim()
// components in its first values and receives n×d rows, the reconstruction
// from the kept components (the orthogonal projection onto them, exact when
// OutDim() = d). It panics like Apply.
func (s *Scaler) Invert(x []float64, n, d int) {
	s.checkDims(x, n, d)
	for k := len(s.Params) - 1; k >= 0; k-- {
		p := s.Params[k]
		if p.Step.PCA() {
			invertPCA(p, x, n, d)
			continue
		}
		if p.Shift == nil {
			continue
		}
		for i := range n {
			row := x[i*d : (i+1)*d]
			for j := range row {
				row[j] = row[j]*p.Scale[j] + p.Shift[j]
			}
		}
	}
}

func (s *Scaler) checkDims(x []float64, n, d int) {
	if s == nil {
		panic("dataset: nil scaler applied to data")
	}
	if d != s.D {
		panic(fmt.Sprintf("dataset: scaler fitted on %d columns applied to %d", s.D, d))
	}
	if nd, ok := size.Mul(n, d); !ok || len(x) < nd {
		panic(fmt.Sprintf("dataset: scaler applied to %d×%d data with len(x) = %d", n, d, len(x)))
	}
}
