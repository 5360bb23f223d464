package rff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/blocks"
)

// TestPredictRowsSegments: PredictRows preprocesses and predicts a segment of row blocks at a time, and the result
// is the bits of every block predicted alone and of one segment over all rows, for every kind of stored model; an
// error names the row counted from the first row of the call, not of its segment.
func TestPredictRowsSegments(t *testing.T) {
	files, _ := filepath.Glob("testdata/v2/*.rff")
	if len(files) < 16 {
		t.Fatalf("found %d golden files", len(files))
	}
	defer func(b int) { segmentBytes = b }(segmentBytes)
	refused := 0
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".rff"), func(t *testing.T) {
			m, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			d := m.file.Dim
			segmentBytes = 1 // the smallest segments: one block per core
			seg := segmentRows(m.file.MapDim())
			if seg%blocks.Rows != 0 || seg < blocks.Rows {
				t.Fatalf("segment of %d rows is not whole blocks of %d", seg, blocks.Rows)
			}
			n := 3*seg + 37
			rng := rand.New(rand.NewPCG(uint64(n), 7))
			X := make([]float64, n*d)
			for i := range X {
				X[i] = rng.NormFloat64()
			}
			got, err := m.PredictRows(X, n)
			if err != nil {
				t.Fatal(err)
			}
			var alone []float64
			var labels []string
			for r0 := 0; r0 < n; r0 += blocks.Rows {
				rows := min(blocks.Rows, n-r0)
				p, err := m.PredictRows(X[r0*d:(r0+rows)*d], rows)
				if err != nil {
					t.Fatal(err)
				}
				alone, labels = append(alone, p.Values...), append(labels, p.Labels...)
			}
			segmentBytes = math.MaxInt
			whole, err := m.PredictRows(X, n)
			if err != nil {
				t.Fatal(err)
			}
			for _, ref := range []struct {
				what   string
				values []float64
				labels []string
			}{{"blocks alone", alone, labels}, {"one segment", whole.Values, whole.Labels}} {
				if len(got.Values) != len(ref.values) {
					t.Fatalf("%d values, %s %d", len(got.Values), ref.what, len(ref.values))
				}
				for i, v := range got.Values {
					if math.Float64bits(v) != math.Float64bits(ref.values[i]) {
						t.Fatalf("value %d: %v, %s %v", i, v, ref.what, ref.values[i])
					}
				}
				if !slices.Equal(got.Labels, ref.labels) {
					t.Fatalf("labels differ from %s", ref.what)
				}
			}
			// A value the preprocessing or the features overflow on, in the third segment: the error of one segment
			// over all rows (a Gaussian Nyström model predicts such a row finitely: no error at all).
			bad := 2*seg + 3
			X[bad*d] = 1.7e308
			_, werr := m.PredictRows(X, n)
			segmentBytes = 1
			_, err = m.PredictRows(X, n)
			if fmt.Sprint(err) != fmt.Sprint(werr) {
				t.Fatalf("an overflowing value in row %d: %v; one segment: %v", bad+1, err, werr)
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), fmt.Sprintf("row %d: ", bad+1)) {
					t.Fatalf("an overflowing value in row %d: %v", bad+1, err)
				}
				refused++
			}
		})
	}
	if refused == 0 {
		t.Error("no model refused an overflowing row: the row numbers of errors went untested")
	}
}

// TestPredictBytes: PredictBytes bounds everything PredictRows allocates for a few blocks of rows (all of it could
// be live at once), for every kind of stored model and for models whose block scratch dominates: a wide
// feature map, an exact model on many rows, a PCA step on wide rows predicting one row, and
// one whose products by the components need packing buffers larger than a block's other scratch.
func TestPredictBytes(t *testing.T) {
	if raceEnabled {
		// The race detector's runtime drops a quarter of what is put into a sync.Pool (the feature maps' and the
		// rules' block scratch), so that a call allocates scratch again and again: TotalAlloc then counts garbage
		// that is never live at once. The bound is checked without it.
		t.Skip("allocations are not measurable under the race detector")
	}
	models := map[string]*Model{}
	files, _ := filepath.Glob("testdata/v2/*.rff")
	for _, f := range files {
		m, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		models[filepath.Base(f)] = m
	}
	fit := func(name string, c Config, n, d int) {
		rng := rand.New(rand.NewPCG(uint64(n), uint64(d)))
		X, Y := make([]float64, n*d), make([]float64, n)
		for i := range X {
			X[i] = rng.NormFloat64()
		}
		for i := range Y {
			Y[i] = X[i*d] + 0.1*rng.NormFloat64()
		}
		m, err := Fit(c, &dataset.Data{X: X, N: n, D: d, Y: Y})
		if err != nil {
			t.Fatal(err)
		}
		models[name] = m
	}
	fit("wide map", Config{Points: 2048, Sigma: 3, Lambda: 1e-3, Seed: 1}, 600, 20)
	fit("exact", Config{Exact: true, Sigma: 3, Lambda: 1e-3}, 2000, 5)
	fit("pca", Config{Points: 64, Sigma: 3, Lambda: 1e-3, Seed: 1, Preprocess: "standardize,pca:8"}, 400, 300)
	fit("pca packing", Config{Points: 61, Sigma: 3, Lambda: 1e-3, Seed: 1, Preprocess: "pca:60"}, 300, 2000)
	for name, m := range models {
		d := m.file.Dim
		seg := segmentRows(m.file.MapDim())
		// Rows of a few blocks: beyond, TotalAlloc also counts the garbage of blocks that are no longer live.
		for _, n := range []int{1, 300, min(2000, seg)} {
			rng := rand.New(rand.NewPCG(uint64(n), 3))
			X := make([]float64, n*d)
			for i := range X {
				X[i] = rng.NormFloat64()
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.GC() // and sync.Pools are empty: the worst case
			runtime.ReadMemStats(&before)
			if _, err := m.PredictRows(X, n); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			if got, bound := after.TotalAlloc-before.TotalAlloc, m.PredictBytes(n); got > uint64(bound) {
				t.Errorf("%s, %d rows: PredictRows allocated %d bytes, PredictBytes says at most %d", name, n, got, bound)
			}
		}
		// Row counts no memory holds saturate, never wrap to a negative size a budget check would pass.
		for _, n := range []int{math.MaxInt, math.MaxInt - 200, 1 << 50} {
			if b := m.PredictBytes(n); b < 1<<50 {
				t.Errorf("%s: PredictBytes(%d) = %d", name, n, b)
			}
		}
	}
}
