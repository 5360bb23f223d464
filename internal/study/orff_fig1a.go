package study

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/approx"
	"github.com/rffkit/rff/internal/plotting"
	"github.com/rffkit/rff/ovk"
)

// ORFFFig1A reproduces Figure 1A of Brault, Heinonen & d'Alché-Buc, "Random Fourier features for operator-valued
// kernels" (ACML 2016; docs/conventions.md §4): the empirical uniform error ‖K̃ − K‖_∞ = sup ‖K̃(x,z) − K(x,z)‖₂
// (spectral norm, the paper's Eq. (8)) of ORFF maps with D points, for the Gaussian decomposable (A = I_p),
// curl-free and divergence-free kernels, on Points points drawn uniformly from [−1,1]^d (1000 points in d = p = 4,
// as in the paper). The paper observes on a log–log plot that "all three kernels have the same convergence rate,
// up to a multiplicative factor"; that rate is D^{−1/2} (Theorem 10 with the variance of Proposition 12 ∝ 1/D),
// which the summary tests at −0.5 ± 0.1.
//
// The supremum runs over Pairs pairs (x_i, x_j) drawn at random among the points (the same pairs for every D and
// run; ovk.SupError evaluates them), not over all Points² pairs: it is a lower bound on the supremum over the
// sample. The paper gives neither σ nor the range of D; σ = 1 and D = 2³ … 2¹³ are used by default.
type ORFFFig1A struct {
	// Kernels are ovk kernel names; the decomposable kernel uses A = I.
	Kernels []string `json:"kernels" flag:"kernels" help:"comma list of operator-valued kernels (decomposable uses A = I)"`
	// Dim is the input dimension d = p.
	Dim int `json:"d" flag:"d" help:"input dimension d = number of outputs p"`
	// Points is the number of points drawn uniformly from [−1,1]^d.
	Points int `json:"points" flag:"points" help:"points drawn uniformly from [−1,1]^d"`
	// Pairs is the number of pairs (x_i, x_j) over which the supremum is taken.
	Pairs int `json:"pairs" flag:"pairs" help:"pairs of points over which the sup is taken"`
	// Ds are the numbers of points D of the maps; a map has 2·D·p' features.
	Ds []int `json:"map_points" flag:"D" help:"comma list of D, the number of points (frequencies) of the ORFF maps"`
	// Sigma is the Gaussian bandwidth σ.
	Sigma float64 `json:"sigma" flag:"sigma" help:"Gaussian bandwidth σ"`
	Draws
	Progress
}

// NewORFFFig1A returns the study with its defaults: decomposable, curl-free and div-free kernels, d = 4, 1000
// points, 4096 pairs, D = 2³ … 2¹³, σ = 1, 10 runs of the rule g (the paper's iid sampling).
func NewORFFFig1A() *ORFFFig1A {
	return &ORFFFig1A{Kernels: []string{"decomposable", "curl-free", "div-free"}, Dim: 4, Points: 1000, Pairs: 4096,
		Ds: powersOfTwo(3, 13), Sigma: 1, Draws: defaultDraws(10)}
}

// Validate checks the settings, without building anything of the size of d.
func (s *ORFFFig1A) Validate() error {
	if s.Dim < 1 || s.Points < 2 || s.Pairs < 1 || len(s.Kernels) == 0 {
		return fmt.Errorf("d and pairs must be at least 1, points at least 2 (the pairs are drawn among them), and a kernel given, got %d, %d, %d and %d kernels",
			s.Dim, s.Points, s.Pairs, len(s.Kernels))
	}
	errs := []error{checkArray("--points × --d (the points)", s.Points, s.Dim),
		checkArray("--pairs × --d (the pairs)", s.Pairs, s.Dim),
		checkArray("--d × --d (the d×d kernel values)", s.Dim, s.Dim),
		checkPositiveInts("D", s.Ds), checkBandwidth(s.Sigma), s.Draws.check(),
		checkWork("--kernels × --D × --runs", len(s.Kernels), len(s.Ds), s.Runs)}
	for _, name := range s.Kernels {
		kind, err := s.kind(name)
		errs = append(errs, err)
		if err == nil {
			_, pr := orffRank(kind, s.Dim, s.Dim)
			for _, D := range s.Ds {
				errs = append(errs, checkORFF("--D × --d", D, s.Dim, pr))
			}
		}
	}
	return firstError(append(errs, checkSweep("--D", s.Ds))...)
}

