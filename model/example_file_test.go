package model_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rffkit/rff/model"
)

// smallModel returns the content of a small regression model on d = 3 inputs: D = 2 dense Gaussian points, cos/sin
// features (F = 4) and one output. A real model comes from a fit in the root package rff.
func smallModel() *model.Model {
	return &model.Model{
		Header: model.Header{Task: "regression", Kernel: "gaussian", Sigma: 1, Rule: "g", Seed: 1, Points: 2,
			Dim: 3, Form: "cossin", Features: 4, Outputs: 1, Intercept: true, Lambda: 1e-4, PointsKind: "dense",
			Names: []string{"u", "v", "w"}, Targets: []string{"y"}},
		Theta:   []float64{0.1, 0.2, 0.3, 0.4},
		Bias:    []float64{2},
		Probe:   []float64{0.5, 0.5, 0.5, 0.5},
		Points:  map[string][]float64{"points": {1, 0, 0, 0, 1, 0}},
		Weights: []float64{0.5, 0.5},
	}
}

// Save writes a model file atomically; Load reads it back and validates it.
func ExampleSave() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "small.rff")

	if err := model.Save(path, smallModel()); err != nil {
		panic(err)
	}
	m, err := model.Load(path)
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Version, m.Task, m.Names, m.Targets, m.Bias)

	// A model that fails Check is not written, and the file keeps its content.
	bad := smallModel()
	bad.Bias = nil
	fmt.Println(model.Save(path, bad) != nil)
	m, err = model.Load(path)
	fmt.Println(m.Bias, err)
	// Output:
	// 2 regression [u v w] [y] [2]
	// true
	// [2] <nil>
}

// Load reports files that are not model files, and corrupted ones, with the sentinel errors of the package.
func ExampleLoad() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "small.rff")
	if err := model.Save(path, smallModel()); err != nil {
		panic(err)
	}
	m, err := model.Load(path)
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Kernel, m.Header.Points, m.Features)

	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	b[len(b)/2] ^= 1 // flip one bit
	if err := os.WriteFile(path, b, 0o644); err != nil {
		panic(err)
	}
	_, err = model.Load(path)
	fmt.Println(errors.Is(err, model.ErrChecksum))
	// Output:
	// gaussian 2 4
	// true
}

// Write encodes a model to any writer, here a buffer: the bytes start with the magic and the version.
func ExampleWrite() {
	var buf bytes.Buffer
	if err := model.Write(&buf, smallModel()); err != nil {
		panic(err)
	}
	b := buf.Bytes()
	fmt.Printf("%s version %d\n", b[:8], b[8])
	// Output: RFFMODEL version 2
}

// Decode parses and validates a model file held in memory.
func ExampleDecode() {
	b, err := model.Encode(smallModel())
	if err != nil {
		panic(err)
	}
	m, err := model.Decode(b)
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Version, m.Dim, m.Outputs, m.Theta)

	_, err = model.Decode([]byte("not a model"))
	fmt.Println(errors.Is(err, model.ErrMagic))
	_, err = model.Decode(b[:len(b)-1])
	fmt.Println(errors.Is(err, model.ErrChecksum))
	// Output:
	// 2 3 1 [0.1 0.2 0.3 0.4]
	// true
	// true
}

// Read decodes a model file from a stream as it arrives (here a bytes.Reader of a known size), allocating about
// what the stream holds; a stream that is not a model file fails at its head.
func ExampleRead() {
	b, err := model.Encode(smallModel())
	if err != nil {
		panic(err)
	}
	m, err := model.Read(bytes.NewReader(b), int64(len(b)), 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Dim, m.Theta)
	_, err = model.Read(strings.NewReader("GIF89a…"), -1, 0)
	fmt.Println(errors.Is(err, model.ErrMagic))
	// Output:
	// 3 [0.1 0.2 0.3 0.4]
	// true
}

// CheckHead checks the first HeadSize bytes of a file before the rest is read: the magic, the version and the
// header's length.
func ExampleCheckHead() {
	b, err := model.Encode(smallModel())
	if err != nil {
		panic(err)
	}
	fmt.Println(model.CheckHead(b[:model.HeadSize]))
	fmt.Println(errors.Is(model.CheckHead([]byte("PK\x03\x04 a zip file")), model.ErrMagic))
	// Output:
	// <nil>
	// true
}

// ProbeInput is the fixed input whose features a model file stores (Model.Probe), so that a reader can check that
// the map it rebuilds computes the same features: x_i = 0.75·sin(i).
func ExampleProbeInput() {
	fmt.Printf("%.4f\n", model.ProbeInput(3))
	// Output: [0.6311 0.6820 0.1058]
}

// Check validates a model's fields against each other before it is written; Encode, Write and Save call it.
func ExampleModel_Check() {
	m := smallModel()
	fmt.Println(m.Check())
	m.Names = []string{"u", "v"}
	fmt.Println(m.Check())
	// Output:
	// <nil>
	// model: 2 input names for 3 inputs
}
