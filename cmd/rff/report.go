package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/atomicfile"
	"github.com/rffkit/rff/internal/report"
	"github.com/rffkit/rff/metrics"
)

// reportUsage is the help of rff fit --report.
const reportUsage = "write an HTML report to this file (one self-contained page, no network or script): the tuning scores, and with --test-data predicted vs true, residuals and interval calibration (--uncertainty), or the confusion matrix (and the probabilities' reliability diagram of a --loss logistic classifier); written with the model: both files are replaced together once everything succeeded, or neither is"

// checkReport refuses a --report path that is the model file or an input, or whose directory does not exist, as
// checkOutput does for --out, before any work.
func checkReport(path, out string, inputs ...string) error {
	if path == "" {
		return nil
	}
	if a, b := absPath(path), absPath(out); a != "" && a == b {
		return usagef("--report %s is also the --out model file; choose another path", path)
	}
	return checkOutputAs("--report", path, inputs...)
}

func absPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	return a
}

// fitPage is the report of one rff fit, collected and written with the model.
type fitPage struct {
	path string
	page *report.Page
}

// add stages the page in the batch of outputs b; a nil page (no --report) adds nothing.
func (fp *fitPage) add(b *atomicfile.Batch) error {
	if fp == nil {
		return nil
	}
	return b.Add(fp.path, func(w io.Writer) error { return report.Write(w, fp.page) })
}

// newFitPage collects what rff fit --report shows of the fitted model m: the configuration, timings and test scores
// of rep, the tuning scores, and the predictions of the test file (loaded again, as runFit scored it, when the
// panels need each row) with their predictive standard deviations. It returns nil when path is empty.
func newFitPage(path string, m *rff.Model, rep *fitReport, df dataFlags, testData, testLabels string, hermite bool) (*fitPage, error) {
	if path == "" {
		return nil, nil
	}
	info, fit := rep.Info, rep.Fit
	data := filepath.Base(df.path)
	p := &report.Page{
		Title:    "rff fit — " + data,
		Subtitle: m.String(),
		Footer:   "Written by rff fit --report: one file, no script, nothing loaded from elsewhere.",
	}
	p.Stats = append(p.Stats, report.Stat{Name: "training rows", Value: strconv.Itoa(fit.N)})
	p.Panels = append(p.Panels, tuningPanel(fit))
	var testTable *report.Table
	switch s := rep.Test; {
	case testData == "" || s == nil:
		p.Panels = append(p.Panels, report.Panel{Title: "Test data", Note: "No --test-data file was given: predicted against true values, residuals, interval calibration or the confusion matrix need held-out rows (rff fit … --test-data FILE)."})
	case s.Classification != nil:
		c := s.Classification
		p.Stats = append(p.Stats, report.Stat{Name: "test accuracy", Value: report.Number(c.Accuracy, 4)},
			report.Stat{Name: "test rows", Value: strconv.Itoa(s.N)}, report.Stat{Name: "classes", Value: strconv.Itoa(len(info.Labels))})
		p.Panels = append(p.Panels, confusionPanel(info.Labels, c.Confusion, s.N, c.Invalid))
		if c.LogLoss != nil { // a logistic classifier: its probabilities are judged too
			tf := df.testFile(testData, testLabels, hermite)
			panel, ece, err := reliabilityPanel(m, &tf)
			if err != nil {
				return nil, err
			}
			p.Panels = append(p.Panels, panel)
			p.Stats = append(p.Stats, report.Stat{Name: "test log loss", Value: report.Number(*c.LogLoss, 4)},
				report.Stat{Name: "calibration error", Value: report.Number(ece, 3)})
		}
		testTable = &report.Table{Title: "Test scores by class", Head: []string{"class", "rows", "correct", "recall"}}
		for _, k := range c.PerClass {
			testTable.Rows = append(testTable.Rows, []string{k.Label, strconv.Itoa(k.Total), strconv.Itoa(k.Correct), report.Number(float64(k.Correct)/float64(k.Total), 4)})
		}
	case s.Regression != nil:
		r := s.Regression
		p.Stats = append(p.Stats, report.Stat{Name: "test R²", Value: report.Number(r.R2, 4)}, report.Stat{Name: "test RMSE", Value: report.Number(r.RMSE, 4)},
			report.Stat{Name: "test MAE", Value: report.Number(r.MAE, 4)}, report.Stat{Name: "test rows", Value: strconv.Itoa(s.N)})
		tf := df.testFile(testData, testLabels, hermite) // the test file as runFit scores it
		panels, stats, err := regressionPanels(m, &tf)
		if err != nil {
			return nil, err
		}
		p.Panels = append(p.Panels, panels...)
		p.Stats = append(p.Stats, stats...)
		if stats == nil {
			note := "Interval calibration needs predictive standard deviations, which this model does not hold (rff fit --uncertainty keeps them)."
			if info.Exact || info.Task == "hermite" || info.Outputs > 1 {
				note = "Interval calibration needs predictive standard deviations, which rff fit --uncertainty keeps for scalar regression on features only (not exact, hermite or vector-valued models)."
			}
			p.Notes = append(p.Notes, note)
		}
		testTable = &report.Table{Title: "Test scores", Head: []string{"output", "RMSE", "MAE", "R²"}}
		testTable.Rows = append(testTable.Rows, []string{"all", report.Number(r.RMSE, 4), report.Number(r.MAE, 4), report.Number(r.R2, 4)})
		for _, o := range r.PerOutput {
			testTable.Rows = append(testTable.Rows, []string{o.Name, report.Number(o.RMSE, 4), report.Number(o.MAE, 4), report.Number(o.R2, 4)})
		}
	}
	if sv := fit.Solve; sv != nil && sv.Note != "" { // an iterative solver stopped short, or a fallback
		p.Notes = append(p.Notes, "Solver: "+sv.Note+".")
	}
	p.Tables = append(p.Tables, modelTable(info, fit), runTable(rep, df.path, testData))
	if testTable != nil {
		p.Tables = append(p.Tables, *testTable)
	}
	return &fitPage{path: path, page: p}, nil
}

