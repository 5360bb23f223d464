package nystrom

import (
	"math"
	"testing"

	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/kernel"
)

// TestFeaturesSameBitsOnEveryBackend: a map evaluates its features in pure Go on the calling goroutine
// (kernel.GramSerial and linalg.GemmSerial), so OpenBLAS with one or two threads and pure Go give the same bits —
// in both bases, with the triangular product of the Cholesky basis over several blocks of landmarks and a block of
// rows that is not a multiple of the kernel's tiles.
func TestFeaturesSameBitsOnEveryBackend(t *testing.T) {
	prev := linalg.Info()
	defer func() {
		_ = linalg.Use(prev.Backend)
		linalg.SetThreads(prev.Threads)
	}()
	if err := linalg.Use(linalg.OpenBLAS); err != nil {
		t.Skipf("OpenBLAS: %v", err)
	}
	const n, d, M = 701, 20, 3*triBlock + 5
	X, _ := uniformData(n, d, 1, 3)
	for _, b := range bases {
		if err := linalg.Use(linalg.OpenBLAS); err != nil {
			t.Fatal(err)
		}
		m, err := FromLandmarks(kernel.Gaussian{S: 2}, X[:M*d], M, d, WithBasis(b))
		if err != nil {
			t.Fatal(err)
		}
		var ref []float64
		for _, run := range []struct {
			backend string
			threads int
		}{{linalg.OpenBLAS, 2}, {linalg.OpenBLAS, 1}, {linalg.PureGo, 2}} {
			if err := linalg.Use(run.backend); err != nil {
				t.Fatal(err)
			}
			linalg.SetThreads(run.threads)
			Z := features(t, m, X, n)
			if ref == nil {
				ref = Z
				continue
			}
			for i := range Z {
				if math.Float64bits(Z[i]) != math.Float64bits(ref[i]) {
					t.Fatalf("%s basis, %s with %d threads: feature %d = %v, %v on OpenBLAS with 2 threads",
						b, run.backend, run.threads, i, Z[i], ref[i])
				}
			}
		}
	}
}