// kind checks the named kernel in dimension d, without building its d×d matrix A = I (kernel does), and returns
// its kind.
func (s *ORFFFig1A) kind(name string) (ovk.Kind, error) {
	k, err := ovk.Parse(name, s.Sigma, identity(1))
	if err != nil {
		return 0, err
	}
	if _, err := k.Outputs(s.Dim); err != nil {
		return 0, err
	}
	return k.Kind(), nil
}

// kernel builds the named kernel (decomposable: A = I_d) and checks it works in dimension d.
func (s *ORFFFig1A) kernel(name string) (*ovk.Kernel, error) {
	k, err := ovk.Parse(name, s.Sigma, identity(s.Dim))
	if err != nil {
		return nil, err
	}
	if _, err := k.Outputs(s.Dim); err != nil {
		return nil, err
	}
	return k, nil
}

// Memory is the points and the pairs (Points·d + 2·Pairs·d + Pairs values), the results of the runs, and the
// largest map with its kernel (orffMapBytes; p = d outputs) together with what every worker of ovk.SupError holds
// for one pair (the projections, D values, and four p×p matrices).
func (s *ORFFFig1A) Memory() float64 {
	r, d := s.parseRule(), float64(s.Dim)
	base := floats(float64(s.Points), d) + floats(2*float64(s.Pairs), d) + floats(float64(s.Pairs)+float64(s.Runs))
	var peak float64
	for _, name := range s.Kernels {
		kind, err := s.kind(name)
		if err != nil {
			continue
		}
		p, pr := orffRank(kind, s.Dim, s.Dim)
		for _, D := range s.Ds {
			m := orffMapBytes(kind, r, s.Dim, D, p, pr)
			peak = largest(peak, m+workers()*floats(drawnPoints(r, s.Dim, D, true)+5*d*d))
		}
	}
	return base + peak
}

// MemoryFlags names the flags that lower Memory.
func (s *ORFFFig1A) MemoryFlags() string { return "--pairs, --points, --d, --D, --runs" }

func identity(p int) *mat.SymDense {
	a := mat.NewSymDense(p, nil)
	for i := range p {
		a.SetSym(i, i, 1)
	}
	return a
}

// Steps is the number of maps Run measures; 0 for invalid settings.
func (s *ORFFFig1A) Steps() int { return steps(s, len(s.Kernels)*len(s.Ds)*s.Runs) }

// Fig1ARow is one point of [ORFFFig1A]: the sup over the pairs of ‖K̃ − K‖₂ for D points, over the runs.
type Fig1ARow struct {
	Kernel string `json:"kernel"`
	D      int    `json:"points_requested"` // points requested
	Points int    `json:"points"`           // points drawn (SR rules round up)
	Stat
}

// uniformCube draws n points uniformly from [−1,1]^d (row-major).
func uniformCube(n, d int, rng *rand.Rand) []float64 {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = 2*rng.Float64() - 1
	}
	return x
}

// Run draws the points and the pairs once, then measures every (kernel, D, run).
func (s *ORFFFig1A) Run(ctx context.Context) (Result, error) {
	return run(ctx, s, plan[Fig1ARow]{s, s.Rule, s.measure, s.summarize, s.write, fig1aTable})
}

var fig1aTable = table[Fig1ARow]{columns: "kernel\tD\tmean sup ‖K̃ − K‖₂\t±95%", format: "%s\t%d\t%.4g\t%.2g",
	row: func(r Fig1ARow) []any { return []any{r.Kernel, r.Points, r.Mean, r.CI95[1] - r.Mean} }}

