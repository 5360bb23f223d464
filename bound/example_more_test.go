package bound_test

import (
	"fmt"
	"math"

	"github.com/rffkit/rff/bound"
)

// sr4 is Proposition 3.1 for SR(3,3) features of the Gaussian kernel in R⁴ on a set of diameter 1, with the paper's
// RBF constants κ = μ = 1, M = ½.
var sr4 = bound.Quadrature{Dim: 4, Diameter: 1, SecondMoment: 1, Kappa: 1, Mu: 1, CurvM: 0.5}

// Error turns a kernel error guaranteed for D points into a kernel ridge prediction error: the kernel's error
// divided by the scale c = λ₀²/(σ_y(λ₀+1)).
func ExampleKRR_Error() {
	t := bound.KRR{Kernel: sr4, SigmaY: 1, Lambda0: 0.5}
	c, _ := t.Scale()
	for _, D := range []int{100_000, 1_000_000} {
		e, err := t.Error(D, 0.01)
		if err != nil {
			panic(err)
		}
		k, _ := sr4.Error(D, 0.01)
		fmt.Printf("D = %7d: prediction error %.4g (kernel error %.4g / c = %.4g)\n", D, e, k, c)
	}
	// Output:
	// D =  100000: prediction error 0.2218 (kernel error 0.03697 / c = 0.1667)
	// D = 1000000: prediction error 0.07449 (kernel error 0.01242 / c = 0.1667)
}

// Points gives the points needed for a kernel ridge prediction error ε: those the kernel bound needs for the
// smaller kernel error c·ε. A stronger regularization (larger λ₀) tolerates a larger kernel error.
func ExampleKRR_Points() {
	for _, l0 := range []float64{0.5, 1, 2} {
		t := bound.KRR{Kernel: sr4, SigmaY: 1, Lambda0: l0}
		D, err := t.Points(0.1, 0.01)
		if err != nil {
			panic(err)
		}
		c, _ := t.Scale()
		fmt.Printf("λ₀ = %g: kernel error %.4g needed, D = %d\n", l0, c*0.1, D)
	}
	// Output:
	// λ₀ = 0.5: kernel error 0.01667 needed, D = 537975
	// λ₀ = 1: kernel error 0.05 needed, D = 52744
	// λ₀ = 2: kernel error 0.1333 needed, D = 6535
}

// Prob is the probability that the prediction error reaches ε, bounded by that of the kernel error c·ε: at the
// points Points returns it is at most δ.
func ExampleKRR_Prob() {
	t := bound.KRR{Kernel: sr4, SigmaY: 1, Lambda0: 0.5}
	D, _ := t.Points(0.1, 0.01)
	half, _ := t.Prob(0.1, D/2)
	at, _ := t.Prob(0.1, D)
	twice, err := t.Prob(0.1, 2*D)
	if err != nil {
		panic(err)
	}
	fmt.Printf("D/2 = %d: P(|ĥ − h| ≥ 0.1) ≤ %.4g, no guarantee\n", D/2, half)
	fmt.Printf("D = %d: at most 0.01: %v\n", D, at <= 0.01)
	fmt.Printf("2D = %d: P(|ĥ − h| ≥ 0.1) ≤ %.4g\n", 2*D, twice)
	// Output:
	// D/2 = 268987: P(|ĥ − h| ≥ 0.1) ≤ 17.58, no guarantee
	// D = 537975: at most 0.01: true
	// 2D = 1075950: P(|ĥ − h| ≥ 0.1) ≤ 3.236e-09
}

// Error is the uniform kernel error that D points of SR(3,3) rules guarantee with probability 1 − δ; it falls
// roughly like 1/√D.
func ExampleQuadrature_Error() {
	for _, D := range []int{10_000, 100_000, 1_000_000} {
		e, err := sr4.Error(D, 0.01)
		if err != nil {
			panic(err)
		}
		fmt.Printf("D = %7d: sup|k̂ − k| < %.4g with probability 0.99\n", D, e)
	}
	// Output:
	// D =   10000: sup|k̂ − k| < 0.1092 with probability 0.99
	// D =  100000: sup|k̂ − k| < 0.03697 with probability 0.99
	// D = 1000000: sup|k̂ − k| < 0.01242 with probability 0.99
}

