package structured

import (
	"math"
	"sync"
	"testing"
)

// butterflyDims are the dimensions of the butterfly tests: every d = 1..70
// (all residues of d against the powers of two up to 128, including the
// ragged last blocks) and a few larger ones.
func butterflyDims() []int {
	var ds []int
	for d := 1; d <= 70; d++ {
		ds = append(ds, d)
	}
	return append(ds, 128, 256, 512, 784, 1024)
}

// refApplyVec applies Q to one vector straight from the definition: for each
// of the Reps factors, permute ((P v)_i = v[Perm[i]]), then apply F_{L-1},
// ..., F_0, one rotation pair (p, p+h), p+h < d, at a time.
func refApplyVec(q *Butterfly, v []float64) []float64 {
	d := q.D
	v = append([]float64(nil), v...)
	w := make([]float64, d)
	for r := 0; r < q.Reps; r++ {
		for i := range w {
			w[i] = v[q.Perm[i]]
		}
		copy(v, w)
		for h := q.N / 2; h >= 1; h /= 2 {
			m := 2 * h
			for k := 0; k*m < q.N; k++ {
				c, s := q.Cos[m*k+h-1], q.Sin[m*k+h-1]
				for j := 0; j < h; j++ {
					p := m*k + j
					if p+h < d {
						a, b := v[p], v[p+h]
						v[p], v[p+h] = c*a-s*b, s*a+c*b
					}
				}
			}
		}
	}
	return v
}

// refDense builds Q = (F·P)^Reps from explicit d×d factor matrices.
func refDense(q *Butterfly) []float64 {
	d := q.D
	eye := func() []float64 {
		m := make([]float64, d*d)
		for i := 0; i < d; i++ {
			m[i*d+i] = 1
		}
		return m
	}
	F := eye()
	for h := 1; h < q.N; h *= 2 { // F = F_0 F_1 ... F_{L-1}
		m := 2 * h
		Fl := eye()
		for k := 0; k*m < q.N; k++ {
			c, s := q.Cos[m*k+h-1], q.Sin[m*k+h-1]
			for j := 0; j < h; j++ {
				p, r := m*k+j, m*k+j+h
				if r < d {
					Fl[p*d+p], Fl[p*d+r], Fl[r*d+p], Fl[r*d+r] = c, -s, s, c
				}
			}
		}
		F = matMul(F, Fl, d, d, d)
	}
	P := make([]float64, d*d)
	for i, pi := range q.Perm {
		P[i*d+pi] = 1
	}
	FP := matMul(F, P, d, d, d)
	Q := eye()
	for r := 0; r < q.Reps; r++ {
		Q = matMul(Q, FP, d, d, d)
	}
	return Q
}

// TestButterflyPaperExample checks the factor order and the angle indexing
// against the d = 4 example of Munkhoeva et al. (2018), §2.4 (one F, no
// permutation): B = [[c1 c2, -s1 c2, -c1 s2, s1 s2], ...] with angles
// θ1, θ2, θ3 = entries 0, 1, 2.
func TestButterflyPaperExample(t *testing.T) {
	q := NewButterfly(4, newRNG(3))
	q.Reps = 1
	q.Perm = []int{0, 1, 2, 3}
	c1, c2, c3 := q.Cos[0], q.Cos[1], q.Cos[2]
	s1, s2, s3 := q.Sin[0], q.Sin[1], q.Sin[2]
	want := []float64{
		c1 * c2, -s1 * c2, -c1 * s2, s1 * s2,
		s1 * c2, c1 * c2, -s1 * s2, -c1 * s2,
		c3 * s2, -s3 * s2, c3 * c2, -s3 * c2,
		s3 * s2, c3 * s2, s3 * c2, c3 * c2,
	}
	if e := maxAbsDiff(q.Dense(), want); e > 1e-15 {
		t.Errorf("d=4 butterfly differs from the paper's B^(4) by %g", e)
	}
}

func TestNewButterfly(t *testing.T) {
	rng := newRNG(4)
	for _, d := range []int{1, 2, 3, 5, 8, 100} {
		q := NewButterfly(d, rng)
		if q.D != d || q.N != NextPow2(d) || len(q.Cos) != q.N-1 || len(q.Sin) != q.N-1 || q.Reps != DefaultButterflyReps {
			t.Fatalf("d=%d: bad shape %+v", d, q)
		}
		for i := range q.Cos {
			if r := math.Hypot(q.Cos[i], q.Sin[i]); math.Abs(r-1) > 1e-15 {
				t.Errorf("d=%d: angle %d has cos²+sin² = %g", d, i, r*r)
			}
		}
		seen := make([]bool, d)
		for _, p := range q.Perm {
			if p < 0 || p >= d || seen[p] {
				t.Fatalf("d=%d: Perm %v is not a permutation", d, q.Perm)
			}
			seen[p] = true
		}
	}
}

func TestButterflyOrthogonal(t *testing.T) {
	rng := newRNG(5)
	for _, d := range butterflyDims() {
		q := NewButterfly(d, rng)
		Q := q.Dense()
		// Each entry of QᵀQ is a length-d dot product of O(1/sqrt(d))
		// entries obtained through 3·log2(d) rotations: error O(ε·log d).
		if e := orthoErr(Q, d); e > 1e-12 {
			t.Errorf("d=%d: max|QᵀQ - I| = %g", d, e)
		}
		if e := orthoErr(transpose(Q, d, d), d); e > 1e-12 {
			t.Errorf("d=%d: max|QQᵀ - I| = %g", d, e)
		}
		if d <= 70 {
			if e := maxAbsDiff(Q, refDense(q)); e > 1e-13 {
				t.Errorf("d=%d: Dense differs from the product of explicit factors by %g", d, e)
			}
		}
	}
}

