// Package nystrom approximates kernel methods by restricting them to M landmark points (centres): Nyström features,
// which any learner of package learn accepts, and FALKON, a preconditioned iterative solver of the restricted kernel
// ridge regression problem that never holds the N×M kernel matrix.
//
// # Nyström features
//
// Given landmarks c_1 … c_M and a kernel k, the Nyström feature map (Williams & Seeger 2001) is any ψ with
//
//	⟨ψ(x), ψ(y)⟩ = k_M(x)ᵀ K_MM⁺ k_M(y),   k_M(x) = (k(c_1, x), …, k(c_M, x)),
//
// the kernel's projection onto the span of k(c_j, ·). Two bases give it, ψ(x) = Normᵀk_M(x) with:
//
//   - [Cholesky] (the default): the Cholesky factorization with complete pivoting PᵀK_MMP = UᵀU (LAPACK's dpstrf),
//     Norm = U⁻¹ on the landmarks the pivoting keeps, so ψ(x) = U⁻ᵀk_M(x). Pivoting takes at each step the landmark
//     whose kernel function is farthest from the span of those already taken (the largest residual
//     k(c, c) − k̃(c, c)) and stops when that residual is at most t·max_j k(c_j, c_j): the landmarks left are dropped,
//     each within that residual of the span, so the map has M' ≤ M landmarks and features (Map.Centres =
//     Map.Features). It costs M³/3 operations to build and a triangular product, M'²/2 multiply-adds per row, to
//     evaluate.
//   - [Eigen]: K_MM = UΛUᵀ, Norm = UΛ^{-1/2}, so ψ(x) = Λ^{-1/2}Uᵀk_M(x), with the eigenvalues λ_j ≤ t·λ_max and
//     their eigenvectors dropped (K_MM⁺ is then the pseudo-inverse of the truncated matrix; the map has M' ≤ M
//     features on all M landmarks). Its features are ordered by the variance they carry; building it costs an
//     eigendecomposition (about 10× the Cholesky factorization at M in the thousands) and evaluating it a dense
//     product, M·M' multiply-adds per row.
//
// When nothing is dropped the two maps differ by an orthogonal change of coordinates (both are K_MM^{-1/2}k_M(x)
// rotated), which leaves every inner product, and therefore every ridge prediction, unchanged. The threshold is t =
// DefaultThreshold = 1e-12 unless [WithThreshold] sets another. Duplicate landmarks, or landmarks that the kernel
// cannot tell apart, are handled by the truncation rather than by an error; what is dropped changes the
// approximation of the landmarks' own kernel matrix, K_MM − ΨΨᵀ, by at most t·λ_max (eigen) or t·max_j k(c_j, c_j)
// (Cholesky) in any entry.
//
// Landmarks are chosen by a [Selector] — [Uniform] (M rows without replacement), [KMeansPP] (k-means++ seeding,
// Arthur & Vassilvitskii 2007) or [Leverage] (approximate ridge leverage scores by recursive sampling, Musco & Musco
// 2017) — each deterministic for a seed, or given by the caller ([FromLandmarks]). Every kernel of package kernel
// works: the maps only evaluate it, through kernel.Gram.
//
// A [Map] is a learn.Mapper: learn.Accumulate and learn.Accumulator build ridge statistics on its features and
// learn.Ridge solves them, so the Nyström ridge estimator is
//
//	(ΨᵀΨ + NλI) θ = ΨᵀY,   f(x) = θᵀψ(x) (+ b with an intercept),
//
// which is the restricted kernel ridge regression problem below with α = Norm θ. Map.TransformBlock is safe for
// concurrent use. [Params] and [FromParams] give its explicit parameters — the landmarks and the normalization
// matrix Norm — so that a stored model never repeats the selection or the factorization.
//
// # FALKON
//
// Kernel ridge regression with the convention of package learn, (1/N)Σ‖f(x_i) − y_i‖² + λ‖f‖², restricted to
// f = Σ_j α_j k(c_j, ·), is the M×M system
//
//	(K_NMᵀ K_NM + NλK_MM) α = K_NMᵀ Y.
//
// [Falkon] solves it as Rudi, Carratino & Rosasco (2017, "FALKON: An Optimal Large Scale Kernel Method",
// Algorithm 1) do: with the upper Cholesky factors T of K_MM (TᵀT = K_MM + δI, δ a jitter of the order of rounding)
// and A of TTᵀ/M + λI, the preconditioner B = T⁻¹A⁻¹/√N makes BᵀHB (H the system matrix above) close to the
// identity when the centres are a uniform sample of the rows — because K_NMᵀK_NM/N is then close to K_MM²/M — and
// conjugate gradients on BᵀHB β = BᵀK_NMᵀY reach a small tolerance in a few tens of iterations, α = Bβ. How close
// to the identity depends on M against the effective dimension of the problem at λ (Rudi et al. bound the condition
// number of BᵀHB by a constant once M grows like that dimension times a logarithm): with few centres and a small λ
// CG needs more iterations, and a fixed budget (MaxIter) then stops at a residual of 1e-3 or so, whose predictions
// are already those of the exact solution to the accuracy that matters (docs/performance.md, MNIST). The products
// K_NM v and K_NMᵀ u are formed a block of rows at a time from the kernel, so memory is O(M² + block·M), never N×M;
// each iteration evaluates the N×M kernel once (N·M·d operations for the Gaussian kernel: on a CPU the cost that
// dominates, and that Nyström features pay only once).
//
// With Intercept the unpenalized bias is fitted by centring: the targets are centred and so are the columns of K_NM
// (a rank-one correction N·m̄m̄ᵀ, m̄ = K_NMᵀ1/N, applied implicitly), which gives exactly the estimate of
// learn.Ridge{Intercept: true} on Nyström features, b = ȳ − αᵀm̄.
package nystrom
