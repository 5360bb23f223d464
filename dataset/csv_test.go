package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// csvCase describes how a table is written as CSV text.
type csvCase struct {
	header bool
	bom    bool
	crlf   bool
	pad    bool   // spaces around fields
	delim  string // ",", ";", "\t" or " "
	tpos   int    // target column (0-based) in the file, -1 for none
	labels bool   // string class labels instead of numeric targets
	gzip   bool
}

func (c csvCase) String() string {
	return fmt.Sprintf("header=%v bom=%v crlf=%v pad=%v delim=%q tpos=%d labels=%v gzip=%v",
		c.header, c.bom, c.crlf, c.pad, c.delim, c.tpos, c.labels, c.gzip)
}

// randomValue returns a float64 of varied sign, magnitude and form, written
// exactly by strconv.FormatFloat(v, 'g', -1, 64).
func randomValue(rng *rand.Rand) float64 {
	switch rng.IntN(4) {
	case 0:
		return float64(rng.IntN(512) - 256)
	case 1:
		return rng.NormFloat64()
	case 2:
		return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
	default:
		return math.Round(rng.Float64()*2000) / 1000
	}
}

// table is a dataset in memory with the text it is written as.
type table struct {
	x      []float64
	y      []float64
	ys     []string // string labels
	n, d   int
	names  []string // feature names in file order (header only)
	tname  string
	labels []string
}

func makeTable(rng *rand.Rand, n, d int, c csvCase) table {
	tb := table{n: n, d: d, x: make([]float64, n*d)}
	for i := range tb.x {
		tb.x[i] = randomValue(rng)
	}
	pool := []string{"emu", "cat", "dog", "Zebra", "ant-1"}
	if c.tpos >= 0 {
		for range n {
			if c.labels {
				tb.ys = append(tb.ys, pool[rng.IntN(len(pool))])
			} else {
				tb.y = append(tb.y, randomValue(rng))
			}
		}
	}
	if c.labels {
		tb.labels = slices.Clone(tb.ys)
		slices.Sort(tb.labels)
		tb.labels = slices.Compact(tb.labels)
		for _, s := range tb.ys {
			k, _ := slices.BinarySearch(tb.labels, s)
			tb.y = append(tb.y, float64(k))
		}
	}
	for j := range d {
		tb.names = append(tb.names, fmt.Sprintf("f%d_%c", j+1, 'a'+j))
	}
	tb.tname = "target"
	return tb
}

