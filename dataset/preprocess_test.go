package dataset

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestParseSteps(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []Step
		ok   bool
	}{
		{"", nil, true},
		{"  ", nil, true},
		{"standardize", []Step{StepStandardize}, true},
		{"minmax, MaxScale", []Step{StepMinMax, StepMaxScale}, true},
		{"none", []Step{StepNone}, true},
		{"standardize,maxscale,none", []Step{StepStandardize, StepMaxScale, StepNone}, true},
		{"paper", nil, false},
		{"standardize,,minmax", nil, false},
		{"zscore", nil, false},
	} {
		got, err := ParseSteps(c.in)
		if (err == nil) != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("ParseSteps(%q) = %v, %v; want %v, ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

// testMatrix returns n×d data whose columns have very different locations and
// scales (from 0.01 to 10^(d-3), with means up to 70 standard deviations
// away from 0); column 2 is constant.
func testMatrix(rng *rand.Rand, n, d int) []float64 {
	x := make([]float64, n*d)
	for i := range n {
		for j := range d {
			switch j {
			case 2:
				x[i*d+j] = 0.1
			default:
				x[i*d+j] = math.Pow(10, float64(j-2)) * (20*float64(j) - 30 + rng.NormFloat64())
			}
		}
	}
	return x
}

// colStats returns the mean, population standard deviation, min and max of column j.
func colStats(x []float64, n, d, j int) (mean, std, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range n {
		v := x[i*d+j]
		mean += v
		lo, hi = min(lo, v), max(hi, v)
	}
	mean /= float64(n)
	for i := range n {
		e := x[i*d+j] - mean
		std += e * e
	}
	return mean, math.Sqrt(std / float64(n)), lo, hi
}

func fitApply(t *testing.T, x []float64, n, d int, steps ...Step) (*Scaler, []float64) {
	t.Helper()
	s, err := FitScaler(x, n, d, steps)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatalf("fitted scaler does not validate: %v", err)
	}
	y := slices.Clone(x)
	s.Apply(y, n, d)
	return s, y
}

func TestStandardize(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n, d = 500, 6
	x := testMatrix(rng, n, d)
	orig := slices.Clone(x)
	_, y := fitApply(t, x, n, d, StepStandardize)
	if !slices.Equal(x, orig) {
		t.Fatal("FitScaler modified its input")
	}
	for j := range d {
		mean, std, lo, hi := colStats(y, n, d, j)
		if j == 2 {
			if lo != 0 || hi != 0 {
				t.Errorf("constant column becomes [%v, %v], want all 0", lo, hi)
			}
			continue
		}
		if math.Abs(mean) > 1e-12 || math.Abs(std-1) > 1e-12 {
			t.Errorf("column %d: mean %v, std %v; want 0, 1", j, mean, std)
		}
	}
}

func TestMinMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, d = 300, 5
	x := testMatrix(rng, n, d)
	_, y := fitApply(t, x, n, d, StepMinMax)
	for j := range d {
		_, _, lo, hi := colStats(y, n, d, j)
		want := 1.0
		if j == 2 {
			want = 0 // constant column
		}
		if lo != 0 || hi != want {
			t.Errorf("column %d spans [%v, %v], want [0, %v]", j, lo, hi, want)
		}
	}
}

func TestMaxScale(t *testing.T) {
	for _, c := range []struct {
		name string
		x    []float64
		want []float64
	}{
		{"positive max", []float64{1, -8, 4, 2}, []float64{0.25, -2, 1, 0.5}},
		{"all negative: max |x|", []float64{-1, -8, -4, -2}, []float64{-0.125, -1, -0.5, -0.25}},
		{"max 0: max |x|", []float64{0, -4, -2, 0}, []float64{0, -1, -0.5, 0}},
		{"all zeros: no-op", []float64{0, 0, 0, 0}, []float64{0, 0, 0, 0}},
	} {
		_, y := fitApply(t, c.x, 2, 2, StepMaxScale)
		if !slices.Equal(y, c.want) {
			t.Errorf("%s: maxscale(%v) = %v, want %v", c.name, c.x, y, c.want)
		}
	}
	rng := rand.New(rand.NewPCG(13, 14))
	const n, d = 200, 4
	x := testMatrix(rng, n, d)
	_, y := fitApply(t, x, n, d, StepMaxScale)
	if m := slices.Max(y); m != 1 {
		t.Errorf("max after maxscale = %v, want 1", m)
	}
	// The global maximum, not per column: ratios between columns are kept.
	if r, r0 := y[0]/y[1], x[0]/x[1]; math.Abs(r-r0) > 1e-12*math.Abs(r0) {
		t.Errorf("maxscale changed the ratio of two columns: %v → %v", r0, r)
	}
}

