package rff

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTargetOffset: adding a constant c to a regression's targets changes the fit only by c in its intercept. The
// sums of squares of targets near c (Σy² − (Σy)²/N) would otherwise lose the digits of their spread — at c = 1e8
// and a spread of about 1, half of them. Rounding the shifted targets moves them by at most ulp(c)/2 = 7.5e-9, so
// scores, predictions (less c) and the noise variance agree to 1e-6 relative, and every choice is the same.
func TestTargetOffset(t *testing.T) {
	const c = 1e8
	base := smoothData(300)
	shifted := *base
	shifted.Y = slices.Clone(base.Y)
	for i := range shifted.Y {
		shifted.Y[i] += c
	}
	near := func(a, b, scale float64) bool { return math.Abs(a-b) <= 1e-6*scale }
	for _, cfg := range []Config{
		{Points: 64, Tune: true, Sigmas: []float64{0.3, 1, 3}, Lambdas: []float64{1e-8, 1e-6, 1e-4, 1e-2}},
		{Points: 64, Tune: true, Select: "evidence", Sigmas: []float64{0.3, 1, 3}, Lambdas: []float64{1e-8, 1e-6, 1e-4, 1e-2}},
		{Points: 64, Tune: true, Select: "cv", Sigmas: []float64{0.3, 1, 3}, Lambdas: []float64{1e-8, 1e-6, 1e-4, 1e-2}},
		{Points: 64, Sigma: 1, CV: 5, Lambdas: []float64{1e-8, 1e-6, 1e-4, 1e-2}},
		{Points: 64, Sigma: 1, Lambda: 1e-6, Uncertainty: true},
		{Exact: true, Sigma: 1, Lambda: 1e-6},
		{Map: "nystrom", Centres: 50, Sigma: 1, Lambda: 1e-6},
	} {
		name := cfg.Select
		switch {
		case cfg.Tune:
			name = "tune " + orDefault(cfg.Select, "gcv")
		case cfg.CV != 0:
			name = "cv"
		case cfg.Uncertainty:
			name = "uncertainty"
		case cfg.Exact:
			name = "exact"
		default:
			name = "nystrom"
		}
		t.Run(name, func(t *testing.T) {
			m0, err := Fit(cfg, base)
			if err != nil {
				t.Fatal(err)
			}
			m1, err := Fit(cfg, &shifted)
			if err != nil {
				t.Fatal(err)
			}
			if i0, i1 := m0.Info(), m1.Info(); i0.Sigma != i1.Sigma || i0.Lambda != i1.Lambda {
				t.Errorf("σ, λ = %g, %g without the offset, %g, %g with it", i0.Sigma, i0.Lambda, i1.Sigma, i1.Lambda)
			}
			sameUpToOffset(t, m0, m1, base.X, base.N, c)
			if cfg.Uncertainty && !near(m0.file.NoiseVar[0], m1.file.NoiseVar[0], m0.file.NoiseVar[0]) {
				t.Errorf("noise variance %g without the offset, %g with it", m0.file.NoiseVar[0], m1.file.NoiseVar[0])
			}
		})
	}
}

// TestTargetOffsetStream: FitCSV shifts a regression's targets by their mean as Fit does (from its first pass), so
// a constant added to them changes the model only by that constant in its intercept (to the rounding of
// TestTargetOffset).
func TestTargetOffsetStream(t *testing.T) {
	const c = 1e8
	data := smoothData(300)
	write := func(offset float64) string {
		var b strings.Builder
		b.WriteString("a,b,y\n")
		for i := range data.N {
			fmt.Fprintf(&b, "%.17g,%.17g,%.17g\n", data.X[2*i], data.X[2*i+1], data.Y[i]+offset)
		}
		path := filepath.Join(t.TempDir(), "d.csv")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cfg := Config{Points: 64, Sigma: 1, Lambda: 1e-8, Uncertainty: true}
	m0, err := FitCSV(cfg, write(0), StreamOptions{ChunkRows: 64})
	if err != nil {
		t.Fatal(err)
	}
	m1, err := FitCSV(cfg, write(c), StreamOptions{ChunkRows: 64})
	if err != nil {
		t.Fatal(err)
	}
	sameUpToOffset(t, m0, m1, data.X, data.N, c)
	if v0, v1 := m0.file.NoiseVar[0], m1.file.NoiseVar[0]; math.Abs(v0-v1) > 1e-6*v0 {
		t.Errorf("noise variance %g without the offset, %g with it", v0, v1)
	}
}

// TestTargetOffsetHermite: the observed values of a hermite fit are centred as a regression's targets are (the
// derivatives do not change with a constant): a constant added to them changes the tuned scores by rounding only and
// the predictions by the constant.
func TestTargetOffsetHermite(t *testing.T) {
	const c = 1e8
	data := smoothData(200)
	vals := slices.Clone(data.Y)
	vals[7] = math.NaN() // one value not observed
	shifted := slices.Clone(vals)
	for i := range shifted {
		shifted[i] += c
	}
	cfg := Config{Points: 32, Tune: true, Sigmas: []float64{0.5, 1, 2}, Lambdas: []float64{1e-8, 1e-6, 1e-4}}
	m0, err := FitHermite(cfg, data, vals, nil)
	if err != nil {
		t.Fatal(err)
	}
	m1, err := FitHermite(cfg, data, shifted, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m0.Report().Tune == nil {
		t.Fatal("no tuning report")
	}
	sameUpToOffset(t, m0, m1, data.X, data.N, c)
}

// sameUpToOffset checks that m1, fitted on targets shifted by c, has the tuning scores of m0 to 1e-6 relative and its
// predictions on the rows X (n of them) less c to 1e-6: the rounding of the shifted targets (ulp(c)/2 = 7.5e-9 at
// 1e8, on a spread of about 1) carried through well-conditioned solves.
func sameUpToOffset(t *testing.T, m0, m1 *Model, X []float64, n int, c float64) {
	t.Helper()
	if r0, r1 := m0.Report().Tune, m1.Report().Tune; r0 != nil {
		for i := range r0.Scores {
			for j, v := range r0.Scores[i] {
				if w := r1.Scores[i][j]; math.Abs(v-w) > 1e-6*math.Abs(v) {
					t.Errorf("%s at σ = %g, λ = %g: %g without the offset, %g with it", r0.Score, r0.Sigmas[i], r0.Lambdas[j], v, w)
				}
			}
		}
	}
	p0, err := m0.PredictRows(X, n)
	if err != nil {
		t.Fatal(err)
	}
	p1, err := m1.PredictRows(X, n)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range p0.Values {
		if math.Abs(v-(p1.Values[i]-c)) > 1e-6 {
			t.Fatalf("row %d: prediction %g without the offset, %g − c with it", i+1, v, p1.Values[i]-c)
		}
	}
}
