package learn

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/floats"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/internal/solve"
)

// Precision is the arithmetic in which [Ridge.FitMap] forms the Gram matrix ZᵀZ — the N·F² multiply-adds that
// dominate a fit with many features. Every precision returns the solution of the double-precision normal equations
// to a double-precision backward error; they differ in speed and memory.
type Precision int

const (
	// Double accumulates ZᵀZ in float64 from features that are mapped in chunks and never stored (the default).
	Double Precision = iota
	// Mixed accumulates ZᵀZ in float32 — twice the flops per cycle on AVX2 (OpenBLAS ssyrk) — factorises that
	// matrix in float64 and refines the solution against the float64 features until LAPACK dsposv's stopping test
	// holds. It keeps the projections of the rows (N×D values, 8·N·D bytes for D points: half the features of a
	// cos/sin map), from which each refinement step recomputes the features chunk by chunk.
	Mixed
	// Auto is Mixed when a cost model predicts it is faster and it fits in memory, Double otherwise: the Cholesky
	// solver with λ > 0, at least [MixedMinFeatures] features, a fast float32 kernel (the OpenBLAS backend,
	// linalg.FastFloat32), the stored projections within half of the machine's physical memory (MemTotal in
	// /proc/meminfo; 4 GiB when that is unknown), and a predicted saving of at least a tenth of the double-precision
	// Gram time (see [MixedCost]). Every criterion is a constant of the problem and the machine — not the memory free
	// at the moment — so the same fit gets the same bits on every run; a caller with a tighter memory limit should
	// count the projections (8·N·D bytes) in it or choose Double.
	Auto
)

// MixedMinFeatures is the smallest F for which Auto considers Mixed; from there the cost model decides. Below it
// the Gram matrix is no longer the bulk of a fit.
const MixedMinFeatures = 1024

// MixedCost is the cost model by which Auto chooses the precision, in seconds of one core (both precisions use
// every core in every phase, so the number of cores cancels). For N rows, F features from D points (F = 2D for
// cos/sin maps) and P outputs, Double spends N·F²/Rate64 forming ZᵀZ (N·F² flops: one triangle, a multiply and an
// add per entry); Mixed spends N·F²/(Speed32·Rate64) forming it in float32, 8·N·D·Touch storing the projections,
// and Passes residual passes of N·(D·Activate + 2·F·P·MultiplyAdd) — recomputing cos/sin from each projection and
// two products with the features (refinement steps ≈ 3 for cond(A) ≈ 10⁵, plus the first residual). The map, the
// linear statistics and the Cholesky factorisation are the same in both and do not enter.
type MixedCost struct {
	Rate64      float64 // flop/s of the float64 Gram update on one core
	Speed32     float64 // the float32 update's rate over Rate64
	Activate    float64 // seconds per row and point to recompute the features from a projection
	MultiplyAdd float64 // seconds per multiply-add of the residual's products
	Touch       float64 // seconds per byte to allocate and first write the stored projections
	Passes      float64 // residual passes
}

// DefaultMixedCost returns the assumed rates for a Gram kernel of the given vector width (linalg.GramVectorBits),
// measured on one core of an AMD Zen 5 (OpenBLAS 0.3.21: dgemm and dsyrk at 95 GFLOP/s with the AVX-512 SkylakeX
// kernels, 56 with the AVX2 Haswell ones, ssyrk at twice that; the residual pass at 2.8 ns per row and point for
// F = 2D, P = 1, of which about 1.8 ns are the sine and cosine; first touch 0.2 ns per byte) and an AMD Zen 3 (the
// AVX2 kernels at 44 GFLOP/s). Ratios carry over between CPUs better than the rates.
func DefaultMixedCost(vectorBits int) MixedCost {
	c := MixedCost{Rate64: 50e9, Speed32: 2, Activate: 1.8e-9, MultiplyAdd: 0.25e-9, Touch: 0.2e-9, Passes: 4}
	if vectorBits >= 512 {
		c.Rate64 = 95e9
	}
	return c
}

// Double returns the modelled seconds (of one core) of the float64 Gram matrix.
func (c MixedCost) Double(n, F int) float64 {
	return float64(n) * float64(F) * float64(F) / c.Rate64
}

