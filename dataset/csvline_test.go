package dataset

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// nonBlankLines splits a file's content into lines as the readers see them: line ends and a trailing '\r' removed,
// a byte order mark stripped from line 1, blank lines dropped; it returns each line with its 1-based number.
func nonBlankLines(content string) (lines [][]byte, numbers []int) {
	for k, l := range strings.Split(content, "\n") {
		b := []byte(strings.TrimSuffix(l, "\r"))
		if k == 0 {
			b = stripBOM(b)
		}
		if len(bytes.TrimSpace(b)) > 0 {
			lines, numbers = append(lines, b), append(numbers, k+1)
		}
	}
	return lines, numbers
}

// parseByLines reads content line by line with a layout detected from its first two lines, as a distributed
// reader does, and returns what ReadCSV would: the inputs, and the numeric targets or the sorted labels with
// their indices.
func parseByLines(t *testing.T, name, content, target string) (*Data, error) {
	t.Helper()
	lines, numbers := nonBlankLines(content)
	if len(lines) == 0 {
		return nil, errString(name + ": empty file")
	}
	var second []byte
	if len(lines) > 1 {
		second = lines[1]
	}
	l, err := DetectCSVLayout(name, lines[0], second, target)
	if err != nil {
		return nil, err
	}
	p, err := l.Parser()
	if err != nil {
		t.Fatal(err)
	}
	d := &Data{D: l.D(), Names: l.Names(), TargetName: l.TargetName()}
	var raw []string
	numeric := true
	for k, line := range lines {
		if k == 0 && p.IsHeader(line) {
			continue
		}
		var tg string
		if d.X, tg, err = p.Parse(line, d.X); err != nil {
			return nil, errString(name + ":" + strconv.Itoa(numbers[k]) + ": " + err.Error())
		}
		d.N++
		if l.Target >= 0 {
			raw = append(raw, tg)
			if _, ok := ParseTarget(tg); !ok {
				numeric = false
			}
		}
	}
	if l.Target < 0 {
		return d, nil
	}
	if numeric {
		for _, s := range raw {
			v, _ := ParseTarget(s)
			d.Y = append(d.Y, v)
		}
		return d, nil
	}
	d.Labels = slices.Compact(slices.Sorted(slices.Values(raw)))
	for _, s := range raw {
		k, _ := slices.BinarySearch(d.Labels, s)
		d.Y = append(d.Y, float64(k))
	}
	return d, nil
}

type errString string

func (e errString) Error() string { return string(e) }

// Parsing line by line with the layout of the first two lines gives what ReadCSV gives: the same numbers, names,
// targets or labels, and the same one-line error for a bad row.
func TestCSVLayoutMatchesReadCSV(t *testing.T) {
	cases := []struct{ content, target string }{
		{"a,b,y\n1,2,3\n4,5,6\n", ""},
		{"\xef\xbb\xbfa;b;y\r\n1;2;3\r\n\r\n4;5;6\r\n", "first"},
		{"1\t2\t3\n4\t5\t6\n", "2"},
		{"1 2  3\n  4 5 6\n", "last"},
		{"x,\"q,r\",label\n1.5,2,cat\n3,\"4\",dog\n5,6,cat\n", "label"},
		{"x,w,label\n1,2,a\n3,4,b\n", "LABEL"},
		{"Q,2.5,8\nR,1.5,9\n", ""},
		{"0.5,2.5,Q\n1.5,1.5,R\n", "first"},
		{"a,b\n1,2\n", "none"},
		{"a,b,y\n1,2,3\n4,x,6\n", ""},
		{"a,b,y\n1,2,3\n4,6\n", ""},
		{"a,b,y\n1,2,\n", ""},
		{"a,b,y\n1,\"2,3\n", ""},
		{"a,b,y\n1,2,3\n4,NaN,6\n", ""},
		{"a,b,y\n1,2,1e999\n", ""},
		{"a,b,y\n1,2,3\n", "zz"},
		{"y\n1\n", ""},
		{"a,b,y\n", ""},
	}
	for k, c := range cases {
		want, werr := ReadCSV(strings.NewReader(c.content), "f.csv", c.target)
		got, gerr := parseByLines(t, "f.csv", c.content, c.target)
		if werr != nil || gerr != nil {
			// A file of a header only is no error line by line (its rows may be in other files); a NaN/Inf numeric
			// (or out of range) target is an error of the whole data set, which ParseTarget lets the caller find.
			if werr != nil && gerr == nil && (strings.Contains(werr.Error(), "no data rows") || strings.Contains(werr.Error(), "NaN/Inf") ||
				strings.Contains(werr.Error(), "is out of range")) {
				continue
			}
			if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
				t.Errorf("case %d: errors differ:\nReadCSV: %v\nlines:   %v", k, werr, gerr)
			}
			continue
		}
		if got.N != want.N || got.D != want.D || !slices.Equal(got.X, want.X) || !slices.Equal(got.Names, want.Names) ||
			got.TargetName != want.TargetName || !slices.Equal(got.Labels, want.Labels) || !equalNaN(got.Y, want.Y) {
			t.Errorf("case %d: line by line %+v, ReadCSV %+v", k, got, want)
		}
	}
}

