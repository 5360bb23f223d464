package rff

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/model"
	"github.com/rffkit/rff/nystrom"
)

func loadGenerated(t *testing.T, name string) *dataset.Data {
	t.Helper()
	data, err := dataset.Load("testdata/generated/"+name, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// relMax is max_i |a_i − b_i| / max_i |b_i|.
func relMax(a, b []float64) float64 {
	var d, s float64
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
		s = math.Max(s, math.Abs(b[i]))
	}
	return d / s
}

// TestNystromRoundTripBits: Nyström models of every kind — ridge, cross-validated, on every selector, classifiers
// (one-hot, simplex, hinge, logistic), uncertainty and FALKON — predict the same bits fitted and after Save and Load,
// and a loaded model writes back the bytes it was read from.
func TestNystromRoundTripBits(t *testing.T) {
	reg, cls := loadGenerated(t, "reg.csv"), loadGenerated(t, "cls.csv")
	tests := []struct {
		name string
		cfg  Config
		data *dataset.Data
	}{
		{"ridge uniform", Config{Map: "nystrom", Centres: 20, Lambda: 1e-4}, reg},
		{"ridge kmeans++ laplacian", Config{Map: "nystrom", Centres: 20, Landmarks: "kmeans++", Kernel: "laplacian", Lambda: 1e-4}, reg},
		{"ridge leverage matern52", Config{Map: "nystrom", Centres: 20, Landmarks: "leverage", Kernel: "matern52", Lambda: 1e-4}, reg},
		{"ridge arccos1 cg", Config{Map: "nystrom", Centres: 20, Kernel: "arccos1", Lambda: 1e-4, Solver: "cg"}, reg},
		{"ridge cv", Config{Map: "nystrom", Centres: 20, CV: 3, Lambdas: []float64{1e-6, 1e-3, 1}}, reg},
		{"uncertainty", Config{Map: "nystrom", Centres: 20, Lambda: 1e-3, Uncertainty: true}, reg},
		{"falkon", Config{Map: "nystrom", Centres: 20, Lambda: 1e-3, Solver: "falkon"}, reg},
		{"falkon stored kernel", Config{Map: "nystrom", Centres: 20, Lambda: 1e-3, Solver: "falkon", FalkonStore: true}, reg},
		{"pca", Config{Map: "nystrom", Centres: 20, Lambda: 1e-3, Preprocess: "standardize,pca:2"}, reg},
		{"onehot", Config{Map: "nystrom", Task: "classification", Centres: 30, Lambda: 1e-3}, cls},
		{"simplex falkon", Config{Map: "nystrom", Task: "classification", Encoding: "simplex", Centres: 30, Lambda: 1e-3, Solver: "falkon"}, cls},
		{"hinge", Config{Map: "nystrom", Task: "classification", Loss: "hinge", Centres: 30, Lambda: 1e-3}, cls},
		{"logistic", Config{Map: "nystrom", Task: "classification", Loss: "logistic", Centres: 30, Lambda: 1e-3}, cls},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Fit(tc.cfg, tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if in := m.Info(); in.Map != "nystrom" || in.Centres != tc.cfg.Centres || in.Features < 1 || in.Features > in.Centres {
				t.Fatalf("info %+v", in)
			}
			path := filepath.Join(t.TempDir(), "m.rff")
			if err := m.Save(path); err != nil {
				t.Fatal(err)
			}
			back, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			a, err := m.Predict(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			b, err := back.Predict(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			for i := range a.Values {
				if a.Values[i] != b.Values[i] {
					t.Fatalf("value %d: %v fitted, %v loaded", i, a.Values[i], b.Values[i])
				}
			}
			if tc.cfg.Uncertainty {
				sa, err := m.PredictStd(tc.data.X, tc.data.N, true)
				if err != nil {
					t.Fatal(err)
				}
				sb, _ := back.PredictStd(tc.data.X, tc.data.N, true)
				for i := range sa {
					if sa[i] != sb[i] || !(sa[i] > 0) {
						t.Fatalf("std %d: %v fitted, %v loaded", i, sa[i], sb[i])
					}
				}
			}
			if tc.cfg.Solver == "falkon" {
				if r := m.Report().Solve; r == nil || r.Method != "falkon" || r.Iterations < 1 || !(r.Residual <= 1e-7) {
					t.Fatalf("FALKON report %+v", r)
				}
			}
			var again bytes.Buffer
			if err := back.Write(&again); err != nil {
				t.Fatal(err)
			}
			if orig, _ := os.ReadFile(path); !bytes.Equal(orig, again.Bytes()) {
				t.Error("a loaded model does not write the bytes it was read from")
			}
		})
	}
}

// TestFalkonEqualsNystromRidge: FALKON solves the Nyström ridge problem, (K_NMᵀK_NM + NλK_MM)α = K_NMᵀY, iteratively.
// With CG stopped at a relative residual τ of the preconditioned system (1e-11 asked; τ is the residual recomputed
// from the final iterate), the solution's relative error is at most κτ, κ the condition number of that system; Rudi et al. bound κ by a small constant when the centres cover
// the data, and without preconditioning it would be at most (max k(x,x) + λ)/λ (k(x,x) = 1 here, in the
// coordinates of the features); the predictions agree to 2κτ of their scale (the bias
// adds the same relative error once more), which the test requires to be ≤ 1e-6. The centres and bandwidths keep
// every eigenvalue of K_MM (FALKON works on all of them, the map on those above its threshold), and FALKON's jitter
// δ ≈ M·2⁻⁵² moves the penalty by δ/λ_min(K_MM) < 1e-9 relative.
func TestFalkonEqualsNystromRidge(t *testing.T) {
	for _, tc := range []struct {
		name string
		data *dataset.Data
		cfg  Config
	}{
		{"regression", loadGenerated(t, "reg.csv"), Config{Map: "nystrom", Centres: 25, Lambda: 1e-3, Sigma: 1.5}},
		{"onehot", loadGenerated(t, "cls.csv"), Config{Map: "nystrom", Task: "classification", Centres: 40, Lambda: 1e-2, Sigma: 0.5}},
	} {
		for _, basis := range []string{"cholesky", "eigen"} {
			t.Run(tc.name+"/"+basis, func(t *testing.T) {
				tc.cfg.NystromBasis = basis
				direct, err := Fit(tc.cfg, tc.data)
				if err != nil {
					t.Fatal(err)
				}
				if in := direct.Info(); in.Features != in.Centres || in.Centres != tc.cfg.Centres {
					t.Fatalf("the map dropped %d landmarks and %d eigenvalues: the two solvers would solve different problems", tc.cfg.Centres-in.Centres, in.Centres-in.Features)
				}
				cfg := tc.cfg
				cfg.Solver, cfg.FalkonTol, cfg.FalkonIter = "falkon", 1e-11, 500
				fk, err := Fit(cfg, tc.data)
				if err != nil {
					t.Fatal(err)
				}
				r := fk.Report().Solve
				kappa := (1 + tc.cfg.Lambda) / tc.cfg.Lambda
				tol := 2 * kappa * r.Residual // the residual recomputed from the final iterate
				if r.Note != "" || !(tol <= 1e-6) {
					t.Fatalf("FALKON did not converge: %+v", r)
				}
				a, _ := direct.Predict(tc.data)
				b, _ := fk.Predict(tc.data)
				if e := relMax(b.Values, a.Values); !(e <= tol) {
					t.Fatalf("FALKON predictions differ from the direct Nyström solve by %.3g of their scale (bound %.3g)", e, tol)
				}
			})
		}
	}
}

// TestNystromAllRowsIsExactKRR: with every training row a landmark (M = N) the Nyström ridge problem is kernel ridge
// regression itself, so the model equals the exact one up to rounding and the dropped eigenvalues. Both solve a
// system of condition number at most κ = (λ_max(K)/N + λ)/λ ≤ (1 + λ)/λ ≈ 10³ (k(x,x) = 1, λ = 1e-3) from inputs
// rounded to about N·2⁻⁵³ of their scale, and the eigenvalues below 1e-12·λ_max(K_MM) dropped by the map change the
// kernel by at most 1e-12·N relative; so the predictions agree to κ·(N·2⁻⁵³ + 1e-12·N) ≈ 7e-8 of their scale.
func TestNystromAllRowsIsExactKRR(t *testing.T) {
	data := loadGenerated(t, "reg.csv")
	const lambda = 1e-3
	for _, kern := range []string{"gaussian", "laplacian", "matern32"} {
		t.Run(kern, func(t *testing.T) {
			exact, err := Fit(Config{Exact: true, Lambda: lambda, Sigma: 1.5, Kernel: kern}, data)
			if err != nil {
				t.Fatal(err)
			}
			ny, err := Fit(Config{Map: "nystrom", Centres: data.N, Lambda: lambda, Sigma: 1.5, Kernel: kern}, data)
			if err != nil {
				t.Fatal(err)
			}
			// Predict at new points as well as the training rows.
			X := append([]float64(nil), data.X...)
			for i := range X {
				X[i] += 0.3 * math.Sin(float64(i))
			}
			for _, rows := range [][]float64{data.X, X} {
				a, _ := exact.PredictRows(rows, data.N)
				b, _ := ny.PredictRows(rows, data.N)
				N := float64(data.N)
				kappa := (1 + lambda) / lambda
				tol := kappa * (N*0x1p-53 + 1e-12*N)
				if e := relMax(b.Values, a.Values); !(e <= tol) {
					t.Fatalf("Nyström on all rows differs from exact KRR by %.3g of the scale (bound %.3g)", e, tol)
				}
			}
		})
	}
}

// TestNystromStreamed: FitCSV chooses uniform landmarks from a uniform reservoir sample of the file; with M = N the
// sample is every row in file order, the landmarks those of Fit, and the models agree up to the order of the sums
// of ZᵀZ (relative 1e-10 with λ = 1e-4: the conditioning of the centred system is at most (1 + λ)/λ = 1e4).
func TestNystromStreamed(t *testing.T) {
	data := loadGenerated(t, "reg.csv")
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"uniform", Config{Map: "nystrom", Centres: data.N, Lambda: 1e-4}},
		{"uncertainty", Config{Map: "nystrom", Centres: data.N, Lambda: 1e-4, Uncertainty: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem, err := Fit(tc.cfg, data)
			if err != nil {
				t.Fatal(err)
			}
			st, err := FitCSV(tc.cfg, "testdata/generated/reg.csv", StreamOptions{ChunkRows: 7})
			if err != nil {
				t.Fatal(err)
			}
			a, _ := mem.Predict(data)
			b, _ := st.Predict(data)
			if e := relMax(b.Values, a.Values); !(e <= 1e-10) {
				t.Fatalf("streamed Nyström model differs by %.3g of the scale", e)
			}
		})
	}
	// Fewer centres: a uniform sample of M rows; the model must still fit the data well and load.
	st, err := FitCSV(Config{Map: "nystrom", Centres: 30, Landmarks: "kmeans++", Lambda: 1e-4}, "testdata/generated/reg.csv", StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if in := st.Info(); in.Centres != 30 || in.Landmarks != "kmeans++" {
		t.Fatalf("info %+v", in)
	}
	for _, cfg := range []Config{
		{Map: "nystrom", Centres: data.N + 1, Lambda: 1e-4},
		{Map: "nystrom", Centres: 10, Lambda: 1e-4, Solver: "falkon"},
	} {
		if _, err := FitCSV(cfg, "testdata/generated/reg.csv", StreamOptions{}); err == nil {
			t.Errorf("%+v: streamed fit accepted", cfg)
		}
	}
	if _, err := NewMap(Config{Map: "nystrom", Sigma: 1}, 3); err == nil || !strings.Contains(err.Error(), "landmarks") {
		t.Errorf("a distributed Nyström map: %v", err)
	}
}

// TestNystromTune: tuning a Nyström model scores every bandwidth on a Nyström map of the tuning rows, so the GCV
// score it reports for the chosen (σ, λ) is the one computed from the statistics of that map directly.
func TestNystromTune(t *testing.T) {
	data := loadGenerated(t, "reg.csv")
	m, err := Fit(Config{Map: "nystrom", Centres: 20, Tune: true}, data)
	if err != nil {
		t.Fatal(err)
	}
	tr := m.Report().Tune
	if tr == nil || tr.Points != 20 || m.Info().Sigma != tr.Sigma || m.Info().Lambda != tr.Lambda {
		t.Fatalf("tune result %+v, info %+v", tr, m.Info())
	}
	X := append([]float64(nil), data.X...)
	m.scaler.Apply(X, data.N, data.D)
	k, err := kernel.New("gaussian", tr.Sigma)
	if err != nil {
		t.Fatal(err)
	}
	nm, err := nystrom.New(k, nystrom.Uniform{}, X, data.N, data.D, 20, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, err := learn.Accumulate(nm, X, data.N, data.Y, 1)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := learn.SelectLambda(st, tr.Lambdas, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, sg := range tr.Sigmas {
		if sg != tr.Sigma {
			continue
		}
		for j, v := range tr.Scores[i] {
			if math.Abs(v-sel.GCV[j]) > 1e-8*math.Abs(sel.GCV[j]) {
				t.Fatalf("λ = %g: tuning scored %v, the Nyström map's GCV is %v", tr.Lambdas[j], v, sel.GCV[j])
			}
		}
		return
	}
	t.Fatal("the chosen σ is not among the scored ones")
}

// TestNystromRefuses: settings that do not go with a Nyström map, and Nyström settings without one, are errors.
func TestNystromRefuses(t *testing.T) {
	data := loadGenerated(t, "reg.csv")
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Centres: 10}, "Nyström"},
		{Config{Landmarks: "uniform"}, "Nyström"},
		{Config{Solver: "falkon"}, "falkon"},
		{Config{Map: "nystrom", Rule: "g"}, "rule"},
		{Config{Map: "nystrom", Points: 64}, "Centres"},
		{Config{Map: "nystrom", Form: "cosphase"}, "form"},
		{Config{Map: "nystrom", Exact: true}, "exact"},
		{Config{Map: "nystrom", OVK: "curl-free", Targets: []string{"y"}}, "random features"},
		{Config{Map: "nystrom", Landmarks: "random"}, "landmark"},
		{Config{Map: "nystrom", Centres: -1}, "centres"},
		{Config{Map: "nystrom", Centres: 61}, "exceeds the 60 training rows"},
		{Config{Map: "nystrom", Solver: "falkon", Uncertainty: true, Lambda: 1}, "uncertainty"},
		{Config{Map: "nystrom", Solver: "falkon"}, "λ > 0"},
		{Config{Map: "nystrom", Precision: "mixed"}, "mixed"},
		{Config{Map: "nystrom", Solver: "falkon", Lambda: 1, FalkonTol: 2}, "tolerance"},
		{Config{Map: "nystrom", FalkonIter: 5, Lambda: 1}, "falkon"},
		{Config{Map: "nystrom", FalkonStore: true, Lambda: 1}, "falkon"},
		{Config{FalkonStore: true, Lambda: 1}, "falkon"},
		{Config{Map: "rbf"}, "map"},
		{Config{Map: "nystrom", Centres: 10, MaxMemory: 1 << 10}, "centres"},
	} {
		_, err := Fit(tc.cfg, data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one mentioning %q", tc.cfg, err, tc.want)
		}
		if tc.cfg.MaxMemory != 0 {
			var be *BudgetError
			if !errors.As(err, &be) || be.Lower != "centres" {
				t.Errorf("budget error %v", err)
			}
		}
	}
}

