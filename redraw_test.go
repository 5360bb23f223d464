package rff

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/modeltest"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/model"
	"github.com/rffkit/rff/rule"
)

// encodeV1 is modeltest.EncodeV1, failing t on an error.
func encodeV1(t *testing.T, h model.Header, theta, bias, probe []float64) []byte {
	t.Helper()
	b, err := modeltest.EncodeV1(h, theta, bias, probe)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// v1Header is the header of a version-1 regression with one output on the map of the given rule, kernel, d and D
// (features F).
func v1Header(ruleName, kern string, d, D, F int) model.Header {
	return model.Header{Task: "regression", Kernel: kern, Sigma: 1, Rule: ruleName, Seed: 1, Points: D, Dim: d,
		Form: "cossin", Features: F, Outputs: 1, Intercept: true, Lambda: 1e-3}
}

// TestLoadRefusesDisproportionateRedraw: a version-1 file stores only the seed of its map, so a small file can ask
// for a redraw of gigabytes (orf and sr-haar draw whole d×d rotations even for one point, sorf and sr-butterfly
// buffers of n = 2^⌈log₂ d⌉ values per row of a block). Such files, crafted with valid checksums, are refused by
// Load before anything is drawn: at once, with next to no allocation, naming the file, the rule, d and the bytes.
// A map within a budget and in proportion, crafted the same way, loads.
func TestLoadRefusesDisproportionateRedraw(t *testing.T) {
	const (
		d8k = 8000
		big = 1 << 20
	)
	ovkCurl := func(ruleName string, d, D int) model.Header {
		h := v1Header(ruleName, "gaussian", d, D, 2*D)
		h.OVK, h.Form, h.Outputs = "curl-free", "", d // curl-free: p = d outputs, p' = 1
		return h
	}
	arccos := v1Header("orf", "arccos0", d8k, 1, 1) // a pointwise kernel: one feature per point
	arccos.Form = ""
	tests := []struct {
		name   string
		h      model.Header
		budget int64    // 0: Load; otherwise ReadAtMost with this limit
		want   []string // in the error
		over   bool     // refused over the budget rather than out of proportion
	}{
		{"orf, d = 8000, D = 1", v1Header("orf", "gaussian", d8k, 1, 2), 0, []string{"orf", "d = 8000", "D = 1", "GiB"}, false},
		{"orf, d = 8000, D = 100", v1Header("orf", "gaussian", d8k, 100, 200), 0, []string{"orf", "d = 8000", "D = 100", "GiB"}, false},
		{"orf, d = 8000, D = 1, cos+phase", func() model.Header {
			h := v1Header("orf", "gaussian", d8k, 1, 1)
			h.Form = "cosphase"
			return h
		}(), 0, []string{"orf", "d = 8000", "GiB"}, false},
		{"orf on a pointwise kernel", arccos, 0, []string{"orf", "d = 8000", "GiB"}, false},
		{"sr-haar, one rule of d+1 points, d = 8000, over a 1 GiB budget", v1Header("sr-haar", "gaussian", d8k, d8k+1, 2*(d8k+1)), 1 << 30, []string{"sr-haar", "d = 8000", "D = 8001", "over the memory budget of 1 GiB"}, true},
		{"sorf, d = 2²⁰, D = 1", v1Header("sorf", "gaussian", big, 1, 2), 0, []string{"sorf", "d = 1048576", "GiB"}, false},
		{"sorf, d = 2²⁰, D = 1, Laplacian (points made dense)", v1Header("sorf", "laplacian", big, 1, 2), 0, []string{"sorf", "d = 1048576", "GiB"}, false},
		{"sr-butterfly, d = 2¹⁸, one rule, over a 256 MiB budget", v1Header("sr-butterfly", "gaussian", 1<<18, 1, 2*(1<<18+1)), 256 << 20, []string{"sr-butterfly", "d = 262144", "over the memory budget of 256 MiB"}, true},
		{"orf, curl-free ORFF, d = 8000, D = 1", ovkCurl("orf", d8k, 1), 0, []string{"orf", "d = 8000", "GiB"}, false},
		{"g within proportion, over a 64 MiB budget", v1Header("g", "gaussian", 4096, 4096, 2*4096), 64 << 20, []string{"g", "d = 4096", "D = 4096", "over the memory budget of 64 MiB"}, true},
		{"sr-haar, d = 20000, D = 1, over its features", v1Header("sr-haar", "gaussian", 20000, 1, 2), 0, []string{"sr-haar", "40002 features, the file says 2"}, false},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			F, P := tc.h.Features, tc.h.Outputs
			theta, probe := make([]float64, F*P), make([]float64, F)
			if tc.h.OVK != "" {
				theta, probe = make([]float64, F), make([]float64, F*P)
			}
			path := filepath.Join(dir, "crafted"+string(rune('a'+i))+".rff")
			if err := os.WriteFile(path, encodeV1(t, tc.h, theta, make([]float64, P), probe), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := model.Load(path); err != nil { // well formed: only the redraw can refuse it
				t.Fatalf("the crafted file does not decode: %v", err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			var err error
			if tc.budget > 0 {
				fh, ferr := os.Open(path)
				if ferr != nil {
					t.Fatal(ferr)
				}
				_, err = ReadAtMost(fh, tc.budget)
				fh.Close()
			} else {
				_, err = Load(path)
			}
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatal("loaded")
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 || took > time.Second {
				t.Errorf("the refusal allocated %d bytes in %v", grew, took)
			}
			msg := err.Error()
			if tc.budget == 0 && !strings.HasPrefix(msg, path+": ") {
				t.Errorf("the error does not name the file: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			var re *RedrawError
			if !errors.As(err, &re) {
				if !strings.Contains(msg, "features, the file says") {
					t.Errorf("err = %v, want a *RedrawError", err)
				}
				return
			}
			if got := re.Budget > 0; got != tc.over {
				t.Errorf("refused over the budget: %v, want %v (%v)", got, tc.over, err)
			}
			if re.Budget > 0 && re.Held+re.Scratch <= re.Budget || re.Budget == 0 && re.Scratch/redrawRatio <= re.Held {
				t.Errorf("refused within its limits: %+v", re)
			}
		})
	}

	// A version-1 map in proportion and within the budget, crafted the same way with its true probe features, loads.
	t.Run("in proportion", func(t *testing.T) {
		for _, c := range []struct {
			rule  rule.Rule
			d, D  int
			kname string
		}{{rule.ORF{}, 300, 100, "gaussian"}, {rule.SR{Rotation: rule.Haar}, 300, 301, "gaussian"}, {rule.SORF{}, 1000, 10, "laplacian"}} {
			k, err := kernel.New(c.kname, 1)
			if err != nil {
				t.Fatal(err)
			}
			fm, err := feature.New(k, c.rule, c.d, c.D, 1)
			if err != nil {
				t.Fatal(err)
			}
			F := fm.Features()
			probe := make([]float64, F)
			fm.TransformBlock(probe, model.ProbeInput(c.d), 1, nil)
			h := v1Header(c.rule.Name(), c.kname, c.d, c.D, F)
			path := filepath.Join(dir, "fine-"+c.rule.Name()+".rff")
			if err := os.WriteFile(path, encodeV1(t, h, make([]float64, F), []float64{0}, probe), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(path); err != nil {
				t.Errorf("%s, d = %d, D = %d: %v", c.rule.Name(), c.d, c.D, err)
			}
		}
	})
}

// TestRedrawProportion: the bound on a version-1 redraw admits every map of at least a fraction of a whole block,
// whatever its dimension (orf from D = d/4, every SR map, sorf from D = n/3), and every map of a small dimension
// however few its points; it refuses a few points in a large dimension. Only the estimate runs: nothing is drawn.
func TestRedrawProportion(t *testing.T) {
	gauss, err := kernel.New("gaussian", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rule string
		d, D int
		ok   bool
	}{
		{"orf", 2000, 1, true}, {"sr-haar", 1900, 1, true}, {"sorf", 1 << 17, 1, true}, {"sr-butterfly", 1 << 20, 1, true},
		{"orf", 8000, 2000, true}, {"orf", 1 << 15, 1 << 13, true}, {"sr-haar", 1 << 15, 1, true},
		{"sorf", 1 << 24, 1 << 23, true}, {"sorf", 1 << 20, 400000, true},
		{"orf", 2500, 1, false}, {"orf", 8000, 1000, false}, {"sorf", 1 << 20, 1, false}, {"sorf", 1 << 24, 1 << 20, false},
	} {
		r, err := rule.Parse(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		h := v1Header(c.rule, "gaussian", c.d, c.D, 0)
		p := planRedraw(&h, r, gauss, nil)
		ok := !(p.scratch > redrawFloor && p.scratch/redrawRatio > p.held)
		if ok != c.ok {
			t.Errorf("%s, d = %d, D = %d: in proportion %v, want %v (keeps %s, scratch %s)", c.rule, c.d, c.D, ok, c.ok,
				FormatBytes(p.held), FormatBytes(p.scratch))
		}
	}
}

// TestV1DenseProbe: a version-1 file's probe features are checked against the redrawn map's within a bound on
// rounding — for dense points that of a d-term sum (another release may sum the projection in another order), for a
// structured map that of its factors (another build may fuse their multiply-adds) — so a probe moved by one ulp in
// every feature loads, while one moved by 10⁻⁶ of each feature, and the probe of another draw (seed 2), are
// refused as points drawn differently.
func TestV1DenseProbe(t *testing.T) {
	dir := t.TempDir()
	k, err := kernel.New("gaussian", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rule rule.Rule
	}{{rule.G{}}, {rule.SORF{}}, {rule.SR{Rotation: rule.Butterfly}}} {
		const d, D = 40, 82 // two simplex rules of d + 1 points
		probeOf := func(seed uint64) []float64 {
			fm, err := feature.New(k, c.rule, d, D, seed)
			if err != nil {
				t.Fatal(err)
			}
			p := make([]float64, fm.Features())
			fm.TransformBlock(p, model.ProbeInput(d), 1, nil)
			return p
		}
		probe := probeOf(1)
		F := len(probe)
		moved, off := make([]float64, F), make([]float64, F)
		for i, v := range probe {
			moved[i] = math.Nextafter(v, math.Inf(1))
			off[i] = v + 1e-6*math.Abs(v)
		}
		for _, tc := range []struct {
			name  string
			probe []float64
			ok    bool
		}{{"true probe", probe, true}, {"one ulp", moved, true}, {"1e-6 off", off, false}, {"another draw", probeOf(2), false}} {
			path := filepath.Join(dir, c.rule.Name()+"-"+strings.ReplaceAll(tc.name, " ", "-")+".rff")
			h := v1Header(c.rule.Name(), "gaussian", d, D, F)
			if err := os.WriteFile(path, encodeV1(t, h, make([]float64, F), []float64{0}, tc.probe), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if (err == nil) != tc.ok {
				t.Errorf("%s, %s: Load error %v, want ok = %v", c.rule.Name(), tc.name, err, tc.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "draws different") {
				t.Errorf("%s, %s: %v, want the points drawn differently named", c.rule.Name(), tc.name, err)
			}
		}
	}
}

// TestProbeRefusesDamagedStructuredPoints: a format-2 file whose structured points were changed — a sorf sign
// flipped, the butterfly angles turned (by 10⁻⁷; by 0.1 for arccos0, whose features see only sign changes) — is
// refused by the probe check, for the Gaussian kernel and for the arc-cosine kernel of order 0, whose features jump
// (once any probe difference passed for it), while the same file with its probe features moved by one ulp loads.
func TestProbeRefusesDamagedStructuredPoints(t *testing.T) {
	data := loadGenerated(t, "reg.csv")
	dir := t.TempDir()
	for _, kern := range []string{"gaussian", "arccos0"} {
		for _, r := range []string{"sorf", "sr-butterfly"} {
			t.Run(kern+"/"+r, func(t *testing.T) {
				cfg := Config{Kernel: kern, Rule: r, Points: 48, Lambda: 1e-3, Preprocess: "standardize"}
				if kern == "gaussian" {
					cfg.Sigma = 1.5
				}
				m, err := Fit(cfg, data)
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(dir, kern+"-"+r+".rff")
				if err := m.Save(path); err != nil {
					t.Fatal(err)
				}
				write := func(name string, edit func(f *model.Model)) string {
					f, err := model.Load(path)
					if err != nil {
						t.Fatal(err)
					}
					edit(f)
					b, err := model.Encode(f)
					if err != nil {
						t.Fatal(err)
					}
					p := filepath.Join(dir, kern+"-"+r+"-"+name+".rff")
					if err := os.WriteFile(p, b, 0o644); err != nil {
						t.Fatal(err)
					}
					return p
				}
				damaged := write("damaged", func(f *model.Model) {
					if r == "sorf" {
						f.Points["signs"][3] = -f.Points["signs"][3]
						return
					}
					// Every angle (some act only on the padding of d up to 2^k); by 10⁻⁷, or by 0.1 for the step
					// features of arccos0, which change only where a projection changes sign.
					turn := 1e-7
					if kern == "arccos0" {
						turn = 0.1
					}
					for i, c := range f.Points["cos"] {
						th := math.Atan2(f.Points["sin"][i], c) + turn
						f.Points["sin"][i], f.Points["cos"][i] = math.Sincos(th)
					}
				})
				if _, err := Load(damaged); err == nil || !strings.Contains(err.Error(), "does not reproduce its probe features") {
					t.Errorf("damaged points: Load error %v", err)
				}
				moved := write("ulp", func(f *model.Model) {
					for i, v := range f.Probe {
						f.Probe[i] = math.Nextafter(v, math.Inf(1))
					}
				})
				if _, err := Load(moved); err != nil {
					t.Errorf("probe moved by one ulp: %v", err)
				}
			})
		}
	}
}

// TestStructuredNormBounds: the norms the probe check takes for structured points, from their stored parameters,
// bound the points' norms computed from the points themselves (projections of the identity), and equal them for SR
// points (a rotated unit vertex times its radius) — for even and odd integrands, and d a power of two or not.
func TestStructuredNormBounds(t *testing.T) {
	for _, c := range []struct {
		r    rule.Rule
		d, D int
		even bool
	}{
		{rule.SORF{}, 5, 20, true}, {rule.SORF{}, 8, 20, true}, {rule.SORF{}, 13, 40, false},
		{rule.SR{Rotation: rule.Butterfly}, 5, 18, true}, {rule.SR{Rotation: rule.Butterfly}, 7, 32, false},
		{rule.SR{Rotation: rule.Butterfly}, 16, 34, true},
	} {
		p, err := c.r.Draw(c.d, c.D, c.even, rand.New(rand.NewPCG(3, uint64(c.d))))
		if err != nil {
			t.Fatal(err)
		}
		norms, ok := structuredNormBounds(rule.Store(p))
		if !ok || len(norms) != p.Len() {
			t.Fatalf("%s d=%d: %d norms, ok %v, for %d points", c.r.Name(), c.d, len(norms), ok, p.Len())
		}
		W := rule.Dense(p)
		for j := range p.Len() {
			var s float64
			for _, v := range W[j*c.d : (j+1)*c.d] {
				s += v * v
			}
			got := math.Sqrt(s)
			if !(got <= norms[j]*(1+1e-12)) {
				t.Errorf("%s d=%d point %d: norm %v above the bound %v", c.r.Name(), c.d, j, got, norms[j])
			}
			if _, sr := c.r.(rule.SR); sr && !(math.Abs(got-norms[j]) <= 1e-12*norms[j]) {
				t.Errorf("%s d=%d point %d: norm %v, radius %v", c.r.Name(), c.d, j, got, norms[j])
			}
		}
	}
}
