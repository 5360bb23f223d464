package plotting

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rffkit/rff/internal/atomicfile"

	// Register the output formats with vg/draw.
	_ "gonum.org/v1/plot/vg/vgimg"
	_ "gonum.org/v1/plot/vg/vgpdf"
	_ "gonum.org/v1/plot/vg/vgsvg"
)

// Series is one line of a figure: the points (X[i], Y[i]) joined in order,
// and optionally the interval [Lo[i], Hi[i]] around each point, drawn as a
// vertical error bar.
type Series struct {
	Name string    // legend entry and the "series" column of the CSV
	X    []float64 // abscissae
	Y    []float64 // ordinates, e.g. a mean over seeds

	// Lo and Hi are the optional lower and upper ends of an interval at each
	// point (e.g. mean ± std, or the 10% and 90% quantiles). nil means no
	// interval on that side; otherwise the length must equal len(X).
	Lo, Hi []float64
}

// Figure is a plot made of series.
type Figure struct {
	Title, XLabel, YLabel string

	// LogX and LogY select logarithmic axes. Points with a value ≤ 0 on a
	// log axis are not drawn (they remain in the CSV).
	LogX, LogY bool

	Series []Series

	// Width and Height are the size in inches; zero means 6 × 4 inches.
	// PNG images are rendered at 96 dots per inch.
	Width, Height float64
}

// format returns the output format for path: "png", "svg" or "pdf".
func format(path string) (string, error) {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".png", ".svg", ".pdf":
		return ext[1:], nil
	case "":
		return "", fmt.Errorf("plotting: %q has no extension; want .png, .svg or .pdf", path)
	default:
		return "", fmt.Errorf("plotting: unsupported extension %q in %q; want .png, .svg or .pdf", ext, path)
	}
}

// validate checks the shape of f: at least one point, and slices of equal
// length within each series.
func validate(f *Figure) error {
	if len(f.Series) == 0 {
		return errors.New("plotting: empty figure: no series")
	}
	points := 0
	for i, s := range f.Series {
		name := seriesName(s, i)
		n := len(s.X)
		if len(s.Y) != n {
			return fmt.Errorf("plotting: series %s: len(X) = %d but len(Y) = %d", name, n, len(s.Y))
		}
		if s.Lo != nil && len(s.Lo) != n {
			return fmt.Errorf("plotting: series %s: len(X) = %d but len(Lo) = %d", name, n, len(s.Lo))
		}
		if s.Hi != nil && len(s.Hi) != n {
			return fmt.Errorf("plotting: series %s: len(X) = %d but len(Hi) = %d", name, n, len(s.Hi))
		}
		points += n
	}
	if points == 0 {
		return errors.New("plotting: empty figure: no points in any series")
	}
	return nil
}

// seriesName names series i in error messages.
func seriesName(s Series, i int) string {
	if s.Name == "" {
		return fmt.Sprintf("#%d", i)
	}
	return fmt.Sprintf("#%d %q", i, s.Name)
}

