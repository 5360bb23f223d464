package model

import (
	"math"
	"reflect"
	"testing"
)

// nystromSample is a consistent version-2 regression on a Nyström map of M = 3 landmarks in 2 dimensions, rank 2.
func nystromSample() *Model {
	return &Model{
		Header: Header{Task: "regression", Kernel: "gaussian", Sigma: 1.5, Rule: NystromKind, PointsKind: NystromKind,
			Seed: 7, Points: 3, Dim: 2, Features: 2, Outputs: 1, Intercept: true, Lambda: 1e-3, Landmarks: "uniform",
			Threshold: 1e-12},
		Theta: []float64{1, 2},
		Bias:  []float64{0.5},
		Probe: []float64{0.1, 0.2},
		Points: map[string][]float64{
			"landmarks": {0, 0, 1, 0, 0, 1},
			// Columns u_j/√λ_j of the orthonormal u₁ = (1, 2, 2)/3, u₂ = (2, 1, −2)/3.
			"norm": {1 / (3 * math.Sqrt2), 2 * math.Sqrt2 / 3, 2 / (3 * math.Sqrt2), math.Sqrt2 / 3,
				2 / (3 * math.Sqrt2), -2 * math.Sqrt2 / 3},
			"eigenvalues": {2, 0.5},
		},
	}
}

// TestNystromKind: a Nyström file round-trips, and one whose fields contradict each other is refused.
func TestNystromKind(t *testing.T) {
	tests := []modelEdit{
		{"rank above M", func(m *Model) { m.Features = 4; m.Theta = make([]float64, 4); m.Probe = make([]float64, 4) }},
		{"rank zero", func(m *Model) { m.Features = 0 }},
		{"norm short", func(m *Model) { m.Points["norm"] = m.Points["norm"][:5] }},
		{"landmarks short", func(m *Model) { m.Points["landmarks"] = m.Points["landmarks"][:4] }},
		{"eigenvalues long", func(m *Model) { m.Points["eigenvalues"] = []float64{3, 2, 1} }},
		{"eigenvalue negative", func(m *Model) { m.Points["eigenvalues"][1] = -1 }},
		{"eigenvalues increasing", func(m *Model) { m.Points["eigenvalues"] = []float64{0.5, 2} }},
		{"NaN norm", func(m *Model) { m.Points["norm"][2] = math.NaN() }},
		{"infinite landmark", func(m *Model) { m.Points["landmarks"][0] = math.Inf(-1) }},
		{"missing array", func(m *Model) { delete(m.Points, "norm") }},
		{"extra array", func(m *Model) { m.Points["points"] = []float64{1} }},
		{"rule of random features", func(m *Model) { m.Rule = "g" }},
		{"kind of random features", func(m *Model) { m.PointsKind = "dense" }},
		{"landmarks without kind", func(m *Model) { m.Rule, m.PointsKind = "g", "dense" }},
		{"threshold", func(m *Model) { m.Threshold = 1 }},
		{"unknown selection", func(m *Model) { m.Landmarks = "psychic" }},
		{"form", func(m *Model) { m.Form = "cossin" }},
		{"weights", func(m *Model) { m.Weights = []float64{1, 1, 1} }},
		{"zero node", func(m *Model) { m.Zero = 0.5 }},
		{"exact", func(m *Model) { m.Exact = true }},
		{"exact arrays", func(m *Model) { m.TrainX, m.Alpha = []float64{1, 2}, []float64{1} }},
		{"curl-free", func(m *Model) { m.OVK = "curl-free" }},
		{"decomposable without A", func(m *Model) { m.OVK = "decomposable" }},
		{"decomposable with a rank", func(m *Model) { m.OVK, m.A, m.Rank = "decomposable", []float64{1}, 1 }},
		{"hermite", func(m *Model) { m.Task = "hermite" }},
		{"theta length", func(m *Model) { m.Theta = m.Theta[:1] }},
		{"probe length", func(m *Model) { m.Probe = m.Probe[:1] }},
	}
	dec := nystromSample()
	dec.OVK, dec.A, dec.Targets = "decomposable", []float64{2}, []string{"y"}
	if _, err := Decode(encode(t, dec)); err != nil {
		t.Fatalf("a decomposable Nyström model: %v", err)
	}
	roundTripAndRefuse(t, nystromSample, tests)
}

// modelEdit is a named change to a model file.
type modelEdit struct {
	name string
	edit func(m *Model)
}

// roundTripAndRefuse checks that the file sample() returns round-trips, and that every edit of it is refused by
// Decode and by Encode.
func roundTripAndRefuse(t *testing.T, sample func() *Model, edits []modelEdit) {
	t.Helper()
	m := sample()
	got, err := Decode(encode(t, m))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Header, m.Header) || !reflect.DeepEqual(got.Points, m.Points) {
		t.Fatal("round trip changed the model")
	}
	for _, tc := range edits {
		t.Run(tc.name, func(t *testing.T) {
			m := sample()
			tc.edit(m)
			if _, err := Decode(encodeRaw(t, m)); err == nil {
				t.Error("decoded")
			}
			if _, err := Encode(m); err == nil {
				t.Error("encoded")
			}
		})
	}
}

// nystromCholeskySample is nystromSample in the Cholesky basis: 2 landmarks kept, a triangular normalization
// norm = U⁻¹ whose diagonal 1/U_jj matches the pivots U_jj² as the writer computes them.
func nystromCholeskySample() *Model {
	m := nystromSample()
	u := []float64{1, 0.8} // U_jj
	m.Basis, m.Points = "cholesky", map[string][]float64{
		"landmarks": {0, 0, 1, 0},
		"norm":      {1 / u[0], -0.4, 0, 1 / u[1]},
		"pivots":    {u[0] * u[0], u[1] * u[1]},
	}
	m.Header.Points = 2
	return m
}

// TestNystromCholeskyBasis: a file in the Cholesky basis round-trips, and one whose arrays do not fit that basis is
// refused.
func TestNystromCholeskyBasis(t *testing.T) {
	roundTripAndRefuse(t, nystromCholeskySample, []modelEdit{
		{"unknown basis", func(m *Model) { m.Basis = "qr" }},
		{"eigen arrays", func(m *Model) { m.Points["eigenvalues"] = m.Points["pivots"]; delete(m.Points, "pivots") }},
		{"eigen basis with pivots", func(m *Model) { m.Basis = "" }},
		{"fewer features than landmarks", func(m *Model) {
			m.Header.Points, m.Points["landmarks"] = 3, []float64{0, 0, 1, 0, 0, 1}
			m.Points["norm"] = []float64{1, 0, 0, 1, 0, 0}
		}},
		{"below the diagonal", func(m *Model) { m.Points["norm"][2] = 0.1 }},
		{"zero diagonal", func(m *Model) { m.Points["norm"][3] = 0 }},
		{"negative pivot", func(m *Model) { m.Points["pivots"][1] = -0.7 }},
		{"pivots short", func(m *Model) { m.Points["pivots"] = m.Points["pivots"][:1] }},
	})
}