func TestButterflyApply(t *testing.T) {
	rng := newRNG(6)
	for _, d := range butterflyDims() {
		for _, reps := range []int{1, 2, 3} {
			q := NewButterfly(d, rng)
			q.Reps = reps
			Q := q.Dense()
			QT := transpose(Q, d, d)
			for _, B := range []int{1, 7} {
				x := randBlock(d, B, rng)
				scratch := make([]float64, d*B)

				y := append([]float64(nil), x...)
				q.Apply(y, B, scratch)
				if e := maxAbsDiff(y, denseMul(Q, d, d, x, B)); e > 1e-12 {
					t.Errorf("d=%d reps=%d B=%d: Apply differs from Dense()·x by %g", d, reps, B, e)
				}
				// Independent reference, one vector at a time.
				for b := 0; b < B; b++ {
					v := make([]float64, d)
					for i := range v {
						v[i] = x[i*B+b]
					}
					ref := refApplyVec(q, v)
					for i := range v {
						if e := math.Abs(ref[i] - y[i*B+b]); e > 1e-12 {
							t.Fatalf("d=%d reps=%d B=%d: Apply differs from the reference at (%d,%d) by %g", d, reps, B, i, b, e)
						}
					}
				}

				z := append([]float64(nil), x...)
				q.ApplyT(z, B, scratch)
				if e := maxAbsDiff(z, denseMul(QT, d, d, x, B)); e > 1e-12 {
					t.Errorf("d=%d reps=%d B=%d: ApplyT differs from Denseᵀ·x by %g", d, reps, B, e)
				}
				q.Apply(z, B, scratch)
				if e := maxAbsDiff(z, x); e > 1e-12 {
					t.Errorf("d=%d reps=%d B=%d: Q Qᵀ x differs from x by %g", d, reps, B, e)
				}
			}
		}
	}
}

// TestButterflyConcurrent applies one Butterfly from many goroutines (run
// with -race) and checks every result.
func TestButterflyConcurrent(t *testing.T) {
	const d = 100
	for _, B := range []int{5, 1} { // one vector: the first calls also build the gather indices, once
		rng := newRNG(7)
		q := NewButterfly(d, rng)
		x := randBlock(d, B, rng)
		want := append([]float64(nil), x...)
		q.Apply(want, B, make([]float64, d*B))
		q = NewButterfly(d, newRNG(7))
		var wg sync.WaitGroup
		errs := make([]float64, 8)
		for g := range errs {
			wg.Go(func() {
				y := append([]float64(nil), x...)
				s := make([]float64, d*B)
				for range 20 {
					copy(y, x)
					q.Apply(y, B, s)
					errs[g] = math.Max(errs[g], maxAbsDiff(y, want))
				}
			})
		}
		wg.Wait()
		for g, e := range errs {
			if e != 0 {
				t.Errorf("B=%d goroutine %d: result differs by %g", B, g, e)
			}
		}
	}
}

// TestPermIndex: the 32-bit gather indices are the permutation and its inverse, and anything that is not a
// permutation of 0…d−1 gets none (the butterfly then keeps the bounds-checked loop).
func TestPermIndex(t *testing.T) {
	rng := newRNG(9)
	for _, d := range []int{1, 2, 7, 100} {
		perm := rng.Perm(d)
		g := permIndex(perm, d)
		if g == nil {
			t.Fatalf("d=%d: no indices for a permutation", d)
		}
		for i, p := range perm {
			if int(g[0][i]) != p || int(g[1][p]) != i {
				t.Fatalf("d=%d: indices %v %v for the permutation %v", d, g[0], g[1], perm)
			}
		}
	}
	for _, c := range []struct {
		perm []int
		d    int
	}{{[]int{0, 0}, 2}, {[]int{0, 2}, 2}, {[]int{-1, 0}, 2}, {[]int{0, 1}, 3}, {[]int{1, 0, 2}, 2}} {
		if g := permIndex(c.perm, c.d); g != nil {
			t.Errorf("%v for d=%d: indices %v, want none", c.perm, c.d, g)
		}
	}
	// A butterfly whose permutation is damaged still applies it, by the checked loop.
	q := NewButterfly(20, rng)
	q.Reps = 1
	q.Perm[3] = q.Perm[4]
	x := randBlock(20, 1, rng)
	want := refApplyVec(q, x)
	q.Apply(x, 1, make([]float64, 20))
	if e := maxAbsDiff(x, want); e > 1e-12 {
		t.Errorf("damaged permutation: Apply differs from the definition by %g", e)
	}
}

// rotationElements counts the 2×2 rotations applied per vector by Q.Apply.
func rotationElements(q *Butterfly) int {
	n := 0
	for h := 1; h < q.N; h *= 2 {
		for p := 0; p < q.D; p++ {
			if p&h == 0 && p+h < q.D {
				n++
			}
		}
	}
	return n * q.Reps
}

func BenchmarkButterflyApply(b *testing.B) {
	const d, B = 784, 64
	rng := newRNG(8)
	q := NewButterfly(d, rng)
	x := randBlock(d, B, rng)
	s := make([]float64, d*B)
	for b.Loop() {
		q.Apply(x, B, s)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rotationElements(q)*B), "ns/rotation")
}

func BenchmarkButterflyApplyT(b *testing.B) {
	const d, B = 784, 64
	rng := newRNG(8)
	q := NewButterfly(d, rng)
	x := randBlock(d, B, rng)
	s := make([]float64, d*B)
	for b.Loop() {
		q.ApplyT(x, B, s)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rotationElements(q)*B), "ns/rotation")
}
