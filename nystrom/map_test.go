package nystrom

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
)

// features maps X through m.
func features(t testing.TB, m *Map, X []float64, n int) []float64 {
	t.Helper()
	Z := make([]float64, n*m.Features())
	if err := m.TransformRows(Z, X, n); err != nil {
		t.Fatal(err)
	}
	return Z
}

// approxGram returns ΨΨᵀ for the n×F features Z.
func approxGram(Z []float64, n, F int) []float64 {
	G := make([]float64, n*n)
	for i := range n {
		for j := range n {
			var s float64
			for c := range F {
				s += Z[i*F+c] * Z[j*F+c]
			}
			G[i*n+j] = s
		}
	}
	return G
}

// exactnessTol bounds |ΨΨᵀ − K| entrywise when the landmarks are all the rows and nothing is dropped. The computed
// eigendecomposition or Cholesky factorization is that of K + E with ‖E‖ ≤ c·M·u·λ_max (backward stability), and
// ΨΨᵀ = K(K + E)⁻¹K = K + E − 2E + E(K + E)⁻¹E: a first-order term of size ‖E‖, a second-order one ‖E‖²/λ_min;
// forming Ψ = K_NM·UΛ^{-1/2} adds M·u·λ_max again (its error in direction j is scaled by λ_j^{-1/2} and multiplied by
// ψ's λ_j^{1/2}). In the Cholesky basis Ψ = K_NM·U⁻¹ with the computed inverse X = U⁻¹(I + F), ‖F‖ ≤ c·M·u·κ(U)
// (Higham, Accuracy and Stability of Numerical Algorithms, §14.2), κ(U) = (λ_max/λ_min)^{1/2}, and ‖K_NM·U⁻¹‖² =
// λ_max: 2·M·u·λ_max·κ(U) more. kernel.Gram itself is within 4e-13 of the pairwise kernel (its documented bound for
// the matrix-product path), once in K_NM and once in K.
func exactnessTol(b Basis, M int, lmax, lmin float64) float64 {
	e := float64(M) * u * lmax
	tol := 4*e + 4*e*e/lmin + 8e-13
	if b == Cholesky {
		tol += 4 * e * math.Sqrt(lmax/lmin)
	}
	return tol
}

// spectrum returns the eigenvalues of the symmetric n×n matrix K, decreasing.
func spectrum(t testing.TB, K []float64, n int) []float64 {
	t.Helper()
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, append([]float64(nil), K[:n*n]...)), false) {
		t.Fatal("eigenvalues")
	}
	v := es.Values(nil)
	slices.Reverse(v)
	return v
}

// bases are the bases every map test runs in.
var bases = []Basis{Cholesky, Eigen}

// With every row as a landmark and no eigenvalue dropped, ΨΨᵀ is K to rounding, for every kernel, on both Gram
// paths (the pairwise loop at d = 3, the matrix product at d = 10), in both bases.
func TestExactWhenLandmarksAreAllRows(t *testing.T) {
	for _, b := range bases {
		t.Run(b.String(), func(t *testing.T) {
			for _, d := range []int{3, 10} {
				n := 80
				X, _ := uniformData(n, d, 1, 1)
				for _, k := range allKernels(t, 0.4*math.Sqrt(float64(d))) {
					m, err := FromLandmarks(k, X, n, d, WithBasis(b))
					if err != nil {
						t.Fatal(err)
					}
					if m.Features() != n || m.Centres() != n || m.Basis() != b {
						t.Fatalf("%s d=%d: %d features of %d landmarks in the %s basis, want all (something was dropped)", k.Name(), d, m.Features(), m.Centres(), m.Basis())
					}
					G := approxGram(features(t, m, X, n), n, n)
					K := gram(t, k, X, n, X, n, d)
					e := spectrum(t, K, n)
					tol := exactnessTol(b, n, e[0], e[n-1])
					worst := 0.0
					for i := range G {
						worst = max(worst, math.Abs(G[i]-K[i]))
					}
					if worst > tol {
						t.Errorf("%s d=%d: max |ΨΨᵀ − K| = %.3g > %.3g (λ_max %.3g, λ_min %.3g)", k.Name(), d, worst, tol, e[0], e[n-1])
					}
				}
			}
		})
	}
}

