package kernel

import (
	"errors"
	"fmt"
	"math"
)

// Gradient writes the gradient of k(x, y) in x, dst[j] = ∂k(x,y)/∂x_j — [Deriv] with p the unit multi-index e_j
// and q = 0, for every j — into dst (length len(x)). For the Gaussian, Cauchy and Matérn (ν = 3/2, 5/2) kernels it
// takes O(d) operations instead of d calls of O(d) each, as a factor g_j times a value κ shared by all coordinates:
// for the Gaussian g_j = −δ_j/σ² and κ = k(x,y), computed as Deriv computes them (the same bits wherever Deriv's
// result is a normal float); for the Cauchy kernel g_j = −2u_j/(σ(1 + u_j²)), u = δ/σ, and κ = k(x,y); for the
// Matérn kernels the radial form g_j = δ_j, κ = φ′(r)/r — these two within a few rounding errors of Deriv (relative
// error ≲ (d+8)·2⁻⁵³). Where κ falls below the normal range (a point far from y) the magnitude is settled in
// logarithms: a derivative below half the smallest subnormal is ±0, and only one that could still be a float is
// computed by Deriv, which keeps the range. It returns Deriv's errors: a nil kernel, lengths that do not match, a
// kernel without first derivatives everywhere (Laplacian, Matérn ν = 1/2, the arc-cosine kernels).
func Gradient(k Kernel, dst, x, y []float64) error {
	if isNil(k) {
		return errors.New("kernel.Gradient: nil kernel")
	}
	d := len(x)
	if len(y) != d || len(dst) != d {
		return fmt.Errorf("kernel %s: Gradient: x has %d coordinates, y %d, dst %d", k.Name(), d, len(y), len(dst))
	}
	if d == 0 {
		return fmt.Errorf("kernel %s: empty input", k.Name())
	}
	var g func(j int) float64 // the factor g_j, with κ and log|κ|: the closed form, when the kernel has one
	var kappa float64
	var logKappa func() float64
	switch kk := k.(type) {
	case Gaussian:
		var s2 float64
		for i, xi := range x {
			u := (xi - y[i]) / kk.S
			s2 += u * u
		}
		kappa = math.Exp(-s2 / 2)
		logKappa = func() float64 { return -s2 / 2 }
		g = func(j int) float64 { return (x[j] - y[j]) / kk.S * (-1 / kk.S) }
	case Cauchy:
		kappa = 1
		for i, xi := range x {
			u := (xi - y[i]) / kk.S
			kappa /= 1 + u*u
		}
		logKappa = func() float64 {
			var l float64
			for i, xi := range x {
				u := (xi - y[i]) / kk.S
				l -= math.Log1p(u * u)
			}
			return l
		}
		g = func(j int) float64 {
			u := (x[j] - y[j]) / kk.S
			return -2 * u / (kk.S * (1 + u*u))
		}
	case Matern:
		if n, ok := kk.maternHalf(); ok && n > 0 {
			a := math.Sqrt(2*kk.Nu) / kk.S // as maternPsi
			var s2 float64
			for i, xi := range x {
				t := xi - y[i]
				s2 += t * t
			}
			t := a * math.Sqrt(s2)
			kappa = -a * a * math.Exp(-t)
			logKappa = func() float64 { return 2*math.Log(a) - t }
			if n == 2 {
				kappa = kappa * (1 + t) / 3
				logKappa = func() float64 { return 2*math.Log(a) - t + math.Log((1+t)/3) }
			}
			g = func(j int) float64 { return x[j] - y[j] }
		}
	}
	inRange := math.Abs(kappa) >= 0x1p-1022 && !math.IsInf(kappa, 0)
	lk := math.NaN() // log|κ|, computed once if needed
	var p []int
	for j := range dst {
		if g != nil {
			gj := g(j)
			v := gj * kappa
			if gj == 0 || (inRange && !math.IsInf(v, 0) && !math.IsNaN(v)) {
				dst[j] = v
				continue
			}
			if !inRange && !math.IsNaN(gj) && !math.IsInf(gj, 0) {
				if math.IsNaN(lk) {
					lk = logKappa()
				}
				// |∂k/∂x_j| = |g_j|·|κ| < 2⁻¹⁰⁷⁵: the correctly rounded value is a zero of the product's sign.
				if math.Log(math.Abs(gj))+lk < -745.2 {
					dst[j] = math.Copysign(0, gj*math.Copysign(1, kappa))
					continue
				}
			}
		}
		if p == nil {
			p = make([]int, d)
		}
		p[j] = 1
		v, err := Deriv(k, x, y, p, nil)
		p[j] = 0
		if err != nil {
			return err
		}
		dst[j] = v
	}
	return nil
}
