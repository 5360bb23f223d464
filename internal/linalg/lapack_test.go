package linalg

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

var goLapack lapackgonum.Implementation

func TestPotrfPotrs(t *testing.T) {
	withBackend(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 7))
		for _, n := range []int{0, 1, 2, 5, 31, 32, 33, 64, 150} {
			for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
				for _, pad := range []int{0, 3} {
					lda := max(1, n+pad)
					a := spd(rng, n, lda)
					for i := 0; i < n; i++ {
						for j := n; j < lda && i*lda+j < len(a); j++ {
							a[i*lda+j] = math.NaN() // padding is never read
						}
					}
					want, got := clone(a), clone(a)
					if !goLapack.Dpotrf(ul, n, want, lda) {
						t.Fatalf("reference Dpotrf failed, n=%d", n)
					}
					if !(Lapack{}).Dpotrf(ul, n, got, lda) {
						t.Fatalf("Dpotrf(%c, n=%d) reports not positive definite", ul, n)
					}
					// Only the ul triangle is defined; the other must be untouched.
					for i := 0; i < n; i++ {
						for j := 0; j < n; j++ {
							if inTri := (ul == blas.Upper && j >= i) || (ul == blas.Lower && j <= i); !inTri {
								if got[i*lda+j] != a[i*lda+j] {
									t.Fatalf("Dpotrf(%c, n=%d) changed (%d,%d) outside its triangle", ul, n, i, j)
								}
							}
						}
					}
					maxDiff(t, got, want, 1e-10, fmt.Sprintf("Dpotrf(%c, n=%d, pad %d)", ul, n, pad))

					for _, nrhs := range []int{0, 1, 7} {
						ldb := max(1, nrhs+1)
						x := randMat(rng, n, nrhs, ldb, 4)
						b := make([]float64, len(x))
						copy(b, x) // padding
						// b = A·x with the full symmetric A.
						for i := 0; i < n; i++ {
							for r := 0; r < nrhs; r++ {
								var s float64
								for j := 0; j < n; j++ {
									s += a[min(i, j)*lda+max(i, j)] * x[j*ldb+r]
								}
								b[i*ldb+r] = s
							}
						}
						Lapack{}.Dpotrs(ul, n, nrhs, got, lda, b, ldb)
						maxDiff(t, b, x, 1e-10, fmt.Sprintf("Dpotrs(%c, n=%d, nrhs=%d)", ul, n, nrhs))
					}
				}
			}
		}
	})
}

func TestPotrfNotPositiveDefinite(t *testing.T) {
	withBackend(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(8, 8))
		for _, n := range []int{1, 3, 40, 100} {
			for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
				a := spd(rng, n, n)
				a[(n-1)*n+n-1] = -1e6 // last leading minor negative
				if (Lapack{}).Dpotrf(ul, n, clone(a), n) {
					t.Errorf("Dpotrf(%c, n=%d) accepted an indefinite matrix", ul, n)
				}
				a = spd(rng, n, n)
				a[n/2*n+n/2] = math.NaN()
				if (Lapack{}).Dpotrf(ul, n, clone(a), n) {
					t.Errorf("Dpotrf(%c, n=%d) accepted NaN", ul, n)
				}
			}
			a := spd(rng, n, n)
			a[0] = 0
			if err := Cholesky(n, a, n); !errors.Is(err, ErrNotPositiveDefinite) {
				t.Errorf("Cholesky(n=%d) of a singular matrix: %v", n, err)
			}
		}
	})
}

func TestCholeskyAPI(t *testing.T) {
	withBackend(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(9, 9))
		n, nrhs := 90, 3
		a := spd(rng, n, n)
		u := clone(a)
		for i := 1; i < n; i++ {
			for j := 0; j < i; j++ {
				u[i*n+j] = math.NaN() // the lower triangle is neither read nor written
			}
		}
		if err := Cholesky(n, u, n); err != nil {
			t.Fatal(err)
		}
		// UᵀU = A.
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				var s float64
				for p := 0; p <= i; p++ {
					s += u[p*n+i] * u[p*n+j]
				}
				if math.Abs(s-a[i*n+j]) > 1e-10*math.Abs(a[i*n+i]) {
					t.Fatalf("(UᵀU)[%d,%d] = %v, want %v", i, j, s, a[i*n+j])
				}
			}
			for j := 0; j < i; j++ {
				if !math.IsNaN(u[i*n+j]) {
					t.Fatalf("lower triangle written at (%d,%d)", i, j)
				}
			}
		}
		x := randSlice(rng, n*nrhs)
		b := make([]float64, n*nrhs)
		Gemm(false, false, n, nrhs, n, 1, a, n, x, nrhs, 0, b, nrhs)
		if err := SolveCholesky(n, nrhs, u, n, b, nrhs); err != nil {
			t.Fatal(err)
		}
		maxDiff(t, b, x, 1e-10, "SolveCholesky")

		if err := Cholesky(3, make([]float64, 8), 3); err == nil {
			t.Error("Cholesky accepted a short slice")
		}
		if err := SolveCholesky(3, 1, make([]float64, 9), 3, make([]float64, 2), 1); err == nil {
			t.Error("SolveCholesky accepted a short slice")
		}
	})
}

