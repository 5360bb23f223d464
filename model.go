package rff

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/finite"
	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/model"
	"github.com/rffkit/rff/nystrom"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
	"github.com/rffkit/rff/vector"
)

// Model is a fitted model: the preprocessing of the inputs, the feature map (or the training rows of an exact
// model), the learned weights, and the names of the inputs, targets and classes. It predicts, describes itself and
// saves; it is immutable and safe for concurrent use. A model fitted in memory and the same model saved and loaded
// predict the same bits.
type Model struct {
	file   *model.Model // configuration and arrays, as stored
	scaler *dataset.Scaler

	fmap *feature.Map // scalar feature models
	nmap *nystrom.Map // scalar Nyström models
	fit  *learn.Fit
	krr  *learn.KRRFit // exact scalar models

	post *learn.Posterior // regression fitted with uncertainty

	omap *ovk.Map // vector-valued feature models
	ofit *vector.Fit
	okrr *vector.KRRFit // exact vector-valued models

	densePoints bool // the random-feature map projects by a matrix of points (set by checkProbe)

	report *Report // how the model was fitted (nil for a loaded model)
}

// Info describes a model.
type Info struct {
	Task      string  `json:"task"`
	Kernel    string  `json:"kernel"`
	Sigma     float64 `json:"sigma,omitempty"`
	OVK       string  `json:"ovk,omitempty"`
	Exact     bool    `json:"exact,omitempty"`
	Rule      string  `json:"rule,omitempty"`
	Points    int     `json:"points,omitempty"`   // D, the number of points drawn
	Features  int     `json:"features,omitempty"` // F, the length of a feature vector
	Form      string  `json:"form,omitempty"`
	Map       string  `json:"map,omitempty"`       // "nystrom" for a Nyström map (Rule and PointsKind "nystrom")
	Centres   int     `json:"centres,omitempty"`   // M, the landmarks of a Nyström map (Points is M too; Features M')
	Landmarks string  `json:"landmarks,omitempty"` // how they were chosen
	// NystromBasis is the basis of a Nyström map's features: "cholesky" or "eigen".
	NystromBasis string   `json:"nystrom_basis,omitempty"`
	Lambda       float64  `json:"lambda"`
	Loss         string   `json:"loss,omitempty"`
	Encoding     string   `json:"encoding,omitempty"`
	Inputs       []string `json:"inputs"`            // input column names, in the model's order
	Targets      []string `json:"targets,omitempty"` // target names (regression)
	Labels       []string `json:"labels,omitempty"`  // class names (classification)
	Outputs      int      `json:"outputs"`
	Preprocess   []string `json:"preprocess,omitempty"`
	Seed         uint64   `json:"seed"`
	Version      int      `json:"format_version,omitempty"` // the model file version it was read from
	// Components and ExplainedVariance describe a PCA step: the K inputs the map sees and the share of the variance
	// of the step's input they keep.
	Components        int     `json:"components,omitempty"`
	ExplainedVariance float64 `json:"explained_variance,omitempty"`
	// Uncertainty says the model holds a posterior: PredictStd and Sample work (regression fitted with
	// Config.Uncertainty).
	Uncertainty bool `json:"uncertainty,omitempty"`
}

// errNoModel is returned by the methods of a nil or zero Model (not from Fit, FitCSV, Load or Read).
var errNoModel = errors.New("rff: no model (a nil or zero Model; get one from Fit, FitCSV, Load or Read)")

// ok reports whether m is a model from Fit, FitCSV, Load or Read, not nil or a zero Model.
func (m *Model) ok() bool { return m != nil && m.file != nil }

// Info describes m (the zero Info for a nil or zero Model). Its slices are copies: changing them leaves m as it is.
func (m *Model) Info() Info {
	if !m.ok() {
		return Info{}
	}
	h := m.file.Header
	in := Info{Task: h.Task, Kernel: h.Kernel, Sigma: h.Sigma, OVK: h.OVK, Exact: h.Exact, Rule: h.Rule,
		Points: h.Points, Features: h.Features, Form: h.Form, Lambda: h.Lambda, Loss: h.Loss, Encoding: h.Encoding,
		Inputs: slices.Clone(m.inputNames()), Targets: slices.Clone(h.Targets), Labels: slices.Clone(h.Labels),
		Outputs: h.Outputs, Seed: h.Seed,
		Version: m.file.Version, Uncertainty: m.post != nil}
	if h.PointsKind == model.NystromKind {
		in.Map, in.Centres, in.Landmarks, in.NystromBasis = "nystrom", h.Points, h.Landmarks, orDefault(h.Basis, "eigen")
	}
	if m.scaler != nil {
		for _, st := range m.scaler.Steps {
			in.Preprocess = append(in.Preprocess, string(st))
		}
		if m.scaler.HasPCA() {
			in.Components, in.ExplainedVariance = m.scaler.OutDim(), m.scaler.ExplainedVariance()
		}
	}
	return in
}

