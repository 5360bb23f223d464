package vector

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/misusetest"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
)

// TestMisuse: beyond the users' mistakes of TestErrors, the exported functions and methods of package vector return
// errors, not panics, for nil or hand-assembled fits, zero maps and kernels, negative row counts, sizes whose
// products overflow int and sizes no machine can hold.
func TestMisuse(t *testing.T) {
	must := mustKernel(t)
	curl := must(ovk.NewCurlFree(1))
	const d, n = 2, 12
	m := mustMap(t, curl, rule.G{}, d, 6, 1)
	X, Y := field(n, d, d, 0, 1)
	fit, err := Ridge{Lambda: 1e-3}.Fit(m, X, n, Y)
	if err != nil {
		t.Fatal(err)
	}
	efit, err := KRR{Kernel: curl, Lambda: 1e-3}.Fit(X, n, d, Y)
	if err != nil {
		t.Fatal(err)
	}
	sk := must(SimplexKernel(kernel.Gaussian{S: 1}, 3))
	ms := mustMap(t, sk, rule.G{}, d, 6, 1)
	labels := []int{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}
	sfit, err := Ridge{Lambda: 1e-3}.FitSimplex(ms, X, n, labels, 3)
	if err != nil {
		t.Fatal(err)
	}
	var nilFit *Fit
	var nilKRR *KRRFit
	badFit := &Fit{F: fit.F, P: fit.P, Rank: fit.Rank, Theta: fit.Theta, Bias: fit.Bias[:1]}
	badKRR := &KRRFit{Kernel: curl, Dim: d, P: d} // N = 0: no training rows
	zeroMap := &ovk.Map{}
	zeroKernel := &ovk.Kernel{}
	dec := must(ovk.NewDecomposable(kernel.Gaussian{S: 1}, mat.NewSymDense(2, []float64{1, 0.5, 0.5, 1})))
	md := mustMap(t, dec, rule.G{}, d, 6, 1)
	stats, err := Accumulate(m, X, n, Y)
	if err != nil {
		t.Fatal(err)
	}
	const overflow = "N·λ = 12·1e+308 overflows"
	cases := []misusetest.Case{
		{"Ridge.Fit N·λ overflows", func() error { _, err := Ridge{Lambda: 1e308}.Fit(m, X, n, Y); return err }, overflow},
		{"Ridge.Fit N·λ overflows CG", func() error { _, err := Ridge{Lambda: 1e308, Solver: CG}.Fit(m, X, n, Y); return err }, overflow},
		{"Ridge.Fit N·λ overflows L-BFGS", func() error { _, err := Ridge{Lambda: 1e308, Solver: LBFGS}.Fit(m, X, n, Y); return err }, overflow},
		{"Ridge.Fit N·λ overflows closed form", func() error { _, err := Ridge{Lambda: 1e308}.Fit(md, X, n, Y); return err }, overflow},
		{"Ridge.FitPath N·λ overflows", func() error { _, err := Ridge{}.FitPath(md, X, n, Y, []float64{1e-3, 1e308}); return err }, overflow},
		{"Ridge.Solve N·λ overflows", func() error { _, err := Ridge{Lambda: 1e308}.Solve(m, stats); return err }, overflow},
		{"KRR.Fit N·λ overflows", func() error { _, err := KRR{Kernel: curl, Lambda: 1e308}.Fit(X, n, d, Y); return err }, overflow},
		{"KRR.FitPath N·λ overflows decomposable", func() error { _, err := KRR{Kernel: dec}.FitPath(X, n, d, Y, []float64{1e-3, 1e308}); return err }, overflow},
		{"SimplexKernel 100000 classes", func() error { _, err := SimplexKernel(kernel.Gaussian{S: 1}, 100000); return err }, "at most 16384"},
		{"Ridge.Fit zero map", func() error { _, err := Ridge{Lambda: 1}.Fit(zeroMap, X, n, Y); return err }, "ovk.New"},
		{"Ridge.FitPath zero map", func() error { _, err := Ridge{}.FitPath(zeroMap, X, n, Y, []float64{1}); return err }, "ovk.New"},
		{"Ridge.Solve zero map", func() error {
			s, err := Accumulate(m, X, n, Y)
			if err != nil {
				return nil
			}
			_, err = Ridge{Lambda: 1}.Solve(zeroMap, s)
			return err
		}, "ovk.New"},
		{"Ridge.Fit n·d overflows", func() error { _, err := Ridge{Lambda: 1}.Fit(m, nil, 1<<62, nil); return err }, "X has 0"},
		{"Ridge.FitSimplex nil map", func() error { _, err := Ridge{Lambda: 1}.FitSimplex(nil, X, n, labels, 3); return err }, "nil"},
		{"Ridge.FitSimplex label", func() error {
			_, err := Ridge{Lambda: 1}.FitSimplex(ms, X, n, append([]int{7}, labels[1:]...), 3)
			return err
		}, "label"},
		{"Accumulate nil map", func() error { _, err := Accumulate(nil, X, n, Y); return err }, "nil"},
		{"Accumulate zero map", func() error { _, err := Accumulate(zeroMap, X, n, Y); return err }, "d"},
		{"Fit.Predict nil fit", func() error { return nilFit.Predict(make([]float64, n*d), m, X, n) }, "nil"},
		{"Fit.Predict bias length", func() error { return badFit.Predict(make([]float64, n*d), m, X, n) }, "Bias"},
		{"Fit.Predict zero map", func() error { return fit.Predict(nil, zeroMap, nil, 0) }, "map has"},
		{"Fit.Jacobian nil fit", func() error { return nilFit.Jacobian(make([]float64, d*d), m, X[:d]) }, "nil"},
		{"Fit.Classify nil fit", func() error { _, err := nilFit.Classify(ms, X, n); return err }, "nil"},
		{"Fit.Classify negative n", func() error { _, err := sfit.Classify(ms, nil, -1); return err }, "n ≥ 0"},
		{"Fit.Classify n·P overflows", func() error { _, err := sfit.Classify(ms, nil, 1<<62); return err }, "X has 0"},
		{"KRR.Fit zero kernel", func() error { _, err := KRR{Kernel: zeroKernel, Lambda: 1}.Fit(X, n, d, Y); return err }, "New"},
		{"KRR.FitSimplex zero kernel", func() error {
			_, err := KRR{Kernel: zeroKernel, Lambda: 1}.FitSimplex(X, n, d, labels, 3)
			return err
		}, "New"},
		{"KRRFit.Predict nil fit", func() error { return nilKRR.Predict(make([]float64, d), X[:d], 1) }, "nil"},
		{"KRRFit.Predict no training rows", func() error { return badKRR.Predict(make([]float64, d), X[:d], 1) }, "inconsistent"},
		{"KRRFit.Predict zero kernel", func() error {
			f := *efit
			f.Kernel = zeroKernel
			return f.Predict(make([]float64, d), X[:d], 1)
		}, "New"},
		{"KRRFit.Predict rows·P overflows", func() error { return efit.Predict(nil, nil, 1<<62) }, "X has 0"},
		{"KRRFit.Classify nil fit", func() error { _, err := nilKRR.Classify(X, n); return err }, "nil"},
		{"KRRFit.Classify negative rows", func() error { _, err := efit.Classify(nil, -1); return err }, "n ≥ 0"},
		{"SimplexKernel nil k₀", func() error { _, err := SimplexKernel(nil, 3); return err }, "k₀"},
		{"SimplexKernel 2^32 classes", func() error { _, err := SimplexKernel(kernel.Gaussian{S: 1}, 1<<32); return err }, "classes"},
	}
	misusetest.Check(t, cases)
}
