package report

import (
	"fmt"
	"html/template"
	"io"
)

// Page is everything one report shows, top to bottom: a title and a one-line summary, headline numbers, the panels
// in a grid (those with a figure first, in order, then those holding a note, each across the grid), footnotes, and
// tables.
type Page struct {
	Title, Subtitle string
	Stats           []Stat
	Panels          []Panel
	Notes           []string
	Tables          []Table
	Footer          string
}

// Stat is a headline number: "test R²" "0.987".
type Stat struct{ Name, Value string }

// Panel is one card of the grid: a figure with its caption, or a note in its place when Figure is nil.
type Panel struct {
	Title   string
	Figure  Figure
	Note    string
	Caption string
}

// Table is a card holding a table: Head names the columns (none when empty), Rows hold the cells.
type Table struct {
	Title string
	Head  []string
	Rows  [][]string
}

// panelView is a Panel with its figure drawn.
type panelView struct {
	Title   string
	SVG     template.HTML
	Note    string
	Caption string
}

type pageView struct {
	*Page
	Panels []panelView
}

// Write draws the figures of p and writes the page as one self-contained HTML document: styles inline, figures as
// inline SVG, no script, nothing loaded from elsewhere. Every string of p is escaped.
func Write(w io.Writer, p *Page) error {
	v := pageView{Page: p}
	var notes []panelView
	for _, pn := range p.Panels {
		pv := panelView{Title: pn.Title, Note: pn.Note, Caption: pn.Caption}
		if pn.Figure != nil {
			svg, note, err := pn.Figure.render()
			if err != nil {
				return fmt.Errorf("report panel %q: %w", pn.Title, err)
			}
			// svg was built by this package, which escapes every string it writes into it.
			pv.SVG = template.HTML(svg)
			if note != "" {
				if pv.Caption != "" {
					pv.Caption += " "
				}
				pv.Caption += note
			}
		}
		if pv.SVG == "" {
			notes = append(notes, pv)
			continue
		}
		v.Panels = append(v.Panels, pv)
	}
	v.Panels = append(v.Panels, notes...)
	return page.Execute(w, v)
}

var page = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>{{.Title}}</title>
<style>
:root { --bg: #eef1f5; --card: #ffffff; --ink: #1d2733; --muted: #5b6675; --line: #d9dee5; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
.wrap { max-width: 1180px; margin: 0 auto; padding: 20px 20px 28px; }
header h1 { font-size: 22px; margin: 0; font-weight: 650; }
header p { margin: 2px 0 0; color: var(--muted); }
.stats { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0; }
.stat { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 7px 16px 8px; min-width: 124px; }
.stat span { display: block; color: var(--muted); font-size: 11.5px; text-transform: uppercase; letter-spacing: .05em; }
.stat b { display: block; font-size: 22px; font-weight: 650; font-variant-numeric: tabular-nums; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(500px, 100%), 1fr)); gap: 16px; margin-top: 16px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px 14px; min-width: 0; }
.card.wide { grid-column: 1 / -1; }
.card h2 { font-size: 15px; margin: 0 0 8px; font-weight: 650; }
svg { display: block; max-width: 100%; height: auto; margin: 0 auto; }
svg text { fill: var(--ink); font-size: 12px; }
svg .tick { fill: var(--muted); font-size: 11px; font-variant-numeric: tabular-nums; }
svg .axis { font-size: 12.5px; }
svg .legend { font-size: 11.5px; }
svg .mark { font-size: 12px; stroke: #ffffff; stroke-width: 3px; paint-order: stroke; stroke-linejoin: round; }
svg .hint { fill: #98a2ae; font-size: 11px; font-style: italic; }
svg .count { font-size: 12px; font-variant-numeric: tabular-nums; }
svg .clabel { font-size: 11.5px; }
.note { margin: 4px 0 0; padding: 10px 12px; background: #f6f8fa; border-radius: 6px; color: var(--muted); }
.caption { margin: 8px 0 0; color: var(--muted); font-size: 12.5px; }
.notes { margin: 12px 0 0; padding-left: 18px; color: var(--muted); font-size: 12.5px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 3px 10px 3px 0; border-bottom: 1px solid #eef0f3; vertical-align: top; overflow-wrap: anywhere; }
th { color: var(--muted); font-weight: 600; }
td:first-child { color: var(--muted); max-width: 40ch; }
footer { margin-top: 18px; color: var(--muted); font-size: 12px; }
</style>
</head>
<body>
<div class="wrap">
<header><h1>{{.Title}}</h1>{{with .Subtitle}}<p>{{.}}</p>{{end}}</header>
{{with .Stats}}<div class="stats">{{range .}}<div class="stat"><span>{{.Name}}</span><b>{{.Value}}</b></div>{{end}}</div>
{{end}}<main class="grid">
{{range .Panels}}<section class="card panel{{if not .SVG}} wide{{end}}"><h2>{{.Title}}</h2>
{{if .SVG}}{{.SVG}}
{{end}}{{with .Note}}<p class="note">{{.}}</p>{{end}}{{with .Caption}}<p class="caption">{{.}}</p>{{end}}</section>
{{end}}</main>
{{with .Notes}}<ul class="notes">{{range .}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{with .Tables}}<div class="grid">
{{range .}}<section class="card"><h2>{{.Title}}</h2><table>{{with .Head}}<thead><tr>{{range .}}<th>{{.}}</th>{{end}}</tr></thead>{{end}}<tbody>{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</tbody></table></section>
{{end}}</div>
{{end}}{{with .Footer}}<footer>{{.}}</footer>
{{end}}</div>
</body>
</html>
`))