func (tb table) csv(c csvCase) string {
	var sb strings.Builder
	if c.bom {
		sb.WriteString("\xef\xbb\xbf")
	}
	nl := "\n"
	if c.crlf {
		nl = "\r\n"
	}
	field := func(k int, s string) {
		if k > 0 {
			sb.WriteString(c.delim)
		}
		if c.pad && c.delim != " " {
			s = " " + s + "  "
		}
		sb.WriteString(s)
	}
	row := func(feat func(j int) string, targ string) {
		k, j := 0, 0
		for col := range tb.d + btoi(c.tpos >= 0) {
			if col == c.tpos {
				field(k, targ)
			} else {
				field(k, feat(j))
				j++
			}
			k++
		}
		sb.WriteString(nl)
	}
	if c.header {
		row(func(j int) string { return tb.names[j] }, tb.tname)
	}
	for i := range tb.n {
		targ := ""
		if c.tpos >= 0 {
			if c.labels {
				targ = tb.ys[i]
			} else {
				targ = strconv.FormatFloat(tb.y[i], 'g', -1, 64)
			}
		}
		row(func(j int) string { return strconv.FormatFloat(tb.x[i*tb.d+j], 'g', -1, 64) }, targ)
	}
	return sb.String()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// targetOptions returns the ways of naming column tpos of a file with ncols columns.
func targetOptions(c csvCase, ncols int) []string {
	switch {
	case c.tpos < 0:
		return []string{"none"}
	case c.tpos == 0:
		opts := []string{"first", "1"}
		if c.header {
			opts = append(opts, "target", "TARGET")
		}
		return opts
	case c.tpos == ncols-1:
		opts := []string{"", "last", strconv.Itoa(ncols)}
		if c.header {
			opts = append(opts, "target")
		}
		return opts
	default:
		opts := []string{strconv.Itoa(c.tpos + 1)}
		if c.header {
			opts = append(opts, "target")
		}
		return opts
	}
}

func TestCSVRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	const n, d = 7, 3
	for _, delim := range []string{",", ";", "\t", " "} {
		for _, header := range []bool{false, true} {
			for _, bom := range []bool{false, true} {
				for _, crlf := range []bool{false, true} {
					for _, tpos := range []int{-1, 0, 2, d} {
						for _, labels := range []bool{false, true} {
							if labels && tpos < 0 {
								continue
							}
							for _, gzip := range []bool{false, true} {
								c := csvCase{header: header, bom: bom, crlf: crlf, pad: rng.IntN(2) == 0,
									delim: delim, tpos: tpos, labels: labels, gzip: gzip}
								tb := makeTable(rng, n, d, c)
								text := tb.csv(c)
								for _, target := range targetOptions(c, d+btoi(tpos >= 0)) {
									var got *Data
									var err error
									if gzip {
										// When the name does not say gzip, Load must detect it by its magic bytes.
										p := filepath.Join(dir, "data.csv.gz")
										if rng.IntN(2) == 0 {
											p = filepath.Join(dir, "data.txt")
										}
										if err := os.WriteFile(p, gz(t, []byte(text)), 0o644); err != nil {
											t.Fatal(err)
										}
										got, err = Load(p, Options{Target: target})
									} else {
										got, err = ReadCSV(strings.NewReader(text), "mem.csv", target)
									}
									if err != nil {
										t.Fatalf("%v target %q: %v\n%s", c, target, err, text)
									}
									compareTable(t, fmt.Sprintf("%v target %q", c, target), got, tb, c)
								}
							}
						}
					}
				}
			}
		}
	}
}

func compareTable(t *testing.T, what string, got *Data, tb table, c csvCase) {
	t.Helper()
	checkData(t, got)
	if got.N != tb.n || got.D != tb.d {
		t.Fatalf("%s: got %d×%d, want %d×%d", what, got.N, got.D, tb.n, tb.d)
	}
	if !slices.Equal(got.X, tb.x) {
		t.Fatalf("%s: X = %v, want %v", what, got.X, tb.x)
	}
	wantNames := genNames(tb.d)
	wantTarget := "y"
	if c.header {
		wantNames, wantTarget = tb.names, tb.tname
	}
	if !slices.Equal(got.Names, wantNames) {
		t.Errorf("%s: Names = %q, want %q", what, got.Names, wantNames)
	}
	if c.tpos < 0 {
		if got.Y != nil || got.TargetName != "" {
			t.Errorf("%s: Y = %v, TargetName %q, want none", what, got.Y, got.TargetName)
		}
		return
	}
	if got.TargetName != wantTarget {
		t.Errorf("%s: TargetName = %q, want %q", what, got.TargetName, wantTarget)
	}
	if !slices.Equal(got.Y, tb.y) {
		t.Errorf("%s: Y = %v, want %v", what, got.Y, tb.y)
	}
	if !slices.Equal(got.Labels, tb.labels) {
		t.Errorf("%s: Labels = %q, want %q", what, got.Labels, tb.labels)
	}
}