// Repeated landmarks make K_MM singular: the eigen basis drops the null directions and reports M' < M features, the
// Cholesky basis drops the repeated landmarks (its pivots stop at the 30 distinct ones); both are still exact on the
// rows the landmarks span.
func TestRankDeficientLandmarks(t *testing.T) {
	n, d := 30, 3
	X, _ := uniformData(n, d, 1, 2)
	L := append(append([]float64(nil), X...), X[:10*d]...) // 40 landmarks, 30 distinct
	for _, b := range bases {
		for _, k := range []kernel.Kernel{kernel.Gaussian{S: 0.5}, kernel.Matern{Nu: 1.5, S: 0.5}, kernel.ArcCos{Order: 1}} {
			m, err := FromLandmarks(k, L, 40, d, WithBasis(b))
			if err != nil {
				t.Fatal(err)
			}
			wantM := 40
			if b == Cholesky {
				wantM = 30
			}
			if m.Centres() != wantM || m.Features() != 30 {
				t.Fatalf("%s %s: %d features of %d landmarks, want 30 of %d", b, k.Name(), m.Features(), m.Centres(), wantM)
			}
			if b == Cholesky {
				kept := m.Landmarks()
				for i := range 30 {
					for j := range i {
						if slices.Equal(kept[i*d:(i+1)*d], kept[j*d:(j+1)*d]) {
							t.Fatalf("%s: landmarks %d and %d kept are the same point", k.Name(), j, i)
						}
					}
				}
			}
			G := approxGram(features(t, m, X, n), n, 30)
			K := gram(t, k, X, n, X, n, d)
			e := spectrum(t, K, n)
			// The dropped eigenvalues or pivots are rounding (≤ c·M·u·λ_max); each changes an entry by at most its
			// size.
			tol := exactnessTol(b, 40, e[0], e[len(e)-1]) + DefaultThreshold*e[0]
			worst := 0.0
			for i := range G {
				worst = max(worst, math.Abs(G[i]-K[i]))
			}
			if worst > tol {
				t.Errorf("%s %s: max |ΨΨᵀ − K| = %.3g > %.3g", b, k.Name(), worst, tol)
			}
		}
	}
}

// A coarse threshold drops eigenvalues: then K − ΨΨᵀ = Σ_dropped λ_j u_j u_jᵀ, whose trace is the sum of the dropped
// eigenvalues and whose entries are at most the largest of them.
func TestThresholdDropsEigenvalues(t *testing.T) {
	n, d := 60, 2
	X, _ := uniformData(n, d, 1, 3)
	k := kernel.Gaussian{S: 0.5}
	const thr = 1e-4
	m, err := FromLandmarks(k, X, n, d, WithThreshold(thr), WithBasis(Eigen))
	if err != nil {
		t.Fatal(err)
	}
	K := gram(t, k, X, n, X, n, d)
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, append([]float64(nil), K...)), false) {
		t.Fatal("eigenvalues")
	}
	vals := es.Values(nil)
	var dropped, largest float64
	kept := 0
	for _, v := range vals {
		if v > thr*vals[n-1] {
			kept++
		} else {
			dropped += v
			largest = max(largest, v)
		}
	}
	if m.Features() != kept || kept == n {
		t.Fatalf("%d features, want %d of %d", m.Features(), kept, n)
	}
	G := approxGram(features(t, m, X, n), n, kept)
	var tr float64
	worst := 0.0
	for i := range n {
		tr += K[i*n+i] - G[i*n+i]
		for j := range n {
			worst = max(worst, math.Abs(K[i*n+j]-G[i*n+j]))
		}
	}
	tol := exactnessTol(Eigen, n, vals[n-1], vals[n-kept])
	if math.Abs(tr-dropped) > float64(n)*tol {
		t.Errorf("tr(K − ΨΨᵀ) = %.6g, the dropped eigenvalues sum to %.6g", tr, dropped)
	}
	if worst > largest+tol {
		t.Errorf("max |K − ΨΨᵀ| = %.3g > the largest dropped eigenvalue %.3g", worst, largest)
	}
}