func (s *ORFFFig1A) measure(ctx context.Context) ([]Fig1ARow, error) {
	r := s.parseRule()
	d := s.Dim
	rng := rand.New(rand.NewPCG(s.Seed, 0xf161a))
	pts := uniformCube(s.Points, d, rng)
	X, Z := make([]float64, s.Pairs*d), make([]float64, s.Pairs*d)
	for i := range s.Pairs {
		a, b := rng.IntN(s.Points), rng.IntN(s.Points)
		copy(X[i*d:(i+1)*d], pts[a*d:(a+1)*d])
		copy(Z[i*d:(i+1)*d], pts[b*d:(b+1)*d])
	}
	var rows []Fig1ARow
	for _, name := range s.Kernels {
		k, err := s.kernel(name)
		if err != nil {
			return nil, err
		}
		for _, D := range s.Ds {
			row := Fig1ARow{Kernel: k.Name(), D: D}
			vals := make([]float64, s.Runs)
			for run := range s.Runs {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				m, err := ovk.New(k, r, d, D, approx.RunSeed(s.Seed, "orff-fig1a/"+k.Name(), D, run))
				if err != nil {
					return nil, err
				}
				row.Points = m.Points()
				if vals[run], err = ovk.SupError(m, X, Z, s.Pairs); err != nil {
					return nil, fmt.Errorf("orff-fig1a %s, D=%d: %w", k.Name(), D, err)
				}
				s.step()
			}
			row.Stat = statOf(vals)
			rows = append(rows, row)
		}
	}
	return rows, nil
}

func fig1aKernel(r Fig1ARow) string { return r.Kernel }

func fig1aPoint(r Fig1ARow) point { return point{x: float64(r.Points), stat: r.Stat} }

// summarize fits, for each kernel, the log–log slope of the mean sup error against D (theory −0.5 ± 0.1) and
// reports the constant factors between the kernels at the largest D.
func (s *ORFFFig1A) summarize(rows []Fig1ARow) (Summary, error) {
	return rateSummary(rows, fig1aKernel, fig1aPoint, "log mean sup ‖K̃ − K‖₂ = a + b·log D", func(slopes string, _, _ float64) string {
		order, idx := groupBy(rows, fig1aKernel)
		var last []string
		for _, key := range order {
			r := rows[idx[key][len(idx[key])-1]]
			last = append(last, fmt.Sprintf("%.3g (%s)", r.Mean, key))
		}
		return fmt.Sprintf("Figure 1A: the three ORFF approximations converge at the same rate D^−1/2, up to a "+
			"constant; measured log–log slope of the mean sup over %d pairs of ‖K̃ − K‖₂ vs D (%d points in "+
			"[−1,1]^%d, Gaussian σ=%g, %d runs): %s. At the largest D the errors are %s.", s.Pairs, s.Points, s.Dim,
			s.Sigma, rows[0].Runs, slopes, strings.Join(last, ", "))
	})
}

// write draws the mean sup error against D (log–log, one line per kernel with its 95% interval) as
// dir/orff-fig1a.png, with orff-fig1a.csv beside it.
func (s *ORFFFig1A) write(dir string, rows []Fig1ARow) ([]string, error) {
	fig := logLog(fmt.Sprintf("ORFF (Brault et al. 2016, Fig. 1A): sup over %d pairs of the spectral-norm error vs "+
		"D\n%d points in [−1,1]^%d, Gaussian σ=%g; mean ± 95%% CI (%d runs)", s.Pairs, s.Points, s.Dim, s.Sigma,
		rows[0].Runs), "D (points; 2·D·p' features)", "sup over pairs of the spectral-norm error")
	order, idx := groupBy(rows, fig1aKernel)
	for _, key := range order {
		se := plotting.Series{Name: key}
		for _, i := range idx[key] {
			measured(&se, float64(rows[i].Points), rows[i].Stat)
		}
		fig.Series = append(fig.Series, se)
	}
	return saveFigures(dir, figure{"orff-fig1a.png", fig})
}