func TestCSVDetails(t *testing.T) {
	for _, c := range []struct {
		name, text, target string
		x, y               []float64
		names              []string
		tname              string
		labels             []string
	}{
		{name: "quoted header and fields", text: "\"a\",\"b, c\",\"y\"\n\"1\", 2 ,\"3\"\n4,\"5\",6\n",
			x: []float64{1, 2, 4, 5}, y: []float64{3, 6}, names: []string{"a", "b, c"}, tname: "y"},
		{name: "escaped quote in label", text: "1,\"say \"\"hi\"\"\"\n2,plain\n",
			x: []float64{1, 2}, y: []float64{1, 0}, names: []string{"x1"}, tname: "y", labels: []string{"plain", "say \"hi\""}},
		{name: "blank lines and trailing spaces", text: "\n\n1,2\n\n  \n3,4  \n\n",
			x: []float64{1, 3}, y: []float64{2, 4}, names: []string{"x1"}, tname: "y"},
		{name: "a carriage return inside a quoted label", text: "a,b,y\n1,2,\"p\rq\"\n3,4,r\n", x: []float64{1, 2, 3, 4}, y: []float64{0, 1},
			names: []string{"a", "b"}, tname: "y", labels: []string{"p\rq", "r"}},
		{name: "label column makes no header", text: "T,2.5,80\nI,5.5,120\nT,0.5,10\n", target: "first",
			x: []float64{2.5, 80, 5.5, 120, 0.5, 10}, y: []float64{1, 0, 1}, names: []string{"x1", "x2"}, tname: "y", labels: []string{"I", "T"}},
		{name: "header with a label column", text: "letter,w,h\nT,2.5,80\nI,5.5,120\n", target: "letter",
			x: []float64{2.5, 80, 5.5, 120}, y: []float64{1, 0}, names: []string{"w", "h"}, tname: "letter", labels: []string{"I", "T"}},
		{name: "mixed numeric and string labels sort as strings", text: "1,10\n2,9\n3,b\n",
			x: []float64{1, 2, 3}, y: []float64{0, 1, 2}, names: []string{"x1"}, tname: "y", labels: []string{"10", "9", "b"}},
		{name: "single data row", text: "1,2,3\n", x: []float64{1, 2}, y: []float64{3}, names: []string{"x1", "x2"}, tname: "y"},
		{name: "single column, no target", text: "5\n6\n", target: "none", x: []float64{5, 6}, names: []string{"x1"}},
		{name: "header names differing in case", text: "Ab,aB,y\n1,2,3\n", x: []float64{1, 2}, y: []float64{3}, names: []string{"Ab", "aB"}, tname: "y"},
		{name: "semicolon wins a tie with comma", text: "a;b,c\n1;2\n", target: "none",
			x: []float64{1, 2}, names: []string{"a", "b,c"}},
		{name: "exponents, signs, hex and underflow", text: "+1e3,-2.5E-3,0x1p-2,1e-400\n", target: "none",
			x: []float64{1000, -0.0025, 0.25, 0}, names: genNames(4)},
		{name: "digit separators make a target a class label", text: "a,b\n1,1_000\n2,7\n",
			x: []float64{1, 2}, y: []float64{0, 1}, names: []string{"a"}, tname: "b", labels: []string{"1_000", "7"}},
		{name: "more digits than strconv keeps", text: "1" + strings.Repeat("0", 800) + "e-800,-25" + strings.Repeat("0", 5000) + "e-5001,3" + strings.Repeat("0", 900) + "e-900\n",
			x: []float64{1, -2.5}, y: []float64{3}, names: []string{"x1", "x2"}, tname: "y"},
		{name: "whitespace separated", text: "1 2   3\n\t4 5 6\n", x: []float64{1, 2, 4, 5}, y: []float64{3, 6}, names: []string{"x1", "x2"}, tname: "y"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReadCSV(strings.NewReader(c.text), "t.csv", c.target)
			if c.x == nil {
				if err == nil {
					t.Fatalf("no error, got %+v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkData(t, got)
			if !slices.Equal(got.X, c.x) || !slices.Equal(got.Y, c.y) || !slices.Equal(got.Names, c.names) ||
				got.TargetName != c.tname || !slices.Equal(got.Labels, c.labels) {
				t.Errorf("got X %v Y %v Names %q TargetName %q Labels %q\nwant X %v Y %v Names %q TargetName %q Labels %q",
					got.X, got.Y, got.Names, got.TargetName, got.Labels, c.x, c.y, c.names, c.tname, c.labels)
			}
		})
	}
}

func TestCSVErrors(t *testing.T) {
	for _, c := range []struct {
		text, target string
		want         []string
	}{
		{"", "", []string{"x.csv: empty file"}},
		{"\n  \r\n\n", "", []string{"x.csv: empty file"}},
		{"a,b,c,d\n1,2,3,4\n1,2,3\n", "", []string{"x.csv:3: row has 3 fields, want 4"}},
		{"1,2\n3,4,5\n", "", []string{"x.csv:2: row has 3 fields, want 2"}},
		{"1,2,3\n4,abc,6\n", "", []string{`x.csv:2: column 2: "abc" is not a number`}},
		{"1,2,0\n\n\n3,abc,0\n", "", []string{`x.csv:4: column 2: "abc" is not a number`}},
		{"1,2\r\n3,4\r\n5,x\r\n", "first", []string{`x.csv:3: column 2: "x" is not a number`}},
		{"1,2,3\n4,1_000,6\n", "", []string{`x.csv:2: column 2: "1_000" is not a number (write it without the digit separators _)`}},
		{"\xef\xbb\xbfa,b\r\n1,2\r\n3,4\r\n5,?\r\n", "a", []string{"x.csv:4: column 2:"}},
		{"1,2\nNaN,3\n", "", []string{"x.csv:2: column 1: NaN/Inf not allowed"}},
		{"1,2\n3,4\n5,-Inf\n", "", []string{"x.csv:3: column 2: NaN/Inf not allowed"}},
		{"1,2\n3,nan\n5,6\n", "last", []string{"x.csv:2: column 2: NaN/Inf not allowed"}},
		{"1,2\n1e999,3\n", "", []string{"x.csv:2: column 1:", "out of range"}},
		{"1,2\n3,1e999\n", "", []string{`x.csv:2: column 2: "1e999" is out of range`}}, // as a feature would be
		{"1,,3\n", "", []string{"x.csv:1: column 2: empty value"}},
		{"1,2\n3,\n", "", []string{"x.csv:2: column 2: empty target value"}},
		{"a,b,c\n1,2,3\n", "foo", []string{`x.csv: unknown target column "foo" (columns: a, b, c)`}},
		{"Ab,c,aB\n1,2,3\n", "ab", []string{`x.csv: target column "ab" is ambiguous (columns 1 and 3)`}},
		{"a,b,a\n1,2,3\n", "a", []string{`x.csv:1: column 3: the name "a" is also column 1's; column names must be unique`}},
		{"1,2,3\n", "foo", []string{`x.csv: unknown target column "foo"`, "no header"}},
		{"1,2,3\n", "4", []string{"x.csv: target column 4 out of range", "1 to 3"}},
		{"1,2,3\n", "0", []string{"x.csv: target column 0 out of range"}},
		{"a,b\n", "", []string{"x.csv: no data rows"}},
		{"1\n2\n", "", []string{"x.csv: no feature columns"}},
		{"1,\"2\n3,4\n", "", []string{"x.csv:1: column 2: unterminated quoted field"}},
		{"1,2\n3,\"4\"x\n", "", []string{"x.csv:2: column 2: unexpected"}},
		{"1,2\n" + strings.Repeat("9", maxLine+1) + "\n", "", []string{"x.csv:2: line longer than"}},
		{"a,b,y\r1,2,3\r4,5,6\r", "", []string{"x.csv:1: a carriage return (\\r) inside the line, after 5 bytes", "bare CR"}},
		{"1 2 3\r4 5 6\r7 8 9\r", "", []string{"x.csv:1: a carriage return"}},
		{"1,2,3\n4,5,6\r7,8,9\n", "", []string{"x.csv:2: a carriage return (\\r) inside the line"}},
		// UTF-16 text: with a byte-order mark, or without (NUL bytes at odd or even offsets)
		{"\xff\xfea\x00,\x00b\x00\n\x001\x00,\x002\x00\n\x00", "", []string{"x.csv:1: the file seems to be UTF-16 text", "iconv -f UTF-16 -t UTF-8 x.csv > x-utf8.csv"}},
		{"a\x00,\x00b\x00\n\x001\x00,\x002\x00\n\x00", "", []string{"x.csv:1: the file seems to be UTF-16 text", "iconv -f UTF-16LE"}},
		{"\x00a\x00,\x00b\x00\n\x001\x00,\x002\x00\n", "", []string{"x.csv:1: the file seems to be UTF-16 text", "iconv -f UTF-16BE"}},
	} {
		_, err := ReadCSV(strings.NewReader(c.text), "x.csv", c.target)
		checkErr(t, err, c.want...)
	}
}

func TestCSVTruncatedGzip(t *testing.T) {
	var sb strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&sb, "%d,%d.5,%d\n", i, i, i%3)
	}
	z := gz(t, []byte(sb.String()))
	p := writeTemp(t, "cut.csv.gz", z[:len(z)/2])
	_, err := Load(p, Options{})
	checkErr(t, err, p+":", "read error", "unexpected EOF")
}

