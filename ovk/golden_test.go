package ovk_test

import (
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/internal/goldenfile"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.json from the current code")

// The golden draws: every rule (rule.Names and gq:3) × the decomposable kernel with A = I₂, the curl-free, the
// divergence-free and the Helmholtz kernel with w = 0.5, drawn at one seed with D points on d = 3 inputs, and the
// design matrix of a few fixed rows.
const (
	goldenSeed  = 7
	goldenD     = 12
	goldenSigma = 1.5
	// goldenTol is the relative rounding tolerance, applied to the scale of each entry (see goldenTolerance).
	goldenTol = 1e-12
	// goldenMinChange is how many tolerances the features of the next seed must move by somewhere: a change in how
	// points are drawn moves features by O(amplitude), about 1e11 tolerances for these inputs.
	goldenMinChange = 1e6
)

var goldenFile = filepath.Join("testdata", "golden.json")

// goldenX are the input rows (d = 3), with projections ωᵀx = O(1) for σ = 1.5.
var goldenX = [][]float64{
	{0.4127, -0.8361, 0.2954},
	{-0.6718, 0.1543, 0.9286},
}

var goldenKernels = []string{"decomposable", "curl-free", "div-free", "helmholtz:0.5"}

type golden struct {
	About  string       `json:"about"`
	Seed   uint64       `json:"seed"`
	Points int          `json:"points"`
	Sigma  float64      `json:"sigma"`
	A      []float64    `json:"a"`
	X      [][]float64  `json:"x"`
	Maps   []goldenDraw `json:"maps"`
}

// goldenDraw is one map: what New reports and its design matrix on the rows of x, row r·p+a for output a of row r.
type goldenDraw struct {
	Kernel   string      `json:"kernel"`
	Rule     string      `json:"rule"`
	Points   int         `json:"points"`
	Outputs  int         `json:"outputs"`
	Rank     int         `json:"rank"`
	Features int         `json:"features"`
	Offset   float64     `json:"offset"`
	Phi      [][]float64 `json:"phi"`
}

func (g goldenDraw) key() string { return g.Kernel + " × " + g.Rule }

func goldenRules() []string { return append(rule.Names(), "gq:3") }

// goldenA is the decomposable kernel's output matrix, I₂.
func goldenA() *mat.SymDense { return mat.NewSymDense(2, []float64{1, 0, 0, 1}) }

// drawGolden draws the map of kernel kn and rule rn at seed and returns its record and the tolerance of every entry.
func drawGolden(t *testing.T, kn, rn string, seed uint64) (goldenDraw, [][]float64) {
	t.Helper()
	k, err := ovk.Parse(kn, goldenSigma, goldenA())
	if err != nil {
		t.Fatal(err)
	}
	r, err := rule.Parse(rn)
	if err != nil {
		t.Fatal(err)
	}
	d := len(goldenX[0])
	m, err := ovk.New(k, r, d, goldenD, seed)
	if err != nil {
		t.Fatalf("%s × %s: %v", kn, rn, err)
	}
	g := goldenDraw{Kernel: kn, Rule: rn, Points: m.Points(), Outputs: m.Outputs(), Rank: m.Rank(),
		Features: m.Features(), Offset: m.Offset()}
	x := make([]float64, 0, len(goldenX)*d)
	for _, row := range goldenX {
		x = append(x, row...)
	}
	rows, f := len(goldenX)*m.Outputs(), m.Features()
	phi := make([]float64, rows*f)
	if err := m.TransformRows(phi, x, len(goldenX)); err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		g.Phi = append(g.Phi, phi[i*f:(i+1)*f])
	}
	return g, goldenTolerance(t, g.key(), m, x)
}

// goldenTolerance bounds the rounding of each entry. Entry (r·p+a, f·p'+k) is z_f(x_r)·B(ω_j)[a,k], j = f mod D, with
// the scalar feature z_f = √w_j cos(p_rj) or √w_j sin(p_rj) and the projection p_rj = ω_jᵀx_r. Computed by another
// BLAS backend, summation order or structured transform, p_rj changes by a few ulps of S_rj = Σ_i |ω_ji x_ri| + 1 (the
// 1 for the structured transforms' intermediate values, O(‖x‖) = O(1) here), so z_f by a few ulps of √w_j·S_rj;
// B(ω_j) is computed from ω_j (curl-free: ω_j; divergence-free and Helmholtz: ‖ω_j‖ times a Householder basis) or
// from A (decomposable), to a few ulps of b_j = max(max|B(ω_j)|, ‖ω_j‖ when B depends on ω). The entry therefore
// moves by a few ulps of √w_j·(1 + S_rj)·b_j + √w_j·b_j, and 1e-12·√w_j·(2 + S_rj)·(1 + b_j) leaves a margin of
// thousands, while a different draw moves entries by O(√w_j·b_j). The scalar features of the map (ScalarBlock) are
// checked against √w_j cos/sin(ω_jᵀx) at that tolerance, so that S_rj is the scale the projections are rounded at.
func goldenTolerance(t *testing.T, what string, m *ovk.Map, x []float64) [][]float64 {
	t.Helper()
	pr := m.Params()
	pts, err := rule.Restore(pr.Points)
	if err != nil {
		t.Fatal(err)
	}
	W := rule.Dense(pts)
	n, d, p, rank := m.Points(), m.Dim(), m.Outputs(), m.Rank()
	perPoint := len(pr.B) == n*p*rank
	b := make([]float64, n)
	omega := make([]float64, n*d)
	for j := range n {
		s := 1.0
		if pr.Scale != nil {
			s = pr.Scale[j]
		}
		var norm2 float64
		for l := range d {
			omega[j*d+l] = s * W[j*d+l]
			norm2 += omega[j*d+l] * omega[j*d+l]
		}
		bj := pr.B
		if perPoint {
			bj = pr.B[j*p*rank : (j+1)*p*rank]
			b[j] = math.Sqrt(norm2)
		}
		for _, v := range bj {
			b[j] = max(b[j], math.Abs(v))
		}
	}
	rows := len(goldenX)
	z := make([]float64, rows*2*n)
	m.ScalarBlock(z, x, rows, nil)
	f := m.Features()
	tol := make([][]float64, rows*p)
	for r := range rows {
		xr := x[r*d : (r+1)*d]
		scale := make([]float64, n) // √w_j·(2 + S_rj)
		for j := range n {
			var s, proj float64
			for l := range d {
				s += math.Abs(omega[j*d+l] * xr[l])
				proj += omega[j*d+l] * xr[l]
			}
			amp := math.Sqrt(pr.Points.Weights[j])
			scale[j] = amp * (2 + s)
			c, sn := amp*math.Cos(proj), amp*math.Sin(proj)
			if math.Abs(z[r*2*n+j]-c) > goldenTol*scale[j] || math.Abs(z[r*2*n+n+j]-sn) > goldenTol*scale[j] {
				t.Fatalf("%s: row %d point %d: scalar features %v, %v; √w cos, sin of ωᵀx = %v, %v: not within rounding",
					what, r, j, z[r*2*n+j], z[r*2*n+n+j], c, sn)
			}
		}
		for a := range p {
			row := make([]float64, f)
			for col := range f {
				j := (col / rank) % n
				row[col] = goldenTol * scale[j] * (1 + b[j])
			}
			tol[r*p+a] = row
		}
	}
	return tol
}

