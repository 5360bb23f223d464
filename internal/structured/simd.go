package structured

// Dispatch of the elementwise kernels of FWHT and Butterfly. Each kernel runs
// its SIMD version (simd_amd64.s, when useAVX2 is set at start-up) on the
// longest prefix whose length is a multiple of 4 and its portable version
// (the *Generic functions, also the references of the tests) on the rest.
// Both perform the same IEEE-754 operations in the same order with one
// rounding each, so the result does not depend on the path taken.

func hadamard2(r0, r1 []float64) {
	n := len(r0)
	r1 = r1[:n]
	m := 0
	if useAVX2 && n >= 4 {
		m = n &^ 3
		hadamard2AVX2(&r0[0], &r1[0], m)
	}
	if m < n {
		hadamard2Generic(r0[m:], r1[m:])
	}
}

func hadamard2Scaled(r0, r1 []float64, s float64) {
	n := len(r0)
	r1 = r1[:n]
	m := 0
	if useAVX2 && n >= 4 {
		m = n &^ 3
		hadamard2ScaledAVX2(&r0[0], &r1[0], m, s)
	}
	if m < n {
		hadamard2ScaledGeneric(r0[m:], r1[m:], s)
	}
}

func hadamard4(r0, r1, r2, r3 []float64) {
	n := len(r0)
	r1, r2, r3 = r1[:n], r2[:n], r3[:n]
	m := 0
	if useAVX2 && n >= 4 {
		m = n &^ 3
		hadamard4AVX2(&r0[0], &r1[0], &r2[0], &r3[0], m)
	}
	if m < n {
		hadamard4Generic(r0[m:], r1[m:], r2[m:], r3[m:])
	}
}

func hadamard4Scaled(r0, r1, r2, r3 []float64, s float64) {
	n := len(r0)
	r1, r2, r3 = r1[:n], r2[:n], r3[:n]
	m := 0
	if useAVX2 && n >= 4 {
		m = n &^ 3
		hadamard4ScaledAVX2(&r0[0], &r1[0], &r2[0], &r3[0], m, s)
	}
	if m < n {
		hadamard4ScaledGeneric(r0[m:], r1[m:], r2[m:], r3[m:], s)
	}
}

// rot2 applies [[c, -s], [s, c]] to the row pair (x1, x2) in place.
func rot2(x1, x2 []float64, c, s float64) { rot2to(x1, x2, x1, x2, c, s) }

// rot2to writes [[c, -s], [s, c]]·(x1, x2) to (y1, y2); y may alias x.
func rot2to(y1, y2, x1, x2 []float64, c, s float64) {
	n := len(y1)
	y2, x1, x2 = y2[:n], x1[:n], x2[:n]
	m := 0
	if useAVX2 && n >= 4 {
		m = n &^ 3
		rot2toAVX2(&y1[0], &y2[0], &x1[0], &x2[0], m, c, s)
	}
	if m < n {
		rot2toGeneric(y1[m:], y2[m:], x1[m:], x2[m:], c, s)
	}
}

// rot4HiLo: see rot4HiLoGeneric.
func rot4HiLo(y0, y1, y2, y3, x0, x1, x2, x3 []float64, cH, sH, c0, s0, c1, s1 float64) {
	n := len(y0)
	y1, y2, y3 = y1[:n], y2[:n], y3[:n]
	x0, x1, x2, x3 = x0[:n], x1[:n], x2[:n], x3[:n]
	m := 0
	if useAVX2 && n >= 4 {
		m = n &^ 3
		rot4HiLoAVX2(&y0[0], &y1[0], &y2[0], &y3[0], &x0[0], &x1[0], &x2[0], &x3[0], m, cH, sH, c0, s0, c1, s1)
	}
	if m < n {
		rot4HiLoGeneric(y0[m:], y1[m:], y2[m:], y3[m:], x0[m:], x1[m:], x2[m:], x3[m:], cH, sH, c0, s0, c1, s1)
	}
}

// rot4LoHi: see rot4LoHiGeneric.
func rot4LoHi(y0, y1, y2, y3, x0, x1, x2, x3 []float64, cH, sH, c0, s0, c1, s1 float64) {
	n := len(y0)
	y1, y2, y3 = y1[:n], y2[:n], y3[:n]
	x0, x1, x2, x3 = x0[:n], x1[:n], x2[:n], x3[:n]
	m := 0
	if useAVX2 && n >= 4 {
		m = n &^ 3
		rot4LoHiAVX2(&y0[0], &y1[0], &y2[0], &y3[0], &x0[0], &x1[0], &x2[0], &x3[0], m, cH, sH, c0, s0, c1, s1)
	}
	if m < n {
		rot4LoHiGeneric(y0[m:], y1[m:], y2[m:], y3[m:], x0[m:], x1[m:], x2[m:], x3[m:], cH, sH, c0, s0, c1, s1)
	}
}
