// Package experiment reproduces the papers' experiments on their real datasets: it loads the benchmarks with the
// papers' splits and preprocessing ([Benchmarks], [Benchmark.Load]) and runs the studies behind `rff repro`,
// each of which writes a figure (PNG) with its data (CSV) beside it.
//
//   - [QuadFig2]: Munkhoeva et al. (2018), §4.3 and Figure 2 — test accuracy / R² of a linear model (SVM for
//     classification) on quadrature and random features vs n, D = 2n(d+1), for every rule and the Gaussian and
//     arc-cosine kernels on Powerplant, LETTER and USPS.
//   - [RatesSup], [RatesDiameter], [RatesLr], [RatesDeriv]: Sriperumbudur & Szabó (2015) — the sup error over S×S
//     falls as m^{−1/2} (Theorem 1) and grows only like √(log|S|) with the diameter of S; the L^r error (Theorem 2) and
//     the errors of kernel derivatives (Theorems 4–5) fall as m^{−1/2}; each figure draws the theorem's bound.
//   - [ORFFFig1A], [ORFFFig1B]: Brault et al. (2016), Figure 1 — the spectral-norm sup error of decomposable,
//     curl-free and divergence-free ORFF approximations vs D, and the empirical variance of the curl-free
//     approximation against the bound of Proposition 12.
//
// The datasets live outside the project (../shared/data); loaders return an error wrapping [ErrNoData] when a
// file is missing, and the tests skip on it.
package experiment