// String is a one-line summary: task, kernel, σ, map, λ and preprocessing.
func (m *Model) String() string {
	if !m.ok() {
		return "rff: no model"
	}
	in := m.Info()
	what := fmt.Sprintf("%s features (D = %d points, %d columns)", in.Rule, in.Points, in.Features)
	if in.Exact {
		what = "exact kernel ridge regression"
	}
	if in.Map == "nystrom" {
		what = fmt.Sprintf("Nyström features (M = %d %s landmarks, rank %d, %s basis)", in.Centres, in.Landmarks, in.Features, in.NystromBasis)
	}
	if in.OVK != "" {
		what = in.OVK + " operator-valued kernel, " + what
	}
	s := fmt.Sprintf("%s: kernel %s", in.Task, in.Kernel)
	if in.Sigma > 0 {
		s += fmt.Sprintf(" (σ = %.4g)", in.Sigma)
	}
	s += fmt.Sprintf(", %s, λ = %.3g", what, in.Lambda)
	if in.Loss != "" && in.Loss != "squared" {
		s += ", loss " + in.Loss
	}
	pre := "none"
	if len(in.Preprocess) > 0 {
		pre = fmt.Sprint(in.Preprocess)
		if in.Components > 0 {
			pre += fmt.Sprintf(" (%d components, %.1f%% of the variance)", in.Components, 100*in.ExplainedVariance)
		}
	}
	return s + ", preprocessing " + pre
}

func (m *Model) inputNames() []string {
	if m.file.Names != nil {
		return m.file.Names
	}
	names := make([]string, m.file.Dim)
	for j := range names {
		names[j] = fmt.Sprintf("x%d", j+1)
	}
	return names
}

// fromFile builds the predictor of a model file: it rebuilds the map from the explicit parameters (version 2) or
// redraws it from the seed (version 1, within the memory budget: see checkRedraw), and checks it against the stored
// probe features.
func fromFile(f *model.Model, budget int64) (*Model, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	h := f.Header
	m := &Model{file: f, scaler: h.Preprocess}
	if h.OVK != "" && h.PointsKind != model.NystromKind {
		return m, m.buildOVK(budget)
	}
	k, err := kernel.New(h.Kernel, h.Sigma)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if h.Exact {
		m.krr = &learn.KRRFit{Kernel: k, X: f.TrainX, N: len(f.TrainX) / h.MapDim(), Dim: h.MapDim(), P: h.Outputs,
			Alpha: f.Alpha, Bias: f.Bias, Lambda: h.Lambda, Intercept: h.Intercept}
		return m, nil
	}
	if h.PointsKind == model.NystromKind {
		return m, m.buildNystrom(k)
	}
	form := feature.CosSin
	if h.Form == "cosphase" {
		form = feature.CosPhase
	}
	if f.Version == 1 {
		r, err := rule.Parse(h.Rule)
		if err != nil {
			return nil, fmt.Errorf("model: %w", err)
		}
		if err := checkRedraw(&h, r, k, nil, budget); err != nil {
			return nil, err
		}
		if m.fmap, err = feature.New(k, r, h.MapDim(), h.Points, h.Seed, feature.WithForm(form)); err != nil {
			return nil, fmt.Errorf("model: %w", err)
		}
	} else {
		p := feature.Params{Rule: h.Rule, Form: form, Points: storedPoints(f), Scale: f.Scale, Phase: f.Phase}
		if m.fmap, err = feature.FromParams(k, p); err != nil {
			return nil, fmt.Errorf("model: %w", err)
		}
	}
	if m.fmap.Features() != h.Features {
		return nil, fmt.Errorf("model: the map has %d features, the file says %d", m.fmap.Features(), h.Features)
	}
	probe := make([]float64, h.Features)
	m.fmap.TransformBlock(probe, model.ProbeInput(h.MapDim()), 1, nil)
	if err := m.checkProbe(probe, 1); err != nil {
		return nil, err
	}
	m.setFit()
	return m, nil
}

