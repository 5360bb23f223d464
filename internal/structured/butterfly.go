package structured

import (
	"math"
	"math/rand/v2"
	"sync"
)

// DefaultButterflyReps is the number of (F·P) factors in a butterfly Q, as in
// the reference implementation of Munkhoeva et al. (2018).
const DefaultButterflyReps = 3

// Butterfly is a random butterfly orthogonal matrix in the sense of Genz (1998)
// as used by Munkhoeva et al. (2018).
//
// Let n = NextPow2(d) and L = log2(n). The butterfly F = F_0·F_1···F_{L-1} is
// a product of L factors; the factor at level l (block size m = 2^(l+1), half
// h = 2^l) is block diagonal with n/m blocks, block k being
//
//	[[c I_h, -s I_h],
//	 [s I_h,  c I_h]]    with c = Cos[m*k+h-1], s = Sin[m*k+h-1].
//
// That index scheme (the in-order numbering of a complete binary tree) uses
// each of the n-1 angles exactly once and reproduces the d = 4 example of
// Munkhoeva et al.: θ_1, θ_3 on level 0 and θ_2 on level 1.
// Within a block the rotation pairs are (p, p+h); when d is not a power of
// two, a pair with p+h >= d is the identity on p (index p+h does not exist),
// which keeps every factor, and hence Q, exactly orthogonal on R^d without
// padding.
//
// P is the permutation matrix (P x)_i = x[Perm[i]], and
//
//	Q = (F·P)^Reps,
//
// so Q x first permutes, then applies F_{L-1}, ..., F_0, Reps times.
//
// A Butterfly is read-only after construction and safe for concurrent use.
type Butterfly struct {
	D        int       // dimension d
	N        int       // NextPow2(d)
	Cos, Sin []float64 // N-1 angles, level l block k uses entry 2^(l+1)*k + 2^l - 1
	Perm     []int     // permutation of 0..d-1, (P x)_i = x[Perm[i]]
	Reps     int       // number of (F·P) factors

	gatherOnce sync.Once
	gather     *[2][]int32 // Perm and its inverse as 32-bit indices for gatherRows, nil when Perm is not a permutation
}

// NewButterfly draws a random butterfly Q of dimension d (d >= 1) with
// Reps = DefaultButterflyReps.
//
// Angles: u is a uniformly random unit vector in R^n (a normalized standard
// Gaussian vector) and θ_i = atan2(u_i, u_{i+1}), i = 0..n-2, i.e.
// cos θ_i = u_{i+1}/r, sin θ_i = u_i/r with r = hypot(u_i, u_{i+1}). The
// permutation is uniform on the d! permutations.
func NewButterfly(d int, rng *rand.Rand) *Butterfly {
	if d < 1 {
		panic("structured: butterfly dimension must be >= 1")
	}
	n := NextPow2(d)
	u := make([]float64, n)
	for {
		ss := 0.0
		for i := range u {
			u[i] = rng.NormFloat64()
			ss += u[i] * u[i]
		}
		if ss > 0 {
			inv := 1 / math.Sqrt(ss)
			for i := range u {
				u[i] *= inv
			}
			break
		}
	}
	cs := make([]float64, n-1)
	sn := make([]float64, n-1)
	for i := 0; i < n-1; i++ {
		r := math.Hypot(u[i], u[i+1])
		if r == 0 {
			cs[i], sn[i] = 1, 0
			continue
		}
		cs[i], sn[i] = u[i+1]/r, u[i]/r
	}
	return &Butterfly{D: d, N: n, Cos: cs, Sin: sn, Perm: rng.Perm(d), Reps: DefaultButterflyReps}
}

