package rff

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
	"github.com/rffkit/rff/vector"
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

// smoothData returns n rows of two inputs on a deterministic scatter of [−1, 1]² and the target
// sin 2a + 0.3b with a small deterministic wiggle.
func smoothData(n int) *dataset.Data {
	data := &dataset.Data{N: n, D: 2, Names: []string{"a", "b"}, TargetName: "y"}
	for i := range n {
		a, b := math.Sin(float64(3*i+1)), math.Cos(float64(7*i+2))
		data.X = append(data.X, a, b)
		data.Y = append(data.Y, math.Sin(2*a)+0.3*b+0.05*math.Sin(float64(11*i)))
	}
	return data
}

// TestTuneMatchesBruteForce: the (σ, λ) that tuning chooses by GCV is the minimizer of GCV computed from the explicit
// hat matrix over the same grid, and the model is fitted with it.
func TestTuneMatchesBruteForce(t *testing.T) {
	const n, d, D = 60, 2, 8
	data := smoothData(n)
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
	if r.ScaleFree {
		t.Error("a Gaussian kernel's tuning reported as scale-free")
	}
	// A kernel without a bandwidth tunes λ alone, and says so (its σ is a placeholder).
	cfg.Kernel, cfg.Sigmas = "arccos1", nil
	ma, err := Fit(cfg, data)
	if err != nil {
		t.Fatal(err)
	}
	if ra := ma.Report().Tune; ra == nil || !ra.ScaleFree || len(ra.Sigmas) != 1 {
		t.Errorf("arc-cosine tuning: %+v", ra)
	}
}

