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

// TestEncode: the file reads back to what was written (numbers exactly), holds one item per line, and a value JSON
// cannot hold is an error, not a file.
func TestEncode(t *testing.T) {
	items := []draw{{"a", [][]float64{{0.1, 1.0 / 3}}}, {"b", [][]float64{{-2.5e-300, math.MaxFloat64}}}, {"c", nil}}
	fields := []Field{{"about", "a test"}, {"seed", uint64(7)}, {"x", [][]float64{{0.3137, -0.7218}}}}
	data, err := Encode(fields, "maps", items)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		About string      `json:"about"`
		Seed  uint64      `json:"seed"`
		X     [][]float64 `json:"x"`
		Maps  []draw      `json:"maps"`
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("%v in\n%s", err, data)
	}
	if back.About != "a test" || back.Seed != 7 || fmt.Sprint(back.X) != fmt.Sprint(fields[2].Value) {
		t.Errorf("fields read back as %q, %d, %v", back.About, back.Seed, back.X)
	}
	if len(back.Maps) != len(items) {
		t.Fatalf("%d items read back, wrote %d", len(back.Maps), len(items))
	}
	for i, it := range items {
		if fmt.Sprintf("%#v", back.Maps[i]) != fmt.Sprintf("%#v", it) {
			t.Errorf("item %d read back as %#v, wrote %#v", i, back.Maps[i], it)
		}
	}
	// {, the fields, the list's opening line, one line per item, ], }.
	if lines := bytes.Count(data, []byte("\n")); lines != 1+len(fields)+1+len(items)+2 {
		t.Fatalf("%d lines, want %d:\n%s", lines, 1+len(fields)+1+len(items)+2, data)
	}
	lines := strings.Split(string(data), "\n")
	for i, it := range items {
		line, _ := json.Marshal(it)
		want := "    " + string(line)
		if i < len(items)-1 {
			want += ","
		}
		if got := lines[1+len(fields)+1+i]; got != want {
			t.Errorf("item %d: line %q, want %q", i, got, want)
		}
	}
	for _, bad := range []struct {
		name   string
		fields []Field
		items  []draw
	}{
		{"NaN field", []Field{{"sigma", math.NaN()}}, nil},
		{"infinite item", nil, []draw{{"inf", [][]float64{{math.Inf(1)}}}}},
	} {
		t.Run(bad.name, func(t *testing.T) {
			if data, err := Encode(bad.fields, "maps", bad.items); err == nil {
				t.Errorf("no error; wrote\n%s", data)
			}
		})
	}
}

// TestWrite: Write creates the directory and the file holds what Encode returns.
func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testdata", "golden.json")
	fields := []Field{{"seed", 7}}
	items := []draw{{"a", [][]float64{{1, 2}}}}
	if err := Write(path, fields, "maps", items); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Encode(fields, "maps", items)
	if !bytes.Equal(got, want) {
		t.Errorf("file holds\n%s\nEncode gives\n%s", got, want)
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

// ExampleEncode: two fields and two items, each item on a line of its own.
func ExampleEncode() {
	data, err := Encode([]Field{{"seed", 7}, {"x", []float64{0.5, -1}}}, "maps",
		[]draw{{"a", [][]float64{{1}}}, {"b", [][]float64{{0.1}}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(data))
	// Output:
	// {
	//   "seed": 7,
	//   "x": [0.5,-1],
	//   "maps": [
	//     {"name":"a","z":[[1]]},
	//     {"name":"b","z":[[0.1]]}
	//   ]
	// }
}
