package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestGramRows: GramRows and Centres.ForPrediction give a row the same bits alone as among 300 rows, on both sides
// of directMaxDim and for data on a grid (whose fast path, from 128 rows on, they do not take), and agree with Gram
// within its error control (1e-12 of each squared distance: 4e-13 of a Gaussian entry).
func TestGramRows(t *testing.T) {
	const n, m = 300, 150
	for _, c := range []struct {
		d    int
		grid bool
		k    Kernel
	}{
		{16, false, Gaussian{S: 3}}, {40, false, Gaussian{S: 3}}, {40, false, Matern{Nu: 2.5, S: 3}},
		{100, true, Gaussian{S: 3}}, {100, false, Laplacian{S: 5}},
	} {
		t.Run(fmt.Sprintf("%s/d=%d/grid=%v", c.k.Name(), c.d, c.grid), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.d), 3))
			X, Y := make([]float64, n*c.d), make([]float64, m*c.d)
			for _, a := range [][]float64{X, Y} {
				for i := range a {
					a[i] = rng.Float64()
					if c.grid {
						a[i] = math.Round(255*a[i]) / 255
					}
				}
			}
			want, all := make([]float64, n*m), make([]float64, n*m)
			if err := Gram(want, c.k, X, n, Y, m, c.d); err != nil {
				t.Fatal(err)
			}
			if err := GramRows(all, c.k, X, n, Y, m, c.d); err != nil {
				t.Fatal(err)
			}
			cen, err := NewCentres(c.k, Y, m, c.d)
			if err != nil {
				t.Fatal(err)
			}
			pc := cen.ForPrediction()
			one, oneC, viaC := make([]float64, m), make([]float64, m), make([]float64, n*m)
			if err := pc.Gram(viaC, X, n); err != nil {
				t.Fatal(err)
			}
			for i := range n {
				x := X[i*c.d : (i+1)*c.d]
				if err := GramRows(one, c.k, x, 1, Y, m, c.d); err != nil {
					t.Fatal(err)
				}
				if err := pc.Gram(oneC, x, 1); err != nil {
					t.Fatal(err)
				}
				for j := range m {
					v := all[i*m+j]
					if math.Float64bits(one[j]) != math.Float64bits(v) || math.Float64bits(oneC[j]) != math.Float64bits(v) || math.Float64bits(viaC[i*m+j]) != math.Float64bits(v) {
						t.Fatalf("K[%d][%d]: alone %v (centres %v), among %d rows %v (centres %v)", i, j, one[j], oneC[j], n, v, viaC[i*m+j])
					}
					if math.Abs(v-want[i*m+j]) > 1e-12 {
						t.Fatalf("K[%d][%d] = %v, Gram's %v", i, j, v, want[i*m+j])
					}
				}
			}
		})
	}
	if (*Centres)(nil).ForPrediction() != nil {
		t.Error("ForPrediction of nil centres is not nil")
	}
}
