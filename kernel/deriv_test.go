package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// derivKernels are the kernels with derivatives beyond order 0, with the largest order the finite-difference test
// climbs to (every order for the Gaussian and Cauchy kernels is available; 4 keeps the test fast).
func derivKernels() []struct {
	k   Differentiable
	max int
} {
	return []struct {
		k   Differentiable
		max int
	}{
		{Gaussian{S: 0.7}, 5},
		{Cauchy{S: 1.3}, 5},
		{Matern{Nu: 1.5, S: 0.9}, 2},
		{Matern{Nu: 2.5, S: 1.1}, 4},
	}
}

// multiIndices lists every α ∈ ℕ^d with |α| ≤ n.
func multiIndices(d, n int) [][]int {
	if d == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for a := 0; a <= n; a++ {
		for _, rest := range multiIndices(d-1, n-a) {
			out = append(out, append([]int{a}, rest...))
		}
	}
	return out
}

func order(p []int) int {
	n := 0
	for _, v := range p {
		n += v
	}
	return n
}

func plusE(p []int, i int) []int {
	out := append([]int(nil), p...)
	out[i]++
	return out
}

// anyOrder evaluates ∂^{p,q}k beyond MaxOrder for the Matérn kernels (valid away from δ = 0, where the kernel is
// smooth); the finite-difference test needs the third derivative of the function it differentiates.
func anyOrder(k Differentiable, x, y []float64, p, q []int) float64 {
	if m, ok := k.(Matern); ok {
		delta := make([]float64, len(x))
		alpha := make([]int, len(x))
		sign := 1.0
		for i := range x {
			delta[i] = x[i] - y[i]
			alpha[i] = p[i] + q[i]
			if q[i]%2 == 1 {
				sign = -sign
			}
		}
		return sign * m.radialDeriv(delta, alpha)
	}
	v, err := k.Deriv(x, y, p, q)
	if err != nil {
		panic(err)
	}
	return v
}

// TestDerivOrderZeroIsEval: ∂^{0,0}k = k, for nil and for explicit zero multi-indices.
func TestDerivOrderZeroIsEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	ks := []Differentiable{Gaussian{S: 0.8}, Laplacian{S: 0.8}, Cauchy{S: 0.8},
		Matern{Nu: 0.5, S: 0.8}, Matern{Nu: 1.5, S: 0.8}, Matern{Nu: 2.5, S: 0.8}}
	const d = 4
	for _, k := range ks {
		for trial := 0; trial < 5; trial++ {
			x, y := randVec(rng, d, 0.6), randVec(rng, d, 0.6)
			if trial == 0 {
				y = x
			}
			want := k.Eval(x, y)
			for _, pq := range [][2][]int{{nil, nil}, {make([]int, d), make([]int, d)}} {
				got, err := k.Deriv(x, y, pq[0], pq[1])
				if err != nil {
					t.Fatalf("%s: %v", k.Name(), err)
				}
				// Both evaluate the same closed form with a different order of ≤ 4d roundings.
				if math.Abs(got-want) > 4*d*eps*math.Abs(want) {
					t.Errorf("%s: Deriv order 0 = %v, Eval = %v", k.Name(), got, want)
				}
			}
		}
	}
}

const eps = 0x1p-52

