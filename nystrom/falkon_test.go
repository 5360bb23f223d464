package nystrom

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
)

// falkonCentres picks M uniform centres among the rows of X.
func falkonCentres(t testing.TB, X []float64, n, d, M int, seed uint64) []float64 {
	t.Helper()
	idx, err := Uniform{}.Select(kernel.Gaussian{S: 1}, X, n, d, M, seed)
	if err != nil {
		t.Fatal(err)
	}
	C, err := Gather(X, n, d, idx)
	if err != nil {
		t.Fatal(err)
	}
	return C
}

// nystromRidge is the direct Nyström solve: ridge regression on the features of a map on the centres C that keeps
// every positive eigenvalue of K_MM (threshold 0), solved by Cholesky. It returns the predictions at Xt and a bound
// on their relative error: the system ΨᵀΨ + NλI has condition number at most 1 + tr(ΨᵀΨ)/(Nλ), and the solve is
// backward stable.
func nystromRidge(t testing.TB, k kernel.Kernel, C []float64, M, d int, X []float64, n int, Y []float64, p int,
	lambda float64, intercept bool, Xt []float64, nt int) (pred []float64, errBound float64) {
	t.Helper()
	m, err := FromLandmarks(k, C, M, d, WithThreshold(0))
	if err != nil {
		t.Fatal(err)
	}
	st, err := learn.Accumulate(m, X, n, Y, p)
	if err != nil {
		t.Fatal(err)
	}
	var tr float64
	for a := range st.F {
		tr += st.ZtZ[a*st.F+a]
	}
	fit, err := learn.Ridge{Lambda: lambda, Intercept: intercept}.Solve(st)
	if err != nil {
		t.Fatal(err)
	}
	pred = make([]float64, nt*p)
	if err := m.Predict(pred, fit, Xt, nt); err != nil {
		t.Fatal(err)
	}
	return pred, 4 * float64(M) * u * (1 + tr/(float64(n)*lambda))
}

// At convergence FALKON gives the predictions of the direct Nyström solve to 1e-6 (relative), with and without
// intercept, for every kernel, on problems where that solve is accurate to better than 1e-7 (checked from its
// condition number). The problems differ only by FALKON's jitter δ in the penalty αᵀ(K_MM + δI)α, which moves a
// prediction by about δ/(Mλ) (the directions of K_MM with eigenvalue μ carry features of squared norm ≈ Nμ/M, which
// the ridge shrinks by (Nμ/M)/(Nμ/M + Nλ)): below 1e-9 here.
func TestFalkonMatchesDirectSolve(t *testing.T) {
	n, d, p, M, nt := 600, 3, 2, 60, 80
	X, Y := uniformData(n, d, p, 30)
	Xt, _ := uniformData(nt, d, 1, 31)
	C := falkonCentres(t, X, n, d, M, 1)
	for _, k := range allKernels(t, 0.7) {
		for _, intercept := range []bool{false, true} {
			for _, lambda := range []float64{1e-3, 1e-6} {
				passes := 0
				f := Falkon{Lambda: lambda, Intercept: intercept, Tol: 1e-10, MaxIter: 500, BlockRows: 128,
					Progress: func(p int) { passes = p }}
				fit, err := f.Fit(k, C, M, d, X, n, Y, p)
				if err != nil {
					t.Fatalf("%s: %v", k.Name(), err)
				}
				got := make([]float64, nt*p)
				if err := fit.Predict(got, Xt, nt); err != nil {
					t.Fatal(err)
				}
				want, bound := nystromRidge(t, k, C, M, d, X, n, Y, p, lambda, intercept, Xt, nt)
				if bound > 1e-7 {
					t.Fatalf("%s λ=%g: the direct solve is only accurate to %.3g: choose another problem", k.Name(), lambda, bound)
				}
				if r := relDiff(got, want); !(r <= 1e-6) {
					t.Errorf("%s intercept=%v λ=%g: FALKON predictions differ from the direct solve by %.3g (relative) after %d iterations",
						k.Name(), intercept, lambda, r, fit.Iterations)
				}
				if fit.Passes != fit.Iterations+2 || passes != fit.Passes {
					t.Errorf("%s: %d passes reported (%d seen by Progress) for %d iterations, want iterations + 2",
						k.Name(), fit.Passes, passes, fit.Iterations)
				}
				// The recomputed residual follows the recursive one CG stops on to within CG's rounding drift.
				if fit.Iterations < 1 || !(fit.Residual <= 100*f.Tol) {
					t.Errorf("%s: %d iterations, residual %.3g", k.Name(), fit.Iterations, fit.Residual)
				}
			}
		}
	}
}