// tuningPanel draws the scores of --tune (every σ against λ) or of --cv (λ alone), or says that nothing was tuned.
func tuningPanel(fit *rff.Report) report.Panel {
	if tr := fit.Tune; tr != nil {
		what := tr.Score
		caption := fmt.Sprintf("σ = %s and λ = %s (ringed) chosen by %s on %d rows", report.Number(tr.Sigma, 4), report.Number(tr.Lambda, 3), what, tr.Rows)
		if tr.Median > 0 {
			caption += fmt.Sprintf("; the median heuristic gave σ = %s", report.Number(tr.Median, 4))
		}
		if tr.Rows < fit.N {
			caption += fmt.Sprintf("; the model was then fitted on all %d rows", fit.N)
		}
		return report.Panel{Title: "Tuning: " + what + " over σ and λ", Caption: caption + ".", Figure: &report.Tuning{
			Sigmas: tr.Sigmas, Lambdas: tr.Lambdas, Scores: tr.Scores, ScoreName: what, HigherIsBetter: tr.HigherIsBetter,
			Sigma: tr.Sigma, Lambda: tr.Lambda,
		}}
	}
	if cv := fit.CV; cv != nil {
		sigma := fit.Sigma
		if sigma == 0 {
			sigma = math.NaN()
		}
		return report.Panel{Title: "λ by cross-validation", Figure: &report.Tuning{
			Sigmas: []float64{sigma}, Lambdas: cv.Lambdas, Scores: [][]float64{cv.MSE}, ScoreName: "CV MSE", Sigma: sigma, Lambda: cv.Best,
		}, Caption: fmt.Sprintf("Held-out mean squared error of %d-fold cross-validation; λ = %s (ringed) was chosen. σ was not tuned (rff fit --tune tunes both).", len(cv.FoldMSE), report.Number(cv.Best, 3))}
	}
	note := fmt.Sprintf("λ = %s was given, not tuned", report.Number(fit.Lambda, 3))
	if fit.Sigma > 0 {
		note = fmt.Sprintf("σ = %s and λ = %s were not tuned", report.Number(fit.Sigma, 4), report.Number(fit.Lambda, 3))
	}
	return report.Panel{Title: "Tuning", Note: note + ": rff fit --tune chooses σ and λ from the data (--cv K chooses λ) and draws their scores here."}
}

