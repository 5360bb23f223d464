package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// hostile is text that would break a page that did not escape it.
const hostile = `<script>alert("x")</script> & 'q' ]]> <svg onload=1>`

// regressionPage is a page with every regression panel, a tuning panel, a note and hostile names.
func regressionPage(t *testing.T, n int) *Page {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	pred, truth, std := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range pred {
		x := 6*rng.Float64() - 3
		pred[i] = 2 * math.Sin(x)
		std[i] = 0.2 + 0.1*math.Abs(x)
		truth[i] = pred[i] + std[i]*rng.NormFloat64()
	}
	inside, err := Coverage(pred, truth, std, n, 1, CalibrationLevels)
	if err != nil {
		t.Fatal(err)
	}
	sigmas := []float64{0.25, 0.5, 1, 2, 4, 8}
	lambdas := []float64{1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1}
	scores := make([][]float64, len(sigmas))
	for i, s := range sigmas {
		for _, l := range lambdas {
			scores[i] = append(scores[i], 0.01*(1+0.2*math.Abs(math.Log(s)))+0.5*l)
		}
	}
	scores[0][3] = math.NaN() // a pair that could not be scored breaks its line
	d := &Predictions{Names: []string{hostile}, N: n, P: 1, Pred: pred, Truth: truth}
	return &Page{
		Title: "rff fit — " + hostile, Subtitle: "regression: kernel gaussian",
		Stats: []Stat{{"test R²", "0.98"}, {"test rows", strconv.Itoa(n)}},
		Panels: []Panel{
			{Title: "Tuning: GCV over σ and λ", Figure: &Tuning{Sigmas: sigmas, Lambdas: lambdas, Scores: scores, ScoreName: "GCV", Sigma: 1, Lambda: 1e-6}, Caption: "chosen " + hostile},
			{Title: "Test data " + hostile, Note: "a note " + hostile},
			{Title: "Predicted vs true", Figure: d.Parity()},
			{Title: "Residuals", Figure: d.Residuals()},
			{Title: "Interval calibration", Figure: &Calibration{Levels: CalibrationLevels, Inside: inside}},
		},
		Notes:  []string{hostile},
		Tables: []Table{{Title: "Model", Rows: [][]string{{"kernel", "gaussian"}, {"inputs", hostile}}}, {Title: "Test scores", Head: []string{"output", "RMSE"}, Rows: [][]string{{"all", "0.1"}}}},
		Footer: "footer",
	}
}

// classificationPage is a page with a confusion matrix whose labels are hostile.
func classificationPage() *Page {
	return &Page{
		Title: "rff fit — classes",
		Panels: []Panel{
			{Title: "Confusion matrix", Figure: &Confusion{Labels: []string{"setosa", "versicolor", hostile}, Counts: [][]int{{50, 2, 0}, {3, 41, 6}, {0, 9, 1234}}}},
			{Title: "Tuning", Note: "σ and λ were not tuned."},
		},
	}
}

// element is a parsed element: its name, attributes, text and children.
type element struct {
	name     string
	attr     map[string]string
	text     string
	children []*element
}

func (e *element) all(name string) []*element {
	var out []*element
	if e.name == name {
		out = append(out, e)
	}
	for _, c := range e.children {
		out = append(out, c.all(name)...)
	}
	return out
}

// allText is the text of e and its descendants.
func (e *element) allText() string {
	s := e.text
	for _, c := range e.children {
		s += c.allText()
	}
	return s
}

// parseXML parses a document or fragment strictly (every element closed, attributes quoted, entities numeric or
// XML's own) into a tree under a root named "".
func parseXML(t *testing.T, doc string) *element {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(doc))
	dec.Strict = true
	root := &element{}
	stack := []*element{root}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
		top := stack[len(stack)-1]
		switch tok := tok.(type) {
		case xml.StartElement:
			e := &element{name: tok.Name.Local, attr: map[string]string{}}
			for _, a := range tok.Attr {
				e.attr[a.Name.Local] = a.Value
			}
			top.children = append(top.children, e)
			stack = append(stack, e)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			top.text += string(tok)
		}
	}
	if len(stack) != 1 {
		t.Fatalf("%d elements left open", len(stack)-1)
	}
	return root
}

