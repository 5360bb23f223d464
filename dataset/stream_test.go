package dataset

import (
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// streamAll reads s in blocks of the given size and concatenates them, checking every block's shape and names
// against want.
func streamAll(t *testing.T, s *CSVStream, block int, want *Data) (x, y []float64, raw []string) {
	t.Helper()
	for {
		b, err := s.Next(block)
		if err == io.EOF {
			return x, y, raw
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.N < 1 || b.N > block || b.D != want.D || len(b.X) != b.N*b.D {
			t.Fatalf("block of %d rows × %d columns with %d values (block size %d, want D = %d)", b.N, b.D, len(b.X), block, want.D)
		}
		if !slices.Equal(b.Names, want.Names) || b.TargetName != want.TargetName {
			t.Fatalf("block names %v / %q, want %v / %q", b.Names, b.TargetName, want.Names, want.TargetName)
		}
		x = append(x, b.X...)
		for i := range b.N {
			if b.Y == nil {
				continue
			}
			raw = append(raw, s.Target(i))
			if b.Labels != nil {
				if b.Labels[int(b.Y[i])] != s.Target(i) {
					t.Fatalf("block label %q, raw target %q", b.Labels[int(b.Y[i])], s.Target(i))
				}
				continue
			}
			y = append(y, b.Y[i])
		}
	}
}

func TestCSVStreamMatchesReadCSV(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	files := map[string]string{
		"header":   "a,b,y\n1,2,3\n4,5,6\n7,8,9\n10,11,12\n",
		"noheader": "\xef\xbb\xbf1;2;3\r\n4;5;6\r\n\r\n7;8;9\r\n",
		"labels":   "x1\tx2\tclass\n1\t2\tcat\n3\t4\tdog\n5\t6\t\"c,at\"\n7\t8\tcat\n9\t10\t3\n",
		"blanks":   "1 2 3\n  4   5 6\n7 8 9\n",
		"onerow":   "1,2,3\n",
		"quoted":   "\"a\",\"b\"\n\"1\",\"2\"\n3,4\n",
	}
	var b strings.Builder
	b.WriteString("p,q,r,t\n")
	for range 1000 {
		for j := range 4 {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(randomValue(rng), 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	files["random"] = b.String()
	for name, text := range files {
		for _, target := range []string{"", "first", "none", "2"} {
			want, werr := ReadCSV(strings.NewReader(text), name, target)
			for _, block := range []int{1, 2, 3, 7, 1000, 5000} {
				s, err := NewCSVStream(strings.NewReader(text), name, target)
				if err != nil {
					if werr == nil || err.Error() != werr.Error() {
						t.Fatalf("%s target %q: stream error %v, ReadCSV %v", name, target, err, werr)
					}
					continue
				}
				if werr != nil { // a data row is wrong: the stream reports it when it gets there
					for err == nil {
						_, err = s.Next(block)
					}
					if err.Error() != werr.Error() {
						t.Fatalf("%s target %q: stream error %v, ReadCSV %v", name, target, err, werr)
					}
					continue
				}
				x, y, raw := streamAll(t, s, block, want)
				if !slices.Equal(x, want.X) {
					t.Fatalf("%s target %q block %d: X differs", name, target, block)
				}
				if s.Rows() != want.N {
					t.Fatalf("%s: %d rows, want %d", name, s.Rows(), want.N)
				}
				if want.Y == nil {
					continue
				}
				if s.Numeric() != (want.Labels == nil) {
					t.Fatalf("%s target %q: Numeric() = %v, ReadCSV labels %v", name, target, s.Numeric(), want.Labels)
				}
				if want.Labels == nil {
					if !slices.Equal(y, want.Y) {
						t.Fatalf("%s target %q block %d: Y differs", name, target, block)
					}
					continue
				}
				for i, r := range raw {
					if want.Labels[int(want.Y[i])] != r {
						t.Fatalf("%s row %d: raw target %q, ReadCSV label %q", name, i+1, r, want.Labels[int(want.Y[i])])
					}
				}
			}
		}
	}
}

func TestCSVStreamErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{"", "empty file"},
		{"a,b\n", "no data rows"},
		{"a,b\n1,2\n3,NaN\n", "NaN/Inf not allowed"},
		{"a,b\n1,2\n3,-1e400\n", `f:3: column 2: "-1e400" is out of range`},
		{"a,b\n1,2\n3\n", "row has 1 fields"},
		{"a,b\n1,x\n", ""}, // labels: fine
	}
	for _, c := range cases {
		_, werr := ReadCSV(strings.NewReader(c.text), "f", "")
		var err error
		s, err := NewCSVStream(strings.NewReader(c.text), "f", "")
		for err == nil {
			_, err = s.Next(1)
		}
		if errors.Is(err, io.EOF) {
			err = nil
		}
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Errorf("%q: stream error %v, ReadCSV %v", c.text, err, werr)
		}
		if c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
}

func TestOpenCSVStreamGzip(t *testing.T) {
	text := "a,b,y\n1,2,3\n4,5,6\n"
	path := writeTemp(t, "s.csv.gz", gz(t, []byte(text)))
	s, err := OpenCSVStream(path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, err := s.Next(10)
	if err != nil || b.N != 2 || !slices.Equal(b.Y, []float64{3, 6}) {
		t.Fatalf("block %+v, error %v", b, err)
	}
	if _, err := s.Next(10); err != io.EOF {
		t.Fatalf("want io.EOF, got %v", err)
	}
}

func TestScalerAccumulatorMatchesFitScaler(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	chains := [][]Step{{StepStandardize}, {StepMinMax}, {StepMaxScale}, {StepNone}, {StepStandardize, StepMaxScale}, {StepMinMax, StepStandardize}}
	for _, n := range []int{1, 2, 17, 1000} {
		d := 5
		x := testMatrix(rng, n, d)
		for j := range d { // offsets and a constant column
			for i := range n {
				x[i*d+j] = x[i*d+j]*float64(j+1) + 1e3*float64(j)
				if j == 3 {
					x[i*d+j] = 7
				}
			}
		}
		for _, steps := range chains {
			want, err := FitScaler(x, n, d, steps)
			if err != nil {
				t.Fatal(err)
			}
			for _, block := range []int{1, 3, 64, n} {
				a := NewScalerAccumulator(d)
				for r := 0; r < n; r += block {
					rows := min(block, n-r)
					if err := a.Add(x[r*d:(r+rows)*d], rows); err != nil {
						t.Fatal(err)
					}
				}
				got, err := a.Scaler(steps)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.Steps, want.Steps) || got.D != want.D || len(got.Params) != len(want.Params) {
					t.Fatalf("scaler %+v, want %+v", got, want)
				}
				for k, p := range want.Params {
					for _, pair := range [][2][]float64{{p.Shift, got.Params[k].Shift}, {p.Scale, got.Params[k].Scale}} {
						if len(pair[0]) != len(pair[1]) {
							t.Fatalf("n=%d %v block %d step %d: lengths differ", n, steps, block, k)
						}
						for j := range pair[0] {
							w, g := pair[0][j], pair[1][j]
							if math.Abs(g-w) > 1e-12*math.Max(math.Abs(w), 1e-300) {
								t.Fatalf("n=%d %v block %d step %d column %d: %v, want %v", n, steps, block, k, j, g, w)
							}
						}
					}
				}
			}
		}
	}
	a := NewScalerAccumulator(2)
	if err := a.Add([]float64{1, 2, 3, math.NaN()}, 2); err == nil || !strings.Contains(err.Error(), "row 2, column 2") {
		t.Fatalf("NaN: error %v", err)
	}
	if _, err := a.Scaler([]Step{StepStandardize}); err == nil {
		t.Fatal("no rows: no error")
	}
}

func TestFitScalerStream(t *testing.T) {
	text := "a,b,y\n1,2,x\n4,5,y\n7,9,x\n"
	s, err := NewCSVStream(strings.NewReader(text), "f", "")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	sc, err := FitScalerStream(s, []Step{StepMinMax}, 2, func(b *Data) error {
		for i := range b.N {
			seen[s.Target(i)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sc.Params[0].Shift, []float64{1, 2}) || !slices.Equal(sc.Params[0].Scale, []float64{6, 7}) || len(seen) != 2 {
		t.Fatalf("scaler %+v, labels %v", sc.Params[0], seen)
	}
}
