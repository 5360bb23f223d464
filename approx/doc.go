// Package approx measures how well a feature map approximates its kernel, on the protocol of the quadrature paper
// (Munkhoeva et al. 2018, §4.2; docs/conventions.md §10): two independent random subsets X and Y of a dataset, the exact Gram
// K = K(X,Y), and for each rule and n = 1, 2, … the approximation K̂ = Z_X Z_Yᵀ + c from D = 2n(d+1) points, over
// independent runs. It reports the relative Frobenius error ‖K − K̂‖_F / ‖K‖_F, the maximum and mean absolute errors,
// and for each (rule, n) the mean, the standard deviation and a 95% confidence interval for the mean
// (mean ± 1.96·sd/√runs) over the runs.
//
// Uniform and L^r errors over a set S (Sriperumbudur & Szabó 2015, Theorems 1–2; docs/conventions.md §7): [SupError] estimates
// sup_{x,y∈S} |k̂ − k| (and the same for derivatives) as a sup over δ ∈ S − S by dense random search plus gradient
// ascent, and reports a lower bound with its search budget; [LrError] integrates |k̂ − k|^r over S×S by Monte Carlo
// and reports the estimate with its standard error.
//
// The gq rule is unbiased for its Gauss–Hermite tensor grid, not for the kernel (docs/conventions.md §3.5): [GQKernel]
// is the grid's kernel K_grid that its estimate converges to, and [GQFloor] the floor ‖K − K_grid‖_F/‖K‖_F its
// relative Frobenius error cannot go below in expectation, however many points are drawn.
package approx
