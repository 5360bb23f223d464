package ovk

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/rffkit/rff/internal/misusetest"
	"github.com/rffkit/rff/kernel"
)

const eps = 2.220446049250313e-16

func newRng(a uint64) *rand.Rand { return rand.New(rand.NewPCG(a, a^0x5eed)) }

func randVec(rng *rand.Rand, n int, s float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = s * rng.NormFloat64()
	}
	return x
}

// randPSD returns G·Gᵀ for a p×r Gaussian G: a PSD matrix of rank min(p, r).
func randPSD(rng *rand.Rand, p, r int) *mat.SymDense {
	G := mat.NewDense(p, r, randVec(rng, p*r, 1))
	var A mat.SymDense
	A.SymOuterK(1, G)
	return &A
}

// mustK(t)(NewX(…)) returns the kernel or fails the test.
func mustK(t testing.TB) func(*Kernel, error) *Kernel {
	return func(k *Kernel, err error) *Kernel {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
}

// hessianFD returns the Hessian of the Gaussian k₀ at δ by the four-point central formula
// [k(δ+h e_a+h e_b) − k(δ+h e_a−h e_b) − k(δ−h e_a+h e_b) + k(δ−h e_a−h e_b)]/(4h²).
func hessianFD(delta []float64, sigma, h float64) []float64 {
	d := len(delta)
	k0 := func(v []float64) float64 {
		var s float64
		for _, x := range v {
			s += x * x
		}
		return math.Exp(-s / (2 * sigma * sigma))
	}
	H := make([]float64, d*d)
	v := make([]float64, d)
	at := func(a, b int, sa, sb float64) float64 {
		copy(v, delta)
		v[a] += sa * h
		v[b] += sb * h
		return k0(v)
	}
	for a := 0; a < d; a++ {
		for b := 0; b < d; b++ {
			H[a*d+b] = (at(a, b, 1, 1) - at(a, b, 1, -1) - at(a, b, -1, 1) + at(a, b, -1, -1)) / (4 * h * h)
		}
	}
	return H
}

// TestHessianFormulas: the closed forms of docs/conventions.md §4 equal the ORFF paper's definitions (Def. 8) evaluated by finite
// differences of k₀: K^curl = −∇∇ᵀk₀, K^div = (∇∇ᵀ − ΔI)k₀, Helmholtz = w·curl + (1−w)·div, to 1e-6.
func TestHessianFormulas(t *testing.T) {
	rng := newRng(1)
	for _, sigma := range []float64{0.7, 1.3} {
		// Error of the four-point formula: truncation ≤ (h²/3)·max|∂⁴k₀| with max|∂⁴k₀| ≤ 3/σ⁴ (the 1-D maximum,
		// at 0; mixed fourth derivatives of the Gaussian are smaller), plus rounding 4ε/(4h²) of values ≤ 1.
		h := 1e-4 * sigma
		fdErr := h*h/3*3/math.Pow(sigma, 4) + eps/(h*h)
		if fdErr > 1e-6 {
			t.Fatalf("finite-difference error bound %v cannot resolve 1e-6", fdErr)
		}
		for _, d := range []int{1, 2, 3, 5} {
			for trial := 0; trial < 4; trial++ {
				x, z := randVec(rng, d, sigma), randVec(rng, d, sigma)
				delta := make([]float64, d)
				for i := range delta {
					delta[i] = x[i] - z[i]
				}
				H := hessianFD(delta, sigma, h)
				var lap float64
				for i := 0; i < d; i++ {
					lap += H[i*d+i]
				}
				curl := make([]float64, d*d)
				div := make([]float64, d*d)
				for a := 0; a < d; a++ {
					for b := 0; b < d; b++ {
						curl[a*d+b] = -H[a*d+b]
						div[a*d+b] = H[a*d+b]
					}
					div[a*d+a] -= lap
				}
				cases := []struct {
					name string
					k    func() (*Kernel, error)
					want func(a, b int) float64
				}{
					{"curl", func() (*Kernel, error) { return NewCurlFree(sigma) }, func(a, b int) float64 { return curl[a*d+b] }},
					{"div", func() (*Kernel, error) { return NewDivFree(sigma) }, func(a, b int) float64 { return div[a*d+b] }},
					{"helmholtz:0.3", func() (*Kernel, error) { return NewHelmholtz(sigma, 0.3) },
						func(a, b int) float64 { return 0.3*curl[a*d+b] + 0.7*div[a*d+b] }},
				}
				for _, tc := range cases {
					if d == 1 && tc.name != "curl" {
						continue
					}
					k := mustK(t)(tc.k())
					K, err := k.At(x, z)
					if err != nil {
						t.Fatal(err)
					}
					for a := 0; a < d; a++ {
						for b := 0; b < d; b++ {
							if got, want := K.At(a, b), tc.want(a, b); math.Abs(got-want) > 1e-6 {
								t.Errorf("%s σ=%v d=%d: K[%d,%d] = %v, finite differences %v", tc.name, sigma, d, a, b, got, want)
							}
						}
					}
				}
			}
		}
	}
}

// TestAtZero: K^curl(x,x) = I/σ² = E[ωωᵀ] and K^div(x,x) = (d−1)I/σ² = E[‖ω‖²I − ωωᵀ] (docs/conventions.md §4 checks).
func TestAtZero(t *testing.T) {
	rng := newRng(2)
	for _, sigma := range []float64{0.4, 1, 2.5} {
		for _, d := range []int{2, 3, 7} {
			x := randVec(rng, d, 1)
			for _, tc := range []struct {
				k    *Kernel
				diag float64
			}{
				{mustK(t)(NewCurlFree(sigma)), 1 / (sigma * sigma)},
				{mustK(t)(NewDivFree(sigma)), float64(d-1) / (sigma * sigma)},
				{mustK(t)(NewHelmholtz(sigma, 0.25)), (0.25 + 0.75*float64(d-1)) / (sigma * sigma)},
			} {
				K, _ := tc.k.At(x, x)
				for a := 0; a < d; a++ {
					for b := 0; b < d; b++ {
						want := 0.0
						if a == b {
							want = tc.diag
						}
						if math.Abs(K.At(a, b)-want) > 4*eps*tc.diag {
							t.Errorf("%s σ=%v d=%d: K(x,x)[%d,%d] = %v, want %v", tc.k.Name(), sigma, d, a, b, K.At(a, b), want)
						}
					}
				}
			}
		}
	}
}

// testKernels returns one kernel of each kind (and decomposable ones with non-Gaussian k₀), for inputs in R^d.
func testKernels(t testing.TB, rng *rand.Rand, d int) []*Kernel {
	return []*Kernel{
		mustK(t)(NewDecomposable(kernel.Gaussian{S: 0.9}, randPSD(rng, 3, 2))),
		mustK(t)(NewDecomposable(kernel.Laplacian{S: 1.1}, randPSD(rng, 4, 4))),
		mustK(t)(NewDecomposable(kernel.Matern{Nu: 1.5, S: 0.8}, mat.NewDiagDense(2, []float64{2, 0.5}))),
		mustK(t)(NewCurlFree(0.8)),
		mustK(t)(NewDivFree(0.8)),
		mustK(t)(NewHelmholtz(1.2, 0.6)),
	}
}

// TestGramSymmetricPSD: every block Gram matrix K(X,X) on a random point set is exactly symmetric and PSD
// (eigenvalues ≥ −1e-10·max), and its blocks are the kernel values.
func TestGramSymmetricPSD(t *testing.T) {
	rng := newRng(3)
	for _, d := range []int{2, 3, 5} {
		for _, k := range testKernels(t, rng, d) {
			const n = 25
			X := randVec(rng, n*d, 0.7)
			p, _ := k.Outputs(d)
			G, err := GramDense(k, mat.NewDense(n, d, X), mat.NewDense(n, d, X))
			if err != nil {
				t.Fatal(err)
			}
			N := n * p
			for i := 0; i < N; i++ {
				for j := 0; j < i; j++ {
					if G.At(i, j) != G.At(j, i) {
						t.Fatalf("%s d=%d: Gram not symmetric at (%d,%d)", k.Name(), d, i, j)
					}
				}
			}
			var eig mat.EigenSym
			if !eig.Factorize(mat.NewSymDense(N, G.RawMatrix().Data), false) {
				t.Fatal("eigendecomposition failed")
			}
			vals := eig.Values(nil)
			lmax := vals[N-1]
			if vals[0] < -1e-10*lmax {
				t.Errorf("%s d=%d: Gram eigenvalue %v (largest %v)", k.Name(), d, vals[0], lmax)
			}
			// Block (i,j) is K(x_i, x_j); spot-check a few.
			for trial := 0; trial < 5; trial++ {
				i, j := rng.IntN(n), rng.IntN(n)
				K, _ := k.At(X[i*d:(i+1)*d], X[j*d:(j+1)*d])
				for a := 0; a < p; a++ {
					for b := 0; b < p; b++ {
						if G.At(i*p+a, j*p+b) != K.At(a, b) {
							t.Fatalf("%s: Gram block (%d,%d) differs from At", k.Name(), i, j)
						}
					}
				}
			}
		}
	}
}

// TestCrossGram: the rectangular Gram of X (n×d) against Z (m×d) has blocks K(x_i, z_j), and the decomposable one is
// the scalar Gram ⊗ A.
func TestCrossGram(t *testing.T) {
	rng := newRng(4)
	const n, m, d = 4, 6, 3
	X, Z := randVec(rng, n*d, 1), randVec(rng, m*d, 1)
	A := randPSD(rng, 2, 2)
	k := mustK(t)(NewDecomposable(kernel.Gaussian{S: 1}, A))
	G := make([]float64, n*2*m*2)
	if err := Gram(G, k, X, n, Z, m, d); err != nil {
		t.Fatal(err)
	}
	S := make([]float64, n*m)
	if err := kernel.Gram(S, kernel.Gaussian{S: 1}, X, n, Z, m, d); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			for a := 0; a < 2; a++ {
				for b := 0; b < 2; b++ {
					got := G[(i*2+a)*(m*2)+j*2+b]
					if want := S[i*m+j] * A.At(a, b); math.Abs(got-want) > 2*eps*math.Abs(want) {
						t.Errorf("block (%d,%d)[%d,%d] = %v, want %v", i, j, a, b, got, want)
					}
				}
			}
		}
	}
	if err := Gram(G[:5], k, X, n, Z, m, d); err == nil {
		t.Error("short destination must fail")
	}
	if err := Gram(G, k, X[:5], n, Z, m, d); err == nil {
		t.Error("short X must fail")
	}
	if _, err := GramDense(k, mat.NewDense(2, 3, nil), mat.NewDense(2, 2, nil)); err == nil {
		t.Error("column mismatch must fail")
	}
}

