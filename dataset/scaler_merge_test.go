package dataset

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// accumulate returns an accumulator fed the rows [r0, r1) of the n×d matrix x in blocks of block rows.
func accumulate(t *testing.T, x []float64, d, r0, r1, block int) *ScalerAccumulator {
	t.Helper()
	a := NewScalerAccumulator(d)
	for r := r0; r < r1; r += block {
		rows := min(block, r1-r)
		if err := a.Add(x[r*d:(r+rows)*d], rows); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// momentsDiff reports the largest relative difference between two sets of moments (M2 relative to its column's
// value, means relative to the column's spread and magnitude).
func momentsDiff(a, b ScalerMoments) float64 {
	worst := 0.0
	for j := range a.Mean {
		scale := math.Max(math.Abs(a.Mean[j]), math.Sqrt(a.M2[j]/float64(max(a.N, 1))))
		worst = math.Max(worst, math.Abs(a.Mean[j]-b.Mean[j])/math.Max(scale, 1e-300))
		worst = math.Max(worst, math.Abs(a.M2[j]-b.M2[j])/math.Max(a.M2[j], 1e-300))
	}
	return worst
}

// Merging the accumulators of the parts of a data set — in any grouping and order — gives the statistics of one
// accumulator fed every row to rounding: Chan's update is backward stable, so with a handful of merges the relative
// error stays a small multiple of the unit roundoff (2.2e-16); 1e-13 leaves room for the ~50× mean/spread ratio of
// the test columns. The extremes are exact.
func TestScalerAccumulatorMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	n, d := 1000, 5
	x := testMatrix(rng, n, d)
	whole := accumulate(t, x, d, 0, n, 64)
	cuts := []int{0, 1, 137, 500, 501, 999, n}
	parts := make([]*ScalerAccumulator, 0, len(cuts)-1)
	for k := 0; k+1 < len(cuts); k++ {
		parts = append(parts, accumulate(t, x, d, cuts[k], cuts[k+1], 7))
	}
	orders := [][]int{{0, 1, 2, 3, 4, 5}, {5, 4, 3, 2, 1, 0}, {2, 0, 5, 1, 4, 3}}
	for _, order := range orders {
		m := NewScalerAccumulator(d) // an empty accumulator is the identity
		for _, k := range order {
			c, err := NewScalerAccumulatorFrom(parts[k].Moments())
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Merge(c); err != nil {
				t.Fatal(err)
			}
		}
		got, want := m.Moments(), whole.Moments()
		if got.N != n {
			t.Fatalf("order %v: N = %d, want %d", order, got.N, n)
		}
		if e := momentsDiff(want, got); e > 1e-13 {
			t.Errorf("order %v: moments differ by %.3g relative", order, e)
		}
		if !slices.Equal(got.Min, want.Min) || !slices.Equal(got.Max, want.Max) {
			t.Errorf("order %v: extremes %v %v, want %v %v", order, got.Min, got.Max, want.Min, want.Max)
		}
		for _, steps := range [][]Step{{StepStandardize}, {StepMinMax}, {StepIsotropic}, {StepStandardize, StepMaxScale}} {
			s1, err := m.Scaler(steps)
			if err != nil {
				t.Fatal(err)
			}
			s2, err := FitScaler(x, n, d, steps)
			if err != nil {
				t.Fatal(err)
			}
			for k := range s2.Params {
				for j := range s2.Params[k].Scale {
					for _, pair := range [][2]float64{{s1.Params[k].Shift[j], s2.Params[k].Shift[j]}, {s1.Params[k].Scale[j], s2.Params[k].Scale[j]}} {
						if e := math.Abs(pair[0]-pair[1]) / math.Max(math.Abs(pair[1]), 1e-300); e > 1e-13 && math.Abs(pair[0]-pair[1]) > 1e-13 {
							t.Errorf("order %v, %v: step %d column %d: %v vs FitScaler %v", order, steps, k, j, pair[0], pair[1])
						}
					}
				}
			}
		}
	}
	// Merge is commutative and associative to rounding: (a+b)+c against a+(c+b).
	a, b, c := parts[1], parts[3], parts[5]
	left := NewScalerAccumulator(d)
	for _, p := range []*ScalerAccumulator{a, b, c} {
		q, _ := NewScalerAccumulatorFrom(p.Moments())
		if err := left.Merge(q); err != nil {
			t.Fatal(err)
		}
	}
	cb, _ := NewScalerAccumulatorFrom(c.Moments())
	if err := cb.Merge(b); err != nil {
		t.Fatal(err)
	}
	right, _ := NewScalerAccumulatorFrom(a.Moments())
	if err := right.Merge(cb); err != nil {
		t.Fatal(err)
	}
	if e := momentsDiff(left.Moments(), right.Moments()); e > 1e-13 {
		t.Errorf("(a+b)+c and a+(c+b) differ by %.3g relative", e)
	}
}

func TestScalerMomentsRoundTripAndChecks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := testMatrix(rng, 50, 4)
	a := accumulate(t, x, 4, 0, 50, 16)
	b, err := NewScalerAccumulatorFrom(a.Moments())
	if err != nil {
		t.Fatal(err)
	}
	s1, _ := a.Scaler([]Step{StepStandardize})
	s2, _ := b.Scaler([]Step{StepStandardize})
	if !slices.Equal(s1.Params[0].Shift, s2.Params[0].Shift) || !slices.Equal(s1.Params[0].Scale, s2.Params[0].Scale) {
		t.Error("a scaler from round-tripped moments differs")
	}
	if err := NewScalerAccumulator(3).Merge(a); err == nil {
		t.Error("merging 4 columns into 3 succeeded")
	}
	good := a.Moments()
	bad := []func(m *ScalerMoments){
		func(m *ScalerMoments) { m.Mean = nil; m.M2, m.Min, m.Max = nil, nil, nil },
		func(m *ScalerMoments) { m.M2 = m.M2[:2] },
		func(m *ScalerMoments) { m.N = -1 },
		func(m *ScalerMoments) { m.Mean[1] = math.NaN() },
		func(m *ScalerMoments) { m.Max[0] = math.Inf(1) },
		func(m *ScalerMoments) { m.M2[2] = -1 },
		func(m *ScalerMoments) { m.Min[3], m.Max[3] = 2, 1 },
	}
	for k, f := range bad {
		m := a.Moments()
		f(&m)
		if _, err := NewScalerAccumulatorFrom(m); err == nil {
			t.Errorf("case %d: inconsistent moments accepted", k)
		}
	}
	if _, err := NewScalerAccumulatorFrom(good); err != nil {
		t.Error(err)
	}
}