// symmetric returns a random symmetric n×n matrix (stride ld), filling the
// other triangle than ul with NaN so that reading it would show.
func symmetric(rng *rand.Rand, n, ld int, ul blas.Uplo) (a, full []float64) {
	full = make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := rng.NormFloat64()
			full[i*n+j], full[j*n+i] = v, v
		}
	}
	a = make([]float64, max(0, (n-1)*ld+n))
	for i := range a {
		a[i] = math.NaN()
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if (ul == blas.Upper && j >= i) || (ul == blas.Lower && j <= i) {
				a[i*ld+j] = full[i*n+j]
			}
		}
	}
	return a, full
}

// checkEigen checks A·V = V·Λ, VᵀV = I and ascending values.
func checkEigen(t *testing.T, name string, n int, full, w, v []float64, ldv int) {
	t.Helper()
	scale := 0.0
	for _, x := range w[:n] {
		scale = math.Max(scale, math.Abs(x))
	}
	scale = math.Max(scale, 1)
	for j := 1; j < n; j++ {
		if w[j] < w[j-1] {
			t.Fatalf("%s: eigenvalues not ascending at %d", name, j)
		}
	}
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			var av float64
			for p := 0; p < n; p++ {
				av += full[i*n+p] * v[p*ldv+j]
			}
			if d := math.Abs(av - w[j]*v[i*ldv+j]); d > 1e-10*scale {
				t.Fatalf("%s: (Av − λv)[%d] for λ%d = %v: %.3g", name, i, j, w[j], d)
			}
		}
		for k := j; k < n; k++ {
			var s float64
			for p := 0; p < n; p++ {
				s += v[p*ldv+j] * v[p*ldv+k]
			}
			want := 0.0
			if j == k {
				want = 1
			}
			if math.Abs(s-want) > 1e-10 {
				t.Fatalf("%s: vⱼᵀvₖ (%d,%d) = %v", name, j, k, s)
			}
		}
	}
}

func TestDsyev(t *testing.T) {
	withBackend(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(10, 10))
		for _, n := range []int{0, 1, 2, 15, 16, 17, 60, 129} {
			for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
				for _, jobz := range []lapack.EVJob{lapack.EVCompute, lapack.EVNone} {
					lda := max(1, n+2)
					a, full := symmetric(rng, n, lda, ul)
					name := fmt.Sprintf("Dsyev(%c,%c,n=%d)", jobz, ul, n)

					wantW := make([]float64, n)
					ref := clone(a)
					work := []float64{0}
					goLapack.Dsyev(jobz, ul, n, ref, lda, wantW, work, -1)
					work = make([]float64, max(1, int(work[0])))
					if !goLapack.Dsyev(jobz, ul, n, ref, lda, wantW, work, len(work)) {
						t.Fatalf("%s: reference failed", name)
					}

					// The workspace query answers a size at least gonum's minimum.
					q := []float64{0}
					Lapack{}.Dsyev(jobz, ul, n, clone(a), lda, make([]float64, n), q, -1)
					if int(q[0]) < max(1, 3*n-1) {
						t.Fatalf("%s: query answered %v < 3n−1", name, q[0])
					}
					// Both the queried size and gonum's minimum size work.
					for _, lwork := range []int{int(q[0]), max(1, 3*n-1)} {
						got := clone(a)
						w := make([]float64, n)
						if !(Lapack{}).Dsyev(jobz, ul, n, got, lda, w, make([]float64, lwork), lwork) {
							t.Fatalf("%s lwork=%d: failed", name, lwork)
						}
						scale := 1.0
						for _, x := range wantW {
							scale = math.Max(scale, math.Abs(x))
						}
						maxDiff(t, w, wantW, 1e-10*scale, name+" eigenvalues")
						if jobz == lapack.EVCompute {
							checkEigen(t, name, n, full, w, got, lda)
							for i := 0; i < n; i++ {
								for j := n; j < lda && i*lda+j < len(got); j++ {
									if !math.IsNaN(got[i*lda+j]) {
										t.Fatalf("%s: padding written at (%d,%d)", name, i, j)
									}
								}
							}
						}
					}
				}
			}
		}
	})
}

