package structured

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

// randBlock returns an n×B coordinate-major block of standard normals.
func randBlock(n, B int, rng *rand.Rand) []float64 {
	x := make([]float64, n*B)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// denseMul returns M·x for the r×c row-major M and the c×B block x.
func denseMul(m []float64, r, c int, x []float64, B int) []float64 {
	y := make([]float64, r*B)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			mij := m[i*c+j]
			for b := 0; b < B; b++ {
				y[i*B+b] += mij * x[j*B+b]
			}
		}
	}
	return y
}

// transpose returns the c×r transpose of the r×c row-major m.
func transpose(m []float64, r, c int) []float64 {
	t := make([]float64, r*c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			t[j*r+i] = m[i*c+j]
		}
	}
	return t
}

// matMul returns the product of the r×k matrix a and the k×c matrix b.
func matMul(a, b []float64, r, k, c int) []float64 {
	out := make([]float64, r*c)
	for i := 0; i < r; i++ {
		for l := 0; l < k; l++ {
			ail := a[i*k+l]
			if ail == 0 {
				continue
			}
			for j := 0; j < c; j++ {
				out[i*c+j] += ail * b[l*c+j]
			}
		}
	}
	return out
}

func maxAbsDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// orthoErr returns max |MᵀM - I| for the d×d row-major M.
func orthoErr(m []float64, d int) float64 {
	M := mat.NewDense(d, d, m)
	var G mat.Dense
	G.Mul(M.T(), M)
	g := G.RawMatrix().Data
	e := 0.0
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			e = math.Max(e, math.Abs(g[i*d+j]-want))
		}
	}
	return e
}
