package metrics

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestRegressionScores(t *testing.T) {
	truth := []float64{1, 2, 3, 4}
	pred := []float64{1, 2, 3, 6}
	tests := []struct {
		name      string
		got, want float64
	}{
		{"RMSE", RMSE(pred, truth), 1},      // √(4/4)
		{"MAE", MAE(pred, truth), 0.5},      // 2/4
		{"R2", R2(pred, truth), 1 - 4.0/5},  // Σ(y−ȳ)² = 5
		{"R2 perfect", R2(truth, truth), 1}, // no error
		{"RMSE empty", RMSE(nil, nil), math.NaN()},
		{"R2 constant", R2([]float64{1, 2}, []float64{3, 3}), math.NaN()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !(tc.got == tc.want || math.IsNaN(tc.got) && math.IsNaN(tc.want)) && math.Abs(tc.got-tc.want) > 1e-15 {
				t.Errorf("got %v, want %v", tc.got, tc.want)
			}
		})
	}
}

// TestMultiR2: two outputs pool their residuals and their spreads about each output's own mean.
func TestMultiR2(t *testing.T) {
	truth := []float64{0, 10, 2, 10, 4, 13} // output a: 0,2,4 (ȳ=2, SS=8); output b: 10,10,13 (ȳ=11, SS=6)
	pred := []float64{1, 10, 2, 11, 4, 13}  // squared errors 1 (a) + 1 (b)
	if got, want := MultiR2(pred, truth, 3, 2), 1-2.0/14; math.Abs(got-want) > 1e-15 {
		t.Errorf("MultiR2 = %v, want %v", got, want)
	}
	r := ScoreRegression(pred, truth, 3, 2, []string{"a", "b"})
	if len(r.PerOutput) != 2 || r.PerOutput[1].Name != "b" || math.Abs(r.PerOutput[0].R2-(1-1.0/8)) > 1e-15 {
		t.Errorf("per output: %+v", r.PerOutput)
	}
}

func TestClassification(t *testing.T) {
	c := ScoreClassification([]int{0, 1, 1, 2}, []int{0, 1, 2, 2}, []string{"a", "b", "c"})
	if c.Accuracy != 0.75 || c.Confusion[2][1] != 1 || c.PerClass[2].Correct != 1 || c.PerClass[2].Total != 2 {
		t.Errorf("%+v", c)
	}
}

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{1, 2, 3})
	h := 1.96 * 1 / math.Sqrt(3) // sample std of 1,2,3 is 1
	if s.Mean != 2 || s.Std != 1 || math.Abs(s.CI95[0]-(2-h)) > 1e-15 || math.Abs(s.CI95[1]-(2+h)) > 1e-15 {
		t.Errorf("%+v", s)
	}
	if one := Summarize([]float64{5}); one.Std != 0 || one.CI95 != [2]float64{5, 5} {
		t.Errorf("one value: %+v", one)
	}
}

// TestJSONNaN: undefined scores encode as null, so a report never fails to encode.
func TestJSONNaN(t *testing.T) {
	r := ScoreRegression([]float64{1, 2}, []float64{3, 3}, 2, 1, nil)
	b, err := json.Marshal(r)
	if err != nil || !strings.Contains(string(b), `"r2":null`) || !strings.Contains(string(b), `"rmse":1.58`) {
		t.Errorf("%s %v", b, err)
	}
	var back struct{ R2 *float64 }
	if err := json.Unmarshal(b, &back); err != nil || back.R2 != nil {
		t.Errorf("decoding: %v", err)
	}
}