func TestGoldenDraws(t *testing.T) {
	if *update {
		out := golden{About: "ORFF maps drawn at a fixed seed and their design matrices on fixed rows; regenerate with " +
			"go test ./ovk -run TestGolden -update", Seed: goldenSeed, Points: goldenD, Sigma: goldenSigma,
			A: goldenA().RawSymmetric().Data, X: goldenX}
		for _, kn := range goldenKernels {
			for _, rn := range goldenRules() {
				g, _ := drawGolden(t, kn, rn, goldenSeed)
				out.Maps = append(out.Maps, g)
			}
		}
		writeGolden(t, out)
		return
	}
	var want golden
	if err := goldenfile.Read(goldenFile, &want); err != nil {
		t.Fatalf("%v (create it with go test ./ovk -run TestGolden -update)", err)
	}
	if want.Seed != goldenSeed || want.Points != goldenD || want.Sigma != goldenSigma ||
		fmt.Sprint(want.X) != fmt.Sprint(goldenX) || fmt.Sprint(want.A) != fmt.Sprint(goldenA().RawSymmetric().Data) {
		t.Fatalf("%s was written for another seed, D, σ, A or input: seed %d, D %d, σ %v, A %v, x %v", goldenFile,
			want.Seed, want.Points, want.Sigma, want.A, want.X)
	}
	byKey := map[string]goldenDraw{}
	for _, g := range want.Maps {
		byKey[g.key()] = g
	}
	if n := len(goldenKernels) * len(goldenRules()); len(byKey) != n {
		t.Errorf("%s holds %d maps, the kernels × rules are %d (run -update after adding one)", goldenFile, len(byKey), n)
	}
	least, leastKey := math.Inf(1), ""
	for _, kn := range goldenKernels {
		for _, rn := range goldenRules() {
			got, tol := drawGolden(t, kn, rn, goldenSeed)
			w, ok := byKey[got.key()]
			if !ok {
				t.Errorf("%s: not in %s", got.key(), goldenFile)
				continue
			}
			compareGolden(t, got, w, tol)

			// The comparison can fail: the next seed's draw is far outside the tolerance.
			next, _ := drawGolden(t, kn, rn, goldenSeed+1)
			moved := goldenfile.MaxScaledDiff(next.Phi, w.Phi, tol)
			if moved < goldenMinChange {
				t.Errorf("%s: seed %d moves the features by only %.3g tolerances", got.key(), goldenSeed+1, moved)
			}
			if moved < least {
				least, leastKey = moved, got.key()
			}
		}
	}
	t.Logf("the next seed moves every map by ≥ %.3g tolerances (least: %s)", least, leastKey)
}

func compareGolden(t *testing.T, got, want goldenDraw, tol [][]float64) {
	t.Helper()
	if got.Points != want.Points || got.Outputs != want.Outputs || got.Rank != want.Rank || got.Features != want.Features ||
		len(got.Phi) != len(want.Phi) {
		t.Errorf("%s: %d points, %d outputs, rank %d, %d features, %d rows; golden %d, %d, %d, %d, %d", got.key(),
			got.Points, got.Outputs, got.Rank, got.Features, len(got.Phi), want.Points, want.Outputs, want.Rank,
			want.Features, len(want.Phi))
		return
	}
	// The zero-node weight w₀ = 1 − Σ w_j is rounded at the scale of the weights, which sum to at most a few units.
	if math.Abs(got.Offset-want.Offset) > goldenTol*(1+math.Abs(want.Offset)) {
		t.Errorf("%s: offset %v, golden %v", got.key(), got.Offset, want.Offset)
	}
	if wrong := goldenfile.Mismatch(got.Phi, want.Phi, tol, nil); wrong != "" {
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
