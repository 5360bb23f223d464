package plotting

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

const (
	// legendMargin is the free space kept between the legend and data.
	legendMargin = 4 // points
	// minDataShare is the smallest fraction of the y axis that the data may
	// be squeezed into to make room for the legend; beyond that the legend
	// is allowed to overlap.
	minDataShare = 0.4
)

// makeRoomForLegend raises the y axis maximum, if needed, so that no point, error bar
// or line of ds passes under the legend in the top-right corner of the data
// area of a w × h figure.
//
// Raising Y.Max (with Y.Min fixed) scales the height of every data
// position above the bottom of the data area by the same factor s < 1, so
// the largest admissible s is found from each obstacle under the legend,
// and the new maximum follows in the axis' own (linear or log) coordinate.
// Tick labels can change the width of the y axis, which shifts the data
// area slightly, so this is repeated a few times.
func (fp *figurePlot) makeRoomForLegend(ds []drawn, w, h vg.Length) {
	p := fp.p
	lw, lh := legendSize(p, ds)
	if lw == 0 {
		return
	}
	logY := isLog(p.Y.Scale)
	for range 4 {
		c := draw.NewCanvas(&recorder.Canvas{}, w, h)
		dc := p.DataCanvas(fp.plotArea(c))
		trX, trY := p.Transforms(&dc)

		// The legend is placed relative to the unpadded data area, which
		// contains dc, so this box is a conservative estimate of it.
		left := dc.Max.X - legendInset - lw - legendMargin
		bottom := dc.Max.Y - legendInset - lh - legendMargin
		room := float64(bottom - dc.Min.Y) // height available below the legend

		s := 1.0
		// need records an obstacle whose top is at height a above the
		// bottom of the data area (scaling with the axis) plus e (fixed).
		need := func(a, e float64) {
			if a <= 0 || a+e <= room {
				return
			}
			s = min(s, (room-e)/a)
		}
		pad := float64(max(vg.Points(glyphRadius), vg.Points(capWidth)/2))
		for _, d := range ds {
			for j := range d.x {
				x := float64(trX(d.x[j]))
				if x+pad >= float64(left) {
					need(float64(trY(d.y[j])-dc.Min.Y), glyphRadius)
					need(float64(trY(d.hi[j])-dc.Min.Y), lineWidth)
				}
				if j == 0 {
					continue
				}
				// The segment from point j-1 to j, clipped to x ≥ left.
				x0, y0 := float64(trX(d.x[j-1])), float64(trY(d.y[j-1])-dc.Min.Y)
				x1, y1 := x, float64(trY(d.y[j])-dc.Min.Y)
				if x0 > x1 {
					x0, y0, x1, y1 = x1, y1, x0, y0
				}
				if x1 < float64(left) {
					continue
				}
				if x0 < float64(left) {
					y0 += (y1 - y0) * (float64(left) - x0) / (x1 - x0)
				}
				need(max(y0, y1), lineWidth)
			}
		}
		if s >= 0.999 {
			return
		}
		s = max(s, minDataShare)
		if logY {
			lmin, lmax := math.Log(p.Y.Min), math.Log(p.Y.Max)
			p.Y.Max = math.Exp(lmin + (lmax-lmin)/s)
		} else {
			p.Y.Max = p.Y.Min + (p.Y.Max-p.Y.Min)/s
		}
		if s == minDataShare {
			return
		}
	}
}

// legendSize returns the size of the legend of the named series in ds,
// computed as plot.Legend.Draw lays it out.
func legendSize(p *plot.Plot, ds []drawn) (w, h vg.Length) {
	sty := p.Legend.TextStyle
	n := 0
	var entry vg.Length
	for _, d := range ds {
		if d.name == "" {
			continue
		}
		n++
		w = max(w, p.Legend.ThumbnailWidth+sty.Rectangle(" "+d.name).Max.X)
		entry = max(entry, sty.Rectangle(d.name).Max.Y)
	}
	if n == 0 {
		return 0, 0
	}
	h = vg.Length(n)*entry + vg.Length(n-1)*p.Legend.Padding + sty.FontExtents().Descent
	return w, h
}

func isLog(n plot.Normalizer) bool {
	_, ok := n.(plot.LogScale)
	return ok
}
