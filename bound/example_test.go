package bound_test

import (
	"fmt"

	"github.com/rffkit/rff/bound"
)

// Theorem 1 of Sriperumbudur & Szabó for the Gaussian kernel (σ_k = 1) on a set of diameter 10 in R⁵.
func ExampleSSLinf() {
	s2, _ := bound.SecondMoment("gaussian", 5, 1) // σ² = E‖ω‖² = d/σ_k² = 5
	t := bound.SSLinf{Dim: 5, Diameter: 10, SecondMoment: s2}
	h, _ := t.H()
	e, _ := t.Error(1_000_000, 0.01)
	m, _ := t.Points(0.05, 0.01)
	p, _ := t.Prob(0.05, m)
	fmt.Printf("h = %.2f\nerror for m = 10⁶ at 99%%: %.4f\npoints for ε = 0.05 at 99%%: %d (P ≤ %.4f)\n", h, e, m, p)
	// Output:
	// h = 315.23
	// error for m = 10⁶ at 99%: 0.3183
	// points for ε = 0.05 at 99%: 40515747 (P ≤ 0.0100)
}

// Theorem 2: the L² error on S×S.
func ExampleSSLr() {
	t := bound.SSLr{Dim: 2, Diameter: 1, SecondMoment: 2, R: 2}
	f, _ := t.Factor() // (π/4)^{2/2}: the area of a disc of diameter 1
	e, _ := t.Error(10000, 0.05)
	m, _ := t.Points(0.5, 0.05)
	fmt.Printf("factor %.4f, error %.4f, points %d\n", f, e, m)
	// Output: factor 0.7854, error 1.2578, points 63279
}

// Theorem 4 for the mixed derivative ∂²k/∂x₁∂y₂ of the sinc kernel (bounded spectral support).
func ExampleSSDerivBounded() {
	s, _ := bound.NewSpectrum("sinc", 2, 1, 0)
	m1, _ := s.Moments([]int{1, 1}) // T_{p,q}
	m2, _ := s.Moments([]int{2, 2}) // T_{2p,2q}, C_{2p,2q}
	t := bound.SSDerivBounded{Dim: 2, Diameter: 4, T: m1.Sup, T2: m2.Sup, C2: m2.NormSq}
	e, _ := t.Error(100000, 0.05)
	m, _ := t.Points(0.1, 0.05)
	fmt.Printf("error %.4f, points %d\n", e, m)
	// Output: error 0.4889, points 2390408
}

// Theorem 5 for ∂k/∂x₁ of the Gaussian kernel, with the constants from its spectrum.
func ExampleSSDerivUnbounded() {
	s, _ := bound.NewSpectrum("gaussian", 2, 1, 0)
	v, L, _ := s.Bernstein([]int{1, 0}, nil)
	mom, _ := s.Moments([]int{1, 0})
	t := bound.SSDerivUnbounded{Dim: 2, Diameter: 3, BernsteinVar: v, BernsteinL: L,
		GradSup: mom.Norm, NormMoment: mom.Norm} // D_{p,q,S} ≤ E_{p,q}
	e, _ := t.Error(100000, 0.05)
	m, _ := t.Points(0.1, 0.05)
	fmt.Printf("σ² = %g, L = %.4f, E = %.4f; error %.4f, points %d\n", v, L, mom.Norm, e, m)
	// Output: σ² = 4, L = 2.8284, E = 1.2732; error 0.0902, points 80909
}

func ExampleFd() {
	fmt.Printf("%.4f %.4f %.4f\n", bound.Fd(1), bound.Fd(2), bound.Fd(100))
	// Output: 2.0000 1.8899 1.0571
}

// Rahimi & Recht's Claim 1 against Theorem 1 as the diameter grows: in both, the diameter enters through a
// logarithm (m grows like log ℓ for a fixed ε); Theorem 1's constants are much larger.
func ExampleRahimiRecht() {
	for _, l := range []float64{1, 100, 10000} {
		rr, _ := bound.RahimiRecht{Dim: 2, Diameter: l, SecondMoment: 2}.Points(0.1, 0.01)
		ss, _ := bound.SSLinf{Dim: 2, Diameter: l, SecondMoment: 2}.Points(0.1, 0.01)
		fmt.Printf("diameter %5g: Rahimi–Recht m = %d, Sriperumbudur–Szabó m = %d\n", l, rr, ss)
	}
	// Output:
	// diameter     1: Rahimi–Recht m = 24718, Sriperumbudur–Szabó m = 2583430
	// diameter   100: Rahimi–Recht m = 39455, Sriperumbudur–Szabó m = 5035518
	// diameter 10000: Rahimi–Recht m = 54191, Sriperumbudur–Szabó m = 7545720
}

