package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
)

// Benchmarks for both backends. GFLOP/s counts the useful flops: 2mnk for
// Gemm, n²k for a Gram matrix (Syrk: one triangle), n³/3 for Cholesky, and for
// EigenSym the time is reported (its flop count depends on the algorithm).
// Sizes 4096 run only with RFF_BENCH_LARGE=1 (pure Go takes minutes there):
//
//	go test -run '^$' -bench . -benchtime 1x ./internal/linalg/
//	OPENBLAS_CORETYPE=Prescott go test -run '^$' -bench 'Gemm/openblas' -benchtime 1x ./internal/linalg/

func benchSizes() []int {
	if os.Getenv("RFF_BENCH_LARGE") != "" {
		return []int{2048, 4096}
	}
	return []int{2048}
}

func gflops(b *testing.B, flops float64) {
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkGemm(b *testing.B) {
	for _, be := range []string{OpenBLAS, PureGo} {
		for _, n := range benchSizes() {
			b.Run(fmt.Sprintf("%s/n=%d", be, n), func(b *testing.B) {
				defer switchTo(b, be)()
				rng := rand.New(rand.NewPCG(1, 2))
				x, y, c := randSlice(rng, n*n), randSlice(rng, n*n), make([]float64, n*n)
				b.ResetTimer()
				for range b.N {
					Gemm(false, false, n, n, n, 1, x, n, y, n, 0, c, n)
				}
				gflops(b, 2*float64(n)*float64(n)*float64(n))
			})
		}
	}
}

// BenchmarkSyrk is the Gram matrix AᵀA of an n×n block (k = n) and of the
// learn package's shape: blocks of 256 rows of n = 2048 features.
func BenchmarkSyrk(b *testing.B) {
	type shape struct{ n, k int }
	shapes := []shape{{2048, 256}}
	for _, n := range benchSizes() {
		shapes = append(shapes, shape{n, n})
	}
	for _, be := range []string{OpenBLAS, PureGo} {
		for _, s := range shapes {
			b.Run(fmt.Sprintf("%s/n=%d/k=%d", be, s.n, s.k), func(b *testing.B) {
				defer switchTo(b, be)()
				rng := rand.New(rand.NewPCG(1, 2))
				a, c := randSlice(rng, s.k*s.n), make([]float64, s.n*s.n)
				b.ResetTimer()
				for range b.N {
					Syrk(s.n, s.k, 1, a, s.n, 1, c, s.n)
				}
				gflops(b, float64(s.n)*float64(s.n)*float64(s.k))
			})
		}
	}
}

// BenchmarkGramGo compares the pure-Go ways to form a Gram matrix: gonum's
// Dsyrk, SyrkBlocked (the AVX2+FMA kernel where the CPU has it) on all
// threads and on one, the portable axpy path SyrkBlocked takes elsewhere, and
// a full gonum Dgemm AᵀA (both triangles).
func BenchmarkGramGo(b *testing.B) {
	for _, s := range []struct{ n, k int }{{2048, 256}, {2048, 2048}, {512, 256}, {128, 512}} {
		rng := rand.New(rand.NewPCG(1, 2))
		a, c := randSlice(rng, s.k*s.n), make([]float64, s.n*s.n)
		flops := float64(s.n) * float64(s.n) * float64(s.k)
		b.Run(fmt.Sprintf("gonumDsyrk/n=%d/k=%d", s.n, s.k), func(b *testing.B) {
			for range b.N {
				goBlas.Dsyrk(blas.Upper, blas.Trans, s.n, s.k, 1, a, s.n, 1, c, s.n)
			}
			gflops(b, flops)
		})
		b.Run(fmt.Sprintf("SyrkBlocked/n=%d/k=%d", s.n, s.k), func(b *testing.B) {
			for range b.N {
				SyrkBlocked(s.n, s.k, 1, a, s.n, 1, c, s.n)
			}
			gflops(b, flops)
		})
		b.Run(fmt.Sprintf("SyrkBlocked1/n=%d/k=%d", s.n, s.k), func(b *testing.B) {
			defer SetThreads(SetThreads(1))
			for range b.N {
				SyrkBlocked(s.n, s.k, 1, a, s.n, 1, c, s.n)
			}
			gflops(b, flops)
		})
		b.Run(fmt.Sprintf("SyrkAxpy/n=%d/k=%d", s.n, s.k), func(b *testing.B) {
			for range b.N {
				syrkAxpy(true, true, s.n, s.k, 1, a, s.n, 1, c, s.n, pureThreads())
			}
			gflops(b, flops)
		})
		b.Run(fmt.Sprintf("gonumDgemmTN/n=%d/k=%d", s.n, s.k), func(b *testing.B) {
			for range b.N {
				goBlas.Dgemm(blas.Trans, blas.NoTrans, s.n, s.n, s.k, 1, a, s.n, a, s.n, 1, c, s.n)
			}
			gflops(b, flops)
		})
	}
}

func BenchmarkPotrf(b *testing.B) {
	for _, be := range []string{OpenBLAS, PureGo} {
		for _, n := range benchSizes() {
			b.Run(fmt.Sprintf("%s/n=%d", be, n), func(b *testing.B) {
				defer switchTo(b, be)()
				rng := rand.New(rand.NewPCG(1, 2))
				a0 := spdFast(rng, n)
				a := make([]float64, n*n)
				b.ResetTimer()
				for range b.N {
					b.StopTimer()
					copy(a, a0)
					b.StartTimer()
					if err := Cholesky(n, a, n); err != nil {
						b.Fatal(err)
					}
				}
				gflops(b, float64(n)*float64(n)*float64(n)/3)
			})
		}
	}
}

func BenchmarkEigenSym(b *testing.B) {
	for _, be := range []string{OpenBLAS, PureGo} {
		for _, n := range benchSizes() {
			if be == PureGo && n > 2048 {
				continue // about 10 minutes
			}
			b.Run(fmt.Sprintf("%s/n=%d", be, n), func(b *testing.B) {
				defer switchTo(b, be)()
				rng := rand.New(rand.NewPCG(1, 2))
				a := spdFast(rng, n)
				b.ResetTimer()
				for range b.N {
					if _, _, err := EigenSym(n, a); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkCrossover times small Gemm calls on both paths, to place
// nativeMinWork.
func BenchmarkCrossover(b *testing.B) {
	for _, n := range []int{8, 16, 24, 32, 48, 64, 128} {
		rng := rand.New(rand.NewPCG(1, 2))
		x, y, c := randSlice(rng, n*n), randSlice(rng, n*n), make([]float64, n*n)
		flops := 2 * float64(n) * float64(n) * float64(n)
		b.Run(fmt.Sprintf("gonum/n=%d", n), func(b *testing.B) {
			for range b.N {
				goBlas.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, x, n, y, n, 0, c, n)
			}
			gflops(b, flops)
		})
		b.Run(fmt.Sprintf("openblas/n=%d", n), func(b *testing.B) {
			defer switchTo(b, OpenBLAS)()
			lib := native()
			b.ResetTimer()
			for range b.N {
				lib.gemm(false, false, n, n, n, 1, x, n, y, n, 0, c, n)
			}
			gflops(b, flops)
		})
	}
}

// spdFast returns a symmetric positive definite n×n matrix: a random symmetric
// matrix with a dominant diagonal.
func spdFast(rng *rand.Rand, n int) []float64 {
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := rng.Float64()*2 - 1
			a[i*n+j], a[j*n+i] = v, v
		}
		a[i*n+i] += float64(n)
	}
	return a
}

// goWork is a pure-Go, 2-goroutine workload of about 5 ms (a stand-in for a
// feature map between two Gram updates).
func goWork(buf []float64) {
	var wg sync.WaitGroup
	half := len(buf) / 2
	for _, part := range [][]float64{buf[:half], buf[half:]} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range part {
				part[i] = math.Sin(part[i] + 0.1)
			}
		}()
	}
	wg.Wait()
}

// BenchmarkGoAfterBLAS measures how much OpenBLAS's worker threads, which spin
// for a while after each call, slow the Go code that runs next: the metric
// go-ms is the time of goWork alone ("alone") and right after a Syrk
// ("after-syrk"), as in a fused map → Gram loop.
func BenchmarkGoAfterBLAS(b *testing.B) {
	defer switchTo(b, OpenBLAS)()
	const n, k = 2048, 256
	rng := rand.New(rand.NewPCG(1, 2))
	a, c := randSlice(rng, k*n), make([]float64, n*n)
	buf := randSlice(rng, 1<<18)
	for _, mode := range []string{"alone", "after-syrk"} {
		b.Run(mode, func(b *testing.B) {
			var goTime time.Duration
			for range b.N {
				if mode == "after-syrk" {
					Syrk(n, k, 1, a, n, 1, c, n)
				} else {
					time.Sleep(time.Millisecond)
				}
				t0 := time.Now()
				goWork(buf)
				goTime += time.Since(t0)
			}
			b.ReportMetric(float64(goTime.Microseconds())/1e3/float64(b.N), "go-ms")
		})
	}
}

// BenchmarkGemmGo compares gonum's Dgemm with the packed AVX2+FMA Dgemm that
// Blas.Dgemm uses in pure Go (square, NN, on all threads), to place
// packedGemmMinWork.
func BenchmarkGemmGo(b *testing.B) {
	for _, n := range []int{32, 48, 64, 96, 128, 256, 512, 2048} {
		rng := rand.New(rand.NewPCG(1, 2))
		x, y, c := randSlice(rng, n*n), randSlice(rng, n*n), make([]float64, n*n)
		flops := 2 * float64(n) * float64(n) * float64(n)
		b.Run(fmt.Sprintf("gonum/n=%d", n), func(b *testing.B) {
			for range b.N {
				goBlas.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, x, n, y, n, 0, c, n)
			}
			gflops(b, flops)
		})
		b.Run(fmt.Sprintf("packed/n=%d", n), func(b *testing.B) {
			if !useKernel {
				b.Skip("no AVX2+FMA")
			}
			for range b.N {
				gemmPacked(triFull, false, false, n, n, n, 1, x, n, y, n, 0, c, n, pureThreads())
			}
			gflops(b, flops)
		})
	}
}

// BenchmarkSyrkSmallGo compares gonum's Dsyrk with SyrkBlocked on small Gram
// matrices (k = n), to place the pure-Go routing thresholds of Blas.Dsyrk.
func BenchmarkSyrkSmallGo(b *testing.B) {
	for _, n := range []int{16, 24, 32, 48, 64, 128} {
		rng := rand.New(rand.NewPCG(1, 2))
		a, c := randSlice(rng, n*n), make([]float64, n*n)
		flops := float64(n) * float64(n) * float64(n)
		b.Run(fmt.Sprintf("gonumDsyrk/n=%d", n), func(b *testing.B) {
			for range b.N {
				goBlas.Dsyrk(blas.Upper, blas.Trans, n, n, 1, a, n, 1, c, n)
			}
			gflops(b, flops)
		})
		b.Run(fmt.Sprintf("SyrkBlocked/n=%d", n), func(b *testing.B) {
			for range b.N {
				SyrkBlocked(n, n, 1, a, n, 1, c, n)
			}
			gflops(b, flops)
		})
	}
}