// The preconditioner is what makes FALKON fast. On a problem where the system matrix is badly conditioned (λ = 1e-6,
// a smooth kernel), FALKON reaches the tolerance in a few tens of iterations, within the classical conjugate-gradient
// bound for the measured condition number κ of BᵀHB (‖r_k‖/‖r_0‖ ≤ 2√κ·((√κ − 1)/(√κ + 1))^k), while plain and
// Jacobi-preconditioned CG need many more iterations for the same tolerance on the system itself.
func TestFalkonPreconditionerCutsIterations(t *testing.T) {
	n, d, p, M := 3000, 3, 1, 100
	X, Y := uniformData(n, d, p, 40)
	C := falkonCentres(t, X, n, d, M, 2)
	k := kernel.Gaussian{S: 1}
	const lambda, tol = 1e-6, 1e-8
	fit, err := Falkon{Lambda: lambda, Tol: tol, MaxIter: 1000}.Fit(k, C, M, d, X, n, Y, p)
	if err != nil {
		t.Fatal(err)
	}
	// κ(BᵀHB/N) from the dense matrices, as A⁻ᵀ(GᵀG/N + λI)A⁻¹ with G = K_NM T⁻¹ (rows of norm ≤ √k(x, x): the
	// stable way to form it; B itself has entries as large as K_MM is ill-conditioned).
	pc, err := newPrecond(gram(t, k, C, M, C, M, d), M, lambda)
	if err != nil {
		t.Fatal(err)
	}
	G := gram(t, k, X, n, C, M, d)
	linalg.Blas{}.Dtrsm(blas.Right, blas.Upper, blas.NoTrans, blas.NonUnit, n, M, 1, pc.T, M, G, M)
	S := make([]float64, M*M)
	linalg.Gemm(true, false, M, M, n, 1/float64(n), G, M, G, M, 0, S, M)
	for i := range M {
		S[i*M+i] += lambda
	}
	pc.solveA(S, M, true) // A⁻ᵀS
	// (A⁻ᵀS)A⁻¹ = (A⁻ᵀ(A⁻ᵀS)ᵀ)ᵀ: S is symmetric, so transpose and solve again.
	St := make([]float64, M*M)
	for i := range M {
		for j := range M {
			St[j*M+i] = S[i*M+j]
		}
	}
	pc.solveA(St, M, true)
	BHB := mat.NewDense(M, M, St)
	var es mat.EigenSym
	sym := mat.NewSymDense(M, nil)
	for i := range M {
		for j := i; j < M; j++ {
			sym.SetSym(i, j, (BHB.At(i, j)+BHB.At(j, i))/2)
		}
	}
	if !es.Factorize(sym, false) {
		t.Fatal("eigenvalues")
	}
	v := es.Values(nil)
	kappa := v[M-1] / v[0]
	rho := (math.Sqrt(kappa) - 1) / (math.Sqrt(kappa) + 1)
	bound := int(math.Ceil(math.Log(2*math.Sqrt(kappa)/tol) / -math.Log(rho)))
	t.Logf("FALKON: %d iterations, κ(BᵀHB) = %.3g, CG bound %d", fit.Iterations, kappa, bound)
	if fit.Iterations > bound || fit.Iterations > 50 {
		t.Errorf("FALKON took %d iterations; the CG bound for κ = %.3g is %d (and tens are expected)", fit.Iterations, kappa, bound)
	}
	for _, pre := range []Preconditioner{JacobiPreconditioner, NoPreconditioner} {
		other, err := Falkon{Lambda: lambda, Tol: tol, MaxIter: 4 * fit.Iterations, Preconditioner: pre}.Fit(k, C, M, d, X, n, Y, p)
		if err != nil && !errors.Is(err, ErrNotConverged) {
			t.Fatal(err)
		}
		t.Logf("%v: %d iterations (converged: %v)", pre, other.Iterations, err == nil)
		if other.Iterations <= 2*fit.Iterations {
			t.Errorf("CG with preconditioner %v took %d iterations, FALKON %d: the preconditioner should save more than half",
				pre, other.Iterations, fit.Iterations)
		}
	}
}

