package structured

import (
	"math"
	"testing"
)

// normalMoment returns (k-1)!! = E[X^k] for X ~ N(0,1) and even k.
func normalMoment(k int) float64 {
	if k%2 == 1 {
		return 0
	}
	m := 1.0
	for j := k - 1; j > 1; j -= 2 {
		m *= float64(j)
	}
	return m
}

// ghMomentErrors returns the worst relative error of the even moments and the
// worst |Σ w x^k| / Σ w |x|^k of the odd moments, k <= 2m-1.
func ghMomentErrors(nodes, weights []float64) (even, odd float64) {
	m := len(nodes)
	for k := 0; k <= 2*m-1; k++ {
		s, abs := 0.0, 0.0
		for i, x := range nodes {
			v := weights[i] * math.Pow(x, float64(k))
			s += v
			abs += math.Abs(v)
		}
		if k%2 == 0 {
			want := normalMoment(k)
			even = math.Max(even, math.Abs(s-want)/want)
		} else if abs > 0 {
			odd = math.Max(odd, math.Abs(s)/abs)
		}
	}
	return even, odd
}

// TestGaussHermite checks the defining property of an m-point Gauss rule for
// N(0,1): exactness on x^k, k <= 2m-1, i.e. E[X^k] = (k-1)!! for even k and 0
// for odd k. The computed moment has rounding error of order k·ε per term
// (the power) plus k·(node error), far below the 1e-10 tolerance; odd moments
// cancel in exact symmetric pairs and are measured against Σ w|x|^k.
func TestGaussHermite(t *testing.T) {
	for m := 1; m <= 60; m++ {
		nodes, weights := GaussHermite(m)
		if len(nodes) != m || len(weights) != m {
			t.Fatalf("m=%d: got %d nodes, %d weights", m, len(nodes), len(weights))
		}
		sum := 0.0
		for i := range nodes {
			if !(weights[i] > 0) {
				t.Errorf("m=%d: weight %d = %g is not positive", m, i, weights[i])
			}
			if i > 0 && !(nodes[i] > nodes[i-1]) {
				t.Errorf("m=%d: nodes not strictly ascending at %d", m, i)
			}
			if nodes[i] != -nodes[m-1-i] || weights[i] != weights[m-1-i] {
				t.Errorf("m=%d: rule not symmetric at %d", m, i)
			}
			sum += weights[i]
		}
		if math.Abs(sum-1) > 1e-14 {
			t.Errorf("m=%d: weights sum to 1%+g", m, sum-1)
		}
		even, odd := ghMomentErrors(nodes, weights)
		if even > 1e-10 {
			t.Errorf("m=%d: even moments up to degree %d off by relative %g", m, 2*m-1, even)
		}
		if odd > 1e-12 {
			t.Errorf("m=%d: odd moments up to degree %d off by %g (relative to Σw|x|^k)", m, 2*m-1, odd)
		}
	}
}

// TestGaussHermiteKnown checks small rules against closed forms: m=2 has
// nodes ±1 and weights 1/2; m=3 has nodes 0, ±sqrt(3) and weights 2/3, 1/6.
func TestGaussHermiteKnown(t *testing.T) {
	cases := []struct {
		m        int
		nodes, w []float64
	}{
		{1, []float64{0}, []float64{1}},
		{2, []float64{-1, 1}, []float64{0.5, 0.5}},
		{3, []float64{-math.Sqrt(3), 0, math.Sqrt(3)}, []float64{1.0 / 6, 2.0 / 3, 1.0 / 6}},
	}
	for _, c := range cases {
		x, w := GaussHermite(c.m)
		if maxAbsDiff(x, c.nodes) > 1e-15 || maxAbsDiff(w, c.w) > 1e-15 {
			t.Errorf("m=%d: got %v %v, want %v %v", c.m, x, w, c.nodes, c.w)
		}
	}
}

// TestGaussHermiteLarge: larger rules stay well formed (positive finite
// weights summing to 1, the largest node below the bound sqrt(4m+2)).
func TestGaussHermiteLarge(t *testing.T) {
	for _, m := range []int{100, 200} {
		x, w := GaussHermite(m)
		sum := 0.0
		for i := range w {
			if !(w[i] > 0) || math.IsInf(w[i], 0) {
				t.Fatalf("m=%d: weight %d = %g", m, i, w[i])
			}
			sum += w[i]
		}
		if math.Abs(sum-1) > 1e-13 {
			t.Errorf("m=%d: weights sum to 1%+g", m, sum-1)
		}
		if x[m-1] >= math.Sqrt(4*float64(m)+2) {
			t.Errorf("m=%d: largest node %g", m, x[m-1])
		}
		if m <= 100 { // beyond, (2m-1)!! overflows float64
			if even, _ := ghMomentErrors(x, w); even > 1e-10 {
				t.Errorf("m=%d: even moments off by relative %g", m, even)
			}
		}
	}
}
