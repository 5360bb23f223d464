package learn

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rffkit/rff/internal/size"
)

// Stats holds the sufficient statistics of ridge regression for features Z (N×F) and targets Y (N×P):
// ZᵀZ, ZᵀY, Σz, Σy, Σy² (per output) and N. All matrices are row-major.
//
// [Stats.Add] updates only the upper triangle of ZtZ (a symmetric rank-k update); [Stats.Finish] mirrors it into
// the lower triangle. Statistics returned by [Accumulate] are finished. Solvers read only the upper triangle, so
// statistics rebuilt from their exported fields (for example after travelling between machines) need no Finish.
//
// Σy² is of the raw targets: for targets far from zero relative to their spread, Σy² − (Σy)²/N (the centred sum
// of squares that GCV, cross-validation and the noise variance use) loses the spread's digits — about log10 of
// (offset/spread)² of 16. Accumulate targets minus a constant near them (their mean, or any one of them) and add
// it to the intercept, as the fits of package rff do.
type Stats struct {
	F, P  int
	ZtZ   []float64 // F×F, symmetric (upper triangle always valid; lower after Finish)
	ZtY   []float64 // F×P
	SumZ  []float64 // F: Σ_i z_i
	SumY  []float64 // P: Σ_i y_i
	SumYY []float64 // P: Σ_i y_ij² per output j
	N     int

	sym      bool // the lower triangle of ZtZ mirrors the upper one
	consumed bool // ZtZ was used as workspace by Ridge.SolveInPlace
}

// NewStats returns empty statistics for F features and P outputs. It returns an error for F < 1 or P < 1, and for
// sizes whose F×F or F×P matrix would exceed the limit of one array (1 TiB; F ≤ 2^18.5 for ZᵀZ), checked before
// anything is allocated.
func NewStats(F, P int) (*Stats, error) {
	if err := checkStatsSize("learn.NewStats", F, P); err != nil {
		return nil, err
	}
	return &Stats{
		F: F, P: P,
		ZtZ:   make([]float64, F*F),
		ZtY:   make([]float64, F*P),
		SumZ:  make([]float64, F),
		SumY:  make([]float64, P),
		SumYY: make([]float64, P),
		sym:   true,
	}, nil
}

// checkStatsSize returns an error, prefixed with where, unless statistics of F features and P outputs can be
// allocated: F, P ≥ 1 and ZᵀZ and ZᵀY within the limit of one array.
func checkStatsSize(where string, F, P int) error {
	if F < 1 || P < 1 {
		return fmt.Errorf("%s: need F ≥ 1 and P ≥ 1, have F=%d, P=%d", where, F, P)
	}
	if _, err := size.Floats(where+": ZᵀZ", F, F); err != nil {
		return err
	}
	_, err := size.Floats(where+": ZᵀY", F, P)
	return err
}

// Add accumulates a block of rows: Z is rows×F and Y is rows×P, row-major (longer slices are allowed; the
// leading rows×F and rows×P values are used). ZᵀZ is updated with blas64.Syrk in sub-blocks of at most the
// chunk of rows of an [Accumulator] (16 MiB of features), ZᵀY with blas64.Gemm. Add is the unchecked hot path of
// accumulation: like gonum's mat it panics (on the calling goroutine, with a message) if rows < 0, a slice is too
// short, or s is not valid statistics ([Stats.Validate] without the finiteness check: nil, consumed, or slices of
// the wrong lengths). It does not check for NaN (the solvers do).
func (s *Stats) Add(Z []float64, Y []float64, rows int) {
	if err := s.check(); err != nil {
		panic(fmt.Sprintf("learn.Stats.Add: %v", err))
	}
	F, P := s.F, s.P
	zn, okz := size.Mul(rows, F)
	yn, oky := size.Mul(rows, P)
	if !okz || !oky || len(Z) < zn || len(Y) < yn {
		panic(fmt.Sprintf("learn.Stats.Add: %d rows need %d feature values and %d targets, have %d and %d",
			rows, rows*F, rows*P, len(Z), len(Y)))
	}
	if rows == 0 {
		return
	}
	c := blas64.Symmetric{Uplo: blas.Upper, N: F, Stride: F, Data: s.ZtZ}
	chunk := chunkRows(F)
	for r0 := 0; r0 < rows; r0 += chunk {
		r := min(chunk, rows-r0)
		blas64.Syrk(blas.Trans, 1, blas64.General{Rows: r, Cols: F, Stride: F, Data: Z[r0*F : (r0+r)*F]}, 1, c)
	}
	s.addLinear(Z, Y, rows)
	s.sym = false
}

