package feature_test

import (
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/goldenfile"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.json from the current code")

// The golden draws: every rule (rule.Names and gq:3) × every kernel (kernel.Names) × every form, drawn at one seed
// with D points on d inputs, and the features of a few fixed rows.
const (
	goldenSeed  = 7
	goldenD     = 12
	goldenSigma = 1.5
	// goldenTol is the relative rounding tolerance, applied to the scale of each feature (see goldenTolerance).
	goldenTol = 1e-12
	// goldenMinChange is how many tolerances the features of the next seed must move by somewhere: a change in how
	// points are drawn moves features by O(amplitude), about 1e12 tolerances for these inputs.
	goldenMinChange = 1e6
)

var goldenFile = filepath.Join("testdata", "golden.json")

// goldenX are the input rows (d = 5): moderate values, so that the projections ωᵀx are O(1) for σ = 1.5, and no
// signed sum of a subset of a row's entries is within 3e-4 of 0, so that the points of the Gauss–Hermite grids (whose
// coordinates share a few values) never project a row to a rounding error away from the jump of φ₀.
var goldenX = [][]float64{
	{0.3137, -0.7218, 1.0941, 0.0583, -0.4426},
	{-1.1862, 0.6094, 0.2371, 0.8757, -0.1529},
	{0.7912, 0.4468, -0.5603, -0.9874, 0.3351},
}

type golden struct {
	About  string       `json:"about"`
	Seed   uint64       `json:"seed"`
	Points int          `json:"points"`
	Sigma  float64      `json:"sigma"`
	X      [][]float64  `json:"x"`
	Maps   []goldenDraw `json:"maps"`
}

// goldenDraw is one map: what New reports and the features of the rows of x.
type goldenDraw struct {
	Kernel   string      `json:"kernel"`
	Rule     string      `json:"rule"`
	Form     string      `json:"form"`
	Points   int         `json:"points"`
	Features int         `json:"features"`
	Offset   float64     `json:"offset"`
	Z        [][]float64 `json:"z"`
}

func (g goldenDraw) key() string { return g.Kernel + " × " + g.Rule + " (" + g.Form + ")" }

func goldenRules() []string { return append(rule.Names(), "gq:3") }

type goldenCase struct {
	kernel, rule string
	form         feature.Form
	formName     string
}

func goldenCases(t *testing.T) []goldenCase {
	var cs []goldenCase
	for _, kn := range kernel.Names() {
		k, err := kernel.New(kn, goldenSigma)
		if err != nil {
			t.Fatal(err)
		}
		for _, rn := range goldenRules() {
			if _, ok := k.(kernel.Pointwise); ok {
				cs = append(cs, goldenCase{kn, rn, feature.CosSin, "pointwise"})
				continue
			}
			cs = append(cs, goldenCase{kn, rn, feature.CosSin, "cos/sin"}, goldenCase{kn, rn, feature.CosPhase, "cos+phase"})
		}
	}
	return cs
}

// drawGolden draws the case's map at seed and returns its record, the tolerance of every feature, and the positions
// where the features may legitimately jump (a step nonlinearity at a projection within rounding of 0).
func drawGolden(t *testing.T, c goldenCase, seed uint64) (goldenDraw, [][]float64, [][]bool) {
	t.Helper()
	k, err := kernel.New(c.kernel, goldenSigma)
	if err != nil {
		t.Fatal(err)
	}
	r, err := rule.Parse(c.rule)
	if err != nil {
		t.Fatal(err)
	}
	d := len(goldenX[0])
	m, err := feature.New(k, r, d, goldenD, seed, feature.WithForm(c.form))
	if err != nil {
		t.Fatalf("%s × %s: %v", c.kernel, c.rule, err)
	}
	g := goldenDraw{Kernel: c.kernel, Rule: c.rule, Form: c.formName, Points: m.Points(), Features: m.Features(),
		Offset: m.Offset()}
	n, f := m.Points(), m.Features()
	x := make([]float64, 0, len(goldenX)*d)
	for _, row := range goldenX {
		x = append(x, row...)
	}
	z := make([]float64, len(goldenX)*f)
	if err := m.TransformRows(z, x, len(goldenX)); err != nil {
		t.Fatal(err)
	}
	proj := make([]float64, len(goldenX)*n)
	m.ProjectBlock(proj, x, len(goldenX))
	tol, jump := goldenTolerance(t, g.key(), k, c.form, m, proj)
	for i := range goldenX {
		g.Z = append(g.Z, z[i*f:(i+1)*f])
	}
	return g, tol, jump
}

