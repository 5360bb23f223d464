package learn

import (
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/rffkit/rff/feature"
)

func statsVectors(s *Stats) map[string][]float64 {
	s.Finish()
	return map[string][]float64{"ZtZ": s.ZtZ, "ZtY": s.ZtY, "SumZ": s.SumZ, "SumY": s.SumY, "SumYY": s.SumYY}
}

func compareStats(t *testing.T, name string, got, want *Stats, tol float64) {
	t.Helper()
	if got.N != want.N || got.F != want.F || got.P != want.P {
		t.Fatalf("%s: N, F, P = %d, %d, %d, want %d, %d, %d", name, got.N, got.F, got.P, want.N, want.F, want.P)
	}
	g, w := statsVectors(got), statsVectors(want)
	for k := range w {
		if e := relDiff(g[k], w[k]); e > tol {
			t.Errorf("%s: %s differs by %.3g relative (tolerance %.1g)", name, k, e, tol)
		}
	}
}

// directStats computes the statistics with explicit loops over all rows (the definition).
func directStats(Z, Y []float64, n, F, P int) *Stats {
	s := mustStats(F, P)
	for r := range n {
		z, y := Z[r*F:(r+1)*F], Y[r*P:(r+1)*P]
		for i := range F {
			s.SumZ[i] += z[i]
			for j := range F {
				s.ZtZ[i*F+j] += z[i] * z[j]
			}
			for j := range P {
				s.ZtY[i*P+j] += z[i] * y[j]
			}
		}
		for j := range P {
			s.SumY[j] += y[j]
			s.SumYY[j] += y[j] * y[j]
		}
	}
	s.N = n
	return s
}

func TestStatsAddBlockwise(t *testing.T) {
	// Sums in a different order agree to a few ulps of the (positive) sums: 1e-12 relative is generous.
	const n, d, p = 1100, 3, 2
	X, Y := regression(n, d, p, 0.1, 1)
	m := gaussMap(t, d, 17, 1, 2)
	F := m.Features()
	Z := features(t, m, X, n)
	want := directStats(Z, Y, n, F, p)
	for _, block := range []int{n, 1, 7, 256, 300, 1024} {
		s := mustStats(F, p)
		for r0 := 0; r0 < n; r0 += block {
			r := min(block, n-r0)
			s.Add(Z[r0*F:(r0+r)*F], Y[r0*p:(r0+r)*p], r)
		}
		compareStats(t, "block "+strconv.Itoa(block), s, want, 1e-12)
	}
}

func TestStatsMerge(t *testing.T) {
	const n, d, p = 900, 2, 3
	X, Y := regression(n, d, p, 0.1, 3)
	m := gaussMap(t, d, 10, 0.7, 4)
	F := m.Features()
	Z := features(t, m, X, n)
	one := mustStats(F, p)
	one.Add(Z, Y, n)
	for _, cuts := range [][]int{{0, n}, {0, 1, n}, {0, 100, 101, 555, n}, {0, 300, 600, n}} {
		total := mustStats(F, p)
		for i := 0; i+1 < len(cuts); i++ {
			sh := mustStats(F, p)
			sh.Add(Z[cuts[i]*F:cuts[i+1]*F], Y[cuts[i]*p:cuts[i+1]*p], cuts[i+1]-cuts[i])
			if err := total.Merge(sh); err != nil {
				t.Fatal(err)
			}
		}
		compareStats(t, "merge", total, one, 1e-12)
	}
	if err := one.Merge(mustStats(F+1, p)); err == nil {
		t.Error("Merge accepted statistics of a different F")
	}
	if err := one.Merge(mustStats(F, p+1)); err == nil {
		t.Error("Merge accepted statistics of a different P")
	}
}

