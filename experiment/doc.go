// Package experiment reproduces the papers' experiments on their real datasets: it loads the benchmarks with the
// papers' splits and preprocessing ([Benchmarks], [Benchmark.Load]) and runs the studies behind `rff repro`,
// each of which writes a figure (PNG) with its data (CSV) beside it.
//
//   - [QuadFig2]: Munkhoeva et al. (2018), §4.3 and Figure 2 — test accuracy / R² of a linear model (SVM for
//     classification) on quadrature and random features vs n, D = 2n(d+1), for every rule and the Gaussian and
//     arc-cosine kernels on Powerplant, LETTER and USPS.
//
// The datasets live outside the project (../shared/data); loaders return an error wrapping [ErrNoData] when a
// file is missing, and the tests skip on it.
package experiment
