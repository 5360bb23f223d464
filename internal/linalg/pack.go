package linalg

import (
	"sync"

	"github.com/rffkit/rff/internal/linalg/avx2"
	"github.com/rffkit/rff/internal/parallel"
)

// The packed driver: C = alpha·op(A)·op(B) + beta·C on the full matrix or on
// one triangle, in the GotoBLAS/BLIS structure around the AVX2+FMA micro-kernel
// avx2.Kern4x12 (see package avx2 for the references):
//
//	for each block of ≤ packNCMax columns of C (jc):
//	  for each block of ≤ packKC terms of the sum (pc), in order:
//	    pack op(B)[pc-block, jc-block] into panels of kc×12 (shared, ~L3)
//	    in parallel, for each task (≤ packMC rows of C × a column range):
//	      pack alpha·op(A)[task rows, pc-block] into panels of 4×kc (per
//	      worker, L2)
//	      for each 12-column panel (kc×12, L1) and each 4-row panel:
//	        Kern4x12: the 4×12 tile of C += the kc terms, one FMA each
//
// Tiles reaching past the edges of C, or crossing the diagonal of a
// triangular update, are computed on a copy in a 4×12 buffer, and only the
// wanted elements are written back: the rest of C is never touched.
//
// Determinism: every element of C goes through the same operations whatever
// the number of goroutines, the blocking or the task it falls in: after beta,
// C_ij = fma(alpha·op(A)_il, op(B)_lj, C_ij) for l = 0, 1, …, k−1 in order
// (alpha·op(A)_il rounded once, when packing; exact for alpha = 1). The
// partial sums live in registers between blocks of k and in C between calls,
// so the result does not depend on how k is blocked, nor on how a caller
// splits the rows of a Gram matrix over calls with beta = 1: streaming blocks
// of rows gives the bits of one call on all of them.
const (
	packMR = avx2.MR
	packNR = avx2.NR
	packKC = 256 // terms per k block: a 12-column B panel is 24 KiB, in L1
	packMC = 96  // rows per task: its A panels are 192 KiB, in L2
)

// packNCMax is the most columns of a jc block: packed B ≤ 8 MiB. A variable
// so that tests can cover several blocks on small matrices.
var packNCMax = 4096

// packSerialWork is the work (multiply-adds) below which a product runs on the
// calling goroutine: starting goroutines for the two phases of each block
// costs more than it saves (BenchmarkSyrkSmallGo, BenchmarkGemmGo).
const packSerialWork = 96 * 96 * 96

// triangle selects the part of C a packed product updates.
type triangle int

const (
	triFull triangle = iota
	triUpper
	triLower
)

// packBufs are the packing buffers of one call, recycled across calls.
type packBufs struct {
	b []float64   // packed op(B) block
	a [][]float64 // per worker: packed op(A) rows of a task
}

var packPool sync.Pool

// blockSizes splits total into the fewest blocks of at most maxBlock, of
// nearly equal size rounded up to a multiple of unit.
func blockSizes(total, maxBlock, unit int) int {
	nb := (total + maxBlock - 1) / maxBlock
	size := (total + nb - 1) / nb
	return (size + unit - 1) / unit * unit
}

// gemmPacked computes C = alpha·op(A)·op(B) + beta·C, op(A) m×k (A is k×m,
// row-major, when tA; m×k otherwise), op(B) k×n (B n×k when tB), C m×n, on the
// elements tri selects (all, j ≥ i, or j ≤ i; a triangle needs m = n). With
// beta = 0, C is overwritten. Arguments have been checked; m, n, k > 0 and
// alpha ≠ 0; avx2.Available.
func gemmPacked(tri triangle, tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int, workers int) {
	gemmPackedBufs(nil, tri, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, workers)
}

