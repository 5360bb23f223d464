package structured

import (
	"math"
	"strconv"
)

// NextPow2 returns the smallest power of two >= n (n >= 1). It returns 1 for
// n <= 1, and panics for n > 2^62, whose power of two is not an int (the
// loop would otherwise double p past the range forever).
func NextPow2(n int) int {
	if n > 1<<62 {
		panic("structured.NextPow2: no int power of two is ≥ " + strconv.Itoa(n))
	}
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
// pass. When the block is larger than the L1 cache, the early stages (those
// whose butterflies stay within fwhtChunk bytes of rows) are run chunk by
// chunk. The butterflies run on SIMD kernels where the CPU has them (see
// simd.go). None of this changes the arithmetic: every output is the same
// sequence of additions, subtractions and the final scaling, so every path
// gives the same bits.
func FWHT(x []float64, n, B int) {
	FWHTSigned(x, n, B, nil)
}

// FWHTSigned computes x ← H·diag(signs)·x: coordinate i of every vector is multiplied by signs[i], which must be ±1
// (so exactly; length n), and then FWHT is applied; nil signs is FWHT. For one vector on the AVX2 path the products
// are part of the first pass over the values.
func FWHTSigned(x []float64, n, B int, signs []float64) {
	if n&(n-1) != 0 || n <= 0 {
		panic("structured: FWHT size is not a power of two")
	}
	if B <= 0 {
		return
	}
	x = x[:n*B]
	L := log2(n)
	scale := 1 / math.Sqrt(float64(n))
	if B == 1 && useAVX2 && n >= 16 {
		fwhtVec(x, n, scale, signs)
		return
	}
	if signs != nil {
		MultiplySigns(x, B, signs[:n])
	}
	if n == 1 {
		return
	}
	c := n // rows per chunk: a power of two
	for c > 4 && c*B*8 > fwhtChunk {
		c /= 2
	}
	if c == n {
		fwhtStages(x, n, B, L, n, scale)
		return
	}
	// Stages whose butterfly blocks fit in c rows, chunk by chunk, then the
	// rest over the whole block.
	for r0 := 0; r0 < n; r0 += c {
		fwhtStages(x[r0*B:(r0+c)*B], c, B, L, c, scale)
	}
	fwhtStagesFrom(x, n, B, L, c, scale)
}

// fwhtChunk is the size in bytes of the row chunks of the early FWHT stages
// (the L1 data cache of current x86 cores is 32–48 KiB).
const fwhtChunk = 16 << 10

// fwhtStages runs, on the rows×B block x (rows a power of two), the stages of
// the size-2^L transform whose butterfly block (2h for the radix-2 stage, 4h
// for a radix-4 stage) is at most maxBlock rows.
func fwhtStages(x []float64, rows, B, L, maxBlock int, scale float64) {
	fwhtRun(x, rows, B, L, 0, maxBlock, scale)
}

// fwhtStagesFrom runs the stages of the size-2^L transform whose butterfly
// block is larger than minBlock rows on the rows×B block x.
func fwhtStagesFrom(x []float64, rows, B, L, minBlock int, scale float64) {
	fwhtRun(x, rows, B, L, minBlock, rows, scale)
}

// fwhtRun runs the stages with minBlock < block ≤ maxBlock. The stage
// sequence of a size-n = 2^L transform is a radix-2 stage (h = 1) when L is
// odd, then radix-4 stages h, 4h, 16h, … up to 4h = n; the last one is
// scaled by 1/√n.
func fwhtRun(x []float64, rows, B, L, minBlock, maxBlock int, scale float64) {
	n := 1 << L
	h := 1
	if L%2 == 1 {
		if 2 > minBlock && 2 <= maxBlock {
			last := L == 1
			for base := 0; base < rows; base += 2 {
				r0 := x[base*B : base*B+B]
				r1 := x[(base+1)*B : (base+1)*B+B]
				if last {
					hadamard2Scaled(r0, r1, scale)
				} else {
					hadamard2(r0, r1)
				}
			}
		}
		h = 2
	}
	for ; h < n; h *= 4 {
		if 4*h <= minBlock {
			continue
		}
		if 4*h > maxBlock {
			break
		}
		last := 4*h == n
		// For a given base, the rows j, j+h, j+2h, j+3h for j in [base,
		// base+h) form four contiguous runs of h·B values: one kernel call.
		hb := h * B
		for base := 0; base < rows; base += 4 * h {
			o := base * B
			r0 := x[o : o+hb]
			r1 := x[o+hb : o+2*hb]
			r2 := x[o+2*hb : o+3*hb]
			r3 := x[o+3*hb : o+4*hb]
			if last {
				hadamard4Scaled(r0, r1, r2, r3, scale)
			} else {
				hadamard4(r0, r1, r2, r3)
			}
		}
	}
}

// fwhtVec is FWHT for one vector of n ≥ 16 values on the AVX2 path: the stages of halves 1–8 in registers, 16
// values at a time (fwhtLowAVX2), then the others two at a time over runs of at least 16 values, the last one scaled.
// Every value is the same sums, differences and final scaling as in fwhtRun, so the bits are its bits; the radix-4
// passes of fwhtRun would hand their kernels runs of one or two values here.
//
// signs (nil or ±1 per coordinate) multiply the vector first, in the kernel's pass.
func fwhtVec(x []float64, n int, scale float64, signs []float64) {
	var sp *float64
	if signs != nil {
		sp = &signs[:n][0]
	}
	if n == 16 {
		fwhtLowAVX2(&x[0], sp, 1, scale)
		return
	}
	fwhtLowAVX2(&x[0], sp, n/16, 1)
	for h := 16; h < n; {
		if 4*h <= n {
			last := 4*h == n
			for base := 0; base < n; base += 4 * h {
				r0, r1, r2, r3 := x[base:base+h], x[base+h:base+2*h], x[base+2*h:base+3*h], x[base+3*h:base+4*h]
				if last {
					hadamard4Scaled(r0, r1, r2, r3, scale)
				} else {
					hadamard4(r0, r1, r2, r3)
				}
			}
			h *= 4
			continue
		}
		for base := 0; base < n; base += 2 * h { // 2h = n: the last stage
			hadamard2Scaled(x[base:base+h], x[base+h:base+2*h], scale)
		}
		h *= 2
	}
}

func hadamard2Generic(r0, r1 []float64) {
	r1 = r1[:len(r0)]
	for i := range r0 {
		a, b := r0[i], r1[i]
		r0[i] = a + b
		r1[i] = a - b
	}
}

func hadamard2ScaledGeneric(r0, r1 []float64, s float64) {
	r1 = r1[:len(r0)]
	for i := range r0 {
		a, b := r0[i], r1[i]
		r0[i] = (a + b) * s
		r1[i] = (a - b) * s
	}
}

// hadamard4Generic applies two consecutive butterfly stages (strides h then
// 2h) to the rows r0..r3 = rows j, j+h, j+2h, j+3h.
func hadamard4Generic(r0, r1, r2, r3 []float64) {
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

func hadamard4ScaledGeneric(r0, r1, r2, r3 []float64, s float64) {
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
