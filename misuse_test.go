package rff

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/misusetest"
	"github.com/rffkit/rff/model"
)

// TestMisuse: the root package returns errors, not panics, for what a caller can get wrong: a nil or zero Model,
// a nil reader or scaler, Data whose labels, targets or names do not hold together, inputs that overflow the
// model's preprocessing, and sizes that overflow.
func TestMisuse(t *testing.T) {
	data := &dataset.Data{X: []float64{0.5, 1.5, 2.5, 3.5, 4.5, 5.5}, N: 6, D: 1, Y: []float64{1, 2, 1, 2, 1, 2},
		Names: []string{"u"}, TargetName: "y"}
	m, err := Fit(Config{Points: 16, Lambda: 1e-3, Sigma: 1, Seed: 1}, data)
	if err != nil {
		t.Fatal(err)
	}
	labelled := func(y ...float64) *dataset.Data {
		return &dataset.Data{X: []float64{0.5, 1.5, 2.5, 3.5}, N: 4, D: 1, Y: y, Labels: []string{"a", "b"}}
	}
	tiny, err := Fit(Config{Points: 16, Lambda: 1e-3, Sigma: 1, Seed: 1}, &dataset.Data{
		X: []float64{1e-3, 2e-3, 3e-3, 4e-3}, N: 4, D: 1, Y: []float64{1, 2, 1, 2}}) // standardizing divides by ~1e-3
	if err != nil {
		t.Fatal(err)
	}
	cls, err := Fit(Config{Task: "classification", Points: 8, Lambda: 1e-3, Sigma: 1, Seed: 1}, labelled(0, 1, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	var nilModel *Model
	zero := &Model{}
	fitData := func(d *dataset.Data) func() error {
		return func() error {
			_, err := Fit(Config{Task: "classification", Points: 8, Sigma: 1, Seed: 1}, d)
			return err
		}
	}
	cases := []misusetest.Case{
		{"PredictRows on nil", func() error { _, err := nilModel.PredictRows([]float64{1}, 1); return err }, "no model"},
		{"PredictRows on zero", func() error { _, err := zero.PredictRows([]float64{1}, 1); return err }, "no model"},
		{"Predict on zero", func() error { _, err := zero.Predict(data); return err }, "no model"},
		{"Score on zero", func() error { _, err := zero.Score(data); return err }, "no model"},
		{"Save on zero", func() error { return zero.Save(t.TempDir() + "/m.rff") }, "no model"},
		{"Write on nil", func() error { return nilModel.Write(&bytes.Buffer{}) }, "no model"},
		{"Inputs on zero", func() error { _, err := zero.Inputs(data); return err }, "no model"},
		{"PredictStd on zero", func() error { _, err := zero.PredictStd([]float64{1}, 1, false); return err }, "no model"},
		{"Sample on nil", func() error { _, err := nilModel.Sample([]float64{1}, 1, 2, 1); return err }, "no model"},
		{"Gradients on zero", func() error { _, err := zero.Gradients([]float64{1}, 1); return err }, "no model"},
		{"Jacobian on zero", func() error { _, err := zero.Jacobian([]float64{1}); return err }, "no model"},
		{"TargetOption on zero", func() error { _, err := zero.TargetOption("x.csv", dataset.FormatCSV); return err }, "no model"},
		{"Read nil", func() error { _, err := Read(nil); return err }, "nil reader"},
		{"ChooseSigma nil scaler", func() error { _, err := ChooseSigma(Config{}, []float64{1, 2}, nil); return err }, "no preprocessing"},
		{"negative MaxClasses", func() error {
			_, err := Fit(Config{Task: "classification", Points: 8, Sigma: 1, MaxClasses: -1}, labelled(0, 1, 0, 1))
			return err
		}, "max classes = -1"},
		{"negative TunePoints", func() error { _, err := Fit(Config{Points: 8, Tune: true, TunePoints: -1}, data); return err }, "tune points = -1"},
		// Settings the chosen mode would ignore are refused, not dropped.
		{"tuning grid without Tune", func() error { _, err := Fit(Config{Points: 8, Sigmas: []float64{1}}, data); return err }, "settings of Tune"},
		{"Select without Tune", func() error { _, err := Fit(Config{Points: 8, Select: "evidence"}, data); return err }, "settings of Tune"},
		{"Lambdas without CV or Tune", func() error { _, err := Fit(Config{Points: 8, Lambdas: []float64{1e-3}}, data); return err }, "λ grid of CV and Tune"},
		{"simplex encoding of a regression", func() error { _, err := Fit(Config{Points: 8, Encoding: "simplex"}, data); return err }, "simplex encoding"},
		{"MaxClasses of a regression", func() error { _, err := Fit(Config{Points: 8, MaxClasses: 5}, data); return err }, "MaxClasses bounds"},
		{"median heuristic of equal rows, tuning", func() error {
			_, err := Fit(Config{Points: 8, Tune: true}, &dataset.Data{X: []float64{1, 1, 1, 1}, N: 4, D: 1, Y: []float64{1, 2, 3, 4}})
			return err
		}, "give the bandwidths to score (Config.Sigmas)"},
		{"median heuristic of equal rows", func() error {
			_, err := Fit(Config{Points: 8, Lambda: 1e-3}, &dataset.Data{X: []float64{1, 1, 1, 1}, N: 4, D: 1, Y: []float64{1, 2, 3, 4}})
			return err
		}, "give σ (Config.Sigma)"},
		{"MaxClasses 1", func() error {
			_, err := Fit(Config{Points: 8, Task: "classification", MaxClasses: 1}, data)
			return err
		}, "a classifier needs two classes (Config.MaxClasses)"},
		{"negative Lambda", func() error { _, err := Fit(Config{Points: 8, Lambda: -1}, data); return err }, "λ = -1: want a finite λ ≥ 0 (Config.Lambda)"},
		{"Sigmas beyond the kernel's range", func() error {
			_, err := Fit(Config{Points: 8, Tune: true, Sigmas: []float64{1, 1e-300}}, data)
			return err
		}, "σ grid value 1e-300: kernel gaussian: bandwidth"},
		{"negative MaxIter", func() error { _, err := Fit(Config{Points: 8, MaxIter: -1}, data); return err }, "MaxIter must be ≥ 0"},
		{"MaxIter of the squared loss", func() error { _, err := Fit(Config{Points: 8, MaxIter: 5}, data); return err }, "MaxIter bounds the iterations"},
		{"simplex logistic", func() error {
			_, err := Fit(Config{Points: 8, Task: "classification", Loss: "logistic", Encoding: "simplex", Lambda: 1e-3}, data)
			return err
		}, "the logistic loss scores every class in one multinomial model"},
		{"cos+phase on a vector-valued model", func() error {
			_, err := Fit(Config{Points: 8, OVK: "curl-free", Form: "cosphase", Targets: []string{"a"}}, data)
			return err
		}, "cos+phase form"},
		{"cos+phase on an arc-cosine kernel", func() error { _, err := Fit(Config{Points: 8, Kernel: "arccos1", Form: "cosphase"}, data); return err }, "cos+phase form"},
		{"points of an exact model", func() error { _, err := Fit(Config{Exact: true, Points: 8, Lambda: 1e-3}, data); return err }, "exact model uses the kernel itself"},
		{"rule of an exact model", func() error { _, err := Fit(Config{Exact: true, Rule: "orf", Lambda: 1e-3}, data); return err }, "exact model uses the kernel itself"},
		{"form of an exact model", func() error { _, err := Fit(Config{Exact: true, Form: "cossin", Lambda: 1e-3}, data); return err }, "exact model uses the kernel itself"},
		{"fallback of an exact model", func() error { _, err := Fit(Config{Exact: true, Fallback: "orf", Lambda: 1e-3}, data); return err }, "exact model uses the kernel itself"},
		{"tuning points of an exact model", func() error { _, err := Fit(Config{Exact: true, Tune: true, TunePoints: 8}, data); return err }, "exact model uses the kernel itself"},
		{"Sigma with Tune", func() error { _, err := Fit(Config{Points: 8, Tune: true, Sigma: 2}, data); return err }, "Sigma is chosen by Tune"},
		{"Lambda with Tune", func() error { _, err := Fit(Config{Points: 8, Tune: true, Lambda: 1e-3}, data); return err }, "Lambda is chosen by Tune and CV"},
		{"Lambda with CV", func() error {
			_, err := Fit(Config{Points: 8, CV: 3, Lambdas: []float64{1e-3, 1e-2}, Lambda: 0.5}, data)
			return err
		}, "Lambda is chosen by Tune and CV"},
		{"Sigmas of a scale-free kernel", func() error {
			_, err := Fit(Config{Points: 8, Tune: true, Kernel: "arccos1", Sigmas: []float64{1, 2}}, data)
			return err
		}, "has none"},
		{"uncertainty without λ", func() error { _, err := Fit(Config{Points: 8, Sigma: 1, Uncertainty: true}, data); return err }, "uncertainty needs λ > 0"},
		{"uncertainty in mixed precision", func() error {
			_, err := Fit(Config{Points: 8, Sigma: 1, Lambda: 1e-3, Uncertainty: true, Precision: "mixed"}, data)
			return err
		}, "without uncertainty"},
		{"tuning rows fewer than folds", func() error {
			_, err := Fit(Config{Points: 8, Tune: true, Select: "cv", TuneRows: 3}, data)
			return err
		}, "tuning uses 3"},
		{"unknown fallback rule", func() error { _, err := Fit(Config{Points: 8, Fallback: "foo"}, data); return err }, `unknown rule "foo"`},
		{"hermite vector-valued model", func() error {
			_, err := FitHermite(Config{Points: 8, Lambda: 1e-3, OVK: "curl-free", Targets: []string{"a"}}, data, data.Y, nil)
			return err
		}, "not the hermite task"},
		{"regression on a target with a stray non-number", func() error {
			_, err := Fit(Config{Points: 8, Sigma: 1}, &dataset.Data{X: []float64{1, 2, 3, 4}, N: 4, D: 1, TargetName: "y",
				Labels: []string{"-0.5", "1_000", "2"}, Y: []float64{0, 2, 1, 0}})
			return err
		}, `"y" holds "1_000" in data row 3, which is not a number`},
		{"label index out of range", fitData(labelled(0, 1, 7, 1)), "not the index of one of the 2 labels"},
		{"negative label index", fitData(labelled(0, 1, -1, 1)), "not the index"},
		{"NaN label index", fitData(labelled(0, 1, math.NaN(), 1)), "not the index"},
		{"fractional label index", fitData(labelled(0, 1, 0.5, 1)), "not the index"},
		{"duplicate names", func() error {
			_, err := Fit(Config{Points: 8, Sigma: 1}, &dataset.Data{X: []float64{1, 2, 3, 4}, N: 2, D: 2, Y: []float64{1, 2}, Names: []string{"a", "a"}})
			return err
		}, `both named "a"`},
		{"a name with a NUL", func() error {
			_, err := Fit(Config{Points: 8, Sigma: 1}, &dataset.Data{X: []float64{1, 2, 3, 4}, N: 2, D: 2, Y: []float64{1, 2}, Names: []string{"a", "b\x00"}})
			return err
		}, `column 2: the name "b\x00" is not printable text`},
		{"Score with short targets", func() error {
			_, err := m.Score(&dataset.Data{X: data.X, N: 6, D: 1, Y: data.Y[:5], Names: data.Names})
			return err
		}, "5 targets for 6 rows"},
		{"Score with a NaN target", func() error {
			_, err := m.Score(&dataset.Data{X: data.X, N: 6, D: 1, Y: []float64{1, 2, math.NaN(), 2, 1, 2}, Names: data.Names})
			return err
		}, "row 3: target is not a number"},
		{"Score of a classifier with a bad label index", func() error { _, err := cls.Score(labelled(0, 1, 9, 1)); return err }, "not a label index"},
		{"input overflowing the preprocessing", func() error { _, err := tiny.PredictRows([]float64{1.7e308}, 1); return err }, "row 1: column 1 (x1) is +Inf after preprocessing: too large for the model's scaling"},
		{"input overflowing the features", func() error { _, err := m.PredictRows([]float64{0.5, 1.7e308}, 2); return err }, "row 2: column 1 (u) is 9.95418074407504e+307 after preprocessing: too large for the kernel's random features"},
		{"nystrom centres overflow", func() error {
			_, err := Fit(Config{Map: "nystrom", Centres: math.MaxInt, Sigma: 1}, data)
			return err
		}, "exceeds the 6 training rows"},
	}
	misusetest.Check(t, cases)
	if in := zero.Info(); in.Task != "" || zero.String() != "rff: no model" || nilModel.Report() != nil {
		t.Errorf("zero model: Info %+v, String %q", in, zero.String())
	}
	if p := model.ProbeInput(1 << 40); p != nil {
		t.Errorf("ProbeInput(2⁴⁰) returned %d values", len(p))
	}
}

// Inputs far outside the training data: a model on random features refuses preprocessed values beyond the 1e100 a
// fit accepts (their projections ωᵀx overflow, and well before that their cos/sin are rounding noise) in every
// prediction — values, standard deviations, samples, gradients — naming the row and column; exact and Nyström
// models, whose kernel values vanish there, predict there what they predict anywhere far away.
func TestFarInputs(t *testing.T) {
	n := 40
	data := &dataset.Data{N: n, D: 2, Names: []string{"a", "b"}, TargetName: "y"}
	for i := range n {
		a, b := math.Sin(float64(3*i+1)), math.Cos(float64(5*i+2))
		data.X = append(data.X, a, b)
		data.Y = append(data.Y, math.Sin(2*a)+b)
	}
	far := []float64{0.1, 0.2, 0.3, 1e150} // row 2, column b
	rf, err := Fit(Config{Points: 16, Sigma: 1, Lambda: 1e-3, Uncertainty: true}, data)
	if err != nil {
		t.Fatal(err)
	}
	const want = "row 2: column 2 (b) is"
	for name, call := range map[string]func() error{
		"PredictRows": func() error { _, err := rf.PredictRows(far, 2); return err },
		"PredictStd":  func() error { _, err := rf.PredictStd(far, 2, true); return err },
		"Sample":      func() error { _, err := rf.Sample(far, 2, 3, 1); return err },
		"Gradients":   func() error { _, err := rf.Gradients(far, 2); return err },
	} {
		if err := call(); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "too large for the kernel's random features") {
			t.Errorf("%s: %v, want %q…", name, err, want)
		}
	}
	// just inside the limit: predicted
	if _, err := rf.PredictRows([]float64{0.1, 1e90}, 1); err != nil {
		t.Errorf("an input of 1e90 (≈1e90 after standardizing): %v", err)
	}
	for _, cfg := range []Config{{Exact: true, Sigma: 1, Lambda: 1e-3}, {Map: "nystrom", Centres: 20, Sigma: 1, Lambda: 1e-3}} {
		m, err := Fit(cfg, data)
		if err != nil {
			t.Fatal(err)
		}
		p, err := m.PredictRows(append(far, -1e200, 3e140), 3)
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		// far from every centre every kernel value underflows to 0: the prediction is the same constant
		if p.Values[1] != p.Values[2] || math.IsNaN(p.Values[1]) {
			t.Errorf("%+v: predictions far away %v and %v", cfg, p.Values[1], p.Values[2])
		}
	}
}

// Calls that were quietly wrong or panicked on what a caller can get wrong: a nil writer, a bandwidth for a kernel
// without one, a hermite fit without λ or with Exact, inputs or targets that are not whole rows.
func TestMisuseMore(t *testing.T) {
	n := 20
	data := &dataset.Data{N: n, D: 1, Names: []string{"x"}}
	for i := range n {
		data.X = append(data.X, math.Sin(float64(i)))
		data.Y = append(data.Y, math.Cos(float64(i)))
	}
	m, err := Fit(Config{Points: 8, Sigma: 1, Lambda: 1e-3}, data)
	if err != nil {
		t.Fatal(err)
	}
	misusetest.Check(t, []misusetest.Case{
		{"Write to nil", func() error { return m.Write(nil) }, "nil writer"},
		{"Load of no path", func() error { _, err := Load(""); return err }, "no path given"},
		{"Sigma of arccos1", func() error {
			_, err := Fit(Config{Points: 8, Kernel: "arccos1", Sigma: 3, Lambda: 1e-3}, data)
			return err
		}, "the arccos1 kernel has none"},
		{"λ whose N·λ overflows", func() error { _, err := Fit(Config{Points: 8, Sigma: 1, Lambda: 1e308}, data); return err },
			"N·λ = 20·1e+308 overflows floating point, so the ridge term NλI cannot be formed; lower λ (Config.Lambda)"},
		{"λ whose N·λ overflows, logistic", func() error {
			_, err := Fit(Config{Task: "classification", Loss: "logistic", Points: 8, Sigma: 1, Lambda: 1e308}, &dataset.Data{
				X: data.X, N: n, D: 1, Y: []float64{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}, Labels: []string{"a", "b"}})
			return err
		}, "(Config.Lambda)"},
		{"λ whose N·λ overflows, exact OVK", func() error {
			_, err := Fit(Config{Exact: true, OVK: "decomposable", Targets: []string{"x"}, Sigma: 1, Lambda: 1e308},
				&dataset.Data{X: append(append([]float64(nil), data.X...), data.Y...), N: n, D: 2, Names: []string{"u", "x"}})
			return err
		}, "(Config.Lambda)"},
		{"uncertainty of an exact model", func() error {
			_, err := Fit(Config{Exact: true, Sigma: 1, Lambda: 1e-3, Uncertainty: true}, data)
			return err
		}, "on scalar random or Nyström features"},
		{"hermite without λ", func() error { _, err := FitHermite(Config{Points: 8, Sigma: 1}, data, data.Y, nil); return err }, "hermite models need λ > 0"},
		{"hermite exact", func() error {
			_, err := FitHermite(Config{Exact: true, Sigma: 1, Lambda: 1e-3}, data, data.Y, nil)
			return err
		}, "leave Config.Exact off"},
		{"inputs not whole rows", func() error { return CheckInputMagnitude([]float64{1, 2, 3}, 2, nil, 0) }, "not whole rows of 2 columns"},
		{"targets not whole rows", func() error { return CheckTargetMagnitude([]float64{1, 2, 3}, []string{"a", "b"}, 0) }, "not whole rows of 2 targets"},
	})
}