func (m *Model) buildOVK(budget int64) error {
	f, h := m.file, m.file.Header
	var A mat.Symmetric
	if h.A != nil {
		A = mat.NewSymDense(h.Outputs, append([]float64(nil), h.A...))
	}
	k, err := ovk.Parse(h.OVK, h.Sigma, A)
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if p, err := k.Outputs(h.MapDim()); err != nil || p != h.Outputs {
		return fmt.Errorf("model: the %s kernel on %d inputs does not have the file's %d outputs", h.OVK, h.MapDim(), h.Outputs)
	}
	if h.Exact {
		m.okrr = &vector.KRRFit{Kernel: k, X: f.TrainX, N: len(f.TrainX) / h.MapDim(), Dim: h.MapDim(), P: h.Outputs,
			Alpha: f.Alpha, Bias: f.Bias, Lambda: h.Lambda, Intercept: h.Intercept}
		return nil
	}
	if f.Version == 1 {
		r, err := rule.Parse(h.Rule)
		if err != nil {
			return fmt.Errorf("model: %w", err)
		}
		if err := checkRedraw(&h, r, nil, k, budget); err != nil {
			return err
		}
		if m.omap, err = ovk.New(k, r, h.MapDim(), h.Points, h.Seed); err != nil {
			return fmt.Errorf("model: %w", err)
		}
	} else {
		p := ovk.Params{Rule: h.Rule, Rank: h.Rank, Points: storedPoints(f), Scale: f.Scale, B: f.B}
		if m.omap, err = ovk.FromParams(k, p); err != nil {
			return fmt.Errorf("model: %w", err)
		}
	}
	if m.omap.Features() != h.Features {
		return fmt.Errorf("model: the ORFF map has %d features, the file says %d", m.omap.Features(), h.Features)
	}
	probe := make([]float64, h.Outputs*h.Features)
	m.omap.TransformBlock(probe, model.ProbeInput(h.MapDim()), 1, nil)
	var bmax float64
	for _, b := range m.omap.Params().B {
		bmax = math.Max(bmax, math.Abs(b))
	}
	if err := m.checkProbe(probe, bmax); err != nil {
		return err
	}
	m.ofit = &vector.Fit{F: h.Features, P: h.Outputs, Rank: m.omap.Rank(), Theta: f.Theta, Bias: f.Bias,
		Lambda: h.Lambda, Intercept: h.Intercept}
	return nil
}

// structuredNormBounds returns bounds on ‖ω_j‖ (before the per-point scales) of stored structured points, from their
// parameters in O(Len): √n for sorf (rows of √n times a product of orthogonal n×n matrices, restricted to d of their
// n = 2^⌈log₂ d⌉ coordinates), and the radius ρ of an SR point (a unit vertex of the simplex, rotated). ok is false for
// another kind or arrays that do not fit.
func structuredNormBounds(pts rule.Stored) (norms []float64, ok bool) {
	L, d := pts.Len, pts.Dim
	n := 1
	for n < d {
		n *= 2
	}
	norms = make([]float64, L)
	switch pts.Kind {
	case "sorf":
		for j := range norms {
			norms[j] = math.Sqrt(float64(n))
		}
	case "sr-butterfly":
		m := d + 1
		rho := pts.Arrays["rho"]
		if len(rho) == 0 || len(rho)%m != 0 {
			return nil, false
		}
		t := len(rho) / m
		per := L / t // m points a rule, or 2m with the negated vertices
		if per*t != L || (per != m && per != 2*m) {
			return nil, false
		}
		for j := range norms {
			norms[j] = math.Abs(rho[(j/per)*m+(j%per)%m])
		}
	default:
		return nil, false
	}
	return norms, true
}

// structuredRounding is g such that two computations of a structured projection ω_jᵀx — this build's and the one
// that wrote the file, one of which may fuse multiply-adds, redraw the parameters from the seed to within a unit of
// rounding, or see a probe input a unit of rounding apart — differ by at most g·u·‖ω_j‖·‖x‖ (u = 2⁻⁵³; ‖ω_j‖ as
// structuredNormBounds bounds it). Each computation applies three orthogonal factors of log₂ n stages (butterflies
// or Walsh–Hadamard transforms of size n = 2^⌈log₂ d⌉; signs and permutations are exact); a stage errs by at most
// 4u times the norm of its input, which the orthogonal stages after it keep, and a parameter a unit of rounding off
// by as much again. An SR point then takes the inner product with a unit simplex vertex, a running sum of d terms
// (within 2(d + 2)u of ‖y‖), and its radius (one rounding); the probe input adds one. Twice the sum, for the two
// computations: g = 2(8·3·log₂ n + 2(d + 2) + 2).
func structuredRounding(d int) float64 {
	k := 0
	for 1<<k < d {
		k++
	}
	return 2 * float64(8*3*k+2*(d+2)+2)
}

// storedPoints is the explicit realization a version-2 file stores.
func storedPoints(f *model.Model) rule.Stored {
	return rule.Stored{Kind: f.PointsKind, Dim: f.MapDim(), Len: f.Header.Points, Weights: f.Weights, Zero: f.Zero, Arrays: f.Points}
}