// TestDsyevStructured covers repeated and clustered eigenvalues and a
// diagonal matrix, where eigenvectors are not unique.
func TestDsyevStructured(t *testing.T) {
	withBackend(t, func(t *testing.T) {
		n := 40
		cases := map[string][]float64{}
		id := make([]float64, n*n)
		diag := make([]float64, n*n)
		ones := make([]float64, n*n)
		for i := 0; i < n; i++ {
			id[i*n+i] = 1
			diag[i*n+i] = float64((i*7)%n) - 10
			for j := 0; j < n; j++ {
				ones[i*n+j] = 1 // rank one: eigenvalues 0 (n−1 times) and n
			}
		}
		cases["identity"], cases["diagonal"], cases["ones"] = id, diag, ones
		for name, a := range cases {
			w, v, err := EigenSym(n, a)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkEigen(t, name, n, a, w, v, n)
		}
	})
}

func TestEigenSym(t *testing.T) {
	withBackend(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(11, 11))
		for _, n := range []int{0, 1, 3, 50} {
			_, full := symmetric(rng, n, n, blas.Upper)
			in := clone(full)
			w, v, err := EigenSym(n, in)
			if err != nil {
				t.Fatal(err)
			}
			maxDiff(t, in, full, 0, "EigenSym input modified")
			checkEigen(t, fmt.Sprintf("EigenSym(n=%d)", n), n, full, w, v, n)
		}
		if _, _, err := EigenSym(3, make([]float64, 8)); err == nil {
			t.Error("EigenSym accepted a short slice")
		}
		a := make([]float64, 9)
		a[4] = math.Inf(1)
		if _, _, err := EigenSym(3, a); err == nil {
			t.Error("EigenSym accepted Inf")
		}
	})
}

// TestThroughMat checks that gonum/mat goes through the installed backend and
// gets correct answers: Cholesky, EigenSym and Mul.
func TestThroughMat(t *testing.T) {
	withBackend(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(12, 12))
		n := 120
		sym := mat.NewSymDense(n, spd(rng, n, n))
		var chol mat.Cholesky
		if !chol.Factorize(sym) {
			t.Fatal("mat.Cholesky failed")
		}
		b := mat.NewDense(n, 2, randSlice(rng, 2*n))
		var x, r mat.Dense
		if err := chol.SolveTo(&x, b); err != nil {
			t.Fatal(err)
		}
		r.Mul(sym, &x)
		r.Sub(&r, b)
		if e := mat.Norm(&r, math.Inf(1)); e > 1e-9 {
			t.Fatalf("Cholesky residual %v", e)
		}
		var es mat.EigenSym
		if !es.Factorize(sym, true) {
			t.Fatal("mat.EigenSym failed")
		}
		var v mat.Dense
		es.VectorsTo(&v)
		checkEigen(t, "mat.EigenSym", n, sym.RawSymmetric().Data, es.Values(nil), v.RawMatrix().Data, n)
	})
}

// fusedMulAdd is a·b + c as this build compiles it: fused into one rounding when the compiler fuses multiply-adds
// (GOAMD64=v3 and above), two roundings otherwise.
//
//go:noinline
func fusedMulAdd(a, b, c float64) float64 { return a*b + c }

// fusesMulAdd reports whether this build fuses multiply-adds: (1+2⁻³⁰)² − (1+2⁻²⁹) is 2⁻⁶⁰ in one rounding and 0 in
// two.
func fusesMulAdd() bool {
	a := 1 + 0x1p-30
	return fusedMulAdd(a, a, -(1+0x1p-29)) != 0
}

// rotateRef is Dlasr(blas.Right, lapack.Variable, …) written with every product rounded on its own: the IEEE result
// that rotateRows promises, fused multiply-adds or not.
func rotateRef(forward bool, m, n int, c, s, a []float64, lda int) {
	rot := func(j int) {
		for i := range m {
			t, u := a[i*lda+j+1], a[i*lda+j]
			a[i*lda+j+1] = float64(c[j]*t) - float64(s[j]*u)
			a[i*lda+j] = float64(s[j]*t) + float64(c[j]*u)
		}
	}
	for k := range max(0, n-1) {
		j := k
		if !forward {
			j = n - 2 - k
		}
		if c[j] != 1 || s[j] != 0 {
			rot(j)
		}
	}
}