// TestChainMatchesSequential checks that a chain of steps equals fitting each
// step on the output of the previous one, and the properties of the last step.
func TestChainMatchesSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const n, d = 400, 5
	x := testMatrix(rng, n, d)
	for _, chain := range [][]Step{
		{StepMinMax, StepStandardize},
		{StepStandardize, StepMaxScale},
		{StepStandardize, StepMinMax},
		{StepMaxScale, StepNone, StepStandardize, StepMaxScale},
		{StepStandardize, StepStandardize},
		{StepNone},
		{},
	} {
		s, got := fitApply(t, x, n, d, chain...)
		want := slices.Clone(x)
		for _, st := range chain {
			one, err := FitScaler(want, n, d, []Step{st})
			if err != nil {
				t.Fatal(err)
			}
			one.Apply(want, n, d)
		}
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-12*max(1, math.Abs(want[i])) {
				t.Fatalf("%v: element %d = %v, step by step %v", chain, i, got[i], want[i])
			}
		}
		if len(chain) > 0 && chain[len(chain)-1] == StepMinMax {
			for j := range d {
				if _, _, lo, hi := colStats(got, n, d, j); j != 2 && (math.Abs(lo) > 1e-12 || math.Abs(hi-1) > 1e-12) {
					t.Errorf("%v: column %d spans [%v, %v]", chain, j, lo, hi)
				}
			}
		}
		// Apply row by row (new data arriving one at a time) gives the same.
		for i := range n {
			row := slices.Clone(x[i*d : (i+1)*d])
			s.Apply(row, 1, d)
			if !slices.Equal(row, got[i*d:(i+1)*d]) {
				t.Fatalf("%v: Apply on row %d alone differs", chain, i)
			}
		}
		// Invert undoes Apply.
		back := slices.Clone(got)
		s.Invert(back, n, d)
		for i := range back {
			if math.Abs(back[i]-x[i]) > 1e-9*max(1, math.Abs(x[i])) {
				t.Fatalf("%v: Invert gives %v, want %v", chain, back[i], x[i])
			}
		}
		// A scaler survives a JSON round trip (as in a model file).
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var s2 Scaler
		if err := json.Unmarshal(b, &s2); err != nil {
			t.Fatal(err)
		}
		if err := s2.Validate(); err != nil {
			t.Fatalf("%v: decoded scaler: %v", chain, err)
		}
		y2 := slices.Clone(x)
		s2.Apply(y2, n, d)
		if !slices.Equal(y2, got) {
			t.Fatalf("%v: decoded scaler applies differently", chain)
		}
	}
}

func TestScalerErrors(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	for _, c := range []struct {
		x     []float64
		n, d  int
		steps []Step
		want  string
	}{
		{x, 2, 3, []Step{StepStandardize}, "len(x) = 4, want n×d = 2×3 = 6"},
		{nil, 0, 2, []Step{StepStandardize}, "need at least one row"},
		{x, 2, 2, []Step{"paper"}, `unknown preprocessing step "paper"`},
		{[]float64{1, math.NaN(), 3, 4}, 2, 2, []Step{StepMinMax}, "row 1, column 2: NaN/Inf"},
	} {
		_, err := FitScaler(c.x, c.n, c.d, c.steps)
		checkErr(t, err, c.want)
	}
	for _, s := range []Scaler{
		{D: 0},
		{D: 1, Steps: []Step{StepMinMax}},
		{D: 1, Steps: []Step{StepMinMax}, Params: []StepParams{{Step: StepStandardize, Shift: []float64{0}, Scale: []float64{1}}}},
		{D: 2, Steps: []Step{StepMinMax}, Params: []StepParams{{Step: StepMinMax, Shift: []float64{0}, Scale: []float64{1}}}},
		{D: 1, Steps: []Step{StepMinMax}, Params: []StepParams{{Step: StepMinMax, Shift: []float64{0}, Scale: []float64{0}}}},
		{D: 1, Steps: []Step{StepNone}, Params: []StepParams{{Step: StepNone, Shift: []float64{0}}}},
		{D: 1, Steps: []Step{"x"}, Params: []StepParams{{Step: "x"}}},
	} {
		if err := s.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", s)
		}
	}
	s, _ := FitScaler(x, 2, 2, []Step{StepStandardize})
	defer func() {
		if recover() == nil {
			t.Error("Apply with the wrong d did not panic")
		}
	}()
	s.Apply(x, 1, 4)
}