// Mixed returns the modelled seconds (of one core) of the float32 Gram matrix, the stored projections and the
// refinement.
func (c MixedCost) Mixed(n, F, D, P int) float64 {
	N := float64(n)
	gram := N * float64(F) * float64(F) / (c.Speed32 * c.Rate64)
	pass := N * (float64(D)*c.Activate + 2*float64(F)*float64(P)*c.MultiplyAdd)
	return gram + 8*N*float64(D)*c.Touch + c.Passes*pass
}

// Pays reports whether Mixed is predicted to save at least a tenth of the float64 Gram time.
func (c MixedCost) Pays(n, F, D, P int) bool {
	return c.Mixed(n, F, D, P) <= 0.9*c.Double(n, F)
}

// mixedMaxSteps bounds the refinement steps, as ITERMAX = 30 does in LAPACK's dsposv.
const mixedMaxSteps = 30

// String returns "double", "mixed" or "auto".
func (p Precision) String() string {
	switch p {
	case Double:
		return "double"
	case Mixed:
		return "mixed"
	case Auto:
		return "auto"
	}
	return "Precision(" + strconv.Itoa(int(p)) + ")"
}

// ParsePrecision parses "double", "mixed" or "auto".
func ParsePrecision(s string) (Precision, error) {
	for _, p := range []Precision{Double, Mixed, Auto} {
		if s == p.String() {
			return p, nil
		}
	}
	return 0, fmt.Errorf("unknown precision %q (double, mixed or auto)", s)
}

// memTotal returns the machine's physical memory (MemTotal in /proc/meminfo) in bytes, or 0 if it cannot be read:
// a constant of the machine, so that Auto's choice, and with it the fit's bits, does not change with the memory
// free at the moment. A variable for tests.
var memTotal = func() int64 { return meminfoBytes("/proc/meminfo", "MemTotal:") }

