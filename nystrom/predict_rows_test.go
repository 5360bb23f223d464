package nystrom

import (
	"fmt"
	"math"
	"testing"

	"github.com/rffkit/rff/kernel"
)

// TestForPrediction: a ForPrediction map computes the features of the map it was made from, within the rounding of
// two summation orders of the normalization product (each within M·u·Σ_k|k_k·N_kj| of the exact sum) and of the
// kernel values (two products for the squared distances at d = 40, each Gaussian entry within 4e-13: kernel.Gram's
// error control, Σ_k 4e-13·|N_kj| more), and gives a row the same bits alone as among 600 rows — in both bases, with
// normalizations narrower and wider than one column block of the triangular product, and with kernel values from a
// matrix product.
func TestForPrediction(t *testing.T) {
	if (*Map)(nil).ForPrediction() != nil {
		t.Error("ForPrediction of a nil map is not nil")
	}
	const n = 600
	for _, c := range []struct {
		d     int
		basis Basis
		M     int
	}{{3, Cholesky, 20}, {3, Cholesky, 300}, {3, Eigen, 20}, {3, Eigen, 300}, {40, Cholesky, 150}, {40, Eigen, 150}} {
		d, basis, M := c.d, c.basis, c.M
		X, _ := uniformData(n, d, 1, 5)
		k := kernel.Gaussian{S: 0.5 * math.Sqrt(float64(d)/3)}
		{
			t.Run(fmt.Sprintf("%s/d=%d/M=%d", basis, d, M), func(t *testing.T) {
				m, err := New(k, Uniform{}, X, n, d, M, 7, WithBasis(basis))
				if err != nil {
					t.Fatal(err)
				}
				p := m.ForPrediction()
				F := m.Features()
				want, got := make([]float64, n*F), make([]float64, n*F)
				if err := m.TransformRows(want, X, n); err != nil {
					t.Fatal(err)
				}
				if err := p.TransformRows(got, X, n); err != nil {
					t.Fatal(err)
				}
				kx := gram(t, k, X, n, m.landmarks, m.m, d)
				for i := range n {
					for j := range F {
						var s, sn float64
						for c := range m.m {
							s += math.Abs(kx[i*m.m+c] * m.norm[c*F+j])
							sn += math.Abs(m.norm[c*F+j])
						}
						bound := 2*float64(m.m+2)*u*s + 2*4e-13*sn
						if diff := math.Abs(got[i*F+j] - want[i*F+j]); diff > bound {
							t.Fatalf("row %d, feature %d: %v against the map's %v (bound %.3g)", i, j, got[i*F+j], want[i*F+j], bound)
						}
					}
				}
				one := make([]float64, F)
				for i := range n {
					if err := p.TransformRows(one, X[i*d:(i+1)*d], 1); err != nil {
						t.Fatal(err)
					}
					for j := range F {
						if math.Float64bits(one[j]) != math.Float64bits(got[i*F+j]) {
							t.Fatalf("row %d, feature %d: alone %v, among %d rows %v", i, j, one[j], n, got[i*F+j])
						}
					}
				}
			})
		}
	}
}

// TestFalkonPredictRows: FalkonFit.Predict gives a row the same bits alone as among 300 rows, with 3 outputs and
// inputs of 40 dimensions (kernel values from a matrix product).
func TestFalkonPredictRows(t *testing.T) {
	const n, d, M, p = 300, 40, 60, 3
	X, Y := uniformData(n, d, p, 11)
	k := kernel.Gaussian{S: 2}
	fit, err := Falkon{Lambda: 1e-3, Intercept: true, MaxIter: 200}.Fit(k, X[:M*d], M, d, X, n, Y, p)
	if err != nil {
		t.Fatal(err)
	}
	all, one := make([]float64, n*p), make([]float64, p)
	if err := fit.Predict(all, X, n); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := fit.Predict(one, X[i*d:(i+1)*d], 1); err != nil {
			t.Fatal(err)
		}
		for j := range p {
			if math.Float64bits(one[j]) != math.Float64bits(all[i*p+j]) {
				t.Fatalf("row %d, output %d: alone %v, among %d rows %v", i, j, one[j], n, all[i*p+j])
			}
		}
	}
}
