package bound

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestOVKConstantsHand checks the constants of docs/conventions.md §4 at d = 3, σ = 2.
func TestOVKConstantsHand(t *testing.T) {
	d, s := 3.0, 2.0
	curl, err := OVKConstants("curl-free", 3, s, 0)
	if err != nil {
		t.Fatal(err)
	}
	div, _ := OVKConstants("div-free", 3, s, 0)
	dec, _ := OVKConstants("decomposable", 3, s, 2.5)
	psiInv := s * s / 2 * (1 - math.Pow(4, -1/d))
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"curl E[A]", curl.EA, 1 / (s * s)},
		{"div E[A]", div.EA, (d - 1) / (s * s)},
		{"curl V[A]", curl.VarA, (d + 1) / math.Pow(s, 4)},
		{"div V[A] printed", div.VarA, d * (4*d - 3) / math.Pow(s, 4)},
		{"div V[A] exact", div.VarAExact, 3 * (d - 1) / math.Pow(s, 4)},
		{"curl ψ₁⁻¹", curl.InvPsi1, psiInv},
		{"div ψ₁⁻¹", div.InvPsi1, psiInv},
		{"curl σ_p²", curl.SigmaP2, d * (d + 2) * (d + 4) / math.Pow(s, 6)},
		{"curl m", curl.M, 4 * (1/psiInv + 1/(s*s))},
		{"div m", div.M, 4 * (1/psiInv + (d-1)/(s*s))},
		{"dec ψ₁⁻¹", dec.InvPsi1, math.Ln2 / 2.5},
		{"dec σ_p²", dec.SigmaP2, 2.5 * 2.5 * d / (s * s)},
		{"dec m", dec.M, 4 * (2.5/math.Ln2 + 2.5)},
	} {
		if !near(c.got, c.want, 1e-14) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// ψ₁ norm: the MGF of ‖A‖₂ = ‖ω‖² ~ Gamma(d/2, 2/σ²) is 2 at t = ‖‖A‖‖_ψ₁⁻¹.
	if mgf := math.Pow(1-2*curl.InvPsi1/(s*s), -d/2); !near(mgf, 2, 1e-13) {
		t.Errorf("MGF at ψ₁⁻¹ = %v, want 2", mgf)
	}
	if _, err := OVKConstants("div-free", 1, 1, 0); err == nil {
		t.Error("div-free with d = 1 should fail")
	}
	if _, err := OVKConstants("decomposable", 2, 1, 0); err == nil {
		t.Error("decomposable without ‖A‖ should fail")
	}
}

// TestOVKMonteCarlo checks E[A] and the exact V[A] = E[(A − E A)²] for curl- and div-free by Monte Carlo
// (it shows the printed div-free d(4d−3)/σ⁴ is not the variance).
func TestOVKMonteCarlo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, sigma = 200000, 1.3
	for _, d := range []int{2, 3, 5} {
		w := make([]float64, d)
		var sa, sa2 [2][2]float64 // (0,0) and (0,1) entries of A and A², for curl [0] and div [1]
		var sq [2]float64         // Σ (A²)₀₀² for the standard error
		for i := 0; i < n; i++ {
			var n2 float64
			for j := range w {
				w[j] = rng.NormFloat64() / sigma
				n2 += w[j] * w[j]
			}
			// curl: A = wwᵀ, A² = ‖w‖²wwᵀ; div: A = ‖w‖²I − wwᵀ, A² = ‖w‖²A.
			a := [2][2]float64{{w[0] * w[0], w[0] * w[1]}, {n2 - w[0]*w[0], -w[0] * w[1]}}
			for k := 0; k < 2; k++ {
				sa[k][0] += a[k][0]
				sa[k][1] += a[k][1]
				sa2[k][0] += n2 * a[k][0]
				sa2[k][1] += n2 * a[k][1]
				sq[k] += n2 * a[k][0] * n2 * a[k][0]
			}
		}
		c, _ := OVKConstants("curl-free", d, sigma, 0)
		v, _ := OVKConstants("div-free", d, sigma, 0)
		for k, want := range []OVKConst{c, v} {
			ea := sa[k][0] / n
			// V[A]₀₀ = E[A²]₀₀ − (E[A]²)₀₀ = E[A²]₀₀ − EA² (E A is a multiple of I).
			va := sa2[k][0]/n - want.EA*want.EA
			se := math.Sqrt((sq[k]/n - math.Pow(sa2[k][0]/n, 2)) / n)
			if math.Abs(ea-want.EA) > 0.02*want.EA || math.Abs(va-want.VarAExact) > 5*se+1e-3*want.VarAExact {
				t.Errorf("%s d=%d: E[A]₀₀ = %v (want %v), V[A]₀₀ = %v ± %v (want %v)", want.Kind, d, ea, want.EA,
					va, se, want.VarAExact)
			}
			if math.Abs(sa[k][1]/n) > 0.02*want.EA || math.Abs(sa2[k][1]/n) > 10*se {
				t.Errorf("%s d=%d: off-diagonal means %v, %v", want.Kind, d, sa[k][1]/n, sa2[k][1]/n)
			}
		}
		if d > 1 && v.VarA <= v.VarAExact {
			t.Errorf("printed div V[A] %v should exceed the exact %v", v.VarA, v.VarAExact)
		}
	}
}

