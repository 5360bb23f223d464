package plotting

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// errorVsN is a figure like the ones of the quadrature experiments:
// relative error against the number of points for three rules, mean with a
// band, decreasing as n^-1/2 (G, ORF) and n^-1 (SR-butterfly).
func errorVsN() Figure {
	f := Figure{
		Title:  "Relative error vs n",
		XLabel: "n (number of points)",
		YLabel: "relative error",
		LogX:   true,
		LogY:   true,
	}
	for k, r := range []struct {
		name       string
		c, p, band float64
	}{{"G", 0.9, 0.5, 0.35}, {"ORF", 0.6, 0.5, 0.3}, {"SR-butterfly", 0.5, 1, 0.5}} {
		s := Series{Name: r.name}
		for n := 16.0; n <= 4096; n *= 2 {
			m := r.c * math.Pow(n, -r.p) * (1 + 0.05*math.Sin(n+float64(k)))
			s.X, s.Y = append(s.X, n), append(s.Y, m)
			s.Lo, s.Hi = append(s.Lo, m*(1-r.band)), append(s.Hi, m*(1+r.band))
		}
		f.Series = append(f.Series, s)
	}
	return f
}

func TestSavePNG(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		w, h         float64
		wantW, wantH int
	}{
		{0, 0, 6 * 96, 4 * 96},
		{5, 3, 5 * 96, 3 * 96},
		{8, 0, 8 * 96, 4 * 96},
	} {
		f := errorVsN()
		f.Width, f.Height = tc.w, tc.h
		path := filepath.Join(dir, fmt.Sprintf("fig-%vx%v.png", tc.w, tc.h))
		if err := Save(path, f); err != nil {
			t.Fatalf("Save(%s): %v", path, err)
		}
		file, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(file)
		file.Close()
		if err != nil {
			t.Fatalf("decoding %s: %v", path, err)
		}
		if b := img.Bounds(); b.Dx() != tc.wantW || b.Dy() != tc.wantH {
			t.Errorf("%s: size %d×%d, want %d×%d", path, b.Dx(), b.Dy(), tc.wantW, tc.wantH)
		}
	}
}

