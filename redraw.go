package rff

import (
	"fmt"
	"math"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/model"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
)

// A version-1 model file stores the seed of its map, not its points: reading it redraws the points from the rule,
// the input dimension d and the number of points D of its header, so the file's length bounds neither the memory
// nor the work of the redraw (its features bound D, not d). Before anything is drawn the reader estimates what the
// redraw allocates (rule.DrawBytes, the estimate a fit counts against its budget, plus the map's per-point arrays)
// and refuses it with a *RedrawError in two cases:
//
//   - Out of proportion: the temporary arrays exceed both redrawFloor and redrawRatio times what the map keeps.
//     A rule that draws whole blocks needs about ten times a block at most (orf a d×d Haar rotation, about 7·d²
//     values, for d points of d coordinates; sr-haar about 9·d² for a rule of d+1 points; sorf and sr-butterfly a
//     few hundred values per dimension to project a block of rows), so the ratio admits every map of a fair
//     fraction of a block whatever d (orf from D ≈ d/4, every sr map, sorf from D ≈ n/3 with n = 2^⌈log₂ d⌉), and
//     the floor every map of a small dimension however few its points (orf up to d ≈ 2000, sorf up to n = 2¹⁷).
//     What is refused is a few points in a large dimension, which no fit chooses: orf with d = 8000 and D = 1
//     allocates gigabytes and factorizes an 8000×8000 matrix, half a minute of work, for a map of 62.5 KiB. Such
//     a file is damaged or crafted, and no budget admits it: the work grows as d³ when the memory grows as d².
//   - Over the budget: the map and its temporary arrays together exceed the memory budget: the limit given to
//     ReadAtMost, or by default (Load, Read, ReadAtMost with no limit) the default budget of a fit,
//     dataset.DefaultMaxBytes (half of the memory available to the process).
const (
	redrawFloor = 256 << 20
	redrawRatio = 32
)

// RedrawError is returned by Load, Read and ReadAtMost (Load prefixes the file's name), before anything is drawn,
// for a version-1 model whose map would take too much memory to redraw: one whose temporary arrays are out of
// proportion to the map, more than 256 MiB and 32 times what it keeps (Budget 0: such a file is damaged or
// crafted), or whose map and temporary arrays exceed the memory budget (see ReadAtMost). A version-1 file stores
// only the seed of its map; the current format stores the points, which bounds the map by the file.
type RedrawError struct {
	Rule    string // the rule of the map
	Dim     int    // d, the dimension of the map's input
	Points  int    // D, the points asked for
	Held    int64  // bytes the map keeps: its points (or a structured rule's parameters) and per-point arrays
	Scratch int64  // bytes allocated besides while it is drawn and the probe input projected
	Budget  int64  // the memory budget Held + Scratch exceeds; 0 when Scratch is out of proportion to Held
}

// Error says which map would need how much memory, and why that is refused ("<nil>" for a nil *RedrawError).
func (e *RedrawError) Error() string {
	if e == nil {
		return "<nil>"
	}
	what := fmt.Sprintf("model: redrawing the %s map of this version-1 file (d = %d, D = %d)", e.Rule, e.Dim, e.Points)
	if e.Budget > 0 {
		return fmt.Sprintf("%s needs about %s, over the memory budget of %s", what, size.Format(e.Held+e.Scratch), size.Format(e.Budget))
	}
	return fmt.Sprintf("%s would allocate %s of temporary arrays for a map of %s, more than %d times the map and %s: "+
		"the file gives only the seed of its map, and these settings are out of proportion to it; it is damaged or "+
		"crafted, or the model must be refit", what, size.Format(e.Scratch), size.Format(e.Held), redrawRatio,
		size.Format(redrawFloor))
}

