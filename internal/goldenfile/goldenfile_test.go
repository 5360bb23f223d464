package goldenfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type draw struct {
	Name string      `json:"name"`
	Z    [][]float64 `json:"z"`
}

type file struct {
	About string      `json:"about"`
	Seed  uint64      `json:"seed"`
	X     [][]float64 `json:"x"`
	Maps  []draw      `json:"maps"`
	After string      `json:"after,omitempty"`
}

// TestEncode: the file reads back to what was written (numbers exactly), holds each member of the object, in order,
// and each item of the list on a line of its own, and what is not such an object is an error, not a file.
func TestEncode(t *testing.T) {
	for _, c := range []struct {
		name string
		in   file
	}{
		{"list last", file{About: "a test", Seed: 7, X: [][]float64{{0.3137, -0.7218}},
			Maps: []draw{{"a", [][]float64{{0.1, 1.0 / 3}}}, {"b", [][]float64{{-2.5e-300, math.MaxFloat64}}}, {"c", nil}}}},
		{"member after the list", file{About: "x", Maps: []draw{{"a", nil}}, After: "z"}},
		{"empty list", file{About: "x", Maps: []draw{}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data, err := Encode(c.in, "maps")
			if err != nil {
				t.Fatal(err)
			}
			var back file
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatalf("%v in\n%s", err, data)
			}
			if fmt.Sprintf("%#v", back) != fmt.Sprintf("%#v", c.in) {
				t.Errorf("read back\n%#v\nwrote\n%#v", back, c.in)
			}
			// The lines: {, one per member before the list, the list's opening line, one per item, its closing line,
			// one per member after it, }.
			var want []string
			want = append(want, "{")
			after := 0
			if c.in.After != "" {
				after = 1
			}
			for _, m := range []struct {
				key string
				v   any
			}{{"about", c.in.About}, {"seed", c.in.Seed}, {"x", c.in.X}} {
				enc, _ := json.Marshal(m.v)
				want = append(want, fmt.Sprintf("  %q: %s,", m.key, enc))
			}
			want = append(want, `  "maps": [`)
			for i, it := range c.in.Maps {
				line, _ := json.Marshal(it)
				sep := ","
				if i == len(c.in.Maps)-1 {
					sep = ""
				}
				want = append(want, "    "+string(line)+sep)
			}
			if after == 1 {
				want = append(want, "  ],", fmt.Sprintf("  \"after\": %q", c.in.After))
			} else {
				want = append(want, "  ]")
			}
			want = append(want, "}", "")
			if string(data) != strings.Join(want, "\n") {
				t.Errorf("wrote\n%s\nwant\n%s", data, strings.Join(want, "\n"))
			}
		})
	}
	for _, bad := range []struct {
		name string
		v    any
		list string
	}{
		{"NaN", struct{ Sigma float64 }{math.NaN()}, "maps"},
		{"infinite item", file{Maps: []draw{{"inf", [][]float64{{math.Inf(1)}}}}}, "maps"},
		{"not an object", []draw{{"a", nil}}, "maps"},
		{"no list", file{}, "draws"},
		{"list not an array", file{}, "about"},
	} {
		t.Run(bad.name, func(t *testing.T) {
			if data, err := Encode(bad.v, bad.list); err == nil {
				t.Errorf("no error; wrote\n%s", data)
			}
		})
	}
}

