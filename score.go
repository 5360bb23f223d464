package rff

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/metrics"
)

// Score holds a model's scores on labelled data: Regression for regression and hermite models (overall and per
// output), Classification for classifiers.
type Score struct {
	Task           string                  `json:"task"`
	N              int                     `json:"n"`
	Regression     *metrics.Regression     `json:"regression,omitempty"`
	Classification *metrics.Classification `json:"classification,omitempty"`
}

// Score predicts data and scores the predictions against its targets: data.Y for scalar models (a hermite model's
// values f(x)), the target columns named in the model for vector-valued models (data then loaded without a target
// column). Input columns are matched by name as in Predict.
func (m *Model) Score(data *dataset.Data) (*Score, error) {
	if !m.ok() {
		return nil, errNoModel
	}
	h := m.file.Header
	var Y []float64
	var err error
	switch {
	case data == nil || data.N == 0:
		return nil, fmt.Errorf("no data rows")
	case data.Y != nil && len(data.Y) != data.N:
		return nil, fmt.Errorf("the data have %d targets for %d rows", len(data.Y), data.N)
	case h.OVK != "":
		if Y, err = m.targets(data); err != nil {
			return nil, err
		}
	case data.Y == nil:
		return nil, fmt.Errorf("the data have no target column (the model predicts %s)", m.targetName())
	}
	p, err := m.Predict(data)
	if err != nil {
		return nil, err
	}
	s := &Score{Task: h.Task, N: data.N}
	if h.Task == "classification" {
		truth, err := dataset.ClassesNamed(h.Labels).Code(data)
		if err != nil {
			return nil, err
		}
		c := metrics.ScoreClassification(p.Classes, truth, h.Labels)
		if h.Loss == "logistic" {
			v := metrics.LogLoss(p.Values, truth, p.Outputs)
			c.LogLoss = &v
			if probs, err := p.Probabilities(); err == nil {
				if cal, err := metrics.CalibrationOf(probs, truth, p.Outputs, metrics.CalibrationBins); err == nil {
					c.CalibrationError = &cal.Error
				}
			}
		}
		s.Classification = &c
		return s, nil
	}
	if Y == nil {
		if data.Labels != nil {
			return nil, fmt.Errorf("the target %q holds labels, not numbers", data.TargetName)
		}
		Y = data.Y
	}
	if !size.Is(len(Y), data.N, h.Outputs) {
		return nil, fmt.Errorf("the data have %d target values for %d rows of %d outputs", len(Y), data.N, h.Outputs)
	}
	if err := finiteRows(Y, data.N, 0, "target", "is not a number: a score needs every target"); err != nil {
		return nil, err
	}
	r := metrics.ScoreRegression(p.Values, Y, data.N, h.Outputs, h.Targets)
	s.Regression = &r
	return s, nil
}

func (m *Model) targetName() string {
	if len(m.file.Targets) == 1 {
		return m.file.Targets[0]
	}
	if len(m.file.Targets) > 1 {
		return strings.Join(m.file.Targets, ", ")
	}
	return "a target"
}

// TargetOption returns the dataset.Options.Target that loads a CSV file for this model when the user named none:
// the model's stored target column when the file's header has it (by its position when its name is also one of
// the keywords first, last and none), "none" when the header lacks it (a file of inputs only) or for vector-valued
// models (whose targets are ordinary named columns), and for a file without a header with one column more than the
// model's inputs the column the target had in the training file when that had no header either (else "last"),
// and "none" for other widths. Other formats keep their labels ("").
func (m *Model) TargetOption(path string, format dataset.Format) (string, error) {
	if !m.ok() {
		return "", errNoModel
	}
	if format == dataset.FormatAuto {
		var err error
		if format, err = dataset.DetectFormat(path); err != nil { // the name, or else the content, as Load reads it
			return "", err
		}
	}
	if format != dataset.FormatCSV {
		return "", nil
	}
	if m.file.OVK != "" {
		return "none", nil
	}
	names, cols, err := dataset.CSVHeader(path)
	if err != nil {
		return "", err
	}
	if names != nil {
		if t := m.targetName(); len(m.file.Targets) == 1 && slices.Contains(names, t) {
			switch strings.ToLower(strings.TrimSpace(t)) {
			case "", "first", "last", "none": // a column named as a keyword: by its position
				return strconv.Itoa(slices.Index(names, t) + 1), nil
			}
			return t, nil
		}
		if m.file.Task == "classification" && len(m.file.Targets) == 0 && cols == m.file.Dim+1 {
			for _, n := range names {
				if !slices.Contains(m.inputNames(), n) {
					return n, nil // the one column that is not an input
				}
			}
		}
		return "none", nil
	}
	if cols == m.file.Dim+1 {
		if c := m.file.TargetColumn; c > 0 {
			return strconv.Itoa(c), nil
		}
		return "last", nil
	}
	return "none", nil
}