// checkRedraw refuses to redraw the map of the version-1 header h with rule r (k the scalar kernel, ok the
// operator-valued one or nil) when it would not have the file's number of features, or would be out of proportion
// or over the budget (≤ 0: dataset.DefaultMaxBytes).
func checkRedraw(h *model.Header, r rule.Rule, k kernel.Kernel, ok *ovk.Kernel, budget int64) error {
	if h.Points > 1<<31 {
		return nil // the rule refuses more than 2³¹ coordinates before drawing
	}
	p := planRedraw(h, r, k, ok)
	if p.features != float64(h.Features) {
		return fmt.Errorf("model: the %s map (d = %d, D = %d) has %.0f features, the file says %d", r.Name(), h.MapDim(), h.Points, p.features, h.Features)
	}
	e := &RedrawError{Rule: r.Name(), Dim: h.MapDim(), Points: h.Points, Held: p.held, Scratch: p.scratch}
	if p.scratch > redrawFloor && p.scratch/redrawRatio > p.held {
		return e
	}
	if budget <= 0 {
		budget = dataset.DefaultMaxBytes()
	}
	if p.held+p.scratch > budget { // each at most math.MaxInt64/2
		e.Budget = budget
		return e
	}
	return nil
}

// redraw is what redrawing a map would give and cost.
type redraw struct {
	features      float64 // the length of a feature vector (ORFF: 2·D·p')
	held, scratch int64   // bytes: what the map keeps, and the most allocated besides at once
}

// planRedraw estimates the map of h with rule r as feature.New (ok nil) or ovk.New builds it: its features, what it
// keeps, and the most it allocates besides at once (the rule's temporary arrays, a structured realization turned
// dense, the probe input and its features); the bytes saturate at math.MaxInt64/2.
func planRedraw(h *model.Header, r rule.Rule, k kernel.Kernel, ok *ovk.Kernel) redraw {
	d, D := h.MapDim(), h.Points
	sp, spectral := k.(kernel.Spectral)
	even := spectral || ok != nil
	held, scratch := rule.DrawBytes(r, d, D, even)
	N, dd := float64(D), float64(d) // N: the points drawn, D rounded up to whole rules for an SR rule
	_, structured := r.(rule.SORF)
	if sr, isSR := r.(rule.SR); isSR {
		per := dd + 1
		if !even {
			per *= 2
		}
		N = math.Ceil(N/per) * per
		structured = sr.Rotation != rule.Haar
	}
	// The points as a dense matrix (rule.Dense), and the blocks of 64 rows of the identity it projects for a
	// structured rule.
	dense, denseScratch := bytesOf(N, dd), int64(0)
	if structured {
		denseScratch = bytesOf(64, dd+N)
	}
	perPoint := 2.0 // the amplitudes and the scales
	features := 2 * N
	switch {
	case ok != nil:
		pr := 1.0 // p', the columns of B(ω)
		switch ok.Kind() {
		case ovk.Decomposable:
			_, c := ok.B().Dims()
			pr = float64(c)
		case ovk.DivFree:
			pr = dd - 1
		case ovk.Helmholtz:
			pr = dd
		}
		features = 2 * N * pr
		if ok.Kind() != ovk.Decomposable { // the frequencies ω_j, dense, and B(ω_j): p×p' values per point
			held = sat(held, sat(dense, bytesOf(N, float64(h.Outputs), pr)))
			scratch = sat(scratch, denseScratch)
		}
	case spectral && sp.Law().Coord != nil: // the points are made dense, the realization dropped
		scratch, held = sat(sat(scratch, denseScratch), held), sat(dense, bytesOf(N))
		perPoint = 1
	case !spectral: // a pointwise kernel: one feature per point
		features = N
	}
	if ok == nil && h.Form == "cosphase" {
		perPoint++
		features = N
	}
	held = sat(held, bytesOf(perPoint, N))
	probe := float64(h.Features)
	if ok != nil {
		probe *= float64(h.Outputs)
	}
	return redraw{features: features, held: held, scratch: sat(scratch, bytesOf(dd+probe))}
}

// sat adds byte counts, saturating at math.MaxInt64/2 like bytesOf.
func sat(a, b int64) int64 {
	return min(a+b, math.MaxInt64/2) // a, b ≤ math.MaxInt64/2: no overflow
}