func TestAccumulateMatchesDefinition(t *testing.T) {
	const d, p = 4, 2
	for _, n := range []int{0, 1, 255, 256, 257, 3000} {
		X, Y := regression(n, d, p, 0.1, 5)
		m := gaussMap(t, d, 12, 1.3, 6)
		got, err := Accumulate(m, X, n, Y, p)
		if err != nil {
			t.Fatal(err)
		}
		want := directStats(features(t, m, X, n), Y, n, m.Features(), p)
		if n == 0 {
			if got.N != 0 {
				t.Errorf("n = 0: N = %d", got.N)
			}
			continue
		}
		compareStats(t, "n="+strconv.Itoa(n), got, want, 1e-12)
		// Finished: ZtZ is exactly symmetric.
		F := got.F
		for i := range F {
			for j := range i {
				if got.ZtZ[i*F+j] != got.ZtZ[j*F+i] {
					t.Fatalf("n=%d: ZtZ not symmetric at (%d,%d)", n, i, j)
				}
			}
		}
	}
}

func TestAccumulateDeterministic(t *testing.T) {
	const n, d, p = 20000, 5, 2 // F = 48: chunks of 2048 rows, 10 chunks in 8 shards
	X, Y := regression(n, d, p, 0.1, 7)
	m := gaussMap(t, d, 24, 1.5, 8)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var ref map[string][]float64
	for _, procs := range []int{1, 2, 3, 8, 16} {
		runtime.GOMAXPROCS(procs)
		s, err := Accumulate(m, X, n, Y, p)
		if err != nil {
			t.Fatal(err)
		}
		v := statsVectors(s)
		if ref == nil {
			ref = v
			continue
		}
		for k := range ref {
			if !slices.Equal(v[k], ref[k]) {
				t.Errorf("GOMAXPROCS=%d: %s differs from GOMAXPROCS=1", procs, k)
			}
		}
	}
}

func TestAccumulateConcurrentCalls(t *testing.T) {
	// Several Accumulate calls sharing one map at once (run with -race) give the sequential result.
	const n, d, p = 1500, 3, 1
	X, Y := regression(n, d, p, 0.1, 9)
	m := gaussMap(t, d, 8, 1, 10)
	want, err := Accumulate(m, X, n, Y, p)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([]*Stats, 4)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[g], _ = Accumulate(m, X, n, Y, p)
		}()
	}
	wg.Wait()
	for _, s := range got {
		compareStats(t, "concurrent", s, want, 0)
	}
}

func TestAccumulateErrors(t *testing.T) {
	m := gaussMap(t, 2, 4, 1, 1)
	X := []float64{0, 1, 2, 3}
	Y := []float64{1, 2}
	cases := []struct {
		name string
		X, Y []float64
		n, p int
	}{
		{"short X", X[:3], Y, 2, 1},
		{"short Y", X, Y[:1], 2, 1},
		{"p = 0", X, nil, 2, 0},
		{"NaN X", []float64{0, math.NaN(), 2, 3}, Y, 2, 1},
		{"Inf Y", X, []float64{1, math.Inf(1)}, 2, 1},
	}
	for _, c := range cases {
		if _, err := Accumulate(m, c.X, c.n, c.Y, c.p); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	if _, err := Accumulate(nil, X, 2, Y, 1); err == nil {
		t.Error("nil map: no error")
	}
	var nilMap *feature.Map // a nil pointer inside a non-nil Mapper
	if _, err := Accumulate(nilMap, X, 2, Y, 1); err == nil {
		t.Error("nil *feature.Map: no error")
	}
	if _, err := NewAccumulator(nilMap, 1); err == nil {
		t.Error("NewAccumulator(nil *feature.Map): no error")
	}
}

// TestMirrorUpper: the tiled mirror equals the plain double loop for sizes around the tile side.
func TestMirrorUpper(t *testing.T) {
	for _, F := range []int{1, 2, 63, 64, 65, 150} {
		A := make([]float64, F*F)
		for i := range A {
			A[i] = float64(i) + 0.5
		}
		want := append([]float64(nil), A...)
		for i := range F {
			for j := i + 1; j < F; j++ {
				want[j*F+i] = want[i*F+j]
			}
		}
		mirrorUpper(A, F)
		for i := range A {
			if A[i] != want[i] {
				t.Fatalf("F=%d: element (%d,%d) = %v, want %v", F, i/F, i%F, A[i], want[i])
			}
		}
	}
}
