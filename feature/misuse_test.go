package feature

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/misusetest"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// misuse is one call a caller can get wrong: it must return an error whose message contains want, and never panic.
type misuse = misusetest.Case

// TestMisuse: the exported functions and methods of package feature return errors, not panics, for arguments a
// caller can get wrong: bad sizes and forms, nil maps, kernels, rules and sources, lengths that do not match (also
// when a product of sizes overflows int), non-finite inputs and bandwidths.
func TestMisuse(t *testing.T) {
	g := kernel.Gaussian{S: 1}
	m, err := New(g, rule.G{}, 2, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	ac, err := New(kernel.ArcCos{Order: 1}, rule.G{}, 2, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	var nilMap *Map
	zeroMap := &Map{}
	F := m.Features()
	x := []float64{0.1, 0.2, 0.3, 0.4}
	big := 1 << 32 // big·big wraps to 0 in int arithmetic
	newMap := func(k kernel.Kernel, r rule.Rule, d, D int, opts ...Option) func() error {
		return func() error { _, err := New(k, r, d, D, 1, opts...); return err }
	}
	cases := []misuse{
		{"New d = 0", newMap(g, rule.G{}, 0, 3), "dimension"},
		{"New d < 0", newMap(g, rule.G{}, -2, 3), "dimension"},
		{"New D = 0", newMap(g, rule.G{}, 2, 0), "points"},
		{"New D < 0", newMap(g, rule.SR{}, 2, -5), "points"},
		{"New D·d overflows", newMap(g, rule.G{}, big, big), "too many"},
		{"New unknown form", newMap(g, rule.G{}, 2, 3, WithForm(Form(99))), "form"},
		{"New negative form", newMap(g, rule.G{}, 2, 3, WithForm(Form(-1))), "form"},
		{"New unknown form, pointwise kernel", newMap(kernel.ArcCos{}, rule.G{}, 2, 3, WithForm(Form(7))), "form"},
		{"New nil option", newMap(g, rule.G{}, 2, 3, nil), "option"},
		{"New nil kernel", newMap(nil, rule.G{}, 2, 3), "kernel"},
		{"New nil rule", newMap(g, nil, 2, 3), "rule"},
		{"New zero bandwidth", newMap(kernel.Gaussian{}, rule.G{}, 2, 3), "bandwidth"},
		{"New NaN bandwidth", newMap(kernel.Cauchy{S: math.NaN()}, rule.G{}, 2, 3), "bandwidth"},
		{"New infinite bandwidth", newMap(kernel.Matern{Nu: 1.5, S: math.Inf(1)}, rule.G{}, 2, 3), "bandwidth"},
		{"New Matérn ν NaN", newMap(kernel.Matern{Nu: math.NaN(), S: 1}, rule.G{}, 3, 8), "spectral law"},
		{"New Matérn ν +Inf", newMap(kernel.Matern{Nu: math.Inf(1), S: 1}, rule.G{}, 3, 8), "spectral law"},
		{"New Matérn ν 0", newMap(kernel.Matern{Nu: 0, S: 1}, rule.G{}, 3, 8), "spectral law"},
		{"New Matérn ν < 0", newMap(kernel.Matern{Nu: -1, S: 1}, rule.G{}, 3, 8), "spectral law"},
		{"New Matérn ν 1e-300", newMap(kernel.Matern{Nu: 1e-300, S: 1}, rule.G{}, 3, 8), "spectral law"},
		{"New GQ degree 2^40", newMap(g, rule.GQ{Degree: 1 << 40}, 3, 8), "degree"},
		{"New SORF 2^40 blocks", newMap(g, rule.SORF{Blocks: 1 << 40}, 3, 8), "Hadamard blocks"},
		{"New QMC skip near MaxInt", newMap(g, rule.QMC{Skip: math.MaxInt - 2}, 3, 8), "skip"},
		{"New SR rounded past 2^31 coordinates", newMap(g, rule.SR{}, 1<<16, 1), "too many"},
		{"New SR-Haar beyond the rotations' limit, before drawing", newMap(g, rule.SR{Rotation: rule.Haar}, rule.MaxSquareDim+1, 1), "rotations"},
		{"New SR unknown rotation", newMap(g, rule.SR{Rotation: 7}, 3, 8), "rotation"},
		{"DrawSpectral nil rule", func() error {
			_, _, err := DrawSpectral(g.Law(), nil, 2, 3, NewSource(1))
			return err
		}, "rule"},
		{"DrawSpectral nil source", func() error { _, _, err := DrawSpectral(g.Law(), rule.G{}, 2, 3, nil); return err }, "source"},
		{"DrawSpectral d = 0", func() error { _, _, err := DrawSpectral(g.Law(), rule.G{}, 0, 3, NewSource(1)); return err }, "dimension"},
		{"Estimate lengths", func() error { _, err := m.Estimate(make([]float64, F), make([]float64, F-1)); return err }, "features"},
		{"Estimate both short", func() error { _, err := m.Estimate(make([]float64, 2), make([]float64, 2)); return err }, "features"},
		{"Estimate nil map", func() error { _, err := nilMap.Estimate(nil, nil); return err }, "nil"},
		{"Estimate zero map", func() error { _, err := zeroMap.Estimate(nil, nil); return err }, "New"},
		{"TransformRows nil map", func() error { return nilMap.TransformRows(nil, nil, 0) }, "nil"},
		{"TransformRows zero map", func() error { return zeroMap.TransformRows(nil, nil, 0) }, "New"},
		{"TransformRows negative n", func() error { return m.TransformRows(nil, nil, -1) }, "rows"},
		{"TransformRows short x", func() error { return m.TransformRows(make([]float64, F), x[:1], 1) }, "input"},
		{"TransformRows short dst", func() error { return m.TransformRows(make([]float64, F-1), x[:2], 1) }, "output"},
		{"TransformRows n·d overflows", func() error { return m.TransformRows(nil, nil, 1<<62) }, "input"},
		{"TransformRows NaN", func() error { return m.TransformRows(make([]float64, F), []float64{math.NaN(), 0}, 1) }, "NaN"},
		{"TransformRows Inf", func() error { return m.TransformRows(make([]float64, F), []float64{0, math.Inf(-1)}, 1) }, "Inf"},
		{"Transform nil map", func() error { return nilMap.Transform(&mat.Dense{}, mat.NewDense(1, 2, x[:2])) }, "nil"},
		{"Transform nil dst", func() error { return m.Transform(nil, mat.NewDense(1, 2, x[:2])) }, "destination"},
		{"Transform nil x", func() error { return m.Transform(&mat.Dense{}, nil) }, "input"},
		{"Transform typed nil x", func() error { var xd *mat.Dense; return m.Transform(&mat.Dense{}, xd) }, "input"},
		{"Transform columns", func() error { return m.Transform(&mat.Dense{}, mat.NewDense(1, 4, x)) }, "columns"},
		{"Transform dst shape", func() error { return m.Transform(mat.NewDense(1, 1, nil), mat.NewDense(1, 2, x[:2])) }, "destination"},
		{"Derivative nil map", func() error { return nilMap.Derivative(nil, nil, 0, nil) }, "nil"},
		{"Derivative zero map", func() error { return zeroMap.Derivative(nil, nil, 0, nil) }, "New"},
		{"Derivative pointwise", func() error { return ac.Derivative(make([]float64, ac.Features()), x[:2], 1, nil) }, "pointwise"},
		{"Derivative bad p", func() error { return m.Derivative(make([]float64, F), x[:2], 1, []int{1}) }, "multi-index"},
		{"Derivative negative p", func() error { return m.Derivative(make([]float64, F), x[:2], 1, []int{-1, 0}) }, "negative"},
		{"Derivative huge order", func() error {
			return m.Derivative(make([]float64, F), x[:2], 1, []int{math.MaxInt32, 0})
		}, "order"},
		{"Derivative negative rows", func() error { return m.Derivative(nil, nil, -1, nil) }, "rows"},
		{"Derivative rows·d overflows", func() error { return m.Derivative(nil, nil, 1<<62, nil) }, "input"},
		{"Derivative short dst", func() error { return m.Derivative(make([]float64, F-1), x[:2], 1, nil) }, "output"},
		{"Derivative NaN", func() error { return m.Derivative(make([]float64, F), []float64{0, math.NaN()}, 1, nil) }, "NaN"},
		{"Gradient nil map", func() error { return nilMap.Gradient(nil, nil, 0) }, "nil"},
		{"Gradient short dst", func() error { return m.Gradient(make([]float64, F), x[:2], 1) }, "output"},
		{"EstimateDeriv nil map", func() error { _, err := nilMap.EstimateDeriv(x[:2], x[:2], nil, nil); return err }, "nil"},
		{"EstimateDeriv lengths", func() error { _, err := m.EstimateDeriv(x[:2], x[:3], nil, nil); return err }, "input"},
		{"EstimateDeriv bad q", func() error { _, err := m.EstimateDeriv(x[:2], x[:2], nil, []int{0, 0, 1}); return err }, "multi-index"},
	}
	misusetest.Check(t, cases)
}

// TestNilMapAccessors: the accessors of a nil or zero *Map report an empty map instead of panicking, so that a
// caller can print or check a map it failed to build.
func TestNilMapAccessors(t *testing.T) {
	for name, m := range map[string]*Map{"nil": nil, "zero": {}} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s map: panicked: %v", name, r)
				}
			}()
			if m.Dim() != 0 || m.Points() != 0 || m.Features() != 0 || m.Offset() != 0 || m.Seed() != 0 ||
				m.Form() != CosSin || m.Kernel() != nil || m.Rule() != nil || m.Frequencies() != nil || m.Weights() != nil {
				t.Errorf("%s map: accessors do not describe an empty map", name)
			}
		}()
	}
}

// TestNewBeyondMemory: a draw the machine cannot hold — a structured rule in a dimension whose power of two makes its
// vectors larger than memory and swap, though D·d is within the limit of one array — is an error, not the
// runtime's fatal out-of-memory error.
func TestNewBeyondMemory(t *testing.T) {
	const d, D = 1 << 31, 1
	mem := dataset.MachineMemory()
	held, scratch := rule.DrawBytes(rule.SORF{}, d, D, true)
	if mem <= 0 || held+scratch <= mem {
		t.Skipf("this machine could hold the draw (%d bytes of %d)", held+scratch, mem)
	}
	if _, err := New(kernel.Gaussian{S: 1}, rule.SORF{}, d, D, 1); err == nil || !strings.Contains(err.Error(), "more than this machine's memory") {
		t.Errorf("err = %v", err)
	}
}
