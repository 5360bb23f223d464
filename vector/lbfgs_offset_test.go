package vector

import (
	"math"
	"testing"

	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
)

// TestLBFGSOffsetTargets: L-BFGS's stopping threshold is relative to the gradient at its start, which now puts the
// bias at the targets' means: with targets 1e8 from zero it still reaches Cholesky's solution (before, the
// threshold grew with the offset and it stopped at a wrong θ, reporting success).
func TestLBFGSOffsetTargets(t *testing.T) {
	must := mustKernel(t)
	curl := must(ovk.NewCurlFree(1))
	const d, n = 3, 70
	m := mustMap(t, curl, rule.G{}, d, 10, 1)
	X, Y := field(n, d, d, 0.05, 3)
	for i := range Y {
		Y[i] += 1e8
	}
	want, err := Ridge{Lambda: 1e-4, Intercept: true, Solver: Cholesky}.Fit(m, X, n, Y)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Ridge{Lambda: 1e-4, Intercept: true, Solver: LBFGS}.Fit(m, X, n, Y)
	if err != nil {
		t.Fatal(err)
	}
	var num, den float64
	for i, v := range want.Theta {
		num += (got.Theta[i] - v) * (got.Theta[i] - v)
		den += v * v
	}
	// θ carries the targets' rounding at 1e8 (ulp 1.5e-8 on a spread of about 1) through the solve: 1e-5 relative
	// is generous for that and far below the 0.5–4 of the early stop.
	if rel := math.Sqrt(num / den); !(rel < 1e-5) {
		t.Errorf("θ of L-BFGS is %.3g from Cholesky's relative", rel)
	}
}