// checkProbe compares the rebuilt map's features of the probe input with the stored ones. A version-1 map is
// redrawn by this release from its seed, a version-2 map computes from the stored points. The same bits settle it.
// Otherwise the machine or the build differs (another linear-algebra backend; a compiler that fuses multiply-adds,
// as Go does on arm64 and with GOAMD64=v3), and the difference is held against a bound on rounding. Dense points
// are projected by a matrix product whose summation order may differ, each ωᵀx by at most 2d·u·Σ_i|ω_i x_i| (u the
// unit roundoff; two orders each within d·u of the exact sum). Two computations of a structured operator (orthogonal
// factors, a simplex, per-point radii) differ by at most structuredRounding(d)·u·‖ω‖·‖x‖. Either moves a feature
// √(2w)·cos(ωᵀx) by at most √(2w) times that, and an ORFF feature by max|B| times more; the activation adds a few
// units of rounding. Points drawn differently, or damaged, move the features far more.
func (m *Model) checkProbe(probe []float64, bmax float64) error {
	f, h := m.file, m.file.Header
	pts, scale := storedPoints(f), f.Scale
	mismatch := fmt.Errorf("model: the map rebuilt from the file does not reproduce its probe features; the file is damaged or was written for another kernel (%s, σ = %g)", h.Kernel, h.Sigma)
	if f.Version == 1 {
		mismatch = fmt.Errorf("model: this rff draws different %s points for seed %d than the release that wrote the model; refit it", h.Rule, h.Seed)
		// The same bits settle it without the points; otherwise the redrawn map's points (a copy of them) bound the
		// difference a summation order may make. Until then the map is taken as dense (PredictBytes: a bound).
		m.densePoints = true
		if slices.Equal(probe, f.Probe) {
			return nil
		}
		switch {
		case m.omap != nil:
			p := m.omap.Params()
			pts, scale = p.Points, p.Scale
		case m.fmap != nil:
			p := m.fmap.Params()
			pts, scale = p.Points, p.Scale
		}
	}
	m.densePoints = pts.Kind == "dense"
	if !m.densePoints && slices.Equal(probe, f.Probe) {
		return nil
	}
	x := model.ProbeInput(h.MapDim())
	n, d := h.Points, h.MapDim()
	weights := pts.Weights
	if len(weights) != n || (scale != nil && len(scale) != n) {
		return mismatch
	}
	// zb[j] bounds the difference of the projection ω_jᵀx (scaled) between the two computations, z[j] is the
	// projection (for a step activation, which may flip where z is within zb of 0), and tol[j] bounds the difference
	// of feature j.
	zb, tol := make([]float64, n), make([]float64, n)
	var z []float64
	step := h.Kernel == "arccos0"
	if step {
		z = make([]float64, n)
	}
	if m.densePoints {
		W := pts.Arrays["points"]
		if len(W) != n*d {
			return mismatch
		}
		for j := range n {
			var s, zj float64
			for i, xi := range x {
				s += math.Abs(W[j*d+i] * xi)
				zj += W[j*d+i] * xi
			}
			zb[j] = float64(2*d+4) * 0x1p-53 * s
			if step {
				z[j] = zj
			}
		}
	} else {
		norms, ok := structuredNormBounds(pts)
		if !ok {
			return mismatch
		}
		var xn float64
		for _, v := range x {
			xn = math.Hypot(xn, v)
		}
		g := structuredRounding(d)
		for j := range n {
			zb[j] = 0x1p-53 * g * norms[j] * xn
		}
		if step {
			p, err := rule.Restore(pts)
			if err != nil {
				return mismatch
			}
			p.Project(z, x, 1)
		}
	}
	for j := range n {
		if scale != nil {
			zb[j] *= math.Abs(scale[j])
			if step {
				z[j] *= scale[j]
			}
		}
		// The activation (a cosine of z, or of z plus a phase in [0, 2π)) adds a few units of rounding of its own.
		tol[j] = math.Sqrt(2*weights[j]) * (zb[j] + 16*0x1p-53) * math.Max(bmax, 1)
	}
	cols := len(probe) / h.Outputs
	if h.OVK == "" {
		cols = len(probe)
	}
	rank := 1
	if m.omap != nil {
		rank = m.omap.Rank() // a version-1 header has none
	}
	for i, v := range probe {
		c := i % cols
		j := c % n
		if h.OVK != "" {
			j = (c / rank) % n
		}
		t := tol[j]
		if step && math.Abs(z[j]) <= zb[j] { // Θ jumps at 0: a projection within rounding of 0 may flip
			t = math.Max(t, math.Sqrt(2*weights[j]))
		}
		if math.Abs(v-f.Probe[i]) > t+4*0x1p-53*math.Abs(v) {
			return mismatch
		}
	}
	return nil
}