// TestORFFVarianceHand checks Proposition 12 at one δ for curl-free (d = 2) and decomposable kernels by hand, and
// against a Monte Carlo estimate of D‖V[K̃₀(δ)]‖₂ = ‖E[cos²(ωᵀδ)A(ω)²] − K₀(δ)²‖₂.
func TestORFFVarianceHand(t *testing.T) {
	const r, s = 0.7, 1.0
	k := func(r float64) float64 { return math.Exp(-r * r / (2 * s * s)) }
	par := func(r float64) float64 { return k(r) * (1 - r*r) }
	perp := func(r float64) float64 { return k(r) }
	mPar := (par(2*r)+1)*1 - 2*par(r)*par(r)
	mPerp := (perp(2*r)+1)*1 - 2*perp(r)*perp(r)
	want := (math.Max(math.Abs(mPar), math.Abs(mPerp)) + 2*3) / 2
	o := ORFF{Kind: "curl-free", Dim: 2, Sigma: s, Diameter: 2}
	got, err := o.Variance(r)
	if err != nil || !near(got, want, 1e-14) {
		t.Fatalf("curl Variance = %v, %v; want %v", got, err, want)
	}
	dec := ORFF{Kind: "decomposable", Dim: 2, Outputs: 3, Sigma: s, NormA: 1.5, Diameter: 2}
	wantDec := 1.5 * 1.5 * math.Abs(1+k(2*r)-2*k(r)*k(r)) / 2
	if got, _ := dec.Variance(r); !near(got, wantDec, 1e-14) {
		t.Errorf("decomposable Variance = %v, want %v", got, wantDec)
	}

	// Monte Carlo: curl-free, δ = (0.7, 0): A = wwᵀ, A² = ‖w‖²wwᵀ; K₀(δ) = k(I − δδᵀ)/σ².
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 200000
	var e00, e01, e11 float64
	for i := 0; i < n; i++ {
		w0, w1 := rng.NormFloat64()/s, rng.NormFloat64()/s
		c := math.Cos(w0 * r)
		f := c * c * (w0*w0 + w1*w1)
		e00 += f * w0 * w0
		e01 += f * w0 * w1
		e11 += f * w1 * w1
	}
	k0 := [2]float64{par(r), perp(r)} // K₀(δ) is diagonal in this basis
	m00 := e00/n - k0[0]*k0[0]
	m11 := e11/n - k0[1]*k0[1]
	m01 := e01 / n
	tr, det := m00+m11, m00*m11-m01*m01
	lmax := tr/2 + math.Sqrt(tr*tr/4-det)
	if lmax > got*1.02 {
		t.Errorf("Monte Carlo D‖V‖ = %v exceeds the Proposition 12 bound %v", lmax, got)
	}
	t.Logf("curl-free at r = %v: Monte Carlo D‖V[K̃₀]‖ = %.4f, Proposition 12 bound %.4f", r, lmax, got)
}

