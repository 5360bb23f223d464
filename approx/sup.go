package approx

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/kernel"
)

// Empirical errors over a set S × S (Sriperumbudur & Szabó 2015, Theorems 1, 2, 4 and 5; docs/conventions.md §7): the uniform
// error ‖∂^{p,q}k − ∂^{p,q}k̂‖_{L∞(S×S)} = sup_{x,y∈S} |∂^{p,q}k̂(x,y) − ∂^{p,q}k(x,y)| and the L^r error
// (∫_S∫_S |∂^{p,q}k̂ − ∂^{p,q}k|^r dx dy)^{1/r}, p = q = 0 being the kernel itself.
//
// For a shift-invariant kernel and a cos/sin map, both the kernel and its estimate depend on δ = x − y only:
//
//	∂^{p,q}k̂(x,y) = ⟨∂^pψ(x), ∂^qψ(y)⟩ (+ c if p = q = 0) = Σ_j w_j ω_j^p(−ω_j)^q h_{|p+q|}(ω_jᵀδ) (+ c),
//
// with h_n = cos⁽ⁿ⁾ and c the zero-node offset, so the supremum over S × S is a supremum over δ ∈ S − S, a set of
// dimension d instead of 2d. SupError searches it; LrError integrates over S × S by Monte Carlo.

// Shape is the shape of the set S.
type Shape int

const (
	// Cube is the cube [−a/2, a/2]^d whose Euclidean diameter is |S|, that is a = |S|/√d; S − S = [−a, a]^d.
	Cube Shape = iota
	// Ball is the ball of radius |S|/2 centred at 0; S − S is the ball of radius |S|.
	Ball
)

// String returns "cube" or "ball", or "Shape(N)" for an unknown shape.
func (s Shape) String() string {
	switch s {
	case Cube:
		return "cube"
	case Ball:
		return "ball"
	}
	return fmt.Sprintf("Shape(%d)", int(s))
}

// Domain is the compact set S ⊂ R^d on which errors are measured, given as in the theorems by its Euclidean diameter
// |S| = sup_{x,y∈S} ‖x − y‖₂, and centred at the origin. (The errors of a shift-invariant estimate do not depend on
// where S sits, only on S − S.)
type Domain struct {
	Shape    Shape
	Dim      int     // d
	Diameter float64 // |S|
}

// NewCube returns the cube [−side/2, side/2]^d (diameter side·√d).
func NewCube(d int, side float64) Domain {
	return Domain{Shape: Cube, Dim: d, Diameter: side * math.Sqrt(float64(d))}
}

// Validate reports whether the domain is usable: a known shape, d ≥ 1 and a positive finite diameter.
func (s Domain) Validate() error {
	if s.Shape != Cube && s.Shape != Ball {
		return fmt.Errorf("domain: unknown shape %v", s.Shape)
	}
	if s.Dim < 1 {
		return fmt.Errorf("domain: dimension must be at least 1, got %d", s.Dim)
	}
	if !(s.Diameter > 0) || math.IsInf(s.Diameter, 0) {
		return fmt.Errorf("domain: diameter must be positive and finite, got %v", s.Diameter)
	}
	return nil
}

// Side is the side a = |S|/√d of a cube (the diameter for a ball).
func (s Domain) Side() float64 {
	if s.Shape == Cube {
		return s.Diameter / math.Sqrt(float64(s.Dim))
	}
	return s.Diameter
}

// Volume is the Lebesgue measure of S: a^d for the cube, π^{d/2}(|S|/2)^d/Γ(d/2+1) for the ball. The latter is the
// factor of Theorem 2 (vol(S) ≤ vol of the ball of the same diameter, with equality for the ball).
func (s Domain) Volume() float64 {
	d := float64(s.Dim)
	if s.Shape == Cube {
		return math.Pow(s.Side(), d)
	}
	lg, _ := math.Lgamma(d/2 + 1)
	return math.Exp(d/2*math.Log(math.Pi) + d*math.Log(s.Diameter/2) - lg)
}

// Sample draws a point uniformly from S into dst (length Dim). rng must not be nil (it panics otherwise, as
// math/rand/v2 does).
func (s Domain) Sample(dst []float64, rng *rand.Rand) {
	if s.Shape == Cube {
		a := s.Side()
		for i := range dst {
			dst[i] = a * (rng.Float64() - 0.5)
		}
		return
	}
	uniformBall(dst, s.Diameter/2, rng)
}

