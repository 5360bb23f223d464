package rff

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/learn"
)

// writeDistributedCSV writes n rows of d inputs and a target — a smooth function of the inputs, or its class
// ("cat"/"dog"/"emu", or 1/2/3 when numeric) — with a header, to a file in dir.
func writeDistributedCSV(t *testing.T, dir string, n, d int, target string, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	for j := range d {
		fmt.Fprintf(&b, "x%d,", j+1)
	}
	b.WriteString("y\n")
	for range n {
		s := 0.0
		for j := range d {
			v := 3*float64(j) + float64(j+1)*rng.NormFloat64()
			s += math.Sin(v / float64(j+1))
			fmt.Fprintf(&b, "%.17g,", v)
		}
		k := min(2, int(math.Floor(s/2+1.5)))
		k = max(k, 0)
		switch target {
		case "labels":
			b.WriteString([]string{"cat", "dog", "emu"}[k])
		case "numeric-labels":
			fmt.Fprintf(&b, "%d", k+1)
		default:
			fmt.Fprintf(&b, "%.17g", s+0.1*rng.NormFloat64())
		}
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, "data-"+target+".csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// gatherCSV makes FitCSV's passes over path by hand, with the public pieces a distributed fit uses — a
// ScalerAccumulator, the labels, SampleRows and ChooseSigma, NewMap and a learn.Accumulator — reading chunks of chunk
// rows (shards splits the rows into that many parts whose statistics are merged, as workers' would be). It returns
// the statistics and cfg with its bandwidth.
func gatherCSV(t *testing.T, cfg Config, path string, chunk, shards int) (Config, DistributedStats) {
	t.Helper()
	steps, err := PreprocessSteps(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []*dataset.Data
	var raw [][]string
	s, err := dataset.OpenCSVStream(path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for {
		b, err := s.Next(chunk)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, b)
		var r []string
		for i := range b.N {
			r = append(r, s.Target(i))
		}
		raw = append(raw, r)
	}
	// Pass 1, one accumulator per shard, merged.
	part := func(k int) (lo, hi int) { return k * len(blocks) / shards, (k + 1) * len(blocks) / shards }
	acc := dataset.NewScalerAccumulator(s.D())
	labelSet := map[string]bool{}
	for k := range shards {
		a := dataset.NewScalerAccumulator(s.D())
		lo, hi := part(k)
		for _, b := range blocks[lo:hi] {
			if err := a.Add(b.X, b.N); err != nil {
				t.Fatal(err)
			}
		}
		if err := acc.Merge(a); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range raw {
		for _, l := range r {
			labelSet[l] = true
		}
	}
	sc, err := acc.Scaler(steps)
	if err != nil {
		t.Fatal(err)
	}
	ds := DistributedStats{Scaler: sc, Names: blocks[0].Names, Target: blocks[0].TargetName}
	var coder *dataset.Classes
	P := 1
	if cfg.Task == "classification" {
		coder = dataset.NewClasses(slices.Sorted(maps.Keys(labelSet)), s.Numeric())
		ds.Labels = coder.Labels
		if P = len(coder.Labels); cfg.Encoding == "simplex" {
			P--
		}
	}
	// A regression's targets are shifted by their mean, summed in row order as FitCSV's first pass sums them.
	if cfg.Task != "classification" {
		var sum float64
		for _, b := range blocks {
			for _, y := range b.Y[:b.N] {
				sum += y
			}
		}
		ds.TargetShift = sum / float64(acc.Rows())
	}
	// The bandwidth: the median heuristic on the rows of SampleRows.
	var all []float64
	for _, b := range blocks {
		all = append(all, b.X...)
	}
	idx, err := SampleRows(cfg, acc.Rows())
	if err != nil {
		t.Fatal(err)
	}
	var sample []float64
	for _, i := range idx {
		sample = append(sample, all[i*s.D():(i+1)*s.D()]...)
	}
	if cfg.Sigma, err = ChooseSigma(cfg, sample, sc); err != nil {
		t.Fatal(err)
	}
	// Pass 2.
	fmap, err := NewMap(cfg, s.D())
	if err != nil {
		t.Fatal(err)
	}
	for k := range shards {
		a, err := learn.NewAccumulator(fmap, P)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := part(k)
		for bi, b := range blocks[lo:hi] {
			x := slices.Clone(b.X)
			sc.Apply(x, b.N, b.D)
			y := slices.Clone(b.Y[:b.N])
			for i := range y {
				y[i] -= ds.TargetShift
			}
			if coder != nil {
				cls := make([]int, b.N)
				for i := range cls {
					c, ok := coder.Class(raw[lo+bi][i])
					if !ok {
						t.Fatalf("label %q not coded", raw[lo+bi][i])
					}
					cls[i] = c
				}
				if cfg.Encoding == "simplex" {
					y = learn.SimplexEncode(cls, len(coder.Labels))
				} else {
					y = learn.OneHot(cls, len(coder.Labels), false)
				}
			}
			if err := a.Add(x, b.N, y); err != nil {
				t.Fatal(err)
			}
		}
		st, err := a.Stats()
		if err != nil {
			t.Fatal(err)
		}
		if ds.Stats == nil {
			ds.Stats = st
		} else if err := ds.Stats.Merge(st); err != nil {
			t.Fatal(err)
		}
	}
	return cfg, ds
}

func modelBytes(t *testing.T, m *Model) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// FitFromStats on the statistics FitCSV accumulates — the same chunks in the same order — writes the same model
// file, byte for byte, for regression, classification (string and numeric labels; one-hot and simplex codes) and
// several preprocessings, kernels, rules and forms. Merged from shards, the sums run in another order: the
// statistics and the preprocessing differ by relative rounding errors of order 1e-15, which the ridge solve
// amplifies at most by the condition number of ZᵀZ/N + λI, below 1 + 1/λ = 1e4 (features have ‖z‖² = k(x, x) = 1):
// predictions then agree to ~1e-11 of their scale, well within 1e-10.
func TestFitFromStatsMatchesFitCSV(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, target string
		cfg          Config
	}{
		{"regression", "reg", Config{Points: 64, Lambda: 1e-4, Seed: 3}},
		{"regression with uncertainty", "reg", Config{Points: 48, Lambda: 1e-4, Seed: 9, Uncertainty: true}},
		{"regression minmax orf", "reg", Config{Points: 50, Lambda: 1e-4, Seed: 4, Preprocess: "minmax", Rule: "orf"}},
		{"regression laplace cosphase", "reg", Config{Points: 40, Lambda: 1e-4, Seed: 5, Kernel: "laplacian", Form: "cosphase", Rule: "g", Sigma: 2}},
		{"classification onehot", "labels", Config{Task: "classification", Points: 64, Lambda: 1e-4, Seed: 6}},
		{"classification simplex", "labels", Config{Task: "classification", Encoding: "simplex", Points: 64, Lambda: 1e-4, Seed: 7}},
		{"classification numeric", "numeric-labels", Config{Task: "classification", Points: 64, Lambda: 1e-4, Seed: 8, Preprocess: "none"}},
	}
	for _, c := range cases {
		path := writeDistributedCSV(t, dir, 700, 4, c.target, 9)
		const chunk = 128
		want, err := FitCSV(c.cfg, path, StreamOptions{ChunkRows: chunk})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := FitFromStats(gatherCSV(t, c.cfg, path, chunk, 1))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !bytes.Equal(modelBytes(t, got), modelBytes(t, want)) {
			t.Errorf("%s: FitFromStats and FitCSV write different files", c.name)
		}
		sharded, err := FitFromStats(gatherCSV(t, c.cfg, path, 50, 4))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		data, err := dataset.Load(path, dataset.Options{})
		if err != nil {
			t.Fatal(err)
		}
		pw, pg := mustPredict(t, want, data), mustPredict(t, sharded, data)
		scale := 0.0
		for _, v := range pw.Values {
			scale = math.Max(scale, math.Abs(v))
		}
		for i := range pw.Values {
			if math.Abs(pw.Values[i]-pg.Values[i]) > 1e-10*scale {
				t.Fatalf("%s: prediction %d: sharded %v, FitCSV %v", c.name, i, pg.Values[i], pw.Values[i])
			}
		}
		if !slices.Equal(pw.Labels, pg.Labels) && c.cfg.Task == "classification" {
			t.Errorf("%s: sharded classes differ", c.name)
		}
	}
}

func TestFitFromStatsChecks(t *testing.T) {
	dir := t.TempDir()
	path := writeDistributedCSV(t, dir, 200, 3, "labels", 2)
	cfg := Config{Task: "classification", Points: 16, Lambda: 1e-6, Seed: 1}
	fresh := func() DistributedStats {
		c, ds := gatherCSV(t, cfg, path, 64, 1)
		cfg.Sigma = c.Sigma
		return ds
	}
	if _, err := FitFromStats(cfg, fresh()); err != nil {
		t.Fatal(err)
	}
	ds := fresh()
	ds.Extra = map[string]any{"skipped_rows": 3}
	m, err := FitFromStats(cfg, ds)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Read(bytes.NewReader(modelBytes(t, m)))
	if err != nil {
		t.Fatal(err)
	}
	if got := back.file.Extra["skipped_rows"]; got != 3.0 {
		t.Errorf("Extra after a round trip: %v", back.file.Extra)
	}
	bad := []struct {
		name string
		cfg  Config
		edit func(*DistributedStats)
	}{
		{"no scaler", cfg, func(d *DistributedStats) { d.Scaler = nil }},
		{"no stats", cfg, func(d *DistributedStats) { d.Stats = nil }},
		{"other steps", Config{Task: "classification", Points: 16, Preprocess: "minmax"}, func(*DistributedStats) {}},
		{"names", cfg, func(d *DistributedStats) { d.Names = d.Names[:2] }},
		{"regression with labels", Config{Points: 16}, func(*DistributedStats) {}},
		{"one class", cfg, func(d *DistributedStats) { d.Labels = d.Labels[:1] }},
		{"repeated label", cfg, func(d *DistributedStats) { d.Labels[1] = d.Labels[0] }},
		{"other D", Config{Task: "classification", Points: 32}, func(*DistributedStats) {}},
		{"simplex outputs", Config{Task: "classification", Points: 16, Encoding: "simplex"}, func(*DistributedStats) {}},
		{"no rows", cfg, func(d *DistributedStats) { d.Stats, _ = learn.NewStats(d.Stats.F, d.Stats.P) }},
		{"NaN", cfg, func(d *DistributedStats) { d.Stats.ZtY[0] = math.NaN() }},
		{"exact", Config{Task: "classification", Points: 16, Exact: true}, func(*DistributedStats) {}},
		{"shifted classes", cfg, func(d *DistributedStats) { d.TargetShift = 1 }},
		{"NaN shift", Config{Points: 16}, func(d *DistributedStats) { d.Labels, d.TargetShift = nil, math.NaN() }},
		{"hinge", Config{Task: "classification", Points: 16, Loss: "hinge", Lambda: 1}, func(*DistributedStats) {}},
		{"tuned", Config{Task: "classification", Points: 16, Tune: true}, func(*DistributedStats) {}},
	}
	for _, b := range bad {
		ds := fresh()
		b.edit(&ds)
		if b.cfg.Sigma == 0 {
			b.cfg.Sigma = cfg.Sigma
		}
		if _, err := FitFromStats(b.cfg, ds); err == nil {
			t.Errorf("%s: accepted", b.name)
		}
	}
	// NewMap draws FitCSV's map: the same features for the same Config on every call.
	m1, err := NewMap(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	m2, _ := NewMap(cfg, 3)
	z1, z2 := make([]float64, m1.Features()), make([]float64, m2.Features())
	m1.TransformBlock(z1, []float64{0.1, -0.2, 0.3}, 1, nil)
	m2.TransformBlock(z2, []float64{0.1, -0.2, 0.3}, 1, nil)
	if !slices.Equal(z1, z2) {
		t.Error("NewMap draws differ for the same seed")
	}
	if _, err := NewMap(cfg, 0); err == nil {
		t.Error("NewMap on 0 inputs succeeded")
	}
	cfg.Sigma = 0
	if _, err := NewMap(cfg, 3); err == nil {
		t.Error("NewMap without a bandwidth succeeded")
	}
	if _, err := NewMap(Config{Kernel: "arccos1", Points: 8}, 3); err != nil {
		t.Errorf("NewMap of a scale-free kernel: %v", err)
	}
	if _, err := NewMap(Config{Task: "hermite", Lambda: 1}, 3); err == nil {
		t.Error("NewMap for a hermite fit succeeded")
	}
}

// TestSampleRowsRange: a row count the float64 indices cannot hold, or a negative one, is an error at once (at
// math.MaxInt the reservoir's loop would also overflow its counter and never end).
func TestSampleRowsRange(t *testing.T) {
	for _, n := range []int{-1, 1<<53 + 1, math.MaxInt} {
		if _, err := SampleRows(Config{Seed: 1}, n); err == nil || !strings.Contains(err.Error(), "2^53") {
			t.Errorf("n = %d: %v", n, err)
		}
	}
}