func TestCSVHeader(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		text  string
		names []string
		cols  int
	}{
		{"a,b,label\n1,2,x\n", []string{"a", "b", "label"}, 3},
		{"1,2,3\n4,5,6\n", nil, 3},
	} {
		p := filepath.Join(dir, "f.csv")
		if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		names, cols, err := CSVHeader(p)
		if err != nil || cols != tc.cols || !slices.Equal(names, tc.names) {
			t.Errorf("%q: %v %d %v", tc.text, names, cols, err)
		}
	}
	if _, _, err := CSVHeader(filepath.Join(dir, "missing.csv")); err == nil {
		t.Error("missing file: no error")
	}
}

// readHeaderWays reads text through every reader that parses a CSV header and returns, per reader, the feature names,
// the target name and the error; the file is called name (or has name as its base name) and errors are returned
// with the file's path replaced by name.
func readHeaderWays(t *testing.T, name, text, target string) map[string]func() ([]string, string, error) {
	t.Helper()
	path := writeTemp(t, name+".gz", gz(t, []byte(text)))
	rename := func(err error) error {
		if err == nil {
			return nil
		}
		return errString(strings.Replace(err.Error(), path, name, 1))
	}
	return map[string]func() ([]string, string, error){
		"ReadCSV": func() ([]string, string, error) {
			d, err := ReadCSV(strings.NewReader(text), name, target)
			if err != nil {
				return nil, "", err
			}
			return d.Names, d.TargetName, nil
		},
		"Load gzip": func() ([]string, string, error) {
			d, err := Load(path, Options{Target: target})
			if err != nil {
				return nil, "", rename(err)
			}
			return d.Names, d.TargetName, nil
		},
		"CSVStream": func() ([]string, string, error) {
			s, err := OpenCSVStream(path, target)
			if err != nil {
				return nil, "", rename(err)
			}
			defer s.Close()
			b, err := s.Next(5)
			if err != nil {
				return nil, "", rename(err)
			}
			return b.Names, b.TargetName, nil
		},
		"DetectCSVLayout": func() ([]string, string, error) {
			lines, _ := nonBlankLines(text)
			var second []byte
			if len(lines) > 1 {
				second = lines[1]
			}
			l, err := DetectCSVLayout(name, lines[0], second, target)
			if err != nil {
				return nil, "", err
			}
			return l.Names(), l.TargetName(), nil
		},
		"CSVHeader": func() ([]string, string, error) {
			_, _, err := CSVHeader(path)
			return nil, "", rename(err)
		},
	}
}

