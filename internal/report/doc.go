// Package report writes the report of a fit as one self-contained HTML page, for a person to look at rather than
// read: the figures are inline SVG, the styles inline CSS, and the page runs no script and loads nothing from
// anywhere, so it opens the same from a disk, a mail attachment or an artifact store.
//
// A Page is plain data: a title, headline numbers (Stat), a grid of panels — each a Figure with its caption, or a
// note where a figure cannot be drawn — and tables of name–value rows. The figures are:
//
//   - Tuning: the score of every (σ, λ) pair a tuning scored against λ on a log axis, one line per σ (coloured from
//     dark to light as σ grows), the chosen pair ringed;
//   - Predictions.Parity: predicted against true values of held-out rows, with the identity line, on equal axes;
//   - Predictions.Residuals: true − predicted against predicted, with the zero line;
//   - Calibration: for the central p-intervals of the predictive normal laws, the fraction of held-out targets
//     inside against p, with the diagonal of a calibrated model (Coverage computes the fractions);
//   - Confusion: a classifier's confusion matrix as a heat map, cells shaded by their share of the true class and
//     labelled with their counts.
//
// The figures are drawn by a few helpers (axes with 1-2-5 ticks or labelled powers of ten, scatter plots, lines
// broken at missing values, legends) that format every number and escape every string they write; the page is an
// html/template, which escapes the rest. Scatter plots draw at most MaxPoints rows, evenly spaced.
//
// The rff command writes this page for rff fit --report.
package report
