package rff_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
)

// TestPredictRowAlone: a row's prediction has the same bits whether it is predicted alone or among other rows
// (a request of one row to a server, a file of many): for random-feature maps of every kind of rule (structured,
// dense, with inputs of fewer and more than 8 dimensions), one output and many (a classifier's), PCA preprocessing,
// Nyström features, exact kernel ridge regression, the predictive standard deviations and posterior samples. A BLAS's product of many rows may sum in another order than
// of one row.
func TestPredictRowAlone(t *testing.T) {
	for _, c := range []struct {
		name string
		d    int
		cfg  rff.Config
	}{
		{"sr-butterfly d=4", 4, rff.Config{Points: 256}},
		{"gaussian d=4", 4, rff.Config{Points: 256, Rule: "g"}},
		{"gaussian d=16", 16, rff.Config{Points: 256, Rule: "g"}},
		{"orf d=100", 100, rff.Config{Points: 256, Rule: "orf"}},
		{"sorf d=16", 16, rff.Config{Points: 256, Rule: "sorf"}},
		{"classifier d=16", 16, rff.Config{Points: 256, Rule: "g", Task: "classification"}},
		{"pca d=20", 20, rff.Config{Points: 128, Preprocess: "standardize,pca:10"}},
		{"nystrom d=16", 16, rff.Config{Map: "nystrom", Centres: 100}},
		{"nystrom classifier d=16", 16, rff.Config{Map: "nystrom", Centres: 100, Task: "classification"}},
		{"nystrom d=40", 40, rff.Config{Map: "nystrom", Centres: 100}},
		{"nystrom eigen d=40", 40, rff.Config{Map: "nystrom", Centres: 100, NystromBasis: "eigen"}},
		{"nystrom matern d=40", 40, rff.Config{Map: "nystrom", Centres: 100, Kernel: "matern52"}},
		{"exact d=16", 16, rff.Config{Exact: true}},
		{"exact d=40", 40, rff.Config{Exact: true}},
		{"uncertainty d=16", 16, rff.Config{Points: 128, Rule: "g", Uncertainty: true}},
		{"uncertainty D=600 d=16", 16, rff.Config{Points: 600, Uncertainty: true}},
		{"nystrom uncertainty d=16", 16, rff.Config{Map: "nystrom", Centres: 100, Uncertainty: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			const n = 600
			rng := rand.New(rand.NewPCG(3, uint64(c.d)))
			data := &dataset.Data{N: n, D: c.d, TargetName: "y"}
			for i := range c.d {
				data.Names = append(data.Names, fmt.Sprintf("x%d", i))
			}
			for range n {
				s := 0.0
				for range c.d {
					v := rng.NormFloat64()
					data.X = append(data.X, v)
					s += v
				}
				y := math.Sin(s)
				if c.cfg.Task == "classification" {
					y = math.Floor(5 * (y + 1)) // classes 0…10
				}
				data.Y = append(data.Y, y)
			}
			cfg := c.cfg
			cfg.Sigma, cfg.Lambda, cfg.Seed = 2, 1e-6, 1
			m, err := rff.Fit(cfg, data)
			if err != nil {
				t.Fatal(err)
			}
			sameAlone(t, m, data.X, n, c.d, cfg.Uncertainty)
		})
	}
}

