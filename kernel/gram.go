package kernel

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/parallel"
)

// Gram fills dst (n×m, row-major) with k(x_i, y_j), where X is n×d and Y is m×d, both row-major.
// Rows are computed in parallel on all cores. It returns an error if a length does not match.
func Gram(dst []float64, k Kernel, X []float64, n int, Y []float64, m int, d int) error {
	if n < 0 || m < 0 || d <= 0 || len(X) != n*d || len(Y) != m*d || len(dst) != n*m {
		return fmt.Errorf("kernel.Gram: shapes do not match (len X=%d, n=%d; len Y=%d, m=%d; d=%d; len dst=%d)",
			len(X), n, len(Y), m, d, len(dst))
	}
	parallel.For(n, 0, func(i int) {
		xi := X[i*d : (i+1)*d]
		row := dst[i*m : (i+1)*m]
		for j := range row {
			row[j] = k.Eval(xi, Y[j*d:(j+1)*d])
		}
	})
	return nil
}

// GramDense returns the exact Gram matrix K(X, Y) (rows of X against rows of Y) as a gonum matrix.
func GramDense(k Kernel, X, Y mat.Matrix) (*mat.Dense, error) {
	n, d := X.Dims()
	m, dy := Y.Dims()
	if d != dy {
		return nil, fmt.Errorf("kernel.GramDense: X has %d columns, Y has %d", d, dy)
	}
	x := mat.DenseCopyOf(X).RawMatrix().Data
	y := mat.DenseCopyOf(Y).RawMatrix().Data
	out := make([]float64, n*m)
	if err := Gram(out, k, x, n, y, m, d); err != nil {
		return nil, err
	}
	return mat.NewDense(n, m, out), nil
}
