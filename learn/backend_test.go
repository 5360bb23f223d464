package learn

import (
	"math"
	"testing"

	"github.com/rffkit/rff/internal/linalg"
)

// TestShardedStatsSameBitsOnEveryBackend: below F = 1024 the accumulator's shards run on all cores at once, each
// mapping its rows (feature maps project in pure Go) and adding them with linalg.SyrkSerial and GemmSerial, so the
// statistics are the same bits on OpenBLAS with one or two threads and in pure Go.
func TestShardedStatsSameBitsOnEveryBackend(t *testing.T) {
	prev := linalg.Info()
	defer func() {
		_ = linalg.Use(prev.Backend)
		linalg.SetThreads(prev.Threads)
	}()
	if err := linalg.Use(linalg.OpenBLAS); err != nil {
		t.Skipf("OpenBLAS: %v", err)
	}
	const d, D, p = 12, 200, 3
	m := gaussMap(t, d, D, 2, 5)
	F := m.Features()
	if GramShards(F) < 2 {
		t.Fatalf("F = %d takes one shard; the test needs several", F)
	}
	n := 2*chunkRows(F) + 77
	X, Y := regression(n, d, p, 0.1, 9)
	var ref *Stats
	for _, run := range []struct {
		backend string
		threads int
	}{{linalg.OpenBLAS, 2}, {linalg.OpenBLAS, 1}, {linalg.PureGo, 2}} {
		if err := linalg.Use(run.backend); err != nil {
			t.Fatal(err)
		}
		linalg.SetThreads(run.threads)
		st, err := Accumulate(m, X, n, Y, p)
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = st
			continue
		}
		for name, pair := range map[string][2][]float64{"ZᵀZ": {st.ZtZ, ref.ZtZ}, "ZᵀY": {st.ZtY, ref.ZtY}, "Σz": {st.SumZ, ref.SumZ}} {
			for i, v := range pair[0] {
				if math.Float64bits(v) != math.Float64bits(pair[1][i]) {
					t.Fatalf("%s with %d threads: %s[%d] = %v, %v on OpenBLAS with 2 threads", run.backend, run.threads, name, i, v, pair[1][i])
				}
			}
		}
	}
}
