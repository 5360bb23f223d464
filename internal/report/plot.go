package report

import (
	"math"
	"unicode/utf8"
)

// Colours of the page's figures.
const (
	inkColour    = "#1d2733"
	mutedColour  = "#5b6675"
	gridColour   = "#e4e8ee"
	frameColour  = "#9aa4b1"
	plotBg       = "#fbfcfd"
	pointColour  = "#2f6db5"
	markColour   = "#d7263d"
	refColour    = "#55606e"
	legendBorder = "#d9dee5"
)

// palette colours the outputs of a multi-output figure (Okabe–Ito, distinct in print and for colour-blind readers).
var palette = []string{"#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#000000"}

// axis describes one axis of a plot: its label, range and whether it is logarithmic.
type axis struct {
	label  string
	lo, hi float64
	log    bool
}

// plot is a frame with two axes inside an SVG, into which data are drawn in data coordinates.
type plot struct {
	*svg
	x, y       scale
	l, t, r, b float64 // the frame's left, top, right and bottom, in pixels
}

// tickCharW is the width of a character of a tick label (11 px, tabular figures), for the room labels need.
const tickCharW = 6.6

// newPlot draws the frame [l, r]×[t, b] of s with its grid, ticks, tick labels and axis labels, and returns the
// plot that maps data into it. The frame's left edge moves right when the y tick labels need more room than l.
func newPlot(s *svg, l, t, r, b float64, x, y axis) *plot {
	ys := scale{lo: y.lo, hi: y.hi, p0: b, p1: t, log: y.log}
	yticks := ys.ticks()
	labelW := 0.0
	for _, tk := range yticks {
		labelW = math.Max(labelW, float64(utf8.RuneCountInString(tk.label))*tickCharW)
	}
	ylabelX := 16.0 // the centre of the rotated y axis label
	l = math.Max(l, ylabelX+10+labelW+8)
	p := &plot{svg: s, l: l, t: t, r: r, b: b,
		x: scale{lo: x.lo, hi: x.hi, p0: l, p1: r, log: x.log},
		y: ys,
	}
	s.rect(l, t, r-l, b-t, plotBg, "", "")
	for _, tk := range p.x.ticks() {
		px := p.x.px(tk.v)
		if tk.label == "" {
			s.line(px, b, px, b+3, frameColour, 1, "")
			continue
		}
		s.line(px, t, px, b, gridColour, 1, "")
		s.line(px, b, px, b+5, frameColour, 1, "")
		s.text(px, b+15, tk.label, textOpt{anchor: "middle", class: "tick"})
	}
	for _, tk := range yticks {
		py := p.y.px(tk.v)
		if tk.label == "" {
			s.line(l-3, py, l, py, frameColour, 1, "")
			continue
		}
		s.line(l, py, r, py, gridColour, 1, "")
		s.line(l-5, py, l, py, frameColour, 1, "")
		s.text(l-8, py, tk.label, textOpt{anchor: "end", class: "tick"})
	}
	s.rect(l, t, r-l, b-t, "none", frameColour, "")
	s.text((l+r)/2, b+34, x.label, textOpt{anchor: "middle", class: "axis"})
	s.text(math.Max(ylabelX, l-8-labelW-16), (t+b)/2, y.label, textOpt{anchor: "middle", class: "axis", rotate: -90})
	return p
}

// inside reports whether (x, y) can be drawn and falls inside the plot's ranges.
func (p *plot) inside(x, y float64) bool {
	if !p.x.drawable(x) || !p.y.drawable(y) {
		return false
	}
	return x >= math.Min(p.x.lo, p.x.hi) && x <= math.Max(p.x.lo, p.x.hi) &&
		y >= math.Min(p.y.lo, p.y.hi) && y <= math.Max(p.y.lo, p.y.hi)
}

// scatter draws a dot at every (xs[i], ys[i]) inside the plot.
func (p *plot) scatter(xs, ys []float64, colour string, r, opacity float64) {
	for i := range xs {
		if p.inside(xs[i], ys[i]) {
			p.circle(p.x.px(xs[i]), p.y.px(ys[i]), r, colour, "", opacity)
		}
	}
}

