package learn

import (
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// BenchmarkAccumulate maps N = 20000 rows of dimension d = 64 through a Gaussian map with D = 1024 points
// (F = 2048 columns) and accumulates the statistics. GFLOP/s counts the Gram part only, N·F² flops (the upper
// triangle of ZᵀZ, one multiply and one add per entry), over the whole wall-clock time (the map included).
func BenchmarkAccumulate(b *testing.B) {
	const n, d, D, p = 20000, 64, 1024, 1
	X, Y := regression(n, d, p, 0.1, 1)
	m := gaussMap(b, d, D, 8, 2)
	F := m.Features()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if _, err := Accumulate(m, X, n, Y, p); err != nil {
			b.Fatal(err)
		}
	}
	el := time.Since(start).Seconds()
	b.ReportMetric(float64(b.N)*float64(n)*float64(F)*float64(F)/el/1e9, "GFLOP/s")
}

// BenchmarkGram compares, in one run, the two ways of forming ZᵀZ for a block of 2048 rows of F = 2048 features:
// Stats.Add (blas64.Syrk on the upper triangle, in sub-blocks of BlockRows rows; one goroutine) and a full
// blas64.Gemm Zᵀ·Z (gonum parallelises it over all cores but it computes both triangles). GFLOP/s counts the useful
// rows·F² flops in both cases.
func BenchmarkGram(b *testing.B) {
	const rows, F = 2048, 2048
	rng := rand.New(rand.NewPCG(1, 1))
	Z := make([]float64, rows*F)
	for i := range Z {
		Z[i] = rng.NormFloat64()
	}
	Y := make([]float64, rows)
	run := func(b *testing.B, f func()) {
		start := time.Now()
		for range b.N {
			f()
		}
		el := time.Since(start).Seconds()
		b.ReportMetric(float64(b.N)*rows*F*F/el/1e9, "GFLOP/s")
	}
	b.Run("syrk-upper", func(b *testing.B) {
		s := mustStats(F, 1)
		run(b, func() { s.Add(Z, Y, rows) })
	})
	b.Run("gemm-full", func(b *testing.B) {
		C := make([]float64, F*F)
		z := blas64.General{Rows: rows, Cols: F, Stride: F, Data: Z}
		run(b, func() {
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, z, z, 1, blas64.General{Rows: F, Cols: F, Stride: F, Data: C})
		})
	})
}
