package study

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/rffkit/rff/internal/plotting"
)

// The learning experiments of Brault, Heinonen & d'Alché-Buc, "Random Fourier features for operator-valued kernels"
// (ACML 2016, §5.2; docs/conventions.md §4, §5, §8.1, §9): Figure 2 ([ORFFFig2]: MNIST, decomposable kernel with
// simplex coding: fit time vs N and test error vs D, ORFF against the exact OVK), Figure 3 ([ORFFFig3]: the 5-D
// curl-free field: test R² vs D of curl-free ORFF, curl-free OVK, independent RFF and independent KRR, and fit time
// vs N), and the R²⁰ → R⁴ multi-task experiment of the supplement ([ORFFMultitask]: decomposable ORFF with A = the
// output covariance against A = I). Their rows are [LearnRow]s, with the mean and 95% interval over Runs.

// LearnRow is one point of the ORFF learning studies: a metric of one model at N training rows and D points, over
// the runs. A point that could not be measured has Runs = 0 and a Note (for instance an exact model refused by its
// memory guard).
type LearnRow struct {
	// Panel names the figure the row belongs to ("time", "error", "r2", "rmse", "gain").
	Panel string `json:"panel"`
	Model string `json:"model"`
	// N is the number of training rows, D the number of points of the ORFF/RFF map (0 for exact models).
	N int `json:"train_rows"`
	D int `json:"points"`
	// Metric is "seconds" (wall time of one fit), "test error" (fraction misclassified), "R²" or "RMSE".
	Metric string `json:"metric"`
	Stat
	// Lambda is the λ of the fits (the geometric mean over the runs when λ is selected per run).
	Lambda float64 `json:"lambda,omitempty"`
	// Asymmetry is, for vector fields, the largest relative asymmetry ‖J − Jᵀ‖_F/‖J‖_F of the fitted model's
	// Jacobian over the checked test points (mean over the runs); 0 (omitted) when not measured.
	Asymmetry float64 `json:"jacobian_asymmetry,omitempty"`
	// Note says why a point is missing or how it was obtained.
	Note string `json:"note,omitempty"`
}

// learnTable is the table of the learning studies: one line per row (with the Jacobian asymmetry when withAsym
// is set), followed by the notes of the rows that have one.
func learnTable(withAsym bool) table[LearnRow] {
	t := table[LearnRow]{
		columns: "panel\tmodel\tN\tD\tmetric\tmean\t±95%\truns\tλ",
		format:  "%s\t%s\t%d\t%d\t%s\t%.4g\t%.2g\t%d\t%.3g",
		row: func(r LearnRow) []any {
			v := []any{r.Panel, r.Model, r.N, r.D, r.Metric, r.Mean, r.CI95[1] - r.Mean, r.Runs, r.Lambda}
			if withAsym {
				v = append(v, r.Asymmetry)
			}
			return v
		},
		notes: func(w io.Writer, rows []LearnRow) {
			for _, r := range rows {
				if r.Note != "" {
					fmt.Fprintf(w, "note (%s, %s, N=%d): %s\n", r.Panel, r.Model, r.N, r.Note)
				}
			}
		},
	}
	if withAsym {
		t.columns += "\tJacobian asymmetry"
		t.format += "\t%.2g"
	}
	return t
}

// Asymmetry returns ‖J − Jᵀ‖_F / ‖J‖_F for the p×p matrix J (row-major), 0 for J = 0. The Jacobian of a curl-free
// (gradient) field is symmetric, so its asymmetry is 0 up to rounding.
func Asymmetry(J []float64, p int) float64 {
	var num, den float64
	for a := 0; a < p; a++ {
		for b := 0; b < p; b++ {
			u := J[a*p+b] - J[b*p+a]
			num += u * u
			den += J[a*p+b] * J[a*p+b]
		}
	}
	if den == 0 {
		return 0
	}
	return math.Sqrt(num / den)
}

// predictor writes the n×p predictions of the n rows of X into dst.
type predictor func(dst, X []float64, n int) error

// fdAsymmetry returns the largest Asymmetry of the central finite-difference Jacobian (step h) of predict over the
// rows of X (n×d; p = d outputs).
func fdAsymmetry(predict predictor, X []float64, n, d int, h float64) (float64, error) {
	pts := make([]float64, n*2*d*d)
	for i := 0; i < n; i++ {
		for b := 0; b < d; b++ {
			for s := 0; s < 2; s++ {
				row := pts[((i*d+b)*2+s)*d:][:d]
				copy(row, X[i*d:(i+1)*d])
				row[b] += h * float64(1-2*s)
			}
		}
	}
	out := make([]float64, n*2*d*d)
	if err := predict(out, pts, n*2*d); err != nil {
		return 0, err
	}
	J := make([]float64, d*d)
	var worst float64
	for i := 0; i < n; i++ {
		for b := 0; b < d; b++ {
			plus, minus := out[((i*d+b)*2)*d:][:d], out[((i*d+b)*2+1)*d:][:d]
			for a := 0; a < d; a++ {
				J[a*d+b] = (plus[a] - minus[a]) / (2 * h)
			}
		}
		worst = max(worst, Asymmetry(J, d))
	}
	return worst, nil
}

// timed runs f and returns its wall time in seconds.
func timed(f func() error) (float64, error) {
	t := time.Now()
	err := f()
	return time.Since(t).Seconds(), err
}