// goldenTolerance bounds the rounding of each feature. A feature is a_j·φ(p_j) with the amplitude a_j = √(c·w_j)
// (c = 1 for cos/sin, 2 for cos+phase, the kernel's factor for a pointwise kernel) and the projection p_j = ω_jᵀx
// (+ b_j, |b_j| < 2π, for cos+phase). Computed by another BLAS backend or summation order, p_j changes by a few ulps
// of S_j = Σ_i |ω_ji x_i| (+ 2π); computed by a structured transform (sorf, sr-butterfly), by a few ulps of its
// intermediate values, O(‖x‖) = O(1) here (a point whose dense row is exactly 0 projects to ±1e-16). φ = cos, sin
// and max(0,·) are 1-Lipschitz, and a_j and φ carry a few ulps of a_j. So every feature is within a few ulps of
// a_j·(1 + S_j), and 1e-12·a_j·(1 + S_j) leaves a margin of thousands while a different draw moves features by O(a_j).
// The step φ₀ = Θ jumps by a_j where p_j crosses 0: positions with |p_j| within the projection's tolerance (in practice
// points that are exactly 0, such as the zero node of a Gauss–Hermite grid) are reported in jump and not compared. The
// map's projections are checked against ω_jᵀx at the same tolerance, so that S_j is the scale they are rounded at.
func goldenTolerance(t *testing.T, what string, k kernel.Kernel, form feature.Form, m *feature.Map, proj []float64) ([][]float64, [][]bool) {
	t.Helper()
	n, f, d := m.Points(), m.Features(), m.Dim()
	omega, w := m.Frequencies(), m.Weights()
	c, extra, step := 1.0, 0.0, false
	if pk, ok := k.(kernel.Pointwise); ok {
		c = pk.Factor()
		ac, isArcCos := k.(kernel.ArcCos)
		step = isArcCos && ac.Order == 0
	} else if form == feature.CosPhase {
		c, extra = 2, 2*math.Pi
	}
	tol := make([][]float64, len(goldenX))
	jump := make([][]bool, len(goldenX))
	for i, x := range goldenX {
		tol[i], jump[i] = make([]float64, f), make([]bool, f)
		for col := range f {
			j := col % n
			var s, p float64
			for l := range d {
				s += math.Abs(omega[j*d+l] * x[l])
				p += omega[j*d+l] * x[l]
			}
			if e := math.Abs(proj[i*n+j] - p); e > goldenTol*(1+s) {
				t.Fatalf("%s: row %d point %d: projection %v, ωᵀx = %v: not within rounding of S = %v", what, i, j, proj[i*n+j], p, s)
			}
			tol[i][col] = goldenTol * math.Sqrt(c*math.Abs(w[j])) * (1 + s + extra)
			jump[i][col] = step && math.Abs(p) <= goldenTol*(1+s)
		}
	}
	return tol, jump
}

func TestGoldenDraws(t *testing.T) {
	cases := goldenCases(t)
	if *update {
		out := golden{About: "feature maps drawn at a fixed seed and their features on fixed rows; regenerate with " +
			"go test ./feature -run TestGolden -update", Seed: goldenSeed, Points: goldenD, Sigma: goldenSigma, X: goldenX}
		for _, c := range cases {
			g, _, _ := drawGolden(t, c, goldenSeed)
			out.Maps = append(out.Maps, g)
		}
		writeGolden(t, out)
		return
	}
	var want golden
	if err := goldenfile.Read(goldenFile, &want); err != nil {
		t.Fatalf("%v (create it with go test ./feature -run TestGolden -update)", err)
	}
	if want.Seed != goldenSeed || want.Points != goldenD || want.Sigma != goldenSigma || fmt.Sprint(want.X) != fmt.Sprint(goldenX) {
		t.Fatalf("%s was written for another seed, D, σ or input: seed %d, D %d, σ %v, x %v", goldenFile, want.Seed, want.Points, want.Sigma, want.X)
	}
	byKey := map[string]goldenDraw{}
	for _, g := range want.Maps {
		byKey[g.key()] = g
	}
	if len(byKey) != len(cases) {
		t.Errorf("%s holds %d maps, the rules × kernels × forms are %d (run -update after adding one)", goldenFile, len(byKey), len(cases))
	}
	least, leastKey, jumps := math.Inf(1), "", 0
	for _, c := range cases {
		got, tol, jump := drawGolden(t, c, goldenSeed)
		for _, row := range jump {
			for _, j := range row {
				if j {
					jumps++
				}
			}
		}
		w, ok := byKey[got.key()]
		if !ok {
			t.Errorf("%s: not in %s", got.key(), goldenFile)
			continue
		}
		compareGolden(t, got, w, tol, jump)

		// The comparison can fail: the next seed's draw is far outside the tolerance.
		next, _, _ := drawGolden(t, c, goldenSeed+1)
		moved := goldenfile.MaxScaledDiff(next.Z, w.Z, tol)
		if moved < goldenMinChange {
			t.Errorf("%s: seed %d moves the features by only %.3g tolerances", got.key(), goldenSeed+1, moved)
		}
		if moved < least {
			least, leastKey = moved, got.key()
		}
	}
	t.Logf("%d maps; the next seed moves every map by ≥ %.3g tolerances (least: %s); %d step features within rounding of the jump",
		len(cases), least, leastKey, jumps)
}

func compareGolden(t *testing.T, got, want goldenDraw, tol [][]float64, jump [][]bool) {
	t.Helper()
	if got.Points != want.Points || got.Features != want.Features || len(got.Z) != len(want.Z) {
		t.Errorf("%s: %d points, %d features, %d rows; golden %d, %d, %d", got.key(), got.Points, got.Features, len(got.Z),
			want.Points, want.Features, len(want.Z))
		return
	}
	// The zero-node weight w₀ = 1 − Σ w_j is rounded at the scale of the weights, which sum to at most a few units.
	if math.Abs(got.Offset-want.Offset) > goldenTol*(1+math.Abs(want.Offset)) {
		t.Errorf("%s: offset %v, golden %v", got.key(), got.Offset, want.Offset)
	}
	if wrong := goldenfile.Mismatch(got.Z, want.Z, tol, jump); wrong != "" {
		t.Errorf("%s: %s", got.key(), wrong)
	}
}

// writeGolden writes one map per line, numbers in their shortest exact form.
func writeGolden(t *testing.T, g golden) {
	t.Helper()
	if err := goldenfile.Write(goldenFile, g, "maps"); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d maps)", goldenFile, len(g.Maps))
}
