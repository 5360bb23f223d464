package nystrom

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/kernel"
)

// Every selector returns M distinct valid rows, and M = n returns them all.
func TestSelectorsReturnDistinctRows(t *testing.T) {
	n, d := 300, 2
	X, _ := uniformData(n, d, 1, 20)
	k := kernel.Gaussian{S: 0.3}
	for _, s := range []Selector{Uniform{}, KMeansPP{}, Leverage{}, Leverage{Lambda: 0.1}} {
		for _, M := range []int{1, 17, 150, n} {
			idx, err := s.Select(k, X, n, d, M, 3)
			if err != nil {
				t.Fatalf("%s M=%d: %v", s.Name(), M, err)
			}
			if len(idx) != M {
				t.Fatalf("%s: %d indices, want %d", s.Name(), len(idx), M)
			}
			seen := make(map[int]bool)
			for _, i := range idx {
				if i < 0 || i >= n || seen[i] {
					t.Fatalf("%s M=%d: index %d out of range or repeated", s.Name(), M, i)
				}
				seen[i] = true
			}
		}
	}
	// Identical rows: k-means++ still returns distinct indices (uniformly among the rows left).
	same := make([]float64, 50*d)
	idx, err := KMeansPP{}.Select(k, same, 50, d, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(idx)
	if len(slices.Compact(idx)) != 10 {
		t.Errorf("k-means++ on identical rows repeated an index: %v", idx)
	}
}

// Uniform selection is uniform: over R draws every row is chosen R·M/n times on average. The counts are
// hypergeometric-like with variance ≤ R·(M/n)(1 − M/n); the test allows 5 standard deviations for the largest
// deviation over the n rows (a union bound over n = 100 rows of normal tails beyond 5σ: < 6e-5).
func TestUniformIsUniform(t *testing.T) {
	n, d, M, R := 100, 1, 10, 4000
	X := make([]float64, n)
	for i := range X {
		X[i] = float64(i)
	}
	count := make([]int, n)
	for r := range R {
		idx, err := Uniform{}.Select(kernel.Gaussian{S: 1}, X, n, d, M, uint64(r))
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range idx {
			count[i]++
		}
	}
	p := float64(M) / float64(n)
	mean, sd := float64(R)*p, math.Sqrt(float64(R)*p*(1-p))
	for i, c := range count {
		if math.Abs(float64(c)-mean) > 5*sd {
			t.Errorf("row %d chosen %d times in %d draws, expected %.0f ± %.1f", i, c, R, mean, sd)
		}
	}
}

// k-means++ picks far-apart landmarks: on 5 tight clusters (radius r = 0.01) 10 apart, M = 5 landmarks land one per
// cluster. Once j clusters hold a landmark, a row of a covered cluster has D² ≤ (2r)² and a row of an uncovered one
// D² ≥ (10 − 2r)², so the next draw falls in a covered cluster with probability at most
// j(2r)²/((5 − j)(10 − 2r)²) ≤ 1.7e-5, and a run fails with probability below 4·1.7e-5 = 7e-5. Over R = 200 seeds
// two failures or more have probability below 1e-4; uniform selection, which covers all five clusters with
// probability 5!·40⁵/C(200, 5) ≈ 0.04, must fail most runs (it is what the test would catch).
func TestKMeansPPSpreadsLandmarks(t *testing.T) {
	const clusters, per, d, R = 5, 40, 2, 200
	n := clusters * per
	rng := rand.New(rand.NewPCG(5, 5))
	X := make([]float64, n*d)
	for c := range clusters {
		for i := range per {
			row := X[(c*per+i)*d:]
			a, rad := 2*math.Pi*rng.Float64(), 0.01*math.Sqrt(rng.Float64())
			row[0] = 10*float64(c) + rad*math.Cos(a)
			row[1] = rad * math.Sin(a)
		}
	}
	covers := func(s Selector) (runs, minGapOK int) {
		for r := range R {
			idx, err := s.Select(kernel.Gaussian{S: 1}, X, n, d, clusters, uint64(r))
			if err != nil {
				t.Fatal(err)
			}
			seen := make(map[int]bool)
			for _, i := range idx {
				seen[i/per] = true
			}
			if len(seen) == clusters {
				runs++
			}
			gap := math.Inf(1)
			for a := range idx {
				for b := a + 1; b < len(idx); b++ {
					gap = min(gap, math.Hypot(X[idx[a]*d]-X[idx[b]*d], X[idx[a]*d+1]-X[idx[b]*d+1]))
				}
			}
			if gap >= 10-0.02 {
				minGapOK++
			}
		}
		return runs, minGapOK
	}
	if runs, gaps := covers(KMeansPP{}); runs < R-1 || gaps < R-1 {
		t.Errorf("k-means++ covered all clusters in %d of %d runs (landmarks ≥ 9.98 apart in %d), want ≥ %d", runs, R, gaps, R-1)
	}
	if runs, _ := covers(Uniform{}); runs > R/4 {
		t.Errorf("uniform selection covered all clusters in %d of %d runs: the test does not discriminate", runs, R)
	}
}

// ridgeLeverage returns the exact λ-ridge leverage scores diag(K(K + λI)⁻¹).
func ridgeLeverage(t *testing.T, K []float64, n int, lambda float64) []float64 {
	A := mat.NewSymDense(n, append([]float64(nil), K...))
	for i := range n {
		A.SetSym(i, i, A.At(i, i)+lambda)
	}
	var ch mat.Cholesky
	if !ch.Factorize(A) {
		t.Fatal("K + λI is not positive definite")
	}
	var S mat.Dense
	if err := ch.SolveTo(&S, mat.NewDense(n, n, append([]float64(nil), K...))); err != nil {
		t.Fatal(err)
	}
	tau := make([]float64, n)
	for i := range n {
		tau[i] = S.At(i, i)
	}
	return tau
}

// Leverage selection picks high-leverage rows more often. The data: 940 rows in a tight blob (standard deviation 0.05,
// bandwidth 1) and 60 isolated rows spread over [−60, 60]². With λ = 1 the exact scores are ≈ 1/2 for the isolated
// rows and ≈ 1e-3 in the blob. Over R seeds, the selection rate of the top-5% rows by exact score and of the bottom
// half are binomial proportions; the test requires the difference to exceed 6 of its standard errors (each at
// most √(1/(4·trials))), which uniform selection — same expected rate for every row — passes with probability below
// 1e-9, and checks that uniform selection does stay within 4 standard errors of no difference.
func TestLeveragePrefersHighLeverageRows(t *testing.T) {
	const blob, isolated, d, M, R = 940, 60, 2, 60, 20
	n := blob + isolated
	rng := rand.New(rand.NewPCG(8, 8))
	X := make([]float64, n*d)
	for i := range blob {
		X[i*d], X[i*d+1] = 0.05*rng.NormFloat64(), 0.05*rng.NormFloat64()
	}
	for i := blob; i < n; i++ {
		X[i*d], X[i*d+1] = 120*rng.Float64()-60, 120*rng.Float64()-60
	}
	k := kernel.Gaussian{S: 1}
	const lambda = 1.0
	tau := ridgeLeverage(t, gram(t, k, X, n, X, n, d), n, lambda)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return -cmpFloat(tau[a], tau[b]) })
	top, bottom := order[:n/20], order[n/2:]
	rate := func(s Selector) (diff, se float64) {
		chosen := make([]int, n)
		for r := range R {
			idx, err := s.Select(k, X, n, d, M, uint64(100+r))
			if err != nil {
				t.Fatal(err)
			}
			for _, i := range idx {
				chosen[i]++
			}
		}
		frac := func(g []int) (float64, float64) {
			c := 0
			for _, i := range g {
				c += chosen[i]
			}
			trials := float64(len(g) * R)
			p := float64(c) / trials
			return p, p * (1 - p) / trials
		}
		pt, vt := frac(top)
		pb, vb := frac(bottom)
		// Standard error of the difference; never below the binomial bound at p = M/n, so that a rate of 0 or 1
		// does not make it vanish.
		p0 := float64(M) / float64(n)
		v0 := p0 * (1 - p0) / float64(len(top)*R)
		return pt - pb, math.Sqrt(max(vt, v0) + max(vb, v0*float64(len(top))/float64(len(bottom))))
	}
	t.Logf("exact scores: top 5%% ≥ %.3g, bottom half ≤ %.3g", tau[top[len(top)-1]], tau[bottom[0]])
	for _, s := range []Selector{Leverage{Lambda: lambda}, Leverage{}} {
		diff, se := rate(s)
		t.Logf("%s (λ %v): rate difference top − bottom %.3f (standard error %.4f)", s.Name(), s.(Leverage).Lambda, diff, se)
		if diff < 6*se {
			t.Errorf("%s (λ %v): top-leverage rows chosen at a rate only %.3f above the bottom half (standard error %.4f)",
				s.Name(), s.(Leverage).Lambda, diff, se)
		}
	}
	diff, se := rate(Uniform{})
	if math.Abs(diff) > 4*se {
		t.Errorf("uniform selection prefers some rows: rate difference %.3f, standard error %.4f", diff, se)
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestKMeansPPOverflow: squared distances that overflow (rows 1e160 apart) are ties of infinite weight, drawn
// uniformly, not the last row with a positive distance every time (the cumulative sum never passes an infinite u).
func TestKMeansPPOverflow(t *testing.T) {
	X := []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 1e160, -1e160}
	k := kernel.Gaussian{S: 1}
	second := map[int]int{}
	for seed := range uint64(400) {
		idx, err := KMeansPP{}.Select(k, X, len(X), 1, 3, seed)
		if err != nil {
			t.Fatal(err)
		}
		if idx[0] >= 8 { // a huge row first: every other row is at an infinite squared distance
			second[idx[1]]++
		}
	}
	if len(second) < 6 {
		t.Errorf("second picks after a huge first one: %v; want them spread over the 9 other rows", second)
	}
}