// curve draws a line through the points (xs[i], ys[i]), clipped to the frame and broken where a point cannot be
// drawn; a lone point between two breaks is drawn as a dot. dots, when > 0, also marks every point inside the
// frame with a dot of that radius.
func (p *plot) curve(xs, ys []float64, colour string, width float64, dash string, dots float64) {
	var run []float64
	flush := func() {
		switch {
		case len(run) == 2:
			p.circle(run[0], run[1], math.Max(dots, width), colour, "", 1)
		case len(run) > 2:
			p.polyline(run, colour, width, dash)
		}
		run = run[:0]
	}
	prev := -1 // the last drawable point
	for i := range xs {
		if !p.x.drawable(xs[i]) || !p.y.drawable(ys[i]) {
			flush()
			prev = -1
			continue
		}
		if prev < 0 {
			if p.inside(xs[i], ys[i]) {
				run = append(run, p.x.px(xs[i]), p.y.px(ys[i]))
			}
			prev = i
			continue
		}
		x0, y0, x1, y1, ok := p.clip(p.x.px(xs[prev]), p.y.px(ys[prev]), p.x.px(xs[i]), p.y.px(ys[i]))
		prev = i
		if !ok {
			flush()
			continue
		}
		if n := len(run); n == 0 || run[n-2] != x0 || run[n-1] != y0 {
			flush()
			run = append(run, x0, y0)
		}
		run = append(run, x1, y1)
		if !p.inside(xs[i], ys[i]) { // the segment left the frame
			flush()
		}
	}
	flush()
	if dots > 0 {
		for i := range xs {
			if p.inside(xs[i], ys[i]) {
				p.circle(p.x.px(xs[i]), p.y.px(ys[i]), dots, colour, "", 1)
			}
		}
	}
}

// clip clips the segment from (x0, y0) to (x1, y1), in pixels, to the frame (Liang–Barsky); ok is false when
// nothing of it is inside.
func (p *plot) clip(x0, y0, x1, y1 float64) (cx0, cy0, cx1, cy1 float64, ok bool) {
	dx, dy := x1-x0, y1-y0
	t0, t1 := 0.0, 1.0
	for _, e := range [4][2]float64{{-dx, x0 - p.l}, {dx, p.r - x0}, {-dy, y0 - p.t}, {dy, p.b - y0}} {
		q, r := e[0], e[1]
		switch {
		case q == 0:
			if r < 0 {
				return 0, 0, 0, 0, false
			}
		case q < 0:
			t0 = math.Max(t0, r/q)
		default:
			t1 = math.Min(t1, r/q)
		}
	}
	if t0 > t1 {
		return 0, 0, 0, 0, false
	}
	// An end inside the frame is returned as given (x0 + 1·dx need not be x1 in floating point, and a curve joins its
	// segments where they meet exactly); a clipped end is clamped to the frame, on which x0 + t·dx lands only up to
	// rounding. Its product is rounded on its own, so that a compiler fusing multiply-adds (Go on arm64, or with
	// GOAMD64=v3) draws the same page.
	at := func(t, a, b, lo, hi float64) float64 {
		switch t {
		case 0:
			return a
		case 1:
			return b
		}
		return min(max(a+float64(t*(b-a)), lo), hi)
	}
	return at(t0, x0, x1, p.l, p.r), at(t0, y0, y1, p.t, p.b), at(t1, x0, x1, p.l, p.r), at(t1, y0, y1, p.t, p.b), true
}

// segment draws a straight line between two points in data coordinates (both inside the plot).
func (p *plot) segment(x1, y1, x2, y2 float64, colour string, width float64, dash string) {
	p.line(p.x.px(x1), p.y.px(y1), p.x.px(x2), p.y.px(y2), colour, width, dash)
}

// legendEntry is one line of a legend: a swatch of colour and its label, in bold when strong.
type legendEntry struct {
	label, colour string
	strong        bool
}

// legend draws entries in a box whose top-left corner is (x, y), w pixels wide; a label longer than the box holds is
// shortened, with an ellipsis.
func (s *svg) legend(x, y, w float64, entries []legendEntry) {
	if len(entries) == 0 {
		return
	}
	const row = 17
	// The labels' room: from x + 31 to 4 pixels inside the box, at about 0.62 em per character of the legend's
	// 11.5 px font (the page's CSS), bold ones a little wider.
	room := max(3, int((w-35)/(11.5*0.66)))
	s.rect(x, y, w, float64(len(entries))*row+8, "#ffffff", legendBorder, "")
	for i, e := range entries {
		cy := y + 4 + row/2 + float64(i)*row
		s.line(x+7, cy, x+25, cy, e.colour, 2.5, "")
		s.circle(x+16, cy, 3, e.colour, "", 1)
		s.text(x+31, cy, shorten(e.label, room), textOpt{class: "legend", bold: e.strong})
	}
}