func equalNaN(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
}

func TestCSVLayoutHeaderAndChecks(t *testing.T) {
	l, err := DetectCSVLayout("f.csv", []byte(`"a" , b,y`), []byte("1,2,3"), "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.Parser()
	if err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]bool{"a,b,y": true, ` a ,"b", y `: true, "a,b,z": false, "a,b": false, "1,2,3": false} {
		if got := p.IsHeader([]byte(line)); got != want {
			t.Errorf("IsHeader(%q) = %v, want %v", line, got, want)
		}
	}
	nohead, _ := DetectCSVLayout("f.csv", []byte("1,2,3"), nil, "")
	if q, _ := nohead.Parser(); q.IsHeader([]byte("1,2,3")) {
		t.Error("a file without a header has a header line")
	}
	for _, bad := range []CSVLayout{{Delim: 'x', Cols: 2, Target: 1}, {Delim: ',', Cols: 0, Target: -1},
		{Delim: ',', Cols: 2, Target: 2}, {Delim: ',', Cols: 1, Target: 0}, {Delim: ',', Cols: 2, Target: 1, Header: []string{"a"}},
		{Delim: ',', Cols: 2, Target: 1, Header: []string{"a", "a"}}, {Delim: ',', Cols: 2, Target: 1, Header: []string{"", "b"}}} {
		if _, err := bad.Parser(); err == nil {
			t.Errorf("layout %+v accepted", bad)
		}
	}
}

// FuzzCSVLayout: whatever the bytes, parsing line by line with the layout of the first two lines never panics, and
// whenever ReadCSV reads a file, the lines give the same data.
func FuzzCSVLayout(f *testing.F) {
	for _, s := range []string{"a,b,y\n1,2,3\n4,5,6\n", "1;2\n3;4\n", "x y\n1 2\n", "\"a\",b\n\"1\",2\n", "a\tb\n1\tq\n2\tr\n", "\xef\xbb\xbfa,b\r\n1,2\r\n"} {
		f.Add(s, "")
		f.Add(s, "first")
	}
	f.Fuzz(func(t *testing.T, content, target string) {
		want, werr := ReadCSV(strings.NewReader(content), "f.csv", target)
		got, gerr := parseByLines(t, "f.csv", content, target)
		if werr != nil {
			return
		}
		if gerr != nil {
			t.Fatalf("ReadCSV reads %q, line by line: %v", content, gerr)
		}
		if got.N != want.N || !slices.Equal(got.X, want.X) || !slices.Equal(got.Names, want.Names) ||
			got.TargetName != want.TargetName || !slices.Equal(got.Labels, want.Labels) || !equalNaN(got.Y, want.Y) {
			t.Fatalf("%q: line by line %+v, ReadCSV %+v", content, got, want)
		}
	})
}
