package study

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/rffkit/rff/internal/datadir"
)

// runReport runs a study and returns its report.
func runReport[R any](t *testing.T, s Study) *Report[R] {
	t.Helper()
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rep, ok := res.(*Report[R])
	if !ok {
		t.Fatalf("result of type %T", res)
	}
	return rep
}

// needData returns the data directory, or skips the test when the named dataset folder is absent.
func needData(t *testing.T, dataset string) string {
	t.Helper()
	if _, ok := datadir.Path(dataset); !ok {
		t.Skipf("%s not available under %s", dataset, datadir.Dir())
	}
	return datadir.Dir()
}

// checkStat checks the invariants of a mean over runs and its 95% interval.
func checkStat(t *testing.T, what string, s Stat, runs int) {
	t.Helper()
	h := 1.96 * s.Std / math.Sqrt(float64(runs))
	if s.Runs != runs || !(s.Mean > 0) || s.Std < 0 || math.Abs(s.CI95[0]-(s.Mean-h)) > 1e-12 ||
		math.Abs(s.CI95[1]-(s.Mean+h)) > 1e-12 {
		t.Errorf("%s: bad stat %+v (runs %d)", what, s, runs)
	}
}

// figures writes the figures of res into a fresh directory, checks that there are n of them, and returns the
// series of each with their numbers of points (checkFigure).
func figures(t *testing.T, res Result, n int) []map[string]int {
	t.Helper()
	paths, err := res.Write(t.TempDir())
	if err != nil || len(paths) != n {
		t.Fatalf("%d figures %v, %v; want %d", len(paths), paths, err, n)
	}
	var out []map[string]int
	for _, p := range paths {
		out = append(out, checkFigure(t, p))
	}
	return out
}

// checkFigure checks that the PNG and its CSV exist and returns the CSV's series names with their numbers of points.
func checkFigure(t *testing.T, png string) map[string]int {
	t.Helper()
	if fi, err := os.Stat(png); err != nil || fi.Size() == 0 {
		t.Fatalf("figure %s: %v", png, err)
	}
	text, err := os.ReadFile(strings.TrimSuffix(png, ".png") + ".csv")
	recs, cerr := csv.NewReader(bytes.NewReader(text)).ReadAll()
	if err != nil || cerr != nil {
		t.Fatal(png, err, cerr)
	}
	if len(recs) < 2 || strings.Join(recs[0], ",") != "series,x,y,lo,hi" {
		t.Fatalf("%s: CSV header %v, %d records", png, recs[0], len(recs))
	}
	series := map[string]int{}
	for _, r := range recs[1:] {
		series[r[0]]++
	}
	return series
}

// Every study of the registry is valid with its defaults (and a data directory), counts its work, binds its
// settings as flags whose defaults are the settings, and marshals to JSON with its runs and seed.
func TestRegistry(t *testing.T) {
	names := map[string]bool{}
	prev := ""
	for _, e := range All() {
		if e.Name <= prev || names[e.Name] || e.Summary == "" {
			t.Errorf("%q after %q: names must be sorted and unique, with a summary", e.Name, prev)
		}
		prev, names[e.Name] = e.Name, true
		if f, ok := Find(e.Name); !ok || f.Name != e.Name {
			t.Errorf("Find(%q) = %v, %v", e.Name, f.Name, ok)
		}
		s := e.New()
		fs := flag.NewFlagSet(e.Name, flag.ContinueOnError)
		t.Setenv(datadir.Env, t.TempDir())
		if err := Bind(fs, s); err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		if err := s.Validate(); err != nil || s.Steps() < 1 {
			t.Errorf("%s: defaults invalid (%v) or no steps (%d)", e.Name, err, s.Steps())
		}
		for _, name := range []string{"runs", "seed"} {
			if fs.Lookup(name) == nil {
				t.Errorf("%s: no --%s", e.Name, name)
			}
		}
		b, err := json.Marshal(s)
		var m map[string]any
		if err != nil || json.Unmarshal(b, &m) != nil || m["runs"] == nil || m["seed"] == nil {
			t.Errorf("%s: settings JSON %s, %v", e.Name, b, err)
		}
		// Parsing the printed defaults back changes nothing.
		var args []string
		fs.VisitAll(func(f *flag.Flag) { args = append(args, "--"+f.Name+"="+f.DefValue) })
		before := string(b)
		if err := fs.Parse(args); err != nil {
			t.Errorf("%s: parsing the defaults: %v", e.Name, err)
		}
		if after, _ := json.Marshal(s); string(after) != before {
			t.Errorf("%s: defaults do not round-trip:\n%s\n%s", e.Name, before, after)
		}
	}
	if _, ok := Find("nope"); ok {
		t.Error("Find(nope) found a study")
	}
}

// The data studies refuse to run without a data directory, with a message that says how to give one.
func TestDataDirRequired(t *testing.T) {
	t.Setenv(datadir.Env, "")
	for _, name := range []string{"orff-fig2", "quad-fig2", "quad-fig3"} {
		e, _ := Find(name)
		s := e.New()
		if err := Bind(flag.NewFlagSet(name, flag.ContinueOnError), s); err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(); !errors.Is(err, errNoDataDir) || !strings.Contains(err.Error(), "--data-dir or RFF_DATA") {
			t.Errorf("%s without a data directory: %v", name, err)
		}
	}
}

type bindSettings struct {
	N     int       `flag:"n" help:"an int"`
	X     float64   `flag:"x"`
	S     string    `flag:"s" env:"RFF_TEST_BIND"`
	B     bool      `flag:"b"`
	U     uint64    `flag:"u"`
	Ns    []int     `flag:"ns"`
	Xs    []float64 `flag:"xs"`
	Ss    []string  `flag:"ss"`
	G     GiB       `flag:"g"`
	Inner struct {
		K int `flag:"k"`
	}
	Draws
	untagged int
}

func TestBind(t *testing.T) {
	t.Setenv("RFF_TEST_BIND", "from-env")
	s := bindSettings{N: 3, Ns: []int{1, 2}, G: 1 << 30}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := Bind(fs, &s); err != nil {
		t.Fatal(err)
	}
	if f := fs.Lookup("ns"); f == nil || f.DefValue != "1,2" || fs.Lookup("n").Usage != "an int" ||
		fs.Lookup("g").DefValue != "1" || s.S != "from-env" || fs.Lookup("rule") == nil || fs.Lookup("k") == nil {
		t.Fatalf("flags not bound as expected: %+v", s)
	}
	err := fs.Parse([]string{"--n", "7", "--x", "0.5", "--s", "z", "--b", "--u", "9", "--ns", "4, 5,", "--xs", "1e-3",
		"--ss", "a,b", "--g", "0.5", "--k", "2", "--runs", "4"})
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 7 || s.X != 0.5 || s.S != "z" || !s.B || s.U != 9 || len(s.Ns) != 2 || s.Ns[1] != 5 || s.Xs[0] != 1e-3 ||
		s.Ss[1] != "b" || s.G != 1<<29 || s.Inner.K != 2 || s.Runs != 4 {
		t.Errorf("parsed %+v", s)
	}
	for _, bad := range [][]string{{"--ns", ""}, {"--ns", "1,x"}, {"--xs", ","}, {"--g", "-1"}, {"--g", "nan"}} {
		if err := fs.Parse(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if err := Bind(fs, s); err == nil {
		t.Error("a struct value (not a pointer) accepted")
	}
	var bad struct {
		M map[string]int `flag:"m"`
	}
	if err := Bind(flag.NewFlagSet("t", flag.ContinueOnError), &bad); err == nil {
		t.Error("a map field accepted")
	}
}