// TestIsotropic: the isotropic step centres every column and divides all by the root mean square of the column
// standard deviations, so the scaled data have mean 0 and average variance 1 while ratios of distances are kept.
func TestIsotropic(t *testing.T) {
	x := []float64{1, 10, 2, 30, 3, 20, 6, 40} // 4×2: columns with std √(3.5) and √(125)
	sc, err := FitScaler(x, 4, 2, []Step{StepIsotropic})
	if err != nil {
		t.Fatal(err)
	}
	if !sc.Isotropic() {
		t.Fatal("not isotropic")
	}
	y := append([]float64(nil), x...)
	sc.Apply(y, 4, 2)
	var m0, m1, v float64
	for i := 0; i < 4; i++ {
		m0 += y[2*i] / 4
		m1 += y[2*i+1] / 4
		v += (y[2*i]*y[2*i] + y[2*i+1]*y[2*i+1]) / 8
	}
	c := math.Sqrt((3.5 + 125) / 2)
	if math.Abs(m0) > 1e-15 || math.Abs(m1) > 1e-15 || math.Abs(v-1) > 1e-14 || math.Abs(sc.Factor()-c) > 1e-13 {
		t.Errorf("means %g %g, average variance %g, factor %g (want %g)", m0, m1, v, sc.Factor(), c)
	}
	st, _ := FitScaler(x, 4, 2, []Step{StepStandardize})
	if st.Isotropic() {
		t.Error("per-column standardization reported isotropic")
	}
}

// A column whose values differ by so little that their squared deviations underflow is refused by standardize,
// which divides by its standard deviation, naming it, instead of being taken for constant (scaled by 1: every input
// silently dropped), in one pass and streamed. Isotropic scaling and PCA, which combine the columns, refuse only when
// every column that varies is such a column (alone it adds nothing, as without underflow); minmax, which needs no
// squares, scales it; and a standard deviation computed from ordinary raw values is used whatever steps come first.
func TestFitScalerUnderflow(t *testing.T) {
	const n = 40
	stream := func(x []float64, d int, steps []Step) (*Scaler, error) {
		a := NewScalerAccumulator(d)
		if err := a.TrackCovariance(); err != nil {
			t.Fatal(err)
		}
		for r := 0; r < n; r += 10 {
			if err := a.Add(x[d*r:d*(r+10)], 10); err != nil {
				t.Fatal(err)
			}
		}
		return a.Scaler(steps)
	}
	both := func(x []float64, d int, steps []Step) []error {
		_, e1 := FitScaler(x, n, d, steps)
		_, e2 := stream(x, d, steps)
		return []error{e1, e2}
	}
	for _, scale := range []float64{1e-160, 1e-200, 1e-300, 5e-320} {
		one := make([]float64, 2*n) // column 1 ordinary, column 2 the same values times scale
		all := make([]float64, 2*n) // both columns times scale
		for i := range n {
			v, w := math.Sin(float64(3*i+1)), math.Cos(float64(5*i+2))
			one[2*i], one[2*i+1] = v, v*scale
			all[2*i], all[2*i+1] = v*scale, w*scale
		}
		for _, c := range []struct {
			x     []float64
			steps []Step
			want  string // "" for a fit
		}{
			{one, []Step{StepStandardize}, "standardize: column 2's values differ by"},
			{one, []Step{StepIsotropic}, ""},
			{one, []Step{"pca:2"}, ""},
			{all, []Step{StepIsotropic}, "isotropic: the columns' values differ by"},
			{all, []Step{"pca:2"}, "pca:2: the columns' values differ by"},
			{all, []Step{StepMinMax, StepIsotropic}, "isotropic: column 1's values differ by"}, // the std is the raw one's
			// minmax stretches the tiny column to [0, 1], where it counts: its std, from raw squares, was lost
			{one, []Step{StepMinMax, StepIsotropic}, "isotropic: column 2's values differ by"},
			{one, []Step{StepMinMax, "pca:2"}, "pca:2: column 2's values differ by"},
			{one, []Step{StepMaxScale, StepIsotropic}, ""}, // one factor for all: the tiny column stays negligible
		} {
			for k, err := range both(c.x, 2, c.steps) {
				switch {
				case c.want == "" && err != nil:
					t.Errorf("scale %g, %v (stream %v): %v", scale, c.steps, k == 1, err)
				case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "multiply by a power of ten")):
					t.Errorf("scale %g, %v (stream %v): %v, want %q", scale, c.steps, k == 1, err, c.want)
				}
			}
		}
		s, err := FitScaler(one, n, 2, []Step{StepMinMax})
		if err != nil {
			t.Fatalf("minmax at scale %g: %v", scale, err)
		}
		y := slices.Clone(one)
		s.Apply(y, n, 2)
		if lo, hi := slices.Min(strided(y, 1, 2)), slices.Max(strided(y, 1, 2)); lo != 0 || math.Abs(hi-1) > 1e-15 {
			t.Errorf("minmax at scale %g: column 2 spans [%v, %v], want [0, 1]", scale, lo, hi)
		}
	}
	// Ordinary raw columns whose spread a first step makes tiny (maxscale by a column of 1e153): standardize after it
	// divides by the raw standard deviation, scaled, and fits.
	x := make([]float64, 3*n)
	for i := range n {
		x[3*i], x[3*i+1], x[3*i+2] = 1e153*math.Sin(float64(i)), 1e-3*math.Cos(float64(2*i)), 2e-3*math.Sin(float64(7*i))
	}
	for _, steps := range [][]Step{{StepMaxScale, StepStandardize}, {StepIsotropic, StepStandardize}} {
		for k, err := range both(x, 3, steps) {
			if err != nil {
				t.Errorf("%v (stream %v): %v", steps, k == 1, err)
			}
		}
	}
	// Just above the underflow (a spread below 2⁻⁵¹⁰ is refused), the standard deviation is the unscaled column's times the
	// scale, exactly: scaling by a power of two rounds nothing.
	for i := range n {
		x[2*i], x[2*i+1] = math.Sin(float64(i)), math.Sin(float64(i))*0x1p-500
	}
	s, err := FitScaler(x[:2*n], n, 2, []Step{StepStandardize})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := s.Params[0].Scale[0], s.Params[0].Scale[1]; b != a*0x1p-500 {
		t.Errorf("standard deviations %v and %v = %v·2⁻⁵⁰⁰", a, b, b/0x1p-500)
	}
}