// gemmPackedBufs is gemmPacked with the packing buffers bufs, or buffers from packPool when bufs is nil.
func gemmPackedBufs(bufs *packBufs, tri triangle, tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int, workers int) {
	work := float64(m) * float64(n) * float64(k)
	if tri != triFull {
		work /= 2
	}
	if work < packSerialWork {
		workers = 1
	}
	kc := blockSizes(k, packKC, 1)
	nc := blockSizes(n, packNCMax, packNR)
	mc := packMC
	// Smaller tasks when there are few rows, so that all workers get some.
	if m < 4*workers*mc {
		mc = max(packMR, (m/(4*workers)+packMR-1)/packMR*packMR)
	}
	rowTasks := (m + mc - 1) / mc
	// The column range of a task: the whole jc block, or a share of it for
	// a full product with too few row tasks.
	colSplit := 1
	if tri == triFull && rowTasks < 2*workers {
		colSplit = (2*workers + rowTasks - 1) / rowTasks
	}

	if bufs == nil {
		bufs, _ = packPool.Get().(*packBufs)
		if bufs == nil {
			bufs = new(packBufs)
		}
		defer packPool.Put(bufs)
	}
	ncPad := (min(nc, n) + packNR - 1) / packNR * packNR
	if cap(bufs.b) < kc*ncPad {
		bufs.b = make([]float64, kc*ncPad)
	}
	// Per-worker buffers, allocated by their worker when first needed.
	for len(bufs.a) < workers {
		bufs.a = append(bufs.a, nil)
	}
	for w := range workers {
		if cap(bufs.a[w]) < kc*mc {
			bufs.a[w] = nil
		}
	}

	// The loops' state, shared by two closures made once: closures made in the loops would be allocated per
	// iteration, with the variables they capture.
	var (
		jc, pc, kb, panels, rLo, rHi int
		bp                           []float64
		first                        bool
	)
	packB := func(_, p int) {
		jc, pc, kb := jc, pc, kb
		j0 := jc + p*packNR
		packPanelB(bp[p*kb*packNR:(p+1)*kb*packNR], tB, b, ldb, pc, kb, j0, min(packNR, n-j0))
	}
	runTask := func(w, t int) {
		jc, pc, kb, bp := jc, pc, kb, bp // locals for the loops below
		rt, ct := t/colSplit, t%colSplit
		if tri == triLower {
			rt = rHi - 1 - rt
		} else {
			rt += rLo
		}
		i0 := rt * mc
		i1 := min(i0+mc, m)
		// Columns of the task: panels [p0, p1) of the block.
		p0, p1 := ct*panels/colSplit, (ct+1)*panels/colSplit
		switch tri {
		case triUpper:
			p0 = max(p0, (i0-jc)/packNR) // panels holding some j ≥ i0
		case triLower:
			p1 = min(p1, (i1-1-jc)/packNR+1) // panels holding some j ≤ i1-1
		}
		if p0 >= p1 {
			return
		}
		if first {
			scaleC(tri, beta, c, ldc, i0, i1, jc+p0*packNR, min(jc+p1*packNR, n))
		}
		if bufs.a[w] == nil {
			bufs.a[w] = make([]float64, kc*mc)
		}
		ap := bufs.a[w][:kb*((i1-i0+packMR-1)/packMR*packMR)]
		for q, i := 0, i0; i < i1; q, i = q+1, i+packMR {
			packPanelA(ap[q*kb*packMR:(q+1)*kb*packMR], tA, a, lda, alpha, pc, kb, i, min(packMR, m-i))
		}
		for p := p0; p < p1; p++ {
			j := jc + p*packNR
			bpp := bp[p*kb*packNR : (p+1)*kb*packNR]
			for q, i := 0, i0; i < i1; q, i = q+1, i+packMR {
				tile(tri, kb, ap[q*kb*packMR:(q+1)*kb*packMR], bpp, c, ldc, i, j, min(packMR, m-i), min(packNR, n-j))
			}
		}
	}
	for jc = 0; jc < n; jc += nc {
		jn := min(nc, n-jc)
		panels = (jn + packNR - 1) / packNR
		// Row tasks that meet this column block's part of the triangle, in
		// an order that hands out the longest first.
		rLo, rHi = 0, rowTasks
		switch tri {
		case triUpper:
			rHi = (min(jc+jn, m) + mc - 1) / mc // rows i < jc+jn
		case triLower:
			rLo = jc / mc // rows i ≥ jc
		}
		nTasks := (rHi - rLo) * colSplit
		for pc = 0; pc < k; pc += kc {
			kb = min(kc, k-pc)
			bp = bufs.b[:kb*panels*packNR]
			parallel.ForWorker(panels, workers, packB)
			first = pc == 0
			parallel.ForWorker(nTasks, workers, runTask)
		}
	}
}

