package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// gqFloors fills the bias floors of the study's gq rules into rep (approx.GQFloor on the study's two subsets;
// docs/conventions.md §3.5) and warns on stderr, one line per gq rule, at the n where the rule's mean error has
// reached its floor (atFloor): its D is past the range where the Monte Carlo error dominates, and more points
// cannot help. A kernel without a closed-form floor gets null
// floors and a note. Nothing happens when the study has no gq rule.
func gqFloors(rep *studyReport, k kernel.Kernel, rules []rule.Rule, X, Y *dataset.Data, stderr io.Writer) error {
	for _, r := range rules {
		gq, ok := r.(rule.GQ)
		if !ok {
			continue
		}
		if rep.GQFloor == nil {
			rep.GQFloor = map[string]*float64{}
		}
		floor, err := approx.GQFloor(k, gq.Degree, X.X, X.N, Y.X, Y.N, X.D)
		if errors.Is(err, approx.ErrNoFloor) {
			rep.GQFloor[r.Name()] = nil
			rep.GQFloorNote = strings.TrimPrefix(err.Error(), "approx.GQKernel: ") + "; gq is still biased, by an amount not computed here"
			continue
		}
		if err != nil {
			return err
		}
		rep.GQFloor[r.Name()] = &floor
		var at []string
		for _, x := range rep.Results {
			if x.Rule != r.Name() {
				continue
			}
			if atFloor(x, floor) {
				at = append(at, fmt.Sprintf("%d (D = %d, mean %.4g)", x.N, x.D, x.Mean))
			}
		}
		if len(at) > 0 {
			m := gq.Degree
			if m == 0 {
				m = 2
			}
			fmt.Fprintf(stderr, "rff approx: warning: %s reaches its bias floor %.4g at n = %s: D is past its convergent range (it converges to the quadrature of its degree-%d Gauss–Hermite grid, not to the kernel), so more points cannot help; %s\n",
				r.Name(), floor, strings.Join(at, ", "), m, largerDegree(m, "gq:%d"))
		}
	}
	return nil
}

// floorMargin is the relative distance to its floor within which a gq rule's mean error counts as having reached
// it even when the runs resolve the gap: more points could lower the error by less than 1%.
const floorMargin = 0.01

// atFloor reports whether the mean error of x is not significantly above floor — less than 2 standard errors of
// the mean above it, or below it — or within floorMargin of it, and at most floorCap times the floor.
func atFloor(x approx.Result, floor float64) bool {
	se := 0.0
	if x.Runs > 0 {
		se = x.Std / math.Sqrt(float64(x.Runs))
	}
	// A mean well above the floor is not at it, however wide its interval: with a few runs the standard error can
	// span the whole gap, and the warning would then be said of a rule whose Monte Carlo error still dominates.
	return x.Mean-floor < max(2*se, floorMargin*floor) && x.Mean <= floorCap*floor
}

// floorCap bounds the mean error that atFloor may count as at the floor: at most half again the floor.
const floorCap = 1.5

// printGQFloors prints the floors of a study's gq rules under its table, in the order of the rules.
func printGQFloors(w io.Writer, r studyReport) {
	if len(r.GQFloor) == 0 {
		return
	}
	fmt.Fprintln(w)
	done := map[string]bool{}
	for _, x := range r.Results {
		f, ok := r.GQFloor[x.Rule]
		if !ok || done[x.Rule] {
			continue
		}
		done[x.Rule] = true
		if f == nil {
			fmt.Fprintf(w, "%s bias floor (D → ∞): n/a (%s)\n", x.Rule, r.GQFloorNote)
			continue
		}
		fmt.Fprintf(w, "%s bias floor (D → ∞): %.4g  (‖K − K_grid‖_F/‖K‖_F of its full Gauss–Hermite grid: its error converges to this, not to 0)\n", x.Rule, *f)
	}
}

// largerDegree advises a larger Gauss–Hermite degree than m (written with format, as "gq:%d") or another rule — only
// another rule at the largest degree rule.MaxGQDegree.
func largerDegree(m int, format string) string {
	switch {
	case m >= rule.MaxGQDegree:
		return fmt.Sprintf("degree %d is the largest: use another rule", m)
	case 2*m >= rule.MaxGQDegree:
		return fmt.Sprintf("use the largest degree ("+format+") or another rule", rule.MaxGQDegree)
	}
	return fmt.Sprintf("use a larger degree ("+format+" or more, up to %d) or another rule", 2*m, rule.MaxGQDegree)
}