// In the Cholesky basis a coarse threshold drops landmarks: K − ΨΨᵀ is then the Schur complement of the kept
// landmarks, positive semi-definite, zero on the kept landmarks and at most the threshold times the largest k(c, c) on
// the dropped ones — so at most that anywhere (|R_ij| ≤ (R_ii R_jj)^{1/2}); the pivots decrease.
func TestThresholdDropsPivots(t *testing.T) {
	n, d := 60, 2
	X, _ := uniformData(n, d, 1, 3)
	k := kernel.Gaussian{S: 0.5}
	const thr = 1e-4
	m, err := FromLandmarks(k, X, n, d, WithThreshold(thr))
	if err != nil {
		t.Fatal(err)
	}
	F := m.Features()
	if F == n || F != m.Centres() || F != len(m.Pivots()) || m.Eigenvalues() != nil {
		t.Fatalf("%d features, %d landmarks, %d pivots of %d rows", F, m.Centres(), len(m.Pivots()), n)
	}
	K := gram(t, k, X, n, X, n, d)
	kept := m.Landmarks()
	// The rounding of ΨΨᵀ is that of the factorization of the kept landmarks' K_SS (exactnessTol with its
	// spectrum).
	e := spectrum(t, gram(t, k, kept, F, kept, F, d), F)
	tol := exactnessTol(Cholesky, F, e[0], e[F-1])
	G := approxGram(features(t, m, X, n), n, F)
	worst := 0.0
	for i := range n {
		isKept := false
		for j := range F {
			isKept = isKept || slices.Equal(kept[j*d:(j+1)*d], X[i*d:(i+1)*d])
		}
		r := K[i*n+i] - G[i*n+i]
		if r < -tol || (isKept && r > tol) || r > thr+tol {
			t.Errorf("row %d (kept %v): residual k(x, x) − ‖ψ(x)‖² = %.3g, want in [0, %g] (0 if kept)", i, isKept, r, thr)
		}
		for j := range n {
			worst = max(worst, math.Abs(K[i*n+j]-G[i*n+j]))
		}
	}
	if worst > thr+tol {
		t.Errorf("max |K − ΨΨᵀ| = %.3g > the threshold %g", worst, thr)
	}
	piv := m.Pivots()
	for j := 1; j < F; j++ {
		if piv[j] > piv[j-1]*(1+1e-9) {
			t.Errorf("pivot %d (%.6g) exceeds pivot %d (%.6g)", j, piv[j], j-1, piv[j-1])
		}
	}
	if piv[F-1] <= thr {
		t.Errorf("the last pivot kept is %.3g, at most the threshold %g", piv[F-1], thr)
	}
}

// Ridge regression on Nyström features (learn.Accumulate + learn.Ridge) gives the predictions of the direct solve of
// the restricted kernel ridge regression problem, with and without intercept, for every kernel.
func TestNystromRidgeIsRestrictedKRR(t *testing.T) {
	n, d, p, M, nt := 300, 4, 2, 40, 50
	X, Y := uniformData(n, d, p, 4)
	Xt, _ := uniformData(nt, d, 1, 5)
	for _, b := range bases {
		for _, k := range allKernels(t, 0.8) {
			for _, intercept := range []bool{false, true} {
				const lambda = 1e-4
				m, err := New(k, Uniform{}, X, n, d, M, 7, WithBasis(b))
				if err != nil {
					t.Fatal(err)
				}
				if m.Features() != M || m.Centres() != M {
					t.Fatalf("%s %s: %d features of %d landmarks", b, k.Name(), m.Features(), m.Centres())
				}
				st, err := learn.Accumulate(m, X, n, Y, p)
				if err != nil {
					t.Fatal(err)
				}
				fit, err := learn.Ridge{Lambda: lambda, Intercept: intercept}.Solve(st)
				if err != nil {
					t.Fatal(err)
				}
				got := make([]float64, nt*p)
				if err := m.Predict(got, fit, Xt, nt); err != nil {
					t.Fatal(err)
				}
				want, cond := directKRR(t, k, m.Landmarks(), M, d, X, n, Y, p, lambda, intercept, Xt, nt)
				// Both solves are backward stable on systems with condition number cond (the ridge one on a system
				// congruent to it by Normᵀ, which K_MM's conditioning bounds): forward errors ≤ c·M·u·cond each.
				e := spectrum(t, gram(t, k, m.Landmarks(), M, m.Landmarks(), M, d), M)
				tol := 4 * float64(M) * u * (cond + e[0]/e[len(e)-1])
				if r := relDiff(got, want); r > tol || math.IsNaN(r) {
					t.Errorf("%s %s intercept=%v: relative difference %.3g > %.3g (cond %.3g)", b, k.Name(), intercept, r, tol, cond)
				}
			}
		}
	}
}