// sampleDiff draws δ uniformly from S − S.
func (s Domain) sampleDiff(dst []float64, rng *rand.Rand) {
	if s.Shape == Cube {
		a := s.Side()
		for i := range dst {
			dst[i] = a * (2*rng.Float64() - 1)
		}
		return
	}
	uniformBall(dst, s.Diameter, rng)
}

// clampDiff projects δ onto S − S (in place).
func (s Domain) clampDiff(delta []float64) {
	if s.Shape == Cube {
		a := s.Side()
		for i, v := range delta {
			delta[i] = math.Max(-a, math.Min(a, v))
		}
		return
	}
	var n2 float64
	for _, v := range delta {
		n2 += v * v
	}
	if n := math.Sqrt(n2); n > s.Diameter {
		f := s.Diameter / n
		for i := range delta {
			delta[i] *= f
		}
	}
}

// uniformBall draws uniformly from the ball of radius R: a Gaussian direction and radius R·U^{1/d}.
func uniformBall(dst []float64, R float64, rng *rand.Rand) {
	if len(dst) == 0 {
		return // R^0 is a point: no direction to draw
	}
	for {
		var n2 float64
		for i := range dst {
			dst[i] = rng.NormFloat64()
			n2 += dst[i] * dst[i]
		}
		if n2 == 0 {
			continue
		}
		f := R * math.Pow(rng.Float64(), 1/float64(len(dst))) / math.Sqrt(n2)
		for i := range dst {
			dst[i] *= f
		}
		return
	}
}

// errorFn is δ ↦ e(δ) = ∂^{p,q}k̂ − ∂^{p,q}k for a cos/sin map, with its gradient in δ.
type errorFn struct {
	k         kernel.Kernel
	d, D      int
	W         []float64 // D×d frequencies
	coef      []float64 // w_j·ω_j^{p+q}·(−1)^{|q|}
	n         int       // |p+q|
	offset    float64   // c if n = 0
	p, q      []int
	zero      []float64
	exactGrad bool    // ∂^{p+e_i,q}k exists in closed form
	fdStep    float64 // central-difference step for the kernel part otherwise
}

func newErrorFn(m *feature.Map, p, q []int) (*errorFn, error) {
	if m == nil {
		return nil, errors.New("approx: nil feature map")
	}
	if m.Kernel() == nil || m.Points() < 1 || m.Dim() < 1 {
		return nil, errors.New("approx: the feature map was not made by feature.New or feature.FromParams")
	}
	k := m.Kernel()
	sk, ok := k.(kernel.Spectral)
	if !ok {
		return nil, fmt.Errorf("approx: kernel %s is not shift-invariant; the error over S×S is not a function of x−y", k.Name())
	}
	if m.Form() != feature.CosSin {
		return nil, errors.New("approx: the cos+phase form is not a function of x−y; use the cos/sin form")
	}
	d := m.Dim()
	np, err := kernel.MultiIndexOrder(p, d)
	if err != nil {
		return nil, fmt.Errorf("approx: p: %w", err)
	}
	nq, err := kernel.MultiIndexOrder(q, d)
	if err != nil {
		return nil, fmt.Errorf("approx: q: %w", err)
	}
	f := &errorFn{k: k, d: d, D: m.Points(), W: m.Frequencies(), n: np + nq, zero: make([]float64, d)}
	f.p, f.q = make([]int, d), make([]int, d)
	if p != nil {
		copy(f.p, p)
	}
	if q != nil {
		copy(f.q, q)
	}
	if _, err := kernel.Deriv(k, f.zero, f.zero, f.p, f.q); err != nil {
		return nil, fmt.Errorf("approx: %w", err)
	}
	if f.n == 0 {
		f.offset = m.Offset()
	}
	sign := 1.0
	if nq%2 == 1 {
		sign = -1
	}
	f.coef = m.Weights()
	for j := range f.coef {
		c := sign * f.coef[j]
		om := f.W[j*d : (j+1)*d]
		for i := 0; i < d; i++ {
			for range f.p[i] + f.q[i] {
				c *= om[i]
			}
		}
		f.coef[j] = c
	}
	if dk, ok := k.(kernel.Differentiable); ok && dk.MaxOrder() > f.n {
		f.exactGrad = true
	}
	f.fdStep = math.Cbrt(0x1p-52) * sk.Sigma()
	return f, nil
}