// Prediction holds a model's outputs for n rows.
type Prediction struct {
	N       int
	Outputs int
	// Values are the n×Outputs outputs, row-major: the predicted targets of a regression (in the targets' units),
	// the class scores of a classifier (one per class, or the k−1 simplex coordinates).
	Values []float64
	// Classes and Labels are the predicted class indices and names of a classifier (nil otherwise).
	Classes []int
	Labels  []string
	loss    string // the model's loss, for Probabilities
}

// Probabilities returns the class probabilities of a multinomial logistic classifier (a model fitted with the
// logistic loss) at the predicted rows: N×Outputs, row-major, one column per class in the order of the model's
// labels, each row the softmax of the row's class scores in Values (learn.Softmax). Only the logistic loss models
// probabilities: the squared and hinge losses give scores that are not, and for them (and for regression models)
// Probabilities returns an error. It reads the loss from the model that made the Prediction (Predict, PredictRows):
// for a Prediction built otherwise (joined from several, say) apply learn.Softmax to its Values.
func (p *Prediction) Probabilities() ([]float64, error) {
	switch {
	case p == nil:
		return nil, errors.New("rff: Probabilities of a nil Prediction")
	case p.Labels == nil:
		return nil, errors.New("rff: class probabilities are for classifiers, and this prediction is a regression's")
	case p.loss != "logistic":
		loss := p.loss
		if loss == "" {
			loss = "squared"
		}
		return nil, fmt.Errorf("rff: class probabilities need a classifier fitted with the logistic loss; this one's loss is %s, whose class scores are not probabilities", loss)
	}
	return learn.Softmax(p.Values, p.N, p.Outputs)
}

// Predict predicts the rows of data. Input columns are matched by the names stored in the model (a permutation of
// the columns gives the same predictions; extra columns such as a target are ignored; a missing column is an
// error); data whose columns have generated names (a file without a header) must have exactly the model's columns.
func (m *Model) Predict(data *dataset.Data) (*Prediction, error) {
	if !m.ok() {
		return nil, errNoModel
	}
	X, err := m.Inputs(data)
	if err != nil {
		return nil, err
	}
	return m.PredictRows(X, data.N)
}

// PredictRows predicts the n rows of X (n×d, row-major, the columns in the model's input order, raw: the model
// applies its own preprocessing).
func (m *Model) PredictRows(X []float64, n int) (*Prediction, error) {
	if !m.ok() {
		return nil, errNoModel
	}
	h := m.file.Header
	if err := m.checkRows(X, n); err != nil {
		return nil, err
	}
	P := h.Outputs
	out := make([]float64, n*P)
	// The rows are preprocessed and predicted a segment of whole row blocks at a time, so that the preprocessed
	// copy stays small however many rows there are; every path predicts a block as it would in one call on all
	// rows, so the bits do not depend on the segments.
	seg := segmentRows(m.file.MapDim())
	for r0 := 0; r0 < n; r0 += seg {
		rows := min(seg, n-r0)
		Z, err := m.preprocessed(X[r0*h.Dim:(r0+rows)*h.Dim], rows, r0)
		if err != nil {
			return nil, err
		}
		o := out[r0*P : (r0+rows)*P]
		switch {
		case m.krr != nil:
			m.krr.Predict(o, Z, rows)
		case m.okrr != nil:
			err = m.okrr.Predict(o, Z, rows)
		case m.ofit != nil:
			err = m.ofit.Predict(o, m.omap, Z, rows)
		default:
			err = m.fit.PredictMap(o, m.mapper(), Z, rows)
		}
		if err != nil {
			return nil, err
		}
		if err := finiteRows(o, rows, r0, "the prediction", "overflows (an input far outside the training data?)"); err != nil {
			return nil, err
		}
	}
	p := &Prediction{N: n, Outputs: P, Values: out, loss: h.Loss}
	if h.Task == "classification" {
		K := len(h.Labels)
		if h.Encoding == "simplex" {
			p.Classes = learn.SimplexDecode(out, n, K)
		} else {
			p.Classes = learn.Argmax(out, n, K)
		}
		p.Labels = make([]string, n)
		for i, c := range p.Classes {
			p.Labels[i] = h.Labels[c]
		}
	}
	return p, nil
}

