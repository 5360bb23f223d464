package vector

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"

	"github.com/rffkit/rff/internal/solve"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/ovk"
)

func (r Ridge) cgTol() float64 {
	if r.Tol > 0 {
		return r.Tol
	}
	return 1e-10
}

// fitCG solves the normal equations by preconditioned CG without forming ΦᵀΦ.
func (r Ridge) fitCG(m *ovk.Map, X []float64, n int, Y []float64) (*Fit, error) {
	const where = "vector.Ridge.Fit (cg)"
	F, p := m.Features(), m.Outputs()
	fac := mapFactors(m)
	lin := r.linear(m, fac, X, n)
	h, ybar, err := designRHS(lin, F, n, p, Y, r.Intercept)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	diag := designDiag(m, fac, X, n, r.Lambda, r.Intercept)
	op := &normalOp{lin: lin, n: n, p: p, lambda: r.Lambda, intercept: r.Intercept}
	maxIter := r.MaxIter
	if maxIter <= 0 {
		maxIter = max(100, 2*F)
	}
	res, cgErr := solve.PCG(op.apply, h, diag, F, 1, r.cgTol(), maxIter)
	if op.err != nil {
		return nil, fmt.Errorf("%s: %w", where, op.err)
	}
	fit := &Fit{F: F, P: p, Rank: m.Rank(), Theta: res.X, Bias: make([]float64, p), Lambda: r.Lambda,
		Intercept: r.Intercept}
	fit.Stats = learn.SolveStats{Method: "cg-matrix-free", Iterations: res.Iterations, Residual: res.Residual}
	if r.Intercept {
		if fit.Bias, err = designBias(lin, n, p, fit.Theta, ybar); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
	}
	if cgErr != nil {
		return fit, fmt.Errorf("%s: %w", where, cgErr)
	}
	return fit, nil
}

// fitLBFGS minimises L(θ, b) by L-BFGS over x = [θ, b] (b only with an intercept).
func (r Ridge) fitLBFGS(m *ovk.Map, X []float64, n int, Y []float64) (*Fit, error) {
	const where = "vector.Ridge.Fit (lbfgs)"
	F, p := m.Features(), m.Outputs()
	N := float64(n)
	// With an intercept the targets are centred first and their means added to the bias at the end: the stopping
	// threshold is relative to the gradient at the start, which with uncentred targets grows with their offset from
	// zero, and residuals of targets far from zero lose the digits of their spread.
	var mean []float64
	if r.Intercept {
		mean = make([]float64, p)
		for i := range n {
			for a := range p {
				mean[a] += Y[i*p+a] / N
			}
		}
		Yc := make([]float64, n*p)
		for i := range n {
			for a := range p {
				Yc[i*p+a] = Y[i*p+a] - mean[a]
			}
		}
		Y = Yc
	}
	lin := r.linear(m, mapFactors(m), X, n)
	dim := F
	if r.Intercept {
		dim += p
	}
	pred := make([]float64, n*p)
	var evalErr error
	var cacheX []float64
	var cacheF float64
	cacheG := make([]float64, dim)
	eval := func(x []float64) {
		if cacheX != nil && floats.Equal(x, cacheX) {
			return
		}
		cacheX = append(cacheX[:0], x...)
		theta := x[:F]
		if err := lin.predict(pred, theta); err != nil && evalErr == nil {
			evalErr = err
		}
		var loss float64
		gb := make([]float64, p)
		for i := 0; i < n; i++ {
			row := pred[i*p : (i+1)*p]
			for a := range row {
				if r.Intercept {
					row[a] += x[F+a]
				}
				row[a] -= Y[i*p+a] // residual r_i
				loss += row[a] * row[a]
				gb[a] += row[a]
			}
		}
		gt := cacheG[:F]
		clear(gt)
		if err := lin.adjoint(gt, pred); err != nil && evalErr == nil {
			evalErr = err
		}
		floats.Scale(2/N, gt)
		floats.AddScaled(gt, 2*r.Lambda, theta)
		if r.Intercept {
			for a := range gb {
				cacheG[F+a] = 2 * gb[a] / N
			}
		}
		cacheF = loss/N + r.Lambda*floats.Dot(theta, theta)
	}
	x0 := make([]float64, dim)
	eval(x0)
	if evalErr != nil {
		return nil, fmt.Errorf("%s: %w", where, evalErr)
	}
	g0 := floats.Norm(cacheG, math.Inf(1))
	tol := r.Tol
	if tol <= 0 {
		tol = 1e-10
	}
	maxIter := r.MaxIter
	if maxIter <= 0 {
		maxIter = max(1000, 2*F)
	}
	prob := optimize.Problem{
		Func: func(x []float64) float64 { eval(x); return cacheF },
		Grad: func(g, x []float64) { eval(x); copy(g, cacheG) },
	}
	settings := &optimize.Settings{
		GradientThreshold: tol * g0,
		MajorIterations:   maxIter,
		Converger:         optimize.NeverTerminate{},
	}
	method := &optimize.LBFGS{Linesearcher: &secantLinesearch{}}
	fit := &Fit{F: F, P: p, Rank: m.Rank(), Bias: make([]float64, p), Lambda: r.Lambda, Intercept: r.Intercept}
	xOpt := x0
	iters := 0
	if g0 > 0 {
		res, err := optimize.Minimize(prob, x0, settings, method)
		if res == nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		xOpt, iters = res.X, res.MajorIterations
	}
	if evalErr != nil {
		return nil, fmt.Errorf("%s: %w", where, evalErr)
	}
	fit.Theta = append([]float64(nil), xOpt[:F]...)
	eval(xOpt)
	gRel := 0.0
	if g0 > 0 {
		gRel = floats.Norm(cacheG, math.Inf(1)) / g0
	}
	// Report the residual of the (centred) normal equations, like the other solvers, and the optimal bias for θ.
	h, ybar, err := designRHS(lin, F, n, p, Y, r.Intercept)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	op := &normalOp{lin: lin, n: n, p: p, lambda: r.Lambda, intercept: r.Intercept}
	Ah := make([]float64, F)
	op.apply(Ah, fit.Theta)
	floats.Sub(Ah, h)
	fit.Stats = learn.SolveStats{Method: "lbfgs", Iterations: iters, Residual: solve.RelResidual(Ah, h, F, 1)}
	if r.Intercept {
		if fit.Bias, err = designBias(lin, n, p, fit.Theta, ybar); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		for a := range p {
			fit.Bias[a] += mean[a]
		}
	}
	if gRel > tol {
		return fit, notConverged{fmt.Sprintf("%s: L-BFGS did not converge: stopped after %d iterations with relative "+
			"gradient %.3g > %.3g", where, iters, gRel, tol)}
	}
	return fit, nil
}

// notConverged is an error that wraps learn.ErrNotConverged with its own message (learn.ErrNotConverged's text names CG).
type notConverged struct{ msg string }

// Error returns the message.
func (e notConverged) Error() string { return e.msg }

// Unwrap returns learn.ErrNotConverged, so that errors.Is recognises the error.
func (e notConverged) Unwrap() error { return learn.ErrNotConverged }
