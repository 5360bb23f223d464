package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
)

// Kernel is a positive-definite kernel on R^d.
type Kernel interface {
	// Eval returns k(x, y); x and y have the same length. Eval is the unchecked hot path: the kernels of this
	// package panic if y is shorter than x (programmer error); [Deriv] and [Gram] check their arguments.
	Eval(x, y []float64) float64
	// Name is the kernel's command-line name (e.g. "gaussian", "matern32", "arccos1").
	Name() string
}

// Spectral is a shift-invariant kernel k(x,y) = κ(x−y) = E_ω[cos(ωᵀ(x−y))] whose spectral law is reachable
// from standard Gaussian points through its [Law].
type Spectral interface {
	Kernel
	// Law describes the spectral law as a transform of N(0, I).
	Law() Law
	// Sigma is the bandwidth σ.
	Sigma() float64
}

// Pointwise is a pointwise nonlinear Gaussian kernel k(x,y) = Factor·E_{w~N(0,I)}[φ(wᵀx)φ(wᵀy)].
type Pointwise interface {
	Kernel
	// Phi is the nonlinearity φ.
	Phi(t float64) float64
	// Factor is the constant c in front of the expectation.
	Factor() float64
}

// Law maps a standard Gaussian point z ∈ R^d to a frequency ω = Scale·s·T(z) of the kernel's spectral law.
// If z ~ N(0, I), then ω follows the law exactly; a rule that estimates Gaussian expectations E_z[g(z)] therefore
// estimates E_ω[cos(ωᵀδ)] = κ(δ) with g(z) = cos(ω(z)ᵀδ). Every T used here is odd, so g stays even.
type Law struct {
	// Scale is a global factor, 1/σ.
	Scale float64
	// Mixing, when non-nil, draws a per-point radial multiplier s (a scale mixture of Gaussians).
	Mixing func(rng *rand.Rand) float64
	// Coord, when non-nil, maps each coordinate of z through an odd monotone transform (product kernels).
	Coord func(z float64) float64
}

// Sample draws one frequency ω into dst from the law (directly, from iid Gaussian coordinates). rng must not be nil
// (it panics otherwise, as math/rand/v2 does).
func (l Law) Sample(dst []float64, rng *rand.Rand) {
	s := l.Scale
	if l.Mixing != nil {
		s *= l.Mixing(rng)
	}
	for i := range dst {
		z := rng.NormFloat64()
		if l.Coord != nil {
			z = l.Coord(z)
		}
		dst[i] = s * z
	}
}

// SigmaFromGamma returns σ = 1/sqrt(2γ), the bandwidth with exp(−γ‖δ‖²) = exp(−‖δ‖²/(2σ²)).
func SigmaFromGamma(gamma float64) float64 { return 1 / math.Sqrt(2*gamma) }

// Names lists the command-line names of every kernel, in a stable order.
func Names() []string {
	return []string{"gaussian", "laplacian", "matern12", "matern32", "matern52", "cauchy", "arccos0", "arccos1"}
}

// MinSigma is the smallest bandwidth New accepts, 2⁻⁵⁰⁰ ≈ 3.1e-151: below about the square root of the smallest
// normal float64, σ² underflows and the kernels' scaled distances and spectral scales overflow.
const MinSigma = 0x1p-500