// addLinear accumulates everything of Add except ZᵀZ: ZᵀY, Σz, Σy, Σy² and N.
func (s *Stats) addLinear(Z []float64, Y []float64, rows int) {
	F, P := s.F, s.P
	z := blas64.General{Rows: rows, Cols: F, Stride: F, Data: Z[:rows*F]}
	y := blas64.General{Rows: rows, Cols: P, Stride: P, Data: Y[:rows*P]}
	// YᵀZ (P×F) runs gonum's Gemm along rows of length F (ZᵀY directly would run along rows of length P).
	yz := make([]float64, P*F)
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, y, z, 0, blas64.General{Rows: P, Cols: F, Stride: F, Data: yz})
	addTransposed(s.ZtY, yz, P, F)
	ones := make([]float64, rows)
	for i := range ones {
		ones[i] = 1
	}
	blas64.Gemv(blas.Trans, 1, z, blas64.Vector{N: rows, Inc: 1, Data: ones}, 1, blas64.Vector{N: F, Inc: 1, Data: s.SumZ})
	for i := range rows {
		for j, v := range Y[i*P : (i+1)*P] {
			s.SumY[j] += v
			s.SumYY[j] += v * v
		}
	}
	s.N += rows
}

// Merge adds the statistics o (another shard of the same problem) into s. Dimensions must match.
func (s *Stats) Merge(o *Stats) error {
	if s == nil {
		return errors.New("learn.Stats.Merge: nil receiver")
	}
	if o == nil {
		return errors.New("learn.Stats.Merge: nil statistics")
	}
	if s.F != o.F || s.P != o.P {
		return fmt.Errorf("learn.Stats.Merge: dimensions differ (F=%d, P=%d vs F=%d, P=%d)", s.F, s.P, o.F, o.P)
	}
	if err := s.check(); err != nil {
		return fmt.Errorf("learn.Stats.Merge: receiver: %w", err)
	}
	if err := o.check(); err != nil {
		return fmt.Errorf("learn.Stats.Merge: argument: %w", err)
	}
	if o.N < 0 || s.N > math.MaxInt-o.N {
		return fmt.Errorf("learn.Stats.Merge: %d + %d rows overflow", s.N, o.N)
	}
	addTo(s.ZtZ, o.ZtZ)
	addTo(s.ZtY, o.ZtY)
	addTo(s.SumZ, o.SumZ)
	addTo(s.SumY, o.SumY)
	addTo(s.SumYY, o.SumYY)
	s.N += o.N
	s.sym = s.sym && o.sym
	return nil
}

// Finish mirrors the upper triangle of ZtZ into the lower one, so that ZtZ is the full symmetric matrix. It does
// nothing to nil or invalid statistics ([Stats.Validate] reports what is wrong with them).
func (s *Stats) Finish() {
	if s == nil || s.sym || s.check() != nil {
		return
	}
	mirrorUpper(s.ZtZ, s.F)
	s.sym = true
}

// mirrorTile is the side of the square tiles mirrorUpper transposes: two 64×64 tiles of float64 (64 KiB) stay in
// L2, where the plain column walk misses the cache on every write once F·8 bytes exceed a page.
const mirrorTile = 64

// mirrorUpper copies the strictly upper triangle of the F×F row-major matrix A into the strictly lower one.
func mirrorUpper(A []float64, F int) {
	for i0 := 0; i0 < F; i0 += mirrorTile {
		i1 := min(i0+mirrorTile, F)
		for j0 := i0; j0 < F; j0 += mirrorTile {
			j1 := min(j0+mirrorTile, F)
			for i := i0; i < i1; i++ {
				for j := max(j0, i+1); j < j1; j++ {
					A[j*F+i] = A[i*F+j]
				}
			}
		}
	}
}

