package dataset

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// ScalerMoments are the column statistics a [ScalerAccumulator] holds: the number of rows N and, per column, the
// mean, M2 = Σ (x − mean)² and the extremes. They let the statistics of blocks accumulated on different machines
// travel (they are plain values) and be merged ([ScalerAccumulator.Merge]), so that one scaler is fitted on data
// no machine holds whole.
type ScalerMoments struct {
	N        int
	Mean, M2 []float64
	Min, Max []float64
}

// Moments returns a copy of the statistics of the rows added so far (zeros when none were, and for a nil
// accumulator).
func (a *ScalerAccumulator) Moments() ScalerMoments {
	if a == nil {
		return ScalerMoments{}
	}
	return ScalerMoments{N: a.n, Mean: slices.Clone(a.mean), M2: slices.Clone(a.m2), Min: slices.Clone(a.lo),
		Max: slices.Clone(a.hi)}
}

// NewScalerAccumulatorFrom returns an accumulator holding the statistics m (as returned by Moments, possibly on
// another machine). It returns an error unless the four slices have the same length d ≥ 1, N ≥ 0, every value is
// finite, M2 ≥ 0 and, when N ≥ 1, Min ≤ Max.
func NewScalerAccumulatorFrom(m ScalerMoments) (*ScalerAccumulator, error) {
	d := len(m.Mean)
	switch {
	case d < 1:
		return nil, errors.New("preprocess: moments of no columns")
	case len(m.M2) != d || len(m.Min) != d || len(m.Max) != d:
		return nil, fmt.Errorf("preprocess: moments of %d columns with %d M2, %d minima and %d maxima", d, len(m.M2), len(m.Min), len(m.Max))
	case m.N < 0:
		return nil, fmt.Errorf("preprocess: moments of %d rows", m.N)
	}
	for j := range d {
		for _, v := range []float64{m.Mean[j], m.M2[j], m.Min[j], m.Max[j]} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("preprocess: column %d: non-finite moment %v", j+1, v)
			}
		}
		if m.M2[j] < 0 || (m.N > 0 && m.Min[j] > m.Max[j]) {
			return nil, fmt.Errorf("preprocess: column %d: inconsistent moments (M2 = %v, min = %v, max = %v)", j+1, m.M2[j], m.Min[j], m.Max[j])
		}
	}
	a := NewScalerAccumulator(d)
	a.n = m.N
	copy(a.mean, m.Mean)
	copy(a.m2, m.M2)
	copy(a.lo, m.Min)
	copy(a.hi, m.Max)
	return a, nil
}

// Merge adds the statistics of o (rows accumulated elsewhere) to a, by the pairwise update of Chan, Golub and
// LeVeque: with δ = mean_o − mean_a and n = n_a + n_o, mean = mean_a + δ·n_o/n and M2 = M2_a + M2_o + δ²·n_a·n_o/n.
// The result agrees with one accumulator fed every row, in any order and grouping, to rounding (relative
// differences of order 1e-15 for well-conditioned columns). It returns an error if the column counts differ, or if a
// or o is nil or zero.
func (a *ScalerAccumulator) Merge(o *ScalerAccumulator) error {
	if err := a.check("Merge"); err != nil {
		return err
	}
	if o == nil || o.d < 1 {
		return errors.New("preprocess: ScalerAccumulator.Merge: nil or zero accumulator to merge")
	}
	if o.d != a.d {
		return fmt.Errorf("preprocess: merging statistics of %d columns into %d", o.d, a.d)
	}
	if err := a.mergeCov(o); err != nil {
		return err
	}
	switch {
	case o.n == 0:
		return nil
	case a.n == 0:
		a.n = o.n
		copy(a.mean, o.mean)
		copy(a.m2, o.m2)
		copy(a.lo, o.lo)
		copy(a.hi, o.hi)
		return nil
	}
	na, nb := float64(a.n), float64(o.n)
	nt := na + nb
	for j := range a.d {
		delta := o.mean[j] - a.mean[j]
		a.mean[j] += delta * nb / nt
		a.m2[j] += o.m2[j] + delta*delta*na*nb/nt
		a.lo[j] = min(a.lo[j], o.lo[j])
		a.hi[j] = max(a.hi[j], o.hi[j])
	}
	a.n += o.n
	return nil
}