// TestCSVHeaderNames: a header whose names repeat or are empty is refused by every reader, naming the line and the
// column, since models match prediction columns by name; files without a header keep their generated names.
func TestCSVHeaderNames(t *testing.T) {
	for _, c := range []struct {
		name, text, target string
		line               int      // line of the header, for an error
		msg                string   // the error after "h.csv:LINE: " ("h.csv: first line: " for DetectCSVLayout)
		names              []string // feature names when there is no error
		tname              string
	}{
		{name: "duplicate", text: "wt,wt,yield\n0.5,1.25,-3\n", line: 1,
			msg: `column 2: the name "wt" is also column 1's; column names must be unique`},
		{name: "duplicate after trimming and unquoting", text: "\"pH\" ; pH ;yield\n0.5;1.25;-3\n", line: 1,
			msg: `column 2: the name "pH" is also column 1's; column names must be unique`},
		{name: "duplicate far apart", text: "m,n,o,m,q\n1.5,2.5,3.5,4.5,99\n", target: "none", line: 1,
			msg: `column 4: the name "m" is also column 1's; column names must be unique`},
		{name: "duplicate target name", text: "yield,wt,yield\n0.5,1.25,-3\n", target: "yield", line: 1,
			msg: `column 3: the name "yield" is also column 1's`},
		{name: "empty name", text: "wt,,yield\n0.5,1.25,-3\n", line: 1, msg: "column 2 has no name; a header must name every column"},
		{name: "empty quoted first name", text: "\"\",wt,yield\n0.5,1.25,-3\n", line: 1, msg: "column 1 has no name"},
		{name: "after blank lines", text: "\n  \nwt,wt,yield\n0.5,1.25,-3\n", line: 3, msg: `column 2: the name "wt" is also column 1's`},
		{name: "header only", text: "wt,wt,yield\n", line: 1, msg: `column 2: the name "wt" is also column 1's`},
		{name: "NUL in a name", text: "wt,p\x00H,yield\n0.5,1.25,-3\n", line: 1, msg: `column 2: the name "p\x00H" is not printable text (a control character, or not UTF-8); save the file as UTF-8`},
		{name: "Latin-1 name", text: "Temp\xe9rature,yield\n0.5,-3\n", line: 1, msg: `column 1: the name "Temp\xe9rature" is not printable text`},
		{name: "UTF-8 names", text: "Température,温度,yield\n0.5,1.25,-3\n", names: []string{"Température", "温度"}, tname: "yield"},

		{name: "no header", text: "0.5,1.25,-3\n7.5,-2,40\n", names: []string{"x1", "x2"}, tname: "y"},
		{name: "no header, repeated values", text: "21.5,21.5,21.5\n21.5,21.5,21.5\n", names: []string{"x1", "x2"}, tname: "y"},
		{name: "no header, blank separated", text: "-4 -4\n-4 -4\n", target: "none", names: []string{"x1", "x2"}},
		{name: "names differing in case", text: "Wt,wT,yield\n0.5,1.25,-3\n", names: []string{"Wt", "wT"}, tname: "yield"},
		{name: "names like generated ones", text: "x2,x1,y\n0.5,1.25,-3\n", names: []string{"x2", "x1"}, tname: "y"},
	} {
		for way, read := range readHeaderWays(t, "h.csv", c.text, c.target) {
			t.Run(c.name+"/"+way, func(t *testing.T) {
				names, tname, err := read()
				if c.msg == "" {
					if err != nil {
						t.Fatal(err)
					}
					if way != "CSVHeader" && (!slices.Equal(names, c.names) || tname != c.tname) {
						t.Errorf("names %q, target %q; want %q, %q", names, tname, c.names, c.tname)
					}
					return
				}
				want := "h.csv:" + strconv.Itoa(c.line) + ": " + c.msg
				if way == "DetectCSVLayout" {
					want = "h.csv: first line: " + c.msg
				}
				checkErr(t, err, want)
				if budgetError(err) != nil {
					t.Errorf("a budget error: %v", err)
				}
			})
		}
	}
}

