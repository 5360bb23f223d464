package structured

import (
	"math"

	"gonum.org/v1/gonum/lapack/gonum"
)

// GaussHermite returns the m nodes (ascending) and weights of Gauss–Hermite
// quadrature for the standard normal weight (probabilists' Hermite
// polynomials He_k): ∫ f(x) N(x; 0, 1) dx ≈ Σ w_i f(x_i), Σ w_i = 1, exact
// for polynomials of degree <= 2m-1.
//
// Golub–Welsch: the nodes are the eigenvalues of the symmetric tridiagonal
// Jacobi matrix with zero diagonal and off-diagonal sqrt(k), k = 1..m-1
// (from He_{k+1} = x He_k - k He_{k-1}), computed with LAPACK's Dsterf. Each
// node is then polished by Newton steps on the orthonormal polynomial
// p_m = He_m/sqrt(m!), and the weight is taken from the Christoffel function
// w_i = 1/Σ_{k<m} p_k(x_i)², which is accurate to a few ulps even for the tiny
// tail weights (unlike squared eigenvector components). Nodes and weights are
// symmetrized and the weights normalized to sum to 1.
func GaussHermite(m int) (nodes, weights []float64) {
	if m < 1 {
		panic("structured: GaussHermite needs m >= 1")
	}
	nodes = make([]float64, m)
	weights = make([]float64, m)
	if m == 1 {
		weights[0] = 1
		return nodes, weights
	}
	e := make([]float64, m-1)
	for k := 1; k < m; k++ {
		e[k-1] = math.Sqrt(float64(k))
	}
	if ok := (gonum.Implementation{}).Dsterf(m, nodes, e); !ok {
		panic("structured: GaussHermite eigenvalue iteration did not converge")
	}
	// Dsterf sorts ascending.
	sqm := math.Sqrt(float64(m))
	for i, x := range nodes {
		for it := 0; it < 3; it++ {
			pm, pm1, _ := hermiteOrtho(m, x)
			// p_m' = sqrt(m)·p_{m-1}.
			dx := pm / (sqm * pm1)
			if !(math.Abs(dx) < 1e-3*(1+math.Abs(x))) {
				break // never trust a wild step; keep the eigenvalue
			}
			x -= dx
			if math.Abs(dx) <= 1e-17*(1+math.Abs(x)) {
				break
			}
		}
		nodes[i] = x
		_, _, sum := hermiteOrtho(m, x)
		weights[i] = 1 / sum
	}
	// Symmetrize: x_{m-1-i} = -x_i, w_{m-1-i} = w_i.
	for i := 0; i < m/2; i++ {
		j := m - 1 - i
		x := (nodes[j] - nodes[i]) / 2
		w := (weights[i] + weights[j]) / 2
		nodes[i], nodes[j] = -x, x
		weights[i], weights[j] = w, w
	}
	if m%2 == 1 {
		nodes[m/2] = 0
	}
	// Normalize, summing from the smallest weights.
	total := 0.0
	for i := 0; i < m/2; i++ {
		total += 2 * weights[i]
	}
	if m%2 == 1 {
		total += weights[m/2]
	}
	for i := range weights {
		weights[i] /= total
	}
	return nodes, weights
}

// hermiteOrtho evaluates the orthonormal probabilists' Hermite polynomials
// p_k = He_k/sqrt(k!) at x by sqrt(k+1) p_{k+1} = x p_k - sqrt(k) p_{k-1}.
// It returns p_m(x), p_{m-1}(x) and Σ_{k<m} p_k(x)².
func hermiteOrtho(m int, x float64) (pm, pm1, sum float64) {
	prev, cur := 0.0, 1.0 // p_{-1}, p_0
	sum = 1
	for k := 0; k < m; k++ {
		next := (x*cur - math.Sqrt(float64(k))*prev) / math.Sqrt(float64(k+1))
		prev, cur = cur, next
		if k+1 < m {
			sum += cur * cur
		}
	}
	return cur, prev, sum
}