// cosDeriv returns cos⁽ⁿ⁾(t).
func cosDeriv(n int, t float64) float64 {
	switch n & 3 {
	case 1:
		return -math.Sin(t)
	case 2:
		return -math.Cos(t)
	case 3:
		return math.Sin(t)
	}
	return math.Cos(t)
}

// exact returns ∂^{p,q}k at δ (validated at construction, so it cannot fail).
func (f *errorFn) exact(delta []float64) float64 {
	v, _ := kernel.Deriv(f.k, delta, f.zero, f.p, f.q)
	return v
}

// values fills out[r] = e(δ_r) for rows of deltas (rows×d), in parallel blocks.
func (f *errorFn) values(out, deltas []float64, rows int) {
	const blk = 256
	blocks := (rows + blk - 1) / blk
	parallel.For(blocks, 0, func(b int) {
		r0 := b * blk
		rb := min(blk, rows-r0)
		proj := make([]float64, rb*f.D)
		blas64.Gemm(blas.NoTrans, blas.Trans, 1,
			blas64.General{Rows: rb, Cols: f.d, Stride: f.d, Data: deltas[r0*f.d : (r0+rb)*f.d]},
			blas64.General{Rows: f.D, Cols: f.d, Stride: f.d, Data: f.W},
			0, blas64.General{Rows: rb, Cols: f.D, Stride: f.D, Data: proj})
		for r := 0; r < rb; r++ {
			s := f.offset
			for j, t := range proj[r*f.D : (r+1)*f.D] {
				s += f.coef[j] * cosDeriv(f.n, t)
			}
			out[r0+r] = s - f.exact(deltas[(r0+r)*f.d:(r0+r+1)*f.d])
		}
	})
}

// valueGrad returns e(δ) and fills grad with ∇_δ e(δ): the estimate's gradient is exact
// (Σ_j coef_j ω_{ji} h_{n+1}(ω_jᵀδ)); the kernel's is ∂^{p+e_i,q}k when it exists in closed form and a central
// difference otherwise.
func (f *errorFn) valueGrad(delta, grad []float64) float64 {
	est := f.offset
	clear(grad)
	for j := 0; j < f.D; j++ {
		om := f.W[j*f.d : (j+1)*f.d]
		var t float64
		for i, v := range om {
			t += v * delta[i]
		}
		est += f.coef[j] * cosDeriv(f.n, t)
		g := f.coef[j] * cosDeriv(f.n+1, t)
		for i, v := range om {
			grad[i] += g * v
		}
	}
	var p1 []int
	if f.exactGrad {
		p1 = make([]int, f.d) // f is shared between goroutines: p + e_i goes in a copy
	}
	for i := range grad {
		if f.exactGrad {
			copy(p1, f.p)
			p1[i]++
			v, _ := kernel.Deriv(f.k, delta, f.zero, p1, f.q)
			grad[i] -= v
			continue
		}
		h := f.fdStep
		old := delta[i]
		delta[i] = old + h
		hi := f.exact(delta)
		delta[i] = old - h
		lo := f.exact(delta)
		delta[i] = old
		grad[i] -= (hi - lo) / (2 * h)
	}
	return est - f.exact(delta)
}

// Search is the budget of [SupError]: Candidates points δ drawn uniformly from S − S (and δ = 0, always), then
// gradient ascent on |e(δ)| from the Starts best candidates, Steps trial steps each.
type Search struct {
	Candidates int    // random candidates; 0 means 4096
	Starts     int    // candidates refined by gradient ascent; 0 means 8
	Steps      int    // trial steps per start; 0 means 100
	Seed       uint64 // seed of the candidates
}

func (s Search) withDefaults() Search {
	if s.Candidates == 0 {
		s.Candidates = 4096
	}
	if s.Starts == 0 {
		s.Starts = 8
	}
	if s.Steps == 0 {
		s.Steps = 100
	}
	return s
}

// Sup is the result of [SupError]. Value is attained at Delta, so it is a lower bound on the supremum; how close it
// is depends on the search budget, which is reported with it.
type Sup struct {
	Value       float64   // max |∂^{p,q}k̂(x,y) − ∂^{p,q}k(x,y)| found, over x, y ∈ S
	Delta       []float64 // δ = x − y ∈ S − S where it is attained
	Search      Search    // the budget used (defaults filled in)
	Evaluations int       // evaluations of the error (candidates and trial steps; a trial step evaluates a gradient too)
}

