package bound

import (
	"fmt"
	"math"
)

// RahimiRecht is Claim 1 of Rahimi & Recht, "Random features for large-scale kernel machines" (NIPS 2007), the
// original uniform bound, for a compact set of diameter ℓ in R^d and m frequencies:
//
//	P( sup_{x,y} |k̂(x,y) − k(x,y)| ≥ ε ) ≤ 2^8 (σ_p·ℓ/ε)² exp(−m ε²/(4(d+2))),   σ_p² = E‖ω‖².
//
// In the paper D is the number of features of the map √(2/D)·cos(ωᵀx + b), one per frequency; the proof's
// concentration step (terms in [−1, 1]) is the one of the cos/sin map, so m = D = number of frequencies for either
// map (the cos/sin map has 2m columns). Points is a closed form, m = ⌈4(d+2)/ε² · log(2^8 σ_p²ℓ²/(ε²δ))⌉ (checked
// against the probability to absorb rounding); Error is a monotone search (bisection on ε). The bound grows linearly
// in ℓ, against √(log ℓ) for [SSLinf].
type RahimiRecht struct {
	Dim          int
	Diameter     float64 // ℓ > 0
	SecondMoment float64 // σ_p² = E‖ω‖² > 0
}

func (t RahimiRecht) check() error {
	if err := checkDim(t.Dim); err != nil {
		return fmt.Errorf("rr: %w", err)
	}
	if err := checkPositive("diameter ℓ", t.Diameter); err != nil {
		return fmt.Errorf("rr: %w", err)
	}
	if err := checkPositive("σ_p² = E‖ω‖²", t.SecondMoment); err != nil {
		return fmt.Errorf("rr: %w", err)
	}
	return nil
}

func (t RahimiRecht) logPre(eps float64) float64 {
	return 8*math.Ln2 + math.Log(t.SecondMoment) + 2*math.Log(t.Diameter/eps)
}

func (t RahimiRecht) logProb(eps, m float64) float64 {
	return t.logPre(eps) - m*eps*eps/(4*float64(t.Dim+2))
}

// Prob returns 2^8(σ_pℓ/ε)² exp(−mε²/(4(d+2))).
func (t RahimiRecht) Prob(eps float64, m int) (float64, error) {
	return probCommon(t.check, t.logProb, eps, m)
}

// Error returns the smallest ε with Prob(ε, m) ≤ δ (bisection).
func (t RahimiRecht) Error(m int, delta float64) (float64, error) {
	return errorCommon(t.check, t.logProb, m, delta)
}

// Points returns ⌈4(d+2)/ε² · log(2^8σ_p²ℓ²/(ε²δ))⌉ (at least 1).
func (t RahimiRecht) Points(eps, delta float64) (int, error) {
	return pointsCommon(t.check, t.logProb, func(eps, ld float64) float64 {
		return 4 * float64(t.Dim+2) / (eps * eps) * (t.logPre(eps) - ld)
	}, eps, delta)
}

func probCommon(check func() error, logProb func(eps, m float64) float64, eps float64, m int) (float64, error) {
	if err := check(); err != nil {
		return 0, err
	}
	if err := checkEps(eps); err != nil {
		return 0, err
	}
	if err := checkM(m); err != nil {
		return 0, err
	}
	return math.Exp(logProb(eps, float64(m))), nil
}

func errorCommon(check func() error, logProb func(eps, m float64) float64, m int, delta float64) (float64, error) {
	if err := check(); err != nil {
		return 0, err
	}
	if err := checkM(m); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	ld := math.Log(delta)
	return epsFor(func(e float64) bool { return logProb(e, float64(m)) <= ld })
}

