package bound

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Bound is a finite-sample guarantee on the approximation error of a random-feature (or quadrature) estimate built
// from m points ω_1 … ω_m (m = D = number of frequencies; the cos/sin feature map has 2m columns).
//
// The three methods are three views of one inequality P(error ≥ ε) ≤ Prob(ε, m):
//   - Prob(ε, m) is the bound on the failure probability (it may exceed 1, and then says nothing);
//   - Error(m, δ) is the smallest ε with Prob(ε, m) ≤ δ: the error guaranteed for m points with confidence 1 − δ;
//   - Points(ε, δ) is the smallest m ≥ 1 with Prob(ε, m) ≤ δ: the points needed for error ε with confidence 1 − δ.
//
// Error and Points are consistent by construction: for m = Points(ε, δ), Error(m, δ) ≤ ε and, when m > 1,
// Error(m−1, δ) > ε.
type Bound interface {
	Prob(eps float64, m int) (float64, error)
	Error(m int, delta float64) (float64, error)
	Points(eps, delta float64) (int, error)
}

// ErrInfiniteMoment is wrapped by the errors returned when a spectral moment a theorem needs is infinite
// (for example E‖ω‖² for the Laplacian kernel, whose spectral law is Cauchy).
var ErrInfiniteMoment = errors.New("spectral moment is infinite")

// maxPoints is the largest point count the solvers report (2^53, where float64 stops counting integers).
const maxPoints = 1 << 53

// MaxDim is the largest input dimension d the bounds accept, 2^37: one input point of more coordinates would not
// fit in the 1 TiB the library allows one array, and far before d nears the range of int the d+1, d+2, 2^{d−1} of the
// theorems stop meaning anything in floating point. Every bound is evaluated in closed form in d (no loop or
// allocation over the d coordinates, except over multi-indices p and q the caller passes), so any d up to MaxDim
// costs microseconds.
const MaxDim = 1 << 37

func checkDim(d int) error {
	if d < 1 {
		return fmt.Errorf("dimension d must be ≥ 1, got %d", d)
	}
	if d > MaxDim {
		return fmt.Errorf("dimension d = %d is beyond the largest one supported, 2^37 (one input would exceed 1 TiB)", d)
	}
	return nil
}

func checkPositive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%s must be positive and finite, got %v", name, v)
	}
	return nil
}

func checkNonNeg(name string, v float64) error {
	if !(v >= 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%s must be non-negative and finite, got %v", name, v)
	}
	return nil
}

func checkDelta(delta float64) error {
	if !(delta > 0 && delta < 1) {
		return fmt.Errorf("δ must lie in (0, 1), got %v", delta)
	}
	return nil
}

func checkEps(eps float64) error {
	if !(eps > 0) || math.IsInf(eps, 0) {
		return fmt.Errorf("ε must be positive and finite, got %v", eps)
	}
	return nil
}

func checkM(m int) error {
	if m < 1 {
		return fmt.Errorf("number of points m must be ≥ 1, got %d", m)
	}
	return nil
}

// pointsFor returns the smallest integer m ≥ 1 with ok(m), for a predicate that is monotone (false … false true …
// true) in m. guess, if finite and ≥ 1, is where the search starts (a closed form or an upper bound).
func pointsFor(ok func(m float64) bool, guess float64) (int, error) {
	hi := 1.0
	if guess >= 1 && !math.IsInf(guess, 0) && !math.IsNaN(guess) {
		hi = math.Min(math.Ceil(guess), maxPoints)
	}
	for !ok(hi) {
		if hi >= maxPoints {
			return 0, fmt.Errorf("more than 2^53 points would be needed")
		}
		hi = math.Min(2*hi, maxPoints)
	}
	// Smallest m in [1, hi] with ok(m): ok(hi) holds.
	lo := 0.0 // ok(lo) is false by convention (m = 0 is never enough)
	if hi > 1 {
		// Fast path for a good closed-form guess: check hi−1 first.
		if !ok(hi - 1) {
			return int(hi), nil
		}
		hi--
	}
	for hi-lo > 1 {
		mid := math.Floor((lo + hi) / 2)
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return int(hi), nil
}

// epsFor returns the smallest ε > 0 (to float64 resolution) with ok(ε), for a predicate that is monotone in ε
// (false for small ε, true for large ε). The returned value always satisfies ok.
func epsFor(ok func(eps float64) bool) (float64, error) {
	hi := 1.0
	for i := 0; !ok(hi); i++ {
		if i > 2100 || math.IsInf(hi, 0) {
			return 0, fmt.Errorf("no finite ε satisfies the bound")
		}
		hi *= 2
	}
	lo := hi / 2
	for i := 0; ok(lo); i++ {
		if i > 2100 || lo == 0 {
			return 0, fmt.Errorf("the bound holds for every ε > 0 (degenerate constants)")
		}
		hi = lo
		lo /= 2
	}
	// ok(lo) false, ok(hi) true; bisect until they are adjacent floats.
	for i := 0; i < 2000; i++ {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// logSumExp returns log(e^a + e^b) without overflow.
func logSumExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(a, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// ceilGuess turns a real-valued closed-form point count into a search start (NaN/negative → 1).
func ceilGuess(x float64) float64 {
	if !(x >= 1) {
		return 1
	}
	return x
}

// Guarantee is what a theorem says for one set of inputs: error ε at confidence 1 − δ for M points, with the
// inputs, the derived constants and the formula, ready for printing (see [Compute]).
type Guarantee struct {
	// Theorem is the registry name (see [Names]), e.g. "ss-linf".
	Theorem string `json:"theorem"`
	// Source cites the paper and the theorem/proposition number.
	Source string `json:"source"`
	// Formula is the statement in plain text.
	Formula string `json:"formula"`
	// Solved says which quantity was computed from the others: "eps" (the error for M points) or "m" (the points
	// needed for Eps).
	Solved string `json:"solved"`
	// Method says how: "closed form" or "monotone search" (bisection on a monotone bound).
	Method string `json:"method"`
	// Eps is the error level ε.
	Eps float64 `json:"eps"`
	// Delta is the failure probability δ; the guarantee holds with probability at least 1 − δ.
	Delta float64 `json:"delta"`
	// M is the number of points (frequencies) m = D; the cos/sin feature map has 2M columns.
	M int `json:"m"`
	// Kernel names the kernel the spectral constants were computed for ("" if they were given directly).
	Kernel string `json:"kernel,omitempty"`
	// Inputs are the numeric inputs (after defaults), by name.
	Inputs map[string]float64 `json:"inputs"`
	// Derived are constants computed on the way (h, β_d, b, ū, …), by name.
	Derived map[string]float64 `json:"derived,omitempty"`
	// Notes record defaults and decisions that affect the number (e.g. a conservative constant).
	Notes []string `json:"notes,omitempty"`
}

// String renders the guarantee on one line.
func (g Guarantee) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: with probability ≥ %g, error < %.6g using m = %d points (%d cos/sin columns)",
		g.Theorem, 1-g.Delta, g.Eps, g.M, 2*g.M)
	if g.Solved == "m" {
		b.WriteString(" [m solved, ")
	} else {
		b.WriteString(" [ε solved, ")
	}
	b.WriteString(g.Method)
	b.WriteString("]")
	return b.String()
}
