package structured

import (
	"math"
	"testing"
)

func TestHaarOrthogonal(t *testing.T) {
	rng := newRNG(10)
	for _, d := range []int{1, 2, 3, 5, 10, 33, 100} {
		Q := Haar(d, rng)
		if e := orthoErr(Q, d); e > 1e-12 {
			t.Errorf("d=%d: max|QᵀQ - I| = %g", d, e)
		}
		if e := orthoErr(transpose(Q, d, d), d); e > 1e-12 {
			t.Errorf("d=%d: max|QQᵀ - I| = %g", d, e)
		}
	}
}

// haarMoments returns, over n draws of gen, the sample mean and its standard
// error for every entry Q_ij, and the mean and standard error of Q_00².
func haarMoments(d, n int, gen func() []float64) (mean, se []float64, m2, se2 float64) {
	sum := make([]float64, d*d)
	sumSq := make([]float64, d*d)
	var s4 float64
	for range n {
		q := gen()
		for i, v := range q {
			sum[i] += v
			sumSq[i] += v * v
		}
		s4 += q[0] * q[0] * q[0] * q[0]
	}
	fn := float64(n)
	mean = make([]float64, d*d)
	se = make([]float64, d*d)
	for i := range sum {
		mean[i] = sum[i] / fn
		v := sumSq[i]/fn - mean[i]*mean[i]
		se[i] = math.Sqrt(v * fn / (fn - 1) / fn)
	}
	m2 = sumSq[0] / fn
	se2 = math.Sqrt((s4/fn - m2*m2) / (fn - 1))
	return mean, se, m2, se2
}

// TestHaarDistribution checks first and second moments of Haar(3): every
// entry of a Haar matrix has E[Q_ij] = 0 (Q and -Q are equally likely) and
// E[Q_ij²] = 1/d (the columns are unit vectors, uniform on the sphere). Each
// sample mean must be within 4 standard errors (for a Gaussian-like mean a
// 4σ excursion has probability ~6e-5 per entry; the seed is fixed anyway).
func TestHaarDistribution(t *testing.T) {
	const d, n = 3, 2000
	rng := newRNG(11)
	mean, se, m2, se2 := haarMoments(d, n, func() []float64 { return Haar(d, rng) })
	for i := range mean {
		if math.Abs(mean[i]) > 4*se[i] {
			t.Errorf("E[Q_%d%d] = %g ± %g, want 0", i/d, i%d, mean[i], se[i])
		}
	}
	if math.Abs(m2-1.0/d) > 4*se2 {
		t.Errorf("E[Q_00²] = %g ± %g, want %g", m2, se2, 1.0/d)
	}

	// Without the sign fix, Householder QR fixes the sign of R_00 (LAPACK
	// makes it -sign(A_00)), so Q_00 = A_00/R_00 is never positive and
	// E[Q_00] = -E|u_1| = -1/2 for u uniform on S². The same moment test
	// must reject that distribution.
	mean, se, _, _ = haarMoments(d, n, func() []float64 { return haarQR(d, rng, false) })
	if math.Abs(mean[0]) <= 4*se[0] {
		t.Errorf("QR without sign fix: E[Q_00] = %g ± %g; the test cannot tell it from Haar", mean[0], se[0])
	}
}
