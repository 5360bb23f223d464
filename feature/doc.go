// Package feature builds random and quadrature feature maps: a kernel (package kernel) × a rule (package rule) × a
// nonlinearity. Any kernel works with any rule.
//
// For a shift-invariant kernel with spectral law ω = T(z), z ~ N(0, I) (kernel.Law), and a rule with points z_j,
// weights w_j and zero-node weight w₀, the cos/sin map (docs/conventions.md §2; Munkhoeva et al. 2018, §2.3 "Explicit mapping") is
//
//	ψ(x) = [√w_1 cos(ω_1ᵀx) … √w_D cos(ω_Dᵀx), √w_1 sin(ω_1ᵀx) … √w_D sin(ω_Dᵀx)],   ω_j = T(z_j),
//
// with D points and 2D columns, and the kernel estimate is k̂(x,y) = ⟨ψ(x), ψ(y)⟩ + c with the offset c = w₀ (the
// zero node's φ(0)ᵀφ(0) = cos²0 + sin²0 = 1). For plain random features w_j = 1/D and c = 0, which is the usual
// (1/√D)[cos, sin] map. The cos+phase form √(2w_j) cos(ω_jᵀx + b_j), b_j ~ U[0, 2π) (Rahimi & Recht 2007; scikit-learn's
// RBFSampler) has D columns and, per point, an extra zero-mean term cos(ω_jᵀ(x+y) + 2b_j) of variance 1/2: about
// twice the variance of the cos/sin pair far from the diagonal (k → 0), and far more near it (at x = y the cos/sin
// estimate of a plain rule is exact, the cos+phase one has variance 1/(2D)).
//
// For a pointwise kernel k = c·E[φ(wᵀx)φ(wᵀy)] (arc-cosine) the map is ψ_j(x) = √(c·w_j) φ(w_jᵀx), D columns, and the
// offset c·w₀·φ(0)², which is 0 for φ₁ = max(0,·) and c·w₀/4 for φ₀ = Θ with Θ(0) = 1/2.
//
// Learners on SR features fit an intercept, which absorbs the offset; kernel estimates add it explicitly.
//
// A Map is immutable after New, deterministic for its seed (same seed → identical features on every run, whatever
// the number of cores) and safe for concurrent use; Transform splits the rows into blocks and uses all cores.
//
// Derivative features (Sriperumbudur & Szabó 2015; docs/conventions.md §6): [Map.Derivative] gives ∂^p ψ(x) for any multi-index p
// and every rule — each column is differentiated by the cycle cos → −sin → −cos → sin times ω_j^p — so that
// ⟨∂^pψ(x), ∂^qψ(y)⟩ ([Map.EstimateDeriv]) estimates ∂^{p,q}k(x, y); [Map.Gradient] gives all first partials, which
// gradient-enhanced (Hermite) learning stacks as extra rows.
package feature