// SupError estimates the uniform error ‖∂^{p,q}k − ∂^{p,q}k̂‖_{L∞(S×S)} of the cos/sin map m (p = q = nil for the
// kernel itself; Sriperumbudur & Szabó 2015, Theorem 1 for k and Theorems 4–5 for derivatives) as a supremum over
// δ ∈ S − S: dense random search over Candidates points plus δ = 0 (where even-order derivative errors often peak),
// then, from the Starts best candidates at least one candidate spacing apart, gradient ascent on |e(δ)| with
// normalized steps, doubled after an improvement and halved otherwise, projected back onto S − S.
//
// The value returned is attained, hence a lower bound on the true supremum. It returns an error if m is not a
// cos/sin map of a shift-invariant kernel, if the domain's dimension is not m's, for a bad multi-index or if the
// kernel has no derivative of order |p|+|q|.
func SupError(m *feature.Map, s Domain, p, q []int, budget Search) (Sup, error) {
	if err := s.Validate(); err != nil {
		return Sup{}, fmt.Errorf("approx: %w", err)
	}
	f, err := newErrorFn(m, p, q)
	if err != nil {
		return Sup{}, err
	}
	if s.Dim != f.d {
		return Sup{}, fmt.Errorf("approx: domain has dimension %d, the map %d", s.Dim, f.d)
	}
	budget = budget.withDefaults()
	if budget.Candidates < 0 || budget.Starts < 0 || budget.Steps < 0 {
		return Sup{}, fmt.Errorf("approx: negative search budget %+v", budget)
	}
	if budget.Candidates == math.MaxInt {
		return Sup{}, fmt.Errorf("approx: %d search candidates are too many", budget.Candidates)
	}
	if _, err := size.Floats("approx: search candidates", budget.Candidates+1, f.d); err != nil {
		return Sup{}, err
	}
	d := f.d
	rng := rand.New(rand.NewPCG(budget.Seed, 0x5eed5ca1ab1e))
	nc := budget.Candidates + 1
	cand := make([]float64, nc*d) // candidate 0 is δ = 0
	for c := 1; c < nc; c++ {
		s.sampleDiff(cand[c*d:(c+1)*d], rng)
	}
	vals := make([]float64, nc)
	f.values(vals, cand, nc)
	for i, v := range vals {
		vals[i] = math.Abs(v)
	}
	order := make([]int, nc)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return vals[order[a]] > vals[order[b]] })

	// Candidate spacing: the side of the cell each candidate covers in S − S (volume 2^d·vol(S) for the symmetric
	// sets used here).
	spacing := math.Pow(math.Pow(2, float64(d))*s.Volume()/float64(nc), 1/float64(d))
	var starts []int
	for _, c := range order {
		if len(starts) == budget.Starts {
			break
		}
		far := true
		for _, o := range starts {
			var d2 float64
			for i := 0; i < d; i++ {
				t := cand[c*d+i] - cand[o*d+i]
				d2 += t * t
			}
			if d2 < spacing*spacing {
				far = false
				break
			}
		}
		if far {
			starts = append(starts, c)
		}
	}

	type result struct {
		val   float64
		delta []float64
		evals int
	}
	res := make([]result, len(starts))
	parallel.For(len(starts), 0, func(k int) {
		c := starts[k]
		delta := append([]float64(nil), cand[c*d:(c+1)*d]...)
		best := vals[c]
		grad := make([]float64, d)
		trial := make([]float64, d)
		tgrad := make([]float64, d)
		e := f.valueGrad(delta, grad)
		evals := 0
		step := spacing / 2
		for it := 0; it < budget.Steps; it++ {
			var gn float64
			for _, g := range grad {
				gn += g * g
			}
			gn = math.Sqrt(gn)
			if gn == 0 || step < 1e-15*s.Diameter {
				break
			}
			sg := step / gn
			if e < 0 {
				sg = -sg // ascend |e|
			}
			for i := range trial {
				trial[i] = delta[i] + sg*grad[i]
			}
			s.clampDiff(trial)
			te := f.valueGrad(trial, tgrad)
			evals++
			if math.Abs(te) > best {
				best, e = math.Abs(te), te
				copy(delta, trial)
				copy(grad, tgrad)
				step *= 2
			} else {
				step /= 2
			}
		}
		res[k] = result{best, delta, evals}
	})
	out := Sup{Value: vals[order[0]], Delta: append([]float64(nil), cand[order[0]*d:(order[0]+1)*d]...),
		Search: budget, Evaluations: nc}
	for _, r := range res {
		out.Evaluations += r.evals + 1
		if r.val > out.Value {
			out.Value, out.Delta = r.val, r.delta
		}
	}
	return out, nil
}

