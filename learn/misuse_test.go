package learn

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/misusetest"
	"github.com/rffkit/rff/kernel"
)

// misuse is one call a caller can get wrong: it must return an error whose message contains want, and never panic.
type misuse = misusetest.Case

// checkMisuse runs each case as a subtest under a recover guard.
func checkMisuse(t *testing.T, cases []misuse) {
	t.Helper()
	misusetest.Check(t, cases)
}

// TestMisuse: the exported functions and methods of package learn return errors, not panics, for arguments a
// caller can get wrong: sizes that are negative, overflow int or exceed what one array may hold, nil or zero maps,
// statistics, fits and accumulators, lengths that do not match, labels out of range and non-finite values.
func TestMisuse(t *testing.T) {
	const d, D, n, p = 2, 4, 6, 1
	m := gaussMap(t, d, D, 1, 1)
	F := m.Features()
	X, Y := regression(n, d, p, 0.1, 1)
	var nilMap *feature.Map
	zeroMap := &feature.Map{}
	var nilStats *Stats
	good, err := Accumulate(m, X, n, Y, p)
	if err != nil {
		t.Fatal(err)
	}
	consumed := good.Clone()
	if _, err := (Ridge{Lambda: 1}).SolveInPlace(consumed); err != nil {
		t.Fatal(err)
	}
	fit, err := Ridge{Lambda: 1e-3, Intercept: true}.Solve(good)
	if err != nil {
		t.Fatal(err)
	}
	var nilFit *Fit
	badFit := &Fit{F: F, P: p, Theta: fit.Theta[:F-1], Bias: fit.Bias}
	var nilAcc *Accumulator
	big := 1 << 32 // big·big wraps to 0 in int arithmetic
	labels := []int{0, 1, 0, 1, 0, 1}
	Z := features(t, m, X, n)
	wide := gaussMap(t, d, 16, 1, 1) // F = 32 > 2n: SelectLambdaMap works in the dual
	scaled := func(Y []float64, c float64) []float64 {
		out := make([]float64, len(Y))
		for i, v := range Y {
			out[i] = c * v
		}
		return out
	}
	newStats := func(F, P int) func() error { return func() error { _, err := NewStats(F, P); return err } }
	cases := []misuse{
		{"Solve CG tolerance NaN", func() error { _, err := (Ridge{Lambda: 1, Solver: CG, Tol: math.NaN()}).Solve(good); return err }, "CG tolerance NaN"},
		{"Solve CG tolerance negative", func() error { _, err := (Ridge{Lambda: 1, Solver: CG, Tol: -1}).Solve(good); return err }, "CG tolerance -1"},
		{"Solve negative MaxIter", func() error { _, err := (Ridge{Lambda: 1, Solver: CG, MaxIter: -3}).Solve(good); return err }, "iterations -3"},
		{"Merge rows overflow", func() error {
			a, b := mustStats(F, p), mustStats(F, p)
			a.N, b.N = 10, math.MaxInt
			return a.Merge(b)
		}, "rows overflow"},
		{"CrossValidateClasses unknown coding", func() error {
			_, err := CrossValidateClasses(m, X, n, []int{0, 1, 0, 1, 0, 1}, 2, Coding(9), 2, []float64{1e-3}, true)
			return err
		}, "unknown coding 9"},
		{"NewStats F = 0", newStats(0, 1), "F"},
		{"NewStats P = 0", newStats(1, 0), "P"},
		{"NewStats negative", newStats(-1, 5), "F"},
		{"NewStats 2^31 × 2^31", newStats(1<<31, 1<<31), "GiB"},
		{"NewStats 2^32 (F² overflows)", newStats(big, 1), "size"},
		{"NewStats 2^20 features", newStats(1<<20, 1), "GiB"},
		{"Stats.Merge nil receiver", func() error { return nilStats.Merge(good) }, "nil"},
		{"Stats.Merge nil argument", func() error { return good.Clone().Merge(nil) }, "nil"},
		{"Stats.Merge dimensions", func() error { s, _ := NewStats(F+1, p); return good.Clone().Merge(s) }, "dimensions"},
		{"Stats.Validate nil", func() error { return nilStats.Validate() }, "nil"},
		{"Stats.Validate F² overflows", func() error { return (&Stats{F: big, P: 1}).Validate() }, "slice lengths"},
		{"Stats.Validate consumed", func() error { return consumed.Validate() }, "consumed"},
		{"Ridge.Solve nil", func() error { _, err := Ridge{Lambda: 1}.Solve(nil); return err }, "nil"},
		{"Ridge.Solve F² overflows", func() error { _, err := Ridge{Lambda: 1}.Solve(&Stats{F: big, P: 1, N: 1}); return err }, "slice lengths"},
		{"Ridge.Solve NaN λ", func() error { _, err := Ridge{Lambda: math.NaN()}.Solve(good.Clone()); return err }, "λ"},
		{"Ridge.SolveInPlace consumed", func() error { _, err := Ridge{Lambda: 1}.SolveInPlace(consumed); return err }, "consumed"},
		{"Ridge.FitMap nil map", func() error { _, err := Ridge{Lambda: 1}.FitMap(nilMap, X, n, Y, p); return err }, "nil"},
		{"Ridge.FitMap zero map", func() error { _, err := Ridge{Lambda: 1}.FitMap(zeroMap, X, n, Y, p); return err }, "d"},
		{"Ridge.FitMap p = 0", func() error { _, err := Ridge{Lambda: 1}.FitMap(m, X, n, nil, 0); return err }, "p"},
		{"Ridge.FitMap n·d overflows", func() error { _, err := Ridge{Lambda: 1}.FitMap(m, nil, 1<<62, nil, 4); return err }, "X has 0"},
		{"Ridge.FitMap mixed n·d overflows", func() error {
			_, err := Ridge{Lambda: 1, Precision: Mixed}.FitMap(m, nil, 1<<62, nil, 4)
			return err
		}, "X has 0"},
		{"Ridge.FitMap NaN", func() error {
			Xn := append([]float64(nil), X...)
			Xn[3] = math.NaN()
			_, err := Ridge{Lambda: 1}.FitMap(m, Xn, n, Y, p)
			return err
		}, "NaN"},
		{"SolveMatrixFree nil map", func() error { _, err := Ridge{Lambda: 1}.SolveMatrixFree(nil, X, n, Y, p); return err }, "nil"},
		{"SolveMatrixFree n·p overflows", func() error {
			_, err := Ridge{Lambda: 1}.SolveMatrixFree(m, X, n, nil, big)
			return err
		}, "Y has 0"},
		{"Accumulate nil map", func() error { _, err := Accumulate(nilMap, X, n, Y, p); return err }, "nil"},
		{"Accumulate zero map", func() error { _, err := Accumulate(zeroMap, X, n, Y, p); return err }, "d"},
		{"Accumulate p = 0", func() error { _, err := Accumulate(m, X, n, nil, 0); return err }, "p"},
		{"NewAccumulator nil map", func() error { _, err := NewAccumulator(nil, 1); return err }, "nil"},
		{"NewAccumulator zero map", func() error { _, err := NewAccumulator(zeroMap, 1); return err }, "feature"},
		{"NewAccumulator p = 0", func() error { _, err := NewAccumulator(m, 0); return err }, "p"},
		{"Accumulator.Add nil", func() error { return nilAcc.Add(X, n, Y) }, "nil"},
		{"Accumulator.Add zero", func() error { return (&Accumulator{}).Add(X, n, Y) }, "NewAccumulator"},
		{"Accumulator.Stats nil", func() error { _, err := nilAcc.Stats(); return err }, "nil"},
		{"Accumulator.Stats zero", func() error { _, err := (&Accumulator{}).Stats(); return err }, "NewAccumulator"},
		{"Accumulator.Add after Stats", func() error {
			a, err := NewAccumulator(m, p)
			if err != nil {
				return nil
			}
			if _, err := a.Stats(); err != nil {
				return nil
			}
			return a.Add(X, n, Y)
		}, "already"},
		{"CrossValidate nil map", func() error { _, err := CrossValidate(nil, X, n, Y, p, 2, []float64{1}, true); return err }, "nil"},
		{"CrossValidate k = 1", func() error { _, err := CrossValidate(m, X, n, Y, p, 1, []float64{1}, true); return err }, "k"},
		{"CrossValidate NaN λ", func() error {
			_, err := CrossValidate(m, X, n, Y, p, 2, []float64{math.NaN()}, true)
			return err
		}, "λ"},
		{"KRR.Fit nil kernel", func() error { _, err := KRR{Lambda: 1}.Fit(X, n, d, Y, p); return err }, "kernel"},
		{"KRR.Fit n·d overflows", func() error {
			_, err := KRR{Kernel: kernel.Gaussian{S: 1}, Lambda: 1}.Fit(nil, 1<<62, 4, nil, 1)
			return err
		}, "X has 0"},
		{"KRR.Fit too large", func() error {
			_, err := KRR{Kernel: kernel.Gaussian{S: 1}, Lambda: 1, MaxBytes: 64}.Fit(X, n, d, Y, p)
			return err
		}, "limit"},
		{"Classifier.Fit Z length", func() error {
			_, err := Classifier{Loss: Hinge, Lambda: 1}.Fit(Z[1:], n, F, labels, 2)
			return err
		}, "Z has"},
		{"Classifier.Fit label out of range", func() error {
			_, err := Classifier{Loss: Hinge, Lambda: 1}.Fit(Z, n, F, []int{0, 1, 2, 0, 1, 0}, 2)
			return err
		}, "label"},
		{"Classifier.Fit 2^40 classes", func() error {
			_, err := Classifier{Loss: Hinge, Lambda: 1}.Fit(Z, n, F, labels, 1<<40)
			return err
		}, "GiB"},
		{"Ridge.Solve N·λ overflows", func() error { _, err := Ridge{Lambda: 1e308}.Solve(good.Clone()); return err }, "N·λ = 6·1e+308 overflows"},
		{"Ridge.Solve N·λ overflows CG", func() error {
			_, err := Ridge{Lambda: 1e308, Solver: CG}.Solve(good.Clone())
			return err
		}, "N·λ = 6·1e+308 overflows"},
		{"KRR.Fit N·λ overflows", func() error {
			_, err := KRR{Kernel: kernel.Gaussian{S: 1}, Lambda: 1e308, Intercept: true}.Fit(X, n, d, Y, p)
			return err
		}, "N·λ = 6·1e+308 overflows"},
		{"Classifier.Fit N·λ overflows", func() error {
			_, err := Classifier{Loss: Logistic, Lambda: 1e308}.Fit(Z, n, F, labels, 2)
			return err
		}, "N·λ = 6·1e+308 overflows"},
		{"Hermite.Fit N·λ overflows", func() error {
			_, err := Hermite{Lambda: 1e308}.Fit(m, X, n, Y, nil)
			return err
		}, "N·λ = 6·1e+308 overflows"},
		{"SelectLambdaMap, dual, N·λ overflows", func() error {
			_, err := SelectLambdaMap(wide, X, n, Y, p, []float64{1e-3, 1e308}, true)
			return err
		}, "N·λ = 6·1e+308 overflows"},
		{"SelectLambda N·λ overflows", func() error { _, err := SelectLambda(good, []float64{1e308}, true); return err }, "N·λ = 6·1e+308 overflows"},
		{"KRR.SelectLambda N·λ overflows", func() error {
			_, err := KRR{Kernel: kernel.Gaussian{S: 1}, Intercept: true}.SelectLambda(X, n, d, Y, p, []float64{1e308})
			return err
		}, "N·λ = 6·1e+308 overflows"},
		{"SelectLambdaMap, dual, targets too large", func() error {
			_, err := SelectLambdaMap(wide, X, n, scaled(Y, 1e160), p, []float64{1e-3}, true)
			return err
		}, "NaN or Inf"},
		{"SelectLambdaMap, dual, targets too small", func() error {
			_, err := SelectLambdaMap(wide, X, n, scaled(Y, 1e-160), p, []float64{1e-3}, true)
			return err
		}, "too small"},
		{"SelectLambdaMap nil map", func() error { _, err := SelectLambdaMap(nilMap, X, n, Y, p, []float64{1}, true); return err }, "nil feature map"},
		{"SelectLambdaMap zero map", func() error { _, err := SelectLambdaMap(zeroMap, X, n, Y, p, []float64{1}, true); return err }, "SelectLambdaMap"},
		{"SelectLambdaMap short Y", func() error { _, err := SelectLambdaMap(m, X, n, Y[1:], p, []float64{1}, true); return err }, "SelectLambdaMap"},
		{"SelectLambdaMap empty grid", func() error { _, err := SelectLambdaMap(m, X, n, Y, p, nil, true); return err }, "empty λ grid"},
		{"SelectLambdaMap λ = 0", func() error { _, err := SelectLambdaMap(m, X, n, Y, p, []float64{0}, true); return err }, "finite and > 0"},
		{"Classifier.Fit K = 1", func() error { _, err := Classifier{Loss: Hinge, Lambda: 1}.Fit(Z, n, F, labels, 1); return err }, "classes"},
		{"Classifier.Fit squared loss", func() error { _, err := Classifier{Loss: Squared, Lambda: 1}.Fit(Z, n, F, labels, 2); return err }, "loss"},
		{"Classifier.FitMap nil map", func() error { _, err := Classifier{Loss: Hinge, Lambda: 1}.FitMap(nil, X, n, labels, 2); return err }, "nil"},
		{"Classifier.FitMap zero map", func() error {
			_, err := Classifier{Loss: Hinge, Lambda: 1}.FitMap(zeroMap, X, n, labels, 2)
			return err
		}, "feature"},
		{"Features nil map", func() error { _, err := Features(nil, X, n, 0); return err }, "nil"},
		{"Features zero map", func() error { _, err := Features(zeroMap, X, n, 0); return err }, "d"},
		{"Hermite.Fit nil map", func() error { _, err := Hermite{Lambda: 1}.Fit(nil, X, n, Y, nil); return err }, "nil"},
		{"Hermite.Fit zero map", func() error { _, err := Hermite{Lambda: 1}.Fit(zeroMap, X, n, Y, nil); return err }, "d"},
		{"Hermite.Fit grads length", func() error { _, err := Hermite{Lambda: 1}.Fit(m, X, n, nil, X[1:]); return err }, "gradient"},
		{"Hermite.Fit λ = 0", func() error { _, err := Hermite{}.Fit(m, X, n, Y, nil); return err }, "λ"},
		{"Fit.PredictMap nil fit", func() error { return nilFit.PredictMap(make([]float64, n), m, X, n) }, "nil"},
		{"Fit.PredictMap nil map", func() error { return fit.PredictMap(make([]float64, n), nil, X, n) }, "nil"},
		{"Fit.PredictMap θ length", func() error { return badFit.PredictMap(make([]float64, n), m, X, n) }, "Theta"},
		{"Fit.PredictMap dst length", func() error { return fit.PredictMap(make([]float64, n-1), m, X, n) }, "dst"},
		{"Fit.PredictMap n·d overflows", func() error { return fit.PredictMap(nil, m, nil, 1<<62) }, "X has 0"},
		{"Fit.PredictGradients nil fit", func() error { return nilFit.PredictGradients(make([]float64, n*d), m, X, n) }, "nil"},
		{"Fit.PredictGradients θ length", func() error { return badFit.PredictGradients(make([]float64, n*d), m, X, n) }, "Theta"},
		{"Fit.PredictGradients dst length", func() error { return fit.PredictGradients(make([]float64, n), m, X, n) }, "dst"},
	}
	checkMisuse(t, cases)
}

