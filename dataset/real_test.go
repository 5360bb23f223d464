package dataset

import (
	"math"
	"slices"
	"testing"

	"github.com/rffkit/rff/internal/datadir"
)

// The shapes, ranges and class counts below are those the datasets' sources
// state (verified independently of this package). The files are found in the
// data directory of internal/datadir ($RFF_DATA); every test skips when its
// file is absent, so that a fresh clone without the data passes.

// dataFile returns the path of a real data file, skipping the test when it is absent.
func dataFile(tb testing.TB, dir, name string) string {
	tb.Helper()
	p, ok := datadir.Path(dir, name)
	if !ok {
		tb.Skipf("%s not available (set %s to the data directory)", p, datadir.Env)
	}
	return p
}

func loadReal(t *testing.T, path string, opt Options, n, d int) *Data {
	t.Helper()
	data, err := Load(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	checkData(t, data)
	if data.N != n || data.D != d {
		t.Fatalf("%s: %d×%d, want %d×%d", path, data.N, data.D, n, d)
	}
	return data
}

// classCounts counts the rows of each class 0..k-1 and fails on any other target.
func classCounts(t *testing.T, y []float64, k int) []int {
	t.Helper()
	counts := make([]int, k)
	for i, v := range y {
		if v != math.Trunc(v) || v < 0 || int(v) >= k {
			t.Fatalf("Y[%d] = %v is not a class in 0..%d", i, v, k-1)
		}
		counts[int(v)]++
	}
	return counts
}

// checkRange fails unless every value of x is an integer (when integer) in [lo, hi].
func checkRange(t *testing.T, what string, x []float64, lo, hi float64, integer bool) {
	t.Helper()
	for i, v := range x {
		if v < lo || v > hi || integer && v != math.Trunc(v) {
			t.Fatalf("%s: value %d = %v outside [%v, %v] (integer %v)", what, i, v, lo, hi, integer)
		}
	}
}

func TestRealPowerplant(t *testing.T) {
	p := dataFile(t, "powerplant", "Folds5x2_pp.csv")
	d := loadReal(t, p, Options{}, 9568, 4)
	if !slices.Equal(d.Names, []string{"AT", "V", "AP", "RH"}) || d.TargetName != "PE" || d.Labels != nil {
		t.Fatalf("Names %q, TargetName %q, Labels %q", d.Names, d.TargetName, d.Labels)
	}
	// Column ranges stated in powerplant/README.txt.
	ranges := [][2]float64{{1.81, 37.11}, {25.36, 81.56}, {992.89, 1033.30}, {25.56, 100.16}}
	for j, r := range ranges {
		_, _, lo, hi := colStats(d.X, d.N, d.D, j)
		if lo != r[0] || hi != r[1] {
			t.Errorf("%s: range [%v, %v], want %v", d.Names[j], lo, hi, r)
		}
	}
	if lo, hi := slices.Min(d.Y), slices.Max(d.Y); lo != 420.26 || hi != 495.76 {
		t.Errorf("PE range [%v, %v]", lo, hi)
	}
	// The same target chosen by name, case-insensitively, and by index.
	for _, target := range []string{"PE", "pe", "5", "last"} {
		d2 := loadReal(t, p, Options{Target: target}, 9568, 4)
		if !slices.Equal(d2.Y, d.Y) {
			t.Errorf("target %q selects a different column", target)
		}
	}
	// The protocol of the quadrature paper: standardize, first 8500 rows train.
	train, test := d.Split(8500)
	s, err := FitScaler(train.X, train.N, train.D, []Step{StepStandardize})
	if err != nil {
		t.Fatal(err)
	}
	x := slices.Clone(train.X)
	s.Apply(x, train.N, train.D)
	for j := range d.D {
		if m, sd, _, _ := colStats(x, train.N, train.D, j); math.Abs(m) > 1e-12 || math.Abs(sd-1) > 1e-12 {
			t.Errorf("%s after standardize: mean %v, std %v", d.Names[j], m, sd)
		}
	}
	if test.N != 1068 {
		t.Errorf("test rows %d", test.N)
	}
}

func TestRealLetter(t *testing.T) {
	p := dataFile(t, "letter", "letter-recognition.data")
	d := loadReal(t, p, Options{Target: "first"}, 20000, 16)
	if len(d.Labels) != 26 {
		t.Fatalf("%d labels: %q", len(d.Labels), d.Labels)
	}
	for k, l := range d.Labels {
		if l != string(rune('A'+k)) {
			t.Fatalf("label %d is %q", k, l)
		}
	}
	counts := classCounts(t, d.Y, 26)
	// Counts stated in letter/README.txt (from the UCI .names file).
	for _, c := range []struct {
		letter byte
		n      int
	}{{'A', 789}, {'B', 766}, {'C', 736}, {'D', 805}, {'E', 768}, {'Z', 734}} {
		if counts[c.letter-'A'] != c.n {
			t.Errorf("class %c has %d rows, want %d", c.letter, counts[c.letter-'A'], c.n)
		}
	}
	checkRange(t, "LETTER", d.X, 0, 15, true)
	// With the default target (last column) the letters are features: an error naming line 1, column 1.
	_, err := Load(p, Options{})
	checkErr(t, err, p+":1: column 1:", "is not a number")
}

func TestRealUSPS(t *testing.T) {
	for _, c := range []struct {
		file   string
		n      int
		counts []int
	}{
		{"usps_train_derived.csv.gz", 7291, []int{1194, 1005, 731, 658, 652, 556, 664, 645, 542, 644}},
		{"usps_test_derived.csv.gz", 2007, []int{359, 264, 198, 166, 200, 160, 170, 147, 166, 177}},
	} {
		t.Run(c.file, func(t *testing.T) {
			d := loadReal(t, dataFile(t, "usps", c.file), Options{Target: "first"}, c.n, 256)
			if d.Labels != nil {
				t.Errorf("numeric labels read as strings: %q", d.Labels)
			}
			if got := classCounts(t, d.Y, 10); !slices.Equal(got, c.counts) {
				t.Errorf("class counts %v, want %v", got, c.counts)
			}
			checkRange(t, "USPS", d.X, -1, 1, false)
			// maxscale keeps the data in [-1, 1] with maximum 1.
			s, err := FitScaler(d.X, d.N, d.D, []Step{StepMaxScale})
			if err != nil {
				t.Fatal(err)
			}
			x := slices.Clone(d.X)
			s.Apply(x, d.N, d.D)
			if slices.Max(x) != 1 {
				t.Errorf("max after maxscale %v", slices.Max(x))
			}
		})
	}
}

func TestRealMNIST(t *testing.T) {
	for _, c := range []struct {
		images, labels string
		n              int
		counts         []int
	}{
		{"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz", 10000, []int{980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009}},
		{"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", 60000, []int{5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949}},
	} {
		t.Run(c.images, func(t *testing.T) {
			if testing.Short() && c.n > 10000 {
				t.Skip("-short: skipping MNIST train")
			}
			img := dataFile(t, "mnist", c.images)
			d := loadReal(t, img, Options{Labels: dataFile(t, "mnist", c.labels)}, c.n, 28*28)
			if got := classCounts(t, d.Y, 10); !slices.Equal(got, c.counts) {
				t.Errorf("class counts %v, want %v", got, c.counts)
			}
			checkRange(t, "MNIST", d.X, 0, 255, true)
			if slices.Max(d.X) != 255 {
				t.Errorf("max pixel %v, want 255", slices.Max(d.X))
			}
			// The labels file alone is a 1-column dataset.
			l, err := LoadIDX(dataFile(t, "mnist", c.labels), "")
			if err != nil || l.N != c.n || l.D != 1 || !slices.Equal(l.X, d.Y) {
				t.Errorf("labels file alone: %v", err)
			}
		})
	}
}

func TestRealDigits(t *testing.T) {
	d := loadReal(t, dataFile(t, "digits", "digits.csv.gz"), Options{}, 1797, 64)
	checkRange(t, "digits", d.X, 0, 16, true)
	counts := classCounts(t, d.Y, 10)
	for k, c := range counts {
		if c == 0 {
			t.Errorf("class %d is empty", k)
		}
	}
}

func BenchmarkLoadMNISTTrain(b *testing.B) {
	img := dataFile(b, "mnist", "train-images-idx3-ubyte.gz")
	for b.Loop() {
		if _, err := Load(img, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadUSPS(b *testing.B) {
	p := dataFile(b, "usps", "usps_train_derived.csv.gz")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(p, Options{Target: "first"}); err != nil {
			b.Fatal(err)
		}
	}
}