// TestDerivFiniteDifferences climbs the orders: every derivative of order n+1 must match the central difference of
// the exact derivative of order n, in the x and in the y argument, for every multi-index up to the kernel's order.
// Order 0 is Eval (TestDerivOrderZeroIsEval), so every order is anchored to the kernel itself.
//
// Step and tolerance: for f(t) = ∂^{p,q}k(x + t·e_i, y), (f(h) − f(−h))/(2h) = f'(0) + h²f⁽³⁾(ξ)/6, so the
// truncation error is at most h²·M₃/6 with M₃ = max|f⁽³⁾| on [−h, h] (taken as twice the largest of |f⁽³⁾| at −h, 0,
// h; the interval is 10⁻⁵σ wide), and rounding adds ρ·M₀/h with M₀ the size of f and ρ = 2⁻⁴⁰ a bound on the relative
// rounding error of one evaluation (a few dozen operations with cancellation of at most 2⁸). h = ε^{1/3}σ balances
// the two. The test also asserts that this tolerance is within 10⁻⁶ of the derivative's natural scale σ^{−(n+1)}.
func TestDerivFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	const d = 3
	const rho = 0x1p-40
	for _, c := range derivKernels() {
		k := c.k
		sigma := k.(Spectral).Sigma()
		h := math.Cbrt(eps) * sigma
		for pair := 0; pair < 3; pair++ {
			x, y := randVec(rng, d, 0.7*sigma), randVec(rng, d, 0.7*sigma)
			if r := math.Sqrt(sqDist(x, y)); r < 0.3*sigma { // Matérn's third derivatives blow up at δ = 0
				continue
			}
			for _, alpha := range multiIndices(2*d, c.max-1) {
				p, q := alpha[:d], alpha[d:]
				n := order(alpha)
				for i := 0; i < d; i++ {
					for _, side := range []string{"x", "y"} {
						var p1, q1, p3, q3 []int
						shift := func(t float64) ([]float64, []float64) {
							xs, ys := append([]float64(nil), x...), append([]float64(nil), y...)
							if side == "x" {
								xs[i] += t
							} else {
								ys[i] += t
							}
							return xs, ys
						}
						if side == "x" {
							p1, q1 = plusE(p, i), q
							p3, q3 = plusE(plusE(plusE(p, i), i), i), q
						} else {
							p1, q1 = p, plusE(q, i)
							p3, q3 = p, plusE(plusE(plusE(q, i), i), i)
						}
						exact, err := k.Deriv(x, y, p1, q1)
						if err != nil {
							t.Fatalf("%s p=%v q=%v: %v", k.Name(), p1, q1, err)
						}
						xp, yp := shift(h)
						xm, ym := shift(-h)
						fp, _ := k.Deriv(xp, yp, p, q)
						fm, _ := k.Deriv(xm, ym, p, q)
						fd := (fp - fm) / (2 * h)
						m3 := 0.0
						for _, tt := range []float64{-h, 0, h} {
							xs, ys := shift(tt)
							m3 = math.Max(m3, math.Abs(anyOrder(k, xs, ys, p3, q3)))
						}
						scale0 := math.Pow(sigma, -float64(n))
						m0 := math.Max(math.Max(math.Abs(fp), math.Abs(fm)), scale0)
						tol := h*h*2*m3/6 + rho*m0/h
						scale1 := math.Pow(sigma, -float64(n+1))
						if tol > 1e-6*(math.Abs(exact)+scale1) {
							t.Fatalf("%s p=%v q=%v: tolerance %g is above 1e-6 of the scale %g", k.Name(), p1, q1, tol, scale1)
						}
						if math.Abs(fd-exact) > tol {
							t.Errorf("%s ∂ in %s_%d of p=%v q=%v: exact %.15g, central difference %.15g (|diff| %.3g > tol %.3g)",
								k.Name(), side, i+1, p, q, exact, fd, math.Abs(fd-exact), tol)
						}
					}
				}
			}
		}
	}
}

// TestDerivSymmetries: k(x,y) = k(y,x) gives ∂^{p,q}k(x,y) = ∂^{q,p}k(y,x); shift invariance gives
// ∂^{p,q}k(x,y) = (−1)^{|q|}∂^{p+q,0}k(x,y); evenness of κ gives ∂^{p,q}k(x,y) = (−1)^{|p+q|}∂^{p,q}k(y,x).
// All three are rearrangements of the same closed form, equal up to a few roundings (tolerance 64ε of the scale).
func TestDerivSymmetries(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	const d = 3
	for _, c := range derivKernels() {
		k := c.k
		sigma := k.(Spectral).Sigma()
		for pair := 0; pair < 3; pair++ {
			x, y := randVec(rng, d, 0.7*sigma), randVec(rng, d, 0.7*sigma)
			for _, alpha := range multiIndices(2*d, c.max) {
				p, q := alpha[:d], alpha[d:]
				n := order(alpha)
				pq := make([]int, d)
				for i := range pq {
					pq[i] = p[i] + q[i]
				}
				v, err := k.Deriv(x, y, p, q)
				if err != nil {
					t.Fatal(err)
				}
				swapped, _ := k.Deriv(y, x, q, p)
				moved, _ := k.Deriv(x, y, pq, nil)
				if order(q)%2 == 1 {
					moved = -moved
				}
				reflected, _ := k.Deriv(y, x, p, q)
				if n%2 == 1 {
					reflected = -reflected
				}
				tol := 64 * eps * (math.Abs(v) + math.Pow(sigma, -float64(n)))
				for name, w := range map[string]float64{"swap": swapped, "shift": moved, "reflect": reflected} {
					if math.Abs(v-w) > tol {
						t.Errorf("%s p=%v q=%v %s: %v vs %v", k.Name(), p, q, name, v, w)
					}
				}
			}
		}
	}
}

