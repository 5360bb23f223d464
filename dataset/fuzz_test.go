package dataset

import (
	"bytes"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
)

// The fuzzers check that no input makes a reader panic, that every error is
// one line naming the file, and that every Data returned is consistent
// (N*D == len(X), len(Names) == D, len(Y) == N or Y nil, no NaN/Inf; see
// checkData). They read under a memory budget of fuzzBudget bytes, so that
// the budget's checks are fuzzed too and no input can make them allocate
// much. Inputs that once crashed a reader live in testdata/fuzz, which go
// test runs as regression cases.

var fuzzTargets = []string{"", "first", "last", "none", "2", "a", "B"}

const fuzzBudget = 1 << 20

// checkFuzzErr fails unless err is one line that starts with the file name.
func checkFuzzErr(t *testing.T, err error, name string) {
	t.Helper()
	if msg := err.Error(); !strings.HasPrefix(msg, name) || strings.Contains(msg, "\n") {
		t.Fatalf("bad error message %q", msg)
	}
	if be := budgetError(err); be != nil && (be.Budget != fuzzBudget || be.Bytes != 0 && be.Bytes <= fuzzBudget) {
		t.Fatalf("inconsistent budget error %+v", be)
	}
}

var csvSeeds = []string{
	"a,b,c\n1,2,3\n4,5,6\n",
	"\xef\xbb\xbfa;b;y\r\n12.5;40.25;451.5\r\n",
	"Q,3.5,70\nZ,4.5,110\n",
	"1\t2\t3\n",
	"1 2 3\n4 5 6\n",
	"\"a\",\"b\"\n\"1\",\"x \"\"y\"\"\"\n",
	"1,2\nNaN,3\n",
	"a,b\n",
	"",
	"1,,3\n",
	"0x1p3,1e-400,+5\n",
	"x,y,class\n1,2,cat\n3,4,dog\n5,6,7\n",
	"1,2\n3,4,5\n",
	"1,\"2\n3,4\n",
	"a,b\n1,2\n3,inf\n",
}

func FuzzReadCSV(f *testing.F) {
	for _, s := range csvSeeds {
		for k := range fuzzTargets {
			f.Add([]byte(s), uint8(k))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		opt := Options{Target: fuzzTargets[int(k)%len(fuzzTargets)], MaxBytes: fuzzBudget}
		d, err := opt.ReadCSV(bytes.NewReader(data), "fuzz.csv")
		if err != nil {
			checkFuzzErr(t, err, "fuzz.csv")
			return
		}
		checkData(t, d)
		if (d.Y == nil) != (strings.ToLower(opt.Target) == "none") {
			t.Fatalf("target %q but Y %v", opt.Target, d.Y)
		}
	})
}

// FuzzCSVStream reads the input in blocks and checks that the blocks are consistent and together are what ReadCSV
// reads, or that both fail with the same error.
func FuzzCSVStream(f *testing.F) {
	for _, s := range csvSeeds {
		for k := range fuzzTargets {
			f.Add([]byte(s), uint8(k), uint8(k))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, k, block uint8) {
		opt := Options{Target: fuzzTargets[int(k)%len(fuzzTargets)], MaxBytes: fuzzBudget}
		rows := 1 + int(block)%8
		want, werr := opt.ReadCSV(bytes.NewReader(data), "fuzz.csv")
		if werr != nil {
			checkFuzzErr(t, werr, "fuzz.csv")
		}
		s, err := opt.NewCSVStream(bytes.NewReader(data), "fuzz.csv")
		var x, y []float64
		var raw []string
		n := 0
		for err == nil {
			var b *Data
			if b, err = s.Next(rows); err != nil {
				break
			}
			if b.N < 1 || b.N > rows || b.D != s.D() || len(b.X) != b.N*b.D || len(b.Names) != b.D {
				t.Fatalf("block of %d rows (at most %d) × %d columns (stream D %d), %d values, %d names", b.N, rows, b.D, s.D(), len(b.X), len(b.Names))
			}
			for i, v := range b.X {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("X[%d] = %v", i, v)
				}
			}
			if (b.Y != nil) != s.HasTarget() || b.Y != nil && len(b.Y) != b.N || (b.TargetName != "") != s.HasTarget() {
				t.Fatalf("block Y %v, TargetName %q, HasTarget %v", b.Y, b.TargetName, s.HasTarget())
			}
			for i := range b.Y {
				if b.Labels != nil && b.Labels[int(b.Y[i])] != s.Target(i) {
					t.Fatalf("block label %q, raw target %q", b.Labels[int(b.Y[i])], s.Target(i))
				}
				raw = append(raw, s.Target(i))
			}
			if b.Labels == nil {
				y = append(y, b.Y...)
			}
			x = append(x, b.X...)
			n += b.N
		}
		switch {
		case budgetError(werr) != nil: // the stream bounds only its blocks
			if err != io.EOF {
				checkFuzzErr(t, err, "fuzz.csv")
			}
			return
		case budgetError(err) != nil:
			t.Fatalf("stream error %v, but ReadCSV read it all within the same budget", err)
		case err != io.EOF:
			checkFuzzErr(t, err, "fuzz.csv")
			if werr == nil || err.Error() != werr.Error() {
				t.Fatalf("stream error %v, ReadCSV error %v", err, werr)
			}
			return
		case werr != nil:
			t.Fatalf("stream read %d rows, ReadCSV error %v", n, werr)
		}
		if n != want.N || s.D() != want.D || !slices.Equal(x, want.X) {
			t.Fatalf("stream read %d×%d, ReadCSV %d×%d, or X differs", n, s.D(), want.N, want.D)
		}
		switch {
		case want.Y == nil:
			if s.HasTarget() {
				t.Fatal("stream has a target, ReadCSV none")
			}
		case want.Labels == nil:
			if !s.Numeric() || !slices.Equal(y, want.Y) {
				t.Fatalf("numeric targets: stream %v (numeric %v), ReadCSV %v", y, s.Numeric(), want.Y)
			}
		default:
			if s.Numeric() || len(raw) != want.N {
				t.Fatalf("labels: stream numeric %v, %d raw targets", s.Numeric(), len(raw))
			}
			for i, r := range raw {
				if want.Labels[int(want.Y[i])] != r {
					t.Fatalf("row %d: ReadCSV label %q, stream %q", i, want.Labels[int(want.Y[i])], r)
				}
			}
		}
	})
}

