package rff

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rffkit/rff/dataset"
)

// pcaData returns n rows of 5 inputs that lie near a plane (a, b) of the input space, with targets y1 = sin a + cos b
// and, as inputs for vector-valued models, y2 = a·b.
func pcaData(n int, seed uint64, withY2 bool) *dataset.Data {
	rng := rand.New(rand.NewPCG(seed, 2))
	d := &dataset.Data{N: n, D: 5, Names: []string{"a", "b", "s", "t", "e"}, TargetName: "y"}
	if withY2 {
		d.D, d.Names, d.TargetName = 7, append(d.Names, "y1", "y2"), ""
	}
	for range n {
		a, b := 2*rng.Float64()-1, 3*rng.Float64()-1.5
		e := func() float64 { return 0.01 * rng.NormFloat64() }
		d.X = append(d.X, a, b, a+b+e(), 2*a-b+e(), e())
		if withY2 {
			d.X = append(d.X, math.Sin(a)+math.Cos(b), a*b)
		} else {
			d.Y = append(d.Y, math.Sin(a)+math.Cos(b))
		}
	}
	return d
}

func saveLoad(t *testing.T, m *Model) *Model {
	t.Helper()
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

func TestFitPCA(t *testing.T) {
	train, test := pcaData(300, 1, false), pcaData(40, 2, false)
	for _, c := range []struct {
		name string
		cfg  Config
		K    int
	}{
		{"features", Config{Preprocess: "standardize,pca:3", Points: 64, Sigma: 1.5, Lambda: 1e-4, Seed: 3}, 3},
		{"whitened", Config{Preprocess: "standardize,pca-whiten:2", Points: 64, Sigma: 1.5, Lambda: 1e-4, Seed: 3}, 2},
		{"share of variance", Config{Preprocess: "pca:0.9", Points: 64, Lambda: 1e-4, Seed: 3, Rule: "orf"}, -1},
		{"exact", Config{Preprocess: "standardize,pca:2", Exact: true, Sigma: 1.5, Lambda: 1e-4}, 2},
		{"uncertainty", Config{Preprocess: "standardize,pca:2", Points: 32, Sigma: 1.5, Lambda: 1e-3, Uncertainty: true, Seed: 4}, 2},
		{"classification", Config{Task: "classification", Preprocess: "standardize,pca:2", Points: 32, Sigma: 1.5, Lambda: 1e-3, Seed: 5}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := train
			if c.cfg.Task == "classification" {
				data = classesOf(train)
			}
			m, err := Fit(c.cfg, data)
			if err != nil {
				t.Fatal(err)
			}
			K := m.scaler.OutDim()
			if c.K > 0 && K != c.K || m.file.Dim != 5 || m.file.MapDim() != K {
				t.Fatalf("K = %d, Dim = %d, MapDim = %d; want K = %d, Dim = 5", K, m.file.Dim, m.file.MapDim(), c.K)
			}
			if m.fmap != nil && m.fmap.Dim() != K {
				t.Fatalf("the map has %d inputs, want %d", m.fmap.Dim(), K)
			}
			if in := m.Info(); !slices.Equal(in.Inputs, train.Names) || !strings.HasPrefix(in.Preprocess[len(in.Preprocess)-1], "pca") ||
				in.Components != K || in.ExplainedVariance != m.scaler.ExplainedVariance() || !(in.ExplainedVariance > 0 && in.ExplainedVariance <= 1) {
				t.Fatalf("inputs %v, preprocessing %v, %d components keeping %v of the variance", in.Inputs, in.Preprocess, in.Components, in.ExplainedVariance)
			}
			if want := fmt.Sprintf("(%d components, ", K); !strings.Contains(m.String(), want) {
				t.Errorf("String() = %q does not say %q", m.String(), want)
			}
			p, err := m.Predict(test)
			if err != nil {
				t.Fatal(err)
			}
			// Saved and loaded, the model predicts the same bits.
			back := saveLoad(t, m)
			q, err := back.Predict(test)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.Values, q.Values) {
				t.Fatal("the loaded model predicts different bits")
			}
			if c.cfg.Uncertainty {
				X, _ := m.Inputs(test)
				s1, err := m.PredictStd(X, test.N, true)
				if err != nil {
					t.Fatal(err)
				}
				s2, _ := back.PredictStd(X, test.N, true)
				if !slices.Equal(s1, s2) {
					t.Fatal("the loaded model's standard deviations differ")
				}
			}
			if c.cfg.Task == "classification" {
				return
			}
			// The function is smooth in (a, b), which the kept components span: the fit is accurate.
			var se, ss float64
			for i, v := range p.Values {
				se += (v - test.Y[i]) * (v - test.Y[i])
				ss += test.Y[i] * test.Y[i]
			}
			if math.Sqrt(se/ss) > 0.05 {
				t.Errorf("relative test error %.3g with %s", math.Sqrt(se/ss), c.cfg.Preprocess)
			}
		})
	}
}