// TestTuneExact: an exact model is tuned on the GCV (or the evidence) of its kernel matrix — the table reported is
// learn.KRR.SelectLambda's for every σ, the pair chosen the best of it, and the model the exact fit with that pair.
// Classification defaults to gcv; cv and exact vector-valued models are refused.
func TestTuneExact(t *testing.T) {
	const n, d = 50, 2
	data := smoothData(n)
	sigmas, lambdas := []float64{0.3, 1, 3}, []float64{1e-6, 1e-4, 1e-2, 1}
	for _, sel := range []string{"gcv", "evidence"} {
		t.Run(sel, func(t *testing.T) {
			cfg := Config{Exact: true, Tune: true, Select: sel, Sigmas: sigmas, Lambdas: lambdas, Preprocess: "none"}
			m, err := Fit(cfg, data)
			if err != nil {
				t.Fatal(err)
			}
			r := m.Report().Tune
			if r == nil || r.Criterion != sel || r.Points != 0 || len(r.Scores) != len(sigmas) {
				t.Fatalf("tuning report %+v", r)
			}
			bi, bj := 0, 0
			for i, s := range sigmas {
				Yc, _ := centreColumns(data.Y, 1) // the targets as the fit takes them: centred
				want, err := learn.KRR{Kernel: kernel.Gaussian{S: s}, Intercept: true}.SelectLambda(data.X, n, d, Yc, 1, lambdas)
				if err != nil {
					t.Fatal(err)
				}
				scores := want.GCV
				if sel == "evidence" {
					scores = want.LogEvidence
				}
				if !slices.Equal(r.Scores[i], scores) {
					t.Errorf("σ = %g: scores %v, learn.KRR.SelectLambda %v", s, r.Scores[i], scores)
				}
				for j, v := range scores {
					if (sel == "gcv" && v < r.Scores[bi][bj]) || (sel == "evidence" && v > r.Scores[bi][bj]) {
						bi, bj = i, j
					}
				}
			}
			if r.Sigma != sigmas[bi] || r.Lambda != lambdas[bj] {
				t.Errorf("chose σ = %g, λ = %g; the best score is at σ = %g, λ = %g", r.Sigma, r.Lambda, sigmas[bi], lambdas[bj])
			}
			ref, err := Fit(Config{Exact: true, Sigma: r.Sigma, Lambda: r.Lambda, Preprocess: "none"}, data)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.PredictRows(data.X, n)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ref.PredictRows(data.X, n)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Values, want.Values) {
				t.Error("the tuned exact model differs from the exact fit with the chosen σ and λ")
			}
		})
	}
	cls := *data
	cls.Y, cls.Labels = make([]float64, n), []string{"a", "b"}
	for i := range n {
		cls.Y[i] = float64(i % 2)
	}
	m, err := Fit(Config{Exact: true, Tune: true, Task: "classification", Sigmas: []float64{1}, Preprocess: "none"}, &cls)
	if err != nil {
		t.Fatal(err)
	}
	if r := m.Report().Tune; r == nil || r.Criterion != "gcv" {
		t.Errorf("exact classification: tuning report %+v, want gcv", r)
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

// labelled is n rows of two inputs with K classes drawn from noisy nonlinear scores (so that held-out accuracy
// depends on σ and λ), with numeric labels.
func labelled(n, K int, seed uint64) *dataset.Data {
	rng := rand.New(rand.NewPCG(seed, 1))
	data := &dataset.Data{N: n, D: 2, Names: []string{"a", "b"}, TargetName: "class"}
	s := make([]float64, K)
	for range n {
		a, b := 2*rng.Float64()-1, 2*rng.Float64()-1
		for c := range K {
			s[c] = math.Sin(2*a+float64(c)) + b*b*float64(c%2) + 0.4*rng.NormFloat64()
		}
		data.X = append(data.X, a, b)
		data.Y = append(data.Y, float64(slices.Index(s, slices.Max(s))))
	}
	return data
}

// bestPair is the argmax of scores over (σ, λ) with tuning's tie rule: the larger λ, then the larger σ.
func bestPair(scores [][]float64, sigmas, lambdas []float64) (float64, float64) {
	bi, bj := 0, 0
	for i, row := range scores {
		for j, v := range row {
			b := scores[bi][bj]
			if v > b || (v == b && (lambdas[j] > lambdas[bj] || (lambdas[j] == lambdas[bj] && sigmas[i] > sigmas[bi]))) {
				bi, bj = i, j
			}
		}
	}
	return sigmas[bi], lambdas[bj]
}

// TestTuneClassifierAccuracy: a classifier is tuned by cross-validation on held-out accuracy by default; the scores
// are those of learn.CrossValidateClasses (one-hot or simplex decoding) or learn.CrossValidateClassifier (hinge,
// logistic) for each σ of the grid, and the chosen pair is the exhaustive argmax over the grid with ties to the
// larger λ, then the larger σ.
func TestTuneClassifierAccuracy(t *testing.T) {
	const n, D, K, folds = 90, 12, 3, 5
	data := labelled(n, K, 4)
	cls, err := dataset.ClassesOf(data).Code(data)
	if err != nil {
		t.Fatal(err)
	}
	sigmas, lambdas := []float64{0.3, 1, 3}, []float64{1e-6, 1e-3, 1e-1}
	for _, c := range []struct {
		encoding, loss string
	}{{"onehot", ""}, {"simplex", ""}, {"onehot", "hinge"}, {"onehot", "logistic"}} {
		t.Run(c.encoding+"/"+c.loss, func(t *testing.T) {
			cfg := Config{Task: "classification", Encoding: c.encoding, Loss: c.loss, Rule: "g", Points: D, Tune: true,
				Sigmas: sigmas, Lambdas: lambdas, Preprocess: "none", Seed: 3}
			m, err := Fit(cfg, data)
			if err != nil {
				t.Fatal(err)
			}
			r := m.Report().Tune
			if r.Criterion != "cv" || r.Score != "CV accuracy" || !r.HigherIsBetter {
				t.Fatalf("criterion %q, score %q, higher is better %v", r.Criterion, r.Score, r.HigherIsBetter)
			}
			want := make([][]float64, len(sigmas))
			for i, s := range sigmas {
				fm, err := feature.New(kernel.Gaussian{S: s}, rule.G{}, 2, D, 3)
				if err != nil {
					t.Fatal(err)
				}
				var res *learn.ClassCVResult
				if c.loss == "" {
					coding := learn.OneHotCoding
					if c.encoding == "simplex" {
						coding = learn.SimplexCoding
					}
					res, err = learn.CrossValidateClasses(fm, data.X, n, cls, K, coding, folds, lambdas, true)
				} else {
					loss, _ := learn.ParseLoss(c.loss)
					res, err = learn.CrossValidateClassifier(learn.Classifier{Loss: loss, Seed: 3}, fm, data.X, n, cls, K, folds, lambdas)
				}
				if err != nil {
					t.Fatal(err)
				}
				want[i] = res.Accuracy
				if !slices.Equal(r.Scores[i], res.Accuracy) {
					t.Errorf("σ = %g: scores %v, cross-validation %v", s, r.Scores[i], res.Accuracy)
				}
			}
			if lo, hi := slices.Min(slices.Concat(want...)), slices.Max(slices.Concat(want...)); lo == hi {
				t.Fatalf("every pair scores %v: the test does not tell them apart", lo)
			}
			ws, wl := bestPair(want, sigmas, lambdas)
			if r.Sigma != ws || r.Lambda != wl {
				t.Errorf("chose σ = %g, λ = %g; the grid's best is σ = %g, λ = %g (scores %v)", r.Sigma, r.Lambda, ws, wl, want)
			}
			if in := m.Info(); in.Sigma != ws || in.Lambda != wl {
				t.Errorf("fitted with σ = %g, λ = %g", in.Sigma, in.Lambda)
			}
		})
	}
	// GCV on the coded targets stays available for the squared loss, not for the hinge loss.
	if _, err := Fit(Config{Task: "classification", Points: D, Tune: true, Select: "gcv", Sigmas: sigmas}, data); err != nil {
		t.Errorf("squared loss with gcv: %v", err)
	}
	if _, err := Fit(Config{Task: "classification", Loss: "hinge", Points: D, Tune: true, Select: "gcv"}, data); err == nil || !strings.Contains(err.Error(), "cross-validation") {
		t.Errorf("hinge with gcv: %v", err)
	}
	// The refitted losses default to the short grid.
	m, err := Fit(Config{Task: "classification", Loss: "squared-hinge", Points: D, Tune: true, Sigmas: []float64{1}}, data)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Report().Tune.Lambdas; !slices.Equal(got, learn.LogGrid(1e-7, 1e-2, 6)) {
		t.Errorf("default λ grid of the squared hinge: %v", got)
	}
}

// TestTuneReusesStatistics: when (σ, λ) are scored at the fit's D on all rows, the fit solves the statistics tuning
// accumulated for the chosen σ instead of a second pass, bit for bit the model fitted with the chosen σ and λ given;
// scored with fewer points (TunePoints) the model is fitted with the chosen pair at its own D.
func TestTuneReusesStatistics(t *testing.T) {
	data, err := dataset.Load("testdata/generated/reg.csv", dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lambdas := learn.LogGrid(1e-8, 1e-1, 8)
	for _, c := range []struct {
		sel        string
		tunePoints int
	}{{"gcv", 0}, {"evidence", 0}, {"gcv", 16}} {
		t.Run(fmt.Sprintf("%s,%d", c.sel, c.tunePoints), func(t *testing.T) {
			m, err := Fit(Config{Points: 64, TunePoints: c.tunePoints, Tune: true, Select: c.sel, Lambdas: lambdas, Precision: "double"}, data)
			if err != nil {
				t.Fatal(err)
			}
			r := m.Report().Tune
			if want := cmp.Or(c.tunePoints, 64); r.Points != want {
				t.Errorf("scored with %d points, want %d", r.Points, want)
			}
			plain, err := Fit(Config{Points: 64, Sigma: r.Sigma, Lambda: r.Lambda, Precision: "double"}, data)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(m.file.Theta, plain.file.Theta) || !slices.Equal(m.file.Bias, plain.file.Bias) {
				t.Error("the tuned model differs from the model fitted with the chosen σ and λ")
			}
			_, again := m.Report().Phases["features_gram"]
			if reused := c.tunePoints == 0; reused == again {
				t.Errorf("second pass over the rows: %v; the statistics of the scored map should be reused: %v", again, reused)
			}
		})
	}
}

// ovkData returns the multitask data of a seed as columns x1…x20, y1…y4.
func ovkData(t *testing.T, n int, seed uint64, noise float64) *dataset.Data {
	t.Helper()
	g, err := dataset.GenerateMultitask(n, seed, noise)
	if err != nil {
		t.Fatal(err)
	}
	D := g.D + g.P
	data := &dataset.Data{N: n, D: D, Names: append(slices.Clone(g.Names), g.TargetNames...)}
	for i := range n {
		data.X = append(data.X, g.X[i*g.D:(i+1)*g.D]...)
		data.X = append(data.X, g.Y[i*g.P:(i+1)*g.P]...)
	}
	return data
}

// rows returns rows [a, b) of data.
func rowsOf(data *dataset.Data, a, b int) *dataset.Data {
	out := *data
	out.N, out.X = b-a, data.X[a*data.D:b*data.D]
	return &out
}

// TestTuneDecomposable: with A = I the decomposable kernel is tuned exactly as P scalar ridge problems on the same
// features (SelectLambda on their statistics, bit for bit); with A = the output covariance the outputs are decoupled
// along its eigenvectors. On noisy multitask data (Evgeniou et al. 2005; 300 training rows, noise 0.2, tested on
// 1000 noise-free rows) the default λ = 1e-6 overfits (R² < 0) while every criterion reaches R² ≥ 0.70.
func TestTuneDecomposable(t *testing.T) {
	const D = 128
	targets := []string{"y1", "y2", "y3", "y4"}
	noisy, clean := ovkData(t, 1300, 1, 0.2), ovkData(t, 1300, 1, 0)
	train, test := rowsOf(noisy, 0, 300), rowsOf(clean, 300, 1300)
	sigmas := []float64{6, 12, 24}
	lambdas := learn.LogGrid(1e-7, 1e-1, 7)
	m, err := Fit(Config{OVK: "decomposable", Targets: targets, Points: D, Tune: true, Sigmas: sigmas, Lambdas: lambdas}, train)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Report().Tune
	// The scalar path: P-output ridge statistics of the scalar features.
	X := append([]float64(nil), train.X...)
	Y := make([]float64, 0, 300*4)
	Xin := make([]float64, 0, 300*20)
	for i := range 300 {
		Xin = append(Xin, X[i*24:i*24+20]...)
		Y = append(Y, X[i*24+20:i*24+24]...)
	}
	m.scaler.Apply(Xin, 300, 20)
	Y, _ = centreColumns(Y, 4) // the targets as the fit takes them: centred
	for i, s := range sigmas {
		fm, err := feature.New(kernel.Gaussian{S: s}, rule.SR{Rotation: rule.Butterfly}, 20, D, 0)
		if err != nil {
			t.Fatal(err)
		}
		st, err := learn.Accumulate(fm, Xin, 300, Y, 4)
		if err != nil {
			t.Fatal(err)
		}
		sel, err := learn.SelectLambda(st, lambdas, true)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Scores[i], sel.GCV) {
			t.Errorf("σ = %g: scores %v, the scalar path %v", s, r.Scores[i], sel.GCV)
		}
	}
	r2 := func(m *Model) float64 {
		t.Helper()
		p, err := m.Predict(test)
		if err != nil {
			t.Fatal(err)
		}
		var sse, sst float64
		for j := range 4 {
			var mean float64
			for i := range test.N {
				mean += test.X[i*24+20+j] / float64(test.N)
			}
			for i := range test.N {
				y := test.X[i*24+20+j]
				sse += (p.Values[i*4+j] - y) * (p.Values[i*4+j] - y)
				sst += (y - mean) * (y - mean)
			}
		}
		return 1 - sse/sst
	}
	def, err := Fit(Config{OVK: "decomposable", Targets: targets, Points: D, Lambda: 1e-6}, train)
	if err != nil {
		t.Fatal(err)
	}
	if v := r2(def); v >= 0 {
		t.Errorf("the default λ reaches R² = %.3f; the test expects it to overfit", v)
	}
	for _, c := range []Config{
		{Select: "gcv"}, {Select: "evidence"}, {Select: "cv"}, {Select: "gcv", A: "covariance"},
	} {
		c.OVK, c.Targets, c.Points, c.Tune = "decomposable", targets, D, true
		m, err := Fit(c, train)
		if err != nil {
			t.Fatal(err)
		}
		if v := r2(m); v < 0.70 {
			t.Errorf("%s, A = %q: tuned R² = %.3f (σ = %g, λ = %g), want ≥ 0.70", c.Select, c.A, v, m.Info().Sigma, m.Info().Lambda)
		}
	}
}

// TestTuneRefusals: models whose criteria the statistics cannot score are refused with a message that says so.
func TestTuneRefusals(t *testing.T) {
	reg, _ := dataset.Load("testdata/generated/reg.csv", dataset.Options{})
	curl, _ := dataset.Load("testdata/generated/curl.csv", dataset.Options{Target: "none"})
	field := []string{"y1", "y2", "y3", "y4", "y5"}
	constant := smoothData(100)
	for i := range constant.Y {
		constant.Y[i] = 5
	}
	for _, c := range []struct {
		name string
		cfg  Config
		data *dataset.Data
		want string
	}{
		// A constant target: held-out errors of rounding size would choose a pair at random.
		{"constant target cv", Config{Tune: true, Select: "cv", Points: 8}, constant, "the target is constant"},
		{"constant target gcv", Config{Tune: true, Points: 8}, constant, "the target is constant"},
		{"exact cv", Config{Exact: true, Tune: true, Select: "cv"}, reg, "not cv"},
		{"exact ovk", Config{Exact: true, Tune: true, OVK: "curl-free", Targets: field}, curl, "exact vector-valued"},
		{"curl-free cv", Config{OVK: "curl-free", Targets: field, Tune: true, Select: "cv", Points: 8}, curl, "not cv"},
		{"div-free cv", Config{OVK: "div-free", Targets: field, Tune: true, Select: "cv", Points: 8}, curl, "not cv"},
		{"one fold", Config{Tune: true, Select: "cv", CV: 1}, reg, "2 folds"},
		{"hinge gcv", Config{Task: "classification", Loss: "hinge", Tune: true, Select: "evidence"}, reg, "cross-validation"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Fit(c.cfg, c.data)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one mentioning %q", err, c.want)
			}
		})
	}
	if _, err := FitHermite(Config{Tune: true, Select: "cv"}, reg, reg.Y, nil); err == nil || !strings.Contains(err.Error(), "gcv or evidence") {
		t.Errorf("hermite, cv: %v", err)
	}
	// By GCV (smallest) and by the evidence (largest) a hermite model is tuned, and the pair chosen is the best of
	// the table reported.
	for _, sel := range []string{"gcv", "evidence"} {
		hm, err := FitHermite(Config{Tune: true, Select: sel, Points: 16, Sigmas: []float64{0.5, 2}}, reg, reg.Y, nil)
		if err != nil {
			t.Fatalf("hermite, %s: %v", sel, err)
		}
		tr := hm.Report().Tune
		if tr == nil || tr.Criterion != sel || len(tr.Scores) != 2 || tr.HigherIsBetter != (sel == "evidence") {
			t.Errorf("hermite, %s: tuning report %+v", sel, tr)
			continue
		}
		best := math.Inf(1)
		if tr.HigherIsBetter {
			best = math.Inf(-1)
		}
		for _, row := range tr.Scores {
			for _, v := range row {
				if tr.HigherIsBetter {
					best = max(best, v)
				} else {
					best = min(best, v)
				}
			}
		}
		i, j := slices.Index(tr.Sigmas, tr.Sigma), slices.Index(tr.Lambdas, tr.Lambda)
		if i < 0 || j < 0 || tr.Scores[i][j] != best {
			t.Errorf("hermite, %s: chose σ = %g, λ = %g, not the best score %g", sel, tr.Sigma, tr.Lambda, best)
		}
	}
	if _, err := FitCSV(Config{Tune: true}, "testdata/generated/reg.csv", StreamOptions{}); err == nil || !strings.Contains(err.Error(), "in memory") {
		t.Errorf("streamed: %v", err)
	}
}