// TestWrite: Write creates the directory, the file holds what Encode returns and Read reads it back; Read of a
// missing or malformed file is an error naming it.
func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testdata", "golden.json")
	v := file{Seed: 7, Maps: []draw{{"a", [][]float64{{1, 2}}}}}
	if err := Write(path, v, "maps"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Encode(v, "maps")
	if !bytes.Equal(got, want) {
		t.Errorf("file holds\n%s\nEncode gives\n%s", got, want)
	}
	var back file
	if err := Read(path, &back); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%#v", back) != fmt.Sprintf("%#v", v) {
		t.Errorf("Read gives\n%#v\nwrote\n%#v", back, v)
	}
	for _, bad := range []struct{ name, path, content string }{
		{"missing", filepath.Join(t.TempDir(), "none.json"), ""},
		{"malformed", filepath.Join(t.TempDir(), "bad.json"), `{"seed": 7,`},
	} {
		t.Run(bad.name, func(t *testing.T) {
			if bad.content != "" {
				if err := os.WriteFile(bad.path, []byte(bad.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := Read(bad.path, &back)
			if err == nil || !strings.Contains(err.Error(), bad.path) {
				t.Errorf("Read(%s): error %v, want one naming the file", bad.path, err)
			}
		})
	}
}

// TestMismatch: an entry beyond its tolerance, a NaN and a golden row of another length are reported; entries within
// the tolerance (the bound included) and skipped ones are not.
func TestMismatch(t *testing.T) {
	want := [][]float64{{1, 2}, {3, 4}}
	tol := [][]float64{{0.25, 0.25}, {0.25, 0.25}}
	for _, c := range []struct {
		name      string
		got, want [][]float64
		skip      [][]bool
		report    string // a substring of the report; "" when none is due
	}{
		{"equal", [][]float64{{1, 2}, {3, 4}}, want, nil, ""},
		{"at the tolerance", [][]float64{{1.25, 2}, {3, 3.75}}, want, nil, ""},
		{"beyond", [][]float64{{1, 2}, {3, 4.5}}, want, nil, "row 1 feature 1 = 4.5"},
		{"NaN", [][]float64{{1, math.NaN()}, {3, 4}}, want, nil, "row 0 feature 1 = NaN"},
		{"skipped", [][]float64{{1, 2}, {3, 4.5}}, want, [][]bool{{false, false}, {false, true}}, ""},
		{"skip elsewhere", [][]float64{{1, 2}, {3, 4.5}}, want, [][]bool{{true, true}, {true, false}}, "row 1 feature 1"},
		{"short golden row", [][]float64{{1, 2}, {3, 4}}, [][]float64{{1, 2}, {3}}, nil, "golden row 1 has 1 features"},
		{"missing golden row", [][]float64{{1, 2}, {3, 4}}, [][]float64{{1, 2}}, nil, "2 rows, golden 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Mismatch(c.got, c.want, tol, c.skip)
			switch {
			case c.report == "" && got != "":
				t.Errorf("reported %q", got)
			case c.report != "" && !strings.Contains(got, c.report):
				t.Errorf("reported %q, want a report mentioning %q", got, c.report)
			}
		})
	}
}

// TestMaxScaledDiff: the largest difference in units of tolerance (numbers exact in binary, so the quotient is exact),
// and +Inf for rows of another shape.
func TestMaxScaledDiff(t *testing.T) {
	tol := [][]float64{{0.25, 0.5}}
	for _, c := range []struct {
		name      string
		got, want [][]float64
		max       float64
	}{
		{"equal", [][]float64{{1, 2}}, [][]float64{{1, 2}}, 0},
		{"largest of two", [][]float64{{1.5, 3}}, [][]float64{{1, 2}}, 2},
		{"other row count", [][]float64{{1, 2}}, nil, math.Inf(1)},
		{"other row length", [][]float64{{1, 2}}, [][]float64{{1}}, math.Inf(1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := MaxScaledDiff(c.got, c.want, tol); got != c.max {
				t.Errorf("MaxScaledDiff = %v, want %v", got, c.max)
			}
		})
	}
}

// ExampleEncode: a struct's fields in order, and each item of its list of draws on a line of its own.
func ExampleEncode() {
	data, err := Encode(struct {
		Seed  int       `json:"seed"`
		X     []float64 `json:"x"`
		Draws []draw    `json:"draws"`
	}{7, []float64{0.5, -1}, []draw{{"a", [][]float64{{1}}}, {"b", [][]float64{{0.1}}}}}, "draws")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(data))
	// Output:
	// {
	//   "seed": 7,
	//   "x": [0.5,-1],
	//   "draws": [
	//     {"name":"a","z":[[1]]},
	//     {"name":"b","z":[[0.1]]}
	//   ]
	// }
}