// TestDecomposableFactor: B·Bᵀ = A with p' = rank A for full-rank, rank-deficient and diagonal A.
func TestDecomposableFactor(t *testing.T) {
	rng := newRng(5)
	for _, tc := range []struct {
		A    mat.Symmetric
		rank int
	}{
		{randPSD(rng, 4, 4), 4},
		{randPSD(rng, 5, 2), 2},
		{randPSD(rng, 3, 1), 1},
		{mat.NewDiagDense(3, []float64{4, 0, 9}), 2},
		{mat.NewSymDense(2, []float64{1, 0, 0, 1}), 2},
	} {
		k := mustK(t)(NewDecomposable(kernel.Gaussian{S: 1}, tc.A))
		B := k.B()
		p, pr := B.Dims()
		if pr != tc.rank {
			t.Errorf("p'=%d, want rank %d", pr, tc.rank)
		}
		var BBt mat.Dense
		BBt.Mul(B, B.T())
		scale := mat.Norm(tc.A, 2)
		for i := 0; i < p; i++ {
			for j := 0; j < p; j++ {
				// Eigendecomposition backward error: O(p·ε·‖A‖).
				if math.Abs(BBt.At(i, j)-tc.A.At(i, j)) > 100*float64(p)*eps*scale {
					t.Errorf("rank %d: BBᵀ[%d,%d] = %v, A = %v", tc.rank, i, j, BBt.At(i, j), tc.A.At(i, j))
				}
			}
		}
		if got := k.A(); !mat.Equal(got, tc.A) {
			t.Error("A() does not return A")
		}
	}
}

