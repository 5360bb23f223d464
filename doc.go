// Package rff fits kernel models at the cost of linear ones, through random and quadrature-based feature maps,
// and is the entry point of the rff library: a Config says what to fit, Fit fits it on data, and the Model it
// returns predicts, describes itself and saves to a file that Load reads back in this and later releases.
//
//	data, _ := dataset.Load("train.csv", dataset.Options{})
//	m, err := rff.Fit(rff.Config{Kernel: "gaussian", Sigma: 2, Points: 1024, Lambda: 1e-6}, data)
//	err = m.Save("model.rff")
//	m, err = rff.Load("model.rff")
//	pred, err := m.Predict(test) // columns matched by name
//
// A model holds the preprocessing of the inputs (fitted on the training data), the feature map — kernel × rule ×
// nonlinearity, D points giving 2D cos/sin features (docs/conventions.md §2, §3) — or, for exact kernel ridge
// regression, the training rows, the learned weights, and the names of its inputs, targets and classes. Every model
// kind goes through it: ridge regression and classification (one-hot or simplex codes), linear SVMs and logistic
// regression on features, exact kernel ridge regression, vector-valued regression with decomposable, curl-free,
// divergence-free and Helmholtz operator-valued kernels (Brault et al. 2016; docs/conventions.md §4), Hermite
// learning from values and derivatives (Sriperumbudur & Szabó 2015), and streamed fits of files larger than memory
// (FitCSV).
//
// Model files store the explicit parameters of their map (points, weights, phases, B(ω)), never only a seed, so a
// release that draws points differently still reads every file (docs/conventions.md §11; package model has the
// format).
//
// Vector fields (docs/conventions.md §11). For curl-free, divergence-free and Helmholtz kernels the inputs may only be
// shifted and scaled by one common factor (the "isotropic" preprocessing, their default): the Jacobian of the fitted
// field in the raw coordinates is then that in the scaled ones divided by the factor, so the field is exactly
// curl-free (symmetric Jacobian) or divergence-free (traceless Jacobian) in the user's coordinates. Per-column
// standardization is refused for them.
//
// Errors. Data and files a caller supplies never make the library panic: bad shapes, NaN or infinite values, unknown
// names, inconsistent model files and impossible configurations are returned as errors that name the input. A panic
// is reserved for documented programmer misuse, and never happens on a worker goroutine.
//
// Linear algebra runs in pure Go by default; UseOpenBLAS switches the program to OpenBLAS when it is installed.
// Importing any package of the module has no process-wide effect.
//
// Determinism. The same data, Config and seed give the same model bytes on every run and for any GOMAXPROCS, on one
// machine with one linear-algebra backend: the learners split their sums by the size of the data, never by the
// number of goroutines, and OpenBLAS, whose rounding depends on its thread count, runs a count that does not follow
// GOMAXPROCS (RFF_THREADS, by default the machine's CPUs lowered to a container's CPU limit). On other CPUs, with the
// other backend, another OpenBLAS or another RFF_THREADS, the model is the same only up to rounding errors (amplified
// by the conditioning of the fit), not byte for byte.
package rff