// NormalEquations returns new copies of the normal equations A θ = B of s without the ridge term, centred when
// intercept is set (the package documentation's centred normal equations): A = ZᵀZ − N z̄z̄ᵀ (full symmetric F×F,
// row-major) and B = ZᵀY − N z̄ȳᵀ (F×P), with z̄ = Σz/N and ȳ = Σy/N; without intercept A = ZᵀZ and B = ZᵀY. Only
// the upper triangle of s.ZtZ is read. s must be valid ([Stats.Validate]) with N ≥ 1 when intercept is set; it
// panics on statistics whose slices do not match F and P, or that Ridge.SolveInPlace consumed (programmer errors).
func (s *Stats) NormalEquations(intercept bool) (A, B []float64) {
	if err := s.check(); err != nil {
		panic("learn.Stats.NormalEquations: " + err.Error())
	}
	F := s.F
	A = make([]float64, F*F)
	if s.sym {
		copy(A, s.ZtZ)
	} else {
		for i := range F {
			copy(A[i*F+i:(i+1)*F], s.ZtZ[i*F+i:(i+1)*F])
		}
		mirrorUpper(A, F)
	}
	B = append([]float64(nil), s.ZtY...)
	center(A, B, s, intercept)
	return A, B
}

// Clone returns a deep copy of s (nil for nil).
func (s *Stats) Clone() *Stats {
	if s == nil {
		return nil
	}
	c := *s
	c.ZtZ = append([]float64(nil), s.ZtZ...)
	c.ZtY = append([]float64(nil), s.ZtY...)
	c.SumZ = append([]float64(nil), s.SumZ...)
	c.SumY = append([]float64(nil), s.SumY...)
	c.SumYY = append([]float64(nil), s.SumYY...)
	return &c
}

// check verifies the lengths of the exported slices (statistics may be assembled by hand).
func (s *Stats) check() error {
	if s == nil {
		return errors.New("nil statistics")
	}
	F, P := s.F, s.P
	if s.consumed {
		return errors.New("the statistics were consumed by Ridge.SolveInPlace")
	}
	if F < 1 || P < 1 {
		return fmt.Errorf("need F ≥ 1 and P ≥ 1, have F=%d, P=%d", F, P)
	}
	if !size.Is(len(s.ZtZ), F, F) || !size.Is(len(s.ZtY), F, P) || len(s.SumZ) != F || len(s.SumY) != P ||
		len(s.SumYY) != P {
		return fmt.Errorf("slice lengths do not match F=%d, P=%d", F, P)
	}
	if s.N < 0 {
		return fmt.Errorf("negative row count %d", s.N)
	}
	return nil
}

// Validate reports whether s can be solved: consistent dimensions and slice lengths, N ≥ 0, statistics not consumed
// by Ridge.SolveInPlace, and every value finite (the upper triangle of ZtZ only).
func (s *Stats) Validate() error {
	if err := s.check(); err != nil {
		return err
	}
	if !s.finite() {
		return errors.New("statistics contain NaN or Inf")
	}
	return nil
}

// finite reports whether every statistic is a finite number (upper triangle of ZtZ only).
func (s *Stats) finite() bool {
	F := s.F
	for i := range F {
		for _, v := range s.ZtZ[i*F+i : (i+1)*F] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	for _, x := range [][]float64{s.ZtY, s.SumZ, s.SumY, s.SumYY} {
		for _, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// sub returns a − b (the statistics of the rows in a but not in b), upper triangle only.
func sub(a, b *Stats) *Stats {
	c := a.Clone()
	F := a.F
	for i := range F {
		row, brow := c.ZtZ[i*F+i:(i+1)*F], b.ZtZ[i*F+i:(i+1)*F]
		for j := range row {
			row[j] -= brow[j]
		}
	}
	subFrom(c.ZtY, b.ZtY)
	subFrom(c.SumZ, b.SumZ)
	subFrom(c.SumY, b.SumY)
	subFrom(c.SumYY, b.SumYY)
	c.N -= b.N
	c.sym = false
	return c
}

// addTransposed adds the transpose of the r×c matrix x to the c×r matrix dst.
func addTransposed(dst, x []float64, r, c int) {
	for i := range r {
		for j, v := range x[i*c : (i+1)*c] {
			dst[j*r+i] += v
		}
	}
}

// transpose returns the transpose of the r×c matrix x.
func transpose(x []float64, r, c int) []float64 {
	t := make([]float64, r*c)
	addTransposed(t, x, r, c)
	return t
}

func addTo(dst, x []float64) {
	for i, v := range x {
		dst[i] += v
	}
}

func subFrom(dst, x []float64) {
	for i, v := range x {
		dst[i] -= v
	}
}