// TestPredictRowAloneOVK: the same for vector-valued models (decomposable and field kernels, random features of a
// structured and a dense rule, and exact).
func TestPredictRowAloneOVK(t *testing.T) {
	for _, c := range []struct {
		name string
		d    int // inputs; the outputs are 3 (a field kernel's d)
		cfg  rff.Config
	}{
		{"decomposable", 10, rff.Config{OVK: "decomposable", A: "covariance", Points: 64}},
		{"decomposable dense", 10, rff.Config{OVK: "decomposable", Points: 64, Rule: "g"}},
		{"curl-free", 3, rff.Config{OVK: "curl-free", Points: 64, Preprocess: "none"}},
		{"div-free dense", 3, rff.Config{OVK: "div-free", Points: 64, Rule: "g", Preprocess: "none"}},
		{"curl-free exact", 3, rff.Config{OVK: "curl-free", Exact: true, Preprocess: "none"}},
		{"decomposable exact", 10, rff.Config{OVK: "decomposable", Exact: true}},
		{"decomposable exact d=40", 40, rff.Config{OVK: "decomposable", Exact: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			const n = 400
			d := c.d
			rng := rand.New(rand.NewPCG(5, 6))
			data := &dataset.Data{N: n, D: d + 3}
			for i := range d {
				data.Names = append(data.Names, fmt.Sprintf("x%d", i))
			}
			data.Names = append(data.Names, "y1", "y2", "y3")
			x := make([]float64, d)
			for range n {
				for i := range x {
					x[i] = rng.NormFloat64()
				}
				data.X = append(data.X, x...)
				data.X = append(data.X, math.Sin(x[0]), x[0]*x[1], math.Cos(x[2]))
			}
			cfg := c.cfg
			cfg.Targets, cfg.Sigma, cfg.Lambda, cfg.Seed = []string{"y1", "y2", "y3"}, 1.5, 1e-4, 1
			m, err := rff.Fit(cfg, data)
			if err != nil {
				t.Fatal(err)
			}
			X, err := m.Inputs(data)
			if err != nil {
				t.Fatal(err)
			}
			sameAlone(t, m, X, n, d, false)
		})
	}
}

// sameAlone checks that each of the n rows of X (n×d) predicted alone — its gradients where the model has them,
// and with std its predictive standard deviation and its values in K posterior samples of one seed — has the bits
// of one call on all rows.
func sameAlone(t *testing.T, m *rff.Model, X []float64, n, d int, std bool) {
	t.Helper()
	all, err := m.PredictRows(X, n)
	if err != nil {
		t.Fatal(err)
	}
	const K, seed = 3, 9
	var sd, draws []float64
	if std {
		if sd, err = m.PredictStd(X, n, true); err != nil {
			t.Fatal(err)
		}
		if draws, err = m.Sample(X, n, K, seed); err != nil {
			t.Fatal(err)
		}
	}
	// Gradients (which models without them refuse) of the first rows only: a Nyström map's derivative features cost
	// d·M kernel derivatives per row.
	ng := min(n, 40)
	grads, gerr := m.Gradients(X[:ng*d], ng)
	P, differ := all.Outputs, 0
	same := func(what string, i, j int, alone, among float64) {
		if math.Float64bits(alone) != math.Float64bits(among) {
			if differ == 0 {
				t.Errorf("row %d, %s %d: alone %v, in the batch %v", i+1, what, j+1, alone, among)
			}
			differ++
		}
	}
	for i := range n {
		x := X[i*d : (i+1)*d]
		one, err := m.PredictRows(x, 1)
		if err != nil {
			t.Fatal(err)
		}
		for j := range P {
			same("output", i, j, one.Values[j], all.Values[i*P+j])
		}
		if gerr == nil && i < ng {
			g, err := m.Gradients(x, 1)
			if err != nil {
				t.Fatal(err)
			}
			for j, v := range g {
				same("gradient entry", i, j, v, grads[i*len(g)+j])
			}
		}
		if std {
			s, err := m.PredictStd(x, 1, true)
			if err != nil {
				t.Fatal(err)
			}
			for j := range P {
				same("standard deviation", i, j, s[j], sd[i*P+j])
			}
			f, err := m.Sample(x, 1, K, seed)
			if err != nil {
				t.Fatal(err)
			}
			for k := range K {
				for j := range P {
					same("posterior sample", i, k*P+j, f[k*P+j], draws[(k*n+i)*P+j])
				}
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d values differ", differ)
	}
}