// TestNystromFileRefused: a checksum-valid Nyström file whose arrays contradict each other or the kernel is refused
// with one error.
func TestNystromFileRefused(t *testing.T) {
	data := loadGenerated(t, "reg.csv")
	for _, basis := range []string{"cholesky", "eigen"} {
		m, err := Fit(Config{Map: "nystrom", Centres: 12, Lambda: 1e-3, Sigma: 1.5, NystromBasis: basis}, data)
		if err != nil {
			t.Fatal(err)
		}
		third := map[string]string{"cholesky": "pivots", "eigen": "eigenvalues"}[basis]
		for _, tc := range []struct {
			name   string
			change func(f *model.Model)
		}{
			{"rank above M", func(f *model.Model) { f.Features = f.Header.Points + 1 }},
			{"norm short", func(f *model.Model) {
				f.Points = map[string][]float64{"landmarks": f.Points["landmarks"], "norm": f.Points["norm"][1:], third: f.Points[third]}
			}},
			{"NaN landmark", func(f *model.Model) { f.Points["landmarks"][3] = math.NaN() }},
			{"eigenvalues increasing or pivot negative", func(f *model.Model) {
				e := f.Points[third]
				e[0], e[1] = e[1], -e[0]
			}},
			{"another basis", func(f *model.Model) { f.Basis = map[string]string{"cholesky": "", "eigen": "cholesky"}[basis] }},
			{"another bandwidth", func(f *model.Model) { f.Sigma *= 1.5 }},
			{"another kernel", func(f *model.Model) { f.Kernel = "laplacian" }},
			{"norm scaled", func(f *model.Model) { f.Points["norm"][0] *= 1.001 }},
			{"weights", func(f *model.Model) { f.Weights = make([]float64, f.Header.Points) }},
			{"form", func(f *model.Model) { f.Form = "cossin" }},
			{"threshold", func(f *model.Model) { f.Threshold = 1 }},
			{"exact", func(f *model.Model) { f.Exact = true }},
			{"missing kind", func(f *model.Model) { f.PointsKind = "dense" }},
		} {
			t.Run(basis+"/"+tc.name, func(t *testing.T) {
				var buf bytes.Buffer
				if err := m.Write(&buf); err != nil {
					t.Fatal(err)
				}
				f, err := model.Decode(buf.Bytes())
				if err != nil {
					t.Fatal(err)
				}
				if got := map[string]string{"": "eigen", "cholesky": "cholesky"}[f.Basis]; got != basis {
					t.Fatalf("the file's basis is %q, want %s", f.Basis, basis)
				}
				tc.change(f)
				b, err := model.Encode(f)
				if err != nil {
					return // refused by the format's own checks
				}
				if _, err := Read(bytes.NewReader(b)); err == nil {
					t.Fatal("accepted")
				} else if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error is not one line: %v", err)
				}
			})
		}
	}
}

