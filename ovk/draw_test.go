package ovk

import (
	"slices"
	"testing"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
)

// TestSameDrawAsFeature: ovk.New and feature.New draw their frequencies with the one function feature.DrawSpectral
// from the same source, so for the same scalar kernel, rule and seed an ORFF map of any kind projects every input to
// the same bits as package feature's map: a decomposable kernel with k₀ (whatever A, which only shapes B), and the
// curl-free, divergence-free and Helmholtz kernels with the Gaussian of their σ. Laplacian and Cauchy kernels take the
// coordinatewise transform of their laws, Matérn the radial mixing. A different seed gives different projections
// (the comparison can fail).
func TestSameDrawAsFeature(t *testing.T) {
	rng := newRng(12)
	const d, D, rows = 4, 20, 5
	x := randVec(rng, rows*d, 1.5)
	A := randPSD(rng, 3, 2)
	type pair struct {
		k  *Kernel
		k0 kernel.Kernel
	}
	var pairs []pair
	for _, k0 := range []kernel.Kernel{kernel.Gaussian{S: 1.3}, kernel.Laplacian{S: 0.7}, kernel.Cauchy{S: 2},
		kernel.Matern{Nu: 1.5, S: 1.1}} {
		pairs = append(pairs, pair{mustK(t)(NewDecomposable(k0, A)), k0})
	}
	pairs = append(pairs,
		pair{mustK(t)(NewCurlFree(0.8)), kernel.Gaussian{S: 0.8}},
		pair{mustK(t)(NewDivFree(1.7)), kernel.Gaussian{S: 1.7}},
		pair{mustK(t)(NewHelmholtz(0.9, 0.4)), kernel.Gaussian{S: 0.9}})
	for _, pc := range pairs {
		for _, r := range allRules(t) {
			const seed = 77
			m := mustMap(t, pc.k, r, d, D, seed)
			fm, err := feature.New(pc.k0, r, d, D, seed)
			if err != nil {
				t.Fatal(err)
			}
			if m.Points() != fm.Points() {
				t.Fatalf("%s/%s: %d points, feature map %d", pc.k.Name(), r.Name(), m.Points(), fm.Points())
			}
			n := m.Points()
			got := m.project(nil, x, rows)
			want := make([]float64, rows*n)
			fm.ProjectBlock(want, x, rows)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s/%s: projection %d is %v, feature map %v", pc.k.Name(), r.Name(), i, got[i], want[i])
				}
			}
			other := mustMap(t, pc.k, r, d, D, seed+1).project(nil, x, rows)
			if slices.Equal(other, want) {
				t.Errorf("%s/%s: seeds %d and %d project alike", pc.k.Name(), r.Name(), seed, seed+1)
			}
		}
	}
}