// TestCSVTargetHint: a feature value that is not a number in the first or last column of a row with numbers gets a
// hint naming the target that would make it the target column (in Options.Target's words), or saying that the file
// is read with no target (target "none", as for landmarks); other columns, rows without numbers (a repeated header)
// and other faults get none.
func TestCSVTargetHint(t *testing.T) {
	for _, c := range []struct {
		name, text, target string
		want               string // the whole message, after "t.csv:"
	}{
		{name: "first column, default target", text: "Q,2.5,80\nR,5.5,120\n",
			want: `1: column 1: "Q" is not a number (a class label? target "first" makes column 1 the target)`},
		{name: "first column under a header", text: "kind,w,h\nQ,2.5,80\n",
			want: `2: column 1: "Q" is not a number (a class label? target "first" makes column 1 the target)`},
		{name: "first column in a later row", text: "0.5,2.5,80\n-1.5,5.5,120\nbeta,1,2\n", target: "none",
			want: `3: column 1: "beta" is not a number (a class label? this file is read with no target column)`},
		{name: "last column, target first", text: "2.5,80,Q\n5.5,120,R\n", target: "first",
			want: `1: column 3: "Q" is not a number (a class label? target "last" makes column 3 the target)`},
		{name: "last column, no target", text: "2.5;80;17.25;Q\n5.5;120;18;R\n", target: "none",
			want: `1: column 4: "Q" is not a number (a class label? this file is read with no target column)`},
		{name: "header repeated in the data", text: "w,h,kind\n0.5,2.5,Q\nw,h,kind\n1.5,3,R\n",
			want: `3: column 1: "w" is not a number`},
		{name: "text-only row, target first", text: "0.5,2.5\nmu,xi\n", target: "first",
			want: `2: column 2: "xi" is not a number`},
		{name: "two columns, target first", text: "0.5,2.5\n-8,xi\n", target: "first",
			want: `2: column 2: "xi" is not a number (a class label? target "last" makes column 2 the target)`},
		{name: "digit separators in the last column", text: "2.5,80,1\n5.5,120,1_000\n", target: "first",
			want: `2: column 3: "1_000" is not a number (write it without the digit separators _)`},
		{name: "middle column", text: "2.5,Q,80\n5.5,R,120\n", want: `1: column 2: "Q" is not a number`},
		{name: "single column", text: "20.5\nQ\n", target: "none", want: `2: column 1: "Q" is not a number`},
		{name: "empty first value", text: "0.5,2.5,80\n,5.5,120\n", want: "2: column 1: empty value"},
		{name: "NaN first value", text: "0.5,2.5,80\nNaN,5.5,120\n", want: `2: column 1: NaN/Inf not allowed ("NaN")`},
		{name: "out-of-range last value", text: "0.5,2.5,80\n5.5,120,1e999\n", target: "first", want: "2: column 3: \"1e999\" is out of range"},
	} {
		ways := map[string]func() error{
			"ReadCSV": func() error {
				_, err := ReadCSV(strings.NewReader(c.text), "t.csv", c.target)
				return err
			},
			"CSVStream": func() error {
				s, err := NewCSVStream(strings.NewReader(c.text), "t.csv", c.target)
				for err == nil {
					_, err = s.Next(1)
				}
				return err
			},
			"lines": func() error {
				_, err := parseByLines(t, "t.csv", c.text, c.target)
				return err
			},
		}
		for way, read := range ways {
			t.Run(c.name+"/"+way, func(t *testing.T) {
				err := read()
				if err == nil || err.Error() != "t.csv:"+c.want {
					t.Fatalf("error %v, want %q", err, "t.csv:"+c.want)
				}
			})
		}
	}
}