// subsetRows draws n of the total rows without replacement (all of them, in order, when n ≥ total) and gathers the
// inputs (width d), the targets (width p; nil Y gives nil) and the labels (nil gives nil).
func subsetRows(rng *rand.Rand, total, n int, X []float64, d int, Y []float64, p int, labels []int) ([]float64, []float64, []int) {
	if n >= total {
		var y []float64
		if Y != nil {
			y = Y[:total*p]
		}
		return X[:total*d], y, slices.Clone(labels)
	}
	idx := rng.Perm(total)[:n]
	x := make([]float64, 0, n*d)
	var y []float64
	var l []int
	for _, i := range idx {
		x = append(x, X[i*d:(i+1)*d]...)
		if Y != nil {
			y = append(y, Y[i*p:(i+1)*p]...)
		}
		if labels != nil {
			l = append(l, labels[i])
		}
	}
	return x, y, l
}

// geoMean returns the geometric mean of positive values.
func geoMean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}

// guardRefusal returns the memory guard's error when a fit needing need bytes is above limit: the caller runs fit
// (which refuses at once) to report the library's own message. It returns "" when the fit would be allowed.
func guardRefusal(need, limit float64, fit func() error) string {
	if need <= limit {
		return ""
	}
	if err := fit(); err != nil {
		return "refused by the memory guard: " + err.Error()
	}
	return ""
}

// skippedOrRefused is the note of an exact fit of the time panel that was not timed: the memory guard's refusal
// when the rows×rows system (8 bytes an entry) exceeds limit, otherwise that the study skipped it, with why.
func skippedOrRefused(rows int, limit float64, fit func() error, why string) string {
	need := 8 * float64(rows) * float64(rows)
	if note := guardRefusal(need, limit, fit); note != "" {
		return note
	}
	return fmt.Sprintf("skipped: %s (%s would fit in memory)", why, gib(need))
}

func gib(b float64) string { return fmt.Sprintf("%.2f GiB", b/(1<<30)) }

// learnSeries collects the measured rows of one model of one panel as a plotting series (x from X, y from the mean
// times scale, 95% interval).
func learnSeries(name, panel, model string, rows []LearnRow, x func(LearnRow) float64, scale float64) plotting.Series {
	se := plotting.Series{Name: name}
	for _, r := range rows {
		if r.Panel != panel || r.Model != model || r.Runs == 0 {
			continue
		}
		se.X, se.Y = append(se.X, x(r)), append(se.Y, r.Mean*scale)
		se.Lo, se.Hi = append(se.Lo, r.CI95[0]*scale), append(se.Hi, r.CI95[1]*scale)
	}
	return se
}

// byN and byD are the abscissae of the panels against N and D.
func byN(r LearnRow) float64 { return float64(r.N) }

func byD(r LearnRow) float64 { return float64(r.D) }

// hline is a horizontal series at the row's mean (with its interval) from x0 to x1: an exact model drawn against D.
func hline(name string, r LearnRow, x0, x1, scale float64) plotting.Series {
	m, lo, hi := r.Mean*scale, r.CI95[0]*scale, r.CI95[1]*scale
	return plotting.Series{Name: name, X: []float64{x0, x1}, Y: []float64{m, m}, Lo: []float64{lo, lo},
		Hi: []float64{hi, hi}}
}

// measuredTimes returns N and the mean seconds of the measured rows of one model of the time panel.
func measuredTimes(rows []LearnRow, model string) (x, y []float64) {
	for _, r := range rows {
		if r.Panel == "time" && r.Model == model && r.Runs > 0 {
			x, y = append(x, float64(r.N)), append(y, r.Mean)
		}
	}
	return x, y
}

// timeFit fits log seconds against log N for the measured rows of one model of the time panel.
func timeFit(rows []LearnRow, model string, theory float64) (SeriesFit, bool, error) {
	x, y := measuredTimes(rows, model)
	if len(x) < 2 {
		return SeriesFit{}, false, nil
	}
	f, err := rateFit(model, "log mean fit seconds = a + b·log N", x, y, theory, 0)
	return f, err == nil, err
}

// affineR2 fits seconds = a + b·N to the measured rows of one model of the time panel and returns R² of that fit.
func affineR2(rows []LearnRow, model string) float64 {
	f, err := FitLine(measuredTimes(rows, model))
	if err != nil {
		return math.NaN()
	}
	return f.R2
}

// notedNs lists the N of the rows of one model of the time panel that carry a note starting with prefix.
func notedNs(rows []LearnRow, model, prefix string) []int {
	var ns []int
	for _, r := range rows {
		if r.Panel == "time" && r.Model == model && r.Runs == 0 && strings.HasPrefix(r.Note, prefix) {
			ns = append(ns, r.N)
		}
	}
	return ns
}

// rowsOf returns the rows of one panel and model, the measured ones only when measured is set.
func rowsOf(rows []LearnRow, panel, model string, measured bool) []LearnRow {
	var out []LearnRow
	for _, r := range rows {
		if r.Panel == panel && r.Model == model && (!measured || r.Runs > 0) {
			out = append(out, r)
		}
	}
	return out
}

func findRow(rows []LearnRow, keep func(LearnRow) bool) (LearnRow, bool) {
	for _, r := range rows {
		if keep(r) {
			return r, true
		}
	}
	return LearnRow{}, false
}

func intsText(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
