package rff

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/linalg"
)

// determinismDirEnv names the directory where a child process of TestDeterminism writes its models.
const determinismDirEnv = "RFF_TEST_DETERMINISM_DIR"

// determinismProcs are the GOMAXPROCS values of the child processes: one core, two, and a count that divides no
// shard layout evenly.
var determinismProcs = []int{1, 2, 3}

// TestDeterminism: the same seed gives the same model bytes for any GOMAXPROCS, on the backend the tests run on
// (OpenBLAS where it is installed, pure Go with RFF_BLAS=go). GOMAXPROCS is fixed when a process starts, so the test
// runs itself as child processes with GOMAXPROCS = 1, 2 and 3 (same environment otherwise, so the same backend and
// RFF_THREADS), each fitting every kind of model on the same generated data and writing the model files, and
// compares the files byte for byte. The data are large enough for the dense products, factorizations and
// eigendecompositions to reach the multi-threaded code of OpenBLAS and the parallel loops of the pure-Go kernels.
func TestDeterminism(t *testing.T) {
	if dir := os.Getenv(determinismDirEnv); dir != "" {
		writeDeterminismModels(t, dir)
		return
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	root := t.TempDir()
	outs := make([]string, len(determinismProcs))
	for i, procs := range determinismProcs {
		outs[i] = filepath.Join(root, "procs"+strconv.Itoa(procs))
		if err := os.Mkdir(outs[i], 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestDeterminism$", "-test.count=1")
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs), determinismDirEnv+"="+outs[i])
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("child with GOMAXPROCS=%d: %v\n%s", procs, err, out)
		}
		backend, err := os.ReadFile(filepath.Join(outs[i], "backend.txt"))
		if err != nil {
			t.Fatal(err)
		}
		name, info, _ := strings.Cut(string(backend), "\n")
		if name != linalg.Info().Backend {
			t.Fatalf("child with GOMAXPROCS=%d ran on %s, this process on %s", procs, info, linalg.Info())
		}
		t.Logf("GOMAXPROCS=%d: %s", procs, info)
	}
	for _, c := range determinismCases() {
		var ref []byte
		for i, procs := range determinismProcs {
			b, err := os.ReadFile(filepath.Join(outs[i], c.name+".rff"))
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				ref = b
				continue
			}
			if !bytes.Equal(b, ref) {
				t.Errorf("%s: the model bytes differ between GOMAXPROCS=%d and GOMAXPROCS=%d (%d of %d bytes)",
					c.name, determinismProcs[0], procs, bytesDiffer(ref, b), len(ref))
			}
		}
	}
}

