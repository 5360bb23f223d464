package dataset

import (
	"fmt"
	"math"

	"github.com/rffkit/rff/internal/linalg"
)

// fitPCAGram fits the PCA step on wide data, n < d rows (gene expression, say): with U the n×d centred output of the
// previous steps, the nonzero eigenvalues of the covariance C = UᵀU/n are those of the n×n Gram matrix G = UUᵀ/n,
// and if Gw = λw with ‖w‖ = 1 then v = Uᵀw/√(nλ) is a unit eigenvector of C. This costs O(n²d + n³) time and
// O(n² + nd) memory instead of O(nd² + d³) and O(d²). The vectors are orthonormalized again (modified Gram–Schmidt,
// twice) against the rounding that division by √λ amplifies for small λ; components of numerically zero variance,
// which the rows do not determine, are refused.
func (s *Scaler) fitPCAGram(x []float64, n, d int, mean []float64) error {
	last := len(s.Steps) - 1
	prev := &Scaler{Steps: s.Steps[:last], D: d, Params: s.Params[:last]}
	U := append([]float64(nil), x[:n*d]...)
	prev.Apply(U, n, d)
	sum := make([]float64, d)
	for i := range n {
		row := U[i*d : (i+1)*d]
		for j := range row {
			row[j] -= mean[j]
			sum[j] += row[j]
		}
	}
	fn := float64(n)
	Ut := make([]float64, d*n) // Uᵀ, exactly centred to rounding: the residual mean sum/n is removed
	for i := range n {
		for j := range d {
			Ut[j*n+i] = U[i*d+j] - sum[j]/fn
		}
	}
	G := make([]float64, n*n)
	linalg.Syrk(n, d, 1/fn, Ut, n, 0, G, n) // upper triangle of UUᵀ/n
	var total float64
	for i := range n {
		total += G[i*n+i]
		for j := i + 1; j < n; j++ {
			G[j*n+i] = G[i*n+j]
		}
	}
	values, vectors, err := linalg.EigenSym(n, G)
	if err != nil {
		return fmt.Errorf("preprocess: pca: %w", err)
	}
	lam := make([]float64, n) // descending, clamped at 0
	for k := range n {
		lam[k] = max(0, values[n-1-k])
	}
	// Centred rows span at most n − 1 directions: the smallest eigenvalue is 0 up to rounding.
	lam = lam[:max(1, n-1)]
	return s.finishPCA(d, mean, lam, total, true, func(k int, v []float64) {
		c := 1 / math.Sqrt(fn*lam[k])
		col := n - 1 - k
		for j := range d {
			var t float64
			for i := range n {
				t += Ut[j*n+i] * vectors[i*n+col]
			}
			v[j] = t * c
		}
	})
}

// orthonormalize makes the K rows of V (K×d) orthonormal by modified Gram–Schmidt, run twice ("twice is enough":
// Giraud, Langou and Rozložník 2005), keeping the span of every leading set of rows.
func orthonormalize(V []float64, K, d int) {
	for range 2 {
		for k := range K {
			v := V[k*d : (k+1)*d]
			for l := range k {
				q := V[l*d : (l+1)*d]
				var c float64
				for j := range d {
					c += q[j] * v[j]
				}
				for j := range d {
					v[j] -= c * q[j]
				}
			}
			var nv float64
			for _, e := range v {
				nv += e * e
			}
			nv = math.Sqrt(nv)
			for j := range v {
				v[j] /= nv
			}
		}
	}
}