// Points is the closed form of Proposition 3.1: halving ε needs a little more than four times the points.
func ExampleQuadrature_Points() {
	for _, eps := range []float64{0.1, 0.05, 0.025} {
		D, err := sr4.Points(eps, 0.01)
		if err != nil {
			panic(err)
		}
		fmt.Printf("ε = %-5g: D = %d\n", eps, D)
	}
	// Output:
	// ε = 0.1  : D = 12077
	// ε = 0.05 : D = 52744
	// ε = 0.025: D = 228721
}

// Prob is the right-hand side of Proposition 3.1: for too few points it exceeds 1 and guarantees nothing, then it
// falls exponentially in D.
func ExampleQuadrature_Prob() {
	for _, D := range []int{10_000, 50_000, 100_000} {
		p, err := sr4.Prob(0.05, D)
		if err != nil {
			panic(err)
		}
		fmt.Printf("D = %6d: P(sup|k̂ − k| ≥ 0.05) ≤ %.4g\n", D, p)
	}
	// Output:
	// D =  10000: P(sup|k̂ − k| ≥ 0.05) ≤ 437.4
	// D =  50000: P(sup|k̂ − k| ≥ 0.05) ≤ 0.01986
	// D = 100000: P(sup|k̂ − k| ≥ 0.05) ≤ 7.4e-08
}

// Error of the random-Fourier-feature counterpart, against the SR(3,3) rule of the same dimension and set: for
// the same points, iid features are guaranteed a larger error.
func ExampleQuadratureRFF_Error() {
	rff := bound.QuadratureRFF{Dim: 4, Diameter: 1, SecondMoment: 1}
	for _, D := range []int{100_000, 1_000_000} {
		e, err := rff.Error(D, 0.01)
		if err != nil {
			panic(err)
		}
		q, _ := sr4.Error(D, 0.01)
		fmt.Printf("D = %7d: RFF %.4g, SR %.4g\n", D, e, q)
	}
	// Output:
	// D =  100000: RFF 0.07238, SR 0.03697
	// D = 1000000: RFF 0.02436, SR 0.01242
}

// Points of the random-Fourier-feature counterpart of Proposition 3.1, as printed after it.
func ExampleQuadratureRFF_Points() {
	t := bound.QuadratureRFF{Dim: 4, Diameter: 1, SecondMoment: 1}
	for _, delta := range []float64{0.1, 0.01, 0.001} {
		D, err := t.Points(0.05, delta)
		if err != nil {
			panic(err)
		}
		fmt.Printf("δ = %-5g: D = %d\n", delta, D)
	}
	// Output:
	// δ = 0.1  : D = 182181
	// δ = 0.01 : D = 219022
	// δ = 0.001: D = 255863
}

// Prob of the random-Fourier-feature counterpart at the points it needs is at most δ, and above δ one point fewer.
func ExampleQuadratureRFF_Prob() {
	t := bound.QuadratureRFF{Dim: 4, Diameter: 1, SecondMoment: 1}
	D, _ := t.Points(0.05, 0.01)
	p, err := t.Prob(0.05, D)
	if err != nil {
		panic(err)
	}
	before, _ := t.Prob(0.05, D-1)
	fmt.Printf("D = %d: P ≤ 0.01: %v; with D − 1 the bound exceeds 0.01: %v\n", D, p <= 0.01, before > 0.01)
	// Output:
	// D = 219022: P ≤ 0.01: true; with D − 1 the bound exceeds 0.01: true
}

// Error is the uniform error Claim 1 guarantees for m frequencies, found by bisection on ε.
func ExampleRahimiRecht_Error() {
	t := bound.RahimiRecht{Dim: 2, Diameter: 1, SecondMoment: 2}
	for _, m := range []int{10_000, 100_000, 1_000_000} {
		e, err := t.Error(m, 0.01)
		if err != nil {
			panic(err)
		}
		p, _ := t.Prob(e, m)
		fmt.Printf("m = %7d: sup|k̂ − k| < %.4g (P ≤ 0.01: %v)\n", m, e, p <= 0.01)
	}
	// Output:
	// m =   10000: sup|k̂ − k| < 0.1528 (P ≤ 0.01: true)
	// m =  100000: sup|k̂ − k| < 0.05179 (P ≤ 0.01: true)
	// m = 1000000: sup|k̂ − k| < 0.01741 (P ≤ 0.01: true)
}