// RMSE and MAE scale with the data and R² does not, at every magnitude float64 holds — errors of 1e-200, whose
// squares underflow, and of 1e200, whose squares overflow — and on ordinary data the scores have the bits of the
// textbook formulas.
func TestScoresAtEveryScale(t *testing.T) {
	truth := []float64{1.5, -0.25, 3, 0.75, -2, 1}
	pred := []float64{1.25, 0, 2.5, 1, -1.5, 1.125}
	rmse, mae, r2 := RMSE(pred, truth), MAE(pred, truth), R2(pred, truth)
	// Powers of two scale these values (of few significant bits) exactly, subnormal ones (2⁻¹⁰⁶⁰) included, and the
	// scores are computed on values rescaled by a power of two: the scaled scores are the scores times c exactly.
	for _, c := range []float64{0x1p-1000, 0x1p-660, 0x1p-530, 0x1p500, 0x1p660, 0x1p1000, 0x1p-1060} {
		st, sp := make([]float64, len(truth)), make([]float64, len(pred))
		for i := range truth {
			st[i], sp[i] = truth[i]*c, pred[i]*c
		}
		for _, s := range []struct {
			name      string
			got, want float64
		}{
			{"RMSE", RMSE(sp, st), rmse * c},
			{"MAE", MAE(sp, st), mae * c},
			{"R²", R2(sp, st), r2},
		} {
			if s.got != s.want {
				t.Errorf("scale %g: %s = %v, want %v", c, s.name, s.got, s.want)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n := 1 + r.IntN(20)
		p, y := make([]float64, n), make([]float64, n)
		for i := range y {
			y[i] = r.NormFloat64() * 100
			p[i] = y[i] + r.NormFloat64()
		}
		var se, ae, m float64
		for i := range y {
			se += (y[i] - p[i]) * (y[i] - p[i])
			ae += math.Abs(y[i] - p[i])
			m += y[i]
		}
		m /= float64(n)
		var ss float64
		for i := range y {
			ss += (y[i] - m) * (y[i] - m)
		}
		if got, want := RMSE(p, y), math.Sqrt(se/float64(n)); got != want {
			t.Fatalf("RMSE %v, textbook %v", got, want)
		}
		if got, want := MAE(p, y), ae/float64(n); got != want {
			t.Fatalf("MAE %v, textbook %v", got, want)
		}
		if got, want := R2(p, y), 1-se/ss; n > 1 && got != want {
			t.Fatalf("R² %v, textbook %v", got, want)
		}
	}
}

// LogLoss is −mean log softmax(s)_y: log k for equal scores, the textbook formula on moderate scores, and finite
// (the score gap) where the true class's probability underflows to 0.
func TestLogLoss(t *testing.T) {
	scores := []float64{0.5, -1, 2, 0, 0, 0, 3, 1, -2}
	truth := []int{2, 1, 0}
	want := 0.0
	for i, y := range truth {
		s := scores[3*i : 3*i+3]
		z := math.Exp(s[0]) + math.Exp(s[1]) + math.Exp(s[2])
		want -= math.Log(math.Exp(s[y])/z) / 3
	}
	// Each row's value is a log of a sum of k exponentials plus two scores, in both formulas: each rounds within
	// (k + 4)·u of the largest of its terms (|s| ≤ 3 here, log Σ ≤ 4), and the mean of the n = 3 rows adds n·u of
	// it, so they agree within 2·(k + 4 + n)·u·(3 + 4).
	const u = 0x1p-53
	if got := LogLoss(scores, truth, 3); math.Abs(got-want) > 2*(3+4+3)*u*7 {
		t.Errorf("LogLoss = %v, want %v", got, want)
	}
	if got := LogLoss([]float64{7, 7, 7, 7}, []int{3}, 4); math.Abs(got-math.Log(4)) > (4+4)*u*math.Log(4) {
		t.Errorf("equal scores: %v, want log 4", got)
	}
	if got := LogLoss([]float64{0, 1e300}, []int{0}, 2); got != 1e300 {
		t.Errorf("a true class 1e300 below the other: %v, want 1e300", got)
	}
	for name, got := range map[string]float64{
		"no rows":        LogLoss(nil, nil, 2),
		"short scores":   LogLoss([]float64{1, 2, 3}, []int{0, 1}, 2),
		"class too big":  LogLoss([]float64{1, 2}, []int{2}, 2),
		"negative class": LogLoss([]float64{1, 2}, []int{-1}, 2),
		"NaN score":      LogLoss([]float64{1, math.NaN()}, []int{0}, 2),
	} {
		if !math.IsNaN(got) {
			t.Errorf("%s: %v, want NaN", name, got)
		}
	}
}

// CalibrationOf on rows worked by hand: confidences 0.9 (right), 0.85 (wrong), 0.6 (right), 0.55 (right) and 1
// (right, in the last bin), and a row of unknown class left out.
func TestCalibrationOf(t *testing.T) {
	probs := []float64{0.9, 0.1, 0.85, 0.15, 0.4, 0.6, 0.55, 0.45, 0.3, 0.7, 0, 1}
	truth := []int{0, 1, 1, 0, -1, 1}
	c, err := CalibrationOf(probs, truth, 2, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 4 || c.Rows[3] != 2 || c.Accuracy[2] != 0 || c.Confidence[3] != (0.9+1)/2 {
		t.Fatalf("bins %+v", c)
	}
	// |1 − 0.55| + |1 − 0.6| + |0 − 0.85| + 2·|1 − 0.95| over 5 rows, each term within an ulp or two
	if want := (0.45 + 0.4 + 0.85 + 2*0.05) / 5; math.Abs(c.Error-want) > 8*0x1p-53 {
		t.Errorf("calibration error %v, want %v", c.Error, want)
	}
	for name, err := range map[string]error{
		"short":         func() error { _, err := CalibrationOf(probs[:3], truth, 2, 10); return err }(),
		"one class":     func() error { _, err := CalibrationOf(probs, truth, 1, 10); return err }(),
		"no bins":       func() error { _, err := CalibrationOf(probs, truth, 2, 0); return err }(),
		"no known rows": func() error { _, err := CalibrationOf(probs[:2], []int{5}, 2, 10); return err }(),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