// The same seed gives the same map (bit for bit), concurrent transforms agree with a sequential one, and the explicit
// parameters rebuild the map exactly.
func TestDeterminismConcurrencyParams(t *testing.T) {
	n, d, M := 500, 5, 30
	X, _ := uniformData(n, d, 1, 6)
	k := kernel.Gaussian{S: 1}
	for _, b := range bases {
		for _, s := range []Selector{Uniform{}, KMeansPP{}, Leverage{}} {
			a, err := New(k, s, X, n, d, M, 11, WithBasis(b))
			if err != nil {
				t.Fatal(err)
			}
			a2, err := New(k, s, X, n, d, M, 11, WithBasis(b))
			if err != nil {
				t.Fatal(err)
			}
			pa, pb := a.Params(), a2.Params()
			if !slices.Equal(pa.Landmarks, pb.Landmarks) || !slices.Equal(pa.Norm, pb.Norm) {
				t.Errorf("%s %s: the same seed gave different maps", b, s.Name())
			}
			c, err := New(k, s, X, n, d, M, 12, WithBasis(b))
			if err != nil {
				t.Fatal(err)
			}
			if slices.Equal(c.Params().Landmarks, pa.Landmarks) {
				t.Errorf("%s: seeds 11 and 12 gave the same landmarks", s.Name())
			}
			want := features(t, a, X, n)
			var wg sync.WaitGroup
			errs := make([]bool, 8)
			for g := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					z := make([]float64, n*a.Features())
					if err := a.TransformRows(z, X, n); err != nil || !slices.Equal(z, want) {
						errs[g] = true
					}
				}()
			}
			wg.Wait()
			if slices.Contains(errs, true) {
				t.Errorf("%s: concurrent TransformRows calls differ from a sequential one", s.Name())
			}
			// Blocks of other sizes sum the M terms of each feature in another order (another matrix-product kernel):
			// the same features to within 2·M·u·Σ_j |k(c_j, x)|·|N_jc|.
			F, M := a.Features(), a.Centres()
			z := make([]float64, 7*F)
			for r0 := 0; r0+7 <= n; r0 += 37 {
				a.TransformBlock(z, X[r0*d:(r0+7)*d], 7, nil)
				kx := gram(t, k, X[r0*d:(r0+7)*d], 7, a.landmarks, M, d)
				for i := range 7 {
					for c := range F {
						var bound float64
						for j := range M {
							bound += math.Abs(kx[i*M+j] * a.norm[j*F+c])
						}
						if diff := math.Abs(z[i*F+c] - want[(r0+i)*F+c]); diff > 2*float64(M)*u*bound {
							t.Fatalf("%s: row %d feature %d: a block of 7 rows gives %.17g, TransformRows %.17g", s.Name(), r0+i, c, z[i*F+c], want[(r0+i)*F+c])
						}
					}
				}
			}
			r, err := FromParams(k, pa)
			if err != nil {
				t.Fatal(err)
			}
			if got := features(t, r, X, n); !slices.Equal(got, want) {
				t.Errorf("%s: the map rebuilt from its parameters computes other features", s.Name())
			}
			// Share: the same features from the caller's own slices, which the map keeps instead of copying.
			shared := pa
			shared.Share = true
			rs, err := FromParams(k, shared)
			if err != nil {
				t.Fatal(err)
			}
			if got := features(t, rs, X, n); !slices.Equal(got, want) {
				t.Errorf("%s: the map rebuilt from shared parameters computes other features", s.Name())
			}
			if &rs.landmarks[0] != &pa.Landmarks[0] || &rs.norm[0] != &pa.Norm[0] || &r.landmarks[0] == &pa.Landmarks[0] || &r.norm[0] == &pa.Norm[0] {
				t.Errorf("%s: Share = true must keep the slices, false copy them", s.Name())
			}
			if r.Selection() != s.Name() || r.Seed() != 11 || r.Features() != a.Features() || r.Basis() != b {
				t.Errorf("%s: rebuilt map reports %q, seed %d, %d features, basis %s", s.Name(), r.Selection(), r.Seed(), r.Features(), r.Basis())
			}
		}
	}
}