// confusionPanel draws a classifier's confusion matrix on the test rows.
func confusionPanel(labels []string, counts [][]int, n, invalid int) report.Panel {
	if len(labels) > report.MaxConfusionClasses {
		return report.Panel{Title: "Confusion matrix", Note: fmt.Sprintf("%d classes are too many to draw (at most %d); the counts per class are in the table below.", len(labels), report.MaxConfusionClasses)}
	}
	caption := fmt.Sprintf("Rows: true class, columns: predicted class, over %d test rows; a cell's shade is its share of the true class's rows, the diagonal holds the correct predictions.", n)
	if invalid > 0 {
		caption += fmt.Sprintf(" %d rows with a class the model does not know are left out.", invalid)
	}
	return report.Panel{Title: "Confusion matrix", Figure: &report.Confusion{Labels: labels, Counts: counts}, Caption: caption}
}

// reliabilityBins is the number of bins of the reliability diagram: those of the score's calibration error.
const reliabilityBins = metrics.CalibrationBins

// reliabilityPanel predicts the test file with a logistic classifier and draws the reliability diagram of its class
// probabilities; it returns the expected calibration error too.
func reliabilityPanel(m *rff.Model, tf *dataFlags) (report.Panel, float64, error) {
	data, err := loadFor(m, tf)
	if err != nil {
		return report.Panel{}, 0, err
	}
	pred, err := m.Predict(data)
	if err != nil {
		return report.Panel{}, 0, fmt.Errorf("%s: %w", tf.path, err)
	}
	probs, err := pred.Probabilities()
	if err != nil {
		return report.Panel{}, 0, fmt.Errorf("--report: %w", err)
	}
	truth, err := dataset.ClassesNamed(m.Info().Labels).Code(data)
	if err != nil {
		return report.Panel{}, 0, fmt.Errorf("%s: %w", tf.path, err)
	}
	r, ece, err := report.ReliabilityBins(probs, truth, pred.Outputs, reliabilityBins)
	if err != nil {
		return report.Panel{}, 0, err
	}
	return report.Panel{Title: "Probability calibration", Figure: r, Caption: fmt.Sprintf("The %d test rows binned by the probability the model gives its predicted class (%d bins of [0, 1]); per bin (a disc whose area is proportional to its rows) the share predicted correctly against the bin's mean probability. A calibrated model follows the diagonal; the expected calibration error Σ (rows in bin/rows)·|share − probability| is %s.", data.N, reliabilityBins, report.Number(ece, 3))}, ece, nil
}

// regressionPanels predicts the test file and draws predicted against true values and the residuals, and, for a
// model with uncertainty, the interval calibration (with its headline number, the coverage of the 90% intervals).
func regressionPanels(m *rff.Model, tf *dataFlags) ([]report.Panel, []report.Stat, error) {
	data, err := loadFor(m, tf)
	if err != nil {
		return nil, nil, err
	}
	pred, err := m.Predict(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", tf.path, err)
	}
	info := m.Info()
	P := pred.Outputs
	truth := data.Y
	if info.OVK != "" { // the targets are named columns of the file
		truth = make([]float64, data.N*P)
		for a, name := range info.Targets {
			c := slices.Index(data.Names, name)
			if c < 0 {
				return nil, nil, fmt.Errorf("%s: no target column %q", tf.path, name)
			}
			for i := range data.N {
				truth[i*P+a] = data.X[i*data.D+c]
			}
		}
	}
	names := info.Targets
	if len(names) != P {
		names = nil
	}
	d := &report.Predictions{Names: names, N: data.N, P: P, Pred: pred.Values, Truth: truth}
	rows := fmt.Sprintf("%d test rows", data.N)
	panels := []report.Panel{
		{Title: "Predicted vs true", Figure: d.Parity(), Caption: rows + ": the closer to the dashed line, the better."},
		{Title: "Residuals", Figure: d.Residuals(), Caption: rows + ": true − predicted, which should scatter evenly about the dashed zero line; a trend or a funnel shows what the model misses."},
	}
	X, err := m.Inputs(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", tf.path, err)
	}
	std, err := m.PredictStd(X, data.N, true)
	if errors.Is(err, rff.ErrNoUncertainty) {
		return panels, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("--report: %w", err)
	}
	inside, err := report.Coverage(pred.Values, truth, std, data.N, P, report.CalibrationLevels)
	if err != nil {
		return nil, nil, err
	}
	panels = append(panels, report.Panel{Title: "Interval calibration", Figure: &report.Calibration{Names: names, Levels: report.CalibrationLevels, Inside: inside},
		Caption: fmt.Sprintf("The share of the %d test targets inside the central p-interval of N(prediction, std²), observation noise included, for p = 0.1 … 0.99; a calibrated model follows the diagonal.", data.N)})
	k := slices.Index(report.CalibrationLevels, 0.9)
	var stats []report.Stat
	if P == 1 && k >= 0 {
		stats = append(stats, report.Stat{Name: "inside 90% intervals", Value: report.Number(100*inside[0][k], 3) + "%"})
	}
	return panels, stats, nil
}