// TestDerivAtZeroIsSpectralMoment: ∂^{p,q}k(x,x) = E[ω^p(−ω)^q h_{|p+q|}(0)], which for p = q is E[ω^{2p}]
// (h_{2n}(0) = (−1)ⁿ and (−1)^{|q|} cancel it). By hand, with s = 1/σ:
//   - Gaussian, ω ~ N(0, s²I): E ω_i² = s², E ω_i⁴ = 3s⁴, E ω_i²ω_j² = s⁴.
//   - Cauchy, ω_i iid Laplace(0, s): E ω_i² = 2s², E ω_i⁴ = 24s⁴.
//   - Matérn ν, ω = z·sqrt(2ν/g)·s, g ~ χ²_{2ν}: E ω_i² = 2ν·E[1/g]·s² = 2ν/(2ν−2)·s² (3s² for ν = 3/2,
//     5s²/3 for ν = 5/2); E ω_i⁴ = 3·(2ν)²·E[1/g²]·s⁴ = 3·25/((5−2)(5−4))·s⁴ = 25s⁴ for ν = 5/2,
//     E ω_i²ω_j² = 25/3·s⁴.
//
// Off-diagonal second moments vanish: ∂^{e_i,e_j}k(x,x) = 0 for i ≠ j.
func TestDerivAtZeroIsSpectralMoment(t *testing.T) {
	const d = 3
	x := []float64{0.3, -0.2, 0.5}
	e := func(i int) []int { v := make([]int, d); v[i] = 1; return v }
	tw := func(i, j int) []int { v := make([]int, d); v[i]++; v[j]++; return v }
	cases := []struct {
		k          Differentiable
		m2, m4, mx float64 // times s², s⁴, s⁴
	}{
		{Gaussian{S: 0.7}, 1, 3, 1},
		{Cauchy{S: 1.3}, 2, 24, 4},
		{Matern{Nu: 1.5, S: 0.9}, 3, math.NaN(), math.NaN()},
		{Matern{Nu: 2.5, S: 1.1}, 5.0 / 3, 25, 25.0 / 3},
	}
	for _, c := range cases {
		s := 1 / c.k.(Spectral).Sigma()
		check := func(p, q []int, want float64) {
			got, err := c.k.Deriv(x, x, p, q)
			if err != nil {
				t.Fatalf("%s: %v", c.k.Name(), err)
			}
			if math.Abs(got-want) > 64*eps*math.Max(1, math.Abs(want)) {
				t.Errorf("%s p=%v q=%v at δ=0: %v, want %v", c.k.Name(), p, q, got, want)
			}
		}
		check(e(0), e(0), c.m2*s*s)
		check(e(1), e(2), 0)
		check(nil, tw(0, 1), 0)
		if !math.IsNaN(c.m4) {
			check(tw(1, 1), tw(1, 1), c.m4*s*s*s*s)
			check(tw(0, 2), tw(0, 2), c.mx*s*s*s*s)
		}
		// Odd orders vanish at δ = 0 (κ is even).
		check(e(0), nil, 0)
		if c.k.MaxOrder() >= 3 {
			check(tw(0, 0), e(1), 0)
		}
	}
}

func TestDerivErrors(t *testing.T) {
	x, y := []float64{0.1, 0.2}, []float64{0.3, -0.1}
	cases := []struct {
		name string
		k    Kernel
		x, y []float64
		p, q []int
	}{
		{"p too short", Gaussian{S: 1}, x, y, []int{1}, nil},
		{"q too long", Gaussian{S: 1}, x, y, nil, []int{0, 1, 0}},
		{"negative order", Gaussian{S: 1}, x, y, []int{-1, 0}, nil},
		{"x and y lengths", Gaussian{S: 1}, x, y[:1], nil, nil},
		{"empty input", Gaussian{S: 1}, nil, nil, nil, nil},
		{"Matérn 3/2 order 3", Matern{Nu: 1.5, S: 1}, x, y, []int{1, 1}, []int{1, 0}},
		{"Matérn 5/2 order 5", Matern{Nu: 2.5, S: 1}, x, y, []int{2, 1}, []int{1, 1}},
		{"Matérn 1/2 order 1", Matern{Nu: 0.5, S: 1}, x, y, []int{1, 0}, nil},
		{"Matérn ν = 1", Matern{Nu: 1, S: 1}, x, y, nil, nil},
		{"Laplacian order 1", Laplacian{S: 1}, x, y, nil, []int{0, 1}},
		{"arc-cosine order 1", ArcCos{Order: 1}, x, y, []int{1, 0}, nil},
		{"arc-cosine bad p", ArcCos{Order: 1}, x, y, []int{0}, nil},
	}
	for _, c := range cases {
		if v, err := Deriv(c.k, c.x, c.y, c.p, c.q); err == nil {
			t.Errorf("%s: no error (value %v)", c.name, v)
		}
	}
	// Orders that exist are accepted, through the interface and for non-differentiable kernels at order 0.
	if v, err := Deriv(ArcCos{Order: 1}, x, y, []int{0, 0}, nil); err != nil || v != (ArcCos{Order: 1}).Eval(x, y) {
		t.Errorf("arc-cosine order 0: %v, %v", v, err)
	}
	if _, err := Deriv(Matern{Nu: 2.5, S: 1}, x, y, []int{2, 0}, []int{1, 1}); err != nil {
		t.Errorf("Matérn 5/2 order 4: %v", err)
	}
	if _, err := MultiIndexOrder([]int{1, -2}, 2); err == nil {
		t.Error("MultiIndexOrder accepted a negative entry")
	}
}

