package plotting

import (
	"image/color"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette is the "Tableau 10" set of colors: ten hues that remain distinct
// from each other on screen and in print.
var palette = []color.RGBA{
	{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, // blue
	{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, // orange
	{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, // green
	{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, // red
	{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, // purple
	{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}, // brown
	{R: 0xe3, G: 0x77, B: 0xc2, A: 0xff}, // pink
	{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff}, // gray
	{R: 0xbc, G: 0xbd, B: 0x22, A: 0xff}, // olive
	{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff}, // cyan
}

// glyphs are the marker shapes, cycled with a period (7) prime to the number
// of colors so that series i and i+10 still differ in shape.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{},
	draw.SquareGlyph{},
	draw.TriangleGlyph{},
	draw.RingGlyph{},
	draw.BoxGlyph{},
	draw.PyramidGlyph{},
	draw.CrossGlyph{},
}

// dashes are used from the eleventh series on, when colors repeat.
var dashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(3)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(6), vg.Points(2), vg.Points(2), vg.Points(2)},
}

// seriesColor returns the color of the i-th series.
func seriesColor(i int) color.Color { return palette[i%len(palette)] }

// seriesGlyph returns the glyph shape of the i-th series.
func seriesGlyph(i int) draw.GlyphDrawer { return glyphs[i%len(glyphs)] }

// seriesDashes returns the dash pattern of the i-th series' line.
func seriesDashes(i int) []vg.Length { return dashes[(i/len(palette))%len(dashes)] }

const (
	defaultWidth  = 6 // inches
	defaultHeight = 4 // inches

	lineWidth   = 1.5 // points
	glyphRadius = 3   // points
	capWidth    = 6   // points
	legendInset = 6   // points between the legend and the axes
)

// sans is the typeface of all text in a figure: Liberation Sans, which is
// embedded in gonum/plot, so rendering needs no system fonts.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

var gridColor = color.Gray{Y: 0xe0}
