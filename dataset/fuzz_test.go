package dataset

import (
	"bytes"
	"strings"
	"testing"
)

// The fuzzers check that no input makes a reader panic, that every error is
// one line naming the file, and that every Data returned is consistent
// (N*D == len(X), no NaN/Inf; see checkData).

var fuzzTargets = []string{"", "first", "last", "none", "2", "a", "B"}

func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"a,b,c\n1,2,3\n4,5,6\n",
		"\xef\xbb\xbfAT;V;PE\r\n14.96;41.76;463.26\r\n",
		"T,2,8\nI,5,12\n",
		"1\t2\t3\n",
		"1 2 3\n4 5 6\n",
		"\"a\",\"b\"\n\"1\",\"x \"\"y\"\"\"\n",
		"1,2\nNaN,3\n",
		"a,b\n",
		"",
		"1,,3\n",
		"0x1p3,1e-400,+5\n",
	} {
		for k := range fuzzTargets {
			f.Add([]byte(s), uint8(k))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		d, err := ReadCSV(bytes.NewReader(data), "fuzz.csv", fuzzTargets[int(k)%len(fuzzTargets)])
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "fuzz.csv") || strings.Contains(msg, "\n") {
				t.Fatalf("bad error message %q", msg)
			}
			return
		}
		checkData(t, d)
	})
}

func FuzzReadLibSVM(f *testing.F) {
	defer setMaxDense(1 << 16)()
	for _, s := range []string{
		"1 1:0.5 3:2\n-1 2:1\n",
		"+1 qid:3 2:1e-3 # comment 7:1\r\n",
		"# only a comment\n\n",
		"1 3-1.0\n",
		"1 2:1 2:3\n",
		"1 0:1\n",
		"2 10:1 1:2 5:3\n",
		"1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ReadLibSVM(bytes.NewReader(data), "fuzz.libsvm")
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "fuzz.libsvm") || strings.Contains(msg, "\n") {
				t.Fatalf("bad error message %q", msg)
			}
			return
		}
		checkData(t, d)
		if d.TargetName != "label" || d.Labels != nil {
			t.Fatalf("TargetName %q, Labels %v", d.TargetName, d.Labels)
		}
	})
}

func FuzzReadIDX(f *testing.F) {
	defer setMaxDense(1 << 16)()
	f.Add(encodeIDX(idxUint8, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}))
	f.Add(encodeIDX(idxFloat32, []int{2}, []float64{1.5, -2}))
	f.Add(encodeIDX(idxFloat64, []int{1, 1, 1}, []float64{3}))
	f.Add(encodeIDX(idxInt16, []int{3}, []float64{-1, 0, 1}))
	f.Add([]byte{0, 0, 8, 1, 255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, data []byte) {
		x, dims, err := ReadIDX(bytes.NewReader(data), "fuzz.idx")
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "fuzz.idx") || strings.Contains(msg, "\n") {
				t.Fatalf("bad error message %q", msg)
			}
			return
		}
		n := 1
		for _, d := range dims {
			n *= d
		}
		if len(dims) == 0 || n != len(x) {
			t.Fatalf("dims %v but %d values", dims, len(x))
		}
	})
}