// tile applies the micro-kernel to the tile of C at (i, j) of h×w elements
// (h ≤ 4, w ≤ 12): directly when it is whole and inside the triangle, through
// a buffer otherwise.
func tile(tri triangle, kb int, ap, bp []float64, c []float64, ldc, i, j, h, w int) {
	whole := h == packMR && w == packNR
	// Element (i+r, j+s) is wanted when lo ≤ j+s−(i+r) ≤ hi.
	lo, hi := -n2max, n2max
	switch tri {
	case triUpper:
		if j+w-1 < i { // entirely below the diagonal
			return
		}
		whole = whole && j >= i+h-1
		lo = 0
	case triLower:
		if j > i+h-1 { // entirely above the diagonal
			return
		}
		whole = whole && j+w-1 <= i
		hi = 0
	}
	if whole {
		_ = c[(i+packMR-1)*ldc+j+packNR-1]
		avx2.Kern4x12(kb, &ap[0], &bp[0], &c[i*ldc+j], ldc)
		return
	}
	// The buffer starts from C where it is wanted (and zero elsewhere), so
	// that wanted elements see the very operations of the direct path.
	var buf [packMR * packNR]float64
	for r := 0; r < h; r++ {
		for s := 0; s < w; s++ {
			if d := j + s - (i + r); d >= lo && d <= hi {
				buf[r*packNR+s] = c[(i+r)*ldc+j+s]
			}
		}
	}
	avx2.Kern4x12(kb, &ap[0], &bp[0], &buf[0], packNR)
	for r := 0; r < h; r++ {
		for s := 0; s < w; s++ {
			if d := j + s - (i + r); d >= lo && d <= hi {
				c[(i+r)*ldc+j+s] = buf[r*packNR+s]
			}
		}
	}
}

// n2max bounds |j - i| for any matrix that fits in memory.
const n2max = 1 << 62

// scaleC applies beta to rows [i0, i1) and columns [j0, j1) of C, on the
// elements tri selects: zero (beta = 0, so that NaN is overwritten), nothing
// (beta = 1), or a multiplication.
func scaleC(tri triangle, beta float64, c []float64, ldc, i0, i1, j0, j1 int) {
	if beta == 1 {
		return
	}
	for i := i0; i < i1; i++ {
		lo, hi := j0, j1
		switch tri {
		case triUpper:
			lo = max(lo, i)
		case triLower:
			hi = min(hi, i+1)
		}
		if lo >= hi {
			continue
		}
		ci := c[i*ldc+lo : i*ldc+hi]
		if beta == 0 {
			clear(ci)
			continue
		}
		for s := range ci {
			ci[s] *= beta
		}
	}
}

// packPanelA packs alpha times rows [i, i+h) of op(A), terms [pc, pc+kb),
// h ≤ 4, into dst (kb groups of 4; rows past h are zero).
func packPanelA(dst []float64, tA bool, a []float64, lda int, alpha float64, pc, kb, i, h int) {
	dst = dst[:kb*packMR]
	switch {
	case tA && h == packMR: // op(A)[i][l] = A[l][i]: 4 neighbours in row l of A
		for l := 0; l < kb; l++ {
			src := a[(pc+l)*lda+i : (pc+l)*lda+i+packMR]
			d := dst[l*packMR : l*packMR+packMR]
			d[0], d[1], d[2], d[3] = src[0], src[1], src[2], src[3]
		}
	case tA:
		for l := 0; l < kb; l++ {
			d := dst[l*packMR : l*packMR+packMR]
			n := copy(d, a[(pc+l)*lda+i:(pc+l)*lda+i+h])
			clear(d[n:])
		}
	default:
		for r := 0; r < packMR; r++ {
			if r >= h {
				for l := 0; l < kb; l++ {
					dst[l*packMR+r] = 0
				}
				continue
			}
			src := a[(i+r)*lda+pc : (i+r)*lda+pc+kb]
			for l, v := range src {
				dst[l*packMR+r] = v
			}
		}
	}
	if alpha != 1 {
		for l := range dst {
			dst[l] *= alpha
		}
	}
}

// packPanelB packs columns [j, j+w) of op(B), terms [pc, pc+kb), w ≤ 12, into
// dst (kb groups of 12; columns past w are zero).
func packPanelB(dst []float64, tB bool, b []float64, ldb, pc, kb, j, w int) {
	dst = dst[:kb*packNR]
	if !tB { // op(B)[l][j] = B[l][j]: 12 neighbours in row l of B
		if w == packNR { // a whole panel: fixed-size moves, not a copy call per 12 values
			for l := 0; l < kb; l++ {
				*(*[packNR]float64)(dst[l*packNR:]) = [packNR]float64(b[(pc+l)*ldb+j:])
			}
			return
		}
		for l := 0; l < kb; l++ {
			d := dst[l*packNR : l*packNR+packNR]
			n := copy(d, b[(pc+l)*ldb+j:(pc+l)*ldb+j+w])
			clear(d[n:])
		}
		return
	}
	for s := 0; s < packNR; s++ {
		if s >= w {
			for l := 0; l < kb; l++ {
				dst[l*packNR+s] = 0
			}
			continue
		}
		src := b[(j+s)*ldb+pc : (j+s)*ldb+pc+kb]
		for l, v := range src {
			dst[l*packNR+s] = v
		}
	}
}
