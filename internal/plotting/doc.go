// Package plotting draws the figures of rff experiments (error against the
// number of features, bound against observed error, timings) with
// gonum.org/v1/plot, and writes the table behind every figure as a CSV file
// next to it, so that every figure's numbers can be read and re-plotted.
//
// A [Figure] is plain data: titles, axis scales and a list of [Series], each
// a line through (X, Y) with an optional interval [Lo, Hi] drawn as vertical
// error bars (for example mean ± standard deviation over seeds, or a
// quantile band). [Save] renders it to PNG, SVG or PDF according to the file
// extension; [WriteCSV] writes the same numbers as a tidy table with the
// header
//
//	series,x,y,lo,hi
//
// and [SaveWithCSV] does both, putting the CSV at the figure's path with the
// extension replaced by ".csv".
//
// Figures are drawn for reading, not tuning: each series gets its own color
// from a fixed palette of ten colors that stay distinct in print, and its own
// glyph shape, so series remain distinguishable in grayscale. The legend sits
// in the top-right corner of the data area, and the y axis is extended
// upwards when needed so that the legend does not cover data. Log axes
// (Figure.LogX, Figure.LogY) use plot.LogScale with ticks in the style of
// plot.LogTicks (labels at powers of ten), falling back to 1-2-5 labels
// when the data span less than a decade. Points that cannot be drawn on a log
// axis (a value ≤ 0) are left out of the drawing, not reported as errors;
// WriteCSV always writes every point.
//
// All user mistakes (unknown extension, slices of different lengths, an
// empty figure, NaN or infinite values in a figure to draw) are returned as
// one-line errors; the package does not panic on user data.
//
// This package implements no paper; it is the output side of the rff
// experiments and of `rff repro`.
package plotting
