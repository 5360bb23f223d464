package fastmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// expInputs returns inputs for Exp: uniform over [−750, 720] (both edges of the fast range and beyond), small
// arguments, integers and half-integers times ln 2 and their neighbours (where the rounding of k changes), the
// edges ExpLo and ExpHi and their neighbours, ±0, ±Inf and NaN.
func expInputs() []float64 {
	r := rand.New(rand.NewPCG(7, 8))
	var xs []float64
	for range 40000 {
		xs = append(xs, -750+1470*r.Float64())
	}
	for range 10000 {
		xs = append(xs, (r.Float64()-0.5)*math.Pow(2, -float64(r.IntN(60))))
	}
	for k := -1100; k <= 1030; k++ {
		for _, h := range []float64{0, 0.5} {
			v := (float64(k) + h) * math.Ln2
			xs = append(xs, v, math.Nextafter(v, math.Inf(1)), math.Nextafter(v, math.Inf(-1)))
		}
	}
	for _, v := range []float64{ExpLo, ExpHi, 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 709.78, 709.79, -745.1, -745.2, -1e300, 1e300} {
		xs = append(xs, v, math.Nextafter(v, math.Inf(1)), math.Nextafter(v, math.Inf(-1)))
	}
	return xs
}

// TestExpMatchesMath: Exp equals math.Exp bit for bit on the vector path (where the CPU has AVX2 and FMA) and on
// the scalar one, for every slice length from 0 to 13 and every offset (tails and groups that fall back), for
// groups mixing in-range and out-of-range elements, and in place (dst = x).
func TestExpMatchesMath(t *testing.T) {
	xs := expInputs()
	for _, vec := range []bool{true, false} {
		old := useFMA
		useFMA = vec && old
		t.Run(map[bool]string{true: "vector", false: "scalar"}[vec], func(t *testing.T) {
			if vec && !useFMA {
				t.Skip("the CPU lacks AVX2 and FMA")
			}
			check := func(what string, x []float64, inPlace bool) {
				t.Helper()
				src := append([]float64(nil), x...)
				dst := make([]float64, len(x))
				if inPlace {
					dst = append([]float64(nil), x...)
					Exp(dst, dst)
				} else {
					Exp(dst, src)
				}
				for i, v := range x {
					if want := math.Exp(v); math.Float64bits(dst[i]) != math.Float64bits(want) && !(math.IsNaN(want) && math.IsNaN(dst[i])) {
						t.Fatalf("%s: Exp(%v) = %v (%#x), math.Exp %v (%#x)", what, v, dst[i], math.Float64bits(dst[i]), want, math.Float64bits(want))
					}
				}
			}
			check("all", xs, false)
			check("all in place", xs, true)
			for n := range 14 {
				for off := range 4 {
					if off+n <= len(xs) {
						check("short", xs[off:off+n], false)
					}
				}
			}
			// An out-of-range element in the middle of every group position.
			for p := range 4 {
				x := []float64{-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12}
				x[4+p] = -800
				check("mixed group", x, true)
				x[4+p] = math.NaN()
				check("NaN group", x, false)
			}
		})
		useFMA = old
	}
}

func BenchmarkExp(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, 1000)
	for i := range x {
		x[i] = -20 * r.Float64()
	}
	dst := make([]float64, len(x))
	b.Run("Exp", func(b *testing.B) {
		for b.Loop() {
			Exp(dst, x)
		}
	})
	b.Run("math.Exp", func(b *testing.B) {
		for b.Loop() {
			for i, v := range x {
				dst[i] = math.Exp(v)
			}
		}
	})
}
