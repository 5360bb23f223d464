package rff_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
)

// sine returns n rows of y = sin(3x₁) + x₂ on [−1, 1]².
func sine(n int) *dataset.Data {
	d := &dataset.Data{N: n, D: 2, Names: []string{"a", "b"}, TargetName: "y"}
	for i := range n {
		a, b := math.Sin(float64(7*i)), math.Cos(float64(5*i))
		d.X = append(d.X, a, b)
		d.Y = append(d.Y, math.Sin(3*a)+b)
	}
	return d
}

// Fit, save, load and predict: five calls.
func Example() {
	train, test := sine(500), sine(50)
	m, _ := rff.Fit(rff.Config{Sigma: 1, Points: 256, Lambda: 1e-8, Seed: 1}, train)
	path := filepath.Join(os.TempDir(), "example.rff")
	_ = m.Save(path)
	loaded, _ := rff.Load(path)
	score, _ := loaded.Score(test)
	fmt.Printf("test RMSE below 0.01: %v\n", score.Regression.RMSE < 0.01)
	// Output: test RMSE below 0.01: true
}

// PredictRows predicts rows given as one row-major slice, in the model's input order: a classifier returns its labels.
func ExampleModel_PredictRows() {
	m, err := rff.Fit(rff.Config{Task: "classification", Sigma: 1, Points: 128, Lambda: 1e-6, Seed: 1},
		&dataset.Data{X: []float64{-2, -1, -1.5, 1, 2, 1.5}, N: 6, D: 1, Y: []float64{0, 0, 0, 1, 1, 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := m.PredictRows([]float64{-1.8, 1.7}, 2)
	fmt.Println(p.Labels)
	// Output: [0 1]
}

// A classifier fitted with the logistic loss gives class probabilities: the softmax of its class scores.
func ExamplePrediction_Probabilities() {
	m, err := rff.Fit(rff.Config{Task: "classification", Loss: "logistic", Sigma: 1, Points: 64, Lambda: 1e-4, Seed: 1},
		&dataset.Data{X: []float64{-2, -1, -1.5, 1, 2, 1.5}, N: 6, D: 1, Y: []float64{0, 0, 0, 1, 1, 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := m.PredictRows([]float64{-1.8, 1.7}, 2)
	prob, err := p.Probabilities() // 2 rows × 2 classes
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, label := range p.Labels {
		fmt.Printf("%s: P(0) > 0.9: %v, P(1) > 0.9: %v\n", label, prob[2*i] > 0.9, prob[2*i+1] > 0.9)
	}
	// Output:
	// 0: P(0) > 0.9: true, P(1) > 0.9: false
	// 1: P(0) > 0.9: false, P(1) > 0.9: true
}

func ExampleModel_Info() {
	m, _ := rff.Fit(rff.Config{Rule: "orf", Points: 64, Sigma: 2, Lambda: 1e-4}, sine(100))
	fmt.Println(m)
	// Output: regression: kernel gaussian (σ = 2), orf features (D = 64 points, 128 columns), λ = 0.0001, preprocessing [standardize]
}

func ExampleLoad() {
	m, err := rff.Load("testdata/v1/ridge-sr.rff") // a model file of an earlier format version
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Info().Inputs, m.Info().Version)
	// Output: [temp pressure humidity] 1
}

// A file larger than memory is fitted in chunks, read twice.
func ExampleFitCSV() {
	path := filepath.Join(os.TempDir(), "rff-example.csv")
	var b []byte
	b = append(b, "u,v,w\n"...)
	for i := range 400 {
		u, v := math.Sin(float64(i)), math.Cos(float64(3*i))
		b = fmt.Appendf(b, "%g,%g,%g\n", u, v, u*v)
	}
	_ = os.WriteFile(path, b, 0o644)
	m, err := rff.FitCSV(rff.Config{Points: 64, Sigma: 1, Lambda: 1e-8}, path, rff.StreamOptions{ChunkRows: 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Info().Inputs, m.Info().Targets, m.Report().N)
	// Output: [u v] [w] 400
}

// The gradient of a fitted function, in the raw coordinates of its inputs.
func ExampleModel_Gradients() {
	m, _ := rff.Fit(rff.Config{Points: 256, Sigma: 1, Lambda: 1e-9, Seed: 2}, sine(800))
	g, _ := m.Gradients([]float64{0.2, 0.5}, 1) // ∇(sin 3a + b) = (3 cos 0.6, 1)
	fmt.Printf("%.1f %.1f\n", g[0], g[1])
	// Output: 2.5 1.0
}

// A curl-free field is a gradient: its Jacobian is symmetric.
func ExampleModel_Jacobian() {
	g, _ := dataset.GenerateCurlField(500, 1, 0)
	data := &dataset.Data{N: g.N, D: 10, Names: append(append([]string(nil), g.Names...), g.TargetNames...)}
	for i := range g.N {
		data.X = append(append(data.X, g.X[i*5:i*5+5]...), g.Y[i*5:i*5+5]...)
	}
	m, err := rff.Fit(rff.Config{OVK: "curl-free", Targets: g.TargetNames, Points: 100, Sigma: 0.8, Lambda: 1e-6}, data)
	if err != nil {
		fmt.Println(err)
		return
	}
	J, _ := m.Jacobian(g.X[:5])
	fmt.Printf("J[0][1] = J[1][0]: %v\n", math.Abs(J[1]-J[5]) <= 1e-12*math.Abs(J[1]))
	// Output: J[0][1] = J[1][0]: true
}

func ExampleFitHermite() {
	// f(x) = x² observed only through its derivative 2x (and one value at 0).
	data := &dataset.Data{N: 40, D: 1}
	values, grads := make([]float64, 40), make([]float64, 40)
	for i := range 40 {
		x := -1 + 2*float64(i)/39
		data.X = append(data.X, x)
		values[i], grads[i] = math.NaN(), 2*x
	}
	values[0] = 1
	m, err := rff.FitHermite(rff.Config{Points: 128, Sigma: 1, Lambda: 1e-9, Preprocess: "none"}, data, values, grads)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := m.PredictRows([]float64{0.5}, 1)
	fmt.Printf("f(0.5) ≈ %.2f\n", p.Values[0])
	// Output: f(0.5) ≈ 0.25
}

func ExampleModel_Score() {
	m, _ := rff.Fit(rff.Config{Points: 128, Sigma: 1, Lambda: 1e-8}, sine(400))
	s, _ := m.Score(sine(100))
	fmt.Printf("R² above 0.999: %v\n", s.Regression.R2 > 0.999)
	// Output: R² above 0.999: true
}

// A model travels through any io.Writer and io.Reader, in the format Save writes.
func ExampleRead() {
	m, _ := rff.Fit(rff.Config{Rule: "g", Points: 32, Sigma: 1, Lambda: 1e-6}, sine(100))
	var buf bytes.Buffer
	_ = m.Write(&buf)
	back, err := rff.Read(&buf)
	fmt.Println(back.Info().Points, err)
	// Output: 32 <nil>
}

// ReadAtMost bounds what a stream may cost: a device or a pipe that never ends is refused at the limit, and a stream
// that is not a model file after its first 16 bytes.
func ExampleReadAtMost() {
	m, _ := rff.Fit(rff.Config{Rule: "g", Points: 32, Sigma: 1, Lambda: 1e-6}, sine(100))
	var buf bytes.Buffer
	_ = m.Write(&buf)
	size := int64(buf.Len())
	_, err := rff.ReadAtMost(io.MultiReader(bytes.NewReader(buf.Bytes()), zeros{}), size+1000)
	fmt.Println(errors.Is(err, rff.ErrTooLong))
	_, err = rff.ReadAtMost(zeros{}, 0)
	fmt.Println(err)
	back, err := rff.ReadAtMost(&buf, size)
	fmt.Println(back.Info().Points, err)
	// Output:
	// true
	// not an rff model file (bad magic)
	// 32 <nil>
}

// zeros is an endless stream of zero bytes, as /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// CheckInputMagnitude finds the preprocessed input a fit would refuse as too large for its feature maps, naming its
// row (counted from the rows checked before) and column; CheckTargetMagnitude does the same for regression targets.
// A fit spread over many machines calls them on each part of its rows.
func ExampleCheckInputMagnitude() {
	X := []float64{ // three rows of two preprocessed inputs
		0.5, -1.2,
		0.3, 2e150,
		1.1, 0.0,
	}
	fmt.Println(rff.CheckInputMagnitude(X, 2, []string{"temp", "pressure"}, 100))
	fmt.Println(rff.CheckTargetMagnitude([]float64{1, -3e200}, []string{"y"}, 0))
	fmt.Println(rff.CheckInputMagnitude(X[:2], 2, nil, 0))
	// Output:
	// row 102, column 2 (pressure) is 2e+150 after preprocessing: too large for the kernel (|ωᵀx| would overflow); rescale it or standardize the inputs
	// row 2, target y is -3e+200: too large for the ridge statistics (sums of its square would overflow); rescale the targets
	// <nil>
}