// New returns the kernel called name with bandwidth sigma (ignored by the arc-cosine kernels, which are scale-free).
// It returns an error for an unknown name and a σ that is not finite or below MinSigma.
func New(name string, sigma float64) (Kernel, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	switch name {
	case "arccos0":
		return ArcCos{Order: 0}, nil
	case "arccos1":
		return ArcCos{Order: 1}, nil
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, fmt.Errorf("kernel %s: bandwidth σ must be positive and finite, got %v", name, sigma)
	}
	if sigma < MinSigma {
		return nil, fmt.Errorf("kernel %s: bandwidth σ = %v is below %.3g, where σ² underflows and the kernel's distances over σ "+
			"overflow", name, sigma, MinSigma)
	}
	switch name {
	case "gaussian", "rbf":
		return Gaussian{S: sigma}, nil
	case "laplacian":
		return Laplacian{S: sigma}, nil
	case "matern12":
		return Matern{Nu: 0.5, S: sigma}, nil
	case "matern32":
		return Matern{Nu: 1.5, S: sigma}, nil
	case "matern52":
		return Matern{Nu: 2.5, S: sigma}, nil
	case "cauchy":
		return Cauchy{S: sigma}, nil
	}
	n := Names()
	sort.Strings(n)
	return nil, fmt.Errorf("unknown kernel %q (want one of %s)", name, strings.Join(n, ", "))
}

func sqDist(x, y []float64) float64 {
	var s float64
	y = y[:len(x)]
	for i, xi := range x {
		t := xi - y[i]
		s += float64(t * t) // the product rounded on its own: no fused multiply-add (the direct path's lanes agree)
	}
	return s
}

// Gaussian is exp(−‖x−y‖²/(2σ²)); its spectral law is N(0, σ⁻²I).
type Gaussian struct{ S float64 }

// Name returns "gaussian".
func (k Gaussian) Name() string { return "gaussian" }

// Sigma returns the bandwidth σ.
func (k Gaussian) Sigma() float64 { return k.S }

// Eval returns k(x, y) = exp(−‖x−y‖²/(2σ²)).
func (k Gaussian) Eval(x, y []float64) float64 { return math.Exp(k.expArg(x, y)) }

// Law returns the spectral law N(0, σ⁻²I) (Rahimi & Recht 2007): ω = z/σ, with neither a mixing nor a
// coordinate transform.
func (k Gaussian) Law() Law { return Law{Scale: 1 / k.S} }

// Laplacian is exp(−‖x−y‖₁/σ); its spectral law is iid Cauchy(0, 1/σ) per coordinate.
type Laplacian struct{ S float64 }

// Name returns "laplacian".
func (k Laplacian) Name() string { return "laplacian" }

// Sigma returns the bandwidth σ.
func (k Laplacian) Sigma() float64 { return k.S }

// Eval returns k(x, y) = exp(−‖x−y‖₁/σ).
func (k Laplacian) Eval(x, y []float64) float64 { return math.Exp(k.expArg(x, y)) }

// Law returns the spectral law, iid Cauchy(0, 1/σ) coordinates (Rahimi & Recht 2007): ω_i =
// CauchyFromNormal(z_i)/σ.
func (k Laplacian) Law() Law { return Law{Scale: 1 / k.S, Coord: CauchyFromNormal} }

// Cauchy is Π_i 1/(1+δ_i²/σ²); its spectral law is iid Laplace(0, 1/σ) per coordinate.
type Cauchy struct{ S float64 }

// Name returns "cauchy".
func (k Cauchy) Name() string { return "cauchy" }

// Sigma returns the bandwidth σ.
func (k Cauchy) Sigma() float64 { return k.S }

// Eval returns k(x, y) = Π_i 1/(1+(x_i−y_i)²/σ²).
func (k Cauchy) Eval(x, y []float64) float64 { return cauchyProd(x, y, k.S) }

// cauchyProd returns Π_i 1/(1+((x_i−y_i)/σ)²), a quotient per coordinate in their order.
func cauchyProd(x, y []float64, sigma float64) float64 {
	p := 1.0
	y = y[:len(x)]
	for i, xi := range x {
		t := (xi - y[i]) / sigma
		p /= 1 + float64(t*t) // the product rounded on its own, as the direct path's lanes compute it
	}
	return p
}

// Law returns the spectral law, iid Laplace(0, 1/σ) coordinates (Rahimi & Recht 2007): ω_i =
// LaplaceFromNormal(z_i)/σ.
func (k Cauchy) Law() Law { return Law{Scale: 1 / k.S, Coord: LaplaceFromNormal} }

