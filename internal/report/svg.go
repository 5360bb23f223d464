package report

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// svg builds one <svg> element as text. Every number it writes is formatted here and every string escaped here, so
// that no data (column names, class labels) can break out of an attribute or a text node.
type svg struct {
	b    strings.Builder
	w, h float64
}

// newSVG opens an SVG of w×h user units (its intrinsic size in CSS pixels) labelled for screen readers.
func newSVG(w, h float64, label string) *svg {
	s := &svg{w: w, h: h}
	fmt.Fprintf(&s.b, `<svg viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-label="%s">`, num(w), num(h), num(w), num(h), esc(label))
	return s
}

// close ends the element and returns it.
func (s *svg) close() string {
	s.b.WriteString("</svg>")
	return s.b.String()
}

// num formats a coordinate with at most one decimal.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// esc escapes text and attribute values (<, >, &, ' and ").
func esc(s string) string { return html.EscapeString(s) }

// shorten cuts s to at most n runes, ending a cut string with an ellipsis.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func (s *svg) line(x1, y1, x2, y2 float64, stroke string, width float64, dash string) {
	fmt.Fprintf(&s.b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"`, num(x1), num(y1), num(x2), num(y2), esc(stroke), num(width))
	if dash != "" {
		fmt.Fprintf(&s.b, ` stroke-dasharray="%s"`, esc(dash))
	}
	s.b.WriteString("/>")
}

// rect draws a rectangle; an empty stroke draws none. title, when not empty, is its tooltip.
func (s *svg) rect(x, y, w, h float64, fill, stroke, title string) {
	fmt.Fprintf(&s.b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"`, num(x), num(y), num(w), num(h), esc(fill))
	if stroke != "" {
		fmt.Fprintf(&s.b, ` stroke="%s"`, esc(stroke))
	}
	if title != "" {
		fmt.Fprintf(&s.b, `><title>%s</title></rect>`, esc(title))
		return
	}
	s.b.WriteString("/>")
}

func (s *svg) circle(cx, cy, r float64, fill, stroke string, opacity float64) {
	fmt.Fprintf(&s.b, `<circle cx="%s" cy="%s" r="%s" fill="%s"`, num(cx), num(cy), num(r), esc(fill))
	if stroke != "" {
		fmt.Fprintf(&s.b, ` stroke="%s" stroke-width="2"`, esc(stroke))
	}
	if opacity < 1 {
		fmt.Fprintf(&s.b, ` fill-opacity="%s"`, strconv.FormatFloat(opacity, 'f', 2, 64))
	}
	s.b.WriteString("/>")
}

// polyline draws a line through the points (x, y pairs).
func (s *svg) polyline(pts []float64, stroke string, width float64, dash string) {
	s.b.WriteString(`<polyline fill="none" stroke-linejoin="round" points="`)
	for i := 0; i+1 < len(pts); i += 2 {
		if i > 0 {
			s.b.WriteByte(' ')
		}
		s.b.WriteString(num(pts[i]))
		s.b.WriteByte(',')
		s.b.WriteString(num(pts[i+1]))
	}
	fmt.Fprintf(&s.b, `" stroke="%s" stroke-width="%s"`, esc(stroke), num(width))
	if dash != "" {
		fmt.Fprintf(&s.b, ` stroke-dasharray="%s"`, esc(dash))
	}
	s.b.WriteString("/>")
}

// textOpt says how a text is placed: anchor "start", "middle" or "end"; class a CSS class of the page; rotate
// degrees about (x, y); fill a colour (the class's when empty).
type textOpt struct {
	anchor, class, fill string
	rotate              float64
	bold                bool
	size                float64 // font size in pixels (0: the class's)
}

// text writes t at (x, y), its baseline centred vertically on y.
func (s *svg) text(x, y float64, t string, o textOpt) {
	fmt.Fprintf(&s.b, `<text x="%s" y="%s" dy="0.35em"`, num(x), num(y))
	if o.anchor != "" && o.anchor != "start" {
		fmt.Fprintf(&s.b, ` text-anchor="%s"`, esc(o.anchor))
	}
	if o.class != "" {
		fmt.Fprintf(&s.b, ` class="%s"`, esc(o.class))
	}
	// A style, as the page's CSS would override attributes.
	switch {
	case o.fill != "" && o.size > 0:
		fmt.Fprintf(&s.b, ` style="fill:%s;font-size:%spx"`, esc(o.fill), num(o.size))
	case o.fill != "":
		fmt.Fprintf(&s.b, ` style="fill:%s"`, esc(o.fill))
	case o.size > 0:
		fmt.Fprintf(&s.b, ` style="font-size:%spx"`, num(o.size))
	}
	if o.bold {
		s.b.WriteString(` font-weight="bold"`)
	}
	if o.rotate != 0 {
		fmt.Fprintf(&s.b, ` transform="rotate(%s %s %s)"`, num(o.rotate), num(x), num(y))
	}
	fmt.Fprintf(&s.b, `>%s</text>`, esc(t))
}
