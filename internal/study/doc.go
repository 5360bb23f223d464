// Package study holds the experiments behind `rff repro`: each reproduces a figure or a theorem of one of the papers
// the project implements, on the papers' real datasets (loaded with their splits and preprocessing by [Benchmark])
// or on synthetic data, and writes its figures (PNG, with the data of each as CSV beside it).
//
// Every study has the same shape. It is a struct whose exported fields are its settings, built with its defaults by
// the constructor of its [Entry] in the registry ([All], [Find]); the fields tagged `flag:"name"` are its
// command-line flags, bound by [Bind]. Its [Study] methods validate the settings (refusing sizes that overflow or
// exceed one array before anything is allocated), estimate the memory Run needs (which `rff repro` compares with
// --max-memory before it starts), count the units of work Run reports to its progress callback, and run it; the
// [Result] prints a text table (Summarize) and writes the files (Write), and marshals to the JSON object of
// `rff repro --json`.
//
//   - quad-fig2 ([QuadFig2]): Munkhoeva et al. (2018), §4.3 and Figure 2 — test accuracy / R² of a linear model (SVM
//     for classification) on quadrature and random features vs n, D = 2n(d+1), for every rule and the Gaussian and
//     arc-cosine kernels on Powerplant, LETTER and USPS.
//   - quad-fig3 ([QuadFig3]): Munkhoeva et al. (2018), §4.4 and Figure 3 — the time to map rows against the input
//     dimension d for dense and butterfly rules.
//   - rates-sup, rates-diameter, rates-lr, rates-deriv ([RatesSup], [RatesDiameter], [RatesLr], [RatesDeriv]):
//     Sriperumbudur & Szabó (2015) — the sup error over S×S falls as m^{−1/2} (Theorem 1) and grows only like
//     √(log|S|) with the diameter of S; the L^r error (Theorem 2) and the errors of kernel derivatives
//     (Theorems 4–5) fall as m^{−1/2}; each figure draws the theorem's bound.
//   - orff-fig1a, orff-fig1b ([ORFFFig1A], [ORFFFig1B]): Brault et al. (2016), Figure 1 — the spectral-norm sup
//     error of decomposable, curl-free and divergence-free ORFF approximations vs D, and the empirical variance of
//     the curl-free approximation against the bound of Proposition 12.
//   - orff-fig2, orff-fig3, orff-multitask ([ORFFFig2], [ORFFFig3], [ORFFMultitask]): the learning experiments of
//     Brault et al. (2016), §5.2 and supplement D.2 — MNIST with simplex coding, the 5-D curl-free field, and the
//     R²⁰ → R⁴ multi-task data.
//
// The datasets live outside the project, in the directory a data study's DataDir names (`rff repro --data-dir`, by
// default the environment variable RFF_DATA); loaders return an error wrapping [ErrNoData] when a file is missing,
// and the tests skip on it.
package study