// FromParams refuses parameters that do not describe a map, or that belong to another kernel or bandwidth.
func TestFromParamsRefuses(t *testing.T) {
	n, d, M := 200, 3, 20
	X, _ := uniformData(n, d, 1, 8)
	k := kernel.Gaussian{S: 0.7}
	for _, b := range bases {
		m, err := New(k, Uniform{}, X, n, d, M, 1, WithBasis(b))
		if err != nil {
			t.Fatal(err)
		}
		good := m.Params()
		for name, k2 := range map[string]kernel.Kernel{
			"bandwidth 1% wider": kernel.Gaussian{S: 0.707}, "laplacian": kernel.Laplacian{S: 0.7}, "arccos1": kernel.ArcCos{Order: 1},
		} {
			if _, err := FromParams(k2, good); err == nil {
				t.Errorf("%s: FromParams accepted the parameters of a Gaussian map for %s", b, name)
			}
		}
		bad := map[string]func(p *Params){
			"zero":            func(p *Params) { *p = Params{} },
			"short landmarks": func(p *Params) { p.Landmarks = p.Landmarks[1:] },
			"short norm":      func(p *Params) { p.Norm = p.Norm[:len(p.Norm)-1] },
			"M' > M":          func(p *Params) { p.Features = p.Centres + 1 },
			"NaN landmark":    func(p *Params) { p.Landmarks[3] = math.NaN() },
			"Inf in norm":     func(p *Params) { p.Norm[5] = math.Inf(1) },
			"threshold 1":     func(p *Params) { p.Threshold = 1 },
			"scaled norm":     func(p *Params) { p.Norm[0] *= 2 },
			"unknown basis":   func(p *Params) { p.Basis = "qr" },
		}
		if b == Eigen {
			bad["eigenvalue order"] = func(p *Params) { p.Eigenvalues[0], p.Eigenvalues[1] = p.Eigenvalues[1], p.Eigenvalues[0] }
			bad["pivots"] = func(p *Params) { p.Pivots = []float64{1} }
			bad["cholesky basis"] = func(p *Params) { p.Basis = "cholesky" }
		} else {
			bad["below the diagonal"] = func(p *Params) { p.Norm[M] = 1e-300 }
			bad["negative diagonal"] = func(p *Params) { p.Norm[M+1] *= -1 }
			bad["zero pivot"] = func(p *Params) { p.Pivots[3] = 0 }
			bad["eigenvalues"] = func(p *Params) { p.Eigenvalues = p.Pivots }
			bad["old file"] = func(p *Params) { p.Basis = "" }
		}
		for name, f := range bad {
			p := m.Params()
			f(&p)
			if _, err := FromParams(k, p); err == nil {
				t.Errorf("%s: FromParams accepted parameters with %s", b, name)
			}
		}
		if _, err := FromParams(k, good); err != nil {
			t.Errorf("%s: FromParams refused the map's own parameters: %v", b, err)
		}
	}
	var nilMap *Map
	if p := nilMap.Params(); p.Centres != 0 || p.Landmarks != nil {
		t.Error("a nil map has non-zero parameters")
	}
}

