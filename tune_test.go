package rff

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// bruteGCV is GCV(λ) = N·RSS/(N − tr H)² for ridge with an intercept on the features Z (n×F), from the explicit hat
// matrix H = Z_c(Z_cᵀZ_c + NλI)⁻¹Z_cᵀ + 11ᵀ/N.
func bruteGCV(Z []float64, n, F int, y []float64, lambda float64) float64 {
	Zc := mat.NewDense(n, F, append([]float64(nil), Z...))
	for j := 0; j < F; j++ {
		var m float64
		for i := 0; i < n; i++ {
			m += Zc.At(i, j) / float64(n)
		}
		for i := 0; i < n; i++ {
			Zc.Set(i, j, Zc.At(i, j)-m)
		}
	}
	var A mat.Dense
	A.Mul(Zc.T(), Zc)
	for j := 0; j < F; j++ {
		A.Set(j, j, A.At(j, j)+float64(n)*lambda)
	}
	var Ai mat.Dense
	Ai.Inverse(&A)
	var T, H mat.Dense
	T.Mul(Zc, &Ai)
	H.Mul(&T, Zc.T())
	var tr, rss float64
	for i := 0; i < n; i++ {
		tr += H.At(i, i) + 1/float64(n)
	}
	var ym float64
	for _, v := range y {
		ym += v / float64(n)
	}
	for i := 0; i < n; i++ {
		f := ym
		for k := 0; k < n; k++ {
			f += H.At(i, k) * (y[k] - ym)
		}
		rss += (y[i] - f) * (y[i] - f)
	}
	return float64(n) * rss / ((float64(n) - tr) * (float64(n) - tr))
}

// TestTuneMatchesBruteForce: the (σ, λ) that tuning chooses by GCV is the minimizer of GCV computed from the explicit
// hat matrix over the same grid, and the model is fitted with it.
func TestTuneMatchesBruteForce(t *testing.T) {
	const n, d, D = 60, 2, 8
	data := &dataset.Data{N: n, D: d, Names: []string{"a", "b"}, TargetName: "y"}
	for i := range n {
		a, b := math.Sin(float64(3*i+1)), math.Cos(float64(7*i+2))
		data.X = append(data.X, a, b)
		data.Y = append(data.Y, math.Sin(2*a)+0.3*b+0.05*math.Sin(float64(11*i)))
	}
	sigmas, lambdas := []float64{0.3, 1, 3}, []float64{1e-6, 1e-4, 1e-2, 1}
	cfg := Config{Rule: "g", Points: D, Tune: true, Sigmas: sigmas, Lambdas: lambdas, Preprocess: "none", Seed: 3}
	m, err := Fit(cfg, data)
	if err != nil {
		t.Fatal(err)
	}
	bestS, bestL, best := 0.0, 0.0, math.Inf(1)
	for _, s := range sigmas {
		fm, err := feature.New(kernel.Gaussian{S: s}, rule.G{}, d, D, 3)
		if err != nil {
			t.Fatal(err)
		}
		Z := make([]float64, n*fm.Features())
		if err := fm.TransformRows(Z, data.X, n); err != nil {
			t.Fatal(err)
		}
		for _, l := range lambdas {
			if g := bruteGCV(Z, n, fm.Features(), data.Y, l); g < best {
				best, bestS, bestL = g, s, l
			}
		}
	}
	r := m.Report().Tune
	if r == nil || r.Sigma != bestS || r.Lambda != bestL {
		t.Fatalf("tuning chose %+v, brute force σ = %g, λ = %g (GCV %g)", r, bestS, bestL, best)
	}
	if in := m.Info(); in.Sigma != bestS || in.Lambda != bestL {
		t.Errorf("the model was fitted with σ = %g, λ = %g", in.Sigma, in.Lambda)
	}
	for i := range r.Sigmas {
		if i > 0 && !(r.Sigmas[i] > r.Sigmas[i-1]) {
			t.Errorf("σ grid not increasing: %v", r.Sigmas)
		}
	}
}

// TestMedianDefault: without σ the fit uses the median heuristic, the same for a fit in memory and a streamed fit.
func TestMedianDefault(t *testing.T) {
	data, err := dataset.Load("testdata/generated/reg.csv", dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Fit(Config{Points: 16, Lambda: 1e-4}, data)
	if err != nil {
		t.Fatal(err)
	}
	X := append([]float64(nil), data.X...)
	m.scaler.Apply(X, data.N, data.D)
	want, err := kernel.MedianSigma("gaussian", X, data.N, data.D, kernel.DefaultMedianRows, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Info().Sigma; got != want {
		t.Errorf("σ = %v, the median heuristic gives %v", got, want)
	}
	ms, err := FitCSV(Config{Points: 16, Lambda: 1e-4}, "testdata/generated/reg.csv", StreamOptions{ChunkRows: 7})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ms.Info().Sigma-want) > 1e-12*want {
		t.Errorf("streamed σ = %v, in memory %v", ms.Info().Sigma, want)
	}
}
