// Package vector learns vector-valued functions f: R^d → R^p — multi-output regression, vector fields, multiclass
// classification by simplex coding — with operator-valued kernels K: R^d × R^d → R^{p×p} (package ovk), either
// through their operator-valued random Fourier feature (ORFF) maps or exactly. It implements the learning part of
// Brault, Heinonen & d'Alché-Buc, "Random Fourier Features for Operator-Valued Kernels" (ACML 2016), §5, with the
// conventions of docs/conventions.md §4 (kernels and maps) and §5 (learning).
//
// # Ridge regression on ORFF maps
//
// [Ridge] minimises, over θ ∈ R^F and an unpenalised bias b ∈ R^p (with Intercept),
//
//	L(θ, b) = (1/N) Σ_i ‖Φ̃(x_i)ᵀθ + b − y_i‖² + λ‖θ‖²        (paper Eq. (11), squared loss)
//
// for the ORFF map Φ̃ of an ovk.Map (F = 2·D·p' features for D points and factors B(ω) with p' columns), with the λ
// convention of learn.Ridge and learn.KRR, so that scalar, vector-valued, random-feature and exact fits are directly
// comparable. Every normal equation is a function of the scalar statistics of the map's cos/sin features (ZᵀZ, ZᵀY,
// Σz, Σy, N: a learn.Stats, accumulated by [Accumulate] in one pass over the data) and of the factors B(ω_j):
//
//	(ΦᵀΦ)[(f,k),(g,l)] = (ZᵀZ)[f,g]·(B(ω_j)ᵀB(ω_l))[k,l],   (ΦᵀY)[(f,k)] = Σ_a B(ω_j)[a,k]·(ZᵀY)[f,a],
//
// so the same statistics serve every kernel, data in memory, a file streamed from disk and shards merged by a
// distributed engine ([Ridge.Solve], [Ridge.SolvePath]). The solvers ([Solver]) reach the same optimum:
//
//   - ClosedForm (decomposable kernels K = k₀·A): the Stein equation ZᵀZ·Θ·BᵀB + NλΘ = ZᵀY·B printed after the
//     paper's Eq. (12), decoupled by the eigenvectors of BᵀB into shifted Cholesky systems, or — for a λ path —
//     solved for every λ from two eigendecompositions (docs/conventions.md §5);
//   - Cholesky (any kernel): the F×F normal equations assembled from the scalar statistics, factorised in place;
//   - CG and LBFGS (any kernel, matrix-free): conjugate gradients on the normal equations, or L-BFGS on L(θ, b) —
//     the paper's choice for curl- and divergence-free kernels — with the design matrix applied from cached scalar
//     features, or through ovk.Map.Predict and ovk.Map.Adjoint when they do not fit in memory.
//
// A [Fit] holds θ and b; it predicts ([Fit.Predict]) and differentiates ([Fit.Jacobian]: symmetric for curl-free
// kernels, traceless for divergence-free ones) with the map it was fitted with.
//
// # Exact operator-valued kernel ridge regression
//
// [KRR] is the baseline that ORFF ridge converges to as D grows (Micchelli & Pontil 2005): the same objective over
// the vector-valued RKHS of K, solved on the Np×Np block Gram matrix (ovk.Gram) for curl-free, divergence-free and
// Helmholtz kernels, and as the Stein equation K₀αA + Nλα = Y on the N×N scalar Gram for decomposable ones, with a
// memory guard; with an intercept it centres in feature space exactly as learn.KRR does.
//
// # Multiclass learning with simplex coding
//
// [SimplexKernel] is the decomposable kernel k₀·CCᵀ of the paper's MNIST experiment (C the simplex code,
// learn.SimplexCode; docs/conventions.md §5, §8.1); [Ridge.FitSimplex] and [KRR.FitSimplex] fit on simplex-coded
// labels and [Fit.Classify] and [KRRFit.Classify] decode.
package vector