// TestNystromBudget: the memory estimate of a Nyström fit counts K_MM and the normalization, and in the eigen basis
// the eigenvectors (2·8·M² or 3·8·M² bytes), the M'×M' ridge statistics of the default solver, or FALKON's two M×M
// factors, so it grows as M² and is refused, before anything is built, by a budget below it.
func TestNystromBudget(t *testing.T) {
	const n, d, M = 100000, 10, 3000
	for basis, arrays := range map[string]int64{"cholesky": 2, "eigen": 3} {
		need := func(cfg Config) int64 {
			cfg.Map, cfg.Centres, cfg.MaxMemory, cfg.NystromBasis = "nystrom", M, 1, basis
			s, err := cfg.resolve()
			if err != nil {
				t.Fatal(err)
			}
			kind, _ := kernel.New("gaussian", 1)
			var be *BudgetError
			if err := s.checkBudget(n, d, 1, kind); !errors.As(err, &be) || be.Lower != "centres" {
				t.Fatalf("%+v: %v", cfg, err)
			}
			return be.Bytes
		}
		square := int64(8 * M * M)
		ridge, falkon := need(Config{Lambda: 1}), need(Config{Lambda: 1, Solver: "falkon"})
		if ridge < (arrays+1)*square || ridge > (arrays+1)*square+int64(8*n*d)+int64(8*M*d)+(64<<20)+10*square {
			t.Errorf("%s: ridge estimate %d for 8M² = %d", basis, ridge, square)
		}
		// FALKON holds no ZᵀZ but two M×M factors, a 32 MiB block of K_NM and M×P vectors.
		base := arrays*square + int64(8*n*d) + int64(8*M*d)
		if falkon < base+2*square || falkon > base+2*square+(33<<20) {
			t.Errorf("%s: FALKON estimate %d for 8M² = %d", basis, falkon, square)
		}
		// With FalkonStore the whole N×M kernel matrix replaces the block.
		if stored := need(Config{Lambda: 1, Solver: "falkon", FalkonStore: true}); stored != falkon-(32<<20)+int64(8*n*M) {
			t.Errorf("%s: FALKON estimate with the stored kernel %d, want %d − 32 MiB + 8·N·M", basis, stored, falkon)
		}
	}
}