// TestORFFTheorem10Hand checks Theorem 10 by hand from the constants, and that b is the sup of Proposition 12.
func TestORFFTheorem10Hand(t *testing.T) {
	for _, o := range []ORFF{
		{Kind: "curl-free", Dim: 2, Sigma: 1, Diameter: 2},
		{Kind: "curl-free", Dim: 5, Sigma: 3, Diameter: 2, PrintedUBar: true},
		{Kind: "div-free", Dim: 3, Sigma: 0.7, Diameter: 3},
		{Kind: "div-free", Dim: 4, Sigma: 0.7, Diameter: 3, ExactVariance: true},
		{Kind: "decomposable", Dim: 3, Outputs: 2, Sigma: 1.2, NormA: 2, Diameter: 1},
	} {
		c, _ := o.Constants()
		b, _ := o.VarianceSup()
		// b is the sup of the Proposition 12 bound over ‖δ‖ ≤ |C| (brute force on a fine grid).
		var brute float64
		for i := 0; i <= 100000; i++ {
			v, _ := o.Variance(o.Diameter * float64(i) / 100000)
			brute = math.Max(brute, v)
		}
		if b < brute*(1-1e-9) || b > brute*(1+1e-6) {
			t.Errorf("%s: b = %v, brute force %v", o.Kind, b, brute)
		}
		d := float64(o.Dim)
		p := float64(c.Outputs)
		m := 4 * (c.Psi1 + c.KSup)
		ubar := 2 * m * math.Log(math.Pow(2, 1.5)*m*m/b)
		if o.PrintedUBar {
			ubar = 2 * m * math.Log(math.Pow(2, 1.5)*(m/b)*(m/b))
		}
		C := p * (math.Pow(d/2, -d/(d+2)) + math.Pow(d/2, 2/(d+2))) * math.Pow(2, (6*d+2)/(d+2))
		for _, eps := range []float64{0.05, 0.5, 5, 50} {
			D := 100000
			pre := C * math.Pow(math.Sqrt(c.SigmaP2)*o.Diameter/eps, 2/(1+2/d))
			var want float64
			if eps*ubar <= 2*(math.E-1)*b {
				want = pre * math.Exp(-eps*eps*float64(D)/(8*(d+2)*(b+eps*ubar/6)))
			} else {
				want = pre * math.Exp(-eps*float64(D)/((d+2)*(math.E-1)*ubar))
			}
			got, err := o.Prob(eps, D)
			if err != nil || !near(got, want, 1e-9) {
				t.Errorf("%s ε=%v: Prob = %v, %v; want %v", o.Kind, eps, got, err, want)
			}
		}
	}
	// The printed ū = 2m·log(2^{3/2}(m/b)²) is not scale-invariant and turns negative when b is large against m
	// (here the printed div-free V[A] = d(4d−3)/σ⁴ with σ = 0.7): Theorem 10 then does not apply, and the error says
	// so. The default ū is invariant under x → cx, σ → cσ, ε fixed (b, m, σ_p|C| scale consistently).
	bad := ORFF{Kind: "div-free", Dim: 4, Sigma: 0.7, Diameter: 3, PrintedUBar: true}
	if _, err := bad.Points(0.1, 0.1); err == nil || !strings.Contains(err.Error(), "ū") {
		t.Errorf("printed-variance div-free d=4 σ=0.7: err = %v, want the ū ≤ 0 error", err)
	}
	for _, kind := range []string{"curl-free", "div-free"} {
		// Scaling x by c scales σ and |C| by c and A(ω) (hence ‖K̃ − K‖) by 1/c²: P(‖K̃−K‖ ≥ ε) at (σ, |C|, ε)
		// equals that at (cσ, c|C|, ε/c²).
		p1, err1 := ORFF{Kind: kind, Dim: 3, Sigma: 1, Diameter: 2}.Prob(0.3, 5000)
		p2, err2 := ORFF{Kind: kind, Dim: 3, Sigma: 0.5, Diameter: 1}.Prob(0.3*4, 5000)
		if err1 != nil || err2 != nil || !near(p1, p2, 1e-6) {
			t.Errorf("%s: not scale-invariant: %v (%v) vs %v (%v)", kind, p1, err1, p2, err2)
		}
	}
	// ExactVariance lowers b for div-free.
	o := ORFF{Kind: "div-free", Dim: 3, Sigma: 1, Diameter: 2}
	b1, _ := o.VarianceSup()
	o.ExactVariance = true
	b2, _ := o.VarianceSup()
	if !(b2 < b1) {
		t.Errorf("exact-variance b = %v, printed b = %v", b2, b1)
	}
}