func pointsCommon(check func() error, logProb func(eps, m float64) float64, closed func(eps, logDelta float64) float64,
	eps, delta float64) (int, error) {
	if err := check(); err != nil {
		return 0, err
	}
	if err := checkEps(eps); err != nil {
		return 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	ld := math.Log(delta)
	return pointsFor(func(m float64) bool { return logProb(eps, m) <= ld }, ceilGuess(closed(eps, ld)))
}

// SutherlandBeta returns β_d = ((d/2)^{−d/(d+2)} + (d/2)^{2/(d+2)})·2^{(6d+2)/(d+2)} of Sutherland & Schneider
// (2015), Proposition 1 (also C_{d,1} of the ORFF Theorem 10). β_1 = 12, the maximum is β_64 = 66, and β_d → 64.
func SutherlandBeta(d int) float64 {
	x := float64(d)
	return (math.Pow(x/2, -x/(x+2)) + math.Pow(x/2, 2/(x+2))) * math.Pow(2, (6*x+2)/(x+2))
}

// SutherlandSchneider is Proposition 1 of Sutherland & Schneider, "On the error of random Fourier features"
// (UAI 2015), the uniform bound for the cos/sin map z̃(x) = √(2/D)[sin(ω_jᵀx), cos(ω_jᵀx)]_{j ≤ D/2} with
// D columns, i.e. D/2 frequencies:
//
//	P(‖f̃‖_∞ ≥ ε) ≤ β_d (σ_p ℓ/ε)^{2d/(d+2)} exp(−D ε²/(8(d+2) α_ε)),
//	α_ε = min(1, sup_{x,y∈X} ½ + ½k(2x,2y) − k(x,y)² + ε/3),   σ_p² = E‖ω‖²,   β_d as in [SutherlandBeta],
//	so D ≥ 8(d+2)α_ε/ε² [ (2/(1+2/d)) log(σ_p ℓ/ε) + log(β_d/δ) ] suffices.
//
// This package counts frequencies: with m frequencies the map has D = 2m columns, so the exponent used here is
// −2m ε²/(8(d+2)α_ε) = −m ε²/(4(d+2)α_ε), and Points returns m (= D/2 of the paper).
// The term inside α_ε is the per-frequency variance of cos(ωᵀ(x−y)) (Bernstein's inequality); set VarSup from
// [Spectrum.CosVarianceSup], or to 1 when unknown (then α_ε = 1, the Hoeffding form, always valid).
// Reconstructed from the paper's derivation (union bound over an r-net with T = (4ℓ/r)^d anchors plus Markov on the
// Lipschitz constant, optimized in r): it reproduces β_d and the paper's remark that β_64 ≈ 66 is its maximum.
// Points is a closed form (checked against the probability); Error is a monotone search.
type SutherlandSchneider struct {
	Dim          int
	Diameter     float64 // ℓ > 0
	SecondMoment float64 // σ_p² = E‖ω‖² > 0
	VarSup       float64 // sup Var[cos(ωᵀ(x−y))] ∈ [0, 1]; 1 when unknown
}

func (t SutherlandSchneider) check() error {
	if err := (RahimiRecht{t.Dim, t.Diameter, t.SecondMoment}).check(); err != nil {
		return fmt.Errorf("sutherland: %w", err)
	}
	if !(t.VarSup >= 0 && t.VarSup <= 1) {
		return fmt.Errorf("sutherland: the variance sup must lie in [0, 1], got %v", t.VarSup)
	}
	return nil
}

// Alpha returns α_ε = min(1, VarSup + ε/3).
func (t SutherlandSchneider) Alpha(eps float64) float64 { return math.Min(1, t.VarSup+eps/3) }

func (t SutherlandSchneider) logPre(eps float64) float64 {
	d := float64(t.Dim)
	return math.Log(SutherlandBeta(t.Dim)) + 2*d/(d+2)*math.Log(math.Sqrt(t.SecondMoment)*t.Diameter/eps)
}

func (t SutherlandSchneider) logProb(eps, m float64) float64 {
	return t.logPre(eps) - 2*m*eps*eps/(8*float64(t.Dim+2)*t.Alpha(eps))
}

// Prob returns β_d(σ_pℓ/ε)^{2d/(d+2)} exp(−2m ε²/(8(d+2)α_ε)).
func (t SutherlandSchneider) Prob(eps float64, m int) (float64, error) {
	return probCommon(t.check, t.logProb, eps, m)
}

// Error returns the smallest ε with Prob(ε, m) ≤ δ (bisection; α_ε depends on ε).
func (t SutherlandSchneider) Error(m int, delta float64) (float64, error) {
	return errorCommon(t.check, t.logProb, m, delta)
}

// Points returns m = ⌈D/2⌉ with D = 8(d+2)α_ε/ε² [(2d/(d+2)) log(σ_pℓ/ε) + log(β_d/δ)] (at least 1).
func (t SutherlandSchneider) Points(eps, delta float64) (int, error) {
	return pointsCommon(t.check, t.logProb, func(eps, ld float64) float64 {
		return 8 * float64(t.Dim+2) * t.Alpha(eps) / (eps * eps) * (t.logPre(eps) - ld) / 2
	}, eps, delta)
}