// modelTable lists the model's configuration.
func modelTable(in rff.Info, fit *rff.Report) report.Table {
	t := report.Table{Title: "Model"}
	add := func(k, v string) {
		if v != "" {
			t.Rows = append(t.Rows, []string{k, v})
		}
	}
	add("task", in.Task)
	add("kernel", in.Kernel)
	if in.Sigma > 0 {
		add("σ (bandwidth)", report.Number(in.Sigma, 6))
	}
	add("operator-valued kernel", in.OVK)
	if in.Exact {
		add("map", "exact kernel ridge regression")
	} else {
		add("rule", in.Rule)
		if in.Points > 0 {
			add("D (points)", strconv.Itoa(in.Points))
			f := strconv.Itoa(in.Features)
			if in.Form != "" {
				f += " (" + in.Form + ")"
			}
			add("features", f)
		}
	}
	add("λ (ridge penalty)", report.Number(in.Lambda, 6))
	add("loss", in.Loss)
	add("encoding", in.Encoding)
	pre := "none"
	if len(in.Preprocess) > 0 {
		pre = strings.Join(in.Preprocess, ", ")
	}
	add("preprocessing", pre)
	add("inputs", listNames(in.Inputs))
	add("targets", listNames(in.Targets))
	add("classes", listNames(in.Labels))
	add("outputs", strconv.Itoa(in.Outputs))
	add("seed", strconv.FormatUint(in.Seed, 10))
	if s := fit.Solve; s != nil {
		v := s.Method
		if s.Iterations > 0 {
			unit := "iterations"
			if s.Method == "dual-cd" {
				unit = "epochs"
			}
			v += fmt.Sprintf(", %d %s", s.Iterations, unit)
		}
		if s.Residual > 0 {
			// what each method's residual measures (learn.SolveStats)
			what := "relative residual"
			switch s.Method {
			case "lbfgs":
				if in.Task == "classification" {
					what = "largest gradient entry"
				}
			case "dual-cd":
				what = "projected-gradient gap"
			}
			v += ", " + what + " " + report.Number(s.Residual, 2)
		}
		add("solver", v)
	}
	return t
}

// listNames joins names, eliding the middle of long lists.
func listNames(names []string) string {
	if len(names) > 12 {
		return strings.Join(names[:5], ", ") + ", …, " + strings.Join(names[len(names)-3:], ", ") + fmt.Sprintf(" (%d)", len(names))
	}
	return strings.Join(names, ", ")
}

// runTable lists the files, rows and timings of the run.
func runTable(rep *fitReport, data, test string) report.Table {
	t := report.Table{Title: "Data and timings"}
	t.Rows = append(t.Rows, []string{"training data", data}, []string{"training rows", strconv.Itoa(rep.Fit.N)})
	if tr := rep.Fit.Tune; tr != nil {
		t.Rows = append(t.Rows, []string{"tuned on", fmt.Sprintf("%d rows, %d σ × %d λ", tr.Rows, len(tr.Sigmas), len(tr.Lambdas))})
	}
	if test != "" && rep.Test != nil {
		t.Rows = append(t.Rows, []string{"test data", test}, []string{"test rows", strconv.Itoa(rep.Test.N)})
	}
	for _, k := range []string{"load", "fit", "test"} {
		if v, ok := rep.Seconds[k]; ok {
			t.Rows = append(t.Rows, []string{k, seconds(v)})
		}
	}
	phases := make([]string, 0, len(rep.Fit.Phases))
	for k := range rep.Fit.Phases {
		phases = append(phases, k)
	}
	slices.Sort(phases)
	for _, k := range phases {
		t.Rows = append(t.Rows, []string{"fit phase: " + k, seconds(rep.Fit.Phases[k])})
	}
	return t
}

// seconds formats a duration in seconds, or milliseconds below one second.
func seconds(v float64) string {
	if v < 1 {
		return report.Number(1000*v, 3) + " ms"
	}
	return report.Number(v, 3) + " s"
}