func FuzzReadLibSVM(f *testing.F) {
	for _, s := range []string{
		"1 1:0.5 3:2\n-1 2:1\n",
		"+1 qid:3 2:1e-3 # comment 7:1\r\n",
		"# only a comment\n\n",
		"1 3-1.0\n",
		"1 2:1 2:3\n",
		"1 0:1\n",
		"2 10:1 1:2 5:3\n",
		"1\n",
		"1 1:1\n1 2000000:1\n",
		"1:1 2:2\n",
		"nan 1:1\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, drop bool) {
		opt := Options{MaxBytes: fuzzBudget}
		if drop {
			opt.Target = "none"
		}
		d, err := opt.ReadLibSVM(bytes.NewReader(data), "fuzz.libsvm")
		if err != nil {
			checkFuzzErr(t, err, "fuzz.libsvm")
			return
		}
		checkData(t, d)
		if d.Labels != nil || drop != (d.Y == nil) || !drop && d.TargetName != "label" {
			t.Fatalf("drop %v: Y %v, TargetName %q, Labels %v", drop, d.Y, d.TargetName, d.Labels)
		}
		if got := int64(d.N) * int64(d.D) * 8; got > fuzzBudget {
			t.Fatalf("%d×%d dense matrix of %d bytes over the budget", d.N, d.D, got)
		}
	})
}

func FuzzReadIDX(f *testing.F) {
	f.Add(encodeIDX(idxUint8, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}))
	f.Add(encodeIDX(idxInt8, []int{2}, []float64{-1, 2}))
	f.Add(encodeIDX(idxFloat32, []int{2}, []float64{1.5, -2}))
	f.Add(encodeIDX(idxFloat64, []int{1, 1, 1}, []float64{3}))
	f.Add(encodeIDX(idxInt16, []int{3}, []float64{-1, 0, 1}))
	f.Add(encodeIDX(idxInt32, []int{2, 0}, nil))
	f.Add(encodeIDX(idxFloat64, []int{2}, []float64{math.NaN(), 1}))
	f.Add(encodeIDX(idxUint8, []int{1 << 16, 1 << 16, 0}, nil))
	f.Add([]byte{0, 0, 8, 1, 255, 255, 255, 255})
	f.Add([]byte{0, 0, 8})
	f.Fuzz(func(t *testing.T, data []byte) {
		x, dims, err := Options{MaxBytes: fuzzBudget}.ReadIDX(bytes.NewReader(data), "fuzz.idx")
		if err != nil {
			checkFuzzErr(t, err, "fuzz.idx")
			return
		}
		n := 1
		for _, d := range dims {
			n *= d
		}
		if len(dims) == 0 || n != len(x) || 8*len(x) > fuzzBudget {
			t.Fatalf("dims %v but %d values", dims, len(x))
		}
		for i, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("x[%d] = %v", i, v)
			}
		}
	})
}
