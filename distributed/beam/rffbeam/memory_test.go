package rffbeam

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rffkit/rff"
)

// The estimate bounds the heap of a fit on prism, which runs the workers and the driver in this process: the
// partial ZᵀZ of four bundles at once, the buffers their chunks are mapped into, the encoded accumulators and the garbage collector's headroom. Sampled
// every few milliseconds, the heap in use stays below the worker's and the driver's estimates together (prism's
// own heap included).
func TestMemoryEstimateBoundsHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("a fit of F = 2016 features on 24000 rows")
	}
	dir := t.TempDir()
	header, lines := dataLines(24000, 15, "reg", 34)
	glob, _ := writeShards(t, dir, header, lines, fourShards)
	runtime.GC()
	var peak uint64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	})
	r, err := Fit(context.Background(), Options{Config: rff.Config{Points: 1000, Sigma: 3, Lambda: 1e-6}, Input: glob})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	m := r.Memory
	if m.F != 2016 || m.Bundles != 4 || m.Shards != 1 {
		t.Fatalf("estimate %s", m)
	}
	if bound := uint64(m.Worker + m.Driver); peak > bound {
		t.Errorf("heap in use peaked at %s, above the estimate of %s (%s)", rff.FormatBytes(int64(peak)), rff.FormatBytes(int64(bound)), m)
	} else {
		t.Logf("heap in use peaked at %s; estimate %s", rff.FormatBytes(int64(peak)), rff.FormatBytes(int64(bound)))
	}
}

// The estimate of a bundle counts what its learn.Accumulator can hold at once — the partial ZᵀZ, and the buffers of
// the chunks being mapped: from F = 1024 the chunk's features and the projections of each core mapping its blocks,
// below it the features and projections of each shard mapped at once — with the packed accumulator; a worker's and
// the driver's estimates add the garbage collector's headroom.
func TestEstimateMemoryCounts(t *testing.T) {
	for _, c := range []struct {
		name             string
		F, points, cpus  int
		bundles          int
		chunks, projRows int // buffers of a chunk of features; rows of projections
	}{
		{"one Gram on 2 cores", 2016, 1008, 2, 4, 1, 2 * 256},
		{"one Gram on 16 cores", 2048, 1024, 16, 4, 1, 4 * 256},
		{"one Gram in chunks of one block", 8192, 4096, 16, 1, 1, 256},
		{"shards on 2 cores", 512, 256, 2, 1, 2, 2 * 2048},
		{"shards on 16 cores", 512, 256, 16, 1, 8, 8 * 2048},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			simulateCPUs(t, c.cpus)
			m := EstimateMemory(c.F, 1, 10, c.points, 0, c.bundles)
			chunk := float64(ChunkRows(c.F))
			F := float64(c.F)
			gram := 8 * F * F
			packed := 8 * F * (F + 1) / 2
			buffers := 8 * (float64(c.chunks)*chunk*F + float64(c.projRows*c.points))
			if got := float64(m.Bundle); got < float64(m.Shards)*gram+buffers+packed {
				t.Errorf("bundle %s, below %d ZᵀZ (%s), %d chunks of features and %d rows of projections (%s) and the packed accumulator",
					rff.FormatBytes(m.Bundle), m.Shards, rff.FormatBytes(int64(gram)), c.chunks, c.projRows, rff.FormatBytes(int64(buffers)))
			}
			if live := max(int64(c.bundles)*m.Bundle, m.Merge); m.Worker < live+live/5 {
				t.Errorf("worker %s: no headroom over %s", rff.FormatBytes(m.Worker), rff.FormatBytes(live))
			}
			if live := int64(gram + packed); m.Driver < live+live/5 {
				t.Errorf("driver %s: no headroom over %s", rff.FormatBytes(m.Driver), rff.FormatBytes(live))
			}
		})
	}
}