// PredictBytes is about the most memory PredictRows holds at once for n rows (0 for a nil or zero Model): the
// n×Outputs values (and a classifier's n classes and labels), one segment of preprocessed rows (about 8 MiB, at
// least one block of 256 rows per core) and, per core, the features of a block of rows — for an exact model, its
// kernel values against every training row. Memory the caller holds (the rows themselves, the model) is not
// included; over a call of many segments the allocations add up to more, but earlier segments' are garbage.
func (m *Model) PredictBytes(n int) int64 {
	if !m.ok() || n <= 0 {
		return 0
	}
	h := m.file.Header
	P := float64(h.Outputs)
	perRow := 8 * P
	if h.Task == "classification" {
		perRow += 8 + 16 // the class index and the label's string header (the label text is the model's)
	}
	// The preprocessed segment; a PCA step also copies each block of it (padded to a matrix product's least size)
	// and projects it.
	seg := float64(min(n, segmentRows(m.file.MapDim())))
	pre := seg * float64(m.file.MapDim())
	var pack float64
	if m.scaler != nil && m.scaler.HasPCA() {
		pre += max(seg, linalg.GemmSerialMinDim) * float64(m.file.Dim+m.file.MapDim())
		// Each core's product of a block by the components, when it finds no packing buffers to reuse.
		pack = float64(linalg.GemmSerialBytes(max(min(n, blocks.Rows), linalg.GemmSerialMinDim), m.file.MapDim(), m.file.Dim))
	}
	// A block's scratch: the projections and features of its rows (an operator-valued map's are P× wider), or the
	// kernel values against the training rows of an exact model (P² per pair for an operator-valued one).
	block := float64(h.Points) + float64(h.Features) + P
	if h.OVK != "" {
		block += float64(h.Features) * P
	}
	var train float64 // an exact model's per-call copies of its coefficients and of the training rows' norms
	switch {
	case m.krr != nil:
		block += float64(m.krr.N) * (1 + P)
		train = 8 * float64(m.krr.N) * (P + 4)
	case m.okrr != nil:
		block += float64(m.okrr.N) * P * (P + 1)
		train = 8 * float64(m.okrr.N) * (P + 4)
	}
	// Each core's products on the packed kernel (blocks of 8 rows or more, linalg.MulRows), with their packing
	// buffers when the pool has none to reuse: dense points' projection, the product with θ, a Nyström map's
	// normalization.
	r := min(n, blocks.Rows)
	if m.densePoints {
		pack += float64(linalg.GemmSerialBytes(r, h.Points, m.file.MapDim()))
	}
	pack += float64(linalg.GemmSerialBytes(r, h.Outputs, max(h.Features, h.Points)))
	if m.nmap != nil {
		pack += float64(linalg.GemmSerialBytes(r, h.Features, h.Points))
	}
	if m.krr != nil {
		pack += float64(linalg.GemmSerialBytes(r, h.Outputs, m.krr.N))
	}
	workers := float64(min(runtime.GOMAXPROCS(0), blocks.Count(n)))
	fixed := float64(128<<10) * (1 + workers) // small per-call and per-goroutine buffers
	b := float64(n)*perRow + 8*pre + workers*(8*float64(r)*block+pack) + train + fixed
	return int64(min(b, math.MaxInt64/2))
}

// segmentRows is the number of rows PredictRows preprocesses and predicts at a time for preprocessed rows of d
// columns: whole row blocks, at least one per core, about 8 MiB of preprocessed values.
func segmentRows(d int) int {
	perBlock := 8 * blocks.Rows * max(d, 1)
	return blocks.Rows * max(runtime.GOMAXPROCS(0), segmentBytes/perBlock)
}

// segmentBytes is the size of the preprocessed rows PredictRows holds at a time (a variable for tests).
var segmentBytes = 8 << 20

// A RowError is the error of PredictRows, PredictStd, Sample or Gradients for a row whose result is not finite: an
// input so far outside the training data, or so large, that the preprocessing or the prediction overflows. Row
// counts the rows of the call's input from 1; a caller that predicts a large input in parts (as a server does)
// adds the rows before the part to name the row of the whole.
type RowError struct {
	Row    int    // the row, counting from 1
	Reason string // what overflows, and why: "the prediction overflows (an input far outside the training data?)"
}

// Error returns "row R: reason" ("<nil>" for a nil *RowError).
func (e *RowError) Error() string {
	if e == nil {
		return "<nil>"
	}
	return fmt.Sprintf("row %d: %s", e.Row, e.Reason)
}

// finiteRows returns a *RowError naming the first row of the n rows of v that holds a NaN or an infinity, counting
// from r0 rows before v (1-based): "row i: what why".
func finiteRows(v []float64, n, r0 int, what, why string) error {
	if n == 0 {
		return nil
	}
	w := len(v) / n
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return &RowError{Row: r0 + i/w + 1, Reason: what + " " + why}
		}
	}
	return nil
}

