package structured

import "math"

// NextPow2 returns the smallest power of two >= n (n >= 1). It returns 1 for
// n <= 1.
func NextPow2(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}

// log2 returns log2(n) for a power of two n.
func log2(n int) int {
	l := 0
	for (1 << l) < n {
		l++
	}
	return l
}

// FWHT applies the normalized Walsh–Hadamard transform H,
// H_ij = (-1)^popcount(i&j) / sqrt(n), in place to each of the B vectors of
// the n×B coordinate-major block x (x[i*B+b] = coordinate i of vector b).
// n must be a power of two. H is symmetric and orthogonal, so FWHT is its own
// inverse. Cost O(n log n · B); stages are fused two at a time (radix 4) to
// halve the memory traffic and the 1/sqrt(n) scaling is folded into the last
// pass.
func FWHT(x []float64, n, B int) {
	if n&(n-1) != 0 || n <= 0 {
		panic("structured: FWHT size is not a power of two")
	}
	if B <= 0 || n == 1 {
		return
	}
	x = x[:n*B]
	L := log2(n)
	scale := 1 / math.Sqrt(float64(n))
	h := 1
	if L%2 == 1 {
		// One radix-2 stage first so the rest pairs up.
		last := L == 1
		for base := 0; base < n; base += 2 {
			r0 := x[base*B : base*B+B]
			r1 := x[(base+1)*B : (base+1)*B+B]
			if last {
				hadamard2Scaled(r0, r1, scale)
			} else {
				hadamard2(r0, r1)
			}
		}
		h = 2
	}
	for ; h < n; h *= 4 {
		last := 4*h == n
		for base := 0; base < n; base += 4 * h {
			for j := base; j < base+h; j++ {
				r0 := x[j*B : j*B+B]
				r1 := x[(j+h)*B : (j+h)*B+B]
				r2 := x[(j+2*h)*B : (j+2*h)*B+B]
				r3 := x[(j+3*h)*B : (j+3*h)*B+B]
				if last {
					hadamard4Scaled(r0, r1, r2, r3, scale)
				} else {
					hadamard4(r0, r1, r2, r3)
				}
			}
		}
	}
}

func hadamard2(r0, r1 []float64) {
	r1 = r1[:len(r0)]
	for i := range r0 {
		a, b := r0[i], r1[i]
		r0[i] = a + b
		r1[i] = a - b
	}
}

func hadamard2Scaled(r0, r1 []float64, s float64) {
	r1 = r1[:len(r0)]
	for i := range r0 {
		a, b := r0[i], r1[i]
		r0[i] = (a + b) * s
		r1[i] = (a - b) * s
	}
}

// hadamard4 applies two consecutive butterfly stages (strides h then 2h) to
// the rows r0..r3 = rows j, j+h, j+2h, j+3h.
func hadamard4(r0, r1, r2, r3 []float64) {
	n := len(r0)
	r1, r2, r3 = r1[:n], r2[:n], r3[:n]
	for i := range r0 {
		a, b, c, d := r0[i], r1[i], r2[i], r3[i]
		s0, d0 := a+b, a-b
		s1, d1 := c+d, c-d
		r0[i] = s0 + s1
		r1[i] = d0 + d1
		r2[i] = s0 - s1
		r3[i] = d0 - d1
	}
}

func hadamard4Scaled(r0, r1, r2, r3 []float64, s float64) {
	n := len(r0)
	r1, r2, r3 = r1[:n], r2[:n], r3[:n]
	for i := range r0 {
		a, b, c, d := r0[i], r1[i], r2[i], r3[i]
		s0, d0 := a+b, a-b
		s1, d1 := c+d, c-d
		r0[i] = (s0 + s1) * s
		r1[i] = (d0 + d1) * s
		r2[i] = (s0 - s1) * s
		r3[i] = (d0 - d1) * s
	}
}
