package rff

import (
	"fmt"
	"math"
	"runtime"
	"strconv"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/rule"
	"github.com/rffkit/rff/vector"
)

// BudgetError is returned by Fit, FitHermite and FitCSV, before anything large is allocated, when a fit would need
// more memory than Config.MaxMemory allows. A command-line tool can name its own flag from the fields.
type BudgetError struct {
	What   string // what needs the memory, e.g. "ZᵀZ for F = 200000 features"
	Bytes  int64  // the estimated peak, in bytes
	Budget int64  // the budget, in bytes
	Hint   string // what lowers the need, e.g. "fewer points D"
	// Lower says which setting lowers the need most: "points" (D) or "rows" (the training rows).
	Lower string
}

// Error says what needs how much memory, the budget, and what lowers the need ("<nil>" for a nil *BudgetError).
func (e *BudgetError) Error() string {
	if e == nil {
		return "<nil>"
	}
	if e.Budget == dataset.MachineMemory() {
		return fmt.Sprintf("the fit needs about %s (%s), more than the machine's memory and swap (%s); %s",
			FormatBytes(e.Bytes), e.What, FormatBytes(e.Budget), e.Hint)
	}
	return fmt.Sprintf("the fit needs about %s (%s), over the memory budget of %s; %s or raise the budget",
		FormatBytes(e.Bytes), e.What, FormatBytes(e.Budget), e.Hint)
}

// FormatBytes formats n bytes in binary units, rounded down to one decimal ("512 B", "1.5 GiB").
func FormatBytes(n int64) string { return size.Format(n) }

// budget is the memory budget in bytes: MaxMemory, or the default of package dataset (half of the memory
// available to the process); a negative MaxMemory, or one above the machine's memory and swap, stands for the
// machine's memory and swap (dataset.CapBudget).
func (s *settings) budget() int64 {
	if s.MaxMemory == 0 {
		return dataset.DefaultMaxBytes()
	}
	return dataset.CapBudget(s.MaxMemory)
}

// pathBudget caps the choices that change a fit's arithmetic rather than refuse it — whether vector-valued CG and
// L-BFGS cache their features or recompute them, which round differently: MaxMemory when given (as budget caps
// it), otherwise half of the machine's memory and swap — a constant of the machine, where the default budget is
// half of the memory free at the moment — so that the same fit takes the same path, and gives the same bits, on
// every run.
func (s *settings) pathBudget() int64 {
	if s.MaxMemory != 0 {
		return dataset.CapBudget(s.MaxMemory)
	}
	if m := dataset.MachineMemory(); m > 0 {
		return m / 2
	}
	return vector.DefaultMaxBytes
}

// bytesOf multiplies counts of float64 values into bytes, saturating instead of overflowing.
func bytesOf(factors ...float64) int64 {
	v := 8.0
	for _, f := range factors {
		v *= f
	}
	if v >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(v)
}

// pointsDrawn is the number of points the rule draws for D requested in dimension d, and the size of its whole
// rules: SR rules round up to whole rules of d+1 points (2(d+1) for a pointwise kernel, whose integrand is not
// even); other rules draw D points.
func (s *settings) pointsDrawn(d int, k kernel.Kernel) (points, per int) {
	sr, ok := s.rule.(rule.SR)
	if !ok || s.nystrom { // a Nyström map: Points is M
		return s.Points, 1
	}
	per = d + 1
	if !isSpectral(k) && s.OVK == "" {
		per *= 2
	}
	return sr.Rules(d, s.Points, per == d+1) * per, per
}