// On prism the bundles run in this process, up to 8 at once (min(8, files), each bundle
// holding at least one file) whatever Options.Bundles says: a smaller Bundles must not lower the estimate the
// budget is checked against — the memory actually used does not go down — and the refusal must not advise
// lowering it. A larger Bundles is kept: it can only make the check stricter.
func TestLocalRunnerBundles(t *testing.T) {
	dir := t.TempDir()
	header, lines := dataLines(160, 3, "reg", 31)
	names := make([]string, 8)
	for i := range names {
		names[i] = fmt.Sprintf("part-%d.csv", i)
	}
	glob, _ := writeShards(t, dir, header, lines, names)
	cfg := rff.Config{Points: 1024, Sigma: 2, Lambda: 1e-4}
	for _, c := range []struct {
		name        string
		bundles     int
		wantBundles int
	}{
		{"one bundle given", 1, 8},
		{"default", 0, 8},
		{"more than prism runs", 12, 12},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			r := fitBeam(t, Options{Config: cfg, Input: glob, Bundles: c.bundles, WorkerMemory: -1})
			if r.Memory.Bundles != c.wantBundles {
				t.Errorf("--bundles %d on prism with 8 files: estimate for %d bundles, want %d", c.bundles, r.Memory.Bundles, c.wantBundles)
			}
		})
	}
	// A budget that one bundle fits but eight do not: refused, and the advice names only what helps on prism.
	one := fitBeam(t, Options{Config: cfg, Input: glob, Bundles: 1, WorkerMemory: -1})
	budget := max(one.Memory.Bundle, one.Memory.Merge) * 2
	_, err := Fit(context.Background(), Options{Config: cfg, Input: glob, Bundles: 1, WorkerMemory: budget})
	var me *MemoryError
	if !errors.As(err, &me) {
		t.Fatalf("Bundles 1 under a budget of %s for 8 concurrent bundles of %s: %v, want a MemoryError", rff.FormatBytes(budget), rff.FormatBytes(one.Memory.Bundle), err)
	}
	if strings.Contains(err.Error(), "bundles per worker") || me.RunnerBundles != 8 {
		t.Errorf("prism runs 8 bundles at once: the refusal must not advise fewer (runner bundles %d): %v", me.RunnerBundles, err)
	}
	// The default batch comes from the bundles given (they are part of the grouping of rows into sums, so of the
	// bits), not from those the estimate counts: one bundle maps batches of several chunks, eight one chunk each.
	small := rff.Config{Points: 64, Sigma: 2, Lambda: 1e-4} // F = 128: below F = 1024, batches of several chunks
	r1 := fitBeam(t, Options{Config: small, Input: glob, Bundles: 1, WorkerMemory: -1})
	r8 := fitBeam(t, Options{Config: small, Input: glob, WorkerMemory: -1})
	if r1.Memory.Shards <= r8.Memory.Shards {
		t.Errorf("--bundles 1: %d chunks a batch, default bundles: %d; want more for one bundle", r1.Memory.Shards, r8.Memory.Shards)
	}
	// The direct runner runs one bundle at a time: the bundles given are counted as given.
	d := fitBeam(t, Options{Config: cfg, Input: glob, Runner: "direct", Bundles: 1, WorkerMemory: -1})
	if d.Memory.Bundles != 1 {
		t.Errorf("--bundles 1 on direct: estimate for %d bundles, want 1", d.Memory.Bundles)
	}
}

// The estimate saturates instead of overflowing: a batch of nearly MaxInt rows or a map of nearly MaxInt features
// must come out as an enormous need that every budget refuses, and the description must not print a wrapped-around
// size (a ZᵀZ of 2⁶³ features "32 B each").
func TestEstimateMemorySaturates(t *testing.T) {
	const huge = int64(1) << 60 // beyond any machine's memory
	for _, c := range []struct {
		name                      string
		F, points, batch, bundles int
	}{
		{"batch rows near MaxInt", 64, 32, math.MaxInt - 1000, 1},
		{"batch rows at MaxInt", 64, 32, math.MaxInt, 8},
		{"features near MaxInt", math.MaxInt - 1, math.MaxInt / 2, 0, 1},
		{"features at 2^32", 1 << 32, 1 << 31, 0, 8},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			m := EstimateMemory(c.F, 1, 64, c.points, c.batch, c.bundles)
			if m.Worker < huge || m.Bundle <= 0 || m.Merge <= 0 || m.Driver <= 0 {
				t.Errorf("worker %d, bundle %d, merge %d, driver %d: want saturated sizes of at least %d", m.Worker, m.Bundle, m.Merge, m.Driver, huge)
			}
			if c.F > 1<<20 && (m.Driver < huge || strings.Contains(m.String()+m.Need(), " B each")) {
				t.Errorf("F = %d: driver %d; %s; %s", c.F, m.Driver, m, m.Need())
			}
		})
	}
}

// MemoryError.Lower names only what lowers a worker's need: D always; the bundles when more than one runs and more
// than the runner would run anyway; the batch rows when a batch holds more than one chunk (one partial ZᵀZ each);
// only D when the final merge, which depends on F alone, dominates.
func TestMemoryErrorLower(t *testing.T) {
	for _, c := range []struct {
		name   string
		m      Memory
		runner int
		want   string
	}{
		{"merge dominates", Memory{Bundles: 4, Shards: 2, Bundle: 10, Merge: 100}, 0, "D"},
		{"remote, one chunk per batch", Memory{Bundles: 4, Shards: 1, Bundle: 100, Merge: 10}, 0, "D or bundles"},
		{"remote, one bundle", Memory{Bundles: 1, Shards: 4, Bundle: 100, Merge: 10}, 0, "D or batch"},
		{"remote, every setting", Memory{Bundles: 4, Shards: 2, Bundle: 100, Merge: 10}, 0, "D, bundles or batch"},
		{"prism runs them all anyway", Memory{Bundles: 8, Shards: 2, Bundle: 100, Merge: 10}, 8, "D or batch"},
		{"bundles given above prism's", Memory{Bundles: 16, Shards: 1, Bundle: 100, Merge: 10}, 8, "D or bundles"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := &MemoryError{Memory: c.m, RunnerBundles: c.runner}
			if got := e.Lower("D", "bundles", "batch"); got != c.want {
				t.Errorf("Lower = %q, want %q", got, c.want)
			}
		})
	}
}