// TestCSVColumns: Options.Columns reads the named input columns of a file with a header, in the file's order, and
// skips the others unparsed (text, empty fields, quoted delimiters); the target is read as before. Names the header
// lacks are not read; none of them at all is an error. A file without a header is read whole.
func TestCSVColumns(t *testing.T) {
	const text = "id,b,note,a,y\nr1,2,hello,1,3\nr2,3,,2,4\nr3,1,\"q,z\",3,cat\n"
	for _, c := range []struct {
		name, text string
		columns    []string
		x          []float64
		names      []string
		err        string
	}{
		{name: "two of four", text: text, columns: []string{"a", "b"}, x: []float64{2, 1, 3, 2, 1, 3}, names: []string{"b", "a"}},
		{name: "one, with a missing name", text: text, columns: []string{"a", "zz"}, x: []float64{1, 2, 3}, names: []string{"a"}},
		{name: "the target named too", text: text, columns: []string{"y", "a"}, x: []float64{1, 2, 3}, names: []string{"a"}},
		{name: "none", text: text, columns: []string{"zz"}, err: "x.csv: none of the input columns asked for (zz) is in the file (columns: id, b, note, a, y)"},
		{name: "other case, and the target", text: "A,B,y\n1,2,3\n", columns: []string{"a", "b", "y"},
			err: `x.csv: none of the input columns asked for (a, b) is in the file (columns: A, B, y); names must match exactly ("A" is not "a")`},
		{name: "all, without Columns", text: text, err: `x.csv:2: column 1: "r1" is not a number`},
		{name: "no header", text: "1,2,3\n4,5,6\n", columns: []string{"a"}, x: []float64{1, 2, 4, 5}, names: []string{"x1", "x2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := Options{Columns: c.columns}.ReadCSV(strings.NewReader(c.text), "x.csv")
			if c.err != "" {
				checkErr(t, err, c.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.D != len(c.names) || !slices.Equal(d.X, c.x) || !slices.Equal(d.Names, c.names) {
				t.Errorf("D = %d, X = %v, names %q; want %v, %q", d.D, d.X, d.Names, c.x, c.names)
			}
		})
	}
	d, err := Options{Columns: []string{"a"}}.ReadCSV(strings.NewReader(text), "x.csv")
	if err != nil || !slices.Equal(d.Labels, []string{"3", "4", "cat"}) || d.TargetName != "y" {
		t.Errorf("the target: %v, labels %q, name %q", err, d.Labels, d.TargetName)
	}
}

// TestCSVFirstRowTypo: a headerless file whose first row holds a mistyped number or an empty field is data with an
// error at line 1, not a header that would drop the row; names above numbers, numeric names among them, still make a
// header.
func TestCSVFirstRowTypo(t *testing.T) {
	for _, c := range []struct{ text, err string }{
		{"1,2.5.1,3\n2,1,4\n3,3,7\n", `x.csv:1: column 2: "2.5.1" is not a number`},
		{"1,,3\n2,1,4\n3,3,7\n", `x.csv:1: column 2: empty value`},
		{"1,1e,3\n2,1,4\n3,3,7\n", `x.csv:1: column 2: "1e" is not a number`},
		// A comment line is no data either: said so.
		{"# made by x\na,b,y\n1,2,3\n2,1,4\n", `x.csv:1: column 1: "#" is not a number (CSV has no comment lines: remove the lines that start with #, e.g. grep -v '^#')`},
		{"a,b,y\n1,2,3\n# x,1,4\n3,3,7\n", `x.csv:3: column 1: "# x" is not a number (CSV has no comment lines: remove the lines that start with #, e.g. grep -v '^#')`},
		{"a,b,y\n1,2,3\n# a note\n3,3,7\n", `x.csv:3: row has 1 fields, want 3 (CSV has no comment lines: remove the lines that start with #, e.g. grep -v '^#')`},
		// "#1" is a label, not a comment: the label hint stays.
		{"rank,x,y\n#1,2,3\n#2,3,4\n", `x.csv:2: column 1: "#1" is not a number (a class label? target "first" makes column 1 the target)`},
	} {
		_, err := Options{}.ReadCSV(strings.NewReader(c.text), "x.csv")
		checkErr(t, err, c.err)
	}
	d, err := Options{}.ReadCSV(strings.NewReader("id,2019,2020\n1,2,3\n2,3,4\n"), "x.csv")
	if err != nil || d.N != 2 || !slices.Equal(d.Names, []string{"id", "2019"}) || d.TargetName != "2020" {
		t.Errorf("a header with numeric names: %v, %+v", err, d)
	}
	// Names made of digits, signs and letters e that are no numbers are names: electrodes, ranges, years, dates.
	for _, header := range []string{"E1,E2,E3", "e1,e2,e3", "1-2,3-4,5-6", "2019-20,2020-21,2021-22", "2020-01-01,2020-01-02,y"} {
		d, err := Options{}.ReadCSV(strings.NewReader(header+"\n1,2,3\n4,5,6\n"), "x.csv")
		if err != nil || d.N != 2 {
			t.Errorf("header %q: %v, %+v", header, err, d)
		}
	}
}