// checkRounding refuses an SR rule whose rounding to whole rules more than doubles D, or switches to the fallback
// rule when one is configured.
func (s *settings) checkRounding(d int, k kernel.Kernel) error {
	if s.Exact || s.nystrom { // no rule draws points
		return nil
	}
	got, per := s.pointsDrawn(d, k)
	if got-s.Points <= s.Points { // got ≤ 2·Points, without overflow
		return nil
	}
	if s.Fallback != "" {
		r, err := rule.Parse(s.Fallback)
		if err != nil {
			return fmt.Errorf("fallback rule: %w", err)
		}
		if _, sr := r.(rule.SR); sr {
			return fmt.Errorf("fallback rule %s rounds D as well; choose g, orf, sorf, qmc or gq", r.Name())
		}
		s.rule, s.Rule = r, r.Name()
		return nil
	}
	return fmt.Errorf("the %s rule comes in whole rules of %d points in dimension %d, so D = %d would become %d points; ask for D ≥ %d, or use another rule (g, orf, sorf) or a fallback rule",
		s.Rule, per, d, s.Points, got, (got+1)/2)
}

// checkBudget estimates the peak memory of the fit of n rows of d inputs into p outputs (classes for a classifier)
// and refuses it above the budget, before anything large is allocated.
func (s *settings) checkBudget(n, d, p int, k kernel.Kernel) error {
	budget := s.budget()
	N, dd, P := float64(n), float64(d), float64(p)
	need := bytesOf(N, dd) // the preprocessed copy of the inputs
	what, hint, lower := "", "", ""
	var fixed int64 // what the fit needs whatever its size
	switch {
	case s.Exact && s.OVK != "":
		np := N * P
		need += bytesOf(np, np) + bytesOf(np, P)
		what, hint, lower = fmt.Sprintf("the %d×%d block Gram matrix", n*p, n*p), "fewer rows (exact models grow as N²)", "rows"
	case s.Exact:
		need += bytesOf(N, N) + bytesOf(N, P)
		what, hint, lower = fmt.Sprintf("the %d×%d Gram matrix", n, n), "fewer rows (exact models grow as N²)", "rows"
	default:
		points, _ := s.pointsDrawn(d, k)
		D := float64(points)
		F := 2 * D
		if s.form == feature.CosPhase || !isSpectral(k) { // cos+phase and pointwise maps have D columns
			F = D
		}
		if s.OVK != "" {
			F = 2 * D * P // p' ≤ p
		}
		if s.Task == "hermite" {
			N *= 1 + dd // every observed derivative is a row
		}
		if s.nystrom { // M landmarks (an upper bound when M defaults to min(1024, N)), F = M' ≤ M features; the
			// landmarks count as D×d points below
			F = D
			need += s.nystromNeed(D, dd, P, N) - bytesOf(D, dd)
		}
		need += bytesOf(D, dd) // dense points (structured rules need less)
		if !s.nystrom {
			// The rule's temporary arrays (the d×d Haar rotations of orf and sr-haar, a structured rule's block
			// buffers), as a model file's reader estimates them before redrawing a map from its seed.
			_, scratch := rule.DrawBytes(s.rule, d, points, isSpectral(k) || s.OVK != "")
			need += scratch
		}
		shards := float64(max(1, min(int((512<<20)/max(8*F*F, 1)), 8)))
		gram := bytesOf(F, F)
		switch {
		case s.loss != learn.Squared:
			// The features, θ, and per row and class the dual variables kept for a warm start and the labels of
			// the problems running (hinge), or the scores and their gradient (logistic, whose L-BFGS keeps 15 pairs
			// of F×P vectors besides).
			need += bytesOf(N, F) + bytesOf(F, P) + 2*bytesOf(N, P)
			if s.loss == learn.Logistic {
				need += 32 * bytesOf(F, P)
			}
			what = fmt.Sprintf("the %d×%d feature matrix", n, int(F))
		case s.CV > 1:
			workers := min(s.CV, runtime.GOMAXPROCS(0)) // folds solved at once, each with its scratch
			need += bytesOf(float64(s.CV+1), F, F) + bytesOf(float64(workers), 4, F, F)
			what = fmt.Sprintf("%d fold statistics of %d×%d, and the scratch of %d folds solved at once, one per core", s.CV+1, int(F), int(F), workers)
		case s.OVK != "" && (s.ovkSolver == vector.CG || s.ovkSolver == vector.LBFGS):
			// No F×F matrix: θ, the gradient, CG's directions or L-BFGS's pairs (40 vectors of F at most), the
			// predictions and their centred copy (N×p each), and the scalar features (N×2D) with their blocks'
			// scratch, which the solver caches when they fit in the budget and recomputes otherwise.
			fixed = fixedNeed
			need += bytesOf(40, F) + 2*bytesOf(N, P) + fixed
			if cache := bytesOf(N, 2*D) + bytesOf(float64(min(n, learn.BlockRows)), D, P, float64(min(blocks.Count(n), 16))); cache <= s.pathBudget() {
				need += cache
			}
			what = fmt.Sprintf("the vectors of F = %d features and the %d×%d predictions of the %s solver", int(F), n, p, s.ovkSolver)
		case s.falkon: // no ZᵀZ: nystromNeed counts FALKON's factors and block of K_NM (all of it when stored)
			what = fmt.Sprintf("K_MM, its factors and a block of K_NM for M = %d centres", int(D))
			if s.FalkonStore {
				what = fmt.Sprintf("K_MM, its factors and the stored %d×%d K_NM (--falkon-store)", int(N), int(D))
			}
		default:
			fixed = fixedNeed
			need += int64(shards+1)*gram + bytesOf(F, P) + fixed
			what = fmt.Sprintf("ZᵀZ for F = %d features", int(F))
			if s.precision != learn.Double {
				need += bytesOf(N, D) // the projections kept by a mixed-precision fit
			}
		}
		hint, lower = "fewer points D", "points"
		if s.nystrom {
			hint, lower = "fewer centres M", "centres"
		}
	}
	if need > budget {
		// When the copy of the rows weighs more than what the points add (beyond the fixed chunk buffers), fewer
		// points would not help: say so, and point to the rows.
		if rows := bytesOf(N, dd); lower != "rows" && rows > need-rows-fixed {
			what = fmt.Sprintf("the preprocessed copy of the %d×%d inputs, beside %s", n, d, what)
			hint, lower = "fewer rows", "rows"
		}
		return &BudgetError{What: what, Bytes: need, Budget: budget, Hint: hint, Lower: lower}
	}
	return nil
}