// Apply computes x ← Q x in place for the d×B coordinate-major block x
// (x[i*B+b] = coordinate i of vector b). scratch must have length >= d*B; its
// contents are overwritten. Cost O(d log d · B), no allocation. The
// permutation is fused into the first level of each F, and two levels are
// applied per sweep over the block (radix 4).
func (q *Butterfly) Apply(x []float64, B int, scratch []float64) {
	d := q.D
	if d <= 1 || B <= 0 || q.Reps <= 0 {
		return
	}
	x = x[:d*B]
	scratch = scratch[:d*B]
	if B < narrowB {
		q.applyNarrow(x, B, scratch, false)
		return
	}
	L := log2(q.N)
	npass := (L + 1) / 2
	cur, oth := x, scratch
	for r := 0; r < q.Reps; r++ {
		l := L - 1 // highest level not applied yet in this F
		for pi := 0; pi < npass; pi++ {
			first := pi == 0
			// With an odd number of out-of-place (gathering) passes the result
			// would end in scratch: make one more pass out-of-place.
			extra := q.Reps%2 == 1 && r == q.Reps-1 && pi == npass-1 && npass >= 2
			dst := cur
			if first || extra {
				dst = oth
			}
			var g []int
			if first {
				g = q.Perm
			}
			if l >= 1 {
				q.fwdPair(dst, cur, B, l-1, g)
				l -= 2
			} else {
				q.fwdSingle(dst, cur, B, l, g)
				l--
			}
			if first || extra {
				cur, oth = oth, cur
			}
		}
	}
	if &cur[0] != &x[0] {
		copy(x, cur)
	}
}

// ApplyT computes x ← Qᵀ x = (Pᵀ·Fᵀ)^Reps x in place for the d×B
// coordinate-major block x; scratch as for Apply.
func (q *Butterfly) ApplyT(x []float64, B int, scratch []float64) {
	q.ApplyTSigned(x, B, scratch, nil)
}

// ApplyTSigned computes x ← Qᵀ·diag(signs)·x: coordinate i of every vector is
// multiplied by signs[i], which must be ±1 (so exactly), and then Qᵀ is
// applied as by ApplyT; nil signs is ApplyT. For one vector on the AVX2 path
// the products are part of the first pass over the values.
func (q *Butterfly) ApplyTSigned(x []float64, B int, scratch, signs []float64) {
	d := q.D
	if B <= 0 {
		return
	}
	if signs != nil {
		signs = signs[:d]
	}
	fused := B == 1 && useAVX2 && d > 1 && q.Reps > 0
	if signs != nil && !fused {
		MultiplySigns(x[:d*B], B, signs)
		signs = nil
	}
	if d <= 1 || q.Reps <= 0 {
		return
	}
	x = x[:d*B]
	scratch = scratch[:d*B]
	if fused {
		q.applyVec(x, scratch, true, signs)
		return
	}
	if B < narrowB {
		q.applyNarrow(x, B, scratch, true)
		return
	}
	L := log2(q.N)
	npass := (L + 1) / 2
	cur, oth := x, scratch
	for r := 0; r < q.Reps; r++ {
		l := 0 // lowest level not applied yet in this Fᵀ
		for pi := 0; pi < npass; pi++ {
			last := pi == npass-1
			extra := q.Reps%2 == 1 && r == 0 && pi == 0 && npass >= 2
			dst := cur
			if last || extra {
				dst = oth
			}
			var sc []int
			if last {
				sc = q.Perm
			}
			if l+1 <= L-1 {
				q.tPair(dst, cur, B, l, sc)
				l += 2
			} else {
				q.tSingle(dst, cur, B, l, sc)
				l++
			}
			if last || extra {
				cur, oth = oth, cur
			}
		}
	}
	if &cur[0] != &x[0] {
		copy(x, cur)
	}
}

// narrowB is the block width below which Apply and ApplyT run applyNarrow: the radix-4 passes hand their kernels
// runs of h·B values, which for one or a few vectors are mostly runs of 1–3 values (the first levels, the ragged
// last block, the permuting pass) whose calls cost more than the rotations (one vector of d = 784 through a
// butterfly of three factors on a Zen 3: 83 µs that way, 19 µs level by level; one vector on the AVX2 path goes
// through applyVec).
const narrowB = 4

