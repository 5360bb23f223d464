package study

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/bound"
	"github.com/rffkit/rff/internal/plotting"
	"github.com/rffkit/rff/ovk"
)

// ORFFFig1B reproduces Figure 1B of Brault, Heinonen & d'Alché-Buc (ACML 2016): for one pair (x, z) of [−1,1]^d, the
// empirical norm of the variance ‖V[K̃(x,z)]‖₂ of the curl-free ORFF approximation with D points, against the bound
// of Proposition 12,
//
//	‖V[K̃₀(δ)]‖₂ ≤ (‖(K₀(2δ) + K₀(0))E[A] − 2K₀(δ)²‖₂ + 2‖V[A]‖₂)/(2D),  δ = x − z,
//
// (bound.ORFF.Variance, divided by D), and its supremum over ‖δ‖ ≤ |C| = 2√d, the constant b/D of Theorem 10
// (bound.ORFF.VarianceSup). The variance is estimated by ovk.VarianceNorm: (1/S)Σ_s (K̃_s − K)² over Seeds maps
// (the exact K is the mean for an unbiased rule), Runs times; rows report the mean of the Runs estimates with its
// 95% interval. Both the variance and the bound fall as 1/D; the summary fits the slope (theory −1 ± 0.1) and
// checks that the measurement stays below the bound.
type ORFFFig1B struct {
	// Dim is the input dimension d = p.
	Dim int `json:"d" flag:"d" help:"input dimension d = number of outputs p"`
	// Sigma is the Gaussian bandwidth σ.
	Sigma float64 `json:"sigma" flag:"sigma" help:"Gaussian bandwidth σ"`
	// Ds are the numbers of points D.
	Ds []int `json:"map_points" flag:"D" help:"comma list of D, the number of points (frequencies) of the ORFF maps"`
	// Seeds is the number of maps behind one variance estimate.
	Seeds int `json:"seeds" flag:"seeds" help:"maps behind one variance estimate"`
	// X and Z are the pair (length d each); when nil they are drawn uniformly from [−1,1]^d with Seed.
	X []float64 `json:"x"`
	Z []float64 `json:"z"`
	Draws
	Progress
}

// NewORFFFig1B returns the study with its defaults: d = 4, σ = 1, D = 2³ … 2¹³, 200 maps per estimate, 10 runs of
// the rule g (the bound assumes iid frequencies), the pair drawn from the seed.
func NewORFFFig1B() *ORFFFig1B {
	return &ORFFFig1B{Dim: 4, Sigma: 1, Ds: powersOfTwo(3, 13), Seeds: 200, Draws: defaultDraws(10)}
}

// Validate checks the settings, without drawing the pair.
func (s *ORFFFig1B) Validate() error {
	if s.Dim < 1 || s.Seeds < 2 {
		return fmt.Errorf("orff-fig1b needs d ≥ 1 and seeds ≥ 2, got %d and %d", s.Dim, s.Seeds)
	}
	if (s.X != nil || s.Z != nil) && (len(s.X) != s.Dim || len(s.Z) != s.Dim) {
		return fmt.Errorf("the pair has %d and %d coordinates, want %d", len(s.X), len(s.Z), s.Dim)
	}
	errs := []error{checkBandwidth(s.Sigma), checkPositiveInts("D", s.Ds), s.Draws.check(),
		checkArray("--seeds × --d × --d (the squared errors of the maps)", s.Seeds, s.Dim, s.Dim),
		checkWork("--runs × --seeds (the maps)", s.Runs, s.Seeds, len(s.Ds))}
	for _, D := range s.Ds {
		errs = append(errs, checkORFF("--D × --d", D, s.Dim, 1))
	}
	return firstError(append(errs, checkSweep("--D", s.Ds))...)
}