// TestTuneField: curl-free and divergence-free kernels are tuned by GCV or the evidence of their assembled normal
// equations: the scores are vector.SelectLambdaField's at each σ, the choice their best pair, and the model is
// fitted with it.
func TestTuneField(t *testing.T) {
	curl, err := dataset.Load("testdata/generated/curl.csv", dataset.Options{Target: "none"})
	if err != nil {
		t.Fatal(err)
	}
	field := []string{"y1", "y2", "y3", "y4", "y5"}
	sigmas, lambdas := []float64{0.5, 1, 2}, []float64{1e-6, 1e-4, 1e-2}
	for _, c := range []struct{ kernel, sel string }{{"curl-free", "gcv"}, {"div-free", "evidence"}} {
		t.Run(c.kernel, func(t *testing.T) {
			cfg := Config{OVK: c.kernel, Targets: field, Rule: "g", Points: 6, Tune: true, Select: c.sel, Sigmas: sigmas, Lambdas: lambdas}
			m, err := Fit(cfg, curl)
			if err != nil {
				t.Fatal(err)
			}
			r := m.Report().Tune
			raw := *curl
			targets := slices.Clone(field)
			Y, err := splitColumns(&raw, targets)
			if err != nil {
				t.Fatal(err)
			}
			X := slices.Clone(raw.X)
			m.scaler.Apply(X, raw.N, raw.D)
			Y, _ = centreColumns(Y, len(field)) // the targets as the fit takes them: centred
			bi, bj := -1, -1
			for i, s := range sigmas {
				k, err := ovk.Parse(c.kernel, s, nil)
				if err != nil {
					t.Fatal(err)
				}
				fm, err := ovk.New(k, rule.G{}, raw.D, 6, 0)
				if err != nil {
					t.Fatal(err)
				}
				st, err := vector.Accumulate(fm, X, raw.N, Y)
				if err != nil {
					t.Fatal(err)
				}
				sel, err := vector.SelectLambdaField(fm, st, lambdas, true)
				if err != nil {
					t.Fatal(err)
				}
				want := sel.GCV
				if c.sel == "evidence" {
					want = sel.LogEvidence
				}
				if !slices.Equal(r.Scores[i], want) {
					t.Errorf("σ = %g: scores %v, SelectLambdaField %v", s, r.Scores[i], want)
				}
				for j, v := range want {
					if bi < 0 || (c.sel == "gcv" && v < r.Scores[bi][bj]) || (c.sel == "evidence" && v > r.Scores[bi][bj]) {
						bi, bj = i, j
					}
				}
			}
			if r.Sigma != sigmas[bi] || r.Lambda != lambdas[bj] {
				t.Errorf("chose σ = %g, λ = %g; the grid's best is σ = %g, λ = %g", r.Sigma, r.Lambda, sigmas[bi], lambdas[bj])
			}
			if in := m.Info(); in.Sigma != r.Sigma || in.Lambda != r.Lambda {
				t.Errorf("fitted with σ = %g, λ = %g", in.Sigma, in.Lambda)
			}
		})
	}
}

// TestTuneResultJSON: a pair that could not be scored is null in JSON (encoding/json refuses NaN), in its place.
func TestTuneResultJSON(t *testing.T) {
	b, err := json.Marshal(&TuneResult{Criterion: "cv", Score: "CV MSE", Rows: 9, Sigmas: []float64{1}, Lambdas: []float64{1e-9, 1},
		Scores: [][]float64{{math.NaN(), 0.5}}, Points: 8, Sigma: 1, Lambda: 1})
	if err != nil || !strings.Contains(string(b), `"scores":[[null,0.5]]`) || strings.Count(string(b), `"scores"`) != 1 {
		t.Errorf("%s, %v", b, err)
	}
}
