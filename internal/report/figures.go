package report

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/metrics"
)

// Figure is a figure of the page, drawn as an inline SVG: Tuning, Predictions.Parity, Predictions.Residuals,
// Calibration, Reliability or Confusion.
type Figure interface {
	// render returns the SVG element, and a note on what was left out of it (for the caption).
	render() (svg, note string, err error)
}

// The size of a plot's SVG in CSS pixels, and its frame.
const (
	plotW, plotH               = 560, 380
	frameL, frameT, frameB     = 74, 14, plotH - 52
	frameR                     = plotW - 18
	squareSide                 = frameB - frameT
	squareL                    = frameL + (frameR-frameL-squareSide)/2
	legendW                    = 104
	tuneFrameR                 = plotW - legendW - 16
	maxLegend                  = 18
	defaultPointR, smallPointR = 2.8, 2.2
)

// MaxPoints is the largest number of rows a scatter plot draws; larger data are thinned to evenly spaced rows
// (every k-th), which the caption says.
const MaxPoints = 2500

// Tuning is the score of every (σ, λ) pair a tuning scored, drawn as the score against λ (log axis), one line per σ,
// with the chosen pair ringed.
type Tuning struct {
	Sigmas, Lambdas []float64
	// Scores[i][j] is the score of (Sigmas[i], Lambdas[j]); NaN where the pair could not be scored.
	Scores [][]float64
	// ScoreName labels the score axis ("GCV", "log evidence", "CV MSE"); HigherIsBetter says which way is better.
	ScoreName      string
	HigherIsBetter bool
	// Sigma and Lambda are the chosen pair (Sigma may be NaN for a kernel without a bandwidth).
	Sigma, Lambda float64
}

