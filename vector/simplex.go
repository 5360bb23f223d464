package vector

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/ovk"
)

// maxSimplexClasses bounds the classes of SimplexKernel, whose dense A has (K−1)² entries.
const maxSimplexClasses = 1 << 14

// SimplexKernel returns the decomposable kernel k₀·A with A = CCᵀ = k/(k−1)·I_{k−1} for k = classes ≥ 2 and C the
// simplex code: the kernel K₀(δ) = BBᵀk₀(δ), B = C, of the ORFF paper's MNIST experiment (§5.2). Use a Gaussian k₀
// (the paper prints exp(−‖δ‖/σ²); docs/conventions.md §8.2: it is the Gaussian exp(−‖δ‖²/(2σ²)), σ = 20 on inputs
// in [−1,1]^784).
//
// Multiclass learning with simplex coding in a decomposable kernel (docs/conventions.md §5 last item, §8.1; ORFF
// paper §5.2, MNIST): let C be the (k−1)×k simplex code ([learn.SimplexCode]: unit columns c_j with pairwise inner
// products −1/(k−1)), so CCᵀ = γI_{k−1} and CᵀC = γ(I_k − 11ᵀ/k) with γ = k/(k−1). Three formulations appear in the literature; for the
// ridge objective they give the same classifier:
//
//  1. The paper's ORFF: coded targets y_i = c_{label i} ∈ R^{k−1} and the decomposable kernel k₀·BBᵀ with B = C,
//     i.e. A = CCᵀ = γI_{k−1} (this kernel). Only A matters: B and any B' with B'B'ᵀ = A give the same
//     predictions.
//  2. The paper's exact OVK: coded targets and A = I_{k−1}. Since K₀⊗γI = (γK₀)⊗I, form 1 at λ equals form 2 at
//     λ/γ (γβ₁ solves form 2's system), i.e. f₂(λ) = f₁(γλ).
//  3. docs/conventions.md §5: one-hot targets e_{label i} ∈ R^k and A = CᵀC. Multiplying the Stein equation K₀αCᵀC + Nλα = Y on
//     the right by Cᵀ shows β = γαCᵀ solves form 2 at λ/γ, so f₃ = f₁·C/γ (k scores), and argmax_j f₃(x)_j =
//     argmax_j ⟨f₁(x), c_j⟩, which is exactly [learn.SimplexDecode] of form 1. With an intercept f₃ = f₁·C/γ + 1/k: the
//     one-hot bias also fits the mean 1/k of the targets along 1, which CᵀC annihilates; the shift is the same for
//     every class.
//
// The same algebra holds for ORFF maps (K̃₀ = ZZᵀ in place of K₀). [Ridge.FitSimplex] and [KRR.FitSimplex]
// implement form 1 (with whatever decomposable kernel of k−1 outputs they are given: SimplexKernel reproduces the
// paper, A = I_{k−1} its exact baseline); [Fit.Classify] and [KRRFit.Classify] decode with learn.SimplexDecode.
func SimplexKernel(k0 kernel.Kernel, classes int) (*ovk.Kernel, error) {
	if classes < 2 {
		return nil, fmt.Errorf("vector.SimplexKernel: need at least 2 classes, have %d", classes)
	}
	if k0 == nil {
		return nil, fmt.Errorf("vector.SimplexKernel: nil scalar kernel k₀")
	}
	if classes > maxSimplexClasses {
		return nil, fmt.Errorf("vector.SimplexKernel: %d classes, at most %d (A is (K−1)×(K−1): %s at the limit)",
			classes, maxSimplexClasses, "2 GiB")
	}
	if _, err := size.Floats(fmt.Sprintf("vector.SimplexKernel: A for %d classes", classes), classes-1, classes-1); err != nil {
		return nil, err
	}
	q := classes - 1
	g := float64(classes) / float64(q)
	A := mat.NewSymDense(q, nil)
	for i := 0; i < q; i++ {
		A.SetSym(i, i, g)
	}
	k, err := ovk.NewDecomposable(k0, A)
	if err != nil {
		return nil, fmt.Errorf("vector.SimplexKernel: %w", err)
	}
	return k, nil
}