// TestMaternDerivNearZero: the Matérn derivatives that exist are continuous at δ = 0, and the evaluation near 0
// (δ/r and powers of r) neither overflows nor loses the limit. Every derivative of order n ≤ MaxOrder is Lipschitz
// near 0 (the order-(n+1) terms are bounded by a few a^{n+1}, a = √(2ν)/σ, times the combinatorial factors),
// so |∂^α κ(t·u) − ∂^α κ(0)| ≤ C·a^{n+1}·t; C = 100 covers the factors of order ≤ 4.
func TestMaternDerivNearZero(t *testing.T) {
	const d = 3
	u := []float64{0.48, -0.6, 0.64} // unit vector
	zero := make([]float64, d)
	for _, k := range []Matern{{Nu: 1.5, S: 0.9}, {Nu: 2.5, S: 1.1}} {
		a := math.Sqrt(2*k.Nu) / k.S
		for _, alpha := range multiIndices(d, k.MaxOrder()) {
			n := order(alpha)
			at0, err := k.Deriv(zero, zero, alpha, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range []float64{1e-6, 1e-12, 1e-200} {
				x := []float64{r * u[0], r * u[1], r * u[2]}
				v, err := k.Deriv(x, zero, alpha, nil)
				if err != nil {
					t.Fatal(err)
				}
				tol := 100*math.Pow(a, float64(n+1))*r + 64*eps*math.Pow(a, float64(n))
				if math.IsNaN(v) || math.Abs(v-at0) > tol {
					t.Errorf("%s α=%v: at r=%g %v, at 0 %v", k.Name(), alpha, r, v, at0)
				}
			}
		}
	}
}

// TestDerivFarAndNaN: far from the diagonal the Matérn derivatives underflow to what they are — zero where the
// squares of δ overflow (NaN before: Inf·0), and e^{−t} times the polynomial, within its rounding, where t = a·r
// passes 700 — and an input with NaN gives NaN, as Eval does, for every kernel with derivatives.
func TestDerivFarAndNaN(t *testing.T) {
	for _, k := range []Kernel{Matern{Nu: 1.5, S: 1}, Matern{Nu: 2.5, S: 1}} {
		for _, p := range [][]int{nil, {1, 0}, {0, 2}, {1, 1}} {
			if v, err := Deriv(k, []float64{1e155, 0}, []float64{0, 0}, p, nil); err != nil || v != 0 {
				t.Errorf("%s, p = %v at δ = (1e155, 0): %v, %v; want 0", k.Name(), p, v, err)
			}
		}
		// t = a·r ≈ 705 (past 700, still normal): the value equals Eval's to the rounding of e^{−t} in two forms (t·2⁻⁵² relative).
		x, y := []float64{705 / math.Sqrt(2*k.(Matern).Nu), 0}, []float64{0, 0}
		v, err := Deriv(k, x, y, nil, nil)
		if e := k.Eval(x, y); err != nil || !(math.Abs(v-e) <= 1e3*0x1p-52*e) || e == 0 {
			t.Errorf("%s at t = 705: Deriv %v, Eval %v (%v)", k.Name(), v, e, err)
		}
	}
	for _, k := range []Kernel{Gaussian{S: 1}, Cauchy{S: 1}, Matern{Nu: 2.5, S: 1}} {
		for _, p := range [][]int{nil, {1, 0}} {
			if v, err := Deriv(k, []float64{math.NaN(), 0}, []float64{0, 0}, p, nil); err != nil || !math.IsNaN(v) {
				t.Errorf("%s, p = %v at a NaN input: %v, %v; want NaN", k.Name(), p, v, err)
			}
		}
	}
}