func bytesDiffer(a, b []byte) int {
	n := max(len(a), len(b)) - min(len(a), len(b))
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// determinismCase fits one model; dir is the child's output directory (for the streamed fit's CSV file).
type determinismCase struct {
	name string
	fit  func(dir string) (*Model, error)
}

// determinismCases are every kind of fit, on data generated from fixed seeds. Models on D = 128 points (F = 256
// features) see n = 2600 rows: more than one chunk of rows (2048 at this F), so the statistics are accumulated in
// several shards on several goroutines, and the F×F systems are factorized by multi-threaded code; exact models see
// the first 400 rows (vector-valued: 300 rows of 3 outputs), enough for their N×N Gram matrices to be too.
func determinismCases() []determinismCase {
	const n, d, seed = 2600, 12, 7
	reg := determinismData(n, d, "regression")
	cls := determinismData(n, d, "classification")
	// The iterative classifiers' only dense products are the projections of a dense rule: 300 inputs make them
	// large enough for OpenBLAS to split them over threads.
	clsWide := determinismData(n, 25*d, "classification")
	vec := determinismData(600, 3, "vector")
	regSmall, _ := reg.Split(400)
	vecSmall, _ := vec.Split(300)
	rf := func(c Config) Config {
		c.Points, c.Seed = 128, seed
		if c.Lambda == 0 && !c.Tune && c.CV == 0 { // tuning and CV choose λ
			c.Lambda = 1e-4
		}
		return c
	}
	fit := func(c Config, data *dataset.Data) func(string) (*Model, error) {
		return func(string) (*Model, error) { return Fit(c, data) }
	}
	vecCfg := func(ovk string, exact bool) Config {
		c := rf(Config{OVK: ovk, Targets: []string{"g1", "g2", "g3"}, Exact: exact})
		if exact {
			c.Points = 0
		}
		return c
	}
	return []determinismCase{
		{"ridge-cholesky", fit(rf(Config{Solver: "cholesky"}), reg)},
		{"ridge-cg", fit(rf(Config{Solver: "cg"}), reg)},
		{"ridge-dense-rule", fit(rf(Config{Rule: "g"}), reg)},
		{"ridge-mixed", fit(rf(Config{Precision: "mixed"}), reg)},
		{"ridge-cv", fit(rf(Config{CV: 3, Lambdas: []float64{1e-6, 1e-4, 1e-2}}), reg)},
		{"classification", fit(rf(Config{Task: "classification"}), cls)},
		{"classification-simplex", fit(rf(Config{Task: "classification", Encoding: "simplex"}), cls)},
		{"tune-classification", fit(rf(Config{Task: "classification", Tune: true, Sigmas: []float64{2, 4}, Lambdas: []float64{1e-6, 1e-3}}), cls)},
		{"tune-decomposable", fit(func() Config {
			c := vecCfg("decomposable", false)
			c.Tune, c.A, c.Sigmas, c.Lambdas, c.Lambda = true, "covariance", []float64{0.5, 1}, []float64{1e-6, 1e-3}, 0
			return c
		}(), vec)},
		{"hinge", fit(rf(Config{Task: "classification", Loss: "hinge", Lambda: 1e-3, Rule: "g"}), clsWide)},
		{"logistic", fit(rf(Config{Task: "classification", Loss: "logistic", Lambda: 1e-3, Rule: "g"}), clsWide)},
		{"exact-krr", fit(Config{Exact: true, Lambda: 1e-4}, regSmall)},
		{"ovk-decomposable", fit(vecCfg("decomposable", false), vec)},
		{"ovk-curl-free", fit(vecCfg("curl-free", false), vec)},
		{"ovk-decomposable-exact", fit(vecCfg("decomposable", true), vecSmall)},
		{"ovk-curl-free-exact", fit(vecCfg("curl-free", true), vecSmall)},
		{"hermite", func(string) (*Model, error) {
			data, values, grads := determinismHermite(1000, d)
			return FitHermite(rf(Config{}), data, values, grads)
		}},
		{"streamed", func(dir string) (*Model, error) {
			path := filepath.Join(dir, "reg.csv")
			if err := writeDeterminismCSV(path, reg); err != nil {
				return nil, err
			}
			// Chunks of 1000 rows: the statistics arrive in several batches, as from a large file.
			return FitCSV(rf(Config{}), path, StreamOptions{ChunkRows: 1000})
		}},
		// A PCA step: the covariance of 300 columns is accumulated by the multi-threaded Syrk.
		{"pca", fit(rf(Config{Task: "classification", Preprocess: "standardize,pca:40"}), clsWide)},
		{"streamed-pca", func(dir string) (*Model, error) {
			path := filepath.Join(dir, "reg-pca.csv")
			if err := writeDeterminismCSV(path, reg); err != nil {
				return nil, err
			}
			return FitCSV(rf(Config{Preprocess: "standardize,pca-whiten:6"}), path, StreamOptions{ChunkRows: 1000})
		}},
	}
}

// writeDeterminismModels is the child process: it fits every case and writes its model file into dir.
func writeDeterminismModels(t *testing.T, dir string) {
	info := linalg.Info()
	if err := os.WriteFile(filepath.Join(dir, "backend.txt"), []byte(info.Backend+"\n"+info.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range determinismCases() {
		m, err := c.fit(dir)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var b bytes.Buffer
		if err := m.Write(&b); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.name+".rff"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// determinismData generates n rows of d inputs in [-2, 2]: a smooth noisy target ("regression"), three classes
// cut from it ("classification"), or no target and three output columns g1, g2, g3, the gradient of a smooth
// potential ("vector": curl-free, so it suits both vector-valued kernels).
func determinismData(n, d int, kind string) *dataset.Data {
	rng := rand.New(rand.NewPCG(1, uint64(len(kind))))
	cols := d
	if kind == "vector" {
		cols += 3
	}
	data := &dataset.Data{N: n, D: cols, X: make([]float64, n*cols)}
	for j := range d {
		data.Names = append(data.Names, "x"+strconv.Itoa(j+1))
	}
	if kind == "vector" {
		data.Names = append(data.Names, "g1", "g2", "g3")
	} else {
		data.Y, data.TargetName = make([]float64, n), "y"
	}
	for i := range n {
		x := data.X[i*cols : i*cols+d]
		for j := range x {
			x[j] = 4*rng.Float64() - 2
		}
		f := math.Sin(x[0]) + x[1]*x[2]/2 + 0.05*rng.NormFloat64()
		switch kind {
		case "regression":
			data.Y[i] = f
		case "classification":
			data.Y[i] = float64(min(2, max(0, int(math.Floor(f+1)))))
		case "vector":
			// ∇(sin x₁ + x₂x₃/2) plus noise.
			g := data.X[i*cols+d : (i+1)*cols]
			g[0], g[1], g[2] = math.Cos(x[0]), x[2]/2, x[1]/2
			for j := range g {
				g[j] += 0.05 * rng.NormFloat64()
			}
		}
	}
	return data
}

// determinismHermite generates values of f = sin x₁ + x₂x₃/2 at every other row and its gradient (zero beyond the
// third input) at every row.
func determinismHermite(n, d int) (*dataset.Data, []float64, []float64) {
	data := determinismData(n, d, "regression")
	data.Y, data.TargetName = nil, ""
	values := make([]float64, n)
	grads := make([]float64, n*d)
	for i := range n {
		x := data.X[i*d : (i+1)*d]
		values[i] = math.NaN()
		if i%2 == 0 {
			values[i] = math.Sin(x[0]) + x[1]*x[2]/2
		}
		grads[i*d], grads[i*d+1], grads[i*d+2] = math.Cos(x[0]), x[2]/2, x[1]/2
	}
	return data, values, grads
}

// writeDeterminismCSV writes data (with a header and the target last) with every digit of every value.
func writeDeterminismCSV(path string, data *dataset.Data) error {
	var b strings.Builder
	b.WriteString(strings.Join(data.Names, ",") + "," + data.TargetName + "\n")
	for i := range data.N {
		for _, v := range data.Row(i) {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + ",")
		}
		fmt.Fprintf(&b, "%s\n", strconv.FormatFloat(data.Y[i], 'g', -1, 64))
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
