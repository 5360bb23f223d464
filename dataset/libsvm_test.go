package dataset

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestLibSVMRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		n, d     int
		density  float64
		shuffle  bool // write the features of a line in random order
		comments bool
		crlf     bool
		gzip     bool
	}{
		{n: 1, d: 1, density: 1},
		{n: 20, d: 5, density: 0.5},
		{n: 30, d: 40, density: 0.1, shuffle: true},
		{n: 25, d: 8, density: 0.7, comments: true, crlf: true},
		{n: 50, d: 12, density: 0.3, gzip: true, shuffle: true, comments: true},
	} {
		t.Run(fmt.Sprintf("%dx%d", c.n, c.d), func(t *testing.T) {
			x := make([]float64, c.n*c.d)
			y := make([]float64, c.n)
			for i := range c.n {
				y[i] = float64(2*rng.IntN(2) - 1)
				for j := range c.d {
					if rng.Float64() < c.density {
						x[i*c.d+j] = randomValue(rng)
					}
				}
			}
			x[rng.IntN(c.n)*c.d+c.d-1] = 1.5 // the largest index occurs, so D is c.d
			nl := "\n"
			if c.crlf {
				nl = "\r\n"
			}
			var sb strings.Builder
			if c.comments {
				sb.WriteString("# a comment line" + nl + nl)
			}
			for i := range c.n {
				var feats []string
				for j := range c.d {
					if v := x[i*c.d+j]; v != 0 {
						feats = append(feats, strconv.Itoa(j+1)+":"+strconv.FormatFloat(v, 'g', -1, 64))
					}
				}
				if c.shuffle {
					rng.Shuffle(len(feats), func(a, b int) { feats[a], feats[b] = feats[b], feats[a] })
				}
				label := strconv.FormatFloat(y[i], 'g', -1, 64)
				if y[i] > 0 && rng.IntN(2) == 0 {
					label = "+" + label
				}
				sb.WriteString(label)
				if i%3 == 1 {
					sb.WriteString(" qid:" + strconv.Itoa(i))
				}
				for _, f := range feats {
					sb.WriteString(" \t"[rng.IntN(2):][:1] + f)
				}
				if c.comments && i%2 == 0 {
					sb.WriteString(" # row " + strconv.Itoa(i) + " 1:9")
				}
				sb.WriteString(nl)
			}
			var got *Data
			var err error
			if c.gzip {
				got, err = Load(writeTemp(t, "train.svm.gz", gz(t, []byte(sb.String()))), Options{})
			} else {
				got, err = ReadLibSVM(strings.NewReader(sb.String()), "mem.libsvm")
			}
			if err != nil {
				t.Fatal(err)
			}
			checkData(t, got)
			if got.N != c.n || got.D != c.d || !slices.Equal(got.X, x) || !slices.Equal(got.Y, y) {
				t.Fatalf("got %d×%d X %v Y %v\nwant %d×%d X %v Y %v", got.N, got.D, got.X, got.Y, c.n, c.d, x, y)
			}
			if !slices.Equal(got.Names, genNames(c.d)) || got.TargetName != "label" || got.Labels != nil {
				t.Errorf("Names %q TargetName %q Labels %q", got.Names, got.TargetName, got.Labels)
			}
		})
	}
}

func TestLibSVMErrors(t *testing.T) {
	opt := Options{MaxBytes: 8 << 20}
	for _, c := range []struct {
		text string
		want []string
	}{
		{"", []string{"train.libsvm: empty file"}},
		{"# nothing\n\n", []string{"train.libsvm: empty file"}},
		{"1 1:2\n-1 2:1\n1 3-1.0\n", []string{`train.libsvm:3: bad feature "3-1.0"`}},
		{"1 1:1\n\n1 0:2\n", []string{`train.libsvm:3: bad feature "0:2"`, "1-based"}},
		{"1 1:1\n-1 2:abc\n", []string{`train.libsvm:2: bad feature "2:abc"`, "not a number"}},
		{"1 1:1\n-1 2:\n", []string{`train.libsvm:2: bad feature "2:"`, "empty value"}},
		{"1 x:1\n", []string{`train.libsvm:1: bad feature "x:1"`, "positive integer"}},
		{"1 -3:1\n", []string{`train.libsvm:1: bad feature "-3:1"`}},
		{"1 99999999999:1\n", []string{`train.libsvm:1: bad feature "99999999999:1"`, "above the largest a column may have, 2147483647"}},
		{"1 2147483648:1\n", []string{`train.libsvm:1: bad feature "2147483648:1"`, "above the largest"}},
		{"1 1:nan\n", []string{`train.libsvm:1: bad feature "1:nan"`, "NaN/Inf"}},
		{"1 1:1e400\n", []string{`train.libsvm:1: bad feature "1:1e400"`, "out of range"}},
		{"1 1:1\nabc 1:1\n", []string{"train.libsvm:2: bad label", `"abc"`}},
		{"1 1:1\ninf 1:1\n", []string{"train.libsvm:2: bad label", "NaN/Inf"}},
		{"1:1 2:2\n", []string{"train.libsvm:1: missing label"}},
		{"1 2:1 5:2 2:3\n", []string{"train.libsvm:1: feature index 2 repeated"}},
		{"1 2:1 2:3\n", []string{"train.libsvm:1: feature index 2 repeated"}},
		{"1\n-1\n", []string{"train.libsvm: no features"}},
		{"1 1:1\n1 2000000:1\n", []string{"train.libsvm:2: densifying 2 rows × 2000000 features (feature index 2000000 sets the width) needs at least 96000", "memory budget of 8388608 bytes (8 MiB); set Options.MaxBytes"}},
	} {
		_, err := opt.ReadLibSVM(strings.NewReader(c.text), "train.libsvm")
		checkErr(t, err, c.want...)
	}
}

