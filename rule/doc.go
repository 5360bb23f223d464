// Package rule draws the points ω_j and weights w_j of a cubature rule for the standard Gaussian measure:
//
//	E_{ω~N(0,I_d)}[f(ω)] ≈ Σ_j w_j f(ω_j) + w₀ f(0),   Σ_j w_j + w₀ = 1,
//
// which is the one idea under every random-feature map (docs/conventions.md §1; Munkhoeva et al. 2018, eq. (3)). Rules differ only
// in how the points and weights are drawn (docs/conventions.md §3):
//
//   - [G]: iid Gaussian points, w_j = 1/D (Rahimi & Recht 2007; the SR(1,1) rule, Munkhoeva et al. Prop. 2.1).
//   - [ORF]: blocks S·Q, Q Haar orthogonal (sign-fixed QR), S diagonal with iid χ_d entries (Yu et al. 2016; the
//     SR(1,3) rule, Prop. 2.2). Unbiased.
//   - [SORF]: blocks √n·H D₁ H D₂ H D₃ with H the normalized Walsh–Hadamard matrix of size n = 2^⌈log₂ d⌉ and Dᵢ
//     random sign diagonals, input zero-padded to n; applied by fast Walsh–Hadamard transforms in O(n log n) per block,
//     never as a dense matrix. Rows have the fixed norm √n, so the estimate is biased by O(1/d) (Yu et al. 2016).
//   - [QMC]: a randomized Halton sequence (random shift modulo 1 per dimension) mapped through the normal quantile
//     (Yang et al. 2014). Unbiased thanks to the random shift.
//   - [GQ]: the subsampled dense Gauss–Hermite grid of Dao, De Sa & Ré (2017): each coordinate of each point is drawn
//     independently from the m Gauss–Hermite nodes with probability equal to the node weight, w_j = 1/D. It is
//     unbiased for the tensor-grid quadrature, which itself is exact only for polynomials of degree ≤ 2m−1 in each
//     coordinate: its error converges to that quadrature's bias, not to zero (see [GQ]). m = 2 (the default, as in
//     the reference code) reduces every coordinate to ±1.
//   - [SR]: the stochastic spherical–radial rule of degree (3,3) (Genz & Monahan 1998; Munkhoeva et al. eq. (5) with
//     one radius per vertex):
//     SR(f) = (1 − Σ_j d/((d+1)ρ_j²)) f(0) + d/(d+1) Σ_j [f(ρ_j Q v_j) + f(−ρ_j Q v_j)]/(2ρ_j²),
//     v_j the d+1 vertices of the regular simplex, ρ_j ~ χ_{d+2}, Q a Haar rotation or a product of three
//     independent random butterflies with random signs (Genz 1998; O(d log d)). The rule is unbiased only for Haar Q;
//     independent butterfly factors bring the bias below what 20 000 seeds resolve for d ≤ 8, where the reference
//     code's single butterfly applied three times is biased by tens of standard errors. It is exact for every polynomial of degree ≤ 3 and unbiased for every integrable f. For even
//     integrands (cos/sin features) the ± pair of a vertex collapses into one point of weight d/((d+1)ρ_j²); otherwise
//     both points are kept with half that weight each. The zero-node weight w₀ has mean 0 and is negative about half
//     the time: it is returned by [Points.Zero] for the feature map to expose as a scalar offset (docs/conventions.md §3.6, §8.3);
//     ρ is never resampled, which would bias the rule.
//
// A realization is a [Points]: it projects a batch of inputs, dst = X·Wᵀ, through a dense GEMM or a structured
// operator. Structured rules never materialize W; [Dense] does so on request (for kernels whose spectral law needs a
// coordinatewise transform of the points). [DrawBytes] estimates the memory of a realization before it is drawn:
// orf and sr-haar draw whole d×d rotations even for a single point.
//
// Point counts: D is the number of points (frequencies). The cos/sin feature map doubles it into 2D columns. SR rules
// come in whole rules of d+1 (even) or 2(d+1) points, so they round D up to the next multiple; [Points.Len] tells the
// count actually drawn. With D = 2n(d+1), as in the quadrature paper's protocol, nothing is rounded.
package rule
