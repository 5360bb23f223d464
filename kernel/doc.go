// Package kernel holds the exact scalar kernels that every approximation in rff is measured against,
// their spectral laws, and parallel exact Gram matrices.
//
// Two families are covered (docs/conventions.md §2; Munkhoeva et al. 2018, eq. (3)):
//
//   - Shift-invariant kernels k(x,y) = κ(x−y) = E_ω[cos(ωᵀ(x−y))] (Bochner): Gaussian, Laplacian (ℓ1),
//     Matérn ν ∈ {1/2, 3/2, 5/2} (ℓ2) and Cauchy. They implement [Spectral]: their [Law] says how a
//     frequency ω is obtained from a standard Gaussian point z, ω = Scale·s·T(z), so that any quadrature or
//     Monte Carlo rule for the Gaussian measure (package rule) serves every kernel. For the Gaussian, T is the
//     identity and s = 1; for Matérn, s = sqrt(2ν/g) with g ~ χ²_{2ν} drawn per point makes ω multivariate
//     Student-t; for the product kernels (Laplacian, Cauchy) T maps each coordinate through the exact
//     quantile transform F⁻¹(Φ(z)) of the Cauchy or Laplace law.
//   - Pointwise nonlinear Gaussian kernels k(x,y) = c·E_{w~N(0,I)}[φ(wᵀx)φ(wᵀy)]: the arc-cosine kernels of
//     order 0 and 1 (Cho & Saul 2009), with φ₀ = Θ (Heaviside, Θ(0) = 1/2) and φ₁ = max(0,·), c = 2.
//     They implement [Pointwise].
//
// Bandwidth: every shift-invariant kernel takes σ. The Gaussian is exp(−‖δ‖²/(2σ²)) = exp(−γ‖δ‖²) with
// γ = 1/(2σ²); [SigmaFromGamma] converts. The default used by the command-line tool is γ = 1/d
// (σ = sqrt(d/2)), the quadrature paper's protocol (docs/conventions.md §10), applied to every shift-invariant kernel.
// [MedianSigma] chooses σ from the data instead, by the median heuristic: the median pairwise distance of (a
// deterministic sample of) the rows (docs/conventions.md §12.1).
//
// Derivatives ([Differentiable], [Deriv]; docs/conventions.md §6): exact ∂^{p,q}k(x, y) for any multi-indices p, q — every order for
// the Gaussian (Hermite polynomials per coordinate) and Cauchy kernels, |p|+|q| ≤ 2 and 4 for Matérn 3/2 and 5/2
// ([Differentiable.MaxOrder]); they are what the derivative features of package feature estimate.
//
// Exact Gram matrices ([Gram], [GramDense]) of the Gaussian and Matérn kernels take their squared distances from one
// matrix product, ‖x‖² + ‖y‖² − 2XYᵀ, on the BLAS backend of internal/linalg (OpenBLAS when present), and recompute
// directly the pairs where cancellation could cost more than a relative 1e-12. At large d this is much faster than
// the pairwise loop the other kernels use (BenchmarkGram; docs/performance.md); below d = 32 (d = 8 without AVX2)
// the loop itself is faster, and runs sixteen centres at a time (BenchmarkGramDirect), as it does for the Laplacian,
// Cauchy and arc-cosine kernels at every d where the CPU has AVX2 (BenchmarkGramLaplacian). Data on a grid — pixels/255,
// integer attributes divided by their maximum — get their squared distances exactly, from single-precision products
// of integers whose partial sums stay below 2²⁴ (docs/conventions.md §13.4; BenchmarkGramGrid). [Centres] keeps what
// Gram derives from fixed points (their norms, their grid form) for kernel matrices against them block after block.
package kernel