// classesOf turns the regression data into two classes, y above or below 1.
func classesOf(d *dataset.Data) *dataset.Data {
	c := *d
	c.Y = make([]float64, d.N)
	c.Labels = []string{"high", "low"}
	for i, y := range d.Y {
		if y < 1 {
			c.Y[i] = 1
		}
	}
	return &c
}

// TestPCAGradients checks the chain rule ∂f/∂x = Jᵀ ∂f/∂x' through a PCA step against central differences of the
// predictions in the raw coordinates. The central difference with step h has the error h²/6·f⁽³⁾ + O(h⁴), estimated by
// Richardson's rule as (4/3)|FD(h) − FD(h/2)| (allowed twice over), plus the rounding of two predictions divided by
// 2h: a prediction sums F terms |θ_f z_f| with error at most γ_F·S, S = |b| + Σ|θ_f z_f|; the projections ωᵀx' add
// a relative error of a few (d + K)·u, covered by a factor 4 on F + d + K.
func TestPCAGradients(t *testing.T) {
	train := pcaData(300, 1, false)
	for _, pre := range []string{"standardize,pca:3", "minmax,pca-whiten:2", "pca:4"} {
		t.Run(pre, func(t *testing.T) {
			m, err := Fit(Config{Preprocess: pre, Points: 64, Sigma: 1.5, Lambda: 1e-4, Seed: 7, Rule: "orf"}, train)
			if err != nil {
				t.Fatal(err)
			}
			const n, d = 5, 5
			X := train.X[:n*d]
			g, err := m.Gradients(X, n)
			if err != nil {
				t.Fatal(err)
			}
			K := m.scaler.OutDim()
			checkGradientsFD(t, m, X, n, g, m.fmap.Features()+d+K)
			// The model does not depend on the discarded components: the gradient lies in the row space of the
			// preprocessing's Jacobian J, so it is orthogonal to every raw direction v with Jv = 0.
			if K < d {
				J := m.scaler.Jacobian()
				v := nullVector(J, K, d)
				for i := range n {
					var gv, gabs float64
					for j := range d {
						gv += g[i*d+j] * v[j]
						gabs += math.Abs(g[i*d+j] * v[j])
					}
					if math.Abs(gv) > float64(8*(K+d))*0x1p-53*gabs+1e-12*vecNorm(g[i*d:(i+1)*d]) {
						t.Errorf("row %d: the gradient has a component %v along a discarded direction", i+1, gv)
					}
				}
			}
		})
	}
}

// checkGradientsFD checks the n×d gradients g of the single-output model m at the raw rows X against central
// differences of its predictions: Richardson's estimate of the truncation, 4/3·|D(h) − D(h/2)|, doubled, plus the
// rounding of the predictions over 2h, a sum of terms terms of size at most S = |b| + Σ_f |θ_f z_f(x)| each within
// 4u of its value.
func checkGradientsFD(t *testing.T, m *Model, X []float64, n int, g []float64, terms int) {
	t.Helper()
	d := m.file.Header.Dim
	pred := func(x []float64) float64 {
		p, err := m.PredictRows(x, 1)
		if err != nil {
			t.Fatal(err)
		}
		return p.Values[0]
	}
	fd := func(x []float64, j int, h float64) float64 {
		xp, xm := slices.Clone(x), slices.Clone(x)
		xp[j] += h
		xm[j] -= h
		return (pred(xp) - pred(xm)) / (2 * h)
	}
	mp := m.mapper()
	for i := range n {
		x := X[i*d : (i+1)*d]
		z := make([]float64, mp.Features())
		mp.TransformBlock(z, m.preprocess(x, 1), 1, nil)
		S := math.Abs(m.fit.Bias[0])
		for f, v := range z {
			S += math.Abs(m.fit.Theta[f] * v)
		}
		for j := range d {
			const h = 1e-3
			f1, f2 := fd(x, j, h), fd(x, j, h/2)
			tol := 2*(4.0/3)*math.Abs(f1-f2) + float64(4*terms)*0x1p-53*S/h
			if got := g[i*d+j]; !(math.Abs(got-f1) <= tol) {
				t.Errorf("row %d, ∂f/∂x_%d: %v, central difference %v (tolerance %.3g)", i+1, j+1, got, f1, tol)
			}
		}
	}
}

