package vector

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/misusetest"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
)

func TestParseSolver(t *testing.T) {
	for _, s := range []Solver{Auto, ClosedForm, Cholesky, CG, LBFGS} {
		got, err := ParseSolver(s.String())
		if err != nil || got != s {
			t.Errorf("ParseSolver(%q) = %v, %v", s.String(), got, err)
		}
	}
	if s := Solver(9).String(); s != "Solver(9)" {
		t.Errorf("String of an unknown solver: %q", s)
	}
}

// Users' mistakes are errors, not panics: memory guards state the bytes needed.
func TestErrors(t *testing.T) {
	must := mustKernel(t)
	curl := must(ovk.NewCurlFree(1))
	dec := must(ovk.NewDecomposable(kernel.Gaussian{S: 1}, mat.NewSymDense(2, []float64{2, 1, 1, 2})))
	const d, n = 3, 20
	m := mustMap(t, curl, rule.G{}, d, 10, 1)
	md := mustMap(t, dec, rule.G{}, d, 10, 1)
	X, Y := field(n, d, d, 0, 1)
	_, Y2 := field(n, d, 2, 0, 1)
	nanX := append([]float64(nil), X...)
	nanX[4] = math.NaN()
	fit, err := Ridge{Lambda: 1e-3}.Fit(m, X, n, Y)
	if err != nil {
		t.Fatal(err)
	}
	efit, err := KRR{Kernel: curl, Lambda: 1e-3}.Fit(X, n, d, Y)
	if err != nil {
		t.Fatal(err)
	}
	labels := make([]int, n)
	cases := []misusetest.Case{
		{"nil map", func() error { _, err := Ridge{}.Fit(nil, X, n, Y); return err }, "nil"},
		{"negative λ", func() error { _, err := Ridge{Lambda: -1}.Fit(m, X, n, Y); return err }, "λ"},
		{"NaN λ", func() error { _, err := Ridge{Lambda: math.NaN()}.Fit(m, X, n, Y); return err }, "λ"},
		{"X length", func() error { _, err := Ridge{Lambda: 1}.Fit(m, X[:len(X)-1], n, Y); return err }, "X has"},
		{"Y length", func() error { _, err := Ridge{Lambda: 1}.Fit(m, X, n, Y2); return err }, "Y has"},
		{"NaN input", func() error { _, err := Ridge{Lambda: 1}.Fit(m, nanX, n, Y); return err }, "NaN"},
		{"no data", func() error { _, err := Ridge{Lambda: 1}.Fit(m, nil, 0, nil); return err }, "no data"},
		{"closed form on curl-free", func() error {
			_, err := Ridge{Lambda: 1, Solver: ClosedForm}.Fit(m, X, n, Y)
			return err
		}, "decomposable"},
		{"unknown solver", func() error { _, err := Ridge{Lambda: 1, Solver: 42}.Fit(m, X, n, Y); return err }, "unknown"},
		{"Cholesky memory guard", func() error {
			_, err := Ridge{Lambda: 1, Solver: Cholesky, MaxBytes: 1000}.Fit(m, X, n, Y)
			return err
		}, "normal equations need 10400 bytes"},
		{"closed-form memory guard", func() error { _, err := Ridge{Lambda: 1, MaxBytes: 1000}.Fit(md, X, n, Y2); return err }, "need"},
		{"λ = 0 singular", func() error {
			_, err := Ridge{Solver: Cholesky}.Fit(mustMap(t, curl, rule.G{}, d, 50, 1), X, n, Y)
			return err
		}, "singular"},
		{"path needs λ", func() error { _, err := Ridge{}.FitPath(m, X, n, Y, nil); return err }, "no λ"},
		{"path with CG", func() error { _, err := Ridge{Solver: CG}.FitPath(m, X, n, Y, []float64{1}); return err }, "needs the data"},
		{"path negative λ", func() error { _, err := Ridge{}.FitPath(m, X, n, Y, []float64{-1}); return err }, "λ"},
		{"solve nil stats", func() error { _, err := Ridge{Lambda: 1}.Solve(m, nil); return err }, "nil statistics"},
		{"solve wrong stats", func() error {
			s, err := learn.NewStats(4, 3)
			if err != nil {
				return err
			}
			_, err = Ridge{Lambda: 1}.Solve(m, s)
			return err
		}, "statistics have"},
		{"predict wrong map", func() error { return fit.Predict(make([]float64, n*2), md, X, n) }, "map has"},
		{"predict dst length", func() error { return fit.Predict(make([]float64, 1), m, X, n) }, "prediction has"},
		{"predict nil map", func() error { return fit.Predict(make([]float64, n*d), nil, X, n) }, "nil"},
		{"jacobian length", func() error { return fit.Jacobian(make([]float64, 2), m, X[:d]) }, "Jacobian"},
		{"exact nil kernel", func() error { _, err := KRR{Lambda: 1}.Fit(X, n, d, Y); return err }, "nil kernel"},
		{"exact negative λ", func() error { _, err := KRR{Kernel: curl, Lambda: -1}.Fit(X, n, d, Y); return err }, "λ"},
		{"exact intercept λ = 0", func() error {
			_, err := KRR{Kernel: curl, Intercept: true}.Fit(X, n, d, Y)
			return err
		}, "intercept needs λ > 0"},
		{"exact Y length", func() error { _, err := KRR{Kernel: curl, Lambda: 1}.Fit(X, n, d, Y2); return err }, "Y has"},
		{"exact bad d", func() error { _, err := KRR{Kernel: curl, Lambda: 1}.Fit(X, n, 0, Y); return err }, "dimension"},
		{"exact div-free d = 1", func() error {
			_, err := KRR{Kernel: must(ovk.NewDivFree(1)), Lambda: 1}.Fit(X[:n], n, 1, Y[:n])
			return err
		}, "d ≥ 2"},
		{"exact block memory guard", func() error {
			_, err := KRR{Kernel: curl, Lambda: 1, MaxBytes: 1 << 10}.Fit(X, n, d, Y)
			return err
		}, "block Gram matrix of the curl-free kernel needs 28800 bytes"},
		{"exact decomposable memory guard", func() error {
			_, err := KRR{Kernel: dec, Lambda: 1, MaxBytes: 1 << 10}.Fit(X, n, d, Y2)
			return err
		}, "needs 3200 bytes"},
		{"exact λ = 0 singular A", func() error {
			k := must(ovk.NewDecomposable(kernel.Gaussian{S: 1}, mat.NewSymDense(2, []float64{1, 1, 1, 1})))
			_, err := KRR{Kernel: k}.Fit(X, n, d, Y2)
			return err
		}, "singular"},
		{"exact predict dst", func() error { return efit.Predict(make([]float64, 3), X, n) }, "dst has"},
		{"exact predict NaN", func() error { return efit.Predict(make([]float64, n*d), nanX, n) }, "NaN"},
		{"exact path no λ", func() error { _, err := KRR{Kernel: curl}.FitPath(X, n, d, Y, nil); return err }, "no λ"},
		{"simplex classes", func() error { _, err := SimplexKernel(kernel.Gaussian{S: 1}, 1); return err }, "2 classes"},
		{"simplex outputs", func() error { _, err := Ridge{Lambda: 1}.FitSimplex(m, X, n, labels, 3); return err }, "needs 2 outputs"},
		{"simplex label range", func() error {
			bad := append([]int(nil), labels...)
			bad[3] = 5
			_, err := Ridge{Lambda: 1}.FitSimplex(md, X, n, bad, 3)
			return err
		}, "outside"},
		{"simplex label count", func() error { _, err := KRR{Kernel: dec, Lambda: 1}.FitSimplex(X, n, d, labels[:3], 3); return err }, "labels"},
		{"parse solver", func() error { _, err := ParseSolver("newton"); return err }, "unknown solver"},
	}
	misusetest.Check(t, cases)
}
