package rff

import (
	"math"
	"strings"
	"testing"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/metrics"
)

// The probabilities of a logistic classifier are a distribution per row whose largest entry is the predicted class,
// and, since the bias is not penalised, their mean over the training rows is each class's share of them: that is
// the bias's gradient (1/N)Σ(p_i − y_i) = 0 at the optimum, within the solver's gradient residual.
func TestProbabilitiesLogistic(t *testing.T) {
	data, err := dataset.Load("testdata/generated/cls.csv", dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"features", Config{Task: "classification", Loss: "logistic", Points: 16, Lambda: 1e-3}},
		{"nystrom", Config{Task: "classification", Loss: "logistic", Map: "nystrom", Centres: 30, Lambda: 1e-3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Fit(tc.cfg, data)
			if err != nil {
				t.Fatal(err)
			}
			res := m.Report().Solve.Residual
			p, err := m.Predict(data)
			if err != nil {
				t.Fatal(err)
			}
			prob, err := p.Probabilities()
			if err != nil {
				t.Fatal(err)
			}
			K, n := p.Outputs, p.N
			if K != len(m.Info().Labels) || len(prob) != n*K {
				t.Fatalf("%d probabilities for %d rows and %d classes", len(prob), n, len(m.Info().Labels))
			}
			mean := make([]float64, K)
			share := make([]float64, K)
			for i := range n {
				row := prob[i*K : (i+1)*K]
				sum, best := 0.0, 0
				for k, v := range row {
					if !(v >= 0 && v <= 1) {
						t.Fatalf("row %d: probability %v", i, v)
					}
					sum += v
					if v > row[best] {
						best = k
					}
					mean[k] += v / float64(n)
				}
				// each of K terms is within a few units of rounding of its exact value
				if math.Abs(sum-1) > float64(4*K)*0x1p-52 {
					t.Fatalf("row %d sums to 1 %+g", i, sum-1)
				}
				if best != p.Classes[i] {
					t.Fatalf("row %d: most probable class %d, predicted %d", i, best, p.Classes[i])
				}
			}
			for _, y := range data.Y {
				share[int(y)] += 1 / float64(n)
			}
			for k := range K {
				if d := math.Abs(mean[k] - share[k]); d > res+float64(n)*0x1p-52 {
					t.Errorf("class %d: mean probability %v, share of the rows %v (|Δ| = %.3g > residual %.3g)", k, mean[k], share[k], d, res)
				}
			}
			// The score's log loss is −mean log p(y | x): from the scores by log-sum-exp, or from the probabilities,
			// each row within (K + 4)·u of its largest term (the largest |score| plus log K) in either formula, and
			// the mean of n rows within another n·u of that bound.
			sc, err := m.Score(data)
			if err != nil {
				t.Fatal(err)
			}
			var want, big float64
			for i, y := range data.Y {
				want -= math.Log(prob[i*K+int(y)]) / float64(n)
			}
			for _, v := range p.Values {
				big = max(big, math.Abs(v))
			}
			truth := make([]int, n)
			for i, y := range data.Y {
				truth[i] = int(y)
			}
			cal, err := metrics.CalibrationOf(prob, truth, K, metrics.CalibrationBins)
			if err != nil {
				t.Fatal(err)
			}
			if ce := sc.Classification.CalibrationError; ce == nil || *ce != cal.Error {
				t.Errorf("calibration error %v, want %v", ce, cal.Error)
			}
			ll := sc.Classification.LogLoss
			if tol := 2 * float64(K+4+n) * 0x1p-53 * (big + math.Log(float64(K)) + 1); ll == nil || math.Abs(*ll-want) > tol {
				t.Fatalf("log loss %v, want −mean log p = %v (±%.2g)", ll, want, tol)
			}
		})
	}
}

// Other models have no probabilities, and say why.
func TestProbabilitiesRefused(t *testing.T) {
	cls, _ := dataset.Load("testdata/generated/cls.csv", dataset.Options{})
	reg, _ := dataset.Load("testdata/generated/reg.csv", dataset.Options{})
	for _, tc := range []struct {
		name string
		cfg  Config
		data *dataset.Data
		want string
	}{
		{"squared", Config{Task: "classification", Points: 16, Lambda: 1e-3}, cls, "loss is squared"},
		{"hinge", Config{Task: "classification", Loss: "hinge", Points: 16, Lambda: 1e-3}, cls, "loss is hinge"},
		{"regression", Config{Points: 16, Lambda: 1e-3}, reg, "for classifiers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Fit(tc.cfg, tc.data)
			if err != nil {
				t.Fatal(err)
			}
			p, err := m.Predict(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if sc, err := m.Score(tc.data); err != nil || sc.Classification != nil && (sc.Classification.LogLoss != nil || sc.Classification.CalibrationError != nil) {
				t.Errorf("Score: %v, a log loss or calibration error for a model without probabilities", err)
			}
			if _, err := p.Probabilities(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Probabilities: %v, want an error with %q", err, tc.want)
			}
		})
	}
	var nilP *Prediction
	if _, err := nilP.Probabilities(); err == nil {
		t.Fatal("a nil Prediction has probabilities")
	}
}