// nullVector returns a unit vector v with Jv ≈ 0 for the K×d matrix J (K < d), by Gram–Schmidt of the rows against
// a coordinate vector.
func nullVector(J []float64, K, d int) []float64 {
	rows := make([][]float64, 0, K)
	for k := range K {
		r := slices.Clone(J[k*d : (k+1)*d])
		for _, q := range rows {
			c := dot(r, q)
			for j := range r {
				r[j] -= c * q[j]
			}
		}
		nr := vecNorm(r)
		for j := range r {
			r[j] /= nr
		}
		rows = append(rows, r)
	}
	best := []float64(nil)
	for e := range d {
		v := make([]float64, d)
		v[e] = 1
		for pass := 0; pass < 2; pass++ {
			for _, q := range rows {
				c := dot(v, q)
				for j := range v {
					v[j] -= c * q[j]
				}
			}
		}
		if best == nil || vecNorm(v) > vecNorm(best) {
			best = v
		}
	}
	nb := vecNorm(best)
	for j := range best {
		best[j] /= nb
	}
	return best
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func vecNorm(a []float64) float64 { return math.Sqrt(dot(a, a)) }

// TestPCAJacobianDecomposable checks the chain rule of the Jacobian of a vector-valued model (decomposable kernel)
// through a PCA step against central differences, with the tolerance of TestPCAGradients.
func TestPCAJacobianDecomposable(t *testing.T) {
	data := pcaData(200, 3, true)
	m, err := Fit(Config{OVK: "decomposable", Targets: []string{"y1", "y2"}, Preprocess: "standardize,pca:2",
		Points: 48, Sigma: 1.5, Lambda: 1e-4, Seed: 8}, data)
	if err != nil {
		t.Fatal(err)
	}
	const d, p = 5, 2
	x := slices.Clone(data.X[:d])
	J, err := m.Jacobian(x)
	if err != nil {
		t.Fatal(err)
	}
	pred := func(x []float64) []float64 {
		q, err := m.PredictRows(x, 1)
		if err != nil {
			t.Fatal(err)
		}
		return q.Values
	}
	var S float64 // a bound on the sum of the magnitudes of the terms of an output
	for _, v := range m.ofit.Theta {
		S += math.Abs(v)
	}
	for _, v := range m.file.B {
		S = max(S, S*math.Abs(v))
	}
	F := m.omap.Features()
	for j := range d {
		fd := func(h float64) []float64 {
			xp, xm := slices.Clone(x), slices.Clone(x)
			xp[j] += h
			xm[j] -= h
			a, b := pred(xp), pred(xm)
			for o := range a {
				a[o] = (a[o] - b[o]) / (2 * h)
			}
			return a
		}
		const h = 1e-3
		f1, f2 := fd(h), fd(h/2)
		for a := range p {
			tol := 2*(4.0/3)*math.Abs(f1[a]-f2[a]) + float64(4*(F+d+2))*0x1p-53*S/h
			if math.Abs(J[a*d+j]-f1[a]) > tol {
				t.Errorf("∂f_%d/∂x_%d: %v, central difference %v (tolerance %.3g)", a+1, j+1, J[a*d+j], f1[a], tol)
			}
		}
	}
}

func TestPCARefusals(t *testing.T) {
	train := pcaData(100, 1, false)
	curl, _ := dataset.GenerateCurlField(50, 1, 0)
	field := &dataset.Data{N: curl.N, D: 10, Names: append(append([]string(nil), curl.Names...), curl.TargetNames...)}
	for i := range curl.N {
		field.X = append(append(field.X, curl.X[i*5:i*5+5]...), curl.Y[i*5:i*5+5]...)
	}
	for _, c := range []struct {
		name string
		cfg  Config
		data *dataset.Data
		want string
	}{
		{"curl-free", Config{OVK: "curl-free", Targets: curl.TargetNames, Preprocess: "isotropic,pca:3", Points: 8, Sigma: 1}, field, "pca"},
		{"div-free", Config{OVK: "div-free", Targets: curl.TargetNames, Preprocess: "pca:2", Points: 8, Sigma: 1}, field, "pca"},
		{"too many components", Config{Preprocess: "pca:6", Points: 8, Sigma: 1}, train, "pca:6"},
		{"not last", Config{Preprocess: "pca:2,standardize", Points: 8, Sigma: 1}, train, "last"},
		{"bad K", Config{Preprocess: "pca:0", Points: 8, Sigma: 1}, train, "pca:0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Fit(c.cfg, c.data)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Fit: %v; want an error naming %q", err, c.want)
			}
		})
	}
	t.Run("hermite", func(t *testing.T) {
		_, err := FitHermite(Config{Preprocess: "pca:2", Points: 8, Sigma: 1, Lambda: 1e-3}, train, train.Y, nil)
		if err == nil || !strings.Contains(err.Error(), "pca") {
			t.Errorf("FitHermite: %v; want a refusal of pca", err)
		}
	})
	t.Run("distributed", func(t *testing.T) {
		if _, err := PreprocessSteps(Config{Preprocess: "pca:2"}); !errors.Is(err, dataset.ErrPCAStream) {
			t.Errorf("PreprocessSteps: %v; want dataset.ErrPCAStream", err)
		}
		if _, err := NewMap(Config{Preprocess: "pca:2", Sigma: 1}, 5); !errors.Is(err, dataset.ErrPCAStream) {
			t.Errorf("NewMap: %v; want dataset.ErrPCAStream", err)
		}
	})
	t.Run("damaged components", func(t *testing.T) {
		m, err := Fit(Config{Preprocess: "standardize,pca:2", Points: 8, Sigma: 1, Lambda: 1e-3}, train)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := m.Write(&buf); err != nil {
			t.Fatal(err)
		}
		f := *m.file
		sc := *f.Preprocess
		sc.Params = slices.Clone(sc.Params)
		last := &sc.Params[len(sc.Params)-1]
		last.Components = slices.Clone(last.Components)
		last.Components[0] *= 1.001
		f.Preprocess = &sc
		if _, err := fromFile(&f, 0); err == nil || !strings.Contains(err.Error(), "orthonormal") {
			t.Errorf("a model with non-orthonormal components: %v", err)
		}
	})
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// writePCACSV writes the data as a CSV file with a header, the target last.
func writePCACSV(t *testing.T, data *dataset.Data) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "d.csv")
	b := []byte(strings.Join(data.Names, ",") + ",y\n")
	for i := range data.N {
		for j := range data.D {
			b = append(b, []byte(formatFloat(data.X[i*data.D+j])+",")...)
		}
		b = append(b, []byte(formatFloat(data.Y[i])+"\n")...)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFitCSVPCA: a streamed fit with a PCA step (the covariance accumulated chunk by chunk) gives the model Fit gives
// in memory, to rounding. The two scalers agree to a few n·u (TestPCAAccumulated bounds the components' difference by
// Davis–Kahan), the ridge statistics are summed in other orders, and the ridge solution moves by at most the condition
// number of ZᵀZ/n + λI, below (1 + λ)/λ = 1001 here, times those relative perturbations: 1e-9 of the output scale
// covers them.
func TestFitCSVPCA(t *testing.T) {
	train, test := pcaData(600, 4, false), pcaData(30, 5, false)
	path := writePCACSV(t, train)
	for _, pre := range []string{"standardize,pca:3", "pca-whiten:0.999"} {
		t.Run(pre, func(t *testing.T) {
			cfg := Config{Preprocess: pre, Points: 32, Sigma: 1.5, Lambda: 1e-3, Seed: 9}
			mem, err := Fit(cfg, train)
			if err != nil {
				t.Fatal(err)
			}
			str, err := FitCSV(cfg, path, StreamOptions{ChunkRows: 128})
			if err != nil {
				t.Fatal(err)
			}
			if str.scaler.OutDim() != mem.scaler.OutDim() || !slices.Equal(str.Info().Inputs, train.Names) {
				t.Fatalf("streamed: K = %d, inputs %v; in memory K = %d", str.scaler.OutDim(), str.Info().Inputs, mem.scaler.OutDim())
			}
			p, _ := mem.Predict(test)
			q, err := str.Predict(test)
			if err != nil {
				t.Fatal(err)
			}
			var scale float64
			for _, v := range p.Values {
				scale = max(scale, math.Abs(v))
			}
			for i, v := range p.Values {
				if math.Abs(v-q.Values[i]) > 1e-9*scale {
					t.Fatalf("row %d: streamed %v, in memory %v", i+1, q.Values[i], v)
				}
			}
		})
	}
}

// TestPCABudget: a PCA step whose covariance (or, on wide data, Gram matrix) would not fit in the memory budget is
// refused before it is computed, naming what needs the memory.
func TestPCABudget(t *testing.T) {
	wide := func(n, d int) *dataset.Data {
		data := &dataset.Data{N: n, D: d, X: make([]float64, n*d), Y: make([]float64, n)}
		rng := rand.New(rand.NewPCG(1, 1))
		for i := range data.X {
			data.X[i] = rng.NormFloat64()
		}
		return data
	}
	for _, c := range []struct {
		name string
		data *dataset.Data
		want string
	}{
		{"covariance", wide(500, 400), "400×400 covariance"}, // 3·400²·8 B = 3.7 MiB
		{"Gram matrix", wide(60, 5000), "60×60 Gram"},        // 3·60·5000·8 B = 6.9 MiB
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Fit(Config{Preprocess: "pca:5", Points: 8, Sigma: 1, MaxMemory: 1 << 20}, c.data)
			var be *BudgetError
			if !errors.As(err, &be) || !strings.Contains(be.What, c.want) {
				t.Errorf("Fit within 1 MiB: %v; want a BudgetError on the %s", err, c.want)
			}
		})
	}
}
