package ovk

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/misusetest"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// misuse is one call a caller can get wrong: it must return an error whose message contains want, and never panic.
type misuse = misusetest.Case

// TestMisuse: the exported functions and methods of package ovk return errors, not panics, for arguments a caller
// can get wrong: nil or zero kernels and maps, bad sizes, lengths that do not match (also when a product of sizes
// overflows int), non-finite inputs and sizes no machine can hold.
func TestMisuse(t *testing.T) {
	curl, err := NewCurlFree(1)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := NewDecomposable(kernel.Gaussian{S: 1}, mat.NewSymDense(2, []float64{2, 1, 1, 2}))
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(curl, rule.G{}, 2, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	var nilK *Kernel
	zeroK := &Kernel{}
	var nilMap *Map
	zeroMap := &Map{}
	F, p := m.Features(), m.Outputs()
	x := []float64{0.1, 0.2, 0.3, 0.4}
	theta := make([]float64, F)
	big := 1 << 32 // big·big wraps to 0 in int arithmetic
	newMap := func(k *Kernel, r rule.Rule, d, D int) func() error {
		return func() error { _, err := New(k, r, d, D, 1); return err }
	}
	cases := []misuse{
		// Kernels.
		{"NewDecomposable nil k0", func() error { _, err := NewDecomposable(nil, mat.NewSymDense(1, []float64{1})); return err }, "k₀"},
		{"NewDecomposable nil A", func() error { _, err := NewDecomposable(kernel.Gaussian{S: 1}, nil); return err }, "A"},
		{"NewDecomposable typed nil A", func() error {
			var a *mat.SymDense
			_, err := NewDecomposable(kernel.Gaussian{S: 1}, a)
			return err
		}, "A"},
		{"NewDecomposable NaN", func() error {
			_, err := NewDecomposable(kernel.Gaussian{S: 1}, mat.NewSymDense(1, []float64{math.NaN()}))
			return err
		}, "NaN"},
		{"NewCurlFree σ = 0", func() error { _, err := NewCurlFree(0); return err }, "σ"},
		{"NewHelmholtz NaN weight", func() error { _, err := NewHelmholtz(1, math.NaN()); return err }, "weight"},
		{"Outputs nil kernel", func() error { _, err := nilK.Outputs(2); return err }, "nil"},
		{"Outputs zero kernel", func() error { _, err := zeroK.Outputs(2); return err }, "New"},
		{"At nil kernel", func() error { _, err := nilK.At(x[:2], x[:2]); return err }, "nil"},
		{"At zero kernel", func() error { _, err := zeroK.At(x[:2], x[:2]); return err }, "New"},
		{"At lengths", func() error { _, err := curl.At(x[:2], x[:3]); return err }, "coordinates"},
		{"At d = 0", func() error { _, err := curl.At(nil, nil); return err }, "dimension"},
		{"Gram nil kernel", func() error { return Gram(nil, nil, x[:2], 1, x[:2], 1, 2) }, "kernel"},
		{"Gram zero kernel", func() error { return Gram(make([]float64, 4), zeroK, x[:2], 1, x[:2], 1, 2) }, "New"},
		{"Gram short dst", func() error { return Gram(make([]float64, 3), curl, x[:2], 1, x[:2], 1, 2) }, "shapes"},
		{"Gram n·d overflows", func() error { return Gram(nil, curl, nil, big, nil, 0, big) }, "shapes"},
		{"Gram negative n", func() error { return Gram(nil, dec, nil, -1, nil, 0, 2) }, "shapes"},
		{"GramDense nil kernel", func() error {
			_, err := GramDense(nil, mat.NewDense(1, 2, x[:2]), mat.NewDense(1, 2, x[:2]))
			return err
		}, "kernel"},
		{"GramDense nil X", func() error { _, err := GramDense(curl, nil, mat.NewDense(1, 2, x[:2])); return err }, "nil"},
		{"GramDense nil Z", func() error { _, err := GramDense(curl, mat.NewDense(1, 2, x[:2]), nil); return err }, "nil"},
		{"GramDense empty", func() error { _, err := GramDense(curl, &mat.Dense{}, &mat.Dense{}); return err }, "empty"},
		{"GramDense too large", func() error { _, err := GramDense(curl, hugeRows{1 << 22, 2}, hugeRows{1 << 22, 2}); return err }, "GiB"},
		{"OutputCovariance n·p overflows", func() error { _, err := OutputCovariance(nil, big, big); return err }, "n="},
		{"OutputCovariance short", func() error { _, err := OutputCovariance(x[:3], 2, 2); return err }, "len"},
		// Maps.
		{"New nil kernel", newMap(nil, rule.G{}, 2, 3), "kernel"},
		{"New zero kernel", newMap(zeroK, rule.G{}, 2, 3), "New"},
		{"New nil rule", newMap(curl, nil, 2, 3), "rule"},
		{"New d = 0", newMap(curl, rule.G{}, 0, 3), "dimension"},
		{"New D = 0", newMap(curl, rule.G{}, 2, 0), "points"},
		{"New D < 0", newMap(dec, rule.SR{}, 2, -1), "points"},
		{"New D·d·p' overflows", newMap(curl, rule.G{}, big, big), "too"},
		{"New div-free d = 1", func() error {
			k, err := NewDivFree(1)
			if err != nil {
				return nil
			}
			_, err = New(k, rule.G{}, 1, 3, 1)
			return err
		}, "d ≥ 2"},
		{"TransformRows nil map", func() error { return nilMap.TransformRows(nil, nil, 0) }, "nil"},
		{"TransformRows zero map", func() error { return zeroMap.TransformRows(nil, nil, 0) }, "New"},
		{"TransformRows negative n", func() error { return m.TransformRows(nil, nil, -1) }, "rows"},
		{"TransformRows n·d overflows", func() error { return m.TransformRows(nil, nil, 1<<62) }, "input"},
		{"TransformRows short dst", func() error { return m.TransformRows(make([]float64, p*F-1), x[:2], 1) }, "output"},
		{"TransformRows NaN", func() error { return m.TransformRows(make([]float64, p*F), []float64{math.NaN(), 0}, 1) }, "NaN"},
		{"Transform nil map", func() error { return nilMap.Transform(&mat.Dense{}, mat.NewDense(1, 2, x[:2])) }, "nil"},
		{"Transform nil dst", func() error { return m.Transform(nil, mat.NewDense(1, 2, x[:2])) }, "destination"},
		{"Transform nil x", func() error { return m.Transform(&mat.Dense{}, nil) }, "input"},
		{"Transform columns", func() error { return m.Transform(&mat.Dense{}, mat.NewDense(1, 4, x)) }, "columns"},
		{"Phi nil map", func() error { _, err := nilMap.Phi(x[:2]); return err }, "nil"},
		{"Phi length", func() error { _, err := m.Phi(x[:3]); return err }, "input"},
		{"Estimate nil map", func() error { _, err := nilMap.Estimate(x[:2], x[:2]); return err }, "nil"},
		{"Estimate zero map", func() error { _, err := zeroMap.Estimate(x[:2], x[:2]); return err }, "New"},
		{"Estimate length", func() error { _, err := m.Estimate(x[:2], x[:3]); return err }, "input"},
		{"Estimate Inf", func() error { _, err := m.Estimate(x[:2], []float64{math.Inf(1), 0}); return err }, "Inf"},
		{"Predict nil map", func() error { return nilMap.Predict(nil, nil, 0, nil) }, "nil"},
		{"Predict zero map", func() error { return zeroMap.Predict(nil, nil, 0, nil) }, "New"},
		{"Predict θ length", func() error { return m.Predict(make([]float64, p), x[:2], 1, theta[1:]) }, "θ"},
		{"Predict dst length", func() error { return m.Predict(make([]float64, p-1), x[:2], 1, theta) }, "prediction"},
		{"Predict rows·d overflows", func() error { return m.Predict(nil, nil, 1<<62, theta) }, "input"},
		{"Adjoint nil map", func() error { return nilMap.Adjoint(nil, nil, 0, nil) }, "nil"},
		{"Adjoint y length", func() error { return m.Adjoint(make([]float64, F), x[:2], 1, x[:1]) }, "y"},
		{"Adjoint dst length", func() error { return m.Adjoint(make([]float64, F+1), x[:2], 1, x[:2]) }, "destination"},
		{"Jacobian nil map", func() error { return nilMap.Jacobian(nil, x[:2], nil) }, "nil"},
		{"Jacobian zero map", func() error { return zeroMap.Jacobian(nil, x[:2], nil) }, "New"},
		{"Jacobian dst length", func() error { return m.Jacobian(make([]float64, 3), x[:2], theta) }, "Jacobian"},
		{"Jacobian θ length", func() error { return m.Jacobian(make([]float64, 4), x[:2], nil) }, "θ"},
		{"Jacobian x length", func() error { return m.Jacobian(make([]float64, 4), x[:1], theta) }, "input"},
		{"SupError nil map", func() error { _, err := SupError(nil, x[:2], x[:2], 1); return err }, "nil"},
		{"SupError zero map", func() error { _, err := SupError(zeroMap, x[:2], x[:2], 1); return err }, "New"},
		{"SupError lengths", func() error { _, err := SupError(m, x[:2], x[:4], 1); return err }, "input"},
		{"EmpiricalVariance nil rule", func() error {
			_, err := EmpiricalVariance(curl, nil, 2, 3, x[:2], x[:2], []uint64{1})
			return err
		}, "rule"},
		{"EmpiricalVariance zero kernel", func() error {
			_, err := EmpiricalVariance(zeroK, rule.G{}, 2, 3, x[:2], x[:2], []uint64{1})
			return err
		}, "New"},
		{"EmpiricalVariance D = 0", func() error {
			_, err := EmpiricalVariance(curl, rule.G{}, 2, 0, x[:2], x[:2], []uint64{1, 2, 3})
			return err
		}, "points"},
		{"VarianceNorm lengths", func() error {
			_, err := VarianceNorm(curl, rule.G{}, 2, 3, x[:2], x[:3], []uint64{1})
			return err
		}, "coordinates"},
	}
	misusetest.Check(t, cases)
}

// TestNilAccessors: the accessors of a nil or zero Kernel and Map describe an empty value instead of panicking.
func TestNilAccessors(t *testing.T) {
	for name, k := range map[string]*Kernel{"nil": nil, "zero": {}} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s kernel: panicked: %v", name, r)
				}
			}()
			if k.A() != nil || k.B() != nil || k.Sigma() != 0 || k.Scalar() != nil {
				t.Errorf("%s kernel: accessors do not describe an empty kernel", name)
			}
			_, _ = k.Kind(), k.Name()
			_ = k.Weight()
		}()
	}
	for name, m := range map[string]*Map{"nil": nil, "zero": {}} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s map: panicked: %v", name, r)
				}
			}()
			if m.Dim() != 0 || m.Outputs() != 0 || m.Rank() != 0 || m.Points() != 0 || m.Features() != 0 ||
				m.ScalarFeatures() != 0 || m.Offset() != 0 || m.Kernel() != nil || m.Rule() != nil || m.Seed() != 0 {
				t.Errorf("%s map: accessors do not describe an empty map", name)
			}
		}()
	}
}

// hugeRows is a mat.Matrix that reports a large shape and holds no data: only its Dims may be called.
type hugeRows struct{ r, c int }

func (h hugeRows) Dims() (int, int)    { return h.r, h.c }
func (h hugeRows) At(i, j int) float64 { panic("hugeRows.At called: the size check came too late") }
func (h hugeRows) T() mat.Matrix       { return mat.Transpose{Matrix: h} }