// Points is the closed form of Claim 1: the frequencies grow like d/ε² (times a logarithm).
func ExampleRahimiRecht_Points() {
	for _, d := range []int{2, 10, 100} {
		t := bound.RahimiRecht{Dim: d, Diameter: 1, SecondMoment: float64(d)} // Gaussian kernel, σ_k = 1
		m, err := t.Points(0.1, 0.01)
		if err != nil {
			panic(err)
		}
		fmt.Printf("d = %3d: m = %d\n", d, m)
	}
	// Output:
	// d =   2: m = 24718
	// d =  10: m = 81879
	// d = 100: m = 789917
}

// Error is Theorem 2's closed form V^{2/r}(h + √(2τ))/√m: the L² error on S×S of a disc of diameter 1.
func ExampleSSLr_Error() {
	t := bound.SSLr{Dim: 2, Diameter: 1, SecondMoment: 2, R: 2}
	u := bound.SSLinf{Dim: 2, Diameter: 1, SecondMoment: 2}
	for _, m := range []int{10_000, 1_000_000} {
		e, err := t.Error(m, 0.05)
		if err != nil {
			panic(err)
		}
		sup, _ := u.Error(m, 0.05)
		fmt.Printf("m = %7d: L² error %.4g, uniform error %.4g\n", m, e, sup)
	}
	// Output:
	// m =   10000: L² error 1.258, uniform error 1.601
	// m = 1000000: L² error 0.1258, uniform error 0.1601
}

// Points for an L^r error of 0.5 as r grows: here the set's volume factor exceeds 1, so the bound decreases in r
// toward the uniform one.
func ExampleSSLr_Points() {
	for _, r := range []float64{1, 2, math.Inf(1)} {
		t := bound.SSLr{Dim: 2, Diameter: 2, SecondMoment: 2, R: r}
		m, err := t.Points(0.5, 0.05)
		if err != nil {
			panic(err)
		}
		f, _ := t.Factor()
		fmt.Printf("r = %v: factor %.4g, m = %d\n", r, f, m)
	}
	// Output:
	// r = 1: factor 9.87, m = 11121632
	// r = 2: factor 3.142, m = 1126857
	// r = +Inf: factor 1, m = 114175
}

// Prob is e^{−τ} for the τ at which Theorem 2's radius equals ε: 1 (no guarantee) until the points cover h, then
// falling as e^{−(ε√m/V^{2/r} − h)²/2}.
func ExampleSSLr_Prob() {
	t := bound.SSLr{Dim: 2, Diameter: 1, SecondMoment: 2, R: 2}
	for _, m := range []int{61_000, 62_500, 64_000} {
		p, err := t.Prob(0.5, m)
		if err != nil {
			panic(err)
		}
		fmt.Printf("m = %d: P(‖k̂ − k‖_L² ≥ 0.5) ≤ %.4g\n", m, p)
	}
	// Output:
	// m = 61000: P(‖k̂ − k‖_L² ≥ 0.5) ≤ 1
	// m = 62500: P(‖k̂ − k‖_L² ≥ 0.5) ≤ 0.3448
	// m = 64000: P(‖k̂ − k‖_L² ≥ 0.5) ≤ 0.003562
}

// Error is Theorem 1's closed form (h + √(2τ))/√m: a hundred times the points divide the error by ten.
func ExampleSSLinf_Error() {
	t := bound.SSLinf{Dim: 3, Diameter: 2, SecondMoment: 3}
	for _, m := range []int{10_000, 1_000_000} {
		e, err := t.Error(m, 0.05)
		if err != nil {
			panic(err)
		}
		fmt.Printf("m = %7d: sup|k̂ − k| < %.4g with probability 0.95\n", m, e)
	}
	// Output:
	// m =   10000: sup|k̂ − k| < 2.114 with probability 0.95
	// m = 1000000: sup|k̂ − k| < 0.2114 with probability 0.95
}