// TestNystromDecomposable: vector-valued ridge with the decomposable kernel k(x, z)·A on Nyström features with every
// row a landmark (M = N) is exact decomposable kernel ridge regression (the Np × Np block Gram K ⊗ A). The exact
// system has condition number at most (μ_max + λ)/λ (eigenvalues of K/N ≤ 1 for k(x,x) = 1, μ_max that of A), and
// both are computed from inputs rounded to about N·2⁻⁵³, with eigenvalues below 1e-12·λ_max dropped by the map; so
// they agree to κ·(N·2⁻⁵³ + 1e-12·N) of the outputs' scale. The model saves and loads bit for bit.
func TestNystromDecomposable(t *testing.T) {
	data, err := dataset.Load("testdata/generated/multitask.csv", dataset.Options{Target: "none"})
	if err != nil {
		t.Fatal(err)
	}
	targets := []string{"y1", "y2", "y3", "y4"}
	const lambda = 1e-2
	for _, tc := range []struct {
		name string
		A    []float64
		mu   float64 // largest eigenvalue of A
	}{
		{"identity", nil, 1},
		{"coupled, rank 3", []float64{2, 1, 0, 0, 1, 2, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{OVK: "decomposable", AMatrix: tc.A, Targets: targets, Lambda: lambda, Sigma: 3}
			exactCfg := cfg
			exactCfg.Exact = true
			exact, err := Fit(exactCfg, data)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Map, cfg.Centres = "nystrom", data.N
			ny, err := Fit(cfg, data)
			if err != nil {
				t.Fatal(err)
			}
			a, err := exact.Predict(data)
			if err != nil {
				t.Fatal(err)
			}
			b, err := ny.Predict(data)
			if err != nil {
				t.Fatal(err)
			}
			N := float64(data.N)
			tol := (tc.mu + lambda) / lambda * (N*0x1p-53 + 1e-12*N)
			if e := relMax(b.Values, a.Values); !(e <= tol) {
				t.Fatalf("decomposable Nyström with M = N differs from exact decomposable KRR by %.3g of the scale (bound %.3g)", e, tol)
			}
			var buf bytes.Buffer
			if err := ny.Write(&buf); err != nil {
				t.Fatal(err)
			}
			back, err := Read(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			c, _ := back.Predict(data)
			for i := range b.Values {
				if b.Values[i] != c.Values[i] {
					t.Fatalf("value %d: %v fitted, %v loaded", i, b.Values[i], c.Values[i])
				}
			}
			if in := back.Info(); in.OVK != "decomposable" || in.Map != "nystrom" || in.Outputs != 4 {
				t.Fatalf("header %+v", back.file.Header)
			}
		})
	}
	for _, cfg := range []Config{
		{Map: "nystrom", OVK: "curl-free", Targets: targets, Lambda: 1},
		{Map: "nystrom", OVK: "decomposable", Targets: targets, Lambda: 1, Solver: "falkon"},
		{Map: "nystrom", OVK: "decomposable", Targets: targets, Lambda: 0},
	} {
		if _, err := Fit(cfg, data); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
}

// TestNystromGradients: a regression model on Nyström features gives gradients in the raw coordinates that match
// central differences of its predictions (checkGradientsFD), with standardized inputs and with a PCA step, and the
// same bits after Save and Load; a Laplacian kernel has no gradient.
func TestNystromGradients(t *testing.T) {
	reg := loadGenerated(t, "reg.csv")
	const n, d = 4, 3
	for _, pre := range []string{"standardize", "standardize,pca:2"} {
		m, err := Fit(Config{Map: "nystrom", Centres: 40, Lambda: 1e-4, Sigma: 1.2, Preprocess: pre}, reg)
		if err != nil {
			t.Fatal(err)
		}
		X := reg.X[:n*d]
		g, err := m.Gradients(X, n)
		if err != nil {
			t.Fatalf("%s: %v", pre, err)
		}
		checkGradientsFD(t, m, X, n, g, m.nmap.Features()+m.nmap.Centres()+d)
		back := saveLoad(t, m)
		if g2, err := back.Gradients(X, n); err != nil || !slices.Equal(g2, g) {
			t.Errorf("%s: gradients after Save and Load differ (%v)", pre, err)
		}
	}
	lap, err := Fit(Config{Map: "nystrom", Centres: 20, Lambda: 1e-4, Kernel: "laplacian"}, reg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lap.Gradients(reg.X[:d], 1); !errors.Is(err, ErrNoGradient) {
		t.Errorf("Laplacian Nyström model: %v, want ErrNoGradient", err)
	}
}

// TestNystromGivenLandmarks: landmarks given in the input coordinates go through the fitted preprocessing. Given all
// training rows, in reverse order, the model is exact kernel ridge regression (the bound of
// TestNystromAllRowsIsExactKRR); given a few rows, it is the model of those landmarks whether the fit is in memory or
// streamed (the same bound as TestNystromStreamed); and given points that do not fit the inputs, the fit is refused.
func TestNystromGivenLandmarks(t *testing.T) {
	data := loadGenerated(t, "reg.csv")
	const lambda = 1e-3
	rev := make([]float64, 0, len(data.X))
	for i := data.N - 1; i >= 0; i-- {
		rev = append(rev, data.X[i*data.D:(i+1)*data.D]...)
	}
	exact, err := Fit(Config{Exact: true, Lambda: lambda, Sigma: 1.5}, data)
	if err != nil {
		t.Fatal(err)
	}
	for _, basis := range []string{"cholesky", "eigen"} {
		ny, err := Fit(Config{Map: "nystrom", LandmarkPoints: rev, LandmarkNames: data.Names, Lambda: lambda, Sigma: 1.5, NystromBasis: basis}, data)
		if err != nil {
			t.Fatal(err)
		}
		if in := ny.Info(); in.Landmarks != "given" || in.Centres > data.N {
			t.Fatalf("info %+v", in)
		}
		a, _ := exact.Predict(data)
		b, _ := ny.Predict(data)
		N := float64(data.N)
		if e, tol := relMax(b.Values, a.Values), (1+lambda)/lambda*(N*0x1p-53+1e-12*N); !(e <= tol) {
			t.Fatalf("%s: Nyström on all rows, given, differs from exact KRR by %.3g of the scale (bound %.3g)", basis, e, tol)
		}
	}
	few := data.X[:25*data.D]
	cfg := Config{Map: "nystrom", LandmarkPoints: few, Lambda: 1e-4}
	mem, err := Fit(cfg, data)
	if err != nil {
		t.Fatal(err)
	}
	if in := mem.Info(); in.Centres != 25 || in.Landmarks != "given" {
		t.Fatalf("info %+v", in)
	}
	st, err := FitCSV(cfg, "testdata/generated/reg.csv", StreamOptions{ChunkRows: 7})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := mem.Predict(data)
	b, _ := st.Predict(data)
	if e := relMax(b.Values, a.Values); !(e <= 1e-10) {
		t.Fatalf("streamed model on given landmarks differs by %.3g of the scale", e)
	}
	// The landmarks are preprocessed like the rows: with a PCA step they live in the components' coordinates.
	if _, err := Fit(Config{Map: "nystrom", LandmarkPoints: few, Lambda: 1e-4, Preprocess: "standardize,pca:1"}, data); err != nil {
		t.Fatalf("given landmarks with a PCA step: %v", err)
	}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Map: "nystrom", Landmarks: "given", Lambda: 1}, "LandmarkPoints"},
		{Config{Map: "nystrom", LandmarkPoints: few, Landmarks: "kmeans++", Lambda: 1}, "kmeans++"},
		{Config{LandmarkPoints: few, Lambda: 1}, "Nyström"},
		{Config{Map: "nystrom", LandmarkPoints: few[:len(few)-1], Lambda: 1}, "rows"},
		{Config{Map: "nystrom", LandmarkPoints: few, Centres: 24, Lambda: 1}, "25 landmarks"},
		{Config{Map: "nystrom", LandmarkPoints: few, LandmarkNames: []string{"a", "b", "c"}, Lambda: 1}, "columns"},
		{Config{Map: "nystrom", LandmarkPoints: append([]float64{math.NaN()}, few[1:]...), Lambda: 1}, "NaN"},
	} {
		_, err := Fit(tc.cfg, data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one mentioning %q", tc.cfg.Landmarks, err, tc.want)
		}
	}
}