// WriteCSV writes the data of f as a tidy CSV table with the header
// series,x,y,lo,hi and one row per point, series after series. lo and hi
// are empty when the series has no interval on that side. Numbers are
// written in the shortest form that parses back to the same float64.
// Every point is written, including those a log axis would not draw.
func WriteCSV(w io.Writer, f Figure) error {
	if err := validate(&f); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"series", "x", "y", "lo", "hi"}); err != nil {
		return fmt.Errorf("plotting: writing CSV: %w", err)
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	row := make([]string, 5)
	for _, s := range f.Series {
		for i := range s.X {
			row[0], row[1], row[2], row[3], row[4] = s.Name, num(s.X[i]), num(s.Y[i]), "", ""
			if s.Lo != nil {
				row[3] = num(s.Lo[i])
			}
			if s.Hi != nil {
				row[4] = num(s.Hi[i])
			}
			if err := cw.Write(row); err != nil {
				return fmt.Errorf("plotting: writing CSV: %w", err)
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("plotting: writing CSV: %w", err)
	}
	return nil
}

// SaveWithCSV saves the figure at path (see [Save]) and its data (see
// [WriteCSV]) at the same path with the extension replaced by ".csv":
// "out/err.png" also writes "out/err.csv". Both files are replaced
// together or, on any failure, neither is.
func SaveWithCSV(path string, f Figure) error {
	var b atomicfile.Batch
	if err := AddWithCSV(&b, path, f); err != nil {
		b.Abort()
		return err
	}
	return commit(&b)
}

// AddWithCSV is SaveWithCSV as part of a batch of outputs: both files are
// staged in b and replaced when b is committed. On an error the caller
// aborts b.
func AddWithCSV(b *atomicfile.Batch, path string, f Figure) error {
	if err := add(b, path, f); err != nil {
		return err
	}
	csvPath := strings.TrimSuffix(path, filepath.Ext(path)) + ".csv"
	if err := b.Add(csvPath, func(w io.Writer) error { return WriteCSV(w, f) }); err != nil {
		return fmt.Errorf("plotting: %w", err)
	}
	return nil
}

// Save draws the figure and writes it to path, in the format given by the
// extension of path: ".png", ".svg" or ".pdf" (case-insensitive).
func Save(path string, f Figure) error {
	var b atomicfile.Batch
	if err := add(&b, path, f); err != nil {
		b.Abort()
		return err
	}
	return commit(&b)
}

// add draws the figure and stages it at path in b.
func add(b *atomicfile.Batch, path string, f Figure) error {
	format, err := format(path)
	if err != nil {
		return err
	}
	fp, w, h, err := build(&f)
	if err != nil {
		return err
	}
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return fmt.Errorf("plotting: rendering %s: %w", path, err)
	}
	fp.draw(draw.New(c))
	if err := b.Add(path, func(w io.Writer) error {
		_, err := c.WriteTo(w)
		return err
	}); err != nil {
		return fmt.Errorf("plotting: %w", err)
	}
	return nil
}

// commit commits b, naming the package in its error.
func commit(b *atomicfile.Batch) error {
	if err := b.Commit(); err != nil {
		return fmt.Errorf("plotting: %w", err)
	}
	return nil
}

// drawn is a series reduced to the points that can be drawn, with the
// interval ends filled in (equal to Y where absent).
type drawn struct {
	name         string
	index        int // position in Figure.Series: decides color and glyph
	x, y, lo, hi []float64
	interval     bool // the series has Lo or Hi
}

// prepare checks values for finiteness and drops points that a log axis
// cannot show. Lower interval ends ≤ 0 on a log y axis are clamped to half
// the smallest positive value drawn, so their bars reach the bottom of the
// axis.
func prepare(f *Figure) ([]drawn, error) {
	var ds []drawn
	minPos := math.Inf(1)
	for i, s := range f.Series {
		d := drawn{name: s.Name, index: i, interval: s.Lo != nil || s.Hi != nil}
		for j := range s.X {
			x, y, lo, hi := s.X[j], s.Y[j], s.Y[j], s.Y[j]
			if s.Lo != nil {
				lo = s.Lo[j]
			}
			if s.Hi != nil {
				hi = s.Hi[j]
			}
			for _, v := range [...]struct {
				name string
				val  float64
			}{{"X", x}, {"Y", y}, {"Lo", lo}, {"Hi", hi}} {
				if math.IsNaN(v.val) || math.IsInf(v.val, 0) {
					return nil, fmt.Errorf("plotting: series %s: %s[%d] = %v; values to draw must be finite", seriesName(s, i), v.name, j, v.val)
				}
			}
			lo, hi = min(lo, y, hi), max(lo, y, hi)
			if (f.LogX && x <= 0) || (f.LogY && y <= 0) {
				continue
			}
			d.x, d.y, d.lo, d.hi = append(d.x, x), append(d.y, y), append(d.lo, lo), append(d.hi, hi)
			minPos = min(minPos, y)
			if lo > 0 {
				minPos = min(minPos, lo)
			}
		}
		ds = append(ds, d)
	}
	n := 0
	for _, d := range ds {
		n += len(d.x)
	}
	if n == 0 {
		return nil, errors.New("plotting: nothing to draw: every point has a value ≤ 0 on a log axis")
	}
	if f.LogY {
		// A lower end ≤ 0 means "below anything the axis can show": draw the
		// bar down to a floor a little below the smallest positive value.
		for k := range ds {
			for j, lo := range ds[k].lo {
				if lo <= 0 {
					ds[k].lo[j] = minPos / 2
				}
			}
		}
	}
	return ds, nil
}

// build turns f into a plot and its size.
func build(f *Figure) (*figurePlot, vg.Length, vg.Length, error) {
	if err := validate(f); err != nil {
		return nil, 0, 0, err
	}
	wIn, hIn := f.Width, f.Height
	if wIn == 0 {
		wIn = defaultWidth
	}
	if hIn == 0 {
		hIn = defaultHeight
	}
	if !(wIn > 0 && hIn > 0) || math.IsInf(wIn, 0) || math.IsInf(hIn, 0) || wIn*hIn > 1e4 {
		return nil, 0, 0, fmt.Errorf("plotting: invalid size %v × %v inches", f.Width, f.Height)
	}
	ds, err := prepare(f)
	if err != nil {
		return nil, 0, 0, err
	}

	p := plot.New()
	setFonts(p)
	p.Title.Text = f.Title
	p.Title.Padding = vg.Points(6)
	fp := &figurePlot{p: p, xLabel: f.XLabel, yLabel: f.YLabel}
	if f.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	if f.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = gridColor, gridColor
	grid.Vertical.Width, grid.Horizontal.Width = vg.Points(0.5), vg.Points(0.5)
	p.Add(grid)

	p.Legend.Top = true
	p.Legend.Left = false
	p.Legend.XOffs = -legendInset
	p.Legend.YOffs = -legendInset
	p.Legend.Padding = vg.Points(2)
	p.Legend.ThumbnailWidth = vg.Points(24)

	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, d := range ds {
		c := seriesColor(d.index)
		line := draw.LineStyle{Color: c, Width: vg.Points(lineWidth), Dashes: seriesDashes(d.index)}
		glyph := draw.GlyphStyle{Color: c, Radius: vg.Points(glyphRadius), Shape: seriesGlyph(d.index)}
		var thumbs []plot.Thumbnailer
		if len(d.x) > 0 {
			xys := make(plotter.XYs, len(d.x))
			for j := range d.x {
				xys[j] = plotter.XY{X: d.x[j], Y: d.y[j]}
				xmin, xmax = min(xmin, d.x[j]), max(xmax, d.x[j])
				ymin, ymax = min(ymin, d.lo[j]), max(ymax, d.hi[j])
			}
			l, s, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, 0, 0, fmt.Errorf("plotting: series %s: %w", seriesName(f.Series[d.index], d.index), err)
			}
			l.LineStyle, s.GlyphStyle = line, glyph
			if d.interval {
				eb := &plotter.YErrorBars{
					XYs:       xys,
					YErrors:   make(plotter.YErrors, len(d.x)),
					LineStyle: draw.LineStyle{Color: c, Width: vg.Points(1)},
					CapWidth:  vg.Points(capWidth),
				}
				for j := range d.x {
					eb.YErrors[j].Low = d.y[j] - d.lo[j]
					eb.YErrors[j].High = d.hi[j] - d.y[j]
				}
				p.Add(eb)
			}
			p.Add(l, s)
			thumbs = []plot.Thumbnailer{l, s}
		} else {
			// Keep the legend entry of a series with nothing drawable, so
			// readers see it was considered.
			thumbs = []plot.Thumbnailer{&plotter.Line{LineStyle: line}, &plotter.Scatter{GlyphStyle: glyph}}
		}
		if d.name != "" {
			p.Legend.Add(d.name, thumbs...)
		}
	}
	xmin, xmax = padRange(xmin, xmax, f.LogX)
	p.X.Min, p.X.Max = widen(xmin, xmax, xMargin, f.LogX)
	ymin, ymax = padRange(ymin, ymax, f.LogY)
	p.Y.Min, p.Y.Max = widen(ymin, ymax, yMargin, f.LogY)

	w, h := vg.Length(wIn)*vg.Inch, vg.Length(hIn)*vg.Inch
	fp.makeRoomForLegend(ds, w, h)
	return fp, w, h, nil
}

