package vector

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// secantLinesearch is an optimize.Linesearcher for convex quadratic objectives such as ridge regression. Along a
// search direction φ'(α) is affine, so the secant through two directional derivatives is the exact minimiser; the
// search stops at the strong Wolfe curvature condition |φ'(α)| ≤ 0.9|φ'(0)|, which for a convex quadratic implies
// φ(α) < φ(0). It never compares function values: near the optimum their changes (of order ‖∇‖²/λ_max) fall below
// the rounding of φ itself (relative 1e-16), which stalls value-based line searches at a relative gradient of about
// 1e-8, while gradients stay accurate.
type secantLinesearch struct {
	g0       float64 // φ'(0)
	pa, pg   float64 // previous step and its derivative
	a        float64 // current step
	attempts int
}

const secantCurvature = 0.9

// Init starts a search from the directional derivative g = φ'(0) with the initial step, and asks for the value and
// gradient there.
func (s *secantLinesearch) Init(_, g, step float64) optimize.Operation {
	s.g0, s.pa, s.pg, s.a, s.attempts = g, 0, g, step, 0
	return optimize.FuncEvaluation | optimize.GradEvaluation
}

// Iterate takes the directional derivative g at the current step: it accepts the step when the curvature condition
// holds, and otherwise returns the next step, the secant's root (doubled or halved where the secant is unusable), or
// an error after 50 attempts or a NaN derivative.
func (s *secantLinesearch) Iterate(_, g float64) (optimize.Operation, float64, error) {
	if math.Abs(g) <= secantCurvature*math.Abs(s.g0) {
		return optimize.MajorIteration, s.a, nil
	}
	if s.attempts++; s.attempts > 50 || math.IsNaN(g) {
		return optimize.NoOperation, 0, errors.New("secant line search: no acceptable step")
	}
	next := math.NaN()
	if den := g - s.pg; den > 0 {
		next = s.a - g*(s.a-s.pa)/den
	}
	if !(next > 0) || math.IsInf(next, 0) { // not convex along the segment (rounding): expand or contract
		if g < 0 {
			next = 2 * s.a
		} else {
			next = s.a / 2
		}
	}
	s.pa, s.pg, s.a = s.a, g, next
	return optimize.FuncEvaluation | optimize.GradEvaluation, next, nil
}
