package rffbeam

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/learn"
)

// testRows returns a block of n rows of d inputs with regression targets or class labels.
func testRows(rng *rand.Rand, n, d int, classify bool) Rows {
	r := Rows{File: "f.csv", N: n}
	for range n {
		s := 0.0
		for j := range d {
			v := float64(j) + rng.NormFloat64()
			s += v
			r.X = append(r.X, v)
		}
		if classify {
			r.T = append(r.T, []string{"a", "b", "c"}[int(math.Abs(s))%3])
		} else {
			r.Y = append(r.Y, math.Sin(s))
		}
	}
	return r
}

func testStatsFn(t *testing.T, d int, classify bool) *StatsFn {
	t.Helper()
	cfg := rff.Config{Points: 24, Sigma: 1.5, Lambda: 1e-4, Seed: 9}
	var labels []string
	if classify {
		cfg.Task, cfg.Encoding, labels = "classification", "simplex", []string{"a", "b", "c"}
	}
	x := testRows(rand.New(rand.NewPCG(1, 1)), 50, d, false).X
	sc, err := dataset.FitScaler(x, 50, d, []dataset.Step{dataset.StepStandardize})
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewStatsFn(cfg, d, sc, labels, false)
	if err != nil {
		t.Fatal(err)
	}
	f.BatchRows = 100
	return f
}

