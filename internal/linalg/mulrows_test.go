package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestMulRows: every row of MulRows's product has the same bits computed alone (m = 1, the direct chains), within 3
// rows (the chains too) and within 20 rows (GemmSerial's packed kernel where it applies), for both layouts of B,
// sizes on either side of GemmSerialMinDim, several blocks of k and (packNCMax lowered) of columns, a B large enough
// for the direct chains to run on all cores, with and without the packed kernel; and every element is within the
// rounding of a k-term sum, k·u·Σ_l|a_l b_l|, of the exact product.
func TestMulRows(t *testing.T) {
	prevNC, prevKernel := packNCMax, useKernel
	defer func() { packNCMax, useKernel = prevNC, prevKernel }()
	for _, kern := range []bool{true, false} {
		if kern && !prevKernel {
			continue
		}
		useKernel = kern
		for _, nc := range []int{4096, 24} {
			packNCMax = nc
			for _, tB := range []bool{false, true} {
				for _, s := range [][2]int{{5, 300}, {8, 8}, {13, 3}, {40, 600}, {100, 257}, {700, 500}} {
					n, k := s[0], s[1]
					t.Run(fmt.Sprintf("kernel=%v/nc=%d/tB=%v/n=%d/k=%d", kern, nc, tB, n, k), func(t *testing.T) {
						const m = 20
						rng := rand.New(rand.NewPCG(uint64(n), uint64(k)))
						a, b := make([]float64, m*k), make([]float64, n*k)
						for i := range a {
							a[i] = rng.NormFloat64()
						}
						for i := range b {
							b[i] = rng.NormFloat64()
						}
						ldb := n
						if tB {
							ldb = k
						}
						all := make([]float64, m*n)
						MulRows(tB, m, n, k, a, k, b, ldb, all, n)
						three := make([]float64, 3*n)
						MulRows(tB, 3, n, k, a[5*k:8*k], k, b, ldb, three, n)
						one := make([]float64, n)
						for i := range m {
							MulRows(tB, 1, n, k, a[i*k:(i+1)*k], k, b, ldb, one, n)
							for j := range n {
								want := math.Float64bits(all[i*n+j])
								if math.Float64bits(one[j]) != want {
									t.Fatalf("C[%d][%d]: alone %v, among %d rows %v", i, j, one[j], m, all[i*n+j])
								}
								if i >= 5 && i < 8 && math.Float64bits(three[(i-5)*n+j]) != want {
									t.Fatalf("C[%d][%d]: among 3 rows %v, among %d rows %v", i, j, three[(i-5)*n+j], m, all[i*n+j])
								}
								var exact, mag float64
								for l := range k {
									bv := b[l*n+j]
									if tB {
										bv = b[j*k+l]
									}
									exact += a[i*k+l] * bv
									mag += math.Abs(a[i*k+l] * bv)
								}
								if math.Abs(all[i*n+j]-exact) > 2*float64(k+1)*0x1p-53*mag {
									t.Fatalf("C[%d][%d] = %v, the product is %v (± %.3g)", i, j, all[i*n+j], exact, 2*float64(k+1)*0x1p-53*mag)
								}
							}
						}
					})
				}
			}
		}
	}
}

// TestMulRowsLayoutFree checks the promise of MulRowsLayoutFree: where it holds, B and its transpose give the same
// bits, for one row and for blocks of rows on either side of GemmSerialMinDim.
func TestMulRowsLayoutFree(t *testing.T) {
	for _, s := range [][2]int{{8, 8}, {10, 300}, {26, 1000}, {5, 300}, {40, 3}} {
		n, k := s[0], s[1]
		t.Run(fmt.Sprintf("n=%d/k=%d", n, k), func(t *testing.T) {
			if !MulRowsLayoutFree(n, k) {
				if useKernel && n >= GemmSerialMinDim && k >= GemmSerialMinDim {
					t.Fatalf("MulRowsLayoutFree(%d, %d) = false with the kernel", n, k)
				}
				t.Skip("not layout-free here")
			}
			rng := rand.New(rand.NewPCG(uint64(n), uint64(k)))
			const m = 20
			a, b, bt := make([]float64, m*k), make([]float64, k*n), make([]float64, n*k)
			for i := range a {
				a[i] = rng.NormFloat64()
			}
			for l := range k {
				for j := range n {
					b[l*n+j] = rng.NormFloat64()
					bt[j*k+l] = b[l*n+j]
				}
			}
			for _, rows := range []int{1, 3, m} {
				c, ct := make([]float64, rows*n), make([]float64, rows*n)
				MulRows(false, rows, n, k, a, k, b, n, c, n)
				MulRows(true, rows, n, k, a, k, bt, k, ct, n)
				for i := range c {
					if math.Float64bits(c[i]) != math.Float64bits(ct[i]) {
						t.Fatalf("%d rows, element %d: B gives %v, Bᵀ %v", rows, i, c[i], ct[i])
					}
				}
			}
		})
	}
}
