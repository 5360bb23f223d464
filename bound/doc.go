// Package bound holds the theory of rff as functions: finite-sample guarantees on the error of random-feature and
// quadrature kernel approximations, each usable both ways — the error guaranteed for m points with confidence 1 − δ
// (Error), and the points needed for error ε with confidence 1 − δ (Points) — plus the failure probability itself
// (Prob). Every bound implements [Bound]; [Compute] evaluates any of them by name ([Names]) for the command-line
// tool (`rff bound --theorem …`) and returns a [Guarantee] with the inputs, the derived constants and the formula.
//
// Conventions: m = D = the number of points (frequencies ω_j); the cos/sin feature map has 2m columns. δ is the
// failure probability, τ = log(1/δ). |S| (ℓ, l, |C|) is the diameter of the compact set the inputs live in.
// σ² = E‖ω‖² is the second moment of the kernel's spectral law ([SecondMoment], [Spectrum]); σ_k or Sigma is the
// kernel bandwidth.
//
// # Papers and statements
//
// Sriperumbudur & Szabó, "Optimal rates for random Fourier features", NeurIPS 2015 (docs/conventions.md §7):
//   - [SSLinf]: Theorem 1, ‖k̂ − k‖_{L∞(S×S)} < (h(d,|S|,σ) + √(2τ))/√m with probability ≥ 1 − e^{−τ}.
//   - [SSLr]: Theorem 2, the L^r(S×S) version, with the factor (π^{d/2}|S|^d/(2^dΓ(d/2+1)))^{2/r}.
//   - [SSDerivBounded]: Theorem 4, kernel derivatives ∂^{p,q}k with bounded spectral support (T_{p,q}, C_{p,q}).
//   - [SSDerivUnbounded]: Theorem 5, kernel derivatives with unbounded support under a Bernstein moment condition.
//   - [Spectrum.Moments], [Spectrum.Bernstein]: the spectral constants σ², T_{p,q}, C_{p,q}, E_{p,q} and (σ², L) of
//     Theorem 5's condition, in closed form for the Gaussian, Matérn, Cauchy and sinc kernels.
//
// Rahimi & Recht, "Random features for large-scale kernel machines", NIPS 2007:
//   - [RahimiRecht]: Claim 1, P(sup|k̂ − k| ≥ ε) ≤ 2^8(σ_p·diam/ε)² exp(−mε²/(4(d+2))).
//
// Sutherland & Schneider, "On the error of random Fourier features", UAI 2015:
//   - [SutherlandSchneider], [SutherlandBeta]: Proposition 1 for the cos/sin map,
//     P(‖f̃‖_∞ ≥ ε) ≤ β_d(σ_pℓ/ε)^{2d/(d+2)} exp(−Dε²/(8(d+2)α_ε)) with D = 2m columns; the constants are
//     reconstructed from the paper's derivation (docs/conventions.md §8.10).
//
// Munkhoeva, Kapushev, Burnaev & Oseledets, "Quadrature-based features for kernel approximation", NeurIPS 2018:
//   - [Quadrature], [QuadratureBeta]: Proposition 3.1 (SR(3,3) rules), D ≥ 8M²(d+1)/ε²[(2/(1+1/d))log(σ_p lκμ/ε) +
//     log(β_d/δ)].
//   - [QuadratureRFF]: the RFF counterpart printed after Proposition 3.1.
//   - [KRR]: Proposition 3.2, the points needed for a kernel ridge prediction error ε, over any uniform kernel bound.
//
// Brault, Heinonen & d'Alché-Buc, "Random Fourier features for operator-valued kernels", ACML 2016 (docs/conventions.md §4):
//   - [ORFF]: Theorem 10, the uniform spectral-norm error of ORFF maps; [ORFF.Variance]: Proposition 12;
//     [OVKConstants]: E[A], V[A], ‖‖A(ω)‖₂‖_ψ₁⁻¹ and the other constants for the Gaussian curl-free, div-free and
//     decomposable kernels.
//
// # Inversions
//
// Theorems 1, 2 and 4 are radii, inverted in closed form both ways: ε = F(H + T√(2τ))/√m, m = ⌈(F(H + T√(2τ))/ε)²⌉.
// The other bounds are probabilities P(ε, m) that decrease in m and in ε: Points is their closed form (Theorem 5:
// a binary search, the bound being a sum of two exponentials), and Error is a bisection on ε down to adjacent
// floats. All Points results are checked against the bound itself, so Points and Error agree exactly: for
// m = Points(ε, δ), Error(m, δ) ≤ ε < Error(m−1, δ). [Guarantee.Method] records which was used.
//
// # Points where the papers are ambiguous or wrong (decisions)
//
//   - Theorem 1's h is not monotone in |S| below |S| = (√e − 1)/2 ≈ 0.324 (its 1/√log(2|S|+1) term); implemented as
//     printed. Theorem 2's volume factor makes it non-monotone in d and r.
//   - Sutherland & Schneider count columns (D = 2m for m frequencies); this package counts frequencies and converts.
//     α_ε's inner term is the variance ½ + ½k(2δ) − k(δ)² of cos(ωᵀδ); α_ε = 1 is always valid.
//   - Proposition 3.1 writes p = N(0, σ_p²I) but follows Sutherland & Schneider, whose σ_p² is E‖ω‖² (the
//     Lipschitz step needs E‖ω‖²); σ_p² = E‖ω‖² = d/σ_k² is used (the larger, conservative reading). Its "M = ½ for
//     the RBF kernel" holds only when l ≤ σ_k: M = sup_ρ |1 − cos(ρ zᵀδ/σ_k)|/ρ² = l²/(2σ_k²); the default is
//     max(½, l²/(2σ_k²)).
//   - Proposition 3.2's (λ₀+1) assumes |k| ≤ 1 (κ = 1 in its ‖k_x‖_∞ ≤ κ); the paper reuses κ for sup|φ|.
//   - ORFF: the div-free V[A] is printed as d(4d−3)I/σ⁴; the exact value is 3(d−1)I/σ⁴ (docs/conventions.md §8.9). The
//     printed (larger, so still valid) value is the default; ORFF.ExactVariance selects the exact one. The worked
//     examples after Proposition 12 omit its K₀(0)E[A] term; the Proposition as stated is implemented. Theorem 10's
//     printed ū = 2m log(2^{3/2}(m/b)²) is not scale-invariant (m ~ 1/σ², b ~ 1/σ⁴) and turns negative for small σ;
//     the default is ū = 2m log(2^{3/2}m²/b), matching the U·log(U/σ_X) of the matrix Bernstein inequality the
//     proof uses (ORFF.PrintedUBar restores the literal formula; the proof sketch prints log(2(m/b)² + 1)).
package bound
