package dataset

import (
	"errors"
	"io/fs"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestParseFormat(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Format
		ok   bool
	}{
		{"", FormatAuto, true}, {"auto", FormatAuto, true}, {"csv", FormatCSV, true}, {"TSV", FormatCSV, true},
		{"libsvm", FormatLibSVM, true}, {"svmlight", FormatLibSVM, true}, {" SVM ", FormatLibSVM, true},
		{"idx", FormatIDX, true}, {"hdf5", FormatAuto, false}, {"paper", FormatAuto, false},
	} {
		got, err := ParseFormat(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseFormat(%q) = %v, %v; want %v, ok=%v", c.in, got, err, c.want, c.ok)
		}
		if c.ok && c.in != "" {
			if back, _ := ParseFormat(got.String()); back != got {
				t.Errorf("ParseFormat(%v.String()) = %v", got, back)
			}
		}
	}
}

func TestGuessFormat(t *testing.T) {
	for _, c := range []struct {
		path string
		want Format
	}{
		{"a/b/letter.csv", FormatCSV}, {"x.CSV.gz", FormatCSV}, {"x.tsv", FormatCSV}, {"x.txt.gz", FormatCSV},
		{"letter-recognition.data", FormatCSV},
		{"train.libsvm", FormatLibSVM}, {"leu.svm.gz", FormatLibSVM}, {"a.svmlight", FormatLibSVM},
		{"train-images-idx3-ubyte.gz", FormatIDX}, {"t10k-labels-idx1-ubyte", FormatIDX}, {"m.idx", FormatIDX},
		{"usps", FormatAuto}, {"x.gz", FormatAuto}, {"data.bin", FormatAuto},
	} {
		if got := GuessFormat(c.path); got != c.want {
			t.Errorf("GuessFormat(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}

// TestLoadSniff checks that Load reads files whose names say nothing from
// their content, compressed or not.
func TestLoadSniff(t *testing.T) {
	csv := "a,b,c\n1,2,3\n4,5,6\n"
	svm := "# comment\n1 2:1.5\n-1 1:2\n"
	for _, c := range []struct {
		name string
		body string
		want Format
	}{
		{"plain", csv, FormatCSV},
		{"plain", svm, FormatLibSVM},
	} {
		for _, z := range []bool{false, true} {
			b := []byte(c.body)
			if z {
				b = gz(t, b)
			}
			d, err := Load(writeTemp(t, c.name, b), Options{})
			if err != nil {
				t.Fatalf("%v gzip=%v: %v", c.want, z, err)
			}
			checkData(t, d)
			if c.want == FormatCSV && (d.N != 2 || d.D != 2 || d.TargetName != "c") ||
				c.want == FormatLibSVM && (d.N != 2 || d.D != 2 || !slices.Equal(d.X, []float64{0, 1.5, 2, 0})) {
				t.Errorf("%v gzip=%v: got %+v", c.want, z, d)
			}
		}
	}
	idx := encodeIDX(idxUint8, []int{2, 2}, []float64{1, 2, 3, 4})
	lab := writeTemp(t, "mystery-labels", gz(t, encodeIDX(idxUint8, []int{2}, []float64{7, 9})))
	for _, b := range [][]byte{idx, gz(t, idx)} {
		for _, opt := range []Options{{}, {Format: FormatIDX}, {Labels: lab}} {
			d, err := Load(writeTemp(t, "mystery", b), opt)
			if err != nil || d.N != 2 || d.D != 2 || !slices.Equal(d.X, []float64{1, 2, 3, 4}) {
				t.Fatalf("Load of an IDX file with options %+v: %+v, %v", opt, d, err)
			}
			if opt.Labels != "" && !slices.Equal(d.Y, []float64{7, 9}) {
				t.Errorf("labels %v", d.Y)
			}
		}
	}
	// An explicit format wins over the name.
	d, err := Load(writeTemp(t, "x.csv", []byte(svm)), Options{Format: FormatLibSVM, Target: "none"})
	if err != nil || d.D != 2 || d.Y != nil {
		t.Fatalf("Load with FormatLibSVM and target none: %+v, %v", d, err)
	}
}

func TestLoadErrors(t *testing.T) {
	_, err := Load("/nonexistent/dir/x.csv", Options{})
	checkErr(t, err, "/nonexistent/dir/x.csv")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v does not wrap fs.ErrNotExist", err)
	}
	csv := writeTemp(t, "x.csv", []byte("1,2\n"))
	svm := writeTemp(t, "x.libsvm", []byte("1 1:2\n"))
	_, err = Load(csv, Options{Labels: "y.idx"})
	checkErr(t, err, csv+": a separate labels file applies only to IDX")
	_, err = Load(svm, Options{Target: "first"})
	checkErr(t, err, svm+`: target "first" applies only to CSV`)
	_, err = Load(writeTemp(t, "bad.csv.gz", []byte{0x1f, 0x8b, 1, 2}), Options{})
	checkErr(t, err, "bad.csv.gz: gzip:")
	_, err = Load(csv, Options{Format: Format(42)})
	checkErr(t, err, csv+": unknown format")
	_, err = Load(writeTemp(t, "x.idx", []byte("1,2\n")), Options{Target: "none"})
	checkErr(t, err, "x.idx: bad IDX magic")
	_, err = Load(writeTemp(t, "y.idx", []byte("1,2\n")), Options{Target: "2"})
	checkErr(t, err, `y.idx: target "2" applies only to CSV files`)
}

func TestRowSplitSubset(t *testing.T) {
	d := &Data{X: []float64{0, 1, 10, 11, 20, 21, 30, 31, 40, 41}, N: 5, D: 2, Y: []float64{0, 1, 2, 3, 4},
		Names: []string{"a", "b"}, TargetName: "t"}
	if r := d.Row(3); !slices.Equal(r, []float64{30, 31}) || cap(r) != 2 {
		t.Errorf("Row(3) = %v (cap %d)", r, cap(r))
	}
	for _, n := range []int{-1, 0, 2, 5, 9} {
		head, tail := d.Split(n)
		k := max(0, min(n, 5))
		if head.N != k || tail.N != 5-k || len(head.X) != 2*k || len(tail.X) != 2*(5-k) || len(head.Y) != k || len(tail.Y) != 5-k {
			t.Fatalf("Split(%d): head %d rows, tail %d rows", n, head.N, tail.N)
		}
		for i := range k {
			if !slices.Equal(head.Row(i), d.Row(i)) || head.Y[i] != d.Y[i] {
				t.Errorf("Split(%d): head row %d differs", n, i)
			}
		}
		for i := range 5 - k {
			if !slices.Equal(tail.Row(i), d.Row(k+i)) || tail.Y[i] != d.Y[k+i] {
				t.Errorf("Split(%d): tail row %d differs", n, i)
			}
		}
		if head.TargetName != "t" || !slices.Equal(tail.Names, d.Names) {
			t.Errorf("Split(%d) lost names", n)
		}
	}
	head, _ := d.Split(2)
	head.X = append(head.X, -1) // must not overwrite row 2 of d
	if d.X[4] != 20 {
		t.Errorf("appending to head overwrote the tail")
	}
	if m := d.Dense(); m.At(3, 1) != 31 {
		t.Errorf("Dense().At(3, 1) = %v", m.At(3, 1))
	} else if m.Set(0, 0, -5); d.X[0] != -5 {
		t.Errorf("Dense does not share memory with X")
	} else {
		d.X[0] = 0
	}
	s := d.Subset([]int{4, 0, 4})
	if !slices.Equal(s.X, []float64{40, 41, 0, 1, 40, 41}) || !slices.Equal(s.Y, []float64{4, 0, 4}) || s.N != 3 {
		t.Errorf("Subset = %+v", s)
	}
	s.X[0] = -1
	if d.X[8] != 40 {
		t.Errorf("Subset shares memory")
	}
	noY := &Data{X: []float64{1, 2}, N: 2, D: 1, Names: []string{"x1"}}
	if h, tl := noY.Split(1); h.Y != nil || tl.Y != nil {
		t.Errorf("Split of data without Y made a Y")
	}
	if s := noY.Subset([]int{1}); s.Y != nil || s.X[0] != 2 {
		t.Errorf("Subset of data without Y = %+v", s)
	}
}

func TestSubsample(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	check := func(n, k int, idx []int) {
		t.Helper()
		if len(idx) != max(0, min(k, n)) {
			t.Fatalf("Subsample(%d, %d) has %d indices", n, k, len(idx))
		}
		seen := map[int]bool{}
		for _, i := range idx {
			if i < 0 || i >= n || seen[i] {
				t.Fatalf("Subsample(%d, %d): bad or repeated index %d in %v", n, k, i, idx)
			}
			seen[i] = true
		}
	}
	for _, c := range [][2]int{{0, 0}, {0, 3}, {5, -1}, {5, 0}, {5, 5}, {5, 9}, {1000, 999}, {1 << 20, 3000}, {1 << 20, 1 << 19}} {
		check(c[0], c[1], Subsample(rng, c[0], c[1]))
	}
	a := Subsample(rand.New(rand.NewPCG(1, 1)), 1<<20, 100)
	b := Subsample(rand.New(rand.NewPCG(1, 1)), 1<<20, 100)
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different samples")
	}

	// Uniformity: every index is in the sample with probability k/n, and every
	// index comes first with probability 1/n. Counts must lie within 5
	// standard deviations of their means, for the dense and the sparse paths.
	for _, c := range []struct{ n, k, buckets, trials int }{
		{10, 3, 10, 20000},
		{1 << 20, 50, 16, 4000},
	} {
		in := make([]float64, c.buckets)
		first := make([]float64, c.buckets)
		for range c.trials {
			idx := Subsample(rng, c.n, c.k)
			check(c.n, c.k, idx)
			for _, i := range idx {
				in[i*c.buckets/c.n]++
			}
			first[idx[0]*c.buckets/c.n]++
		}
		p := float64(c.k) / float64(c.buckets) // expected members per bucket per trial
		for b := range c.buckets {
			// Per trial the count in a bucket has variance at most its mean.
			mean, sd := p*float64(c.trials), math.Sqrt(p*float64(c.trials))
			if math.Abs(in[b]-mean) > 5*sd {
				t.Errorf("n=%d k=%d: bucket %d holds %v sampled indices, want %v ± %v", c.n, c.k, b, in[b], mean, 5*sd)
			}
			q := 1 / float64(c.buckets)
			mean, sd = q*float64(c.trials), math.Sqrt(q*(1-q)*float64(c.trials))
			if math.Abs(first[b]-mean) > 5*sd {
				t.Errorf("n=%d k=%d: bucket %d comes first %v times, want %v ± %v", c.n, c.k, b, first[b], mean, 5*sd)
			}
		}
	}
}

func TestOpen(t *testing.T) {
	text := "hello\nworld\n"
	for _, b := range [][]byte{[]byte(text), gz(t, []byte(text))} {
		r, err := Open(writeTemp(t, "f", b))
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		buf := make([]byte, 3)
		for {
			n, err := r.Read(buf)
			sb.Write(buf[:n])
			if err != nil {
				break
			}
		}
		if err := r.Close(); err != nil {
			t.Error(err)
		}
		if sb.String() != text {
			t.Errorf("Open read %q", sb.String())
		}
	}
	// Files shorter than the gzip magic.
	for _, b := range []string{"", "x"} {
		d, err := Load(writeTemp(t, "short.csv", []byte(b)), Options{})
		if b == "" {
			checkErr(t, err, "short.csv: empty file")
		} else if err == nil {
			t.Errorf("Load of %q = %+v, want an error", b, d)
		}
	}
}