// TestLogGridRefusesHugeCounts: a grid longer than one array may be is not a grid (nil), not an allocation that
// cannot succeed.
func TestLogGridRefusesHugeCounts(t *testing.T) {
	if g := LogGrid(1e-3, 1, 1<<40); g != nil {
		t.Errorf("LogGrid with 2^40 values returned %d values", len(g))
	}
	if g := LogGrid(1e-3, 1, 4); len(g) != 4 {
		t.Errorf("LogGrid(1e-3, 1, 4) = %v", g)
	}
}

// TestDocumentedPanics: the functions documented to panic on programmer errors do so on the calling goroutine with a
// message naming the function, never deeper (an index out of range in a worker) and never silently.
func TestDocumentedPanics(t *testing.T) {
	for _, c := range []struct {
		name, want string
		call       func()
	}{
		{"OneHot label", "learn.OneHot", func() { OneHot([]int{0, 3}, 2, false) }},
		{"OneHot classes", "learn.OneHot", func() { OneHot(nil, 1, false) }},
		{"Argmax short", "learn.Argmax", func() { Argmax([]float64{1, 2}, 2, 3) }},
		{"Argmax negative rows", "learn.Argmax", func() { Argmax(nil, -1, 3) }},
		{"Argmax rows·classes overflows", "learn.Argmax", func() { Argmax(nil, 1<<32, 1<<32) }},
		{"SimplexCode k = 1", "learn.SimplexCode", func() { SimplexCode(1) }},
		{"SimplexCode huge k", "learn.SimplexCode", func() { SimplexCode(1 << 20) }},
		{"SimplexEncode label", "learn.SimplexEncode", func() { SimplexEncode([]int{5}, 3) }},
		{"SimplexDecode short", "learn.SimplexDecode", func() { SimplexDecode([]float64{1}, 2, 3) }},
		{"SimplexDecode negative rows", "learn.SimplexDecode", func() { SimplexDecode(nil, -2, 3) }},
		{"Stats.Add short", "learn.Stats.Add", func() { s, _ := NewStats(2, 1); s.Add([]float64{1}, []float64{1}, 1) }},
		{"Stats.Add invalid", "learn.Stats.Add", func() { (&Stats{F: 2, P: 1}).Add([]float64{1, 2}, []float64{1}, 1) }},
		{"Stats.NormalEquations consumed", "learn.Stats.NormalEquations", func() {
			s := mustStats(2, 1)
			s.Add([]float64{1, 2}, []float64{1}, 1)
			if _, err := (Ridge{Lambda: 1}).SolveInPlace(s); err != nil {
				panic(err)
			}
			s.NormalEquations(false)
		}},
		{"Stats.NormalEquations short", "learn.Stats.NormalEquations", func() { s := mustStats(2, 1); s.ZtZ = s.ZtZ[:3]; s.NormalEquations(false) }},
		{"Fit.Predict short", "learn.Fit.Predict", func() { (&Fit{F: 2, P: 1, Theta: []float64{1, 2}, Bias: []float64{0}}).Predict(nil, nil, 1) }},
		{"Fit.Predict invalid", "learn.Fit.Predict", func() { (&Fit{F: 2, P: 1}).Predict(make([]float64, 1), make([]float64, 2), 1) }},
		{"KRRFit.Predict short", "learn.KRRFit.Predict", func() { (&KRRFit{Dim: 2, P: 1}).Predict(nil, nil, 1) }},
		{"KRRFit.Predict invalid", "learn.KRRFit.Predict", func() { (&KRRFit{Dim: 1, P: 1, N: 1}).Predict(make([]float64, 1), make([]float64, 1), 1) }},
	} {
		func() {
			defer func() {
				r := recover()
				if r == nil {
					t.Errorf("%s: no panic", c.name)
					return
				}
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, c.want) {
					t.Errorf("%s: panic %v, want a message from %s", c.name, r, c.want)
				}
			}()
			c.call()
		}()
	}
}