// MonteCarlo is the budget of [LrError]: Samples pairs (x, y) drawn uniformly from S × S.
type MonteCarlo struct {
	Samples int // 0 means 100000
	Seed    uint64
}

// Lr is the result of [LrError].
type Lr struct {
	R       float64 // the exponent r
	Value   float64 // estimate of ‖∂^{p,q}k − ∂^{p,q}k̂‖_{L^r(S×S)}
	SE      float64 // its standard error
	Samples int     // pairs drawn
	Volume  float64 // vol(S)
}

// LrError estimates the L^r error ‖∂^{p,q}k − ∂^{p,q}k̂‖_{L^r(S×S)} = (∫_S∫_S |e(x−y)|^r dx dy)^{1/r} of the cos/sin
// map m (p = q = nil for the kernel itself; 1 ≤ r < ∞) by Monte Carlo. The norm is with respect to Lebesgue measure
// on S × S, unnormalized, as in Sriperumbudur & Szabó 2015, Theorem 2 (whose factor vol(S)^{2/r} ≤ (π^{d/2}|S|^d /
// (2^dΓ(d/2+1)))^{2/r} converts the L∞ bound): with x, y uniform on S, ∫∫|e|^r = vol(S)²·E|e(x−y)|^r, estimated by
// the sample mean μ̂ of |e|^r with standard error s/√n. Value = (vol(S)²μ̂)^{1/r}, and its standard error follows by
// the delta method, SE = Value·SE(μ̂)/(r·μ̂).
//
// Errors as for [SupError], and for r < 1 or r infinite, or fewer than 2 samples.
func LrError(m *feature.Map, s Domain, p, q []int, r float64, mc MonteCarlo) (Lr, error) {
	if err := s.Validate(); err != nil {
		return Lr{}, fmt.Errorf("approx: %w", err)
	}
	if !(r >= 1) || math.IsInf(r, 0) {
		return Lr{}, fmt.Errorf("approx: L^r error needs 1 ≤ r < ∞, got %v", r)
	}
	if mc.Samples == 0 {
		mc.Samples = 100000
	}
	if mc.Samples < 2 {
		return Lr{}, fmt.Errorf("approx: need at least 2 Monte Carlo samples, got %d", mc.Samples)
	}
	f, err := newErrorFn(m, p, q)
	if err != nil {
		return Lr{}, err
	}
	if s.Dim != f.d {
		return Lr{}, fmt.Errorf("approx: domain has dimension %d, the map %d", s.Dim, f.d)
	}
	d, n := f.d, mc.Samples
	if _, err := size.Floats("approx: Monte Carlo samples", n, d); err != nil {
		return Lr{}, err
	}
	rng := rand.New(rand.NewPCG(mc.Seed, 0x1a7e5ca1ab1e))
	deltas := make([]float64, n*d)
	x, y := make([]float64, d), make([]float64, d)
	for i := 0; i < n; i++ {
		s.Sample(x, rng)
		s.Sample(y, rng)
		for l := range x {
			deltas[i*d+l] = x[l] - y[l]
		}
	}
	e := make([]float64, n)
	f.values(e, deltas, n)
	var mean float64
	for i, v := range e {
		e[i] = math.Pow(math.Abs(v), r)
		mean += e[i]
	}
	mean /= float64(n)
	var ss float64
	for _, v := range e {
		ss += (v - mean) * (v - mean)
	}
	seMean := math.Sqrt(ss / float64(n-1) / float64(n))
	vol := s.Volume()
	out := Lr{R: r, Samples: n, Volume: vol}
	out.Value = math.Pow(vol*vol*mean, 1/r)
	if mean > 0 {
		out.SE = out.Value * seMean / (r * mean)
	}
	return out, nil
}