// applyNarrow is Apply (transpose false) or ApplyT for a block of B < narrowB vectors: one level at a time, each
// pair rotated in a plain loop, and the permutation as its own gather or scatter. Every value goes through the same
// roundings as in the kernels (a product rounded, then the sum), so the bits are those of the wide path.
func (q *Butterfly) applyNarrow(x []float64, B int, scratch []float64, transpose bool) {
	if B == 1 && useAVX2 {
		q.applyVec(x, scratch, transpose, nil)
		return
	}
	L := log2(q.N)
	cur, oth := x, scratch
	for range q.Reps {
		if transpose {
			for l := range L {
				q.levelNarrow(cur, B, l, true)
			}
			if B == 1 {
				for p, t := range q.Perm { // row p goes to row Perm[p]
					oth[t] = cur[p]
				}
			} else {
				for p, t := range q.Perm {
					copy(oth[t*B:(t+1)*B], cur[p*B:(p+1)*B])
				}
			}
		} else {
			if B == 1 {
				for i, t := range q.Perm { // row i is row Perm[i]
					oth[i] = cur[t]
				}
			} else {
				for i, t := range q.Perm {
					copy(oth[i*B:(i+1)*B], cur[t*B:(t+1)*B])
				}
			}
		}
		cur, oth = oth, cur
		if !transpose {
			for l := L - 1; l >= 0; l-- {
				q.levelNarrow(cur, B, l, false)
			}
		}
	}
	if &cur[0] != &x[0] {
		copy(x, cur)
	}
}

// applyVec is applyNarrow for one vector with the AVX2 kernels: levels 0–3 of each factor in registers, 16 values
// at a time (bflyLowTAVX2, bflyLowAVX2), and each higher level in one call over its whole blocks (bflyLevelAVX2); the
// ragged ends go through levelNarrow. Blocks of 16 values are closed under levels 0–3, so running those levels block
// by block does the operations of the level-by-level loop on the same values, and the bits are its bits. One vector
// of d = 784 through a butterfly of three factors (BenchmarkButterflyPaths, Zen 3): 28–30 µs level by level with a
// call of the rot2 kernel per block, 4.4–6.2 µs this way (6–9 µs before the permutations became gathers by
// gatherRows).
//
// With transpose, signs (nil or ±1 per coordinate) multiply the vector first, in the kernel's pass.
func (q *Butterfly) applyVec(x, scratch []float64, transpose bool, signs []float64) {
	d, L := q.D, log2(q.N)
	sign := 1.0
	if transpose {
		sign = -1
	}
	// The low kernels read the angles of a block up to its last value's index, which must exist: Cos has N−1.
	nb := min(d, len(q.Cos)) / 16
	x, scratch = x[:d], scratch[:d]
	cur, oth := x, scratch
	for range q.Reps {
		if transpose {
			q.lowVec(cur, nb, L, sign, true, signs)
			signs = nil
			for l := 4; l < L; l++ {
				q.levelVec(cur, l, sign)
			}
			q.permuteVec(oth, cur, true)
		} else {
			q.permuteVec(oth, cur, false)
			for l := L - 1; l >= 4; l-- {
				q.levelVec(oth, l, sign)
			}
			q.lowVec(oth, nb, L, sign, false, nil)
		}
		cur, oth = oth, cur
	}
	if &cur[0] != &x[0] {
		copy(x, cur)
	}
}

// permuteVec writes P·x (Pᵀ·x with transpose) of the vector x to dst: a gather by the 32-bit indices of gatherRows,
// whose loop without bounds checks moves the values 2.5 times as fast as the Go loop (it runs only on indices checked
// to be a permutation of 0…d−1), and the Go loop otherwise.
func (q *Butterfly) permuteVec(dst, x []float64, transpose bool) {
	d := q.D
	dst, x = dst[:d], x[:d]
	q.gatherOnce.Do(func() { q.gather = permIndex(q.Perm, d) })
	if g := q.gather; g != nil {
		idx := g[0]
		if transpose {
			idx = g[1]
		}
		m := d &^ 3
		if m > 0 {
			gatherRows(&dst[0], &x[0], &idx[0], m)
		}
		for i := m; i < d; i++ {
			dst[i] = x[idx[i]]
		}
		return
	}
	if transpose {
		for p, t := range q.Perm { // row p goes to row Perm[p]
			dst[t] = x[p]
		}
		return
	}
	for i, t := range q.Perm { // row i is row Perm[i]
		dst[i] = x[t]
	}
}