// Memory is, for the largest D, one curl-free map per worker of ovk.EmpiricalVariance (orffMapBytes, with the
// projections and two p×p matrices, p = d) and one more for its number of points, the Seeds squared errors (p×p
// each) that the variance sums, and the results of the runs.
func (s *ORFFFig1B) Memory() float64 {
	r, d := s.parseRule(), float64(s.Dim)
	var peak float64
	for _, D := range s.Ds {
		m := orffMapBytes(ovk.CurlFree, r, s.Dim, D, s.Dim, 1)
		peak = largest(peak, (math.Min(workers(), float64(s.Seeds))+1)*(m+floats(drawnPoints(r, s.Dim, D, true)+2*d*d)))
	}
	return peak + floats(float64(s.Seeds), d*d+2) + floats(float64(s.Runs)+4*d*d)
}

// MemoryFlags names the flags that lower Memory.
func (s *ORFFFig1B) MemoryFlags() string { return "--seeds, --d, --D, --runs" }

// pair returns X and Z, or when both are nil a pair drawn uniformly from [−1,1]^d with Seed.
func (s *ORFFFig1B) pair() (x, z []float64) {
	if s.X == nil && s.Z == nil && s.Dim > 0 {
		rng := rand.New(rand.NewPCG(s.Seed, 0xf161b))
		return uniformCube(1, s.Dim, rng), uniformCube(1, s.Dim, rng)
	}
	return s.X, s.Z
}

// Steps is the number of variance estimates Run makes; 0 for invalid settings.
func (s *ORFFFig1B) Steps() int { return steps(s, len(s.Ds)*s.Runs) }

// Fig1BRow is one point of [ORFFFig1B]: the empirical ‖V[K̃(x,z)]‖₂ for D points, over the runs, and the bounds.
type Fig1BRow struct {
	D         int     `json:"points_requested"`
	Points    int     `json:"points"`
	DeltaNorm float64 `json:"delta_norm"` // ‖x − z‖
	Seeds     int     `json:"seeds"`      // maps per estimate
	Stat
	// Bound is Proposition 12 at δ = x − z, divided by D (bound.ORFF.Variance/D).
	Bound float64 `json:"bound"`
	// BoundSup is the supremum of Proposition 12 over ‖δ‖ ≤ |C| = 2√d, divided by D (Theorem 10's b/D).
	BoundSup float64 `json:"bound_sup"`
}

// Run measures the variance for every D.
func (s *ORFFFig1B) Run(ctx context.Context) (Result, error) {
	settings := *s
	settings.X, settings.Z = s.pair()
	t := table[Fig1BRow]{columns: "D\tmean ‖V̂‖₂\t±95%\tProposition 12\tsup over |C|", format: "%d\t%.4g\t%.2g\t%.4g\t%.4g",
		row: func(r Fig1BRow) []any { return []any{r.Points, r.Mean, r.CI95[1] - r.Mean, r.Bound, r.BoundSup} },
		notes: func(w io.Writer, rows []Fig1BRow) {
			fmt.Fprintf(w, "pair: x = %.4g, z = %.4g, ‖x − z‖ = %.4g\n", settings.X, settings.Z, rows[0].DeltaNorm)
		}}
	return run(ctx, s, plan[Fig1BRow]{&settings, s.Rule, settings.measure, s.summarize, s.write, t})
}

// measure measures the variance at the pair (X, Z), which must be set.
func (s *ORFFFig1B) measure(ctx context.Context) ([]Fig1BRow, error) {
	r, x, z := s.parseRule(), s.X, s.Z
	k, err := ovk.NewCurlFree(s.Sigma)
	if err != nil {
		return nil, err
	}
	var r2 float64
	for i := range x {
		r2 += (x[i] - z[i]) * (x[i] - z[i])
	}
	o := bound.ORFF{Kind: "curl-free", Dim: s.Dim, Sigma: s.Sigma, Diameter: 2 * math.Sqrt(float64(s.Dim))}
	v, err := o.Variance(math.Sqrt(r2))
	if err != nil {
		return nil, err
	}
	vsup, err := o.VarianceSup()
	if err != nil {
		return nil, err
	}
	var rows []Fig1BRow
	for _, D := range s.Ds {
		m, err := ovk.New(k, r, s.Dim, D, 0)
		if err != nil {
			return nil, err
		}
		row := Fig1BRow{D: D, Points: m.Points(), DeltaNorm: math.Sqrt(r2), Seeds: s.Seeds}
		vals := make([]float64, s.Runs)
		for run := range s.Runs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			seeds := make([]uint64, s.Seeds)
			for i := range seeds {
				seeds[i] = approx.RunSeed(s.Seed, "orff-fig1b", D, run*s.Seeds+i)
			}
			if vals[run], err = ovk.VarianceNorm(k, r, s.Dim, D, x, z, seeds); err != nil {
				return nil, fmt.Errorf("orff-fig1b, D=%d: %w", D, err)
			}
			s.step()
		}
		row.Stat = statOf(vals)
		row.Bound, row.BoundSup = v/float64(row.Points), vsup/float64(row.Points)
		rows = append(rows, row)
	}
	return rows, nil
}