// TestRotateRowsMatchesDlasr: the row-wise rotations are bit-for-bit the rotations with every product rounded, and
// so gonum's Dlasr where the compiler does not fuse multiply-adds (and within the rounding of the fused products of
// Dlasr where it does).
func TestRotateRowsMatchesDlasr(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 15))
	for _, m := range []int{0, 1, 3, 4, 7, 64, 301} {
		for _, n := range []int{0, 1, 2, 5, 130} {
			for _, forward := range []bool{true, false} {
				c, s := make([]float64, max(0, n-1)), make([]float64, max(0, n-1))
				for j := range c {
					th := rng.Float64() * 2 * math.Pi
					c[j], s[j] = math.Cos(th), math.Sin(th)
					if j%5 == 0 {
						c[j], s[j] = 1, 0 // identity rotations are skipped by both
					}
				}
				lda := n + 3
				a := randMat(rng, m, n, lda, 0)
				want, got := clone(a), clone(a)
				dir := lapack.Backward
				if forward {
					dir = lapack.Forward
				}
				ref := clone(a)
				goLapack.Dlasr(blas.Right, lapack.Variable, dir, m, n, c, s, want, lda)
				rotateRef(forward, m, n, c, s, ref, lda)
				rotateRows(forward, m, n, c, s, got, lda)
				what := fmt.Sprintf("rotateRows(forward=%v, m=%d, n=%d)", forward, m, n)
				maxDiff(t, got, ref, 0, what)
				// Fused, each of the ≤ 2(n−1) rotations an element goes through changes it by at most an ulp of
				// the row's norm (rotations keep it), about 2.2e-16·√n for these rows of N(0, 1) entries.
				tol := 0.0
				if fusesMulAdd() {
					tol = 4 * float64(n) * 0x1p-52 * (1 + math.Sqrt(float64(n)))
				}
				maxDiff(t, got, want, tol, what+" against Dlasr")
			}
		}
	}
}

// TestPureGoDsyevThreads: the pure-Go eigensolver gives the same bits on any number of threads — its rotations are
// split over goroutines by rows, four rows at a time — with or without fused multiply-adds.
func TestPureGoDsyevThreads(t *testing.T) {
	defer switchTo(t, PureGo)()
	defer SetThreads(SetThreads(1))
	rng := rand.New(rand.NewPCG(17, 17))
	const n = 302 // 302·301 rotated elements per sweep: split over goroutines, with rows left over from the groups of 4
	_, full := symmetric(rng, n, n, blas.Upper)
	var ref [2][]float64
	for _, th := range []int{1, 2, 3, 5} {
		SetThreads(th)
		w, v, err := EigenSym(n, clone(full))
		if err != nil {
			t.Fatal(err)
		}
		if th == 1 {
			ref = [2][]float64{w, v}
			checkEigen(t, "EigenSym", n, full, w, v, n)
			continue
		}
		maxDiff(t, w, ref[0], 0, fmt.Sprintf("eigenvalues on %d threads", th))
		maxDiff(t, v, ref[1], 0, fmt.Sprintf("eigenvectors on %d threads", th))
	}
}

// TestPureGoDsyevMatchesGonum: the pure-Go eigensolver is gonum's, bit for bit, where the compiler does not fuse
// multiply-adds (gonum's are fused otherwise, and TestPureGoDsyevThreads checks what holds then).
func TestPureGoDsyevMatchesGonum(t *testing.T) {
	if fusesMulAdd() {
		t.Skip("this build fuses multiply-adds (GOAMD64=v3 or above): gonum's Dsyev is fused and rotateRows is not")
	}
	defer switchTo(t, PureGo)()
	rng := rand.New(rand.NewPCG(16, 16))
	for _, n := range []int{16, 40, 257} {
		for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
			a, _ := symmetric(rng, n, n+1, ul)
			w1, w2 := make([]float64, n), make([]float64, n)
			a1, a2 := clone(a), clone(a)
			work := make([]float64, 40*n)
			if !goLapack.Dsyev(lapack.EVCompute, ul, n, a1, n+1, w1, work, len(work)) {
				t.Fatal("gonum failed")
			}
			if !(Lapack{}).Dsyev(lapack.EVCompute, ul, n, a2, n+1, w2, make([]float64, len(work)), len(work)) {
				t.Fatal("pure-Go Dsyev failed")
			}
			maxDiff(t, w2, w1, 0, "eigenvalues")
			maxDiff(t, a2, a1, 0, "eigenvectors")
		}
	}
}