// The fit is the same bits for any GOMAXPROCS and block size of the same shape, and twice in a row, also with the
// products over many slices (37 rows: 19 of them).
func TestFalkonDeterministic(t *testing.T) {
	n, d, p, M := 700, 10, 3, 50
	X, Y := uniformData(n, d, p, 50)
	C := falkonCentres(t, X, n, d, M, 3)
	defer func(b, r int) { gramBytes, gramMinRows = b, r }(gramBytes, gramMinRows)
	gramBytes, gramMinRows = 8*M*37, 1
	f := Falkon{Lambda: 1e-4, Intercept: true, Tol: 1e-9}
	a, err := f.Fit(kernel.Gaussian{S: 1}, C, M, d, X, n, Y, p)
	if err != nil {
		t.Fatal(err)
	}
	old := runtime.GOMAXPROCS(1)
	b, err := f.Fit(kernel.Gaussian{S: 1}, C, M, d, X, n, Y, p)
	runtime.GOMAXPROCS(old)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Alpha, b.Alpha) || !slices.Equal(a.Bias, b.Bias) || a.Iterations != b.Iterations {
		t.Error("FALKON differs between GOMAXPROCS = 1 and the default")
	}
}

// TestFalkonStoreKernel: keeping K_NM from the first pass gives the same fit bit for bit — coefficients, bias,
// iterations, residual — with every preconditioner, blocks that do not divide N and products over slices that do
// not divide the blocks, evaluates the kernel on one pass only, and counts the N×M matrix in the budget.
func TestFalkonStoreKernel(t *testing.T) {
	n, d, p, M := 301, 3, 2, 40
	X, Y := uniformData(n, d, p, 61)
	C := falkonCentres(t, X, n, d, M, 5)
	k := kernel.Gaussian{S: 0.9}
	whole, err := Falkon{Lambda: 1e-4, Intercept: true, Tol: 1e-10, MaxIter: 200, BlockRows: 64}.Fit(k, C, M, d, X, n, Y, p)
	if err != nil {
		t.Fatal(err)
	}
	// The products over slices of 7 rows (which do not divide the blocks of 64): the same solution to the CG
	// tolerance, and the same bits with the kernel stored or not.
	defer func(b, r int) { gramBytes, gramMinRows = b, r }(gramBytes, gramMinRows)
	gramBytes, gramMinRows = 8*M*7, 1
	sliced, err := Falkon{Lambda: 1e-4, Intercept: true, Tol: 1e-10, MaxIter: 200, BlockRows: 64}.Fit(k, C, M, d, X, n, Y, p)
	if err != nil {
		t.Fatal(err)
	}
	pw, ps := make([]float64, n*p), make([]float64, n*p)
	if err := whole.Predict(pw, X, n); err != nil {
		t.Fatal(err)
	}
	if err := sliced.Predict(ps, X, n); err != nil {
		t.Fatal(err)
	}
	for i := range pw {
		if math.Abs(pw[i]-ps[i]) > 1e-6*(1+math.Abs(pw[i])) {
			t.Fatalf("prediction %d: %v with whole blocks, %v with 7-row slices", i, pw[i], ps[i])
		}
	}
	for _, pc := range []Preconditioner{CholeskyPreconditioner, JacobiPreconditioner, NoPreconditioner} {
		base := Falkon{Lambda: 1e-4, Intercept: true, Tol: 1e-9, MaxIter: 60, BlockRows: 64, Preconditioner: pc}
		want, err := base.Fit(k, C, M, d, X, n, Y, p)
		if err != nil && !errors.Is(err, ErrNotConverged) {
			t.Fatal(err)
		}
		stored := base
		stored.StoreKernel = true
		got, err := stored.Fit(k, C, M, d, X, n, Y, p)
		if err != nil && !errors.Is(err, ErrNotConverged) {
			t.Fatal(err)
		}
		if !slices.Equal(got.Alpha, want.Alpha) || !slices.Equal(got.Bias, want.Bias) || got.Iterations != want.Iterations ||
			got.Residual != want.Residual || got.Passes != want.Passes {
			t.Errorf("%v: stored kernel: %d iterations, residual %v; on the fly %d, %v (coefficients equal: %v)", pc,
				got.Iterations, got.Residual, want.Iterations, want.Residual, slices.Equal(got.Alpha, want.Alpha))
		}
	}
	// The kernel is evaluated on the first pass only: N·M values (and M·M for K_MM) against one pass per iteration.
	for _, store := range []bool{false, true} {
		ck := &countingKernel{k: k}
		fit, err := Falkon{Lambda: 1e-4, Intercept: true, MaxIter: 5, BlockRows: 64, StoreKernel: store}.Fit(ck, C, M, d, X, n, Y, p)
		if err != nil && !errors.Is(err, ErrNotConverged) {
			t.Fatal(err)
		}
		want := int64(fit.Passes*n*M + M*M)
		if store {
			want = int64(n*M + M*M)
		}
		if got := ck.calls.Load(); got != want {
			t.Errorf("StoreKernel %v: %d kernel evaluations over %d passes, want %d", store, got, fit.Passes, want)
		}
	}
	// 8·N·M = 96 320 bytes of K_NM exceed a budget that the blocks and factors fit in.
	budget := int64(8 * (2*M*M + 64*(M+p) + 10*M*p + 100))
	if _, err := (Falkon{Lambda: 1e-4, BlockRows: 64, MaxBytes: budget}).Fit(k, C, M, d, X, n, Y, p); err != nil && !errors.Is(err, ErrNotConverged) {
		t.Fatalf("on the fly within %d bytes: %v", budget, err)
	}
	if _, err := (Falkon{Lambda: 1e-4, BlockRows: 64, MaxBytes: budget, StoreKernel: true}).Fit(k, C, M, d, X, n, Y, p); err == nil {
		t.Error("StoreKernel beyond the budget: no error")
	}
}

