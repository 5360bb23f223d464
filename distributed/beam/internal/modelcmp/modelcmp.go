// Package modelcmp compares two ridge models on random features fitted to the same rows with the same
// configuration by different engines (rff-beam on shards, rff fit on the concatenated data): their predictions on
// the data, their weights θ and intercepts b, against the bound that rounding allows.
//
// The bound. Both engines solve (ZᵀZ/N + λI)θ = ZᵀY/N (centred) from the same features, but their sums over the N
// rows are added in other orders, and the preprocessing is fitted from merged moments, which moves the features by
// a few ulps. Each sum of N terms is within γ_N = N·u/(1 − N·u) of its exact value relative to the sum of its
// terms' magnitudes (u = 2⁻⁵³), so the two systems differ by at most 2γ_N in that measure; the Cholesky solve of each
// adds a backward error of order F·u. A relative perturbation ε of a linear system moves its solution by at most
// κ·ε/(1 − κ·ε) relative, where κ, the condition number of ZᵀZ/N + λI, is at most (1 + λ)/λ: the features of a
// normalized kernel have ‖z‖² = k(x, x) = 1, which bounds the eigenvalues of ZᵀZ/N by 1. So
//
//	‖θ₁ − θ₂‖ / ‖θ₂‖ ≤ Bound(N, F, λ) = κ·ε / (1 − κ·ε),   κ = (1 + λ)/λ,   ε = 2γ_N + 2γ_F
//
// and the intercepts b = ȳ − z̄ᵀθ, with |z̄_j| ≤ 1, within Bound·(|b| + ‖θ‖₁). A worst-case bound: the measured
// differences are orders of magnitude below it, and the predictions are compared to 1e-10 of their scale.
package modelcmp

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/model"
)

// Diff is what Compare measured.
type Diff struct {
	Rows, Features, Outputs int
	Lambda                  float64
	// Predictions is max |p₁ − p₂| over the rows and outputs, relative to the largest |p₂|.
	Predictions float64
	// SameClasses reports whether a classifier's predicted classes are the same on every row (true for regression).
	SameClasses bool
	// Theta is ‖θ₁ − θ₂‖ / ‖θ₂‖ (Frobenius norms), Bias max_k |b₁ − b₂|_k / (|b₂|_k + ‖θ₂[:, k]‖₁).
	Theta, Bias float64
	// Bound is Bound(Rows, Features, Lambda), which Theta and Bias must not exceed.
	Bound float64
	// SigmaRel is |σ₁ − σ₂| / σ₂ of the bandwidths (the median heuristic on preprocessed rows).
	SigmaRel float64
}

// Bound is the relative difference of the weights that rounding allows (see the package documentation); +Inf when
// the perturbation is too large for the bound to hold.
func Bound(n, features int, lambda float64) float64 {
	const u = 0x1p-53
	gamma := func(k int) float64 { return float64(k) * u / (1 - float64(k)*u) }
	kappa := (1 + lambda) / lambda
	e := kappa * (2*gamma(n) + 2*gamma(features))
	if e >= 1 {
		return math.Inf(1)
	}
	return e / (1 - e)
}

// Compare compares the models a and b (b the reference), saved as model files, on the rows of data.
func Compare(a, b []byte, data *dataset.Data) (*Diff, error) {
	ma, err := rff.Read(bytes.NewReader(a))
	if err != nil {
		return nil, fmt.Errorf("first model: %w", err)
	}
	mb, err := rff.Read(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("second model: %w", err)
	}
	fa, err := model.Decode(a)
	if err != nil {
		return nil, err
	}
	fb, err := model.Decode(b)
	if err != nil {
		return nil, err
	}
	F, P := fb.Features, fb.Outputs
	switch {
	case fa.Features != F || fa.Outputs != P || len(fa.Theta) != F*P || len(fb.Theta) != F*P ||
		len(fa.Bias) != P || len(fb.Bias) != P:
		return nil, fmt.Errorf("the models have %d×%d and %d×%d weights", fa.Features, fa.Outputs, F, P)
	case fa.Lambda != fb.Lambda || fb.Lambda <= 0:
		return nil, fmt.Errorf("the models have λ = %g and %g; need the same λ > 0", fa.Lambda, fb.Lambda)
	case !slices.Equal(ma.Info().Inputs, mb.Info().Inputs) || !slices.Equal(ma.Info().Labels, mb.Info().Labels):
		return nil, errors.New("the models have other inputs or class labels")
	}
	pa, err := ma.Predict(data)
	if err != nil {
		return nil, err
	}
	pb, err := mb.Predict(data)
	if err != nil {
		return nil, err
	}
	d := &Diff{Rows: data.N, Features: F, Outputs: P, Lambda: fb.Lambda, SameClasses: slices.Equal(pa.Labels, pb.Labels),
		Bound: Bound(data.N, F, fb.Lambda), SigmaRel: math.Abs(fa.Sigma-fb.Sigma) / fb.Sigma}
	scale, worst := 0.0, 0.0
	for i, v := range pb.Values {
		scale = math.Max(scale, math.Abs(v))
		worst = math.Max(worst, math.Abs(pa.Values[i]-v))
	}
	d.Predictions = worst / scale
	var num, den float64
	for i, v := range fb.Theta {
		num += (fa.Theta[i] - v) * (fa.Theta[i] - v)
		den += v * v
	}
	d.Theta = math.Sqrt(num / den)
	for k := range P {
		l1 := 0.0
		for j := range F {
			l1 += math.Abs(fb.Theta[j*P+k])
		}
		d.Bias = math.Max(d.Bias, math.Abs(fa.Bias[k]-fb.Bias[k])/(math.Abs(fb.Bias[k])+l1))
	}
	return d, nil
}

// Check returns an error when the predictions differ by more than tol of their scale, the classes differ, or the
// weights or intercepts differ by more than the bound.
func (d *Diff) Check(tol float64) error {
	var errs []error
	if !(d.Predictions <= tol) {
		errs = append(errs, fmt.Errorf("predictions differ by %.3g of their scale (tolerance %g)", d.Predictions, tol))
	}
	if !d.SameClasses {
		errs = append(errs, errors.New("predicted classes differ"))
	}
	if !(d.Theta <= d.Bound) || !(d.Bias <= d.Bound) {
		errs = append(errs, fmt.Errorf("weights differ by %.3g and intercepts by %.3g relative, over the rounding bound %.3g",
			d.Theta, d.Bias, d.Bound))
	}
	return errors.Join(errs...)
}

func (d *Diff) String() string {
	return fmt.Sprintf("N = %d, F = %d, P = %d, λ = %g: predictions %.3g of their scale, classes equal %v; weights %.3g, intercepts %.3g relative (rounding bound %.3g); σ %.3g relative",
		d.Rows, d.Features, d.Outputs, d.Lambda, d.Predictions, d.SameClasses, d.Theta, d.Bias, d.Bound, d.SigmaRel)
}