// permIndex returns perm (a permutation of 0…d−1) and its inverse as 32-bit indices, or nil when perm is not one.
func permIndex(perm []int, d int) *[2][]int32 {
	if len(perm) != d || d > math.MaxInt32 {
		return nil
	}
	fwd, inv := make([]int32, d), make([]int32, d)
	for i := range inv {
		inv[i] = -1
	}
	for i, t := range perm {
		if t < 0 || t >= d || inv[t] >= 0 {
			return nil
		}
		fwd[i], inv[t] = int32(t), int32(i)
	}
	return &[2][]int32{fwd, inv}
}

// lowVec applies levels 0–3 (those below L) of F (ascending for Fᵀ) to the vector x: nb blocks of 16 values by the
// AVX2 kernel, the rest by levelNarrow. signs (transpose only; nil for none) multiply the values first.
func (q *Butterfly) lowVec(x []float64, nb, L int, sign float64, transpose bool, signs []float64) {
	if nb > 0 {
		if transpose {
			var sp *float64
			if signs != nil {
				sp = &signs[0]
			}
			bflyLowTAVX2(&x[0], &q.Cos[0], &q.Sin[0], sp, nb, sign)
		} else {
			bflyLowAVX2(&x[0], &q.Cos[0], &q.Sin[0], nb, sign)
		}
	}
	if signs != nil {
		MultiplySigns(x[16*nb:], 1, signs[16*nb:])
	}
	low := min(L, 4)
	for k := range low {
		l := k
		if !transpose {
			l = low - 1 - k
		}
		q.levelNarrowFrom(x, 1, l, 16*nb, transpose)
	}
}

// MultiplySigns multiplies coordinate i of the d×B coordinate-major block x by signs[i], which must be ±1 (so the
// products are exact; d = len(signs)): for one vector a plain product per value, for blocks a negation of the rows
// whose sign is negative.
func MultiplySigns(x []float64, B int, signs []float64) {
	if B == 1 { // without branches, which a random sign mispredicts half the time; s = ±1, so x·s = ±x exactly
		x = x[:len(signs)]
		for i, s := range signs {
			x[i] *= s
		}
		return
	}
	for i, s := range signs {
		if s < 0 {
			xi := x[i*B : (i+1)*B]
			for b := range xi {
				xi[b] = -xi[b]
			}
		}
	}
}

// levelVec applies level l ≥ 4 to the vector x: the whole blocks of 2h values by the AVX2 kernel, a ragged last
// block by rot2.
func (q *Butterfly) levelVec(x []float64, l int, sign float64) {
	d, h := q.D, 1<<l
	nb := d / (2 * h)
	if nb > 0 {
		bflyLevelAVX2(&x[0], &q.Cos[0], &q.Sin[0], h, nb, sign)
	}
	if base := 2 * h * nb; base+h < d {
		k := base + h - 1
		rot2(x[base:d-h], x[base+h:d], q.Cos[k], sign*q.Sin[k])
	}
}

// levelNarrow applies F_l (or F_lᵀ) in place to the d×B block x: the pairs (j, j+h) of a block of rows are two
// contiguous runs of values, rotated by the kernel of the wide path (rot2) or, when shorter than its vectors,
// element by element.
func (q *Butterfly) levelNarrow(x []float64, B, l int, transpose bool) {
	q.levelNarrowFrom(x, B, l, 0, transpose)
}

