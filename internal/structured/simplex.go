package structured

import (
	"math"
	"sync"
)

// The simplex V = C_{d+1} (d×(d+1)) is built by the recursion (docs/conventions.md §8.1)
//
//	C_2 = [1, -1],
//	C_{k+1} = [[1, -(1/k)·1ᵀ_k], [0_{k-1}, sqrt(1-1/k²)·C_k]].
//
// Unrolled, row t of V (t = 0..d-1) is scaled by
//
//	s_t = Π_{i<t} sqrt(1 - 1/(d-i)²) = sqrt((d+1)(d-t) / (d(d-t+1)))
//
// (the product telescopes), and
//
//	V[t][j] = 0           for j < t,
//	V[t][t] = s_t,
//	V[t][j] = -a_t        for j > t,  a_t = s_t/(d-t) = sqrt((d+1)/(d(d-t)(d-t+1))).
//
// Hence (Vᵀx)_j = s_j x_j - Σ_{t<j} a_t x_t (the first term absent for
// j = d): a running sum.

// simplexCoef returns s_t and a_t of row t for dimension d.
func simplexCoef(d, t int) (s, a float64) {
	fd := float64(d)
	k := float64(d - t)
	s = math.Sqrt((fd + 1) * k / (fd * (k + 1)))
	return s, s / k
}

// simplexTables holds, per dimension d, the coefficients s_t and a_t of every row (simplexCoef's values): SimplexT
// on one vector would otherwise spend most of its time in their square roots and divisions.
var simplexTables sync.Map // d → *[2][]float64

// simplexTable returns s_t and a_t for t = 0…d−1, computed once per d.
func simplexTable(d int) (s, a []float64) {
	if v, ok := simplexTables.Load(d); ok {
		t := v.(*[2][]float64)
		return t[0], t[1]
	}
	t := &[2][]float64{make([]float64, d), make([]float64, d)}
	for j := range d {
		t[0][j], t[1][j] = simplexCoef(d, j)
	}
	v, _ := simplexTables.LoadOrStore(d, t)
	t = v.(*[2][]float64)
	return t[0], t[1]
}

// SimplexT computes dst = Vᵀ x, where the columns v_0..v_d of the d×(d+1)
// matrix V are the unit vertices of a regular simplex in R^d centred at 0
// (‖v_j‖ = 1, v_iᵀv_j = -1/d for i≠j, Σ v_j = 0). x is d×B and dst is
// (d+1)×B, both coordinate-major. Cost O(d·B), no allocation (row d of dst
// serves as the running sum). dst must not overlap x. Every product is
// rounded on its own (the float64 conversions), so that a compiler fusing
// multiply-adds (arm64, GOAMD64=v3) cannot fuse the loops differently: one
// vector gives the bits of its column in a block.
func SimplexT(dst, x []float64, d, B int) {
	if d < 1 || B <= 0 {
		return
	}
	x = x[:d*B]
	dst = dst[:(d+1)*B]
	acc := dst[d*B : (d+1)*B : (d+1)*B]
	cs, ca := simplexTable(d)
	if B == 1 {
		r := 0.0
		dst, cs, ca = dst[:d], cs[:d], ca[:d]
		for j, v := range x {
			dst[j] = r + float64(cs[j]*v)
			r -= float64(ca[j] * v)
		}
		acc[0] = r
		return
	}
	clear(acc)
	j := 0
	// Four rows per sweep keep the running sum in a register for four steps.
	for ; j+4 <= d; j += 4 {
		s0, a0 := cs[j], ca[j]
		s1, a1 := cs[j+1], ca[j+1]
		s2, a2 := cs[j+2], ca[j+2]
		s3, a3 := cs[j+3], ca[j+3]
		n := len(acc)
		x0, x1, x2, x3 := row(x, j, B), row(x, j+1, B), row(x, j+2, B), row(x, j+3, B)
		d0, d1, d2, d3 := row(dst, j, B), row(dst, j+1, B), row(dst, j+2, B), row(dst, j+3, B)
		x0, x1, x2, x3 = x0[:n], x1[:n], x2[:n], x3[:n]
		d0, d1, d2, d3 = d0[:n], d1[:n], d2[:n], d3[:n]
		for b := range acc {
			r := acc[b]
			v := x0[b]
			d0[b] = r + float64(s0*v)
			r -= float64(a0 * v)
			v = x1[b]
			d1[b] = r + float64(s1*v)
			r -= float64(a1 * v)
			v = x2[b]
			d2[b] = r + float64(s2*v)
			r -= float64(a2 * v)
			v = x3[b]
			d3[b] = r + float64(s3*v)
			acc[b] = r - float64(a3*v)
		}
	}
	for ; j < d; j++ {
		s, a := cs[j], ca[j]
		xr := x[j*B : j*B+B : j*B+B]
		dr := dst[j*B : j*B+B : j*B+B]
		xr = xr[:len(acc)]
		dr = dr[:len(acc)]
		for b := range acc {
			v := xr[b]
			dr[b] = acc[b] + float64(s*v)
			acc[b] -= float64(a * v)
		}
	}
}

// SimplexTScaled writes dst[j] = s[j]·(Vᵀx)_j, j = 0…d, for one vector x of d values: the values of SimplexT, each
// multiplied by its factor (one more rounding) in the same pass. dst and s have d+1 values; dst must not overlap x.
func SimplexTScaled(dst, x, s []float64, d int) {
	if d < 1 {
		return
	}
	x, dst, s = x[:d], dst[:d+1], s[:d+1]
	cs, ca := simplexTable(d)
	cs, ca = cs[:d], ca[:d]
	r := 0.0
	for j, v := range x {
		dst[j] = s[j] * (r + float64(cs[j]*v))
		r -= float64(ca[j] * v)
	}
	dst[d] = s[d] * r
}

// Simplex returns V as a d×(d+1) row-major matrix, consistent with SimplexT.
func Simplex(d int) []float64 {
	if d < 1 {
		panic("structured: simplex dimension must be >= 1")
	}
	n := d + 1
	v := make([]float64, d*n)
	for t := 0; t < d; t++ {
		s, a := simplexCoef(d, t)
		v[t*n+t] = s
		for j := t + 1; j < n; j++ {
			v[t*n+j] = -a
		}
	}
	return v
}