// TestGradientFiniteDifferences: the derivatives of Nyström features of the Gaussian kernel match central
// differences. ψ_c(x) = Σ_l N_lc·k(x, c_l) with N = U_rΛ_r^{-1/2}; along a coordinate the Gaussian kernel's third
// derivative is at most c₃/σ³, c₃ = max_t |t³ − 3t|·e^{−t²/2} < 1.39, so the central difference with step h is off
// by at most h²/6·S_c·c₃/σ³ (S_c = Σ_l |N_lc|), and the rounding of ψ — kernel.Gram's 4e-13 and the M-term sums —
// adds (M·u + 4e-13)·S_c/h to the difference and M·u·S_c/σ to the analytic derivative. The Laplacian kernel, not
// differentiable where x meets a landmark, is refused.
func TestGradientFiniteDifferences(t *testing.T) {
	const n, d, M, sigma, h = 7, 3, 20, 0.7, 1e-4
	X, _ := uniformData(M+n, d, 1, 4)
	m, err := FromLandmarks(kernel.Gaussian{S: sigma}, X[:M*d], M, d)
	if err != nil {
		t.Fatal(err)
	}
	F := m.Features()
	pts := X[M*d:]
	got := make([]float64, n*d*F)
	if err := m.Gradient(got, pts, n); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		for j := range d {
			xp := slices.Clone(pts[i*d : (i+1)*d])
			xm := slices.Clone(xp)
			xp[j] += h
			xm[j] -= h
			zp, zm := features(t, m, xp, 1), features(t, m, xm, 1)
			for c := range F {
				var S float64
				for l := range m.Centres() {
					S += math.Abs(m.norm[l*F+c])
				}
				tol := S * (h*h/6*1.39/(sigma*sigma*sigma) + (M*u+4e-13)/h + M*u/sigma)
				fd := (zp[c] - zm[c]) / (2 * h)
				if g := got[(i*d+j)*F+c]; !(math.Abs(g-fd) <= tol) {
					t.Errorf("row %d, ∂/∂x_%d of feature %d: %.12g, central difference %.12g (tolerance %.3g)", i, j, c, g, fd, tol)
				}
			}
		}
	}
	lap, err := FromLandmarks(kernel.Laplacian{S: sigma}, X[:M*d], M, d)
	if err != nil {
		t.Fatal(err)
	}
	if err := lap.Gradient(make([]float64, d*lap.Features()), pts[:d], 1); err == nil {
		t.Error("the Laplacian kernel's Nyström features were differentiated")
	}
	if err := m.Gradient(make([]float64, 1), pts, n); err == nil {
		t.Error("a short dst was accepted")
	}
}

// TestPointsScratch checks Points, the projection scratch per row that TransformBlock needs and the row loops
// allocate: the M kernel values in the eigen basis, none in the Cholesky basis, which forms them in its output; and
// that TransformBlock with no scratch gives the features of TransformRows in both bases.
func TestPointsScratch(t *testing.T) {
	X, _ := uniformData(60, 2, 1, 1)
	k := kernel.Gaussian{S: 0.5}
	for _, c := range []struct {
		basis Basis
		want  int
	}{{Cholesky, 0}, {Eigen, 10}} {
		m, err := New(k, Uniform{}, X, 60, 2, 10, 1, WithBasis(c.basis))
		if err != nil {
			t.Fatal(err)
		}
		if m.Points() != c.want {
			t.Errorf("%v: Points() = %d, want %d", c.basis, m.Points(), c.want)
		}
		const rows = 7
		z, ref := make([]float64, rows*m.Features()), make([]float64, rows*m.Features())
		m.TransformBlock(z, X[:rows*2], rows, nil)
		if err := m.TransformRows(ref, X[:rows*2], rows); err != nil {
			t.Fatal(err)
		}
		for i := range z {
			if z[i] != ref[i] {
				t.Fatalf("%v: TransformBlock without scratch: feature %d = %v, TransformRows %v", c.basis, i, z[i], ref[i])
			}
		}
	}
}

