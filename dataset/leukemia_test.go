package dataset

import (
	"encoding/csv"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// writeLeukemia writes the three files of the Broad layout into a fresh directory; gzipTrain compresses the
// training file (LoadLeukemia must detect it from the content).
func writeLeukemia(t *testing.T, train, indep, actual string, gzipTrain bool) string {
	t.Helper()
	dir := t.TempDir()
	tb := []byte(train)
	if gzipTrain {
		tb = gz(t, tb)
	}
	for name, b := range map[string][]byte{LeukemiaTrainFile: tb, LeukemiaIndependentFile: []byte(indep),
		LeukemiaLabelsFile: []byte(actual)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A miniature in the layout of the real files (invented genes and values): sample columns out of order, call columns, a stray quote in a description, CRLF
// data lines after an LF header, and a trailing blank line in actual.csv.
const (
	leuTrain = "Gene Description,Gene Accession Number,1,call,3,call,2,call\n" +
		"TEST-G1_at (control gene),TEST-G1_at,-210,A,30,P,-130,A\r\n" +
		"KINASE \"B FORM\" VARIANT,M1_at,1.5,M,33,A,2e1,P\r\n"
	leuIndep = "Gene Description,Gene Accession Number,5,call,4,call\n" +
		"TEST-G1_at (control gene),TEST-G1_at,50,A,40,A\n" +
		"KINASE \"B FORM\" VARIANT,M1_at,55,A,44,P\n"
	leuActual = "\ufeffpatient,cancer\n1,ALL\n2,AML\n3,ALL\n4,AML\n5,ALL\n\n"
)

func TestLoadLeukemiaLayout(t *testing.T) {
	for _, z := range []bool{false, true} {
		d, err := LoadLeukemia(writeLeukemia(t, leuTrain, leuIndep, leuActual, z))
		if err != nil {
			t.Fatal(err)
		}
		checkData(t, d)
		// Rows in patient order 1..5, whatever the column order of the files.
		want := []float64{-210, 1.5, -130, 20, 30, 33, 40, 44, 50, 55}
		if d.N != 5 || d.D != 2 || !slices.Equal(d.X, want) {
			t.Fatalf("gzip %v: %d×%d %v, want 5×2 %v", z, d.N, d.D, d.X, want)
		}
		if !slices.Equal(d.Y, []float64{0, 1, 0, 1, 0}) || !slices.Equal(d.Labels, []string{"ALL", "AML"}) ||
			d.TargetName != "cancer" || !slices.Equal(d.Names, []string{"TEST-G1_at", "M1_at"}) {
			t.Fatalf("Y %v, Labels %q, TargetName %q, Names %q", d.Y, d.Labels, d.TargetName, d.Names)
		}
	}
	// The training file's patients come first even when the independent file has smaller numbers.
	dir := writeLeukemia(t, strings.ReplaceAll(leuTrain, ",1,call", ",7,call"), leuIndep,
		strings.Replace(leuActual, "1,ALL", "7,AML", 1), false)
	d, err := LoadLeukemia(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{-130, 20, 30, 33, -210, 1.5, 40, 44, 50, 55}; !slices.Equal(d.X, want) || !slices.Equal(d.Y, []float64{1, 0, 1, 1, 0}) {
		t.Fatalf("rows %v, Y %v; want %v, [1 0 1 1 0]", d.X, d.Y, want)
	}
	train, test, err := LoadLeukemiaSplit(dir)
	if err != nil {
		t.Fatal(err)
	}
	if train.N != 3 || test.N != 2 || !slices.Equal(test.X, []float64{40, 44, 50, 55}) || !slices.Equal(train.Y, []float64{1, 0, 1}) {
		t.Fatalf("split: train %+v, test %+v", train, test)
	}
}

func TestLoadLeukemiaErrors(t *testing.T) {
	_, err := LoadLeukemia(filepath.Join(t.TempDir(), "absent"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing directory: %v, want fs.ErrNotExist", err)
	}
	cases := []struct {
		name, train, indep, actual, want string
	}{
		{"other genes", leuTrain, strings.Replace(leuIndep, ",M1_at,", ",M2_at,", 1), leuActual, "genes differ"},
		{"unlabelled patient", leuTrain, leuIndep, strings.Replace(leuActual, "5,ALL\n", "", 1), "patient 5 of data_set_ALL_AML_independent.csv has no label"},
		{"label without data", leuTrain, leuIndep, leuActual + "6,AML\n", "patient 6 has a label but no expression values"},
		{"bad class", leuTrain, leuIndep, strings.Replace(leuActual, "4,AML", "4,CLL", 1), ":5: cancer \"CLL\""},
		{"bad value", strings.Replace(leuTrain, ",33,", ",x3,", 1), leuIndep, leuActual, LeukemiaTrainFile + ":3: column 5 (patient 3): \"x3\" is not a number"},
		{"NaN", strings.Replace(leuTrain, ",33,", ",NaN,", 1), leuIndep, leuActual, "NaN/Inf not allowed"},
		{"patient in both files", leuTrain, strings.Replace(leuIndep, ",5,call", ",1,call", 1), leuActual, "patient 1 also appears"},
		{"patient twice", strings.Replace(leuTrain, ",3,call", ",1,call", 1), leuIndep, leuActual, "patient 1 appears twice"},
		{"bad header", strings.Replace(leuTrain, ",3,call", ",three,call", 1), leuIndep, leuActual, "header \"three\""},
		{"short row", strings.Replace(leuTrain, ",2e1,P\r\n", ",2e1\r\n", 1), leuIndep, leuActual, ":3: wrong number of fields"},
	}
	for _, c := range cases {
		_, err := LoadLeukemia(writeLeukemia(t, c.train, c.indep, c.actual, false))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestRealLeukemia checks the facts stated in leukemia/README.txt: 72 × 7129, train 27 ALL / 11 AML, test 20 ALL /
// 14 AML; and patient 1's first ten values and the first gene's name against an independent read of the training
// file with encoding/csv (its column "1", its first ten data lines).
func TestRealLeukemia(t *testing.T) {
	dir := filepath.Dir(dataFile(t, "leukemia", LeukemiaLabelsFile))
	d, err := LoadLeukemia(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkData(t, d)
	if d.N != 72 || d.D != 7129 {
		t.Fatalf("%d×%d, want 72×7129", d.N, d.D)
	}
	train, test, err := LoadLeukemiaSplit(dir)
	if err != nil {
		t.Fatal(err)
	}
	if h, tl := d.Split(LeukemiaTrain); train.N != 38 || test.N != 34 || !slices.Equal(h.X, train.X) || !slices.Equal(tl.Y, test.Y) {
		t.Fatalf("LoadLeukemiaSplit: %d + %d rows, or not the first 38 rows of LoadLeukemia", train.N, test.N)
	}
	if c := classCounts(t, train.Y, 2); !slices.Equal(c, []int{27, 11}) {
		t.Errorf("train ALL/AML = %v, want [27 11]", c)
	}
	if c := classCounts(t, test.Y, 2); !slices.Equal(c, []int{20, 14}) {
		t.Errorf("test ALL/AML = %v, want [20 14]", c)
	}
	f, err := os.Open(filepath.Join(dir, LeukemiaTrainFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(records[0], "1")
	if col < 0 || len(records) < 11 {
		t.Fatalf("the training file has no column for patient 1 or fewer than ten genes")
	}
	want := make([]float64, 10)
	for g := range want {
		if want[g], err = strconv.ParseFloat(strings.TrimSpace(records[1+g][col]), 64); err != nil {
			t.Fatal(err)
		}
	}
	if got := d.Row(0)[:10]; !slices.Equal(got, want) {
		t.Errorf("patient 1, first genes %v, want %v", got, want)
	}
	if d.Names[0] != records[1][1] {
		t.Errorf("first gene %q, want %q", d.Names[0], records[1][1])
	}
}