func ExampleSutherlandSchneider() {
	s, _ := bound.NewSpectrum("gaussian", 2, 1, 0)
	v, _ := s.CosVarianceSup(1)
	t := bound.SutherlandSchneider{Dim: 2, Diameter: 1, SecondMoment: 2, VarSup: v}
	m, _ := t.Points(0.1, 0.01) // frequencies; the paper's D = 2m columns
	e, _ := t.Error(m, 0.01)
	fmt.Printf("sup Var = %.4f, α_0.1 = %.4f, m = %d, error %.5f\n", v, t.Alpha(0.1), m, e)
	// Output: sup Var = 0.1998, α_0.1 = 0.2331, m = 3870, error 0.09999
}

func ExampleSutherlandBeta() {
	fmt.Printf("%.2f %.2f %.2f\n", bound.SutherlandBeta(1), bound.SutherlandBeta(64), bound.SutherlandBeta(100000))
	// Output: 12.00 66.00 64.01
}

// Proposition 3.1 for SR(3,3) features of the Gaussian kernel, with the paper's RBF constants κ = μ = 1, M = ½.
func ExampleQuadrature() {
	t := bound.Quadrature{Dim: 4, Diameter: 1, SecondMoment: 1, Kappa: 1, Mu: 1, CurvM: 0.5}
	D, _ := t.Points(0.05, 0.01)
	e, _ := t.Error(D, 0.01)
	fmt.Printf("D = %d points (%d rules of 2(d+1) points), error %.5f\n", D, (D+9)/10, e)
	// Output: D = 52744 points (5275 rules of 2(d+1) points), error 0.05000
}

func ExampleQuadratureBeta() {
	fmt.Printf("%.2f %.2f %.2f\n", bound.QuadratureBeta(1), bound.QuadratureBeta(86), bound.QuadratureBeta(100000))
	// Output: 16.00 64.74 64.01
}

// The RFF counterpart of Proposition 3.1 needs more points than the quadrature rule for the same guarantee.
func ExampleQuadratureRFF() {
	q, _ := bound.Quadrature{Dim: 4, Diameter: 1, SecondMoment: 1, Kappa: 1, Mu: 1, CurvM: 0.5}.Points(0.05, 0.01)
	r, _ := bound.QuadratureRFF{Dim: 4, Diameter: 1, SecondMoment: 1}.Points(0.05, 0.01)
	fmt.Printf("SR: %d, RFF: %d\n", q, r)
	// Output: SR: 52744, RFF: 219022
}

// Proposition 3.2: points for a kernel ridge prediction error of 0.1 (σ_y = 1, λ = 0.5n).
func ExampleKRR() {
	q := bound.Quadrature{Dim: 4, Diameter: 1, SecondMoment: 1, Kappa: 1, Mu: 1, CurvM: 0.5}
	t := bound.KRR{Kernel: q, SigmaY: 1, Lambda0: 0.5}
	c, _ := t.Scale()
	D, _ := t.Points(0.1, 0.01)
	fmt.Printf("kernel error needed %.4f, D = %d\n", c*0.1, D)
	// Output: kernel error needed 0.0167, D = 537975
}

// Theorem 10 and Proposition 12 for the curl-free Gaussian kernel in R³.
func ExampleORFF() {
	o := bound.ORFF{Kind: "curl-free", Dim: 3, Sigma: 1, Diameter: 2}
	v0, _ := o.Variance(0)
	b, _ := o.VarianceSup()
	D, _ := o.Points(0.5, 0.01)
	e, _ := o.Error(D, 0.01)
	fmt.Printf("D‖V[K̃₀(0)]‖ ≤ %.4f, b = %.4f, D = %d, error %.4f\n", v0, b, D, e)
	// Output: D‖V[K̃₀(0)]‖ ≤ 4.0000, b = 4.4819, D = 72187, error 0.5000
}

func ExampleORFF_Terms() {
	terms, _ := bound.ORFF{Kind: "div-free", Dim: 3, Sigma: 1, Diameter: 2}.Terms()
	fmt.Printf("C = %.2f, σ_p² = %g, m = %.3f, b = %.3f, ū = %.2f\n", terms["c_dp"], terms["sigma_p2"], terms["m_const"],
		terms["b"], terms["u_bar"])
	// Output: C = 94.09, σ_p² = 105, m = 29.619, b = 28.927, ū = 263.72
}

