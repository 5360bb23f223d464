package vector

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/numtest"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
)

func mustKernel(t testing.TB) func(*ovk.Kernel, error) *ovk.Kernel {
	return func(k *ovk.Kernel, err error) *ovk.Kernel {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
}

func mustMap(t testing.TB, k *ovk.Kernel, r rule.Rule, d, D int, seed uint64) *ovk.Map {
	t.Helper()
	m, err := ovk.New(k, r, d, D, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// randPSD returns a random p×p PSD matrix of the given rank.
func randPSD(rng *rand.Rand, p, rank int) *mat.SymDense {
	G := mat.NewDense(p, rank, nil)
	for i := 0; i < p; i++ {
		for j := 0; j < rank; j++ {
			G.Set(i, j, rng.NormFloat64())
		}
	}
	A := mat.NewSymDense(p, nil)
	A.SymOuterK(1, G)
	return A
}

// field returns n inputs uniform in [−1,1]^d and a smooth p-output target with non-zero means plus noise.
func field(n, d, p int, noise float64, seed uint64) (X, Y []float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	X = make([]float64, n*d)
	for i := range X {
		X[i] = 2*rng.Float64() - 1
	}
	Y = make([]float64, n*p)
	for i := 0; i < n; i++ {
		x := X[i*d : (i+1)*d]
		for a := 0; a < p; a++ {
			Y[i*p+a] = 1 + 0.5*float64(a) + math.Sin(2*x[a%d]+x[(a+1)%d]) + x[(a+2)%d]*x[a%d] + noise*rng.NormFloat64()
		}
	}
	return X, Y
}

func predictFit(t testing.TB, f *Fit, m *ovk.Map, X []float64, n int) []float64 {
	t.Helper()
	out := make([]float64, n*f.P)
	if err := f.Predict(out, m, X, n); err != nil {
		t.Fatal(err)
	}
	return out
}

func predictExact(t testing.TB, f *KRRFit, X []float64, n int) []float64 {
	t.Helper()
	out := make([]float64, n*f.P)
	if err := f.Predict(out, X, n); err != nil {
		t.Fatal(err)
	}
	return out
}

// allKernels lists one kernel of each kind for inputs of dimension d (the decomposable one with p = 3, rank 2).
func allKernels(t testing.TB, rng *rand.Rand) []*ovk.Kernel {
	must := mustKernel(t)
	return []*ovk.Kernel{
		must(ovk.NewCurlFree(1)),
		must(ovk.NewDivFree(1)),
		must(ovk.NewHelmholtz(1, 0.3)),
		must(ovk.NewDecomposable(kernel.Gaussian{S: 1}, randPSD(rng, 3, 2))),
	}
}

// relDiff returns ‖a − b‖/‖b‖ (‖a − b‖ when b = 0; see numtest.RelDiff).
func relDiff(a, b []float64) float64 { return numtest.RelDiff(a, b) }
