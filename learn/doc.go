// Package learn fits linear models on random and quadrature features, and exact kernel ridge regression as the
// baseline they are measured against (docs/conventions.md §5).
//
// # Sufficient statistics
//
// Learning only sees features Z (N×F, one row z(x_i) per example; F = 2D columns for a cos/sin map of D points) and
// targets Y (N×P). Every quantity below is a function of
//
//	ZᵀZ (F×F),  ZᵀY (F×P),  Σ_i z_i (F),  Σ_i y_i (P),  Σ_i y_ij² (P),  N,
//
// which [Stats] accumulates block by block ([Stats.Add], blas64.Syrk on the upper triangle and Gemm for ZᵀY), so
// the same code serves data in memory, files streamed from disk and shards combined by a distributed engine
// ([Stats.Merge]). Z is never held whole: memory is O(F² + cores·chunk·F). An [Accumulator] (and [Accumulate], its
// one-batch form) maps X through a feature map (any [Mapper]: a *feature.Map, or the scalar features of an ORFF map)
// in chunks of rows (16 MiB of features: 1024 rows at F = 2048) on all cores, each of at most 8 shards of
// consecutive chunks accumulating its own partial statistics (together under 512 MiB); its result is bit-for-bit the same for every GOMAXPROCS because the partition of the rows into shards
// depends only on the batch sizes and F, never on the number of goroutines, and the shards are merged in row order.
//
// # Ridge regression on features
//
// [Ridge] minimises (docs/conventions.md §5, first item)
//
//	(1/N) Σ_i ‖θᵀz_i + b − y_i‖² + λ‖θ‖²
//
// over θ (F×P) and, when Intercept is set, an unpenalised bias b (P). Setting the gradient to zero gives
//
//	(ZᵀZ + NλI) θ = ZᵀY                                  (no intercept, b = 0)
//	(ZᵀZ − N z̄z̄ᵀ + NλI) θ = ZᵀY − N z̄ȳᵀ,  b = ȳ − θᵀz̄   (intercept: the centred normal equations)
//
// with z̄ = Σz_i/N and ȳ = Σy_i/N, so centring needs no second pass over the data. The system is solved by a
// Cholesky factorisation (dpotrf; [Ridge.SolveInPlace] factorises in the statistics' own storage), or by
// conjugate gradients with a Jacobi (diagonal) preconditioner applied to the accumulated ZᵀZ (Solver: CG), or — for
// F so large that ZᵀZ does not fit — by [Ridge.SolveMatrixFree], which never forms ZᵀZ: every iteration maps X
// again block by block and applies Zᵀ(ZV). [Ridge.FitMap] maps and accumulates the rows, then solves; its Progress
// field reports the rows mapped. Learners on SR features should fit an intercept: it absorbs the map's zero-node offset c (docs/conventions.md §3.6).
//
// # Choosing λ by cross-validation from statistics
//
// [CrossValidate] assigns row i to fold i mod k (interleaved, so data sorted by label or time still gives
// representative folds), accumulates the statistics of each fold once, and forms each training set's statistics as
// total − fold. For long grids the training (centred) ZᵀZ is eigendecomposed once per fold,
// ZᵀZ = U diag(μ) Uᵀ (mat.EigenSym), so that every λ of the grid costs two F×F by F×P products:
//
//	θ(λ) = U diag(1/(μ_i + N_t λ)) Uᵀ ZᵀY;
//
// for short grids (under 64 values; gonum's EigenSym costs about 100 Cholesky solves) each λ is solved by its own
// Cholesky factorisation instead. The held-out error is computed from the held-out fold's statistics with no second pass over its rows:
//
//	Σ_v ‖y − θᵀz − b‖² = Σy² − 2⟨θ, Z_vᵀY_v⟩ + ⟨θ, Z_vᵀZ_v θ⟩ − 2bᵀ(Σ_v y − θᵀΣ_v z) + N_v‖b‖².
//
// Classifiers are scored by held-out accuracy instead (docs/conventions.md §12.5). [CrossValidateClasses] (squared
// loss on one-hot or simplex codes, [Coding]) takes θ(λ) of every λ from the same training statistics and makes one
// more pass over each fold's held-out rows, predicting the whole grid at once, Z_v·[θ(λ₁) … θ(λ_L)], decoded as the
// model decodes; [CrossValidateClassifier] refits the hinge, squared-hinge or logistic [Classifier] on every fold
// for every λ. Ties of accuracy go to the larger λ. [CrossValidateScaled] and [SelectLambdaScaled] score outputs
// penalised by λ·c_j, the form of a decomposable vector-valued kernel decoupled along the eigenvectors of its A;
// [ScoreLambdas] scores a few λ by Cholesky factorisations instead of an eigendecomposition.
//
// # Choosing λ in closed form: GCV and the evidence
//
// [SelectLambda] evaluates a whole λ grid from the statistics and one eigendecomposition A = U diag(μ) Uᵀ of the
// (centred) ZᵀZ (docs/conventions.md §12.2, §12.3): the degrees of freedom df = [1] + Σ μ_k/(μ_k + Nλ), generalised
// cross-validation N·RSS/(P·(N − df)²), and the log evidence of Bayesian linear regression on the features,
// y = Zθ + b + ε with θ ~ N(0, σ²/(Nλ)·I) (λ = α/(Nβ)), ε ~ N(0, σ²), a flat prior on the bias, and σ² set to its
// maximum-likelihood value for each λ. Every λ then costs O(F·P).
//
// # Predictive uncertainty
//
// The ridge solution is the posterior mean of that model. [NewPosterior] keeps the Cholesky factor of A + NλI and
// a noise variance per output (RSS/(N − df)); [Posterior] gives the posterior standard deviation of f(x) = θᵀz + b
// (with or without the noise of a new observation), the joint covariance at given rows, the covariance of (θ, b),
// and joint pathwise posterior samples of f, deterministic for a seed (docs/conventions.md §12.4). The intercept's
// uncertainty σ²/N enters consistently with the centring.
//
// # Classification
//
// Class labels become regression targets by one-hot coding ([OneHot], decoded by [Argmax]) or by simplex coding
// (Mroueh et al. 2012; [SimplexCode], [SimplexEncode], [SimplexDecode]) with the corrected recursion of docs/conventions.md §8.1:
//
//	C₂ = [1, −1],   C_{j+1} = [[1, −(1/j)·1ᵀ_j], [0_{j−1}, √(1 − 1/j²)·C_j]],
//
// whose k columns are unit vectors of R^{k−1} with pairwise inner products −1/(k−1).
//
// # Hinge, squared-hinge and logistic losses
//
// [Classifier] trains classifiers with the losses of the quadrature paper's downstream study (a linear SVM on
// features) and logistic regression, with the same λ convention: (1/N)Σ ℓ(y_i, f(z_i)) + λ‖Θ‖². The SVMs
// (one-vs-rest) are solved in the dual by coordinate descent with shrinking (Hsieh et al. 2008, the method of
// liblinear, with C = 1/(2Nλ) and the bias as the weight of a constant feature); logistic regression is multinomial
// (softmax) with an unpenalised bias, minimised by L-BFGS (gonum/optimize). Both hold the feature matrix in memory
// ([Features], with a size guard), because they pass over the examples many times.
//
// # Gradient-enhanced (Hermite) learning
//
// [Hermite] fits f̃(x) = θᵀz(x) + b from observed values and observed partial derivatives: since ∂_j f̃(x) = θᵀ∂_j z(x)
// with the derivative features of Sriperumbudur & Szabó (2015) (feature.Map.Gradient, docs/conventions.md §6), every observed
// ∂_j f(x_i) is one more row of the same ridge problem; the unpenalised bias enters the value rows only.
// [Fit.PredictGradients] returns the model's gradients.
//
// # Operator-valued learning
//
// Vector-valued models on the operator-valued feature maps of package ovk (ridge regression with ORFF maps, exact
// operator-valued kernel ridge regression) live in package vector, which builds on the statistics of this package:
// the scalar cos/sin features of an ORFF map are a [Mapper], and their [Stats] are sufficient for every kernel.
//
// # Exact kernel ridge regression
//
// [KRR] solves the same objective with the exact kernel and the same λ convention, so its predictions are what the
// random-feature ridge converges to as D grows. Without intercept, (K + NλI)α = Y and f(x) = αᵀk(X, x). With an
// unpenalised intercept the problem is the ridge above in the kernel's feature space φ, centred: with
// H = I − 11ᵀ/N, the centred Gram is K̃ = HKH and
//
//	(K̃ + NλI) α = Y − 1ȳᵀ,   f(x) = αᵀ H (k(X,x) − m) + ȳ = αᵀ k(X,x) + (ȳ − αᵀm),
//
// where m_i = (1/N)Σ_j K_ij are the Gram row means; the last form holds because 1ᵀα = 0 (1 spans the null space of
// K̃, and Y − 1ȳᵀ is centred). The fit stores Hα, which makes the short form exact in floating point too.
package learn