// accOf accumulates blocks into a new accumulator of f.
func accOf(t *testing.T, f *StatsFn, blocks ...Rows) *statsAcc {
	t.Helper()
	a, err := f.CreateAccumulator()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if a, err = f.AddInput(a, b); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// roundTrip encodes and decodes an accumulator, as a runner does between bundles.
func roundTrip(t *testing.T, a *statsAcc) *statsAcc {
	t.Helper()
	b, err := encodeStatsAcc(a)
	if err != nil {
		t.Fatal(err)
	}
	c, err := decodeStatsAcc(b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// statsDiff is the largest difference between two sets of statistics, relative to the largest magnitude of each
// array (ZᵀZ: its upper triangle).
func statsDiff(a, b *learn.Stats) float64 {
	upper := func(s *learn.Stats) []float64 {
		var u []float64
		for i := range s.F {
			u = append(u, s.ZtZ[i*s.F+i:(i+1)*s.F]...)
		}
		return u
	}
	worst := 0.0
	if a.N != b.N {
		return math.Inf(1)
	}
	for _, pair := range [][2][]float64{{upper(a), upper(b)}, {a.ZtY, b.ZtY}, {a.SumZ, b.SumZ}, {a.SumY, b.SumY}, {a.SumYY, b.SumYY}} {
		scale := 0.0
		for _, v := range pair[0] {
			scale = math.Max(scale, math.Abs(v))
		}
		for i := range pair[0] {
			worst = math.Max(worst, math.Abs(pair[0][i]-pair[1][i])/math.Max(scale, 1e-300))
		}
	}
	return worst
}

// An accumulator survives encoding exactly: the upper triangle of ZᵀZ and every sum, bit for bit, with rows still
// pending a batch flushed first; the packed form holds F(F+1)/2 values of ZᵀZ.
func TestStatsAccRoundTrip(t *testing.T) {
	for _, classify := range []bool{false, true} {
		f := testStatsFn(t, 4, classify)
		rng := rand.New(rand.NewPCG(2, 2))
		a := accOf(t, f, testRows(rng, 130, 4, classify), testRows(rng, 20, 4, classify)) // 150 rows: 50 pending
		b, err := encodeStatsAcc(a)
		if err != nil {
			t.Fatal(err)
		}
		F, P := f.Features(), f.Outputs()
		if P != 1+boolInt(classify) {
			t.Fatalf("P = %d", P)
		}
		if got, min := len(b), 8*(F*(F+1)/2+F*P+F+2*P); got < min || got > min+16 {
			t.Errorf("encoded %d bytes for F = %d, P = %d: want %d plus a short header", got, F, P, min)
		}
		c, err := decodeStatsAcc(b)
		if err != nil {
			t.Fatal(err)
		}
		if c.st.N != 150 || statsDiff(a.st, c.st) != 0 {
			t.Errorf("classify=%v: round trip changed the statistics (N %d, diff %g)", classify, c.st.N, statsDiff(a.st, c.st))
		}
		// The empty accumulator, and corrupt messages.
		e, _ := f.CreateAccumulator()
		eb, _ := encodeStatsAcc(e)
		if d, err := decodeStatsAcc(eb); err != nil || d.st != nil {
			t.Errorf("empty accumulator: %v", err)
		}
		for _, bad := range [][]byte{nil, b[:len(b)-1], append(slices.Clone(b), 0), {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}} {
			if _, err := decodeStatsAcc(bad); !errors.Is(err, errCorrupt) {
				t.Errorf("corrupt message of %d bytes: %v", len(bad), err)
			}
		}
	}
}

// Merging is commutative and associative to rounding: (a⊕b)⊕c, a⊕(c⊕b) and (c⊕a)⊕b, from accumulators that
// travelled encoded, agree to 1e-12 relative (sums of three terms in another order differ by a few ulps), and equal
// the statistics of all the rows in one accumulator to the same tolerance.
func TestStatsMergeAssociativeCommutative(t *testing.T) {
	f := testStatsFn(t, 3, false)
	rng := rand.New(rand.NewPCG(3, 3))
	blocks := []Rows{testRows(rng, 170, 3, false), testRows(rng, 90, 3, false), testRows(rng, 240, 3, false)}
	enc := func(k int) *statsAcc { return roundTrip(t, accOf(t, f, blocks[k])) }
	merge := func(a, b *statsAcc) *statsAcc {
		m, err := f.MergeAccumulators(a, b)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	x := merge(merge(enc(0), enc(1)), enc(2))
	y := merge(enc(0), merge(enc(2), enc(1)))
	z := merge(merge(enc(2), enc(0)), enc(1))
	all := roundTrip(t, accOf(t, f, blocks...))
	for name, s := range map[string]*statsAcc{"a⊕(c⊕b)": y, "(c⊕a)⊕b": z, "one accumulator": all} {
		if e := statsDiff(x.st, s.st); e > 1e-12 {
			t.Errorf("(a⊕b)⊕c and %s differ by %.3g relative", name, e)
		}
	}
	// A merge with an empty accumulator changes nothing.
	e, _ := f.CreateAccumulator()
	if w := merge(roundTrip(t, e), enc(1)); statsDiff(w.st, enc(1).st) != 0 {
		t.Error("merging into an empty accumulator changed the statistics")
	}
	// The decoded result solves like the original: same statistics, usable by the solver.
	st, err := DecodeStats(mustEncode(t, x))
	if err != nil || st.N != 500 {
		t.Fatalf("DecodeStats: %v", err)
	}
	if _, err := (learn.Ridge{Lambda: 1e-4, Intercept: true}).Solve(st); err != nil {
		t.Error(err)
	}
}

func mustEncode(t *testing.T, a *statsAcc) []byte {
	t.Helper()
	b, err := encodeStatsAcc(a)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The first pass's accumulator: round trip exact, merges commutative and associative to rounding (Chan's update),
// NaN class targets kept apart until the end, the first bad row the earliest in file and line order.
func TestScanAcc(t *testing.T) {
	f := &ScanFn{D: 2, Classify: true}
	rng := rand.New(rand.NewPCG(4, 4))
	create := func(f *ScanFn) *scanAcc {
		a, err := f.CreateAccumulator()
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	mk := func(n int, file string) *scanAcc {
		r := testRows(rng, n, 2, true)
		r.File = file
		a, err := f.AddInput(create(f), r)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	rt := func(a *scanAcc) *scanAcc {
		b, err := decodeScanAcc(encodeScanAcc(a))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	merge := func(a, b *scanAcc) *scanAcc {
		m, err := f.MergeAccumulators(a, b)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b, c := mk(100, "a.csv"), mk(37, "b.csv"), mk(250, "c.csv")
	b.first = RowError{File: "b.csv", Line: 9, Msg: "x"}
	c.first = RowError{File: "b.csv", Line: 4, Msg: "y"}
	c.skipped, b.skipped = 1, 1
	x := merge(merge(rt(a), rt(b)), rt(c))
	y := merge(rt(a), merge(rt(c), rt(b)))
	sx, err := x.scan(true)
	if err != nil {
		t.Fatal(err)
	}
	sy, _ := y.scan(true)
	for j := range 2 {
		for _, pair := range [][2]float64{{sx.Moments.Mean[j], sy.Moments.Mean[j]}, {sx.Moments.M2[j], sy.Moments.M2[j]}} {
			if math.Abs(pair[0]-pair[1]) > 1e-12*math.Max(math.Abs(pair[0]), 1) {
				t.Errorf("moments differ: %v vs %v", pair[0], pair[1])
			}
		}
	}
	if sx.Rows != 387 || !slices.Equal(sx.Labels, []string{"a", "b", "c"}) || sx.Skipped != 2 || sx.First.Line != 4 ||
		sx.FileRows["c.csv"] != 250 || sx.Numeric {
		t.Errorf("scan %+v", sx)
	}
	s2, err := DecodeScan(EncodeScan(sx))
	if err != nil || s2.Rows != sx.Rows || !slices.Equal(s2.Moments.M2, sx.Moments.M2) || s2.First != sx.First || s2.FileRows["b.csv"] != 37 {
		t.Errorf("scan round trip: %+v, %v", s2, err)
	}
	// Numeric targets with a NaN: the row is kept apart, then a bad row.
	g := &ScanFn{D: 1, Classify: true}
	acc, err := g.AddInput(create(g), Rows{File: "n.csv", N: 3, X: []float64{1, 2, 30}, T: []string{"1", "2", "NaN"},
		FirstNonFinite: RowError{File: "n.csv", Line: 3, Msg: "NaN"}})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := rt(acc).scan(true)
	if s.Rows != 2 || s.NonFinite != 1 || !slices.Equal(s.Labels, []string{"1", "2"}) || s.Moments.Max[0] != 2 || s.FileRows["n.csv"] != 2 {
		t.Errorf("numeric targets with a NaN: %+v", s)
	}
	// With a non-numeric label as well, "NaN" is a class.
	acc, _ = g.AddInput(acc, Rows{File: "n.csv", Start: 2, N: 1, X: []float64{4}, T: []string{"x"}})
	s, _ = rt(acc).scan(true)
	if s.Rows != 4 || s.NonFinite != 0 || !slices.Equal(s.Labels, []string{"1", "2", "NaN", "x"}) || s.Moments.Max[0] != 30 || s.FileRows["n.csv"] != 4 {
		t.Errorf("labels with a NaN: %+v", s)
	}
	for _, bad := range [][]byte{nil, {1, 2, 3}} {
		if _, err := decodeScanAcc(bad); err == nil {
			t.Error("corrupt first-pass accumulator decoded")
		}
	}
}

func TestRowsAndSampleCoders(t *testing.T) {
	negZero := math.Copysign(0, -1)
	r := Rows{File: "x.csv.gz", Start: 7, N: 2, X: []float64{1, math.Pi, negZero, 5e-324}, T: []string{"a", ""}, Skipped: 3,
		First: RowError{File: "x.csv.gz", Line: 12, Msg: `column 2: "q" is not a number`}}
	got, err := decodeRows(encodeRows(r))
	if err != nil || got.File != r.File || got.Start != 7 || got.N != 2 || !slices.Equal(got.X, r.X) || !slices.Equal(got.T, r.T) ||
		got.Skipped != 3 || got.First != r.First || math.Signbit(got.X[2]) != true {
		t.Errorf("rows round trip: %+v, %v", got, err)
	}
	f := &SampleFn{D: 2, Want: map[string][]int{"x.csv.gz": {6, 8}}}
	a, _ := f.AddInput(f.CreateAccumulator(), r)
	rows, err := DecodeSample(encodeSampleAcc(a))
	if err != nil || len(rows) != 1 || rows[0].Index != 8 || !slices.Equal(rows[0].X, []float64{negZero, 5e-324}) {
		t.Errorf("sample: %+v, %v", rows, err)
	}
	refs, want, err := locate([]string{"a", "b", "c"}, map[string]int{"a": 3, "b": 0, "c": 2}, []int{4, 0, 2, 3})
	if err != nil || !slices.Equal(refs, []rowRef{{"c", 1}, {"a", 0}, {"a", 2}, {"c", 0}}) || !slices.Equal(want["a"], []int{0, 2}) {
		t.Errorf("locate: %v %v %v", refs, want, err)
	}
	if _, _, err := locate([]string{"a"}, map[string]int{"a": 3}, []int{3}); err == nil {
		t.Error("locate beyond the rows succeeded")
	}
}