func checkSimplexLabels(where string, labels []int, n, classes, outputs int) error {
	if classes < 2 {
		return fmt.Errorf("%s: need at least 2 classes, have %d", where, classes)
	}
	if outputs != classes-1 {
		return fmt.Errorf("%s: simplex coding of %d classes needs %d outputs, the kernel has %d", where, classes,
			classes-1, outputs)
	}
	if len(labels) != n {
		return fmt.Errorf("%s: %d labels for %d examples", where, len(labels), n)
	}
	for i, l := range labels {
		if l < 0 || l >= classes {
			return fmt.Errorf("%s: label %d of row %d is outside [0, %d)", where, l, i+1, classes)
		}
	}
	return nil
}

// FitSimplex fits a k-class classifier (k = classes, labels in [0, k)) on the n rows of X: the labels are coded as
// the columns of the simplex code ([learn.SimplexEncode], k−1 targets) and the ORFF ridge is fitted with the map m, whose
// kernel must have k−1 outputs — a decomposable kernel such as [SimplexKernel] for the paper's MNIST experiment.
// Decode with [Fit.Classify].
func (r Ridge) FitSimplex(m *ovk.Map, X []float64, n int, labels []int, classes int) (*Fit, error) {
	const where = "vector.Ridge.FitSimplex"
	if m == nil {
		return nil, fmt.Errorf("%s: nil ORFF map", where)
	}
	if err := checkSimplexLabels(where, labels, n, classes, m.Outputs()); err != nil {
		return nil, err
	}
	return r.Fit(m, X, n, learn.SimplexEncode(labels, classes))
}

// Classify predicts the classes of the n rows of X with a model fitted on simplex-coded targets
// ([Ridge.FitSimplex]; P+1 classes), decoding the k−1 scores with [learn.SimplexDecode].
func (f *Fit) Classify(m *ovk.Map, X []float64, n int) ([]int, error) {
	const where = "vector.Fit.Classify"
	if err := f.checkMap(where, m); err != nil {
		return nil, err
	}
	if err := blocks.CheckX(where, X, n, m.Dim()); err != nil {
		return nil, err
	}
	pred := make([]float64, n*f.P)
	if err := f.Predict(pred, m, X, n); err != nil {
		return nil, err
	}
	return learn.SimplexDecode(pred, n, f.P+1), nil
}

// FitSimplex fits the exact k-class classifier (labels in [0, k)) on the n rows of X (n×d) with simplex-coded
// targets; the kernel must have k−1 outputs ([SimplexKernel] for the ORFF paper's setting; A = I_{k−1}, the paper's
// exact baseline, is the same classifier at λ/γ, γ = k/(k−1)). Decode with [KRRFit.Classify].
func (k KRR) FitSimplex(X []float64, n, d int, labels []int, classes int) (*KRRFit, error) {
	const where = "vector.KRR.FitSimplex"
	if k.Kernel == nil {
		return nil, fmt.Errorf("%s: nil kernel", where)
	}
	p, err := k.Kernel.Outputs(d)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if err := checkSimplexLabels(where, labels, n, classes, p); err != nil {
		return nil, err
	}
	return k.Fit(X, n, d, learn.SimplexEncode(labels, classes))
}

// Classify predicts the classes of the rows of X (rows×Dim) with a model fitted on simplex-coded targets
// ([KRR.FitSimplex]; P+1 classes).
func (f *KRRFit) Classify(X []float64, rows int) ([]int, error) {
	const where = "vector.KRRFit.Classify"
	if f == nil {
		return nil, fmt.Errorf("%s: nil fit", where)
	}
	if err := blocks.CheckX(where, X, rows, f.Dim); err != nil {
		return nil, err
	}
	if f.P < 1 {
		return nil, fmt.Errorf("%s: the fit has %d outputs", where, f.P)
	}
	pred := make([]float64, rows*f.P)
	if err := f.Predict(pred, X, rows); err != nil {
		return nil, err
	}
	return learn.SimplexDecode(pred, rows, f.P+1), nil
}
