package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDistRow checks the direct path's values against sqDist, absDist, cauchyProd and dot bit for bit — with the AVX2
// kernel and with the portable panels — for dimensions 1–9, 16, 23 and numbers of centres around the panel size
// (tails of 0–15), on values of mixed signs and magnitudes.
func TestDistRow(t *testing.T) {
	defer func(was bool) { useDirectAVX2 = was }(useDirectAVX2)
	rng := rand.New(rand.NewPCG(5, 6))
	val := func() float64 { return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3)) }
	const sigma = 0.37
	refs := map[dirMode]func(x, y []float64) float64{
		dirSq:     sqDist,
		dirL1:     absDist,
		dirCauchy: func(x, y []float64) float64 { return cauchyProd(x, y, sigma) },
		dirDot:    dot,
	}
	have := useDirectAVX2
	for _, avx := range []bool{false, true} {
		if avx && !have {
			continue
		}
		useDirectAVX2 = avx
		for _, mode := range []dirMode{dirSq, dirL1, dirCauchy, dirDot} {
			for _, d := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 23} {
				for _, m := range []int{0, 1, 15, 16, 17, 33, 48, 100} {
					t.Run(fmt.Sprintf("avx2=%v/mode=%d/d=%d/m=%d", avx, mode, d, m), func(t *testing.T) {
						Y := make([]float64, m*d)
						for i := range Y {
							Y[i] = val()
						}
						x := make([]float64, d)
						for i := range x {
							x[i] = val()
						}
						if m > 1 {
							copy(x, Y[d:2*d]) // a distance of zero
						}
						dst := make([]float64, m)
						distRow(dst, x, transposePanels(Y, m, d), Y, m, d, mode, sigma)
						for j := range m {
							if want := refs[mode](x, Y[j*d:(j+1)*d]); dst[j] != want {
								t.Fatalf("centre %d: %v, want %v", j, dst[j], want)
							}
						}
					})
				}
			}
		}
	}
}

// TestGramDirect checks Gram on the direct path against Eval entry by entry, bit for bit, for the squared-distance
// kernels below directMaxDim(), the Laplacian kernel (with σ small enough that most arguments leave Exp's fast
// range), the Cauchy kernel and the arc-cosine kernels of orders 0–2, with and without the AVX2 kernel.
func TestGramDirect(t *testing.T) {
	defer func(was bool) { useDirectAVX2 = was }(useDirectAVX2)
	rng := rand.New(rand.NewPCG(7, 8))
	const n, m = 37, 53
	have := useDirectAVX2
	for _, avx := range []bool{false, true} {
		if avx && !have {
			continue
		}
		useDirectAVX2 = avx
		for _, k := range []Kernel{Gaussian{S: 0.7}, Matern{Nu: 0.5, S: 1.3}, Matern{Nu: 1.5, S: 2}, Matern{Nu: 2.5, S: 0.9},
			Laplacian{S: 0.7}, Laplacian{S: 33}, Laplacian{S: 0.01}, Cauchy{S: 0.7}, Cauchy{S: 9}, ArcCos{0}, ArcCos{1},
			ArcCos{2}} {
			dims := []int{1, 4, directMaxDim() - 1}
			switch k.(type) {
			case Laplacian, Cauchy, ArcCos:
				dims = append(dims, 100) // direct at every d
			}
			for _, d := range dims {
				t.Run(fmt.Sprintf("avx2=%v/%s/d=%d", avx, k.Name(), d), func(t *testing.T) {
					X, Y := make([]float64, n*d), make([]float64, m*d)
					for i := range X {
						X[i] = rng.NormFloat64()
					}
					for i := range Y {
						Y[i] = rng.NormFloat64()
					}
					copy(X[:d], Y[:d]) // equal points
					clear(X[d : 2*d])  // zero rows: the arc-cosine kernels' angle π/2
					clear(Y[2*d : 3*d])
					dst := make([]float64, n*m)
					if err := Gram(dst, k, X, n, Y, m, d); err != nil {
						t.Fatal(err)
					}
					for i := range n {
						for j := range m {
							if want := k.Eval(X[i*d:(i+1)*d], Y[j*d:(j+1)*d]); dst[i*m+j] != want {
								t.Fatalf("K[%d,%d] = %v, want Eval %v", i, j, dst[i*m+j], want)
							}
						}
					}
				})
			}
		}
	}
}

// BenchmarkGramDirect times a Nyström block of LETTER's shape (1024 rows against 500 centres, d = 16) by the direct
// path (with the AVX2 kernel and with the portable loop) and by the matrix product, and the same at d = 8, 24, 32,
// 48 and 64, around the threshold directMaxDim.
func BenchmarkGramDirect(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 9))
	const n, m = 1024, 500
	for _, d := range []int{8, 16, 24, 32, 48, 64} {
		X, Y := make([]float64, n*d), make([]float64, m*d)
		for i := range X {
			X[i] = float64(rng.IntN(16)) / 15
		}
		for i := range Y {
			Y[i] = float64(rng.IntN(16)) / 15
		}
		dst := make([]float64, n*m)
		k := Gaussian{S: 2}
		b.Run(fmt.Sprintf("d=%d/direct", d), func(b *testing.B) {
			c := &Centres{k: k, y: Y, m: m, d: d, sq: k, direct: true, yt: transposePanels(Y, m, d)}
			for b.Loop() {
				c.gram(dst, X, n)
			}
		})
		b.Run(fmt.Sprintf("d=%d/direct-portable", d), func(b *testing.B) {
			defer func(was bool) { useDirectAVX2 = was }(useDirectAVX2)
			useDirectAVX2 = false
			c := &Centres{k: k, y: Y, m: m, d: d, sq: k, direct: true, yt: transposePanels(Y, m, d)}
			for b.Loop() {
				c.gram(dst, X, n)
			}
		})
		b.Run(fmt.Sprintf("d=%d/product", d), func(b *testing.B) {
			c := &Centres{k: k, y: Y, m: m, d: d, sq: k, ny: sqNorms(Y, m, d)}
			for b.Loop() {
				c.gram(dst, X, n)
			}
		})
	}
}

// BenchmarkGramLaplacian times the Laplacian, Cauchy and arc-cosine kernels' Gram matrices (1000 × 1000, d = 784, and 1024 ×
// 500, d = 16) by the direct path and by the pairwise loop it replaces where the CPU has AVX2.
func BenchmarkGramLaplacian(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	defer func(was bool) { useDirectAVX2 = was }(useDirectAVX2)
	have := useDirectAVX2
	for _, sh := range []struct{ n, m, d int }{{1000, 1000, 784}, {1024, 500, 16}} {
		X, Y := randVec(rng, sh.n*sh.d, 1), randVec(rng, sh.m*sh.d, 1)
		dst := make([]float64, sh.n*sh.m)
		for _, k := range []Kernel{Laplacian{S: 10}, Cauchy{S: 10}, ArcCos{1}} {
			for _, direct := range []bool{true, false} {
				if direct && !have {
					continue
				}
				b.Run(fmt.Sprintf("%s/d=%d/direct=%v", k.Name(), sh.d, direct), func(b *testing.B) {
					useDirectAVX2 = direct
					for b.Loop() {
						if err := Gram(dst, k, X, sh.n, Y, sh.m, sh.d); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