// levelNarrowFrom is levelNarrow on the blocks of the level from row from on (a multiple of 2h).
func (q *Butterfly) levelNarrowFrom(x []float64, B, l, from int, transpose bool) {
	d, h := q.D, 1<<l
	sign := 1.0
	if transpose {
		sign = -1
	}
	if B == 1 && h == 1 { // pairs (j, j+1) with angle j: no runs to cut
		x = x[:d]
		cs, sn := q.Cos[:d-1], q.Sin[:d-1]
		for j := from; j+1 < d; j += 2 {
			c, s := cs[j], sign*sn[j]
			a, e := x[j], x[j+1]
			x[j] = float64(c*a) - float64(s*e)
			x[j+1] = float64(s*a) + float64(c*e)
		}
		return
	}
	for base := from; base+h < d; base += 2 * h {
		c, s := q.Cos[base+h-1], sign*q.Sin[base+h-1]
		hi := min(base+2*h, d)
		u, v := x[base*B:(hi-h)*B], x[(base+h)*B:hi*B]
		if len(u) >= 4 {
			rot2(u, v, c, s)
			continue
		}
		for j, a := range u {
			e := v[j]
			u[j] = float64(c*a) - float64(s*e)
			v[j] = float64(s*a) + float64(c*e)
		}
	}
}

// Dense returns Q as a d×d row-major matrix.
func (q *Butterfly) Dense() []float64 {
	d := q.D
	m := make([]float64, d*d)
	for i := 0; i < d; i++ {
		m[i*d+i] = 1
	}
	// Column b of the block is e_b, so after Apply m[i*d+b] = (Q e_b)_i.
	q.Apply(m, d, make([]float64, d*d))
	return m
}

func row(x []float64, i, B int) []float64 { return x[i*B : i*B+B : i*B+B] }

// rows returns the k contiguous rows i..i+k-1 of the block x.
func rows(x []float64, i, k, B int) []float64 { return x[i*B : (i+k)*B : (i+k)*B] }

func idx(p []int, i int) int {
	if p == nil {
		return i
	}
	return p[i]
}

// fwdPair applies F_{lo+1} then F_lo (i.e. dst = F_lo F_{lo+1} G src, G the
// gather by g, nil = identity). dst may equal src when g is nil.
func (q *Butterfly) fwdPair(dst, src []float64, B, lo int, g []int) {
	d := q.D
	h := 1 << lo
	inPlace := &dst[0] == &src[0]
	for base := 0; base < d; base += 4 * h {
		ih := base + 2*h - 1
		i0 := base + h - 1
		i1 := base + 3*h - 1
		cH, sH := q.Cos[ih], q.Sin[ih]
		c0, s0 := q.Cos[i0], q.Sin[i0]
		c1, s1 := q.Cos[i1], q.Sin[i1]
		if base+4*h <= d {
			if g == nil {
				// Rows j, j+h, j+2h, j+3h for j in [base, base+h) are four
				// contiguous runs of h·B values: one kernel call.
				rot4HiLo(rows(dst, base, h, B), rows(dst, base+h, h, B), rows(dst, base+2*h, h, B), rows(dst, base+3*h, h, B),
					rows(src, base, h, B), rows(src, base+h, h, B), rows(src, base+2*h, h, B), rows(src, base+3*h, h, B),
					cH, sH, c0, s0, c1, s1)
				continue
			}
			for j := base; j < base+h; j++ {
				rot4HiLo(row(dst, j, B), row(dst, j+h, B), row(dst, j+2*h, B), row(dst, j+3*h, B),
					row(src, idx(g, j), B), row(src, idx(g, j+h), B), row(src, idx(g, j+2*h), B), row(src, idx(g, j+3*h), B),
					cH, sH, c0, s0, c1, s1)
			}
			continue
		}
		// Ragged last block: d ends inside it.
		for j := base; j < base+h && j < d; j++ {
			if !inPlace {
				for t := 0; t < 4; t++ {
					if p := j + t*h; p < d {
						copy(row(dst, p, B), row(src, idx(g, p), B))
					}
				}
			}
			if j+2*h < d {
				rot2(row(dst, j, B), row(dst, j+2*h, B), cH, sH)
			}
			if j+3*h < d {
				rot2(row(dst, j+h, B), row(dst, j+3*h, B), cH, sH)
			}
			if j+h < d {
				rot2(row(dst, j, B), row(dst, j+h, B), c0, s0)
			}
			if j+3*h < d {
				rot2(row(dst, j+2*h, B), row(dst, j+3*h, B), c1, s1)
			}
		}
	}
}