// TestLibSVMWidth: the error for a dense matrix too large names the line and the feature index that set its width;
// when the matrix exceeds the memory available, no budget can help and the error asks whether the file is corrupt
// instead of advising to raise the budget; nothing large is allocated either way.
func TestLibSVMWidth(t *testing.T) {
	defer func(f func() int64) { memoryAvailable = f }(memoryAvailable)
	const huge = "1 2000000000:1\n-1 3:0.5\n" // 2 × 2e9 × 8 bytes, and 32 bytes per column name
	for _, c := range []struct {
		name     string
		text     string
		avail    int64 // the memory available, -1 unknown
		maxBytes int64
		want     string // the whole message, or its start for a *BudgetError
		budget   bool   // want a *BudgetError
	}{
		{name: "beyond memory, no budget", text: huge, avail: 1 << 30, maxBytes: -1,
			want: "w.libsvm:1: feature index 2000000000 makes 2 rows × 2000000000 columns (89.4 GiB), more than the memory available (1 GiB); is the file corrupt? (a LibSVM file is densified: its largest feature index sets the number of columns)"},
		{name: "beyond memory, budget raised past it", text: huge, avail: 1 << 30, maxBytes: 1 << 40,
			want: "w.libsvm:1: feature index 2000000000 makes 2 rows × 2000000000 columns (89.4 GiB), more than the memory available (1 GiB); is the file corrupt?"},
		{name: "beyond memory, default budget", text: huge, avail: 1 << 30,
			want: "w.libsvm:1: feature index 2000000000 makes 2 rows × 2000000000 columns (89.4 GiB)"},
		{name: "largest index on a later line", text: "# made up\n1 4:0.25\n\n-1 7:1.5 2000000000:2\n1 7:-3 2000000000:4.5\n", avail: 1 << 30, maxBytes: -1,
			want: "w.libsvm:4: feature index 2000000000 makes 3 rows × 2000000000 columns (104.3 GiB), more than the memory available (1 GiB)"},
		{name: "within memory, over the budget", text: "1 4:0.25\n-1 3000:2\n1 3000:1.5\n", avail: 1 << 30, maxBytes: 16 << 10, budget: true,
			want: "w.libsvm:2: densifying 3 rows × 3000 features (feature index 3000 sets the width) needs at least"},
		{name: "memory unknown, over the budget", text: huge, avail: -1, maxBytes: 8 << 20, budget: true,
			want: "w.libsvm:1: densifying 2 rows × 2000000000 features (feature index 2000000000 sets the width) needs at least"},
	} {
		t.Run(c.name, func(t *testing.T) {
			memoryAvailable = func() int64 { return c.avail }
			var err error
			alloc := allocDuring(func() { _, err = Options{MaxBytes: c.maxBytes}.ReadLibSVM(strings.NewReader(c.text), "w.libsvm") })
			if alloc > 1<<20 {
				t.Errorf("allocated %d bytes before refusing", alloc)
			}
			if c.budget {
				checkBudgetErr(t, err, "w.libsvm:", c.maxBytes, "sets the width")
				if !strings.HasPrefix(err.Error(), c.want) {
					t.Errorf("error %q, want it to start with %q", err, c.want)
				}
				return
			}
			checkErr(t, err, c.want)
			if budgetError(err) != nil || strings.Contains(err.Error(), "MaxBytes") || strings.Contains(err.Error(), "raise") {
				t.Errorf("%v: advises raising the budget", err)
			}
		})
	}
	// A file that fits is read as before, whatever the budget.
	memoryAvailable = func() int64 { return 1 << 30 }
	d, err := Options{MaxBytes: -1}.ReadLibSVM(strings.NewReader("1 4:0.25\n-1 3000:2\n"), "w.libsvm")
	if err != nil || d.D != 3000 || d.X[3] != 0.25 || d.X[3000+2999] != 2 {
		t.Fatalf("a file within memory: %v", err)
	}
}

// TestLibSVMPadWidth: Options.Width pads a file whose largest index is smaller with zero columns (a test file for a
// model of wider data), never narrows one, and lets every line hold a label only.
func TestLibSVMPadWidth(t *testing.T) {
	for _, c := range []struct {
		text  string
		width int
		d     int
		x     []float64
	}{
		{"1 1:0.5 2:0.2\n2 1:0.1\n", 3, 3, []float64{0.5, 0.2, 0, 0.1, 0, 0}},
		{"1 1:0.5 2:0.2\n2 1:0.1\n", 1, 2, []float64{0.5, 0.2, 0.1, 0}},
		{"1 1:0.5 2:0.2\n2 1:0.1\n", 0, 2, []float64{0.5, 0.2, 0.1, 0}},
		{"1\n2\n", 2, 2, []float64{0, 0, 0, 0}},
	} {
		d, err := Options{Width: c.width}.ReadLibSVM(strings.NewReader(c.text), "w.libsvm")
		if err != nil {
			t.Fatalf("width %d, %q: %v", c.width, c.text, err)
		}
		if d.D != c.d || !slices.Equal(d.X, c.x) || len(d.Names) != c.d || d.Names[c.d-1] != fmt.Sprintf("x%d", c.d) {
			t.Errorf("width %d, %q: D = %d, X = %v, names %v; want D = %d, X = %v", c.width, c.text, d.D, d.X, d.Names, c.d, c.x)
		}
	}
}
