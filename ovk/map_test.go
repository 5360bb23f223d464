package ovk

import (
	"math"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/misusetest"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

func allRules(t testing.TB) []rule.Rule {
	var rs []rule.Rule
	for _, name := range rule.Names() {
		r, err := rule.Parse(name)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	return rs
}

func mustMap(t testing.TB, k *Kernel, r rule.Rule, d, D int, seed uint64) *Map {
	t.Helper()
	m, err := New(k, r, d, D, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// pointA returns A(ω_j) = B_jB_jᵀ (p×p) and ω_j of map m.
func pointA(m *Map, j int) (A, omega []float64) {
	m.omegaOnce.Do(m.computeOmega)
	p, pr := m.p, m.pr
	B := m.bs[j*m.bstride : j*m.bstride+p*pr]
	A = make([]float64, p*p)
	for a := 0; a < p; a++ {
		for b := 0; b < p; b++ {
			for k := 0; k < pr; k++ {
				A[a*p+b] += B[a*pr+k] * B[b*pr+k]
			}
		}
	}
	return A, m.omega[j*m.d : (j+1)*m.d]
}

func norm2(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// TestFactorB: for every point, B(ω)B(ω)ᵀ equals the closed-form A(ω) (ωωᵀ, ‖ω‖²I − ωωᵀ, their w-mixture) to
// rounding, and the divergence-free B satisfies B(ω)ᵀω = 0 (its columns span ω^⊥, orthonormal up to ‖ω‖).
func TestFactorB(t *testing.T) {
	for _, d := range []int{2, 3, 6} {
		for _, k := range []*Kernel{mustK(t)(NewCurlFree(0.7)), mustK(t)(NewDivFree(0.7)), mustK(t)(NewHelmholtz(0.7, 0.35))} {
			m := mustMap(t, k, rule.G{}, d, 50, 1)
			wc, wd := k.wc, 1-k.wc
			for j := 0; j < m.Points(); j++ {
				A, om := pointA(m, j)
				r2 := norm2(om) * norm2(om)
				for a := 0; a < d; a++ {
					for b := 0; b < d; b++ {
						want := (wc - wd) * om[a] * om[b]
						if a == b {
							want += wd * r2
						}
						if math.Abs(A[a*d+b]-want) > 16*eps*r2 {
							t.Fatalf("%s d=%d point %d: A[%d,%d] = %v, want %v", k.Name(), d, j, a, b, A[a*d+b], want)
						}
					}
				}
				if k.Kind() == DivFree {
					B := m.bs[j*m.bstride : (j+1)*m.bstride]
					for c := 0; c < d-1; c++ {
						var s float64
						for a := 0; a < d; a++ {
							s += B[a*(d-1)+c] * om[a]
						}
						if math.Abs(s) > 16*eps*r2 {
							t.Fatalf("d=%d point %d: (Bᵀω)[%d] = %v", d, j, c, s)
						}
					}
				}
			}
		}
	}
}

// TestMomentsOfA checks docs/conventions.md §4's E[A] and V[A] = E[(A − E A)²] for ω ~ N(0, σ⁻²I) by Monte Carlo over the points
// of a large G map, within 5 standard errors: E[A^curl] = I/σ², V[A^curl] = (d+1)I/σ⁴, E[A^div] = (d−1)I/σ². For the
// divergence-free kernel V[A] = 3(d−1)I/σ⁴ (A² = ‖ω‖⁴I − ‖ω‖²ωωᵀ, E‖ω‖⁴ = d(d+2)/σ⁴, E[‖ω‖²ωωᵀ] = (d+2)I/σ⁴), not
// the d(4d−3)I/σ⁴ printed in the ORFF paper §4.3 (docs/conventions.md §8.9); the test pins the former.
func TestMomentsOfA(t *testing.T) {
	if testing.Short() {
		t.Skip("Monte Carlo over 2·10⁵ points")
	}
	const d, D, sigma = 4, 200000, 0.8
	s2 := sigma * sigma
	for _, tc := range []struct {
		k        *Kernel
		mean, vr float64
	}{
		{mustK(t)(NewCurlFree(sigma)), 1 / s2, float64(d+1) / (s2 * s2)},
		{mustK(t)(NewDivFree(sigma)), float64(d-1) / s2, 3 * float64(d-1) / (s2 * s2)},
	} {
		m := mustMap(t, tc.k, rule.G{}, d, D, 7)
		// Diagonal entries: a_j = A_j[0,0] (mean tc.mean), v_j = ((A_j − E A)²)[0,0] (mean tc.vr).
		var sa, sa2, sv, sv2 float64
		EA := make([]float64, d*d)
		for j := 0; j < D; j++ {
			A, _ := pointA(m, j)
			for i := range EA {
				EA[i] += A[i] / D
			}
		}
		for j := 0; j < D; j++ {
			A, _ := pointA(m, j)
			a := A[0]
			var v float64
			for c := 0; c < d; c++ {
				e := A[c] - EA[c]
				v += e * e
			}
			sa += a
			sa2 += a * a
			sv += v
			sv2 += v * v
		}
		ma, mv := sa/D, sv/D
		sea := math.Sqrt((sa2/D - ma*ma) / D)
		sev := math.Sqrt((sv2/D - mv*mv) / D)
		t.Logf("%s: E[A]₀₀ = %.4f ± %.4f (want %.4f), V[A]₀₀ = %.3f ± %.3f (want %.3f)", tc.k.Name(), ma, sea, tc.mean, mv, sev, tc.vr)
		if math.Abs(ma-tc.mean) > 5*sea {
			t.Errorf("%s: E[A]₀₀ = %v ± %v, want %v", tc.k.Name(), ma, sea, tc.mean)
		}
		if math.Abs(mv-tc.vr) > 5*sev {
			t.Errorf("%s: V[A]₀₀ = %v ± %v, want %v", tc.k.Name(), mv, sev, tc.vr)
		}
	}
}

// sumAbsTerms returns Σ_j w_j‖A(ω_j)‖_max·(1 + ‖ω_j‖(‖x‖+‖z‖)), the scale of the rounding error of K̃(x,z).
func sumAbsTerms(m *Map, x, z []float64) float64 {
	var s float64
	for j := 0; j < m.Points(); j++ {
		A, om := pointA(m, j)
		var amax float64
		for _, v := range A {
			amax = max(amax, math.Abs(v))
		}
		s += m.w[j] * amax * (1 + norm2(om)*(norm2(x)+norm2(z)))
	}
	return s + math.Abs(m.zero)
}

// TestEstimateMatchesFeatures: for every kernel kind × rule, K̃(x,z) from Estimate (Σ_j w_j cos(ω_jᵀδ)A(ω_j) + w₀A(0))
// equals Φ̃(x)ᵀΦ̃(z) + Offset()·A from the features, to the rounding error of the sums.
func TestEstimateMatchesFeatures(t *testing.T) {
	rng := newRng(10)
	const d = 4
	for _, k := range testKernels(t, rng, d) {
		for _, r := range allRules(t) {
			m := mustMap(t, k, r, d, 30, 3)
			p, F := m.Outputs(), m.Features()
			x, z := randVec(rng, d, 0.6), randVec(rng, d, 0.6)
			px, err := m.Phi(x)
			if err != nil {
				t.Fatal(err)
			}
			pz, _ := m.Phi(z)
			if r, c := px.Dims(); r != F || c != p {
				t.Fatalf("Phi is %d×%d, want %d×%d", r, c, F, p)
			}
			var G mat.Dense
			G.Mul(px.T(), pz)
			Kt, err := m.Estimate(x, z)
			if err != nil {
				t.Fatal(err)
			}
			tol := float64(8*d*(m.Points()+8)) * eps * sumAbsTerms(m, x, z)
			var A *mat.SymDense
			if k.Kind() == Decomposable {
				A = k.A()
			}
			for a := 0; a < p; a++ {
				for b := 0; b < p; b++ {
					want := G.At(a, b)
					if A != nil {
						want += m.Offset() * A.At(a, b)
					}
					if math.Abs(Kt.At(a, b)-want) > tol {
						t.Errorf("%s/%s: K̃[%d,%d] = %v, features give %v (tol %v)", k.Name(), r.Name(), a, b, Kt.At(a, b), want, tol)
					}
				}
			}
		}
	}
}

// TestDecomposableIdentityIsScalarCopies: with A = I_p the decomposable design matrix is p copies of package
// feature's scalar map for the same kernel, rule and seed — bit for bit: row r·p+a holds z(x_r) in columns f·p+a.
func TestDecomposableIdentityIsScalarCopies(t *testing.T) {
	rng := newRng(11)
	const d, D, p, rows = 5, 24, 3, 7
	eye := mat.NewDiagDense(p, []float64{1, 1, 1})
	x := randVec(rng, rows*d, 0.8)
	for _, k0 := range []kernel.Kernel{kernel.Gaussian{S: 1.3}, kernel.Laplacian{S: 1.3}, kernel.Matern{Nu: 2.5, S: 1.3}} {
		k := mustK(t)(NewDecomposable(k0, eye))
		for _, r := range allRules(t) {
			m := mustMap(t, k, r, d, D, 42)
			fm, err := feature.New(k0, r, d, D, 42)
			if err != nil {
				t.Fatal(err)
			}
			if m.ScalarFeatures() != fm.Features() || m.Features() != p*fm.Features() || m.Offset() != fm.Offset() {
				t.Fatalf("%s/%s: sizes %d/%d, offsets %v/%v", k0.Name(), r.Name(), m.Features(), fm.Features(), m.Offset(), fm.Offset())
			}
			Fs, F := fm.Features(), m.Features()
			zs := make([]float64, rows*Fs)
			fm.TransformBlock(zs, x, rows, nil)
			Z := make([]float64, rows*p*F)
			if err := m.TransformRows(Z, x, rows); err != nil {
				t.Fatal(err)
			}
			sc := make([]float64, rows*Fs)
			m.ScalarBlock(sc, x, rows, nil)
			for i := 0; i < rows; i++ {
				for f := 0; f < Fs; f++ {
					if sc[i*Fs+f] != zs[i*Fs+f] {
						t.Fatalf("%s/%s: ScalarBlock differs from feature.Map", k0.Name(), r.Name())
					}
					for a := 0; a < p; a++ {
						for c := 0; c < p; c++ {
							want := 0.0
							if a == c {
								want = zs[i*Fs+f]
							}
							if got := Z[(i*p+a)*F+f*p+c]; got != want {
								t.Fatalf("%s/%s: row %d output %d feature (%d,%d) = %v, want %v", k0.Name(), r.Name(), i, a, f, c, got, want)
							}
						}
					}
				}
			}
		}
	}
}

// fdBound returns h²/6·M₃ + (2Dp')·ε·M₀/h, the error bound of the central difference [f(x+h e_b) − f(x−h e_b)]/(2h)
// of the model f̃ = Φ̃ᵀθ: M_k = Σ_j √w_j (‖Θ_j‖₁ + ‖Θ_{D+j}‖₁)·max_a‖B_j[a,·]‖_∞·‖ω_j‖_∞^k bounds its k-th
// derivatives and M₀ also the terms whose rounding the difference amplifies.
func fdBound(m *Map, theta []float64, h float64) float64 {
	m.omegaOnce.Do(m.computeOmega)
	n, p, pr := m.n, m.p, m.pr
	var M0, M3 float64
	for j := 0; j < n; j++ {
		var th float64
		for k := 0; k < pr; k++ {
			th += math.Abs(theta[j*pr+k]) + math.Abs(theta[(n+j)*pr+k])
		}
		B := m.bs[j*m.bstride : j*m.bstride+p*pr]
		var bmax, omax float64
		for _, v := range B {
			bmax = max(bmax, math.Abs(v))
		}
		for _, v := range m.omega[j*m.d : (j+1)*m.d] {
			omax = max(omax, math.Abs(v))
		}
		c := m.amp[j] * th * bmax * float64(pr)
		M0 += c
		M3 += c * omax * omax * omax
	}
	return h*h/6*M3 + float64(2*n*pr)*eps*M0/h
}

// TestFieldStructure: for every rule, a curl-free ORFF model f̃(x) = Φ̃(x)ᵀθ with random θ has a symmetric Jacobian
// and a divergence-free one a zero trace, to 1e-8 relative to the Jacobian's size; the analytic Jacobian agrees with
// central finite differences of Predict within their error bound (so the property is the map's, not the formula's).
func TestFieldStructure(t *testing.T) {
	rng := newRng(12)
	const d = 4
	for _, r := range allRules(t) {
		for _, k := range []*Kernel{mustK(t)(NewCurlFree(0.9)), mustK(t)(NewDivFree(0.9)), mustK(t)(NewHelmholtz(0.9, 0.5)),
			mustK(t)(NewDecomposable(kernel.Gaussian{S: 0.9}, randPSD(rng, 3, 3)))} {
			m := mustMap(t, k, r, d, 40, 5)
			p := m.Outputs()
			theta := randVec(rng, m.Features(), 1)
			for trial := 0; trial < 3; trial++ {
				x := randVec(rng, d, 0.7)
				J := make([]float64, p*d)
				if err := m.Jacobian(J, x, theta); err != nil {
					t.Fatal(err)
				}
				var scale float64
				for _, v := range J {
					scale = max(scale, math.Abs(v))
				}
				switch k.Kind() {
				case CurlFree:
					for a := 0; a < d; a++ {
						for b := 0; b < a; b++ {
							if math.Abs(J[a*d+b]-J[b*d+a]) > 1e-8*scale {
								t.Errorf("%s: curl-free Jacobian not symmetric: J[%d,%d]=%v, J[%d,%d]=%v", r.Name(), a, b, J[a*d+b], b, a, J[b*d+a])
							}
						}
					}
				case DivFree:
					var tr float64
					for a := 0; a < d; a++ {
						tr += J[a*d+a]
					}
					if math.Abs(tr) > 1e-8*scale {
						t.Errorf("%s: divergence-free Jacobian has trace %v (scale %v)", r.Name(), tr, scale)
					}
				}
				h := 1e-5
				tol := fdBound(m, theta, h)
				if tol > 1e-4*scale {
					t.Fatalf("%s/%s: finite-difference bound %v too loose for scale %v", k.Name(), r.Name(), tol, scale)
				}
				xs := make([]float64, 2*d)
				f := make([]float64, 2*p)
				for b := 0; b < d; b++ {
					copy(xs[:d], x)
					copy(xs[d:], x)
					xs[b] += h
					xs[d+b] -= h
					if err := m.Predict(f, xs, 2, theta); err != nil {
						t.Fatal(err)
					}
					for a := 0; a < p; a++ {
						fd := (f[a] - f[p+a]) / (2 * h)
						if math.Abs(fd-J[a*d+b]) > tol {
							t.Errorf("%s/%s: J[%d,%d] = %v, finite differences %v (bound %v)", k.Name(), r.Name(), a, b, J[a*d+b], fd, tol)
						}
					}
				}
			}
		}
	}
}

// TestPredictAdjoint: Predict = design·θ and Adjoint = designᵀ·y (plus what dst held), for every kind, to the
// rounding error of the sums; serial and parallel design matrices are bit-identical.
func TestPredictAdjoint(t *testing.T) {
	rng := newRng(13)
	const d, rows = 3, 150 // more than two blocks
	for _, k := range testKernels(t, rng, d) {
		for _, r := range []rule.Rule{rule.G{}, rule.SR{Rotation: rule.Butterfly}, rule.SORF{}} {
			m := mustMap(t, k, r, d, 12, 9)
			p, F := m.Outputs(), m.Features()
			x := randVec(rng, rows*d, 1)
			Z := make([]float64, rows*p*F)
			if err := m.TransformRows(Z, x, rows); err != nil {
				t.Fatal(err)
			}
			Zs := make([]float64, rows*p*F)
			m.TransformBlock(Zs, x, rows, nil)
			for i := range Z {
				if Z[i] != Zs[i] {
					t.Fatalf("%s/%s: parallel and serial features differ", k.Name(), r.Name())
				}
			}
			var zmax float64
			for _, v := range Z {
				zmax = max(zmax, math.Abs(v))
			}
			theta := randVec(rng, F, 1)
			pred := make([]float64, rows*p)
			if err := m.Predict(pred, x, rows, theta); err != nil {
				t.Fatal(err)
			}
			var tmax float64
			for _, v := range theta {
				tmax = max(tmax, math.Abs(v))
			}
			tol := 4 * float64(F) * eps * zmax * tmax * float64(F)
			for i := 0; i < rows*p; i++ {
				var want float64
				for f := 0; f < F; f++ {
					want += Z[i*F+f] * theta[f]
				}
				if math.Abs(pred[i]-want) > tol {
					t.Fatalf("%s/%s: Predict[%d] = %v, design·θ = %v", k.Name(), r.Name(), i, pred[i], want)
				}
			}
			y := randVec(rng, rows*p, 1)
			g := make([]float64, F)
			g[0] = 1 // Adjoint adds to dst
			if err := m.Adjoint(g, x, rows, y); err != nil {
				t.Fatal(err)
			}
			var ymax float64
			for _, v := range y {
				ymax = max(ymax, math.Abs(v))
			}
			tol = 4 * float64(rows*p) * eps * zmax * ymax * float64(rows*p)
			for f := 0; f < F; f++ {
				want := 0.0
				if f == 0 {
					want = 1
				}
				for i := 0; i < rows*p; i++ {
					want += Z[i*F+f] * y[i]
				}
				if math.Abs(g[f]-want) > tol {
					t.Fatalf("%s/%s: Adjoint[%d] = %v, designᵀ·y = %v", k.Name(), r.Name(), f, g[f], want)
				}
			}
		}
	}
}

// TestZeroNode: an SR rule's zero node is the constant offset w₀·A for a decomposable kernel and nothing for
// curl/div-free kernels (A(0) = 0); at δ = 0 the decomposable estimate is exactly (Σ_j w_j + w₀)·A = A.
func TestZeroNode(t *testing.T) {
	rng := newRng(14)
	const d = 3
	A := randPSD(rng, 2, 2)
	dec := mustK(t)(NewDecomposable(kernel.Gaussian{S: 1}, A))
	sr := rule.SR{Rotation: rule.Haar}
	m := mustMap(t, dec, sr, d, 8, 2) // 2 rules of d+1 points
	if m.Points() != 8 || m.Offset() == 0 {
		t.Fatalf("SR map: %d points, offset %v", m.Points(), m.Offset())
	}
	pts, _ := sr.Draw(d, 8, true, feature.NewSource(2))
	if m.Offset() != pts.Zero() {
		t.Errorf("offset %v, rule's zero weight %v", m.Offset(), pts.Zero())
	}
	x := randVec(rng, d, 1)
	K, _ := m.Estimate(x, x)
	for a := 0; a < 2; a++ {
		for b := 0; b < 2; b++ {
			if math.Abs(K.At(a, b)-A.At(a, b)) > 32*eps*mat.Norm(A, 2) {
				t.Errorf("K̃(x,x)[%d,%d] = %v, want A = %v", a, b, K.At(a, b), A.At(a, b))
			}
		}
	}
	for _, k := range []*Kernel{mustK(t)(NewCurlFree(1)), mustK(t)(NewDivFree(1))} {
		if off := mustMap(t, k, sr, d, 8, 2).Offset(); off != 0 {
			t.Errorf("%s: offset %v, want 0", k.Name(), off)
		}
	}
}

// TestShapes: p, p', D and F for each kind, including SR rounding.
func TestShapes(t *testing.T) {
	rng := newRng(15)
	for _, tc := range []struct {
		k             *Kernel
		r             rule.Rule
		d, D          int
		p, pr, points int
	}{
		{mustK(t)(NewCurlFree(1)), rule.G{}, 5, 10, 5, 1, 10},
		{mustK(t)(NewDivFree(1)), rule.G{}, 5, 10, 5, 4, 10},
		{mustK(t)(NewHelmholtz(1, 0.5)), rule.ORF{}, 5, 10, 5, 5, 10},
		{mustK(t)(NewDecomposable(kernel.Gaussian{S: 1}, randPSD(rng, 4, 2))), rule.G{}, 7, 10, 4, 2, 10},
		{mustK(t)(NewCurlFree(1)), rule.SR{}, 4, 11, 4, 1, 15},
	} {
		m := mustMap(t, tc.k, tc.r, tc.d, tc.D, 1)
		if m.Outputs() != tc.p || m.Rank() != tc.pr || m.Points() != tc.points || m.Features() != 2*tc.points*tc.pr ||
			m.Dim() != tc.d || m.ScalarFeatures() != 2*tc.points {
			t.Errorf("%s/%s: p=%d p'=%d D=%d F=%d", tc.k.Name(), tc.r.Name(), m.Outputs(), m.Rank(), m.Points(), m.Features())
		}
		if m.Kernel() != tc.k || m.Rule() != tc.r || m.Seed() != 1 {
			t.Error("accessors")
		}
		var dst mat.Dense
		if err := m.Transform(&dst, mat.NewDense(3, tc.d, randVec(rng, 3*tc.d, 1))); err != nil {
			t.Fatal(err)
		}
		if r, c := dst.Dims(); r != 3*tc.p || c != m.Features() {
			t.Errorf("Transform gave %d×%d", r, c)
		}
	}
}

func TestDeterministic(t *testing.T) {
	rng := newRng(16)
	const d, rows = 4, 20
	x := randVec(rng, rows*d, 1)
	k := mustK(t)(NewDivFree(0.5))
	for _, r := range allRules(t) {
		a, b, c := mustMap(t, k, r, d, 16, 7), mustMap(t, k, r, d, 16, 7), mustMap(t, k, r, d, 16, 8)
		za := make([]float64, rows*d*a.Features())
		zb := make([]float64, len(za))
		zc := make([]float64, len(za))
		_ = a.TransformRows(za, x, rows)
		_ = b.TransformRows(zb, x, rows)
		_ = c.TransformRows(zc, x, rows)
		same, diff := true, false
		for i := range za {
			same = same && za[i] == zb[i]
			diff = diff || za[i] != zc[i]
		}
		if !same || !diff {
			t.Errorf("%s: same seed identical %v, other seed different %v", r.Name(), same, diff)
		}
	}
}

func TestMapErrors(t *testing.T) {
	curl := mustK(t)(NewCurlFree(1))
	m := mustMap(t, curl, rule.G{}, 3, 5, 1)
	F := m.Features()
	misusetest.Check(t, []misuse{
		{"nil kernel", func() error { _, err := New(nil, rule.G{}, 3, 5, 1); return err }, "required"},
		{"nil rule", func() error { _, err := New(curl, nil, 3, 5, 1); return err }, "required"},
		{"d=0", func() error { _, err := New(curl, rule.G{}, 0, 5, 1); return err }, "dimension"},
		{"D=0", func() error { _, err := New(curl, rule.G{}, 3, 0, 1); return err }, "points"},
		{"arc-cos k0", func() error {
			k := mustK(t)(NewDecomposable(kernel.ArcCos{Order: 1}, mat.NewDiagDense(2, []float64{1, 1})))
			_, err := New(k, rule.G{}, 3, 5, 1)
			return err
		}, "spectral"},
		{"rows length", func() error { return m.TransformRows(make([]float64, 3*F), make([]float64, 5), 2) }, "input"},
		{"dst length", func() error { return m.TransformRows(make([]float64, 5), make([]float64, 3), 1) }, "output"},
		{"NaN", func() error { return m.TransformRows(make([]float64, 3*F), []float64{1, math.NaN(), 0}, 1) }, "NaN"},
		{"θ length", func() error { return m.Predict(make([]float64, 3), make([]float64, 3), 1, make([]float64, F-1)) }, "θ"},
		{"pred length", func() error { return m.Predict(make([]float64, 2), make([]float64, 3), 1, make([]float64, F)) }, "prediction"},
		{"adjoint dst", func() error { return m.Adjoint(make([]float64, F+1), make([]float64, 3), 1, make([]float64, 3)) }, "destination"},
		{"adjoint y", func() error { return m.Adjoint(make([]float64, F), make([]float64, 3), 1, make([]float64, 2)) }, "y has"},
		{"jacobian", func() error { return m.Jacobian(make([]float64, 8), make([]float64, 3), make([]float64, F)) }, "Jacobian"},
		{"estimate", func() error { _, err := m.Estimate(make([]float64, 3), make([]float64, 2)); return err }, "input"},
		{"transform width", func() error { return m.Transform(&mat.Dense{}, mat.NewDense(2, 4, nil)) }, "columns"},
		{"sup pairs", func() error { _, err := SupError(m, nil, nil, 0); return err }, "pair"},
		{"sup length", func() error { _, err := SupError(m, make([]float64, 6), make([]float64, 3), 2); return err }, "input"},
		{"variance seeds", func() error {
			_, err := VarianceNorm(curl, rule.G{}, 3, 5, make([]float64, 3), make([]float64, 3), nil)
			return err
		}, "seeds"},
		{"variance dims", func() error {
			_, err := VarianceNorm(curl, rule.G{}, 3, 5, make([]float64, 2), make([]float64, 3), []uint64{1})
			return err
		}, "coordinates"},
	})
}

// TestPredictOneRowScratch: a single row's prediction allocates scratch for one row, not for a block of blockRows
// rows (for D = 2048 points that was 1 MiB per call, the bulk of a served request's garbage).
func TestPredictOneRowScratch(t *testing.T) {
	rng := newRng(21)
	const d, D = 3, 2048
	k := testKernels(t, rng, d)[0]
	m := mustMap(t, k, rule.G{}, d, D, 4)
	theta := randVec(rng, m.Features(), 1)
	x := randVec(rng, d, 1)
	dst := make([]float64, m.Outputs())
	if err := m.Predict(dst, x, 1, theta); err != nil {
		t.Fatal(err)
	}
	const calls = 20
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	for range calls {
		if err := m.Predict(dst, x, 1, theta); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&b)
	// One row: its projections (n values), its features (2n) and the output scratch, plus small change.
	n := m.Points()
	if per, bound := (b.TotalAlloc-a.TotalAlloc)/calls, uint64(8*(3*n+m.Outputs()*8)+4096); per > bound {
		t.Errorf("one row allocates %d bytes per call, want at most %d (%d points)", per, bound, n)
	}
}
