package plotting

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// figurePlot is a gonum plot whose axis labels are drawn by this package.
//
// gonum/plot reserves room for an axis label as if the label were centred on
// the arithmetic mean of the axis range; on a log axis that is far from the
// middle, so a long y label steals space from the top of the data area (and
// a long x label from the right). Drawing the labels here, in strips cut off
// the figure before the plot is drawn, keeps them centred on the data area
// without that waste.
type figurePlot struct {
	p              *plot.Plot
	xLabel, yLabel string
}

const labelPadding = 4 // points between an axis label and the tick labels

// labelStyle is the text style of the axis labels, as gonum's default but in
// Liberation Sans; the y label is rotated a quarter turn.
func labelStyle(rotate bool) text.Style {
	sty := text.Style{
		Color:   color.Black,
		Font:    font.From(sans, 11),
		XAlign:  draw.XCenter,
		YAlign:  draw.YBottom,
		Handler: plot.DefaultTextHandler,
	}
	if rotate {
		sty.Rotation = math.Pi / 2
	}
	return sty
}

// plotArea is the part of c left to the plot once the label strips are cut.
func (fp *figurePlot) plotArea(c draw.Canvas) draw.Canvas {
	var left, bottom vg.Length
	if fp.yLabel != "" {
		left = labelStyle(true).Height(fp.yLabel) + labelPadding
	}
	if fp.xLabel != "" {
		bottom = labelStyle(false).Height(fp.xLabel) + labelPadding
	}
	return draw.Crop(c, left, 0, bottom, 0)
}

// draw draws the whole figure on c.
func (fp *figurePlot) draw(c draw.Canvas) {
	area := fp.plotArea(c)
	fp.p.Draw(area)
	data := fp.p.DataCanvas(area)
	if fp.xLabel != "" {
		sty := labelStyle(false)
		c.FillText(sty, vg.Point{X: data.Center().X, Y: c.Min.Y + sty.FontExtents().Descent}, fp.xLabel)
	}
	if fp.yLabel != "" {
		sty := labelStyle(true)
		x := c.Min.X + sty.Height(fp.yLabel) - sty.FontExtents().Descent
		c.FillText(sty, vg.Point{X: x, Y: data.Center().Y}, fp.yLabel)
	}
}
