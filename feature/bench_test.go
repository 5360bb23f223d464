package feature

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// BenchmarkTransform maps N = 10⁴ rows with every rule at d ∈ {16, 256, 784} and D = 2(d+1) points (n = 1, the
// quadrature paper's smallest size), Gaussian kernel, cos/sin form, all cores. Rows/s are reported as a metric.
func BenchmarkTransform(b *testing.B) {
	const N = 10000
	for _, d := range []int{16, 256, 784} {
		rng := rand.New(rand.NewPCG(1, 2))
		x := make([]float64, N*d)
		for i := range x {
			x[i] = rng.Float64()
		}
		D := 2 * (d + 1)
		for _, name := range rule.Names() {
			r, _ := rule.Parse(name)
			m, err := New(kernel.Gaussian{S: 1}, r, d, D, 1)
			if err != nil {
				b.Fatal(err)
			}
			z := make([]float64, N*m.Features())
			b.Run(fmt.Sprintf("d=%d/rule=%s", d, name), func(b *testing.B) {
				for b.Loop() {
					if err := m.TransformRows(z, x, N); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(N*b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}
