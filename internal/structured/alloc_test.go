package structured

import "testing"

// TestNoAllocation: the Apply-style hot paths never allocate.
func TestNoAllocation(t *testing.T) {
	const d, B = 100, 8
	rng := newRNG(40)
	q := NewButterfly(d, rng)
	x := randBlock(d, B, rng)
	s := make([]float64, d*B)
	h := randBlock(128, B, rng)
	dst := make([]float64, (d+1)*B)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"Butterfly.Apply", func() { q.Apply(x, B, s) }},
		{"Butterfly.ApplyT", func() { q.ApplyT(x, B, s) }},
		{"FWHT", func() { FWHT(h, 128, B) }},
		{"SimplexT", func() { SimplexT(dst, x, d, B) }},
	} {
		if n := testing.AllocsPerRun(20, c.f); n != 0 {
			t.Errorf("%s: %g allocations per call", c.name, n)
		}
	}
}
