package structured

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Haar returns a d×d Haar-distributed (uniformly random) orthogonal matrix,
// row-major. It factors a d×d standard Gaussian matrix A = QR and returns
// Q·diag(sign(diag R)) (Mezzadri 2007). The sign fix makes the factorization
// unique (positive diagonal of R), which is what makes Q Haar: Householder QR
// alone returns a Q whose distribution depends on the sign convention of the
// reflectors (for LAPACK, Q_11 < 0 always).
func Haar(d int, rng *rand.Rand) []float64 {
	return haarQR(d, rng, true)
}

func haarQR(d int, rng *rand.Rand, signFix bool) []float64 {
	if d < 1 {
		panic("structured: Haar dimension must be >= 1")
	}
	a := mat.NewDense(d, d, nil)
	raw := a.RawMatrix()
	for i := 0; i < d; i++ {
		r := raw.Data[i*raw.Stride : i*raw.Stride+d]
		for j := range r {
			r[j] = rng.NormFloat64()
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q, r mat.Dense
	qr.QTo(&q)
	out := make([]float64, d*d)
	if !signFix {
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				out[i*d+j] = q.At(i, j)
			}
		}
		return out
	}
	qr.RTo(&r)
	sign := make([]float64, d)
	for j := 0; j < d; j++ {
		sign[j] = 1
		if r.At(j, j) < 0 {
			sign[j] = -1
		}
	}
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			out[i*d+j] = q.At(i, j) * sign[j]
		}
	}
	return out
}