func TestOutputCovariance(t *testing.T) {
	rng := newRng(6)
	const n, p = 50, 3
	Y := randVec(rng, n*p, 2)
	A, err := OutputCovariance(Y, n, p)
	if err != nil {
		t.Fatal(err)
	}
	var want mat.SymDense
	stat.CovarianceMatrix(&want, mat.NewDense(n, p, Y), nil)
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			if math.Abs(A.At(i, j)-want.At(i, j)) > 1e-13*math.Abs(want.At(i, i)) {
				t.Errorf("cov[%d,%d] = %v, gonum %v", i, j, A.At(i, j), want.At(i, j))
			}
		}
	}
	// A covariance is a valid A for a decomposable kernel.
	if _, err := NewDecomposable(kernel.Gaussian{S: 1}, A); err != nil {
		t.Error(err)
	}
	for _, bad := range []struct {
		Y    []float64
		n, p int
	}{{Y[:3], 1, 3}, {Y[:5], 2, 3}, {[]float64{1, math.NaN(), 2, 3}, 2, 2}} {
		if _, err := OutputCovariance(bad.Y, bad.n, bad.p); err == nil {
			t.Errorf("OutputCovariance(n=%d, p=%d) must fail", bad.n, bad.p)
		}
	}
}

func TestParse(t *testing.T) {
	A := mat.NewDiagDense(2, []float64{1, 1})
	for _, tc := range []struct {
		spec string
		kind Kind
		name string
		w    float64
	}{
		{"decomposable", Decomposable, "decomposable", math.NaN()},
		{"dec", Decomposable, "decomposable", math.NaN()},
		{"curl-free", CurlFree, "curl-free", 1},
		{" Curl ", CurlFree, "curl-free", 1},
		{"div-free", DivFree, "div-free", 0},
		{"divergence-free", DivFree, "div-free", 0},
		{"helmholtz", Helmholtz, "helmholtz:0.5", 0.5},
		{"helmholtz:0.2", Helmholtz, "helmholtz:0.2", 0.2},
		{"helmholtz:1", CurlFree, "curl-free", 1},
		{"helmholtz:0", DivFree, "div-free", 0},
	} {
		k, err := Parse(tc.spec, 0.5, A)
		if err != nil {
			t.Errorf("%q: %v", tc.spec, err)
			continue
		}
		if k.Kind() != tc.kind || k.Name() != tc.name || k.Sigma() != 0.5 {
			t.Errorf("%q: kind %v name %q σ %v", tc.spec, k.Kind(), k.Name(), k.Sigma())
		}
		if w := k.Weight(); !(w == tc.w || math.IsNaN(w) && math.IsNaN(tc.w)) {
			t.Errorf("%q: weight %v, want %v", tc.spec, w, tc.w)
		}
	}
}