// meminfoBytes returns the value of key ("MemTotal:") in a meminfo file, in bytes, or 0 if absent or unreadable.
func meminfoBytes(path, key string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil || kb < 0 {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// fastFloat32 is linalg.FastFloat32 and mixedCost the model Auto uses (for the active backend's kernels);
// variables for tests.
var (
	fastFloat32 = linalg.FastFloat32
	mixedCost   = func() MixedCost { return DefaultMixedCost(linalg.GramVectorBits()) }
)

// mixed reports whether FitMap uses the mixed-precision path for n rows of F features from D points and P outputs.
func (r Ridge) mixed(n, F, D, P int) bool {
	switch r.Precision {
	case Mixed:
		return true
	case Auto:
		budget := memTotal() / 2
		if budget <= 0 {
			budget = 4 << 30
		}
		return r.Solver == Cholesky && r.Lambda > 0 && F >= MixedMinFeatures && fastFloat32() &&
			8*int64(n)*int64(D) <= budget && mixedCost().Pays(n, F, D, P)
	}
	return false
}

// applyRows is the number of rows whose features gramApply recomputes and multiplies at a time: 4 MiB of features,
// which stay in cache between the two products.
func applyRows(F int) int { return max(16, (4<<20)/(8*max(F, 1))) }

// gramApply sets dst (F×P) = Zᵀ(Zθ) for θ (F×P) and the features Z of n rows given by their projections proj
// (n×m.Points()): each chunk of applyRows(F) rows recomputes its features (m.ActivateBlock, the bits of the fit's
// features), then T = Z_c θ and the partial sum of its shard += Z_cᵀT, on the calling goroutine. With fewer than
// applyGemmMinP outputs that is, row by row while the row is in L1, P dot products and P axpys of length F against
// the rows of θᵀ (gonum's assembly; a matrix product with P = 1 columns would make F calls of length 1 per row);
// with more, two products of the packed kernel (linalg.GemmSerial). There are maxShards shards of contiguous rows,
// run on all cores and summed in order, so the result does not depend on GOMAXPROCS.
func gramApply(dst []float64, m *feature.Map, proj []float64, n int, theta []float64, P int) {
	F, pts := m.Features(), m.Points()
	chunk := applyRows(F)
	S := maxShards
	parts := make([][]float64, S)
	var thetaT []float64
	if P < applyGemmMinP {
		thetaT = transpose(theta[:F*P], F, P)
	}
	parallel.For(S, 0, func(s int) {
		r0, r1 := blocks.Shard(n, S, s, chunk)
		if r1 <= r0 {
			return
		}
		part := make([]float64, F*P) // P×F (rows of partᵀ) on the row-wise path, F×P otherwise
		zc := make([]float64, chunk*F)
		var T []float64
		if thetaT == nil {
			T = make([]float64, chunk*P)
		}
		for b := r0; b < r1; b += chunk {
			rows := min(chunk, r1-b)
			m.ActivateBlock(zc, proj[b*pts:(b+rows)*pts], rows)
			if thetaT == nil {
				linalg.GemmSerial(false, false, rows, P, F, 1, zc, F, theta, P, 0, T, P)
				linalg.GemmSerial(true, false, F, P, rows, 1, zc, F, T, P, 1, part, P)
				continue
			}
			for r := range rows {
				z := zc[r*F : (r+1)*F]
				for j := range P {
					floats.AddScaled(part[j*F:(j+1)*F], floats.Dot(z, thetaT[j*F:(j+1)*F]), z)
				}
			}
		}
		parts[s] = part
	})
	clear(dst[:F*P])
	for _, part := range parts {
		switch {
		case part == nil:
		case thetaT != nil:
			addTransposed(dst[:F*P], part, P, F)
		default:
			addTo(dst[:F*P], part)
		}
	}
}

// applyGemmMinP is the number of outputs from which gramApply multiplies with the packed kernel of linalg (whose
// tiles are 4×12) rather than row by row.
const applyGemmMinP = 8

// mixedChunkRows is the number of rows fitMixed maps, rounds to float32 and sums in one float32 rank-k update for F
// features and n rows: 4·chunkRows(F), at most 2048, since a float32 rank-k update needs a larger k to reach its rate
// — OpenBLAS ssyrk at F = 8192 on a 2-core AMD Zen 3: 148 GFLOP/s with k = 256, 172 with k = 1024 — but no more than
// ⌈n/8⌉ rounded up to a multiple of BlockRows: each chunk's float32 sum carries a relative error of up to about
// k·2⁻²⁴, which the refinement must overcome, and a small problem is cheap to sum in more pieces.
func mixedChunkRows(F, n int) int {
	k := (n + 8*BlockRows - 1) / (8 * BlockRows) * BlockRows
	return min(4*chunkRows(F), 8*BlockRows, max(k, BlockRows))
}

// fitMixed is FitMap in mixed precision (dsposv's scheme with the residual taken from the features):
//
//  1. map the rows in chunks as Accumulate does for F ≥ 1024, keeping their projections (N×D,
//     feature.Map.ProjectBlock), sum the features Z of each chunk, rounded to float32, in a float32 Gram matrix
//     (linalg.Syrk32) and add that to M in float64, chunk after chunk in row order, with ZᵀY, Σz, Σy in float64;
//  2. M, centred like the exact system, plus NλI; M = UᵀU by Cholesky in float64;
//  3. θ = M⁻¹B, then repeat r = B − Aθ with A θ = Zᵀ(Zθ) − Σz(Σzᵀθ)/N + Nλθ computed in float64 from the features
//     recomputed from the projections (gramApply), and
//     θ += M⁻¹r, until every column j has ‖r_j‖∞ ≤ ‖θ_j‖∞·‖A‖∞·ε·√F (ε = 2⁻⁵³) — dsposv's test, which is the
//     backward error of a double-precision solve.
//
// The error of step 1 is ‖A − M‖ ≲ 2u‖A‖ (u = 2⁻²⁴, rounding Z) plus the float32 sum within a chunk (≲ k·u‖A‖ for
// chunks of k rows, mixedChunkRows; the chunks are summed in float64), so each step shrinks
// the error by about ‖M⁻¹(A − M)‖ ≈ 2u·cond(A): on MNIST with F = 8192 and λ = 10⁻⁶ (cond ≈ 10⁵) by 3·10⁻³ per
// step, three steps in all. When cond(A) ≳ 1/(2u) the iteration cannot converge; when the residual shrinks too
// slowly to pass the test within mixedMaxSteps steps, or M is not positive definite, the fit falls back to the
// double-precision Gram of the features recomputed from the projections, accumulated in Accumulate's chunks and
// shards, and solves as Double does.
func (r Ridge) fitMixed(m *feature.Map, X []float64, n int, Y []float64, p int) (*Fit, error) {
	const where = "learn.Ridge.FitMap"
	F := m.Features()
	if err := blocks.CheckData(where, X, n, m.Dim(), Y, p); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: no data (N = 0)", where)
	}
	pts := m.Points()
	if _, err := size.Floats(where+": projections of the rows", n, pts); err != nil {
		return nil, err
	}
	if _, err := size.Floats(where+": Gram matrix", F, F); err != nil {
		return nil, err
	}
	proj := make([]float64, n*pts)
	chunk := mixedChunkRows(F, n)
	// One float32 Gram matrix per chunk, computed by one multithreaded ssyrk and added to the upper triangle of M in
	// float64, chunk after chunk in row order; each chunk is mapped on all cores first, and each block of it rounded to
	// float32 and reduced to its linear statistics where it was mapped (blocks.MapChunks, as Accumulate does for
	// F ≥ 1024). The upper triangle of M is all that is read from here on (validate, symNorm1, the Cholesky
	// factorisation).
	gram := make([]float32, F*F)
	M := make([]float64, F*F)
	z32 := make([]float32, min(chunk, n)*F)
	st := &Stats{F: F, P: p, ZtY: make([]float64, F*p), SumZ: make([]float64, F), SumY: make([]float64, p),
		SumYY: make([]float64, p)} // ZᵀY, Σz, Σy, Σy², N; ZᵀZ below
	lin := newLinearParts(F, p, chunk)
	linBlock := lin.block(Y)
	blocks.MapChunks(m, X, n, chunk, proj, func(z []float64, r0, rows int) {
		off := r0 % chunk * F
		for i, v := range z {
			z32[off+i] = float32(v)
		}
		linBlock(z, r0, rows)
	}, func(_ []float64, r0, rows int) {
		linalg.Syrk32(F, rows, 1, z32[:rows*F], F, 0, gram, F)
		parallel.For((F+mirrorTile-1)/mirrorTile, 0, func(b int) {
			for i := b * mirrorTile; i < min((b+1)*mirrorTile, F); i++ {
				row := M[i*F+i : (i+1)*F]
				for j, v := range gram[i*F+i : (i+1)*F] {
					row[j] += float64(v)
				}
			}
		})
		lin.addTo(st, Y, r0, rows)
		if r.Progress != nil {
			r.Progress(rows)
		}
	})
	start := time.Now()
	gram, z32 = nil, nil
	st.ZtZ = M
	if err := r.validate(st); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	fit := &Fit{F: F, P: p, Lambda: r.Lambda, Intercept: r.Intercept, Bias: make([]float64, p)}
	theta, steps, res, why := r.refine(st, m, proj)
	if why != "" {
		// Fall back: the double-precision statistics of the features recomputed from the projections, in the chunks
		// and shards of Accumulate (the same bits when the projections do not depend on the chunk size), solved as
		// Double does.
		st.ZtZ, M = nil, nil
		acc := newAccumulator(activated{m}, p)
		if err := acc.add(where, proj, n, Y); err != nil {
			return nil, err
		}
		proj = nil
		ds, err := acc.Stats()
		if err != nil {
			return nil, err
		}
		dfit, err := r.SolveInPlace(ds)
		if dfit != nil {
			dfit.Stats.Note = "mixed precision " + why + "; solved in double precision"
			dfit.Stats.Seconds = time.Since(start).Seconds()
		}
		return dfit, err
	}
	fit.Theta = theta
	fit.Stats = SolveStats{Method: "mixed", Iterations: steps, Residual: res}
	if r.Intercept {
		setBias(fit, st.SumZ, st.SumY, float64(st.N))
	}
	fit.Stats.Seconds = time.Since(start).Seconds()
	return fit, nil
}

// refine runs steps 2 and 3 of fitMixed on the statistics st, whose ZtZ (the float32 Gram in float64, upper
// triangle) it overwrites with the Cholesky factor, and the projections proj of the features of m. It returns θ, the
// number of refinement steps, the final max_j ‖r_j‖/‖B_j‖, and why it failed ("" on success).
func (r Ridge) refine(st *Stats, m *feature.Map, proj []float64) (theta []float64, steps int, res float64, why string) {
	F, P, N := st.F, st.P, st.N
	M := st.ZtZ
	B := append([]float64(nil), st.ZtY...)
	center(M, B, st, r.Intercept)
	nl := float64(N) * r.Lambda
	for i := range F {
		M[i*F+i] += nl
	}
	// ‖A‖∞ = ‖A‖₁ of the symmetric system, estimated from M: they differ by ‖A − M‖ ≲ 2u‖A‖.
	anorm := symNorm1(M, F)
	if err := linalg.Cholesky(F, M, F); err != nil {
		return nil, 0, 0, "failed (the float32 Gram matrix is not positive definite)"
	}
	theta = append([]float64(nil), B...)
	if err := linalg.SolveCholesky(F, P, M, F, theta, P); err != nil {
		return nil, 0, 0, "failed (" + err.Error() + ")"
	}
	R := make([]float64, F*P)
	cte := anorm * 0x1p-53 * math.Sqrt(float64(F))
	prev := math.Inf(1)
	for steps = 0; ; steps++ {
		// R = B − Aθ from the float64 features.
		gramApply(R, m, proj, N, theta, P)
		for i, v := range B {
			R[i] = v - R[i]
		}
		if r.Intercept {
			for j := range P {
				var c float64
				for i := range F {
					c += st.SumZ[i] * theta[i*P+j]
				}
				c /= float64(N)
				for i := range F {
					R[i*P+j] += st.SumZ[i] * c
				}
			}
		}
		for i, v := range theta {
			R[i] -= nl * v
		}
		done := true
		worst := 0.0
		for j := range P {
			var rmax, xmax float64
			for i := range F {
				rmax = max(rmax, math.Abs(R[i*P+j]))
				xmax = max(xmax, math.Abs(theta[i*P+j]))
			}
			if math.IsNaN(rmax) || math.IsNaN(xmax) {
				return nil, steps, 0, "failed (NaN in the residual)"
			}
			if rmax > xmax*cte {
				done = false
			}
			worst = max(worst, rmax/max(xmax*cte, math.SmallestNonzeroFloat64))
		}
		if done {
			return theta, steps, solve.RelResidual(R, B, F, P), ""
		}
		if steps == mixedMaxSteps {
			return nil, steps, 0, fmt.Sprintf("did not converge in %d refinement steps", mixedMaxSteps)
		}
		// worst is the residual in units of dsposv's threshold; it shrinks by a rate ρ per step. Stop when it grows or
		// when at this rate the remaining steps cannot bring it below 1.
		if rho := worst / prev; steps >= 1 && (rho >= 1 || math.Log(worst)/-math.Log(rho) > float64(mixedMaxSteps-steps)) {
			return nil, steps, 0, fmt.Sprintf("converges too slowly (by %.2g per step after %d steps; cond(ZᵀZ + NλI) is too large for a float32 Gram)", rho, steps)
		}
		prev = worst
		if err := linalg.SolveCholesky(F, P, M, F, R, P); err != nil {
			return nil, steps, 0, "failed (" + err.Error() + ")"
		}
		for i, v := range R {
			theta[i] += v
		}
	}
}

// activated is the Mapper whose inputs are the projections of m (Points() values per row) and whose features are
// m's, recomputed from them by m.ActivateBlock.
type activated struct{ m *feature.Map }

func (a activated) Dim() int      { return a.m.Points() }
func (a activated) Features() int { return a.m.Features() }
func (a activated) Points() int   { return 0 }
func (a activated) TransformBlock(z, proj []float64, rows int, _ []float64) {
	a.m.ActivateBlock(z, proj, rows)
}
