package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/rffkit/rff/internal/size"
)

// Generated is a synthetic multi-output dataset: X is row-major N×D, Y is row-major N×P (P outputs per row).
// [Data] holds a single target column, so the generators return this type; [Generated.Output] gives a
// single-output view as a Data.
type Generated struct {
	X    []float64 // row-major, N*D
	N, D int
	Y    []float64 // row-major, N*P
	P    int
	// Names are the input column names "x1" … "xD"; TargetNames the output names "y1" … "yP".
	Names, TargetNames []string
}

// Parameters of the synthetic datasets (docs/conventions.md §9).
const (
	// CurlFieldDim is the dimension of the curl-free field's inputs and outputs.
	CurlFieldDim = 5
	// CurlFieldPoints is the number of frequencies D of the random scalar potential (cos/sin: 2D coefficients).
	CurlFieldPoints = 100
	// CurlFieldSigma is the bandwidth of the Gaussian kernel whose random features define the potential.
	CurlFieldSigma = 0.4
	// MultitaskDim and MultitaskOutputs are the input and output dimensions of the multi-task data.
	MultitaskDim     = 20
	MultitaskOutputs = 4
)

// multitaskVar is the diagonal of the covariance of each row of W (Evgeniou et al. 2005; Audiffren & Kadri 2013).
var multitaskVar = [7]float64{0.5, 0.25, 0.1, 0.05, 0.15, 0.1, 0.15}

// Independent PCG streams for the model parameters, the inputs and the noise: the same seed gives the same field (or
// W) and the same inputs whatever the noise level, so noise-free and noisy data share their clean targets.
const (
	streamParams = 0x6f766b2d706172
	streamInputs = 0x6f766b2d696e70
	streamNoise  = 0x6f766b2d6e6f69
)

// Generators lists the names [Generate] accepts.
func Generators() []string { return []string{"curl-field", "multitask"} }

// Generate returns n rows of the synthetic dataset called name ("curl-field" or "multitask", see [Generators]),
// drawn deterministically from seed, with iid N(0, noise²) added to every target value.
func Generate(name string, n int, seed uint64, noise float64) (*Generated, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "curl-field", "curl":
		return GenerateCurlField(n, seed, noise)
	case "multitask", "multi-task":
		return GenerateMultitask(n, seed, noise)
	}
	return nil, fmt.Errorf("unknown generator %q (want one of %s)", name, strings.Join(Generators(), ", "))
}

func checkGenerate(name string, n, width int, noise float64) error {
	if n < 1 {
		return fmt.Errorf("%s: number of rows must be at least 1, got %d", name, n)
	}
	if nw, ok := size.Mul(n, width); !ok || nw > maxDense {
		return fmt.Errorf("%s: %d rows × %d columns exceed the limit of %d values", name, n, width, maxDense)
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return fmt.Errorf("%s: noise standard deviation must be finite and ≥ 0, got %v", name, noise)
	}
	return nil
}

func newGenerated(n, d, p int) *Generated {
	g := &Generated{X: make([]float64, n*d), N: n, D: d, Y: make([]float64, n*p), P: p, Names: genNames(d)}
	g.TargetNames = make([]string, p)
	for j := range g.TargetNames {
		g.TargetNames[j] = "y" + strconv.Itoa(j+1)
	}
	return g
}

func (g *Generated) addNoise(seed uint64, noise float64) {
	if noise == 0 {
		return
	}
	rng := rand.New(rand.NewPCG(seed, streamNoise))
	for i := range g.Y {
		g.Y[i] += noise * rng.NormFloat64()
	}
}

// curlField is the random scalar potential f(x) = z(x)ᵀθ of the curl-free field, with the Gaussian random Fourier
// feature map z(x) = (1/√D)[cos(ω_jᵀx)]_j ‖ [sin(ω_jᵀx)]_j, ω_j ~ N(0, σ⁻²I), θ ~ N(0, I_{2D}).
type curlField struct {
	omega []float64 // D×d
	theta []float64 // 2D
}

func newCurlField(seed uint64) *curlField {
	const d, D = CurlFieldDim, CurlFieldPoints
	rng := rand.New(rand.NewPCG(seed, streamParams))
	f := &curlField{omega: make([]float64, D*d), theta: make([]float64, 2*D)}
	for i := range f.omega {
		f.omega[i] = rng.NormFloat64() / CurlFieldSigma
	}
	for i := range f.theta {
		f.theta[i] = rng.NormFloat64()
	}
	return f
}

// value returns f(x).
func (f *curlField) value(x []float64) float64 {
	const d, D = CurlFieldDim, CurlFieldPoints
	var s float64
	for j := 0; j < D; j++ {
		var t float64
		for i, w := range f.omega[j*d : (j+1)*d] {
			t += w * x[i]
		}
		sn, cs := math.Sincos(t)
		s += cs*f.theta[j] + sn*f.theta[D+j]
	}
	return s / math.Sqrt(D)
}

// gradient writes ∇f(x) = (1/√D)Σ_j (cos(ω_jᵀx)θ_{D+j} − sin(ω_jᵀx)θ_j)·ω_j into dst.
func (f *curlField) gradient(dst, x []float64) {
	const d, D = CurlFieldDim, CurlFieldPoints
	clear(dst[:d])
	for j := 0; j < D; j++ {
		om := f.omega[j*d : (j+1)*d]
		var t float64
		for i, w := range om {
			t += w * x[i]
		}
		sn, cs := math.Sincos(t)
		c := cs*f.theta[D+j] - sn*f.theta[j]
		for i, w := range om {
			dst[i] += c * w
		}
	}
	s := 1 / math.Sqrt(D)
	for i := range dst[:d] {
		dst[i] *= s
	}
}