func ExampleOVKConstants() {
	for _, kind := range []string{"curl-free", "div-free"} {
		c, _ := bound.OVKConstants(kind, 3, 2, 0)
		fmt.Printf("%s: E[A] = %g·I, V[A] = %g·I (exact %g·I), ψ₁⁻¹ = %.4f\n", kind, c.EA, c.VarA, c.VarAExact,
			c.InvPsi1)
	}
	// Output:
	// curl-free: E[A] = 0.25·I, V[A] = 0.25·I (exact 0.25·I), ψ₁⁻¹ = 0.7401
	// div-free: E[A] = 0.5·I, V[A] = 1.6875·I (exact 0.375·I), ψ₁⁻¹ = 0.7401
}

func ExampleSecondMoment() {
	for _, k := range []string{"gaussian", "matern32", "matern52", "cauchy", "laplacian"} {
		s2, err := bound.SecondMoment(k, 2, 1)
		fmt.Println(k, s2, err != nil)
	}
	// Output:
	// gaussian 2 false
	// matern32 6 false
	// matern52 3.333333333333334 false
	// cauchy 4 false
	// laplacian +Inf true
}

func ExampleNewSpectrum() {
	s, err := bound.NewSpectrum("matern", 3, 2, 4)
	fmt.Println(s.Kernel, s.Nu, err)
	_, err = bound.NewSpectrum("polynomial", 3, 1, 0)
	fmt.Println(err != nil)
	// Output:
	// matern 4 <nil>
	// true
}

func ExampleSpectrum_Moments() {
	s, _ := bound.NewSpectrum("gaussian", 2, 1, 0)
	m, _ := s.Moments([]int{1, 0})
	fmt.Printf("E|ω₁| = %.4f, E|ω₁|‖ω‖ = %.4f (4/π), E|ω₁|‖ω‖² = %.4f, sup = %v\n", m.Abs, m.Norm, m.NormSq, m.Sup)
	// Output: E|ω₁| = 0.7979, E|ω₁|‖ω‖ = 1.2732 (4/π), E|ω₁|‖ω‖² = 2.3937, sup = +Inf
}

func ExampleSpectrum_SecondMoment() {
	s, _ := bound.NewSpectrum("sinc", 3, 0.5, 0)
	v, _ := s.SecondMoment()
	fmt.Println(v) // d/(3σ²)
	// Output: 4
}

func ExampleSpectrum_Bernstein() {
	s, _ := bound.NewSpectrum("gaussian", 2, 0.5, 0)
	v, L, _ := s.Bernstein([]int{1, 0}, []int{0, 1})
	fmt.Println(v, L)
	_, _, err := s.Bernstein([]int{3, 0}, nil)
	fmt.Println(err != nil)
	// Output:
	// 512 16
	// true
}

func ExampleSpectrum_CosVarianceSup() {
	s, _ := bound.NewSpectrum("gaussian", 2, 1, 0)
	for _, l := range []float64{0.1, 1, 10} {
		v, _ := s.CosVarianceSup(l)
		fmt.Printf("%.6f\n", v)
	}
	// Output:
	// 0.000050
	// 0.199788
	// 0.500000
}

func ExampleSpectrum_BoundedSupport() {
	g, _ := bound.NewSpectrum("gaussian", 2, 1, 0)
	s, _ := bound.NewSpectrum("sinc", 2, 1, 0)
	fmt.Println(g.BoundedSupport(), s.BoundedSupport())
	// Output: false true
}

func ExampleNames() {
	fmt.Println(bound.Names())
	// Output: [ss-linf ss-lr ss-deriv ss-deriv-bounded ss-deriv-unbounded rr sutherland quadrature quadrature-rff krr orff]
}

// What `rff bound --theorem ss-linf --d 5 --diameter 10 --eps 0.05 --delta 0.01` prints, in short.
func ExampleCompute() {
	g, err := bound.Compute("ss-linf", bound.Params{Dim: 5, Diameter: 10, Sigma: 1, Eps: 0.05, Delta: 0.01})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.Source)
	fmt.Printf("m = %d (%s), h = %.2f, σ² = %g\n", g.M, g.Method, g.Derived["h"], g.Derived["second_moment"])
	// Output:
	// Sriperumbudur & Szabó, Optimal rates for random Fourier features (NeurIPS 2015), Theorem 1
	// m = 40515747 (closed form), h = 315.23, σ² = 5
}