// viridis returns the colour at t ∈ [0, 1] of the viridis colour map (dark blue to yellow), for ordered series.
func viridis(t float64) string {
	stops := [][3]float64{{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}
	t = math.Max(0, math.Min(1, t)) * float64(len(stops)-1)
	k := min(int(t), len(stops)-2)
	f := t - float64(k)
	var c [3]int
	for i := range c {
		c[i] = int(math.Round(stops[k][i] + f*(stops[k+1][i]-stops[k][i])))
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}

// nearest returns the index of the value of vs closest to v relative to its size (-1 when none is within 1e-6).
func nearest(vs []float64, v float64) int {
	best, bd := -1, 1e-6
	for i, x := range vs {
		if d := math.Abs(x-v) / math.Max(math.Abs(v), 1e-300); d <= bd {
			best, bd = i, d
		}
	}
	return best
}

func (tu *Tuning) render() (string, string, error) {
	if len(tu.Sigmas) == 0 || len(tu.Lambdas) == 0 || len(tu.Scores) != len(tu.Sigmas) {
		return "", "", fmt.Errorf("tuning: %d bandwidths, %d penalties and %d rows of scores", len(tu.Sigmas), len(tu.Lambdas), len(tu.Scores))
	}
	var all []float64
	for i, row := range tu.Scores {
		if len(row) != len(tu.Lambdas) {
			return "", "", fmt.Errorf("tuning: %d scores for σ = %g, want one per λ (%d)", len(row), tu.Sigmas[i], len(tu.Lambdas))
		}
		all = append(all, row...)
	}
	name := tu.ScoreName
	if name == "" {
		name = "score"
	}
	if tu.HigherIsBetter {
		name += " (higher is better)"
	} else {
		name += " (lower is better)"
	}
	lo, hi, cut := tu.window(all)
	ylog := !tu.HigherIsBetter && lo > 0 && hi > 20*lo
	var shown []float64
	for _, v := range all {
		if v >= lo && v <= hi {
			shown = append(shown, v)
		}
	}
	s := newSVG(plotW, plotH, name+" against λ, one line per σ")
	xlo, xhi, ok := span(tu.Lambdas, true, 0.03)
	if !ok {
		return "", "", errors.New("tuning: no positive λ to draw on a log axis")
	}
	ylo, yhi, ok := span(shown, ylog, 0.06)
	if !ok {
		ylo, yhi = 0, 1
	}
	p := newPlot(s, frameL, frameT, tuneFrameR, frameB, axis{label: "λ (ridge penalty)", lo: xlo, hi: xhi, log: true}, axis{label: name, lo: ylo, hi: yhi, log: ylog})
	if !ok {
		s.text((frameL+tuneFrameR)/2, (frameT+frameB)/2, "no pair could be scored", textOpt{anchor: "middle", class: "axis"})
	}
	chosen := nearest(tu.Sigmas, tu.Sigma)
	if len(tu.Sigmas) == 1 && math.IsNaN(tu.Sigma) {
		chosen = 0
	}
	colour := func(i int) string {
		if len(tu.Sigmas) == 1 {
			return pointColour
		}
		return viridis(0.85 * float64(i) / float64(len(tu.Sigmas)-1))
	}
	for i := range tu.Sigmas {
		if i != chosen {
			p.curve(tu.Lambdas, tu.Scores[i], colour(i), 1.6, "", smallPointR)
		}
	}
	if chosen >= 0 { // drawn last, thicker, on top of the others
		p.curve(tu.Lambdas, tu.Scores[chosen], colour(chosen), 2.8, "", smallPointR)
		if j := nearest(tu.Lambdas, tu.Lambda); j >= 0 && p.inside(tu.Lambdas[j], tu.Scores[chosen][j]) {
			cx, cy := p.x.px(tu.Lambdas[j]), p.y.px(tu.Scores[chosen][j])
			s.circle(cx, cy, 8, "none", markColour, 1)
			label, o := "chosen", textOpt{anchor: "start", class: "mark", fill: markColour, bold: true}
			lx, ly := cx+12, cy-14
			if cx > (frameL+tuneFrameR)/2 {
				lx, o.anchor = cx-12, "end"
			}
			if ly < frameT+10 {
				ly = cy + 16
			}
			s.text(lx, ly, label, o)
		}
	}
	// The legend lists every σ, or every k-th (and the chosen one) when there are too many to list.
	step := (len(tu.Sigmas) + maxLegend - 1) / maxLegend
	var entries []legendEntry
	for i, sg := range tu.Sigmas {
		if i%step == 0 || i == chosen {
			label := "σ = " + Number(sg, 3)
			if math.IsNaN(sg) {
				label = "no σ"
			}
			entries = append(entries, legendEntry{label: label, colour: colour(i), strong: i == chosen})
		}
	}
	s.legend(tuneFrameR+10, frameT, legendW, entries)
	note := ""
	if cut {
		if tu.HigherIsBetter {
			note = fmt.Sprintf("Scores below %s leave the plot at the bottom, so that the best ones can be told apart.", Number(lo, 3))
		} else {
			note = fmt.Sprintf("Scores above %s leave the plot at the top, so that the best ones can be told apart.", Number(hi, 3))
		}
	}
	if step > 1 {
		note = strings.TrimSpace(note + fmt.Sprintf(" The legend lists every %s σ of %d.", ordinal(step), len(tu.Sigmas)))
	}
	return s.close(), note, nil
}

// window returns the range of scores to show: all finite scores, or, when several σ were scored and the worst
// scores dwarf the differences between the best score of each σ, the range from the best score to three times the
// distance to the worst of the best scores of each σ (at least 5% of the best score and 2% of the full range). cut
// says whether scores were left out.
func (tu *Tuning) window(all []float64) (lo, hi float64, cut bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range all {
		if finite(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if len(tu.Sigmas) < 2 || !(hi > lo) {
		return lo, hi, false
	}
	sign := 1.0 // scores times sign: lower is better
	if tu.HigherIsBetter {
		sign = -1
	}
	best, worstBest := math.Inf(1), math.Inf(-1)
	for _, row := range tu.Scores {
		b := math.Inf(1)
		for _, v := range row {
			if finite(v) {
				b = math.Min(b, sign*v)
			}
		}
		if finite(b) {
			best, worstBest = math.Min(best, b), math.Max(worstBest, b)
		}
	}
	edge := best + math.Max(3*(worstBest-best), math.Max(0.05*math.Abs(best), 0.02*(hi-lo)))
	if edge-best >= 0.5*(hi-lo) {
		return lo, hi, false
	}
	if tu.HigherIsBetter {
		return -edge, hi, true
	}
	return lo, edge, true
}

func ordinal(k int) string {
	switch k {
	case 2:
		return "second"
	case 3:
		return "third"
	}
	return strconv.Itoa(k) + "th"
}

// Predictions are a regression's predictions of held-out targets: n rows of p outputs, row-major.
type Predictions struct {
	Names       []string // the p output names (or nil)
	N, P        int
	Pred, Truth []float64
}

func (d *Predictions) check() error {
	np, ok := size.Mul(d.N, d.P)
	if !ok || d.N < 1 || d.P < 1 || len(d.Pred) != np || len(d.Truth) != np {
		return fmt.Errorf("predictions: %d and %d values for %d rows of %d outputs", len(d.Pred), len(d.Truth), d.N, d.P)
	}
	if d.Names != nil && len(d.Names) != d.P {
		return fmt.Errorf("predictions: %d names for %d outputs", len(d.Names), d.P)
	}
	return nil
}

// rows returns the rows a scatter plot draws: all, or at most MaxPoints evenly spaced ones — fewer with several
// outputs, each drawing a dot per row: 2·MaxPoints dots in all, at least 200 rows — and the note that says so.
func (d *Predictions) rows() ([]int, string) {
	n := min(d.N, MaxPoints, max(200, 2*MaxPoints/max(d.P, 1)))
	idx := make([]int, n)
	for k := range idx {
		idx[k] = int(int64(k) * int64(d.N) / int64(n))
	}
	if n < d.N {
		return idx, fmt.Sprintf("%d of the %d rows are drawn, evenly spaced.", n, d.N)
	}
	return idx, ""
}

// colour is the colour of output a.
func (d *Predictions) colour(a int) string {
	if d.P == 1 {
		return pointColour
	}
	return palette[a%len(palette)]
}

// legend lists the outputs of a multi-output regression.
func (d *Predictions) legend(s *svg, x, y float64) {
	if d.P == 1 || d.P > maxLegend {
		return
	}
	var e []legendEntry
	for a := 0; a < d.P; a++ {
		name := "output " + strconv.Itoa(a+1)
		if d.Names != nil {
			name = shorten(d.Names[a], 14)
		}
		e = append(e, legendEntry{label: name, colour: d.colour(a)})
	}
	s.legend(x, y, legendW, e)
}

// opacity lightens dots as they get more numerous, so that dense regions show as darker.
func opacity(n int) float64 {
	switch {
	case n <= 300:
		return 0.75
	case n <= 1500:
		return 0.55
	}
	return 0.4
}

// squareLeft is the left edge of a square frame: centred, or at the left to leave room for a legend on its right.
func squareLeft(legend bool) float64 {
	if legend {
		return frameL
	}
	return squareL
}

// Parity is the figure of predicted against true values, with the identity line.
func (d *Predictions) Parity() Figure { return parity{d} }

// Residuals is the figure of residuals (true − predicted) against predicted values.
func (d *Predictions) Residuals() Figure { return residuals{d} }

type parity struct{ *Predictions }

func (d parity) render() (string, string, error) {
	if err := d.check(); err != nil {
		return "", "", err
	}
	idx, note := d.rows()
	xs, ys := make([][]float64, d.P), make([][]float64, d.P)
	for a := range xs {
		for _, i := range idx {
			xs[a] = append(xs[a], d.Truth[i*d.P+a])
			ys[a] = append(ys[a], d.Pred[i*d.P+a])
		}
	}
	all := append(append([]float64(nil), d.Truth...), d.Pred...)
	lo, hi, ok := span(all, false, 0.04)
	if !ok {
		return "", "", errors.New("predictions: no finite value to draw")
	}
	xl, yl := "true value", "predicted value"
	if d.P == 1 && d.Names != nil && d.Names[0] != "" {
		xl, yl = "true "+shorten(d.Names[0], 30), "predicted "+shorten(d.Names[0], 30)
	}
	s := newSVG(plotW, plotH, "predicted against true values")
	l := squareLeft(d.P > 1 && d.P <= maxLegend)
	p := newPlot(s, l, frameT, l+squareSide, frameB, axis{label: xl, lo: lo, hi: hi}, axis{label: yl, lo: lo, hi: hi})
	for a := range xs {
		p.scatter(xs[a], ys[a], d.colour(a), defaultPointR, opacity(len(idx)))
	}
	p.segment(lo, lo, hi, hi, refColour, 1.5, "6 4")
	s.line(l+8, frameT+12, l+30, frameT+12, refColour, 1.5, "6 4")
	s.text(l+35, frameT+12, "predicted = true", textOpt{class: "legend", fill: refColour})
	d.legend(s, l+squareSide+14, frameT)
	return s.close(), note, nil
}

type residuals struct{ *Predictions }

func (d residuals) render() (string, string, error) {
	if err := d.check(); err != nil {
		return "", "", err
	}
	idx, note := d.rows()
	xs, ys := make([][]float64, d.P), make([][]float64, d.P)
	var all []float64
	big := 0.0
	for a := range xs {
		for _, i := range idx {
			pr, r := d.Pred[i*d.P+a], d.Truth[i*d.P+a]-d.Pred[i*d.P+a]
			xs[a] = append(xs[a], pr)
			ys[a] = append(ys[a], r)
			all = append(all, pr)
			if !math.IsNaN(r) && !math.IsInf(r, 0) {
				big = math.Max(big, math.Abs(r))
			}
		}
	}
	xlo, xhi, ok := span(all, false, 0.04)
	if !ok {
		return "", "", errors.New("predictions: no finite value to draw")
	}
	if big == 0 {
		big = 1
	}
	yl := "residual (true − predicted)"
	s := newSVG(plotW, plotH, "residuals against predicted values")
	r := float64(frameR)
	if d.P > 1 && d.P <= maxLegend {
		r = tuneFrameR
	}
	p := newPlot(s, frameL, frameT, r, frameB, axis{label: "predicted value", lo: xlo, hi: xhi}, axis{label: yl, lo: -math.Min(1.08*big, math.MaxFloat64), hi: math.Min(1.08*big, math.MaxFloat64)})
	p.segment(xlo, 0, xhi, 0, refColour, 1.5, "6 4")
	for a := range xs {
		p.scatter(xs[a], ys[a], d.colour(a), defaultPointR, opacity(len(idx)))
	}
	d.legend(s, r+10, frameT)
	return s.close(), note, nil
}

// CalibrationLevels are the nominal probabilities p of the central intervals the calibration figure checks.
var CalibrationLevels = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99}

// Coverage returns, for each of the p outputs and each level q of levels, the fraction of the n targets (truth,
// n×p row-major) inside the central q-interval mean ± z·std, z = Φ⁻¹((1+q)/2), of the normal law N(mean, std²)
// given by pred and std. Rows whose prediction, target or standard deviation is not finite (or whose standard
// deviation is negative) are left out; a fraction over no rows is NaN.
func Coverage(pred, truth, std []float64, n, p int, levels []float64) ([][]float64, error) {
	np, ok := size.Mul(n, p)
	if !ok || len(pred) != np || len(truth) != np || len(std) != np {
		return nil, fmt.Errorf("coverage: %d predictions, %d targets and %d standard deviations for %d rows of %d outputs", len(pred), len(truth), len(std), n, p)
	}
	z := make([]float64, len(levels))
	for k, q := range levels {
		if !(q > 0 && q < 1) {
			return nil, fmt.Errorf("coverage: level %g is not in (0, 1)", q)
		}
		z[k] = math.Sqrt2 * math.Erfinv(q) // Φ⁻¹((1+q)/2)
	}
	out := make([][]float64, p)
	for a := range out {
		inside := make([]int, len(levels))
		rows := 0
		for i := 0; i < n; i++ {
			m, y, sd := pred[i*p+a], truth[i*p+a], std[i*p+a]
			if !finite(m) || !finite(y) || !finite(sd) || sd < 0 {
				continue
			}
			rows++
			for k := range z {
				if math.Abs(y-m) <= z[k]*sd {
					inside[k]++
				}
			}
		}
		out[a] = make([]float64, len(levels))
		for k := range levels {
			out[a][k] = float64(inside[k]) / float64(rows) // NaN for no rows
		}
	}
	return out, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Reliability is the reliability diagram of a classifier's probabilities: the held-out rows binned by the
// probability the model gives its predicted class (its confidence), and per bin the share of rows predicted
// correctly against their mean confidence, with the diagonal of perfect calibration (DeGroot & Fienberg 1983;
// Niculescu-Mizil & Caruana 2005).
type Reliability struct {
	Confidence []float64 // per non-empty bin, the mean confidence of its rows, increasing
	Accuracy   []float64 // per bin, the share of its rows whose predicted class is the true one
	Rows       []int     // per bin, its number of rows
}

// ReliabilityBins bins the rows of the class probabilities probs (n×k, row-major) by their largest probability
// into bins equal parts of [0, 1] (metrics.CalibrationOf) and returns the diagram of the non-empty bins with the
// expected calibration error Σ_b (n_b/n)·|accuracy_b − confidence_b|. truth holds the true class of each row; rows
// whose true class lies outside [0, k) are left out.
func ReliabilityBins(probs []float64, truth []int, k, bins int) (*Reliability, float64, error) {
	c, err := metrics.CalibrationOf(probs, truth, k, bins)
	if err != nil {
		return nil, 0, err
	}
	return &Reliability{Confidence: c.Confidence, Accuracy: c.Accuracy, Rows: c.Rows}, c.Error, nil
}

func (r *Reliability) render() (string, string, error) {
	if len(r.Confidence) == 0 || len(r.Accuracy) != len(r.Confidence) || len(r.Rows) != len(r.Confidence) {
		return "", "", fmt.Errorf("reliability: %d bins, %d accuracies, %d counts", len(r.Confidence), len(r.Accuracy), len(r.Rows))
	}
	s := newSVG(plotW, plotH, "share of held-out rows predicted correctly against the probability of the predicted class, one disc per bin, its area proportional to the bin's rows")
	l := squareLeft(false)
	p := newPlot(s, l, frameT, l+squareSide, frameB, axis{label: "probability of the predicted class (bin mean)", lo: -0.02, hi: 1.02}, axis{label: "share predicted correctly", lo: -0.02, hi: 1.02})
	// The hint sits above the frame, where no bin can be drawn.
	s.text(l, frameT-8, "above the diagonal: underconfident; below: overconfident", textOpt{class: "hint"})
	p.segment(0, 0, 1, 1, refColour, 1.5, "6 4")
	most := slices.Max(r.Rows)
	for b := range r.Confidence {
		// area ∝ rows: a bin of one row is a dot, the largest a disc of radius 9
		rad := 9 * math.Sqrt(float64(r.Rows[b])/float64(most))
		if p.inside(r.Confidence[b], r.Accuracy[b]) {
			p.circle(p.x.px(r.Confidence[b]), p.y.px(r.Accuracy[b]), math.Max(rad, 1.5), pointColour, "", 0.75)
		}
	}
	return s.close(), "", nil
}

// Calibration is the fraction of held-out targets inside the central p-intervals of the predictive laws, against p,
// with the diagonal of perfect calibration.
type Calibration struct {
	Names  []string    // the output names (or nil)
	Levels []float64   // the nominal probabilities p, in (0, 1)
	Inside [][]float64 // Inside[a][k]: the fraction of output a's targets inside the central Levels[k]-interval
}

func (c *Calibration) render() (string, string, error) {
	if len(c.Levels) == 0 || len(c.Inside) == 0 || (c.Names != nil && len(c.Names) != len(c.Inside)) {
		return "", "", fmt.Errorf("calibration: %d levels, %d outputs, %d names", len(c.Levels), len(c.Inside), len(c.Names))
	}
	for _, row := range c.Inside {
		if len(row) != len(c.Levels) {
			return "", "", fmt.Errorf("calibration: %d fractions for %d levels", len(row), len(c.Levels))
		}
	}
	s := newSVG(plotW, plotH, "fraction of targets inside the central p-interval against p")
	multi := len(c.Inside) > 1 && len(c.Inside) <= maxLegend
	l := squareLeft(multi)
	p := newPlot(s, l, frameT, l+squareSide, frameB, axis{label: "nominal probability p of the interval", lo: -0.02, hi: 1.02}, axis{label: "fraction of targets inside", lo: -0.02, hi: 1.02})
	s.text(l+12, frameT+14, "intervals too wide", textOpt{class: "hint"})
	s.text(l+squareSide-12, frameB-14, "intervals too narrow", textOpt{anchor: "end", class: "hint"})
	p.segment(0, 0, 1, 1, refColour, 1.5, "6 4")
	var entries []legendEntry
	for a, row := range c.Inside {
		colour := pointColour
		if len(c.Inside) > 1 {
			colour = palette[a%len(palette)]
			name := "output " + strconv.Itoa(a+1)
			if c.Names != nil {
				name = shorten(c.Names[a], 14)
			}
			entries = append(entries, legendEntry{label: name, colour: colour})
		}
		p.curve(c.Levels, row, colour, 2.2, "", 3.2)
	}
	if multi {
		s.legend(l+squareSide+14, frameT, legendW, entries)
	}
	return s.close(), "", nil
}

// MaxConfusionClasses is the largest number of classes a confusion matrix is drawn for.
const MaxConfusionClasses = 60

// Confusion is a classifier's confusion matrix as a heat map: Counts[t][p] rows of true class t predicted as class
// p, each cell shaded by its share of the true class's rows and labelled with its count.
type Confusion struct {
	Labels []string
	Counts [][]int
}

// blues returns the colour at t ∈ [0, 1] of a white-to-dark-blue ramp.
func blues(t float64) string {
	stops := [][3]float64{{247, 251, 255}, {198, 219, 239}, {107, 174, 214}, {33, 113, 181}, {8, 48, 107}}
	t = math.Max(0, math.Min(1, t)) * float64(len(stops)-1)
	k := min(int(t), len(stops)-2)
	f := t - float64(k)
	var c [3]int
	for i := range c {
		c[i] = int(math.Round(stops[k][i] + f*(stops[k+1][i]-stops[k][i])))
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}

func (c *Confusion) render() (string, string, error) {
	k := len(c.Labels)
	if k == 0 || k > MaxConfusionClasses || len(c.Counts) != k {
		return "", "", fmt.Errorf("confusion: %d labels and %d rows (at most %d classes are drawn)", k, len(c.Counts), MaxConfusionClasses)
	}
	for _, row := range c.Counts {
		if len(row) != k {
			return "", "", fmt.Errorf("confusion: a row of %d counts for %d classes", len(row), k)
		}
	}
	cell := math.Max(6, math.Min(88, math.Floor(420/float64(k))))
	labelFont := math.Min(12, cell-1)
	longest := 0
	for _, l := range c.Labels {
		longest = max(longest, len([]rune(shorten(l, 14))))
	}
	labelW := math.Min(14, float64(longest))*labelFont*0.62 + 10
	rotate := cell < labelW // predicted labels slanted when they do not fit under their column
	grid := cell * float64(k)
	left, top := 34+labelW, 12.0
	bottom := 34.0 + labelFont
	if rotate {
		bottom = 30 + labelW*0.75
	}
	barX := left + grid + 22
	w, h := barX+76, top+grid+bottom
	h = math.Max(h, 220)
	s := newSVG(math.Ceil(w), math.Ceil(h), "confusion matrix: true class by row, predicted class by column")
	countFont := math.Max(8, math.Min(14, cell*0.3))
	for t, row := range c.Counts {
		total := 0
		for _, v := range row {
			total += v
		}
		for p, v := range row {
			frac := 0.0
			if total > 0 {
				frac = float64(v) / float64(total)
			}
			x, y := left+float64(p)*cell, top+float64(t)*cell
			title := fmt.Sprintf("true %s, predicted %s: %d (%.1f%% of %d)", c.Labels[t], c.Labels[p], v, 100*frac, total)
			s.rect(x, y, cell, cell, blues(frac), "#ffffff", title)
			text := strconv.Itoa(v)
			if float64(len(text))*countFont*0.62 <= cell-3 && countFont <= cell-2 {
				fill := inkColour
				if frac > 0.55 {
					fill = "#ffffff"
				}
				s.text(x+cell/2, y+cell/2, text, textOpt{anchor: "middle", class: "count", fill: fill, bold: t == p, size: countFont})
			}
		}
	}
	if cell >= 8 {
		for i, l := range c.Labels {
			l = shorten(l, 14)
			cy := top + (float64(i)+0.5)*cell
			s.text(left-6, cy, l, textOpt{anchor: "end", class: "clabel", size: labelFont})
			cx := left + (float64(i)+0.5)*cell
			if rotate {
				s.text(cx, top+grid+8, l, textOpt{anchor: "end", class: "clabel", rotate: -45, size: labelFont})
			} else {
				s.text(cx, top+grid+10, l, textOpt{anchor: "middle", class: "clabel", size: labelFont})
			}
		}
	}
	s.text(12, top+grid/2, "true class", textOpt{anchor: "middle", class: "axis", rotate: -90})
	s.text(left+grid/2, h-12, "predicted class", textOpt{anchor: "middle", class: "axis"})
	// The colour bar: share of the true class's rows.
	const steps = 20
	barH := math.Min(grid, 200)
	for i := 0; i < steps; i++ {
		s.rect(barX, top+barH*float64(steps-1-i)/steps, 14, barH/steps+0.5, blues((float64(i)+0.5)/steps), "", "")
	}
	s.rect(barX, top, 14, barH, "none", frameColour, "")
	for _, v := range []float64{0, 0.5, 1} {
		s.text(barX+19, top+barH*(1-v), strconv.Itoa(int(100*v))+"%", textOpt{class: "tick"})
	}
	return s.close(), "", nil
}
