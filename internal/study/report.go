package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/rffkit/rff/internal/plotting"
)

// Report is the result of the studies that summarize their rows by fitted slopes and a finding: the settings, the
// rows (each a mean over runs with its 95% interval), the fits and the finding.
type Report[R any] struct {
	// Rule names the rule that drew the points.
	Rule string `json:"rule"`
	// Settings is the study that ran.
	Settings any `json:"settings"`
	Rows     []R `json:"rows"`
	Summary
	table table[R]
	write func(dir string, rows []R) ([]string, error)
}

// table is how a study prints its rows.
type table[R any] struct {
	columns string        // tab-separated column names
	format  string        // the format of one line, tab-separated
	row     func(R) []any // the values of one line
	notes   func(w io.Writer, rows []R)
}

// plan is how run measures, summarizes, prints and draws the rows of a study.
type plan[R any] struct {
	settings  any // what the report shows as the settings: the study, or a copy with the values it resolved
	rule      string
	measure   func(context.Context) ([]R, error)
	summarize func([]R) (Summary, error)
	write     func(dir string, rows []R) ([]string, error)
	table     table[R]
}

// run validates the settings of s, measures its rows and summarizes them into a Report.
func run[R any](ctx context.Context, s Study, p plan[R]) (Result, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	rows, err := p.measure(ctx)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errNoRows
	}
	sum, err := p.summarize(rows)
	if err != nil {
		return nil, err
	}
	return &Report[R]{Rule: p.rule, Settings: p.settings, Rows: rows, Summary: sum, table: p.table, write: p.write}, nil
}

// Summarize writes the table of the rows, the study's notes and the finding.
func (r *Report[R]) Summarize(w io.Writer) error {
	if err := writeTable(w, r.table.columns, r.table.format, r.Rows, r.table.row); err != nil {
		return err
	}
	if r.table.notes != nil {
		r.table.notes(w, r.Rows)
	}
	_, err := fmt.Fprintf(w, "finding: %s\n", r.Finding)
	return err
}

// Write draws the study's figures into dir.
func (r *Report[R]) Write(dir string) ([]string, error) {
	if len(r.Rows) == 0 || r.write == nil {
		return nil, errNoRows
	}
	return r.write(dir, r.Rows)
}

// writeTable writes rows as a right-aligned table under the tab-separated column names.
func writeTable[R any](w io.Writer, columns, format string, rows []R, row func(R) []any) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, columns+"\t")
	for _, r := range rows {
		fmt.Fprintf(tw, format+"\t\n", row(r)...)
	}
	return tw.Flush()
}

// figure is a figure and the name of its PNG file.
type figure struct {
	file string
	plotting.Figure
}

// saveFigures saves each figure as dir/file with its CSV beside it and returns the PNG paths.
func saveFigures(dir string, figs ...figure) ([]string, error) {
	var paths []string
	for _, f := range figs {
		p := filepath.Join(dir, f.file)
		if err := plotting.SaveWithCSV(p, f.Figure); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// errNoRows is the error of drawing or summarizing a study without rows.
var errNoRows = errors.New("no rows")

// logLog is a log–log figure of the size of the theory studies.
func logLog(title, xLabel, yLabel string) plotting.Figure {
	return plotting.Figure{Title: title, XLabel: xLabel, YLabel: yLabel, LogX: true, LogY: true, Width: 8, Height: 5.5}
}

// measured appends the point (x, mean) with its 95% interval to se.
func measured(se *plotting.Series, x float64, s Stat) {
	se.X, se.Y = append(se.X, x), append(se.Y, s.Mean)
	se.Lo, se.Hi = append(se.Lo, s.CI95[0]), append(se.Hi, s.CI95[1])
}

// line appends the point (x, y) to se.
func line(se *plotting.Series, x, y float64) {
	se.X, se.Y = append(se.X, x), append(se.Y, y)
}

// boundCurves draws, for every group of rows (first-seen order), the measured mean with its interval and the
// theorem's bound against x: the series "<key> <meas>" and "<key> <bound>".
func boundCurves[R any](rows []R, key func(R) string, at func(R) point, meas, bound string) []plotting.Series {
	var out []plotting.Series
	order, idx := groupBy(rows, key)
	for _, k := range order {
		m := plotting.Series{Name: k + " " + meas}
		b := plotting.Series{Name: k + " " + bound}
		for _, i := range idx[k] {
			p := at(rows[i])
			measured(&m, p.x, p.stat)
			line(&b, p.x, p.bound)
		}
		out = append(out, m, b)
	}
	return out
}

// saveRateFigure saves as dir/file the log–log figure against m of the measured mean of every group of rows, with
// its 95% interval, and of the theorem's bound (boundCurves), with its CSV beside it.
func saveRateFigure[R any](dir, file, title, yLabel string, rows []R, key func(R) string, at func(R) point, meas,
	bound string) ([]string, error) {
	fig := logLog(title, mAxis, yLabel)
	fig.Series = boundCurves(rows, key, at, meas, bound)
	return saveFigures(dir, figure{file, fig})
}
