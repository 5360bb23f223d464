package vector

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/finite"
	"github.com/rffkit/rff/internal/solve"
)

// spdSolve solves (A + shift·I)X = B for the symmetric n×n matrix A (row-major; both triangles valid) and B
// (n×nrhs) by a Cholesky factorisation computed in place in the upper triangle (lapack64.Potrf). The strict lower
// triangle is never written; the residual is computed from it, and A is restored before returning, so it can be
// reused for another shift. With strict (λ = 0) a numerically singular system (reciprocal condition number below
// 1e-14) is an error. It returns X and the largest relative residual over the columns.
func spdSolve(A []float64, n int, shift float64, B []float64, nrhs int, strict bool) ([]float64, float64, error) {
	diag := make([]float64, n)
	var anorm float64
	for i := 0; i < n; i++ {
		diag[i] = A[i*n+i]
		var s float64
		for _, v := range A[i*n : (i+1)*n] {
			s += math.Abs(v)
		}
		anorm = max(anorm, s+math.Abs(shift))
		A[i*n+i] += shift
	}
	restore := func() {
		for i := 0; i < n; i++ {
			A[i*n+i] = diag[i]
			for j := i + 1; j < n; j++ {
				A[i*n+j] = A[j*n+i]
			}
		}
	}
	defer restore()
	a := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: A}
	t, ok := lapack64.Potrf(a)
	if !ok {
		if strict {
			return nil, 0, errors.New("with λ = 0 the system is singular (not positive definite): use λ > 0")
		}
		return nil, 0, errors.New("the system is not positive definite: increase λ")
	}
	if strict {
		work := make([]float64, 3*n)
		iwork := make([]int, n)
		if rc := lapack64.Pocon(a, anorm, work, iwork); rc < 1e-14 {
			return nil, 0, fmt.Errorf("with λ = 0 the system is singular (condition number ≈ %.2g): use λ > 0", 1/rc)
		}
	}
	X := append([]float64(nil), B...)
	lapack64.Potrs(t, blas64.General{Rows: n, Cols: nrhs, Stride: nrhs, Data: X})
	// Residual from the untouched strict lower triangle and the shifted diagonal.
	for i := 0; i < n; i++ {
		A[i*n+i] = diag[i] + shift
	}
	R := append([]float64(nil), B...)
	blas64.Symm(blas.Left, 1, blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: n, Data: A},
		blas64.General{Rows: n, Cols: nrhs, Stride: nrhs, Data: X}, -1, blas64.General{Rows: n, Cols: nrhs, Stride: nrhs, Data: R})
	return X, solve.RelResidual(R, B, n, nrhs), nil
}

// gemm computes C = α op(A) op(B) + βC for row-major A (m×k, or k×m when tA), B (k×n, or n×k when tB), C (m×n).
func gemm(tA, tB bool, m, n, k int, alpha float64, A, B []float64, beta float64, C []float64) {
	if m == 0 || n == 0 {
		return
	}
	ta, tb := blas.NoTrans, blas.NoTrans
	ga := blas64.General{Rows: m, Cols: k, Stride: k, Data: A}
	gb := blas64.General{Rows: k, Cols: n, Stride: n, Data: B}
	if tA {
		ta = blas.Trans
		ga = blas64.General{Rows: k, Cols: m, Stride: m, Data: A}
	}
	if tB {
		tb = blas.Trans
		gb = blas64.General{Rows: n, Cols: k, Stride: k, Data: B}
	}
	if k == 0 {
		for i := range C[:m*n] {
			C[i] *= beta
		}
		return
	}
	blas64.Gemm(ta, tb, alpha, ga, gb, beta, blas64.General{Rows: m, Cols: n, Stride: n, Data: C})
}

// centreColumns subtracts from each column of the n×p matrix Y its mean, and returns the means.
func centreColumns(Y []float64, n, p int) []float64 {
	mean := make([]float64, p)
	for i := 0; i < n; i++ {
		floats.Add(mean, Y[i*p:(i+1)*p])
	}
	floats.Scale(1/float64(n), mean)
	for i := 0; i < n; i++ {
		floats.Sub(Y[i*p:(i+1)*p], mean)
	}
	return mean
}

func checkFinite(x []float64) error {
	if i := finite.Index(x); i >= 0 {
		return fmt.Errorf("the Gram matrix contains %v", x[i])
	}
	return nil
}

// symEigen returns the eigenvalues (ascending) and eigenvectors (n×n row-major, column i the i-th vector) of the
// symmetric n×n matrix a (row-major, full; not modified), with mat.EigenSym.
func symEigen(a []float64, n int) (vals, vecs []float64, err error) {
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(n, a), true) {
		return nil, nil, errors.New("the eigendecomposition did not converge")
	}
	vals = eig.Values(nil)
	var u mat.Dense
	eig.VectorsTo(&u)
	raw := u.RawMatrix()
	vecs = raw.Data
	if raw.Stride != n {
		vecs = mat.DenseCopyOf(&u).RawMatrix().Data
	}
	return vals, vecs, nil
}

// symEigenOrDiag is symEigen, except that an exactly diagonal a returns its diagonal and nil vectors (V = I), so
// that A = I and A ∝ I add no rounding.
func symEigenOrDiag(a []float64, n int) (vals, vecs []float64, err error) {
	diag := true
	for i := 0; i < n && diag; i++ {
		for j := 0; j < n; j++ {
			if i != j && a[i*n+j] != 0 {
				diag = false
				break
			}
		}
	}
	if !diag {
		return symEigen(a, n)
	}
	vals = make([]float64, n)
	for i := range vals {
		vals[i] = a[i*n+i]
	}
	return vals, nil, nil
}

// clampNonNegative sets negative entries (rounding in the eigenvalues of a PSD matrix) to 0.
func clampNonNegative(v []float64) {
	for i, x := range v {
		if x < 0 {
			v[i] = 0
		}
	}
}

// equalGroups groups the indices of v by exactly equal values, in order of first appearance.
func equalGroups(v []float64) [][]int {
	var groups [][]int
	for i, x := range v {
		found := false
		for g, idx := range groups {
			if v[idx[0]] == x {
				groups[g] = append(groups[g], i)
				found = true
				break
			}
		}
		if !found {
			groups = append(groups, []int{i})
		}
	}
	return groups
}