// TestGradientCost: a row's gradient takes the kernel's derivatives in O(d) per landmark (kernel.Gradient), so it
// allocates its d×M derivatives once per goroutine and nothing per landmark (d·M calls of kernel.Deriv allocated
// O(d) each: 40 MB for this map, and O(d²·M) time).
func TestGradientCost(t *testing.T) {
	const d, M = 100, 200
	X, _ := uniformData(M+1, d, 1, 9)
	for _, k := range []kernel.Kernel{kernel.Gaussian{S: 3}, kernel.Cauchy{S: 3}, kernel.Matern{Nu: 2.5, S: 3}} {
		m, err := FromLandmarks(k, X[:M*d], M, d)
		if err != nil {
			t.Fatal(err)
		}
		F := m.Features()
		dst := make([]float64, d*F)
		x := X[M*d:]
		if err := m.Gradient(dst, x, 1); err != nil {
			t.Fatal(err)
		}
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		if err := m.Gradient(dst, x, 1); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&b)
		bound := uint64(8*(d*M+d)) + uint64(linalg.GemmSerialBytes(d, F, M)) + 16<<10
		if got := b.TotalAlloc - a.TotalAlloc; got > bound {
			t.Errorf("%s: one row's gradient allocated %d bytes, want at most %d", k.Name(), got, bound)
		}
	}
}

// TestGradientProduct: GradientProduct is Gradient's derivative features times θ — the same sums over landmarks and
// features in another order, so within (M + F + 8)·2⁻⁵² of the sum of the terms' magnitudes S =
// Σ_l |∂k(x, c_l)/∂x_j|·Σ_c |N_lc|·|θ_ca| — for one and three outputs and three kernels; a row alone has the bits it
// has among others; θ of the wrong shape and a kernel without derivatives are refused.
func TestGradientProduct(t *testing.T) {
	const n, d, M = 9, 4, 30
	X, _ := uniformData(M+n, d, 1, 5)
	pts := X[M*d:]
	for _, k := range []kernel.Kernel{kernel.Gaussian{S: 0.8}, kernel.Cauchy{S: 1.1}, kernel.Matern{Nu: 1.5, S: 0.9}} {
		m, err := FromLandmarks(k, X[:M*d], M, d)
		if err != nil {
			t.Fatal(err)
		}
		F := m.Features()
		for _, P := range []int{1, 3} {
			theta := make([]float64, F*P)
			for i := range theta {
				theta[i] = math.Sin(float64(7*i + P))
			}
			got := make([]float64, n*d*P)
			if err := m.GradientProduct(got, pts, n, theta, P); err != nil {
				t.Fatal(err)
			}
			dz := make([]float64, n*d*F)
			if err := m.Gradient(dz, pts, n); err != nil {
				t.Fatal(err)
			}
			gl := make([]float64, d)
			for i := range n {
				for j := range d {
					for a := range P {
						var want, S float64
						for c := range F {
							want += dz[(i*d+j)*F+c] * theta[c*P+a]
						}
						for l := range m.Centres() {
							if err := kernel.Gradient(k, gl, pts[i*d:(i+1)*d], m.landmarks[l*d:(l+1)*d]); err != nil {
								t.Fatal(err)
							}
							for c := range F {
								S += math.Abs(gl[j]) * math.Abs(m.norm[l*F+c]) * math.Abs(theta[c*P+a])
							}
						}
						tol := float64(M+F+8) * 0x1p-52 * S
						if g := got[(i*d+j)*P+a]; !(math.Abs(g-want) <= tol) {
							t.Fatalf("%s, P = %d: row %d, ∂/∂x_%d, output %d: %v, features × θ %v (± %.3g)", k.Name(), P, i, j, a, g, want, tol)
						}
					}
				}
			}
			one := make([]float64, d*P)
			if err := m.GradientProduct(one, pts[4*d:5*d], 1, theta, P); err != nil {
				t.Fatal(err)
			}
			for i, v := range one {
				if math.Float64bits(v) != math.Float64bits(got[4*d*P+i]) {
					t.Fatalf("%s: row 4 alone %v, among %d rows %v", k.Name(), v, n, got[4*d*P+i])
				}
			}
			if err := m.GradientProduct(got, pts, n, theta[:F*P-1], P); err == nil {
				t.Error("a short theta was accepted")
			}
		}
	}
	lap, err := FromLandmarks(kernel.Laplacian{S: 1}, X[:M*d], M, d)
	if err != nil {
		t.Fatal(err)
	}
	if err := lap.GradientProduct(make([]float64, d), pts[:d], 1, make([]float64, lap.Features()), 1); err == nil {
		t.Error("the Laplacian kernel's Nyström features were differentiated")
	}
}