// TestFalkonEigenBasisDropped: FALKON in the eigen basis when the basis dropped directions (here, landmarks given
// twice make K_MM singular) is refused, naming the way out; the Cholesky basis, which drops the repeated landmarks,
// fits the same landmarks and equals the direct solve.
func TestFalkonEigenBasisDropped(t *testing.T) {
	data := loadGenerated(t, "reg.csv")
	d := data.D
	L := append(append([]float64(nil), data.X[:10*d]...), data.X[:10*d]...) // 20 landmarks, 10 distinct
	cfg := Config{Map: "nystrom", LandmarkPoints: L, Lambda: 1e-3, Sigma: 1.5, Solver: "falkon", FalkonTol: 1e-11, FalkonIter: 500}
	cfg.NystromBasis = "eigen"
	if _, err := Fit(cfg, data); err == nil || !strings.Contains(err.Error(), "kept 10 of their 20 directions") || !strings.Contains(err.Error(), "--nystrom-basis cholesky") {
		t.Fatalf("FALKON in an eigen basis that dropped directions: %v", err)
	}
	cfg.NystromBasis = "cholesky"
	fk, err := Fit(cfg, data)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Solver, cfg.FalkonTol, cfg.FalkonIter = "", 0, 0
	direct, err := Fit(cfg, data)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := direct.Predict(data)
	b, _ := fk.Predict(data)
	tol := 2 * (1 + cfg.Lambda) / cfg.Lambda * fk.Report().Solve.Residual // as TestFalkonEqualsNystromRidge
	if !(tol <= 1e-6) {
		t.Fatalf("FALKON did not converge: %+v", fk.Report().Solve)
	}
	if e := relMax(b.Values, a.Values); !(e <= tol) {
		t.Errorf("Cholesky-basis FALKON differs from the direct solve by %.3g of the scale (bound %.3g)", e, tol)
	}
}