// TestErrors: everything a user can get wrong is an error, not a panic.
func TestErrors(t *testing.T) {
	notPSD := mat.NewSymDense(2, []float64{1, 2, 2, 1})
	misusetest.Check(t, []misuse{
		{"σ=0", func() error { _, err := NewCurlFree(0); return err }, "σ"},
		{"σ<0", func() error { _, err := NewDivFree(-1); return err }, "σ"},
		{"σ=NaN", func() error { _, err := NewHelmholtz(math.NaN(), 0.5); return err }, "σ"},
		{"σ=Inf", func() error { _, err := NewCurlFree(math.Inf(1)); return err }, "σ"},
		{"w>1", func() error { _, err := NewHelmholtz(1, 1.5); return err }, "weight"},
		{"w NaN", func() error { _, err := NewHelmholtz(1, math.NaN()); return err }, "weight"},
		{"not PSD", func() error { _, err := NewDecomposable(kernel.Gaussian{S: 1}, notPSD); return err }, "positive semi-definite"},
		{"negative diagonal", func() error {
			_, err := NewDecomposable(kernel.Gaussian{S: 1}, mat.NewDiagDense(2, []float64{1, -1}))
			return err
		}, "positive semi-definite"},
		{"zero A", func() error { _, err := NewDecomposable(kernel.Gaussian{S: 1}, mat.NewDiagDense(2, nil)); return err }, "zero"},
		{"NaN in A", func() error {
			_, err := NewDecomposable(kernel.Gaussian{S: 1}, mat.NewSymDense(2, []float64{1, math.NaN(), math.NaN(), 1}))
			return err
		}, "NaN"},
		{"nil A", func() error { _, err := NewDecomposable(kernel.Gaussian{S: 1}, nil); return err }, "matrix A"},
		{"nil k0", func() error { _, err := NewDecomposable(nil, notPSD); return err }, "scalar kernel"},
		{"parse unknown", func() error { _, err := Parse("foo", 1, nil); return err }, "unknown"},
		{"parse weight", func() error { _, err := Parse("helmholtz:abc", 1, nil); return err }, "not a number"},
		{"parse arg", func() error { _, err := Parse("curl:2", 1, nil); return err }, "no parameter"},
		{"parse dec without A", func() error { _, err := Parse("decomposable", 1, nil); return err }, "matrix A"},
		{"div d=1", func() error {
			k, _ := NewDivFree(1)
			_, err := k.At([]float64{1}, []float64{2})
			return err
		}, "d ≥ 2"},
		{"At length", func() error {
			k, _ := NewCurlFree(1)
			_, err := k.At([]float64{1, 2}, []float64{2})
			return err
		}, "coordinates"},
	})
}
