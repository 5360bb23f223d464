package structured

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func simplexDims() []int {
	var ds []int
	for d := 1; d <= 40; d++ {
		ds = append(ds, d)
	}
	return append(ds, 784)
}

func TestSimplexGeometry(t *testing.T) {
	for _, d := range simplexDims() {
		n := d + 1
		V := Simplex(d)
		Vm := mat.NewDense(d, n, V)
		// Gram matrix VᵀV: 1 on the diagonal, -1/d off it.
		var G mat.Dense
		G.Mul(Vm.T(), Vm)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				want := -1 / float64(d)
				if i == j {
					want = 1
				}
				if e := math.Abs(G.At(i, j) - want); e > 1e-12 {
					t.Fatalf("d=%d: v_%dᵀv_%d = %g, want %g", d, i, j, G.At(i, j), want)
				}
			}
		}
		// Σ_j v_j = 0.
		for i := 0; i < d; i++ {
			s := 0.0
			for j := 0; j < n; j++ {
				s += V[i*n+j]
			}
			if math.Abs(s) > 1e-12 {
				t.Fatalf("d=%d: row %d of V sums to %g", d, i, s)
			}
		}
		// V Vᵀ = ((d+1)/d) I: with Σv_j = 0 and the Gram above, V is a
		// tight frame, VVᵀ = (d+1)/d · I.
		var F mat.Dense
		F.Mul(Vm, Vm.T())
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				want := 0.0
				if i == j {
					want = float64(d+1) / float64(d)
				}
				if e := math.Abs(F.At(i, j) - want); e > 1e-12 {
					t.Fatalf("d=%d: (VVᵀ)_%d%d = %g, want %g", d, i, j, F.At(i, j), want)
				}
			}
		}
	}
}

// TestSimplexRecursion checks Simplex against the recursion of docs/conventions.md §8.1,
// C_2 = [1, -1], C_{k+1} = [[1, -(1/k)1ᵀ], [0, sqrt(1-1/k²) C_k]].
func TestSimplexRecursion(t *testing.T) {
	C := []float64{1, -1} // C_2, 1×2
	for k := 1; k <= 12; k++ {
		if k > 1 {
			// Build C_{k+1} (k×(k+1)) from C_k ((k-1)×k).
			next := make([]float64, k*(k+1))
			next[0] = 1
			for j := 1; j <= k; j++ {
				next[j] = -1 / float64(k)
			}
			f := math.Sqrt(1 - 1/float64(k*k))
			for i := 0; i < k-1; i++ {
				for j := 0; j < k; j++ {
					next[(i+1)*(k+1)+j+1] = f * C[i*k+j]
				}
			}
			C = next
		}
		if e := maxAbsDiff(Simplex(k), C); e > 1e-15 {
			t.Errorf("d=%d: Simplex differs from the recursion by %g", k, e)
		}
	}
}

func TestSimplexT(t *testing.T) {
	rng := newRNG(20)
	for _, d := range simplexDims() {
		VT := transpose(Simplex(d), d, d+1)
		for _, B := range []int{1, 5, 64} {
			x := randBlock(d, B, rng)
			dst := make([]float64, (d+1)*B)
			for i := range dst {
				dst[i] = math.NaN() // SimplexT must overwrite everything
			}
			SimplexT(dst, x, d, B)
			want := denseMul(VT, d+1, d, x, B)
			// Each output is a sum of up to d terms of size O(1/sqrt(d)).
			if e := maxAbsDiff(dst, want); !(e <= 1e-12) {
				t.Errorf("d=%d B=%d: SimplexT differs from Vᵀx by %g", d, B, e)
			}
		}
	}
}

// TestSimplexTOneVector: one vector (its own loop) gives the bits of its column in a block, so a prediction does not
// depend on how many rows are mapped together, and SimplexTScaled gives those values times its factors.
func TestSimplexTOneVector(t *testing.T) {
	rng := newRNG(22)
	for _, d := range simplexDims() {
		const B = 5
		x := randBlock(d, B, rng)
		block := make([]float64, (d+1)*B)
		SimplexT(block, x, d, B)
		v, one, scaled, sc := make([]float64, d), make([]float64, d+1), make([]float64, d+1), randBlock(d+1, 1, rng)
		for b := range B {
			for i := range d {
				v[i] = x[i*B+b]
			}
			SimplexT(one, v, d, 1)
			SimplexTScaled(scaled, v, sc[:d+1], d)
			for i := range d + 1 {
				if math.Float64bits(one[i]) != math.Float64bits(block[i*B+b]) {
					t.Fatalf("d=%d column %d: value %d is %v alone, %v in the block", d, b, i, one[i], block[i*B+b])
				}
				if want := sc[i] * block[i*B+b]; math.Float64bits(scaled[i]) != math.Float64bits(want) {
					t.Fatalf("d=%d column %d: scaled value %d is %v, want %v", d, b, i, scaled[i], want)
				}
			}
		}
	}
}

func BenchmarkSimplexT(b *testing.B) {
	const d, B = 784, 64
	x := randBlock(d, B, newRNG(21))
	dst := make([]float64, (d+1)*B)
	for b.Loop() {
		SimplexT(dst, x, d, B)
	}
}