// summarize fits the log–log slope of the mean empirical variance norm against D (theory −1 ± 0.1) and reports
// how far the Proposition 12 bound lies above it.
func (s *ORFFFig1B) summarize(rows []Fig1BRow) (Summary, error) {
	var x, y, bnd []float64
	var dv float64 // mean of D·‖V̂‖ over the rows
	below := true
	for _, r := range rows {
		x, y = append(x, float64(r.Points)), append(y, r.Mean)
		bnd = append(bnd, r.Bound)
		dv += float64(r.Points) * r.Mean / float64(len(rows))
		below = below && r.CI95[1] <= r.Bound
	}
	f, err := rateFit("curl-free", "log mean ‖V̂[K̃(x,z)]‖₂ = a + b·log D", x, y, -1, 0.1)
	if err != nil {
		return Summary{}, err
	}
	lo, up := ratioRange(bnd, y)
	verdict := "the bound holds at every D (upper 95% limit below it)"
	if !below {
		verdict = "the upper 95% limit of the measurement EXCEEDS the bound at some D"
	}
	r0 := rows[0]
	return Summary{Fits: []SeriesFit{f}, Finding: fmt.Sprintf("Figure 1B: Proposition 12 bounds D·‖V[K̃(x,z)]‖₂ "+
		"by a constant; measured for the curl-free kernel (d=%d, Gaussian σ=%g, ‖x−z‖=%.3f, %d maps per estimate, "+
		"%d runs): log–log slope of the empirical variance norm vs D %s (theory −1 ± 0.1), D·‖V̂‖ ≈ %.3g against the "+
		"bound's %.3g (sup over ‖δ‖ ≤ |C|: %.3g); the bound lies %.2f–%.2f× above the measurement, so %s.", s.Dim,
		s.Sigma, r0.DeltaNorm, r0.Seeds, r0.Runs, signed(f.Slope, f.SlopeSE), dv, r0.Bound*float64(r0.Points),
		r0.BoundSup*float64(r0.Points), lo, up, verdict)}, nil
}

// write draws the empirical variance norm against D with the Proposition 12 bound at δ and its supremum over the
// domain (log–log) as dir/orff-fig1b.png, with orff-fig1b.csv beside it.
func (s *ORFFFig1B) write(dir string, rows []Fig1BRow) ([]string, error) {
	fig := logLog(fmt.Sprintf("ORFF (Brault et al. 2016, Fig. 1B): variance norm of the curl-free ORFF kernel vs "+
		"D\nd=%d, σ=%g, ‖x−z‖=%.3f; empirical mean ± 95%% CI (%d runs) and Proposition 12", s.Dim, s.Sigma,
		rows[0].DeltaNorm, rows[0].Runs), "D (points; 2D features)", "spectral norm of the variance")
	meas := plotting.Series{Name: fmt.Sprintf("empirical variance norm (%d maps per estimate)", rows[0].Seeds)}
	bnd := plotting.Series{Name: "Proposition 12 bound at δ = x − z"}
	sup := plotting.Series{Name: "Proposition 12 bound, sup over ‖δ‖ ≤ |C| (b/D)"}
	for _, r := range rows {
		X := float64(r.Points)
		measured(&meas, X, r.Stat)
		line(&bnd, X, r.Bound)
		line(&sup, X, r.BoundSup)
	}
	fig.Series = []plotting.Series{meas, bnd, sup}
	return saveFigures(dir, figure{"orff-fig1b.png", fig})
}