// mustStats is NewStats for the small, valid sizes of the tests.
func mustStats(F, P int) *Stats {
	s, err := NewStats(F, P)
	if err != nil {
		panic(err)
	}
	return s
}

// scratchMapper is a Mapper with the given Features and Points and a TransformBlock that writes zeros: a map written
// by a caller, which the functions that take a Mapper must check before they size their scratch by it.
type scratchMapper struct{ d, f, points int }

func (m scratchMapper) Dim() int      { return m.d }
func (m scratchMapper) Features() int { return m.f }
func (m scratchMapper) Points() int   { return m.points }
func (m scratchMapper) TransformBlock(z, _ []float64, rows int, _ []float64) {
	clear(z[:rows*m.f])
}

// TestMapperScratch: a Mapper that asks for absurd projection scratch per row, or none that makes sense, is refused
// with an error by every function that maps rows through it, never with a panic on a worker or an allocation of
// its size; GramChunk of an absurd F does not divide by zero.
func TestMapperScratch(t *testing.T) {
	const d, n = 3, 40
	X, Y := regression(n, d, 1, 0.1, 1)
	good, err := Accumulate(scratchMapper{d, 4, 0}, X, n, Y, 1)
	if err != nil {
		t.Fatal(err)
	}
	fit, err := Ridge{Lambda: 1e-3}.Solve(good)
	if err != nil {
		t.Fatal(err)
	}
	post, err := NewPosterior(good, 1e-3, false)
	if err != nil {
		t.Fatal(err)
	}
	var cases []misuse
	for _, m := range []scratchMapper{{d, 4, 1 << 40}, {d, 4, -1}, {d, 4, maxMapperPoints + 1}} {
		cases = append(cases,
			misuse{Name: "Accumulate, points " + itoa(m.points), Call: func() error { _, err := Accumulate(m, X, n, Y, 1); return err }, Want: "points of projection scratch"},
			misuse{Name: "Features, points " + itoa(m.points), Call: func() error { _, err := Features(m, X, n, 0); return err }, Want: "points of projection scratch"},
			misuse{Name: "PredictMap, points " + itoa(m.points), Call: func() error { return fit.PredictMap(make([]float64, n), m, X, n) }, Want: "points of projection scratch"},
			misuse{Name: "StdMap, points " + itoa(m.points), Call: func() error { return post.StdMap(make([]float64, n), m, X, n, true) }, Want: "points of projection scratch"},
			misuse{Name: "CrossValidate, points " + itoa(m.points), Call: func() error {
				_, err := CrossValidate(m, X, n, Y, 1, 2, []float64{1e-3}, true)
				return err
			}, Want: "points of projection scratch"},
		)
	}
	cases = append(cases, misuse{Name: "Features, negative features", Call: func() error {
		_, err := Features(scratchMapper{d, -5, 0}, X, n, 0)
		return err
	}, Want: "features"})
	checkMisuse(t, cases)
	for _, F := range []int{1 << 40, 1 << 62, math.MaxInt} {
		if k := GramChunk(F); k != BlockRows {
			t.Errorf("GramChunk(%d) = %d, want %d", F, k, BlockRows)
		}
	}
}

func itoa(v int) string { return strconv.Itoa(v) }
