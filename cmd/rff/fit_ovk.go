package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/model"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
	"github.com/rffkit/rff/vector"
)

// splitTargets moves the columns named (or 1-based indexed) in spec out of the inputs of data and returns them as
// the n×p target matrix with their names. The data must have been loaded with --target none.
func splitTargets(data *dataset.Data, spec string) (Y []float64, names []string, err error) {
	var cols []int
	seen := map[int]bool{}
	for _, f := range strings.Split(spec, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		c := -1
		for j, n := range data.Names {
			if n == f {
				c = j
			}
		}
		if c < 0 {
			if v, e := strconv.Atoi(f); e == nil && v >= 1 && v <= data.D {
				c = v - 1
			}
		}
		if c < 0 {
			return nil, nil, usagef("--targets: no column %q (columns: %s)", f, strings.Join(data.Names, ", "))
		}
		if seen[c] {
			return nil, nil, usagef("--targets: column %q given twice", f)
		}
		seen[c] = true
		cols = append(cols, c)
	}
	if len(cols) == 0 {
		return nil, nil, usagef("--targets: no column given")
	}
	if len(cols) >= data.D {
		return nil, nil, usagef("--targets takes every column; no inputs are left")
	}
	p, d := len(cols), data.D-len(cols)
	Y = make([]float64, data.N*p)
	X := make([]float64, 0, data.N*d)
	for i := 0; i < data.N; i++ {
		row := data.X[i*data.D : (i+1)*data.D]
		for k, c := range cols {
			Y[i*p+k] = row[c]
		}
		for j, v := range row {
			if !seen[j] {
				X = append(X, v)
			}
		}
	}
	var inNames []string
	for j, n := range data.Names {
		if !seen[j] {
			inNames = append(inNames, n)
		}
	}
	for _, c := range cols {
		names = append(names, data.Names[c])
	}
	data.X, data.D, data.Names, data.Y = X, d, inNames, nil
	return Y, names, nil
}

// outputMatrix returns the decomposable kernel's A: the identity, the covariance of the training targets, or a p×p
// matrix read from a CSV file.
func outputMatrix(spec string, Y []float64, n, p int) (*mat.SymDense, error) {
	switch spec {
	case "", "identity":
		return eye(p), nil
	case "covariance":
		return ovk.OutputCovariance(Y, n, p)
	}
	a, err := readColumns(spec, p, p, "--A")
	if err != nil {
		return nil, err
	}
	for i := range p {
		for j := range p {
			if math.IsNaN(a[i*p+j]) || a[i*p+j] != a[j*p+i] {
				return nil, usagef("--A %s: the matrix must be symmetric with no missing entry (row %d, column %d)", spec, i+1, j+1)
			}
		}
	}
	return mat.NewSymDense(p, a), nil
}

// ovkFit holds what runFit hands to fitOVK.
type ovkFit struct {
	kind, aSpec, targets string
	exact                bool
	lambda               float64
	solver               string
}

// fitOVK fits a vector-valued model with an operator-valued kernel (ORFF features of rule r, or exact with
// --exact) on the preprocessed inputs of data and the targets Y (n×p, named names), and fills the model m, its header
// and the report.
func fitOVK(o ovkFit, data *dataset.Data, Y []float64, names []string, hdr *model.Header, m *model.Model, rep *fitReport,
	points int, seed uint64, r rule.Rule) error {
	n, d, p := data.N, data.D, len(names)
	sigma := hdr.Sigma
	var A *mat.SymDense
	var err error
	if strings.HasPrefix(o.kind, "dec") {
		if A, err = outputMatrix(o.aSpec, Y, n, p); err != nil {
			return err
		}
	} else if o.aSpec != "" {
		return usagef("--A applies to --ovk decomposable only")
	}
	k, err := ovk.Parse(o.kind, sigma, A)
	if err != nil {
		return usageError{err.Error()}
	}
	if q, err := k.Outputs(d); err != nil {
		return usageError{err.Error()}
	} else if q != p {
		return usagef("--ovk %s on %d inputs has %d outputs, but --targets names %d columns", o.kind, d, q, p)
	}
	hdr.Outputs, hdr.Targets, hdr.OVK, hdr.Kernel = p, names, o.kind, "gaussian"
	if A != nil {
		hdr.A = append([]float64(nil), A.RawSymmetric().Data...)
	}
	if o.exact {
		fit, err := vector.KRR{Kernel: k, Lambda: o.lambda, Intercept: true}.Fit(data.X, n, d, Y)
		if err != nil {
			return err
		}
		m.TrainX, m.Alpha, m.Bias = fit.X, fit.Alpha, fit.Bias
		rep.FitPhases["gram+solve"] = fit.Stats.Seconds
		return nil
	}
	fm, err := ovk.New(k, r, d, points, seed)
	if err != nil {
		return err
	}
	solver, err := vector.ParseSolver(o.solver)
	if err != nil {
		return usageError{"--solver: " + err.Error()}
	}
	fit, err := vector.Ridge{Lambda: o.lambda, Intercept: true, Solver: solver}.Fit(fm, data.X, n, Y)
	if err != nil {
		return err
	}
	rep.FitPhases[fit.Stats.Method] = fit.Stats.Seconds
	hdr.Rule, hdr.Points, hdr.Features = r.Name(), fm.Points(), fm.Features()
	rep.Rule, rep.Points, rep.Features = r.Name(), fm.Points(), fm.Features()
	m.Theta, m.Bias = fit.Theta, fit.Bias
	m.Probe = make([]float64, p*fm.Features())
	fm.TransformBlock(m.Probe, model.ProbeInput(d), 1, nil)
	return nil
}

// newOVKPredictor rebuilds an ORFF or exact operator-valued model for prediction.
func newOVKPredictor(m *model.Model) (*predictor, error) {
	var A mat.Symmetric
	if m.A != nil {
		A = mat.NewSymDense(m.Outputs, append([]float64(nil), m.A...))
	}
	k, err := ovk.Parse(m.OVK, m.Sigma, A)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if m.Exact {
		n := len(m.TrainX) / m.Dim
		return &predictor{m: m, ovkExact: &vector.KRRFit{Kernel: k, X: m.TrainX, N: n, Dim: m.Dim, P: m.Outputs,
			Alpha: m.Alpha, Bias: m.Bias, Lambda: m.Lambda, Intercept: m.Intercept}}, nil
	}
	r, err := rule.Parse(m.Rule)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	fm, err := ovk.New(k, r, m.Dim, m.Points, m.Seed)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if fm.Features() != m.Features {
		return nil, fmt.Errorf("model: the ORFF map has %d features, the model %d; refit it", fm.Features(), m.Features)
	}
	probe := make([]float64, m.Outputs*fm.Features())
	fm.TransformBlock(probe, model.ProbeInput(m.Dim), 1, nil)
	for i := range probe {
		if probe[i] != m.Probe[i] {
			return nil, fmt.Errorf("model: this rff draws different %s points for seed %d than the one that wrote the model; refit it", m.Rule, m.Seed)
		}
	}
	fit := &vector.Fit{F: m.Features, P: m.Outputs, Rank: fm.Rank(), Theta: m.Theta, Bias: m.Bias, Intercept: m.Intercept}
	return &predictor{m: m, ovkMap: fm, ovkFit: fit}, nil
}
