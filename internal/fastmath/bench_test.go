package fastmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// benchInputs are n projections like those of a feature map: N(0, 10²).
func benchInputs(n int) []float64 {
	rng := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, n)
	for i := range x {
		x[i] = 10 * rng.NormFloat64()
	}
	return x
}

const benchN = 1024

func reportPerElement(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/elem")
}

// BenchmarkSinCos/math is the loop feature.TransformBlock ran before: math.Sincos and the amplitude per element.
func BenchmarkSinCos(b *testing.B) {
	x := benchInputs(benchN)
	w := benchInputs(benchN)
	s, c := make([]float64, benchN), make([]float64, benchN)
	b.Run("math", func(b *testing.B) {
		for b.Loop() {
			for j, t := range x {
				sn, cs := math.Sincos(t)
				c[j] = w[j] * cs
				s[j] = w[j] * sn
			}
		}
		reportPerElement(b, benchN)
	})
	for _, p := range []struct {
		name string
		vec  bool
	}{{"generic", false}, {"avx2", true}} {
		if p.vec && !useAVX2 {
			continue
		}
		b.Run(p.name, func(b *testing.B) {
			withPath(b, p.vec, func() {
				for b.Loop() {
					SinCos(s, c, x)
				}
				reportPerElement(b, benchN)
			})
		})
		b.Run(p.name+"-weighted", func(b *testing.B) {
			withPath(b, p.vec, func() {
				for b.Loop() {
					SinCosWeighted(s, c, x, w)
				}
				reportPerElement(b, benchN)
			})
		})
		b.Run(p.name+"-cos", func(b *testing.B) {
			withPath(b, p.vec, func() {
				for b.Loop() {
					CosWeighted(c, x, w)
				}
				reportPerElement(b, benchN)
			})
		})
	}
}
