package solve

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// spd returns a random symmetric positive definite F×F matrix GᵀG/F + shift·I (row-major) and its condition number.
func spd(rng *rand.Rand, F int, shift float64) ([]float64, float64) {
	G := mat.NewDense(F, F, nil)
	for i := range F {
		for j := range F {
			G.Set(i, j, rng.NormFloat64())
		}
	}
	var A mat.SymDense
	A.SymOuterK(1/float64(F), G.T())
	for i := range F {
		A.SetSym(i, i, A.At(i, i)+shift)
	}
	var eig mat.EigenSym
	if !eig.Factorize(&A, false) {
		panic("eigendecomposition failed")
	}
	v := eig.Values(nil)
	return mat.DenseCopyOf(&A).RawMatrix().Data, v[len(v)-1] / v[0]
}

func apply(A []float64, F, P int) func(dst, V []float64) {
	return func(dst, V []float64) {
		mat.NewDense(F, P, dst).Mul(mat.NewDense(F, F, A), mat.NewDense(F, P, V))
	}
}

// TestPCG: on a random SPD system with three right-hand sides (one of them zero) CG stops at the tolerance, reports
// the true residual, and its solution differs from a direct solve by at most κ(A)·residual — the perturbation bound
// ‖δx‖/‖x‖ ≤ κ(A)‖r‖/‖b‖.
func TestPCG(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const F, P, tol = 40, 3, 1e-12
	A, kappa := spd(rng, F, 0.05)
	B := make([]float64, F*P)
	for i := range F {
		B[i*P] = rng.NormFloat64()
		B[i*P+2] = rng.NormFloat64()
	}
	diag := make([]float64, F)
	for i := range F {
		diag[i] = A[i*F+i]
	}
	res, err := PCG(apply(A, F, P), B, diag, F, P, tol, 10*F)
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations == 0 || res.Residual > 10*tol {
		t.Fatalf("iterations %d, residual %.3g", res.Iterations, res.Residual)
	}
	var want mat.Dense
	if err := want.Solve(mat.NewDense(F, F, A), mat.NewDense(F, P, B)); err != nil {
		t.Fatal(err)
	}
	for j := range P {
		var num, den float64
		for i := range F {
			d := res.X[i*P+j] - want.At(i, j)
			num += d * d
			den += want.At(i, j) * want.At(i, j)
		}
		if j == 1 {
			if num != 0 {
				t.Errorf("zero right-hand side: ‖x‖ = %g", math.Sqrt(num))
			}
			continue
		}
		if e, bound := math.Sqrt(num/den), kappa*(res.Residual+1e-15); e > bound {
			t.Errorf("column %d: relative error %.3g above κ·residual = %.3g", j, e, bound)
		}
	}
	// The reported residual is the true one.
	R := make([]float64, F*P)
	apply(A, F, P)(R, res.X)
	for i := range R {
		R[i] -= B[i]
	}
	if r := RelResidual(R, B, F, P); math.Abs(r-res.Residual) > 1e-3*res.Residual+1e-16 {
		t.Errorf("reported residual %.6g, recomputed %.6g", res.Residual, r)
	}
}

// TestPCGFailures: stopping at maxIter wraps ErrNotConverged and returns the iterate; an indefinite matrix breaks
// down with an error instead of a wrong answer.
func TestPCGFailures(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const F = 30
	A, _ := spd(rng, F, 1e-3)
	B := make([]float64, F)
	for i := range B {
		B[i] = rng.NormFloat64()
	}
	diag := make([]float64, F)
	for i := range F {
		diag[i] = A[i*F+i]
	}
	res, err := PCG(apply(A, F, 1), B, diag, F, 1, 1e-14, 2)
	if !errors.Is(err, ErrNotConverged) || res.Iterations != 2 || len(res.X) != F {
		t.Errorf("maxIter 2: error %v, %d iterations", err, res.Iterations)
	}
	neg := make([]float64, F*F)
	for i := range F {
		neg[i*F+i] = -1
	}
	if _, err := PCG(apply(neg, F, 1), B, diag, F, 1, 1e-10, 100); err == nil || !strings.Contains(err.Error(), "not positive definite") {
		t.Errorf("indefinite: error %v", err)
	}
}

func TestRelResidualAndBytes(t *testing.T) {
	// Columns (3, 4) against (0, 5) and (1, 0) against (0, 0): max(5/5, 1) = 1; then a smaller one.
	if r := RelResidual([]float64{3, 1, 4, 0}, []float64{0, 0, 5, 0}, 2, 2); r != 1 {
		t.Errorf("RelResidual = %v, want 1", r)
	}
	if r := RelResidual([]float64{0.3, 0.4}, []float64{3, 4}, 2, 1); math.Abs(r-0.1) > 1e-15 {
		t.Errorf("RelResidual = %v, want 0.1", r)
	}
	for b, want := range map[float64]string{512: "512 bytes", 3 << 20: "3.00 MiB", 5 << 30: "5.00 GiB"} {
		if got := Bytes(b); got != want {
			t.Errorf("Bytes(%v) = %q, want %q", b, got, want)
		}
	}
}