// Prob is e^{−τ} for the τ at which Theorem 1's radius equals ε, and 1 while ε√m ≤ h.
func ExampleSSLinf_Prob() {
	t := bound.SSLinf{Dim: 3, Diameter: 2, SecondMoment: 3}
	for _, m := range []int{4_300_000, 4_400_000, 4_500_000} {
		p, err := t.Prob(0.1, m)
		if err != nil {
			panic(err)
		}
		fmt.Printf("m = %d: P(sup|k̂ − k| ≥ 0.1) ≤ %.4g\n", m, p)
	}
	// Output:
	// m = 4300000: P(sup|k̂ − k| ≥ 0.1) ≤ 1
	// m = 4400000: P(sup|k̂ − k| ≥ 0.1) ≤ 0.6985
	// m = 4500000: P(sup|k̂ − k| ≥ 0.1) ≤ 0.005653
}

// Error is the uniform error Proposition 1 guarantees for m frequencies (2m cos/sin columns); the variance term
// α_ε makes it smaller than the Hoeffding form (VarSup = 1) on a small set.
func ExampleSutherlandSchneider_Error() {
	s, _ := bound.NewSpectrum("gaussian", 2, 1, 0)
	v, _ := s.CosVarianceSup(1)
	for _, vs := range []float64{v, 1} {
		t := bound.SutherlandSchneider{Dim: 2, Diameter: 1, SecondMoment: 2, VarSup: vs}
		e, err := t.Error(10_000, 0.01)
		if err != nil {
			panic(err)
		}
		fmt.Printf("sup Var %.4g: error %.4g for m = 10000\n", vs, e)
	}
	// Output:
	// sup Var 0.1998: error 0.06187 for m = 10000
	// sup Var 1: error 0.1273 for m = 10000
}

// Points counts frequencies m, half the D columns of the paper's cos/sin map.
func ExampleSutherlandSchneider_Points() {
	t := bound.SutherlandSchneider{Dim: 3, Diameter: 2, SecondMoment: 3, VarSup: 1}
	for _, eps := range []float64{0.2, 0.1, 0.05} {
		m, err := t.Points(eps, 0.01)
		if err != nil {
			panic(err)
		}
		fmt.Printf("ε = %-4g: m = %d frequencies (%d columns)\n", eps, m, 2*m)
	}
	// Output:
	// ε = 0.2 : m = 5737 frequencies (11474 columns)
	// ε = 0.1 : m = 24610 frequencies (49220 columns)
	// ε = 0.05: m = 105093 frequencies (210186 columns)
}

// Prob is the right-hand side of Proposition 1: above 1 (no guarantee) for few frequencies, then falling
// exponentially in m.
func ExampleSutherlandSchneider_Prob() {
	t := bound.SutherlandSchneider{Dim: 3, Diameter: 2, SecondMoment: 3, VarSup: 1}
	for _, m := range []int{5_000, 25_000, 50_000} {
		p, err := t.Prob(0.1, m)
		if err != nil {
			panic(err)
		}
		fmt.Printf("m = %5d: P(sup|k̂ − k| ≥ 0.1) ≤ %.4g\n", m, p)
	}
	// Output:
	// m =  5000: P(sup|k̂ − k| ≥ 0.1) ≤ 181.2
	// m = 25000: P(sup|k̂ − k| ≥ 0.1) ≤ 0.008227
	// m = 50000: P(sup|k̂ − k| ≥ 0.1) ≤ 3.066e-08
}

// Variance bounds D times the variance of a D-frequency ORFF estimate at distance r (Proposition 12); its supremum
// over the domain, VarianceSup, is at least every value inside.
func ExampleORFF_Variance() {
	o := bound.ORFF{Kind: "curl-free", Dim: 3, Sigma: 1, Diameter: 2}
	sup, err := o.VarianceSup()
	if err != nil {
		panic(err)
	}
	ok := true
	for _, r := range []float64{0, 0.5, 1, 1.5, 2} {
		v, err := o.Variance(r)
		if err != nil {
			panic(err)
		}
		ok = ok && v <= sup
	}
	fmt.Println("every Variance(r) at most VarianceSup:", ok)
	// Output: every Variance(r) at most VarianceSup: true
}

// Alpha is α_ε = min(1, σ_p² + ε/3) of Sutherland and Schneider's bound: it grows with ε and stops at 1.
func ExampleSutherlandSchneider_Alpha() {
	t := bound.SutherlandSchneider{VarSup: 0.5}
	fmt.Println(t.Alpha(0.3), t.Alpha(3))
	// Output: 0.6 1
}