// strided returns every stride-th value of v from off.
func strided(v []float64, off, stride int) []float64 {
	var out []float64
	for i := off; i < len(v); i += stride {
		out = append(out, v[i])
	}
	return out
}

// rms gives the bits of √(Σv²/d) where that formula neither underflows nor overflows, and the right value where it
// does.
func TestRMS(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 1000 {
		v := make([]float64, 1+r.IntN(9))
		for j := range v {
			v[j] = r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
		}
		ss := 0.0
		for _, x := range v {
			ss += x * x
		}
		if got, want := rms(v), math.Sqrt(ss/float64(len(v))); got != want {
			t.Fatalf("rms(%v) = %v, plain formula %v", v, got, want)
		}
	}
	for _, c := range []struct {
		v    []float64
		want float64
	}{
		{[]float64{3e-200, 4e-200}, 5e-200 / math.Sqrt2},
		{[]float64{3e200, 4e200}, 5e200 / math.Sqrt2},
		{[]float64{1e-320, 0}, 1e-320 / math.Sqrt2},
		{[]float64{0, 0}, 0},
	} {
		if got := rms(c.v); math.Abs(got-c.want) > 1e-15*c.want+5e-324 {
			t.Errorf("rms(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}

// A column whose mean, spread or range overflows is refused by the steps that need them, naming it, instead of
// being scaled by 1; a constant column of huge values is fine.
func TestFitScalerOverflow(t *testing.T) {
	wide := []float64{1, 1e308, 2, -1e308, 3, 1e308, 4, -1e308} // 4×2: column 2 spans 2e308
	span := []float64{1, -1.7e308, 2, 1.7e308}                  // 2×2: column 2's max − min overflows
	for _, c := range []struct {
		name string
		x    []float64
		n    int
		step Step
		want string
	}{
		{"standardize", wide, 4, StepStandardize, "standardize: column 2 spans too wide a range"},
		{"isotropic", wide, 4, StepIsotropic, "isotropic: the columns span too wide a range"},
		{"minmax", span, 2, StepMinMax, "minmax: column 2 spans too wide a range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := FitScaler(c.x, c.n, 2, []Step{c.step})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("FitScaler: %v, want %q", err, c.want)
			}
		})
	}
	// A constant column of 1e308, whose sum overflows, has the mean 1e308: in one pass and in a stream of blocks
	// (ScalerAccumulator, as rff fit --stream and the distributed fit see the data), which gives the same scaler.
	constant := []float64{1, 1e308, 2, 1e308, 3, 1e308, 4, 1e308}
	for _, st := range []Step{StepStandardize, StepMinMax, StepIsotropic, StepMaxScale} {
		want, err := FitScaler(constant, 4, 2, []Step{st})
		if err != nil {
			t.Errorf("%s of a constant column of 1e308: %v", st, err)
			continue
		}
		a := NewScalerAccumulator(2)
		for r := 0; r < 4; r += 2 {
			if err := a.Add(constant[r*2:(r+2)*2], 2); err != nil {
				t.Fatal(err)
			}
		}
		got, err := a.Scaler([]Step{st})
		if err != nil {
			t.Errorf("%s of a constant column of 1e308, streamed: %v", st, err)
			continue
		}
		x, y := slices.Clone(constant), slices.Clone(constant)
		want.Apply(x, 4, 2)
		got.Apply(y, 4, 2)
		if !slices.Equal(x, y) {
			t.Errorf("%s: streamed scaler gives %v, FitScaler %v", st, y, x)
		}
	}
}
