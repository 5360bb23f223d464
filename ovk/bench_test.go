package ovk

import (
	"testing"

	"github.com/rffkit/rff/rule"
)

// The curl-free field setting of the acceptance test: d = p = 5, D = 1600 points, a block of 256 rows.
func benchMap(b *testing.B, k *Kernel, r rule.Rule) (*Map, []float64, int) {
	const d, D, rows = 5, 1600, 256
	m := mustMap(b, k, r, d, D, 1)
	return m, randVec(newRng(1), rows*d, 0.5), rows
}

func BenchmarkTransformRowsCurl(b *testing.B) {
	m, x, rows := benchMap(b, mustK(b)(NewCurlFree(0.4)), rule.G{})
	dst := make([]float64, rows*m.Outputs()*m.Features())
	b.SetBytes(int64(8 * len(dst)))
	for b.Loop() {
		_ = m.TransformRows(dst, x, rows)
	}
}

func BenchmarkPredictDiv(b *testing.B) {
	m, x, rows := benchMap(b, mustK(b)(NewDivFree(0.4)), rule.SR{Rotation: rule.Butterfly})
	theta := randVec(newRng(2), m.Features(), 1)
	dst := make([]float64, rows*m.Outputs())
	for b.Loop() {
		_ = m.Predict(dst, x, rows, theta)
	}
}

func BenchmarkAdjointCurl(b *testing.B) {
	m, x, rows := benchMap(b, mustK(b)(NewCurlFree(0.4)), rule.G{})
	y := randVec(newRng(2), rows*m.Outputs(), 1)
	g := make([]float64, m.Features())
	for b.Loop() {
		_ = m.Adjoint(g, x, rows, y)
	}
}

func BenchmarkEstimateDiv(b *testing.B) {
	m, x, _ := benchMap(b, mustK(b)(NewDivFree(0.4)), rule.G{})
	for b.Loop() {
		_, _ = m.Estimate(x[:5], x[5:10])
	}
}