// xMargin and yMargin are the fractions of the x and y ranges left free on
// each side, so that the extreme points do not sit on the frame.
const (
	xMargin = 0.025
	yMargin = 0.02
)

// widen extends [lo, hi] by frac of its length on each side, in log
// coordinates when log is set.
func widen(lo, hi float64, frac float64, log bool) (float64, float64) {
	if log {
		l, h := math.Log(lo), math.Log(hi)
		d := frac * (h - l)
		return math.Exp(l - d), math.Exp(h + d)
	}
	d := frac * (hi - lo)
	return lo - d, hi + d
}

// padRange widens a degenerate range [v, v] so the axis can be drawn.
func padRange(lo, hi float64, log bool) (float64, float64) {
	if lo < hi {
		return lo, hi
	}
	if log {
		return lo / 2, hi * 2
	}
	d := math.Abs(lo) / 10
	if d == 0 {
		d = 1
	}
	return lo - d, hi + d
}

// setFonts sets every text of p in Liberation Sans.
func setFonts(p *plot.Plot) {
	p.Title.TextStyle.Font = font.From(sans, 13)
	p.X.Tick.Label.Font = font.From(sans, 10)
	p.Y.Tick.Label.Font = font.From(sans, 10)
	p.Legend.TextStyle.Font = font.From(sans, 10)
}