// fwdSingle applies F_l to the gathered src.
func (q *Butterfly) fwdSingle(dst, src []float64, B, l int, g []int) {
	d := q.D
	h := 1 << l
	inPlace := &dst[0] == &src[0]
	for base := 0; base < d; base += 2 * h {
		c, s := q.Cos[base+h-1], q.Sin[base+h-1]
		for j := base; j < base+h && j < d; j++ {
			if j+h < d {
				rot2to(row(dst, j, B), row(dst, j+h, B), row(src, idx(g, j), B), row(src, idx(g, j+h), B), c, s)
			} else if !inPlace {
				copy(row(dst, j, B), row(src, idx(g, j), B))
			}
		}
	}
}

// tPair applies F_loᵀ then F_{lo+1}ᵀ and scatters: row p of the result goes
// to dst row sc[p] (nil = identity). dst may equal src when sc is nil.
func (q *Butterfly) tPair(dst, src []float64, B, lo int, sc []int) {
	d := q.D
	h := 1 << lo
	inPlace := &dst[0] == &src[0]
	for base := 0; base < d; base += 4 * h {
		ih := base + 2*h - 1
		i0 := base + h - 1
		i1 := base + 3*h - 1
		cH, sH := q.Cos[ih], -q.Sin[ih]
		c0, s0 := q.Cos[i0], -q.Sin[i0]
		c1, s1 := q.Cos[i1], -q.Sin[i1]
		if base+4*h <= d {
			if sc == nil {
				rot4LoHi(rows(dst, base, h, B), rows(dst, base+h, h, B), rows(dst, base+2*h, h, B), rows(dst, base+3*h, h, B),
					rows(src, base, h, B), rows(src, base+h, h, B), rows(src, base+2*h, h, B), rows(src, base+3*h, h, B),
					cH, sH, c0, s0, c1, s1)
				continue
			}
			for j := base; j < base+h; j++ {
				rot4LoHi(row(dst, idx(sc, j), B), row(dst, idx(sc, j+h), B), row(dst, idx(sc, j+2*h), B), row(dst, idx(sc, j+3*h), B),
					row(src, j, B), row(src, j+h, B), row(src, j+2*h, B), row(src, j+3*h, B),
					cH, sH, c0, s0, c1, s1)
			}
			continue
		}
		for j := base; j < base+h && j < d; j++ {
			if !inPlace {
				for t := 0; t < 4; t++ {
					if p := j + t*h; p < d {
						copy(row(dst, idx(sc, p), B), row(src, p, B))
					}
				}
			}
			if j+h < d {
				rot2(row(dst, idx(sc, j), B), row(dst, idx(sc, j+h), B), c0, s0)
			}
			if j+3*h < d {
				rot2(row(dst, idx(sc, j+2*h), B), row(dst, idx(sc, j+3*h), B), c1, s1)
			}
			if j+2*h < d {
				rot2(row(dst, idx(sc, j), B), row(dst, idx(sc, j+2*h), B), cH, sH)
			}
			if j+3*h < d {
				rot2(row(dst, idx(sc, j+h), B), row(dst, idx(sc, j+3*h), B), cH, sH)
			}
		}
	}
}