func ExampleGuarantee_String() {
	g, _ := bound.Compute("rr", bound.Params{Dim: 2, Diameter: 1, Sigma: 1, M: 10000, Delta: 0.05})
	fmt.Println(g)
	// Output: rr: with probability ≥ 0.95, error < 0.144772 using m = 10000 points (20000 cos/sin columns) [ε solved, monotone search]
}

// Any theorem through the Bound interface: the points needed for sup error 0.1 at 99% (d = 3, diameter 2,
// Gaussian kernel with σ_k = 1, so E‖ω‖² = 3).
func ExampleBound() {
	for _, b := range []bound.Bound{
		bound.SSLinf{Dim: 3, Diameter: 2, SecondMoment: 3},
		bound.RahimiRecht{Dim: 3, Diameter: 2, SecondMoment: 3},
		bound.SutherlandSchneider{Dim: 3, Diameter: 2, SecondMoment: 3, VarSup: 1},
		bound.QuadratureRFF{Dim: 3, Diameter: 2, SecondMoment: 3},
	} {
		m, _ := b.Points(0.1, 0.01)
		fmt.Printf("%T: %d\n", b, m)
	}
	// Output:
	// bound.SSLinf: 4492262
	// bound.RahimiRecht: 34481
	// bound.SutherlandSchneider: 24610
	// bound.QuadratureRFF: 45062
}

func ExampleSSDerivBounded_H() {
	// p = q = 0: T = T2 = 1 and C2 = σ², so H is Theorem 1's h.
	H, _ := bound.SSDerivBounded{Dim: 2, Diameter: 1, T: 1, T2: 1, C2: 2}.H()
	h, _ := bound.SSLinf{Dim: 2, Diameter: 1, SecondMoment: 2}.H()
	fmt.Printf("%.6f %.6f\n", H, h)
	// Output: 157.695639 157.695639
}

func ExampleSSDerivUnbounded_Prob() {
	t := bound.SSDerivUnbounded{Dim: 1, Diameter: 1, BernsteinVar: 1, BernsteinL: 4, GradSup: 1, NormMoment: 1}
	for _, m := range []int{1000, 10000, 100000} {
		p, _ := t.Prob(0.1, m)
		fmt.Printf("m = %6d: P(error ≥ 0.1) ≤ %.3g\n", m, p)
	}
	// Output:
	// m =   1000: P(error ≥ 0.1) ≤ 15.4
	// m =  10000: P(error ≥ 0.1) ≤ 0.138
	// m = 100000: P(error ≥ 0.1) ≤ 6.08e-22
}

func ExampleORFF_Constants() {
	c, _ := bound.ORFF{Kind: "decomposable", Dim: 4, Outputs: 3, Sigma: 1, NormA: 2, Diameter: 1}.Constants()
	fmt.Printf("p = %d, ‖K‖∞ = %g, ‖‖A‖‖ψ₁ = %.4f, σ_p² = %g, m = %.4f\n", c.Outputs, c.KSup, c.Psi1, c.SigmaP2, c.M)
	// Output: p = 3, ‖K‖∞ = 2, ‖‖A‖‖ψ₁ = 2.8854, σ_p² = 16, m = 19.5416
}

// Prob is the failure probability of Claim 1 for a given error and number of points; it falls exponentially in m,
// and is no guarantee at all (above 1) for too few points.
func ExampleRahimiRecht_Prob() {
	t := bound.RahimiRecht{Dim: 2, Diameter: 1, SecondMoment: 2}
	for _, m := range []int{1000, 30000, 60000} {
		p, err := t.Prob(0.1, m)
		if err != nil {
			panic(err)
		}
		fmt.Printf("m = %5d: P(sup|k̂ − k| ≥ 0.1) ≤ %.3g\n", m, p)
	}
	// Output:
	// m =  1000: P(sup|k̂ − k| ≥ 0.1) ≤ 2.74e+04
	// m = 30000: P(sup|k̂ − k| ≥ 0.1) ≤ 0.000368
	// m = 60000: P(sup|k̂ − k| ≥ 0.1) ≤ 2.65e-12
}

// Points and Error are inverse: Points(ε, δ) is the smallest m whose guaranteed error Error(m, δ) is at most ε.
func ExampleSSLinf_Points() {
	t := bound.SSLinf{Dim: 3, Diameter: 2, SecondMoment: 3}
	m, err := t.Points(0.1, 0.05)
	if err != nil {
		panic(err)
	}
	e, _ := t.Error(m, 0.05)
	before, _ := t.Error(m-1, 0.05)
	fmt.Println(e <= 0.1, before > 0.1)
	// Output: true true
}
