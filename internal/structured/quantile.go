package structured

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// NormalQuantile is the inverse CDF of N(0,1): Φ(NormalQuantile(p)) = p.
// It returns -Inf for p = 0, +Inf for p = 1 and NaN outside [0,1].
//
// The starting value is Wichura's AS 241 (PPND16, relative accuracy about
// 1e-16 where it applies, as implemented by gonum's
// distuv.UnitNormal.Quantile); one Halley step on Φ(x) - p, with Φ evaluated
// through math.Erfc in the tail that holds p, polishes it. Below p = 1e-300
// (down to the subnormal 2^-1074, outside AS 241's range) the equation
// log Φ(x) = log p is solved by Newton's method with the asymptotic series of
// the Mills ratio instead.
func NormalQuantile(p float64) float64 {
	switch {
	case math.IsNaN(p) || p < 0 || p > 1:
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	case p < 1e-300:
		return farTailQuantile(p)
	}
	x := distuv.UnitNormal.Quantile(p)
	// Work in the tail that holds p, where it has full relative precision
	// (1-p is exact for p >= 1/2).
	var e float64
	if p <= 0.5 {
		e = 0.5*math.Erfc(-x/math.Sqrt2) - p
	} else {
		e = (1 - p) - 0.5*math.Erfc(x/math.Sqrt2)
	}
	u := e * math.Sqrt(2*math.Pi) * math.Exp(x*x/2)
	if math.IsInf(u, 0) || math.IsNaN(u) {
		return x
	}
	return x - u/(1+x*u/2)
}

// farTailQuantile solves log Φ(x) = log p for p < 1e-300 (x < -37).
func farTailQuantile(p float64) float64 {
	// math.Log loses subnormal inputs on some platforms (amd64 returns about
	// -709 for every subnormal); scale into the normal range first.
	lp := math.Log(p*0x1p100) - 100*math.Ln2
	t := math.Sqrt(-2 * lp) // starting point, slightly beyond the root
	for range 50 {
		lphi, ratio := logPhiLowerTail(t)
		// d log Φ(-t)/dt = -φ(t)/Φ(-t) = -1/ratio.
		dt := (lphi - lp) * ratio
		t += dt
		if math.Abs(dt) <= 1e-16*t {
			break
		}
	}
	return -t
}

// logPhiLowerTail returns log Φ(-t) and the Mills ratio Φ(-t)/φ(t) for
// t >= 30, from the asymptotic series
// Φ(-t)/φ(t) = (1/t)·Σ_k (-1)^k (2k-1)!!/t^(2k), whose terms fall below 1e-20
// relative by k = 10 for t >= 30.
func logPhiLowerTail(t float64) (logPhi, ratio float64) {
	t2 := t * t
	s, term := 1.0, 1.0
	for k := 1; k <= 12; k++ {
		term *= -float64(2*k-1) / t2
		s += term
	}
	ratio = s / t
	logPhi = -t2/2 - 0.5*math.Log(2*math.Pi) + math.Log(ratio)
	return logPhi, ratio
}