func TestSaveSVGAndPDF(t *testing.T) {
	dir := t.TempDir()
	for path, magic := range map[string]string{
		filepath.Join(dir, "fig.svg"): "<svg",
		filepath.Join(dir, "fig.SVG"): "<svg",
		filepath.Join(dir, "fig.pdf"): "%PDF",
	} {
		if err := Save(path, errorVsN()); err != nil {
			t.Fatalf("Save(%s): %v", path, err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) == 0 || !bytes.Contains(data[:min(len(data), 512)], []byte(magic)) {
			t.Errorf("%s: %d bytes, no %q near the start", path, len(data), magic)
		}
	}
	// The SVG carries the text of the figure.
	svg, _ := os.ReadFile(filepath.Join(dir, "fig.svg"))
	for _, s := range []string{"Relative error vs n", "SR-butterfly", "relative error"} {
		if !bytes.Contains(svg, []byte(s)) {
			t.Errorf("SVG does not contain %q", s)
		}
	}
}

func TestSaveLogWithNonPositiveValues(t *testing.T) {
	dir := t.TempDir()
	f := Figure{
		LogY: true,
		Series: []Series{
			{Name: "with zero", X: []float64{1, 2, 3, 4}, Y: []float64{0.1, 0, 0.01, 0.001}},
			{Name: "lo below zero", X: []float64{1, 2, 3}, Y: []float64{0.5, 0.2, 0.1},
				Lo: []float64{-0.1, 0.1, 0.05}, Hi: []float64{1, 0.3, 0.2}},
			{Name: "nothing drawable", X: []float64{1}, Y: []float64{-1}},
		},
	}
	if err := Save(filepath.Join(dir, "logy.png"), f); err != nil {
		t.Fatalf("LogY figure with zero: %v", err)
	}
	f.LogX = true
	f.Series[0].X[0] = 0
	if err := Save(filepath.Join(dir, "loglog.svg"), f); err != nil {
		t.Fatalf("log-log figure with zero x: %v", err)
	}
	// But a figure with nothing positive on its log axis has nothing to draw.
	g := Figure{LogY: true, Series: []Series{{X: []float64{1, 2}, Y: []float64{0, -1}}}}
	if err := Save(filepath.Join(dir, "none.png"), g); err == nil {
		t.Error("figure with no positive value on its log axis: no error")
	}
}

func TestSaveDegenerateRanges(t *testing.T) {
	dir := t.TempDir()
	for i, f := range []Figure{
		{Series: []Series{{X: []float64{1}, Y: []float64{1}}}},
		{LogX: true, LogY: true, Series: []Series{{Name: "one", X: []float64{3}, Y: []float64{0.5}}}},
		{Series: []Series{{Name: "flat", X: []float64{1, 2, 3}, Y: []float64{0, 0, 0}}}},
		{LogY: true, Series: []Series{{Name: "narrow", X: []float64{1, 2, 3}, Y: []float64{0.031, 0.04, 0.045}}}},
		{LogY: true, Series: []Series{{Name: "wide", X: []float64{1, 2, 3}, Y: []float64{1e-14, 1e-3, 1e3}}}},
	} {
		if err := Save(filepath.Join(dir, fmt.Sprintf("f%d.png", i)), f); err != nil {
			t.Errorf("figure %d: %v", i, err)
		}
	}
}

func TestSaveErrors(t *testing.T) {
	dir := t.TempDir()
	good := errorVsN()
	short := errorVsN()
	short.Series[1].Y = short.Series[1].Y[:3]
	shortLo := errorVsN()
	shortLo.Series[0].Lo = shortLo.Series[0].Lo[1:]
	shortHi := errorVsN()
	shortHi.Series[2].Hi = []float64{}
	nan := errorVsN()
	nan.Series[0].Y[2] = math.NaN()
	inf := errorVsN()
	inf.Series[0].Hi[2] = math.Inf(1)
	badSize := errorVsN()
	badSize.Width = -1

	for _, tc := range []struct {
		name, file string
		f          Figure
		want       string
	}{
		{"bad extension", "fig.jpg", good, "extension"},
		{"no extension", "fig", good, "extension"},
		{"mismatched X and Y", "fig.png", short, "len(Y) = 3"},
		{"mismatched Lo", "fig.png", shortLo, "len(Lo)"},
		{"mismatched Hi", "fig.svg", shortHi, "len(Hi) = 0"},
		{"no series", "fig.png", Figure{}, "empty"},
		{"no points", "fig.png", Figure{Series: []Series{{Name: "a"}, {Name: "b"}}}, "empty"},
		{"NaN", "fig.png", nan, "NaN"},
		{"Inf", "fig.png", inf, "Inf"},
		{"negative size", "fig.png", badSize, "size"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			err := Save(path, tc.f)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "plotting: ") {
				t.Errorf("error %q: want one line starting with \"plotting: \" and containing %q", msg, tc.want)
			}
			if _, err := os.Stat(path); err == nil {
				t.Errorf("%s was created despite the error", tc.file)
			}
		})
	}
	// Shape errors are WriteCSV errors too; value errors are not (the CSV
	// holds whatever the data are).
	if err := WriteCSV(&bytes.Buffer{}, short); err == nil {
		t.Error("WriteCSV with mismatched lengths: no error")
	}
	if err := WriteCSV(&bytes.Buffer{}, Figure{}); err == nil {
		t.Error("WriteCSV of an empty figure: no error")
	}
	if err := WriteCSV(&bytes.Buffer{}, nan); err != nil {
		t.Errorf("WriteCSV with a NaN: %v", err)
	}
	if err := SaveWithCSV(filepath.Join(dir, "fig.csv"), good); err == nil {
		t.Error("SaveWithCSV to a .csv path: no error")
	}
}

func TestWriteCSV(t *testing.T) {
	f := Figure{
		LogY: true, // the CSV keeps points a log axis would drop
		Series: []Series{
			{Name: "G", X: []float64{16, 32}, Y: []float64{0.25, 0.125}, Lo: []float64{0.2, 0.1}, Hi: []float64{0.3, 0.15}},
			{Name: "SR, butterfly", X: []float64{16, 32, 64}, Y: []float64{1e-3, 0, 1.0 / 3}},
			{Name: "hi only", X: []float64{1}, Y: []float64{-2.5}, Hi: []float64{1e20}},
		},
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, f); err != nil {
		t.Fatal(err)
	}
	want := `series,x,y,lo,hi
G,16,0.25,0.2,0.3
G,32,0.125,0.1,0.15
"SR, butterfly",16,0.001,,
"SR, butterfly",32,0,,
"SR, butterfly",64,0.3333333333333333,,
hi only,1,-2.5,,1e+20
`
	if got := buf.String(); got != want {
		t.Errorf("WriteCSV:\n%s\nwant:\n%s", got, want)
	}

	// Parse it back: the same numbers, exactly.
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+2+3+1 {
		t.Fatalf("%d rows, want 7", len(rows))
	}
	r := 1
	for _, s := range f.Series {
		for i := range s.X {
			row := rows[r]
			r++
			if row[0] != s.Name {
				t.Errorf("row %d: series %q, want %q", r, row[0], s.Name)
			}
			check := func(col int, field string, want []float64) {
				if want == nil {
					if row[col] != "" {
						t.Errorf("row %d: %s = %q, want empty", r, field, row[col])
					}
					return
				}
				got, err := strconv.ParseFloat(row[col], 64)
				if err != nil || got != want[i] {
					t.Errorf("row %d: %s = %q, want %v", r, field, row[col], want[i])
				}
			}
			check(1, "x", s.X)
			check(2, "y", s.Y)
			check(3, "lo", s.Lo)
			check(4, "hi", s.Hi)
		}
	}
}