func write(t *testing.T, p *Page) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var svgFragment = regexp.MustCompile(`(?s)<svg .*?</svg>`)

// checkPage checks that doc is well-formed, has one <svg> in each figure panel and none elsewhere, the panel titles
// in order (figures first, then notes), no script, no event handler, nothing loaded from elsewhere, and every
// hostile string back as plain text.
func checkPage(t *testing.T, p *Page, doc string) *element {
	t.Helper()
	root := parseXML(t, doc)
	for _, frag := range svgFragment.FindAllString(doc, -1) {
		parseXML(t, frag) // each figure stands alone too
	}
	var want []string
	figures := 0
	for _, pn := range p.Panels {
		if pn.Figure != nil {
			want = append(want, pn.Title)
			figures++
		}
	}
	for _, pn := range p.Panels {
		if pn.Figure == nil {
			want = append(want, pn.Title)
		}
	}
	var got []string
	for _, sec := range root.all("section") {
		if !strings.Contains(sec.attr["class"], "panel") {
			continue
		}
		h := sec.all("h2")
		if len(h) != 1 {
			t.Fatalf("a panel with %d titles", len(h))
		}
		got = append(got, h[0].allText())
		svgs := len(sec.all("svg"))
		if isFigure := len(got) <= figures; (isFigure && svgs != 1) || (!isFigure && svgs != 0) {
			t.Errorf("panel %q holds %d <svg>", h[0].allText(), svgs)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("panel titles %q, want %q", got, want)
	}
	if n := len(root.all("svg")); n != figures {
		t.Errorf("%d <svg> elements for %d figures", n, figures)
	}
	if len(root.all("script")) != 0 || len(root.all("iframe")) != 0 || len(root.all("img")) != 0 || len(root.all("link")) != 0 {
		t.Error("the page holds a script, frame, image or link element")
	}
	var walk func(e *element)
	walk = func(e *element) {
		for k, v := range e.attr {
			if strings.HasPrefix(k, "on") || ((k == "src" || k == "href") && strings.Contains(v, "http")) {
				t.Errorf("<%s %s=%q>", e.name, k, v)
			}
		}
		for _, c := range e.children {
			walk(c)
		}
	}
	walk(root)
	for _, bad := range []string{"http", "@import", "url("} {
		if strings.Contains(doc, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	return root
}

func TestPageStructure(t *testing.T) {
	p := regressionPage(t, 300)
	doc := write(t, p)
	root := checkPage(t, p, doc)
	if title := root.all("title")[0].allText(); title != p.Title {
		t.Errorf("<title> %q, want %q", title, p.Title)
	}
	// The hostile output name is back as plain text, in the axis labels of the parity plot.
	found := false
	for _, e := range root.all("text") {
		found = found || strings.Contains(e.allText(), shorten(hostile, 30))
	}
	if !found {
		t.Error("the output name is not among the figures' texts")
	}
	if c := root.all("td"); c[3].allText() != hostile {
		t.Errorf("table cell %q, want %q", c[3].allText(), hostile)
	}
	// The chosen pair is ringed in the mark colour, and the scores all σ share are drawn as one line per σ.
	tuning := root.all("svg")[0]
	rings := 0
	for _, c := range tuning.all("circle") {
		if c.attr["stroke"] == markColour && c.attr["fill"] == "none" {
			rings++
		}
	}
	if rings != 1 {
		t.Errorf("%d rings in the tuning figure, want 1", rings)
	}
	// σ = 0.25 has a NaN score: its line is broken in two.
	if n := len(tuning.all("polyline")); n != len(p.Panels[0].Figure.(*Tuning).Sigmas)+1 {
		t.Errorf("%d lines in the tuning figure, want one per σ plus one for the break", n)
	}
}

func TestClassificationPage(t *testing.T) {
	p := classificationPage()
	doc := write(t, p)
	root := checkPage(t, p, doc)
	cells := 0
	var counts []string
	for _, r := range root.all("svg")[0].all("rect") {
		if len(r.all("title")) == 1 {
			cells++
		}
	}
	for _, e := range root.all("svg")[0].all("text") {
		if e.attr["class"] == "count" {
			counts = append(counts, e.allText())
		}
	}
	if cells != 9 {
		t.Errorf("%d cells, want 9", cells)
	}
	if want := []string{"50", "2", "0", "3", "41", "6", "0", "9", "1234"}; !slices.Equal(counts, want) {
		t.Errorf("counts %q, want %q", counts, want)
	}
	if !strings.Contains(root.all("svg")[0].allText(), shorten(hostile, 14)) {
		t.Error("the hostile label is not drawn as text")
	}
	big := make([]string, MaxConfusionClasses+1)
	if err := Write(io.Discard, &Page{Panels: []Panel{{Figure: &Confusion{Labels: big, Counts: make([][]int, len(big))}}}}); err == nil {
		t.Errorf("a confusion matrix of %d classes was drawn", len(big))
	}
}

// TestThinning checks that a scatter plot of many rows draws MaxPoints of them, and says so.
func TestThinning(t *testing.T) {
	p := regressionPage(t, 3*MaxPoints+7)
	doc := write(t, p)
	root := parseXML(t, doc)
	parity := root.all("svg")[1]
	if n := len(parity.all("circle")); n != MaxPoints {
		t.Errorf("%d dots, want %d", n, MaxPoints)
	}
	if !strings.Contains(doc, strconv.Itoa(MaxPoints)+" of the "+strconv.Itoa(3*MaxPoints+7)+" rows are drawn") {
		t.Error("the caption does not say that rows were left out")
	}
}

// TestBadFigures checks that inconsistent figures are errors, not panics or broken pages.
func TestBadFigures(t *testing.T) {
	for name, f := range map[string]Figure{
		"short predictions": (&Predictions{N: 3, P: 1, Pred: []float64{1, 2}, Truth: []float64{1, 2, 3}}).Parity(),
		"names":             (&Predictions{N: 1, P: 2, Pred: []float64{1, 2}, Truth: []float64{1, 2}, Names: []string{"a"}}).Residuals(),
		"overflow":          (&Predictions{N: math.MaxInt/2 + 1, P: 2}).Parity(),
		"no finite value":   (&Predictions{N: 1, P: 1, Pred: []float64{math.NaN()}, Truth: []float64{math.Inf(1)}}).Parity(),
		"tuning rows":       &Tuning{Sigmas: []float64{1, 2}, Lambdas: []float64{1}, Scores: [][]float64{{1}}},
		"tuning row length": &Tuning{Sigmas: []float64{1}, Lambdas: []float64{1, 2}, Scores: [][]float64{{1}}},
		"no positive λ":     &Tuning{Sigmas: []float64{1}, Lambdas: []float64{0}, Scores: [][]float64{{1}}},
		"calibration":       &Calibration{Levels: []float64{0.5}, Inside: [][]float64{{0.5, 0.6}}},
		"confusion":         &Confusion{Labels: []string{"a", "b"}, Counts: [][]int{{1, 2}, {3}}},
		"reliability":       &Reliability{Confidence: []float64{0.5, 0.7}, Accuracy: []float64{0.5}, Rows: []int{1, 1}},
	} {
		if err := Write(io.Discard, &Page{Panels: []Panel{{Title: name, Figure: f}}}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A tuning whose every score is missing still draws, and says so.
	doc := write(t, &Page{Panels: []Panel{{Figure: &Tuning{Sigmas: []float64{1}, Lambdas: []float64{1e-3, 1e-2}, Scores: [][]float64{{math.NaN(), math.NaN()}}}}}})
	if !strings.Contains(doc, "no pair could be scored") {
		t.Error("an empty tuning does not say that nothing was scored")
	}
}

func TestCoverage(t *testing.T) {
	// Residuals 0, 0.5, 1, 2, 3 standard deviations: inside the 50% interval (z = 0.674) are two, inside the 90%
	// (z = 1.645) three, inside the 99% (z = 2.576) four; a row with a NaN is left out.
	pred := []float64{10, 10, 10, 10, 10, 10}
	truth := []float64{10, 11, 8, 14, 4, math.NaN()}
	std := []float64{2, 2, 2, 2, 2, 2}
	got, err := Coverage(pred, truth, std, 6, 1, []float64{0.5, 0.9, 0.99})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.4, 0.6, 0.8}; !slices.Equal(got[0], want) {
		t.Errorf("coverage %v, want %v", got[0], want)
	}
	// Targets drawn from the predictive law land inside the central p-interval with probability p (two outputs,
	// the second with twice the spread, columns interleaved).
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 200000
	pred, truth, std = make([]float64, 2*n), make([]float64, 2*n), make([]float64, 2*n)
	for i := range pred {
		pred[i] = rng.NormFloat64()
		std[i] = 0.5 + rng.Float64() + float64(i%2)
		truth[i] = pred[i] + std[i]*rng.NormFloat64()
	}
	got, err = Coverage(pred, truth, std, n, 2, CalibrationLevels)
	if err != nil {
		t.Fatal(err)
	}
	for a := range got {
		for k, q := range CalibrationLevels {
			if se := math.Sqrt(q * (1 - q) / n); math.Abs(got[a][k]-q) > 5*se {
				t.Errorf("output %d: %.4f inside the %.2f interval, want %.2f ± %.4f", a, got[a][k], q, q, 5*se)
			}
		}
	}
	// Intervals that are too narrow (std halved) hold fewer targets than they promise.
	for i := range std {
		std[i] /= 2
	}
	got, _ = Coverage(pred, truth, std, n, 2, []float64{0.9})
	if got[0][0] > 0.65 || got[1][0] > 0.65 {
		t.Errorf("halved intervals hold %v of the targets, want about 0.59", got)
	}
	if _, err := Coverage(pred, truth, std[:3], n, 2, CalibrationLevels); err == nil {
		t.Error("lengths that differ: no error")
	}
	if _, err := Coverage(pred, truth, std, n, 2, []float64{1}); err == nil {
		t.Error("level 1: no error")
	}
}

func TestTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []string
	}{
		{-0.02, 1.02, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
		{-3.3, 2.9, []string{"−3", "−2", "−1", "0", "1", "2"}},
		{0.0101, 0.0209, []string{"0.012", "0.014", "0.016", "0.018", "0.020"}},
		{-0.0011, 0.0011, []string{"−0.0010", "−0.0005", "0.0000", "0.0005", "0.0010"}},
		{12, 1e7, []string{"2·10⁶", "4·10⁶", "6·10⁶", "8·10⁶", "1·10⁷"}},
		{0.3, 0.45, []string{"0.300", "0.325", "0.350", "0.375", "0.400", "0.425", "0.450"}},
	} {
		var got []string
		for _, tk := range linearTicks(c.lo, c.hi, 6) {
			if tk.v < c.lo || tk.v > c.hi {
				t.Errorf("[%g, %g]: tick %g outside", c.lo, c.hi, tk.v)
			}
			got = append(got, tk.label)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("[%g, %g]: ticks %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
	labels := func(ts []tick) []string {
		var out []string
		for _, tk := range ts {
			if tk.label != "" {
				out = append(out, tk.label)
			}
		}
		return out
	}
	if got, want := labels(logTicks(5e-10, 0.5)), []string{"10⁻⁹", "10⁻⁸", "10⁻⁷", "10⁻⁶", "10⁻⁵", "10⁻⁴", "0.001", "0.01", "0.1"}; !slices.Equal(got, want) {
		t.Errorf("log ticks %q, want %q", got, want)
	}
	if got, want := labels(logTicks(5e-10, 5)), []string{"10⁻⁸", "10⁻⁶", "10⁻⁴", "0.01", "1"}; !slices.Equal(got, want) { // ten powers: every second
		t.Errorf("log ticks %q, want %q", got, want)
	}
	if got, want := labels(logTicks(1e-30, 1e30)), 9; len(got) > want || len(got) < 4 {
		t.Errorf("%d labels on 60 decades, want at most %d", len(got), want)
	}
	if got, want := labels(logTicks(0.015, 0.3)), []string{"0.02", "0.05", "0.1", "0.2"}; !slices.Equal(got, want) {
		t.Errorf("log ticks within two decades %q, want %q", got, want)
	}
	if logTicks(0.3, 0.45) != nil {
		t.Error("a range inside one 1-2-5 step gave log ticks; want the linear fallback")
	}
	if got := (scale{lo: 0.3, hi: 0.45, log: true}).ticks(); len(labels(got)) < 2 {
		t.Errorf("the fallback gave %v", got)
	}
}

func TestClip(t *testing.T) {
	p := &plot{l: 0, t: 0, r: 10, b: 10}
	for _, c := range []struct {
		in   [4]float64
		want [4]float64
		ok   bool
	}{
		{[4]float64{2, 2, 8, 8}, [4]float64{2, 2, 8, 8}, true},
		{[4]float64{5, 5, 5, -15}, [4]float64{5, 5, 5, 0}, true},
		{[4]float64{-10, 5, 20, 5}, [4]float64{0, 5, 10, 5}, true},
		{[4]float64{-5, -5, -1, 20}, [4]float64{}, false},
		{[4]float64{11, 0, 20, 10}, [4]float64{}, false},
	} {
		x0, y0, x1, y1, ok := p.clip(c.in[0], c.in[1], c.in[2], c.in[3])
		if ok != c.ok || (ok && [4]float64{x0, y0, x1, y1} != c.want) {
			t.Errorf("clip %v = %v %v, want %v %v", c.in, [4]float64{x0, y0, x1, y1}, ok, c.want, c.ok)
		}
	}
}

// TestTuningWindow checks that a tuning whose worst scores dwarf the differences between the best ones is cut, and
// that the cut keeps every σ's best score in view.
func TestTuningWindow(t *testing.T) {
	tu := &Tuning{Sigmas: []float64{1, 2}, Lambdas: []float64{1e-3, 1e-2, 1e-1}, Scores: [][]float64{{1.0, 1.1, 50}, {1.2, 1.3, 80}}}
	lo, hi, cut := tu.window(slices.Concat(tu.Scores...))
	// Three times the spread of the best scores (0.6) is less than 2% of the full range (1.58).
	if !cut || lo != 1 || math.Abs(hi-2.58) > 1e-12 {
		t.Errorf("window [%g, %g] cut %v, want [1, 2.58] cut", lo, hi, cut)
	}
	tu.HigherIsBetter = true // the best are now 50 and 80: nothing to cut
	if _, _, cut := tu.window(slices.Concat(tu.Scores...)); cut {
		t.Error("a higher-is-better tuning whose best scores are far apart was cut")
	}
	tu.Scores = [][]float64{{-500, 99, 100}, {-400, 97, 98}}
	lo, hi, cut = tu.window(slices.Concat(tu.Scores...))
	// Three times the spread of the best scores (6) is less than 2% of the full range (12).
	if !cut || hi != 100 || math.Abs(lo-88) > 1e-12 {
		t.Errorf("window [%g, %g] cut %v, want [88, 100] cut", lo, hi, cut)
	}
}

// TestTicksDistinct: neighbouring ticks have different labels however narrow the range (0.946 ± 10⁻⁸ gave five
// "9.46·10⁻¹"), a zero among scientific labels is "0" (not "0.00000000000000"), and values near ±MaxFloat64 give
// finite ranges, ticks and pixels (hi − lo overflowed to NaN coordinates).
func TestTicksDistinct(t *testing.T) {
	for _, c := range [][2]float64{{0.94599999, 0.94600001}, {3.5 - 1e-9, 3.5 + 1e-9}, {-2e-6, 2e-6}, {-1e-14, 1e-14},
		{-1.7e308, 1.7e308}, {0, 1.7e308}, {123456.7, 123456.8}} {
		ts := linearTicks(c[0], c[1], 6)
		if len(ts) < 2 {
			t.Errorf("[%g, %g]: %d ticks", c[0], c[1], len(ts))
		}
		seen := map[string]bool{}
		for _, tk := range ts {
			slack := (c[1]/2 - c[0]/2) * 2e-9 // the rounding of k·step that linearTicks allows
			if seen[tk.label] || math.IsInf(tk.v, 0) || tk.v < c[0]-slack || tk.v > c[1]+slack {
				t.Errorf("[%g, %g]: tick %g %q repeated or outside", c[0], c[1], tk.v, tk.label)
			}
			seen[tk.label] = true
			if tk.v == 0 && tk.label != "0" && strings.Count(tk.label, "0") > 7 {
				t.Errorf("[%g, %g]: zero labelled %q", c[0], c[1], tk.label)
			}
		}
	}
	lo, hi, ok := span([]float64{0, 1.7e308, -1.7e308}, false, 0.05)
	s := scale{lo: lo, hi: hi, p0: 0, p1: 100}
	if !ok || math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(s.px(1.7e308)) || math.IsNaN(s.px(-1.7e308)) {
		t.Errorf("span near MaxFloat64: [%g, %g], pixels %g %g", lo, hi, s.px(-1.7e308), s.px(1.7e308))
	}
}

// TestConfusionFontsFitCells: with many classes the counts and labels are drawn at the sizes computed for the
// cells (the page's CSS sizes, 12 px counts in 10 px cells, ran into each other at 40 classes).
func TestConfusionFontsFitCells(t *testing.T) {
	const k = 40
	c := &Confusion{Labels: make([]string, k), Counts: make([][]int, k)}
	for i := range k {
		c.Labels[i] = "c" + strconv.Itoa(i)
		c.Counts[i] = make([]int, k)
		c.Counts[i][i] = 7
	}
	svg, _, err := c.render()
	if err != nil {
		t.Fatal(err)
	}
	cell := math.Floor(420 / float64(k))
	texts := regexp.MustCompile(`<text [^>]*class="(count|clabel)"[^>]*>`).FindAllString(svg, -1)
	if len(texts) == 0 {
		t.Fatal("no counts or labels drawn")
	}
	size := regexp.MustCompile(`font-size:([0-9.]+)px`)
	for _, tx := range texts {
		m := size.FindStringSubmatch(tx)
		if m == nil {
			t.Fatalf("%s: no font size of its own", tx)
		}
		if v, _ := strconv.ParseFloat(m[1], 64); v > cell {
			t.Errorf("%s: font of %g px in cells of %g px", tx, v, cell)
		}
	}
}

// TestLegendFits: a legend label longer than its box holds is shortened with an ellipsis (output names of 13 or more
// characters ran past the legend box and were cut at the edge of the SVG, an ellipsis-free cut that read as a name).
func TestLegendFits(t *testing.T) {
	s := newSVG(plotW, plotH, "legend")
	s.legend(plotW-legendW-6, 10, legendW, []legendEntry{{label: "wind_speed_mps", colour: "#000"}, {label: "temp", colour: "#111"}})
	texts := regexp.MustCompile(`class="legend"[^>]*>([^<]*)</text>`).FindAllStringSubmatch(s.close(), -1)
	if len(texts) != 2 {
		t.Fatalf("%d legend texts", len(texts))
	}
	if got := texts[0][1]; !strings.HasSuffix(got, "…") || float64(len([]rune(got)))*11.5*0.62 > legendW-35 {
		t.Errorf("long label drawn as %q in a legend %d px wide", got, legendW)
	}
	if texts[1][1] != "temp" {
		t.Errorf("short label drawn as %q", texts[1][1])
	}
}

// TestThinningOutputs: a plot of many outputs draws fewer rows of each, about 2·MaxPoints dots in all (at least 200
// rows), so that a page of 30 outputs and 20 000 rows is not 150 000 circles (11 MB).
func TestThinningOutputs(t *testing.T) {
	for _, P := range []int{1, 4, 30} {
		const n = 20000
		d := &Predictions{N: n, P: P, Pred: make([]float64, n*P), Truth: make([]float64, n*P)}
		for i := range d.Pred {
			d.Pred[i], d.Truth[i] = float64(i%97), float64(i%89)
		}
		idx, note := d.rows()
		if r := len(idx); r > MaxPoints || r*P > max(2*MaxPoints, 200*P) || r < 200 || !strings.Contains(note, strconv.Itoa(r)+" of the 20000 rows") {
			t.Errorf("P = %d: %d rows drawn, %d dots (%q)", P, r, r*P, note)
		}
	}
}

// ReliabilityBins on rows worked by hand, a row whose confidence is exactly 1 in the last bin, and rows of unknown
// class left out.
func TestReliabilityBins(t *testing.T) {
	probs := []float64{0.9, 0.1, 0.85, 0.15, 0.4, 0.6, 0.55, 0.45, 0.3, 0.7, 0, 1}
	truth := []int{0, 1, 1, 0, -1, 1}
	r, ece, err := ReliabilityBins(probs, truth, 2, 10)
	if err != nil {
		t.Fatal(err)
	}
	// confidences 0.9 (right), 0.85 (wrong), 0.6 (right), 0.55 (right), 1 (right); the row of class −1 is left out
	wantConf := []float64{0.55, 0.6, 0.85, (0.9 + 1) / 2}
	wantAcc := []float64{1, 1, 0, 1}
	if !slices.Equal(r.Rows, []int{1, 1, 1, 2}) || !slices.Equal(r.Accuracy, wantAcc) {
		t.Fatalf("bins %v, accuracies %v", r.Rows, r.Accuracy)
	}
	for b := range wantConf {
		if math.Abs(r.Confidence[b]-wantConf[b]) > 1e-15 {
			t.Fatalf("confidences %v, want %v", r.Confidence, wantConf)
		}
	}
	if want := (0.45 + 0.4 + 0.85 + 2*0.05) / 5; math.Abs(ece-want) > 1e-15 {
		t.Errorf("ECE %v, want %v", ece, want)
	}
	for name, call := range map[string]func() error{
		"short":         func() error { _, _, err := ReliabilityBins(probs[:3], truth, 2, 10); return err },
		"one class":     func() error { _, _, err := ReliabilityBins(probs, truth, 1, 10); return err },
		"no bins":       func() error { _, _, err := ReliabilityBins(probs, truth, 2, 0); return err },
		"no known rows": func() error { _, _, err := ReliabilityBins(probs[:2], []int{5}, 2, 10); return err },
	} {
		if call() == nil {
			t.Errorf("%s: no error", name)
		}
	}
	doc := write(t, &Page{Panels: []Panel{{Title: "Probability calibration", Figure: r}}})
	for _, want := range []string{"<svg", "overconfident", "underconfident", "share predicted correctly"} {
		if !strings.Contains(doc, want) {
			t.Errorf("the diagram lacks %q", want)
		}
	}
}

// For calibrated probabilities — classes drawn from the probabilities themselves — each bin's share predicted
// correctly is its mean confidence up to a binomial standard error, so the expected calibration error is within a
// few of them; probabilities sharpened after the draw are overconfident and fail that bound.
func TestReliabilityCalibrated(t *testing.T) {
	const n, k, bins = 20000, 3, 10
	r := rand.New(rand.NewPCG(7, 8))
	probs, sharp := make([]float64, n*k), make([]float64, n*k)
	truth := make([]int, n)
	for i := range n {
		p := probs[i*k : (i+1)*k]
		sum := 0.0
		for j := range p {
			p[j] = r.ExpFloat64()
			sum += p[j]
		}
		u, c := r.Float64()*sum, 0.0
		truth[i] = k - 1
		for j := range p {
			p[j] /= sum
			if c += p[j] * sum; u < c && truth[i] == k-1 && j < k-1 {
				truth[i] = j
			}
		}
		s := 0.0
		for j := range p {
			sharp[i*k+j] = p[j] * p[j] * p[j]
			s += sharp[i*k+j]
		}
		for j := range p {
			sharp[i*k+j] /= s
		}
	}
	bound := func(rel *Reliability) float64 {
		b := 0.0
		for i, m := range rel.Rows {
			a := rel.Confidence[i]
			b += float64(m) / n * 4 * math.Sqrt(a*(1-a)/float64(m))
		}
		return b
	}
	rel, ece, err := ReliabilityBins(probs, truth, k, bins)
	if err != nil {
		t.Fatal(err)
	}
	if b := bound(rel); ece > b {
		t.Errorf("calibrated probabilities: ECE %.4f above 4 standard errors %.4f", ece, b)
	}
	rel, ece, err = ReliabilityBins(sharp, truth, k, bins)
	if err != nil {
		t.Fatal(err)
	}
	if b := bound(rel); ece <= b {
		t.Errorf("sharpened probabilities: ECE %.4f within 4 standard errors %.4f", ece, b)
	}
}
