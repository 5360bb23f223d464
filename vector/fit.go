package vector

import (
	"fmt"

	"gonum.org/v1/gonum/floats"

	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/ovk"
)

// Fit is a fitted ORFF ridge model f̃(x) = Φ̃(x)ᵀθ + b. It holds θ and b only: predictions need the map it was
// fitted with (same kernel, rule, D and seed).
type Fit struct {
	// F is the number of features 2·D·p', P the number of outputs p, Rank the number of columns p' of B(ω).
	F, P, Rank int
	// Theta is θ (length F) in the feature layout of ovk.Map: entry f·p'+k for scalar column f and column k of
	// B(ω). For a decomposable kernel it is the row-major 2D×p' matrix Θ of the Stein equation.
	Theta []float64
	// Bias is b (length P; zero without intercept).
	Bias      []float64
	Lambda    float64
	Intercept bool
	// Stats reports the solve: Method is "closed-form", "eigen", "cholesky", "cg-matrix-free" or "lbfgs";
	// Residual is the relative residual ‖Aθ − h‖/‖h‖ of the (centred) normal equations (the Stein equation for
	// the closed forms, the largest over its columns); Iterations counts CG or L-BFGS iterations; Seconds is the
	// wall-clock time of the whole fit, data passes included.
	Stats learn.SolveStats
}

// Predict writes f̃(x_r) = Φ̃(x_r)ᵀθ + b for the n rows of X (n×d, row-major) into dst (n×p, row-major), in
// O(D·p·p') per row without forming Φ̃ (ovk.Map.Predict). m must be the map the model was fitted with.
func (f *Fit) Predict(dst []float64, m *ovk.Map, X []float64, n int) error {
	if err := f.checkMap("vector.Fit.Predict", m); err != nil {
		return err
	}
	if err := m.Predict(dst, X, n, f.Theta); err != nil {
		return fmt.Errorf("vector.Fit.Predict: %w", err)
	}
	for i := 0; i < n; i++ {
		floats.Add(dst[i*f.P:(i+1)*f.P], f.Bias)
	}
	return nil
}

// Jacobian writes the Jacobian ∂f̃_a/∂x_b of the fitted model at x into dst (p×d, row-major; ovk.Map.Jacobian):
// symmetric for a curl-free kernel and traceless for a divergence-free one, for every rule (the bias is constant).
func (f *Fit) Jacobian(dst []float64, m *ovk.Map, x []float64) error {
	if err := f.checkMap("vector.Fit.Jacobian", m); err != nil {
		return err
	}
	if err := m.Jacobian(dst, x, f.Theta); err != nil {
		return fmt.Errorf("vector.Fit.Jacobian: %w", err)
	}
	return nil
}

// check returns an error, prefixed with where, if f is nil or its fields do not match (a fit assembled by hand).
func (f *Fit) check(where string) error {
	if f == nil {
		return fmt.Errorf("%s: nil fit", where)
	}
	if f.F < 1 || f.P < 1 || f.Rank < 1 || len(f.Theta) != f.F || len(f.Bias) != f.P {
		return fmt.Errorf("%s: the fit's Theta has %d values and Bias %d, want F = %d and P = %d", where, len(f.Theta),
			len(f.Bias), f.F, f.P)
	}
	return nil
}

// checkMap validates f and checks that m is the kind of map it was fitted with.
func (f *Fit) checkMap(where string, m *ovk.Map) error {
	if err := f.check(where); err != nil {
		return err
	}
	if m == nil {
		return fmt.Errorf("%s: nil ORFF map", where)
	}
	if m.Features() != f.F || m.Outputs() != f.P || m.Rank() != f.Rank {
		return fmt.Errorf("%s: map has %d features, %d outputs and rank %d; the model was fitted with %d, %d and %d",
			where, m.Features(), m.Outputs(), m.Rank(), f.F, f.P, f.Rank)
	}
	return nil
}