// fixedNeed is the memory a fit on features needs whatever its size: chunk buffers and bookkeeping.
const fixedNeed = 64 << 20

func isSpectral(k kernel.Kernel) bool {
	_, ok := k.(kernel.Spectral)
	return ok
}

// checkClasses refuses a classification target with more classes than MaxClasses allows (by default 1000, and half
// the training rows); text says the labels are text, which no regression could fit.
func (s *settings) checkClasses(K, n int, target string, text bool) error {
	limit, why := s.MaxClasses, fmt.Sprintf("more than the limit of %d", s.MaxClasses)
	if limit <= 0 {
		limit, why = min(1000, n/2), "more than 1000 or half the training rows"
	}
	if K <= limit {
		return nil
	}
	name := "the target"
	if target != "" {
		name = fmt.Sprintf("the target %q", target)
	}
	if text {
		return fmt.Errorf("%s has %d distinct labels in %d rows, %s: raise the class limit (Config.MaxClasses) to classify into that many classes", name, K, n, why)
	}
	return fmt.Errorf("%s has %d distinct values in %d rows, %s: it looks continuous; fit a regression, or raise the class limit (Config.MaxClasses)", name, K, n, why)
}

// classCap is the most classes any number of rows allows: MaxClasses when set, 1000 otherwise (a stream that has
// seen more distinct values than that can stop reading).
func (s *settings) classCap() int {
	if s.MaxClasses > 0 {
		return s.MaxClasses
	}
	return 1000
}

// numericLabels reports whether every label is a number.
func numericLabels(labels []string) bool {
	for _, l := range labels {
		if _, err := strconv.ParseFloat(l, 64); err != nil {
			return false
		}
	}
	return true
}