// Matern is the Matérn kernel of smoothness ν ∈ {1/2, 3/2, 5/2} on the Euclidean distance r = ‖x−y‖:
// ν=1/2: exp(−r/σ); ν=3/2: (1+√3r/σ)exp(−√3r/σ); ν=5/2: (1+√5r/σ+5r²/(3σ²))exp(−√5r/σ).
// Its spectral law is the multivariate Student-t with 2ν degrees of freedom and scale 1/σ:
// ω = z·sqrt(2ν/g)/σ, z ~ N(0,I), g ~ χ²_{2ν}.
type Matern struct {
	Nu float64
	S  float64
}

// Name returns "matern12", "matern32" or "matern52" for ν = 1/2, 3/2 or 5/2, and "matern(nu=ν)" for any other ν.
func (k Matern) Name() string {
	switch k.Nu {
	case 0.5:
		return "matern12"
	case 1.5:
		return "matern32"
	case 2.5:
		return "matern52"
	}
	return fmt.Sprintf("matern(nu=%g)", k.Nu)
}

// Sigma returns the bandwidth σ.
func (k Matern) Sigma() float64 { return k.S }

// Eval returns the Matérn kernel of smoothness ν at r = ‖x−y‖ (the closed forms of Matern, Rasmussen & Williams
// 2006, §4.2.1); NaN for a ν other than 1/2, 3/2 and 5/2.
func (k Matern) Eval(x, y []float64) float64 { return k.ofDist(math.Sqrt(sqDist(x, y))) }

// ofDist is the kernel at distance r.
func (k Matern) ofDist(r float64) float64 {
	r /= k.S
	switch k.Nu {
	case 0.5:
		return math.Exp(-r)
	case 1.5:
		t := float64(math.Sqrt(3) * r) // rounded here, as ofSqDistRow stores it: not fused into 1 + t
		if e := math.Exp(-t); e != 0 { // e = 0 beyond t ≈ 745, where the polynomial may be +Inf (and Inf·0 NaN)
			return (1 + t) * e
		}
		return 0
	case 2.5:
		t := float64(math.Sqrt(5) * r)
		if e := math.Exp(-t); e != 0 {
			return (1 + t + t*t/3) * e
		}
		return 0
	}
	return math.NaN()
}

// Law returns the spectral law, the multivariate Student-t with 2ν degrees of freedom and scale 1/σ: ω =
// z·√(2ν/g)/σ, with g ~ χ²_{2ν} drawn once per point by the law's Mixing.
func (k Matern) Law() Law {
	dof := 2 * k.Nu
	return Law{Scale: 1 / k.S, Mixing: func(rng *rand.Rand) float64 {
		return math.Sqrt(dof / chiSquare(dof, rng))
	}}
}

// chiSquare draws χ²_k for k ∈ {1, 3, 5} (sums of squared normals) or any k through a Gamma(k/2, 2) draw. It
// returns NaN for a k that is not positive and finite (a Matérn kernel of invalid ν built as a literal), where the
// Gamma draw would never end.
func chiSquare(k float64, rng *rand.Rand) float64 {
	if !(k > 0) || math.IsInf(k, 0) {
		return math.NaN()
	}
	if k == math.Trunc(k) && k <= 8 {
		var s float64
		for i := 0; i < int(k); i++ {
			z := rng.NormFloat64()
			s += z * z
		}
		return s
	}
	return 2 * gammaRand(k/2, rng)
}