// GenerateCurlField returns n rows of the 5-D curl-free vector field of the ORFF paper (§5.2; docs/conventions.md §9): a random
// scalar potential f(x) = z(x)ᵀθ, with z a Gaussian cos/sin random Fourier feature map of bandwidth σ = 0.4 and
// D = 100 frequencies and θ ~ N(0, I), inputs x ~ U[−1,1]⁵, and targets y = ∇f(x) (analytic) plus iid N(0, noise²)
// noise. Without noise the field is a gradient, so its Jacobian (the Hessian of f) is symmetric. Columns: x1…x5,
// y1…y5. The same seed gives the same potential and inputs for every noise level and n (rows are a prefix).
func GenerateCurlField(n int, seed uint64, noise float64) (*Generated, error) {
	const d = CurlFieldDim
	if err := checkGenerate("curl-field", n, 2*d, noise); err != nil {
		return nil, err
	}
	f := newCurlField(seed)
	g := newGenerated(n, d, d)
	rng := rand.New(rand.NewPCG(seed, streamInputs))
	for i := range g.X {
		g.X[i] = 2*rng.Float64() - 1
	}
	for i := 0; i < n; i++ {
		f.gradient(g.Y[i*d:(i+1)*d], g.X[i*d:(i+1)*d])
	}
	g.addNoise(seed, noise)
	return g, nil
}

// multitaskW returns the 4×7 matrix W (row-major) of the multi-task data for seed: W[t,k] ~ N(0, v_k) independently,
// v = (.5, .25, .1, .05, .15, .1, .15).
func multitaskW(seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, streamParams))
	W := make([]float64, MultitaskOutputs*len(multitaskVar))
	for t := 0; t < MultitaskOutputs; t++ {
		for k, v := range multitaskVar {
			W[t*len(multitaskVar)+k] = math.Sqrt(v) * rng.NormFloat64()
		}
	}
	return W
}

// multitaskPhi writes φ(x) = (x₁², x₄², x₁x₂, x₃x₅, x₂, x₄, 1) into dst (length 7).
func multitaskPhi(dst, x []float64) {
	dst[0] = x[0] * x[0]
	dst[1] = x[3] * x[3]
	dst[2] = x[0] * x[1]
	dst[3] = x[2] * x[4]
	dst[4] = x[1]
	dst[5] = x[3]
	dst[6] = 1
}

// GenerateMultitask returns n rows of the R²⁰ → R⁴ multi-task data (Evgeniou et al. 2005, as used by Audiffren &
// Kadri 2013 and the ORFF paper's supplement; docs/conventions.md §9): x ~ U[0,1]²⁰, φ(x) = (x₁², x₄², x₁x₂, x₃x₅, x₂, x₄, 1),
// y = Wφ(x) plus iid N(0, noise²) noise, with the 4 rows of W drawn once per seed from N(0, diag(.5, .25, .1, .05,
// .15, .1, .15)). Only x₁…x₅ matter; the other 15 inputs are distractors. Columns: x1…x20, y1…y4.
func GenerateMultitask(n int, seed uint64, noise float64) (*Generated, error) {
	const d, p = MultitaskDim, MultitaskOutputs
	if err := checkGenerate("multitask", n, d+p, noise); err != nil {
		return nil, err
	}
	W := multitaskW(seed)
	g := newGenerated(n, d, p)
	rng := rand.New(rand.NewPCG(seed, streamInputs))
	for i := range g.X {
		g.X[i] = rng.Float64()
	}
	var phi [7]float64
	for i := 0; i < n; i++ {
		multitaskPhi(phi[:], g.X[i*d:(i+1)*d])
		for t := 0; t < p; t++ {
			var s float64
			for k, v := range phi {
				s += W[t*7+k] * v
			}
			g.Y[i*p+t] = s
		}
	}
	g.addNoise(seed, noise)
	return g, nil
}

// Output returns output j (0-based) as a single-target Data sharing X with g (Y is a copy of column j, TargetName
// its name), for learners and tools that take one target. It returns an error for a nil Generated.
func (g *Generated) Output(j int) (*Data, error) {
	if g == nil {
		return nil, errors.New("dataset: Generated.Output: nil data")
	}
	if j < 0 || j >= g.P {
		return nil, fmt.Errorf("output %d out of range [0, %d)", j, g.P)
	}
	y := make([]float64, g.N)
	for i := range y {
		y[i] = g.Y[i*g.P+j]
	}
	return &Data{X: g.X, N: g.N, D: g.D, Y: y, Names: g.Names, TargetName: g.TargetNames[j]}, nil
}

// WriteCSV writes g as comma-separated text with a header (x1,…,xD,y1,…,yP) and one line per row; numbers use the
// shortest representation that reads back to the same float64, so ReadCSV recovers the data exactly. It returns an
// error for a nil Generated or writer.
func (g *Generated) WriteCSV(w io.Writer) error {
	switch {
	case g == nil:
		return errors.New("dataset: Generated.WriteCSV: nil data")
	case w == nil:
		return errors.New("dataset: Generated.WriteCSV: nil writer")
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(strings.Join(g.Names, ","))
	for _, s := range g.TargetNames {
		bw.WriteByte(',')
		bw.WriteString(s)
	}
	bw.WriteByte('\n')
	var buf []byte
	for i := 0; i < g.N; i++ {
		buf = buf[:0]
		for j, v := range g.X[i*g.D : (i+1)*g.D] {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		}
		for _, v := range g.Y[i*g.P : (i+1)*g.P] {
			buf = append(buf, ',')
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}