// preprocessed is preprocess with a check of its result: a value that overflows the model's scaling, or — for a
// model on random features, whose projections ωᵀx it would overflow and whose cos/sin it would turn into rounding
// noise — one beyond the 1e100 a fit accepts (maxInput), is a *RowError naming the row (counted from r0 rows before
// X) and the column. Exact and Nyström models, whose kernel values tend to 0 far from the data, take any finite
// value.
func (m *Model) preprocessed(X []float64, n, r0 int) ([]float64, error) {
	Z := m.preprocess(X, n)
	limit := math.MaxFloat64
	if m.fmap != nil || m.omap != nil {
		limit = maxInput
	}
	i := finite.IndexBeyond(Z, limit)
	if i < 0 {
		return Z, nil
	}
	d := m.file.MapDim()
	col := fmt.Sprintf("column %d (%s)", i%d+1, m.inputNames()[i%d])
	if m.scaler != nil && m.scaler.HasPCA() {
		col = fmt.Sprintf("principal component %d", i%d+1)
	}
	why := "too large for the model's scaling"
	if !math.IsInf(Z[i], 0) && !math.IsNaN(Z[i]) {
		why = "too large for the kernel's random features (|ωᵀx| would overflow; a fit refuses inputs beyond 1e100)"
	}
	return nil, &RowError{Row: r0 + i/d + 1, Reason: fmt.Sprintf("%s is %v after preprocessing: %s — an input far outside the training data?", col, Z[i], why)}
}

// preprocess returns a preprocessed copy of the raw rows X: n×MapDim() values (fewer columns than X after a PCA
// step).
func (m *Model) preprocess(X []float64, n int) []float64 {
	if m.scaler != nil {
		return m.scaler.Transform(X, n, m.file.Dim)
	}
	return append([]float64(nil), X[:n*m.file.MapDim()]...)
}

// inputScale returns c_j = ∂x'_j/∂x_j of a preprocessing without a PCA step (every step is affine per column), all
// ones without one: the diagonal of the scaler's Jacobian, the product of the steps' factors — not a difference of
// preprocessed values, which loses the factor's digits to a large offset (a column of timestamps, say).
func (m *Model) inputScale() []float64 {
	d := m.file.Dim
	c := make([]float64, d)
	for j := range c {
		c[j] = 1
	}
	if m.scaler == nil || m.scaler.HasPCA() {
		return c
	}
	J := m.scaler.Jacobian()
	for j := range c {
		c[j] = J[j*d+j]
	}
	return c
}

// ErrNoUncertainty is returned for predictive uncertainty from a model fitted without it (Config.Uncertainty).
var ErrNoUncertainty = errors.New("this model holds no posterior: only regression models on random or Nyström features fitted with Config.Uncertainty do")

// PredictStd returns the n×P predictive standard deviations (P = Info().Outputs) at the raw rows of X (columns in
// the model's order, as PredictRows takes them; Inputs gives them from a dataset.Data): of the function value f(x)
// (the posterior's own uncertainty), or with noise of an observation y = f(x) + ε.
func (m *Model) PredictStd(X []float64, n int, noise bool) ([]float64, error) {
	if !m.ok() {
		return nil, errNoModel
	}
	if m.post == nil {
		return nil, ErrNoUncertainty
	}
	if err := m.checkRows(X, n); err != nil {
		return nil, err
	}
	Z, err := m.preprocessed(X, n, 0)
	if err != nil {
		return nil, err
	}
	dst := make([]float64, n*m.file.Outputs)
	if err := m.post.StdMap(dst, m.mapper(), Z, n, noise); err != nil {
		return nil, err
	}
	if err := finiteRows(dst, n, 0, "the predictive standard deviation", "overflows (an input far outside the training data?)"); err != nil {
		return nil, err
	}
	return dst, nil
}

// Sample draws K joint samples of the function from the posterior at the raw rows of X (pathwise: one θ per
// sample, evaluated at every row), deterministic for the seed: K×n×P values, sample after sample.
func (m *Model) Sample(X []float64, n, K int, seed uint64) ([]float64, error) {
	if !m.ok() {
		return nil, errNoModel
	}
	if m.post == nil {
		return nil, ErrNoUncertainty
	}
	if n < 0 || K < 1 || !size.Is(len(X), n, m.file.Dim) {
		return nil, fmt.Errorf("%d samples of %d rows × %d columns (%d values)", K, n, m.file.Dim, len(X))
	}
	if n > 0 && K > (1<<31)/n/m.file.Outputs {
		return nil, fmt.Errorf("%d samples of %d rows are too many", K, n)
	}
	if err := m.checkRows(X, n); err != nil {
		return nil, err
	}
	Z, err := m.preprocessed(X, n, 0)
	if err != nil {
		return nil, err
	}
	dst := make([]float64, K*n*m.file.Outputs)
	if err := m.post.SampleMap(dst, m.mapper(), Z, n, K, seed); err != nil {
		return nil, err
	}
	if i := finite.Index(dst); i >= 0 {
		return nil, &RowError{Row: i/m.file.Outputs%n + 1, Reason: "the posterior sample overflows (an input far outside the training data?)"}
	}
	return dst, nil
}