// gammaRand draws Gamma(a, 1) by Marsaglia–Tsang (a ≥ 1; boosted for a < 1).
func gammaRand(a float64, rng *rand.Rand) float64 {
	if a < 1 {
		u := rng.Float64()
		return gammaRand(a+1, rng) * math.Pow(u, 1/a)
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}

// CauchyFromNormal maps z ~ N(0,1) to a standard Cauchy variate by the exact quantile transform
// F⁻¹(Φ(z)) = tan(π(Φ(z) − 1/2)), computed through the upper tail so that large |z| keep full precision.
func CauchyFromNormal(z float64) float64 {
	if z == 0 {
		return 0
	}
	q := 0.5 * math.Erfc(math.Abs(z)/math.Sqrt2) // Φ(−|z|)
	t := 1 / math.Tan(math.Pi*q)                 // cot(πq) = tan(π(1/2 − q))
	if z < 0 {
		return -t
	}
	return t
}

// LaplaceFromNormal maps z ~ N(0,1) to a standard Laplace(0,1) variate by F⁻¹(Φ(z)) = −sign(z)·ln(2Φ(−|z|)).
func LaplaceFromNormal(z float64) float64 {
	t := -math.Log(math.Erfc(math.Abs(z) / math.Sqrt2))
	if z < 0 {
		return -t
	}
	return t
}

// ArcCos is the arc-cosine kernel of order n ∈ {0, 1} (Cho & Saul 2009):
// k(x,y) = (1/π)‖x‖ⁿ‖y‖ⁿ Jₙ(θ), J₀ = π−θ, J₁ = sinθ + (π−θ)cosθ, θ the angle between x and y,
// = 2·E_{w~N(0,I)}[φₙ(wᵀx)φₙ(wᵀy)] with φ₀ = Θ and φ₁ = max(0,·). Θ(0) = 1/2, so the angle with a zero vector
// is taken as π/2 (k₀(0,y) = 1/2), consistent with the expectation.
type ArcCos struct{ Order int }

// Name returns "arccos0" or "arccos1" ("arccosN" for Order N).
func (k ArcCos) Name() string { return fmt.Sprintf("arccos%d", k.Order) }

// Factor returns c = 2, the constant of k(x,y) = 2·E_{w~N(0,I)}[φ(wᵀx)φ(wᵀy)] (Cho & Saul 2009).
func (k ArcCos) Factor() float64 { return 2 }

// Phi returns φ(t): the Heaviside step Θ(t), with Θ(0) = 1/2, for order 0, and the ramp max(0, t) for order 1
// (and any order other than 0).
func (k ArcCos) Phi(t float64) float64 {
	if k.Order == 0 {
		switch {
		case t > 0:
			return 1
		case t == 0:
			return 0.5
		}
		return 0
	}
	if t > 0 {
		return t
	}
	return 0
}

// Eval returns the closed form of Cho & Saul (2009), k(x,y) = (1/π)‖x‖ⁿ‖y‖ⁿJₙ(θ): 1 − θ/π for order 0 and
// ‖x‖‖y‖(sin θ + (π−θ)cos θ)/π for order 1 (and any order other than 0), θ the angle between x and y, taken as π/2
// when either is zero.
func (k ArcCos) Eval(x, y []float64) float64 {
	return k.ofDot(dot(x, y), math.Sqrt(dot(x, x)), math.Sqrt(dot(y, y)))
}

// ofDot is the kernel for the inner product xy of two points of norms nx and ny.
func (k ArcCos) ofDot(xy, nx, ny float64) float64 {
	theta := math.Pi / 2
	if nx > 0 && ny > 0 {
		c := xy / (nx * ny)
		theta = math.Acos(math.Max(-1, math.Min(1, c)))
	}
	if k.Order == 0 {
		return (math.Pi - theta) / math.Pi
	}
	return nx * ny * (math.Sin(theta) + (math.Pi-theta)*math.Cos(theta)) / math.Pi
}

// dot returns xᵀy, summed in the order of the coordinates.
func dot(x, y []float64) float64 {
	var s float64
	y = y[:len(x)]
	for i, xi := range x {
		s += float64(xi * y[i]) // the product rounded on its own, as the direct path's lanes compute it
	}
	return s
}
