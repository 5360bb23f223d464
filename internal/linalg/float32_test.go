package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rffkit/rff/internal/cpu"
)

// TestSyrk32 checks the upper triangle of Syrk32 against the product computed
// in float64 from the same float32 inputs, within the floating-point error
// bound of a length-k dot product in single precision (Higham, Thm 3.5):
// |ΔC| ≤ γ_{k+2}·(|α|·|A|ᵀ|A| + |β|·|C|) with γ_m = m·u/(1 − m·u), u = 2⁻²⁴.
// The strictly lower triangle must be left alone, and β = 0 must overwrite a
// NaN in C.
func TestSyrk32(t *testing.T) {
	withBackend(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(32, 32))
		const u = 1.0 / (1 << 24)
		for _, s := range [][2]int{{0, 0}, {0, 3}, {3, 0}, {1, 1}, {9, 1}, {33, 20}, {64, 64}, {130, 257}, {300, 64}} {
			n, k := s[0], s[1]
			for _, pad := range []int{0, 3} {
				for _, ab := range [][2]float32{{1, 0}, {-0.7, 1}, {0.3, 0.5}, {0, 0}, {0, 2}} {
					alpha, beta := ab[0], ab[1]
					lda, ldc := max(1, n+pad), max(1, n+pad)
					a := make([]float32, max(0, (k-1)*lda+n))
					for i := range a {
						a[i] = float32(rng.NormFloat64())
					}
					c := make([]float32, max(0, (n-1)*ldc+n))
					for i := range c {
						c[i] = float32(rng.NormFloat64())
						if beta == 0 && i%ldc >= i/ldc {
							c[i] = float32(math.NaN())
						}
					}
					got := append([]float32(nil), c...)
					Syrk32(n, k, alpha, a, lda, beta, got, ldc)
					gamma := float64(k+2) * u / (1 - float64(k+2)*u)
					for i := range n {
						for j := range n {
							g := float64(got[i*ldc+j])
							if j < i {
								if g != float64(c[i*ldc+j]) {
									t.Fatalf("Syrk32(%d,%d,pad %d): lower (%d,%d) changed", n, k, pad, i, j)
								}
								continue
							}
							var want, abs float64
							for p := range k {
								x, y := float64(a[p*lda+i]), float64(a[p*lda+j])
								want += x * y
								abs += math.Abs(x * y)
							}
							want *= float64(alpha)
							abs *= math.Abs(float64(alpha))
							if beta != 0 {
								want += float64(beta) * float64(c[i*ldc+j])
								abs += math.Abs(float64(beta) * float64(c[i*ldc+j]))
							}
							if d := math.Abs(g - want); !(d <= gamma*abs) {
								t.Fatalf("%s: C[%d,%d] = %v, want %v (bound %.3g)", fmt.Sprintf("Syrk32(%d,%d,α=%v,β=%v,pad %d)",
									n, k, alpha, beta, pad), i, j, g, want, gamma*abs)
							}
						}
					}
				}
			}
		}
	})
}

func TestSyrk32Panics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Syrk32 with a short A did not panic")
		}
	}()
	Syrk32(4, 4, 1, make([]float32, 3), 4, 0, make([]float32, 16), 4)
}

// TestGemmSerial checks GemmSerial against gonum's Dgemm within the bound of Gemm's test, on shapes below and above
// the packed kernel's minimum dimension.
func TestGemmSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, s := range [][3]int{{1, 1, 1}, {7, 10, 300}, {64, 10, 8192}, {300, 10, 64}, {33, 12, 40}} {
		m, n, k := s[0], s[1], s[2]
		for _, tA := range []bool{false, true} {
			ar, ac := m, k
			if tA {
				ar, ac = k, m
			}
			a := randMat(rng, ar, ac, ac, 0)
			b := randMat(rng, k, n, n, 0)
			c := randMat(rng, m, n, n, 0)
			want := clone(c)
			goBlas.Dgemm(trans(tA), trans(false), m, n, k, 0.5, a, ac, b, n, 1, want, n)
			got := clone(c)
			GemmSerial(tA, false, m, n, k, 0.5, a, ac, b, n, 1, got, n)
			maxDiff(t, got, want, 1e-13*float64(k+1), fmt.Sprintf("GemmSerial(%v, %d×%d×%d)", tA, m, n, k))
		}
	}
}

// TestGramVectorBits: the width follows the kernels of the backend — the core type OpenBLAS reports running, or the
// pure-Go packed AVX2+FMA kernel (256 where the CPU has AVX2 and FMA, per /proc/cpuinfo's flags through
// internal/cpu).
func TestGramVectorBits(t *testing.T) {
	got := GramVectorBits()
	in := Info()
	if in.Backend != PureGo {
		want := map[string]int{"skylakex": 512, "cooperlake": 512, "sapphirerapids": 512, "haswell": 256, "zen": 256}[strings.ToLower(in.CoreType)]
		if want == 0 {
			want = 128
		}
		if got != want {
			t.Errorf("OpenBLAS runs %s kernels: GramVectorBits() = %d, want %d", in.CoreType, got, want)
		}
		return
	}
	want := 128
	if cpu.FMA {
		want = 256
	}
	if got != want {
		t.Errorf("pure Go, FMA %v: GramVectorBits() = %d, want %d", cpu.FMA, got, want)
	}
}

// TestGemm32 checks Gemm32 on integer matrices whose products and partial sums stay below 2²⁴ in magnitude: every
// single-precision operation on them is exact in any order, so the result must equal the integer product exactly,
// on every backend, for every transposition, with padded strides; beta = 0 must overwrite a NaN in C.
func TestGemm32(t *testing.T) {
	withBackend(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 32))
		for _, s := range [][3]int{{1, 1, 1}, {5, 7, 3}, {40, 33, 100}, {130, 70, 257}, {64, 300, 512}} {
			m, n, k := s[0], s[1], s[2]
			// |a|, |b| ≤ 15 and |c| ≤ 100: |Σ a·b| + |β·c| ≤ 512·225 + 300 < 2²⁴.
			for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
				for _, beta := range []float32{0, 1, -2} {
					ar, ac := m, k
					if tr[0] {
						ar, ac = k, m
					}
					br, bc := k, n
					if tr[1] {
						br, bc = n, k
					}
					lda, ldb, ldc := ac+2, bc+1, n+3
					ints := func(rows, ld, hi int) []float32 {
						x := make([]float32, (rows-1)*ld+ld)
						for i := range x {
							x[i] = float32(rng.IntN(2*hi+1) - hi)
						}
						return x
					}
					a, b, c := ints(ar, lda, 15), ints(br, ldb, 15), ints(m, ldc, 100)
					if beta == 0 {
						for i := range c {
							c[i] = float32(math.NaN())
						}
					}
					got := append([]float32(nil), c...)
					Gemm32(tr[0], tr[1], m, n, k, 1, a, lda, b, ldb, beta, got, ldc)
					at := func(x []float32, ld int, tx bool, i, j int) int {
						if tx {
							i, j = j, i
						}
						return int(x[i*ld+j])
					}
					for i := range m {
						for j := range n {
							want := 0
							for p := range k {
								want += at(a, lda, tr[0], i, p) * at(b, ldb, tr[1], p, j)
							}
							if beta != 0 {
								want += int(beta) * int(c[i*ldc+j])
							}
							if g := got[i*ldc+j]; g != float32(want) {
								t.Fatalf("Gemm32(%v,%v,%d,%d,%d,β=%v): C[%d,%d] = %v, want %d", tr[0], tr[1], m, n, k, beta, i, j, g, want)
							}
						}
					}
				}
			}
		}
	})
}