// checkRows returns an error for n raw rows X that are not n×Dim values, or hold a NaN or an infinity (named by its
// row, column and column name, in the raw coordinates the caller gave).
func (m *Model) checkRows(X []float64, n int) error {
	h := m.file.Header
	if n < 0 || !size.Is(len(X), n, h.Dim) {
		return fmt.Errorf("input has %d values, want %d rows × %d columns", len(X), n, h.Dim)
	}
	if i := finite.Index(X); i >= 0 {
		return fmt.Errorf("row %d, column %d (%s) is %v", i/h.Dim+1, i%h.Dim+1, m.inputNames()[i%h.Dim], X[i])
	}
	return nil
}

// ErrNoGradient is returned for models that do not provide the derivative asked for.
var ErrNoGradient = errors.New("this model provides no such derivative")

// Gradients returns the n×d gradients ∂f/∂x_j of a single-output regression or hermite model on random features
// of a shift-invariant kernel, or of a regression model on Nyström features of a differentiable kernel, at the n raw
// rows of X (columns in the model's order), in the raw coordinates.
func (m *Model) Gradients(X []float64, n int) ([]float64, error) {
	if !m.ok() {
		return nil, errNoModel
	}
	h := m.file.Header
	if h.Task == "classification" || h.Outputs != 1 || (m.fmap == nil && m.nmap == nil) {
		return nil, fmt.Errorf("%w: gradients need a single-output regression or hermite model on random or Nyström features (not exact or vector-valued)", ErrNoGradient)
	}
	var gm learn.GradientMapper = m.fmap
	if _, ok := m.fmap.Kernel().(kernel.Spectral); m.fmap != nil && !ok {
		return nil, fmt.Errorf("%w: the %s kernel is not shift-invariant (its pointwise features are not differentiable)", ErrNoGradient, m.fmap.Kernel().Name())
	}
	if dk, ok := m.fmap.Kernel().(kernel.Differentiable); m.fmap != nil && (!ok || dk.MaxOrder() < 1) {
		// The features are differentiable, but their derivative has no mean: it estimates nothing as D grows.
		return nil, fmt.Errorf("%w: the %s kernel has no first derivatives everywhere (its random features' derivatives estimate nothing)", ErrNoGradient, m.fmap.Kernel().Name())
	}
	if m.nmap != nil {
		if dk, ok := m.nmap.Kernel().(kernel.Differentiable); !ok || dk.MaxOrder() < 1 {
			return nil, fmt.Errorf("%w: the %s kernel has no first derivatives everywhere", ErrNoGradient, m.nmap.Kernel().Name())
		}
		gm = m.nmap
	}
	if err := m.checkRows(X, n); err != nil {
		return nil, err
	}
	Z, err := m.preprocessed(X, n, 0)
	if err != nil {
		return nil, err
	}
	g := make([]float64, n*h.MapDim())
	if err := m.fit.PredictGradients(g, gm, Z, n); err != nil {
		return nil, err
	}
	if err := finiteRows(g, n, 0, "the gradient", "overflows (an input far outside the training data?)"); err != nil {
		return nil, err
	}
	if m.scaler != nil && m.scaler.HasPCA() {
		return m.rawGradients(g, n), nil
	}
	c := m.inputScale()
	for i := range g {
		g[i] *= c[i%h.Dim]
	}
	return g, nil
}

// Jacobian returns the p×d Jacobian ∂f_a/∂x_b of a vector-valued model on ORFF features at the raw input x, in
// the raw coordinates: symmetric for a curl-free kernel and traceless for a divergence-free one.
func (m *Model) Jacobian(x []float64) ([]float64, error) {
	if !m.ok() {
		return nil, errNoModel
	}
	h := m.file.Header
	if m.ofit == nil {
		return nil, fmt.Errorf("%w: the Jacobian needs a vector-valued model on ORFF features", ErrNoGradient)
	}
	if len(x) != h.Dim {
		return nil, fmt.Errorf("input has %d values, want %d", len(x), h.Dim)
	}
	if err := m.checkRows(x, 1); err != nil {
		return nil, err
	}
	z, err := m.preprocessed(x, 1, 0)
	if err != nil {
		return nil, err
	}
	J := make([]float64, h.Outputs*h.MapDim())
	if err := m.ofit.Jacobian(J, m.omap, z); err != nil {
		return nil, err
	}
	if finite.Index(J) >= 0 {
		return nil, fmt.Errorf("the Jacobian %s", "overflows (an input far outside the training data?)")
	}
	if m.scaler != nil && m.scaler.HasPCA() {
		return m.rawGradients(J, h.Outputs), nil
	}
	c := m.inputScale()
	for i := range J {
		J[i] *= c[i%h.Dim]
	}
	return J, nil
}
