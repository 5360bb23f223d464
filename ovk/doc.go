// Package ovk holds operator-valued kernels K: R^d × R^d → R^{p×p} for vector-valued learning, evaluated exactly,
// and their operator-valued random Fourier feature (ORFF) maps built from the points of any rule of package rule.
// It implements Brault, Heinonen & d'Alché-Buc, "Random Fourier Features for Operator-Valued Kernels" (ACML 2016),
// with the conventions of docs/conventions.md §4.
//
// # Exact kernels
//
// Every kernel here is shift-invariant, K(x,z) = K₀(δ), δ = x − z, and has the spectral form of Proposition 4,
// Eq. (3) (real form): K₀(δ) = E_{ω~μ}[cos(ωᵀδ)·A(ω)] with A(ω) = B(ω)B(ω)ᵀ ⪰ 0 (Proposition 5, Eq. (4)). With a
// Gaussian k₀(δ) = exp(−‖δ‖²/(2σ²)), μ = N(0, σ⁻²I):
//
//   - decomposable (Definition 7, Example 1): K = k₀(δ)·A, A PSD; A(ω) = A, B = any factor with BBᵀ = A, here
//     V·Λ^{1/2} with null directions dropped (p' = rank A). k₀ may be any scalar kernel for exact evaluation, and any
//     shift-invariant kernel (kernel.Spectral) for ORFF. [OutputCovariance] estimates A as the covariance of the
//     training targets, the paper's choice without prior knowledge.
//   - curl-free (Definition 8, Example 2): K = −∇∇ᵀk₀(δ) = (k₀/σ²)(I − δδᵀ/σ²); A(ω) = ωωᵀ, B(ω) = ω, p' = 1.
//   - divergence-free (Definition 8, Example 3): K = (∇∇ᵀ − ΔI)k₀(δ) = (k₀/σ²)(δδᵀ/σ² + (d − 1 − ‖δ‖²/σ²)I);
//     A(ω) = ‖ω‖²I − ωωᵀ. Instead of the paper's B = ‖ω‖I − ωωᵀ/‖ω‖ (p' = d) this package uses B = ‖ω‖·Hᵀ with
//     H a (d−1)×d orthonormal basis of ω^⊥ read off one Householder reflection (p' = d − 1, no per-frequency SVD;
//     docs/conventions.md §4).
//   - Helmholtz: w·K^curl + (1−w)·K^div, a convex combination that is again a kernel (paper, after Definition 8);
//     B = ‖ω‖·P·diag(√w, √(1−w), …), P the same Householder reflection, p' = d.
//
// Checks (tests): K^curl(x,x) = I/σ² = E[ωωᵀ], K^div(x,x) = (d−1)I/σ² = E[‖ω‖²I − ωωᵀ]; the closed forms equal
// the finite-difference Hessians of k₀; block Gram matrices are symmetric PSD.
//
// [Gram] fills the (n·p)×(m·p) block Gram matrix whose block (i,j) is K(x_i, z_j) — the Np×Np matrix of exact
// vector-valued kernel ridge regression.
//
// # ORFF maps
//
// [New] draws a [Map]: the ORFF map of Eq. (6) in the real form the paper gives after Eq. (7) (§3.3),
//
//	Φ̃(x) = ⊕_j √w_j [cos(ω_jᵀx)·B(ω_j)ᵀ ; sin(ω_jᵀx)·B(ω_j)ᵀ]   (F × p, F = 2·D·p'),
//
// where the points ω_j and weights w_j come from any rule (G, ORF, SORF, QMC, GQ, SR(3,3) with butterfly or Haar
// rotations); the paper's Monte Carlo weights 1/D are the special case of rule G. The approximation is Eq. (7),
// K̃(x,z) = Φ̃(x)ᵀΦ̃(z) = Σ_j w_j cos(ω_jᵀ(x−z))·A(ω_j), plus w₀·A(0) for an SR rule's zero node: 0 for curl-free,
// divergence-free and Helmholtz kernels (A(0) = 0), the constant offset w₀·A for a decomposable kernel
// ([Map.Offset]). Quadrature rules for operator-valued kernels are new here: the integrand cos(ωᵀδ)A(ω) is still an
// expectation under a Gaussian, so every rule applies unchanged.
//
// Nothing of Kronecker size is formed: [Map.TransformBlock] writes the (rows·p)×F design matrix (row r·p+a is output a
// of row r); [Map.Predict] computes f̃(x) = Φ̃(x)ᵀθ in O(D·p·p') and [Map.Adjoint] its transpose Σ Φ̃(x_i)y_i, the two
// halves of the normal-equation operator of ridge regression (Eq. (11)); for a decomposable kernel the model is
// f̃(x) = B·Θᵀ·z(x) with the scalar cos/sin features z ([Map.ScalarBlock]), i.e. predictions Z·Θ·Bᵀ as in Eq. (12).
// [Map.Jacobian] differentiates a model analytically: curl-free models have symmetric Jacobians and divergence-free
// models traceless ones, for every rule.
//
// # Approximation error
//
// [SupError] is the empirical ‖K̃ − K‖_∞ of Eq. (8) (spectral norm, maximum over sampled pairs; Fig. 1A), and
// [VarianceNorm] the empirical ‖V[K̃(x,z)]‖₂ over seeds (Fig. 1B), to be compared with Proposition 12, whose bound
// (like Theorem 10's) lives in package bound. For the Gaussian curl-free kernel E[A] = I/σ² and
// V[A] = E[(A − E A)²] = (d+1)I/σ⁴ (paper §4.3); for the divergence-free one E[A] = (d−1)I/σ² and
// V[A] = 3(d−1)I/σ⁴, since A² = ‖ω‖⁴I − ‖ω‖²ωωᵀ, E‖ω‖⁴ = d(d+2)/σ⁴ and E[‖ω‖²ωωᵀ] = (d+2)I/σ⁴. The paper §4.3 and
// The paper §4.3 prints d(4d−3)I/σ⁴, which TestMomentsOfA and TestVarianceAtZero refute by Monte Carlo (it overstates
// the variance, so bounds using it remain valid but are looser; docs/conventions.md §8.9).
//
// Kernels and maps are immutable and safe for concurrent use; maps are deterministic for their seed and draw their
// points exactly as package feature does, so a decomposable map with A = I is p copies of feature's scalar map.
package ovk
