package rff

import (
	"math"
	"testing"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/learn"
)

// TestUncertainty: a model fitted with uncertainty predicts the ridge mean, its predictive standard deviations equal
// the posterior's computed from the statistics directly, and both survive saving and loading bit for bit.
func TestUncertainty(t *testing.T) {
	data, err := dataset.Load("testdata/generated/reg.csv", dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Points: 16, Lambda: 1e-3, Sigma: 2, Uncertainty: true}
	m, err := Fit(cfg, data)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Fit(Config{Points: 16, Lambda: 1e-3, Sigma: 2}, data)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := m.Predict(data)
	b, _ := plain.Predict(data)
	for i := range a.Values {
		if math.Abs(a.Values[i]-b.Values[i]) > 1e-9*(1+math.Abs(b.Values[i])) {
			t.Fatalf("mean %d: %v with uncertainty, %v without", i, a.Values[i], b.Values[i])
		}
	}
	X := append([]float64(nil), data.X...)
	std, err := m.PredictStd(X, data.N, false)
	if err != nil {
		t.Fatal(err)
	}
	// The same posterior from the statistics of the preprocessed rows.
	Z := append([]float64(nil), X...)
	m.scaler.Apply(Z, data.N, data.D)
	st, err := learn.Accumulate(m.fmap, Z, data.N, data.Y, 1)
	if err != nil {
		t.Fatal(err)
	}
	post, err := learn.NewPosterior(st, 1e-3, true)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, data.N)
	if err := post.StdMap(want, m.fmap, Z, data.N, false); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Abs(std[i]-want[i]) > 1e-10*want[i] || !(std[i] > 0) {
			t.Fatalf("std %d: %v, the posterior gives %v", i, std[i], want[i])
		}
	}
	back := saveLoad(t, m)
	std2, err := back.PredictStd(X, data.N, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range std {
		if std[i] != std2[i] {
			t.Fatalf("std %d: %v fitted, %v loaded", i, std[i], std2[i])
		}
	}
	s1, err := back.Sample(X[:6], 2, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := m.Sample(X[:6], 2, 3, 7)
	for i := range s1 {
		if s1[i] != s2[i] {
			t.Fatal("samples of the same seed differ between the fitted and the loaded model")
		}
	}
	if _, err := plain.PredictStd(X, data.N, false); err == nil {
		t.Error("a model without uncertainty gave standard deviations")
	}
	if _, err := Fit(Config{Task: "classification", Uncertainty: true}, data); err == nil {
		t.Error("uncertainty on a classifier accepted")
	}
}

// TestStreamUncertainty: a streamed fit keeps the posterior too, and its standard deviations agree with the fit in
// memory to the rounding of the differently ordered sums.
func TestStreamUncertainty(t *testing.T) {
	cfg := Config{Points: 16, Lambda: 1e-3, Sigma: 2, Uncertainty: true}
	ms, err := FitCSV(cfg, "testdata/generated/reg.csv", StreamOptions{ChunkRows: 7})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := dataset.Load("testdata/generated/reg.csv", dataset.Options{})
	m, err := Fit(cfg, data)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ms.PredictStd(data.X, data.N, true)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := m.PredictStd(data.X, data.N, true)
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-6*b[i] {
			t.Fatalf("std %d: %v streamed, %v in memory", i, a[i], b[i])
		}
	}
}

// TestUncertaintyTunedNoise: a model whose λ the evidence chose keeps the noise variance that maximises the evidence
// at that λ, (RSS + Nλ‖θ̂‖²)/Ñ, so that its predictive distribution is the empirical-Bayes one the criterion scored;
// chosen by GCV it keeps the residual estimate RSS/(N − DF). Both are computed here from the statistics.
func TestUncertaintyTunedNoise(t *testing.T) {
	data, err := dataset.Load("testdata/generated/reg.csv", dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sel := range []string{"gcv", "evidence"} {
		t.Run(sel, func(t *testing.T) {
			m, err := Fit(Config{Points: 16, Tune: true, Select: sel, Sigmas: []float64{2}, Lambdas: []float64{1e-4, 1e-3, 1e-2}, Uncertainty: true}, data)
			if err != nil {
				t.Fatal(err)
			}
			Z := append([]float64(nil), data.X...)
			m.scaler.Apply(Z, data.N, data.D)
			st, err := learn.Accumulate(m.fmap, Z, data.N, data.Y, 1)
			if err != nil {
				t.Fatal(err)
			}
			post, err := learn.NewPosterior(st, m.Info().Lambda, true)
			if err != nil {
				t.Fatal(err)
			}
			want := post.NoiseVar[0]
			if sel == "evidence" {
				want = post.EvidenceNoiseVar[0]
			}
			if got := m.file.NoiseVar[0]; math.Abs(got-want) > 1e-9*want || post.NoiseVar[0] == post.EvidenceNoiseVar[0] {
				t.Errorf("noise variance %v, want %v (residual %v, evidence %v)", got, want, post.NoiseVar[0], post.EvidenceNoiseVar[0])
			}
		})
	}
}