func TestSaveWithCSV(t *testing.T) {
	dir := t.TempDir()
	f := errorVsN()
	if err := SaveWithCSV(filepath.Join(dir, "err.vs.n.svg"), f); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "err.vs.n.svg")); err != nil || fi.Size() == 0 {
		t.Fatalf("figure: %v", err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "err.vs.n.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := WriteCSV(&want, f); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Error("CSV next to the figure differs from WriteCSV")
	}
}

func TestStylesDistinct(t *testing.T) {
	if len(palette) < 10 {
		t.Fatalf("palette has %d colors, want ≥ 10", len(palette))
	}
	type style struct {
		c      any
		g      draw.GlyphDrawer
		dashed bool
	}
	seen := map[style]int{}
	for i := range 40 {
		s := style{seriesColor(i), seriesGlyph(i), seriesDashes(i) != nil}
		if j, ok := seen[s]; ok {
			t.Errorf("series %d and %d look the same", j, i)
		}
		seen[s] = i
		if i < len(palette) {
			for j := range i {
				if seriesColor(i) == seriesColor(j) {
					t.Errorf("series %d and %d share a color", j, i)
				}
			}
		}
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(min, max float64) []string {
		var ls []string
		for _, tk := range (logTicks{}).Ticks(min, max) {
			if tk.Label != "" {
				if tk.Value < min || tk.Value > max {
					t.Errorf("[%v, %v]: label %q at %v outside the range", min, max, tk.Label, tk.Value)
				}
				ls = append(ls, tk.Label)
			}
		}
		return ls
	}
	for _, tc := range []struct {
		min, max float64
		want     string
	}{
		{1e-4, 0.3, "0.0001 0.001 0.01 0.1"},
		{0.005, 2000, "0.01 0.1 1 10 100 1000"},
		{16, 4096, "20 50 100 200 500 1000 2000"},
		{0.015, 0.06, "0.02 0.05"},
		{1e-12, 1e3, "1e-12 1e-10 1e-8 1e-6 0.0001 0.01 1 100"},
		{1e5, 1e7, "100000 1e6 1e7"},
		{2, 40, "2 5 10 20"},
	} {
		if got := strings.Join(labels(tc.min, tc.max), " "); got != tc.want {
			t.Errorf("ticks on [%v, %v]: %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
	// Less than a factor 2.5: gonum's linear ticks, still at least two labels.
	if ls := labels(0.031, 0.045); len(ls) < 2 {
		t.Errorf("ticks on [0.031, 0.045]: %q, want at least two labels", ls)
	}
}

// legendClear reports whether the legend box estimated by makeRoomForLegend
// is clear of all points of f once built.
func legendClear(t *testing.T, f Figure) (clear bool, fp *figurePlot) {
	t.Helper()
	fp, w, h, err := build(&f)
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := prepare(&f)
	c := draw.NewCanvas(&recorder.Canvas{}, w, h)
	dc := fp.p.DataCanvas(fp.plotArea(c))
	trX, trY := fp.p.Transforms(&dc)
	lw, lh := legendSize(fp.p, ds)
	left, bottom := dc.Max.X-legendInset-lw, dc.Max.Y-legendInset-lh
	for _, d := range ds {
		for j := range d.x {
			if trX(d.x[j])+vg.Points(glyphRadius) >= left && trY(d.hi[j])+vg.Points(glyphRadius) > bottom {
				return false, fp
			}
		}
	}
	return true, fp
}

func TestLegendDoesNotCoverData(t *testing.T) {
	// Increasing data: the top-right corner is where the data are, so the
	// y axis must be raised.
	var inc Figure
	for k := range 3 {
		s := Series{Name: fmt.Sprintf("method %d", k)}
		for i := 0; i <= 20; i++ {
			x := float64(i) * 50
			y := (1 + float64(k)) * x * x / 1e4
			s.X, s.Y = append(s.X, x), append(s.Y, y)
			s.Lo, s.Hi = append(s.Lo, 0.9*y), append(s.Hi, 1.1*y)
		}
		inc.Series = append(inc.Series, s)
	}
	for _, logY := range []bool{false, true} {
		f := inc
		f.LogY = logY
		clear, fp := legendClear(t, f)
		if !clear {
			t.Errorf("logY=%v: legend covers data", logY)
		}
		if fp.p.Y.Max < 1.1*330 {
			t.Errorf("logY=%v: y axis max %v, want it raised above the data (330)", logY, fp.p.Y.Max)
		}
	}
	// Decreasing data leave the corner free: the axis keeps its range.
	clear, fp := legendClear(t, errorVsN())
	if !clear {
		t.Error("error-vs-n figure: legend covers data")
	}
	if hi := errorVsN().Series[0].Hi[0]; fp.p.Y.Max > 1.2*hi {
		t.Errorf("error-vs-n figure: y axis max raised to %v, data end at %v", fp.p.Y.Max, hi)
	}
}