// tSingle applies F_lᵀ and scatters by sc.
func (q *Butterfly) tSingle(dst, src []float64, B, l int, sc []int) {
	d := q.D
	h := 1 << l
	inPlace := &dst[0] == &src[0]
	for base := 0; base < d; base += 2 * h {
		c, s := q.Cos[base+h-1], -q.Sin[base+h-1]
		for j := base; j < base+h && j < d; j++ {
			if j+h < d {
				rot2to(row(dst, idx(sc, j), B), row(dst, idx(sc, j+h), B), row(src, j, B), row(src, j+h, B), c, s)
			} else if !inPlace {
				copy(row(dst, idx(sc, j), B), row(src, j, B))
			}
		}
	}
}

// The rotation kernels below are the portable references of the SIMD
// kernels in simd_*.s. Each product is rounded before the sum (the float64
// conversions forbid fusing them into an FMA, which Go does on arm64 and on
// amd64 with GOAMD64=v3), so every path and every architecture gives the
// same bits.

// rot2Generic applies [[c, -s], [s, c]] to the row pair (x1, x2) in place.
func rot2Generic(x1, x2 []float64, c, s float64) {
	rot2toGeneric(x1, x2, x1, x2, c, s)
}

// rot2toGeneric writes [[c, -s], [s, c]]·(x1, x2) to (y1, y2); y may alias x.
func rot2toGeneric(y1, y2, x1, x2 []float64, c, s float64) {
	n := len(y1)
	y2, x1, x2 = y2[:n], x1[:n], x2[:n]
	for i := range y1 {
		a, b := x1[i], x2[i]
		y1[i] = float64(c*a) - float64(s*b)
		y2[i] = float64(s*a) + float64(c*b)
	}
}

// rot4HiLoGeneric applies, to the rows (x0, x1, x2, x3) = rows (j, j+h,
// j+2h, j+3h), the level with half 2h (pairs (0,2), (1,3), angle H) and then
// the level with half h (pairs (0,1) with angle 0 and (2,3) with angle 1),
// writing to y (which may alias x).
func rot4HiLoGeneric(y0, y1, y2, y3, x0, x1, x2, x3 []float64, cH, sH, c0, s0, c1, s1 float64) {
	n := len(y0)
	y1, y2, y3 = y1[:n], y2[:n], y3[:n]
	x0, x1, x2, x3 = x0[:n], x1[:n], x2[:n], x3[:n]
	for i := range y0 {
		a, b, c, e := x0[i], x1[i], x2[i], x3[i]
		a2 := float64(cH*a) - float64(sH*c)
		c2 := float64(sH*a) + float64(cH*c)
		b2 := float64(cH*b) - float64(sH*e)
		e2 := float64(sH*b) + float64(cH*e)
		y0[i] = float64(c0*a2) - float64(s0*b2)
		y1[i] = float64(s0*a2) + float64(c0*b2)
		y2[i] = float64(c1*c2) - float64(s1*e2)
		y3[i] = float64(s1*c2) + float64(c1*e2)
	}
}

// rot4LoHiGeneric is the mirror of rot4HiLoGeneric: the half-h level first,
// then the half-2h level.
func rot4LoHiGeneric(y0, y1, y2, y3, x0, x1, x2, x3 []float64, cH, sH, c0, s0, c1, s1 float64) {
	n := len(y0)
	y1, y2, y3 = y1[:n], y2[:n], y3[:n]
	x0, x1, x2, x3 = x0[:n], x1[:n], x2[:n], x3[:n]
	for i := range y0 {
		a, b, c, e := x0[i], x1[i], x2[i], x3[i]
		a2 := float64(c0*a) - float64(s0*b)
		b2 := float64(s0*a) + float64(c0*b)
		c2 := float64(c1*c) - float64(s1*e)
		e2 := float64(s1*c) + float64(c1*e)
		y0[i] = float64(cH*a2) - float64(sH*c2)
		y2[i] = float64(sH*a2) + float64(cH*c2)
		y1[i] = float64(cH*b2) - float64(sH*e2)
		y3[i] = float64(sH*b2) + float64(cH*e2)
	}
}