// Misuse is refused with errors, not panics.
func TestFalkonRefuses(t *testing.T) {
	n, d, p, M := 50, 2, 1, 5
	X, Y := uniformData(n, d, p, 60)
	C := falkonCentres(t, X, n, d, M, 4)
	k := kernel.Gaussian{S: 1}
	cases := map[string]func() error{
		"nil kernel": func() error { _, err := Falkon{Lambda: 1}.Fit(nil, C, M, d, X, n, Y, p); return err },
		"λ = 0":      func() error { _, err := Falkon{}.Fit(k, C, M, d, X, n, Y, p); return err },
		"λ = NaN":    func() error { _, err := Falkon{Lambda: math.NaN()}.Fit(k, C, M, d, X, n, Y, p); return err },
		"M = 0":      func() error { _, err := Falkon{Lambda: 1}.Fit(k, C, 0, d, X, n, Y, p); return err },
		"short centres": func() error {
			_, err := Falkon{Lambda: 1}.Fit(k, C[:len(C)-1], M, d, X, n, Y, p)
			return err
		},
		"short Y": func() error { _, err := Falkon{Lambda: 1}.Fit(k, C, M, d, X, n, Y[1:], p); return err },
		"NaN in X": func() error {
			Z := append([]float64(nil), X...)
			Z[7] = math.NaN()
			_, err := Falkon{Lambda: 1}.Fit(k, C, M, d, Z, n, Y, p)
			return err
		},
		"budget": func() error {
			_, err := Falkon{Lambda: 1, MaxBytes: 1000}.Fit(k, C, M, d, X, n, Y, p)
			return err
		},
		"preconditioner": func() error {
			_, err := Falkon{Lambda: 1, Preconditioner: 7}.Fit(k, C, M, d, X, n, Y, p)
			return err
		},
		"negative tol": func() error { _, err := Falkon{Lambda: 1, Tol: -1}.Fit(k, C, M, d, X, n, Y, p); return err },
		"nil fit predict": func() error {
			var f *FalkonFit
			return f.Predict(make([]float64, n), X, n)
		},
	}
	for name, f := range cases {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// Repeated centres: the jitter makes the factorization succeed, and the fit still predicts.
	dup := append(append([]float64(nil), C...), C[:2*d]...)
	fit, err := Falkon{Lambda: 1e-3, Tol: 1e-10, MaxIter: 200}.Fit(k, dup, M+2, d, X, n, Y, p)
	if err != nil {
		t.Fatalf("repeated centres: %v", err)
	}
	if fit.Jitter <= 0 {
		t.Errorf("repeated centres: jitter %g", fit.Jitter)
	}
	// MaxIter reached: the last iterate and ErrNotConverged.
	fit, err = Falkon{Lambda: 1e-6, Tol: 1e-14, MaxIter: 1, Preconditioner: NoPreconditioner}.Fit(k, C, M, d, X, n, Y, p)
	if !errors.Is(err, ErrNotConverged) || fit == nil || fit.Iterations != 1 {
		t.Errorf("MaxIter 1: err %v, fit %v", err, fit != nil)
	}
}

// countingKernel counts the evaluations of k (from any goroutine).
type countingKernel struct {
	k     kernel.Kernel
	calls atomic.Int64
}

func (c *countingKernel) Eval(x, y []float64) float64 { c.calls.Add(1); return c.k.Eval(x, y) }
func (c *countingKernel) Name() string                { return c.k.Name() }
