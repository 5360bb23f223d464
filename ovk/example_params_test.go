package ovk_test

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
)

// Params are a map's explicit parameters: the rule's stored points, the per-point scale 1/σ and B(ω_j) for every
// point (p×p' each), or the one shared B of a decomposable kernel.
func ExampleMap_Params() {
	curl, _ := ovk.NewCurlFree(0.5)
	dec, _ := ovk.NewDecomposable(kernel.Gaussian{S: 0.5}, mat.NewDiagDense(2, []float64{1, 4}))
	for _, k := range []*ovk.Kernel{curl, dec} {
		m, err := ovk.New(k, rule.SR{Rotation: rule.Butterfly}, 3, 8, 1)
		if err != nil {
			panic(err)
		}
		p := m.Params()
		fmt.Printf("%s: rule %s stored %s, %d points, rank %d, %d scales %v, %d values of B\n",
			k.Name(), p.Rule, p.Points.Kind, p.Points.Len, p.Rank, len(p.Scale), slices.Compact(p.Scale), len(p.B))
	}
	// Output:
	// curl-free: rule sr-butterfly stored sr-butterfly, 8 points, rank 1, 8 scales [2], 24 values of B
	// decomposable: rule sr-butterfly stored sr-butterfly, 8 points, rank 2, 8 scales [2], 4 values of B
}

// FromParams rebuilds an ORFF map without drawing, here after a trip through JSON: the same design matrix, bit for
// bit. The parameters are checked against the kernel: a curl-free map (rank 1) does not fit a div-free kernel.
func ExampleFromParams() {
	const d = 3
	k, _ := ovk.NewCurlFree(1)
	m, err := ovk.New(k, rule.ORF{}, d, 6, 2)
	if err != nil {
		panic(err)
	}
	buf, err := json.Marshal(m.Params())
	if err != nil {
		panic(err)
	}
	var p ovk.Params
	if err := json.Unmarshal(buf, &p); err != nil {
		panic(err)
	}
	back, err := ovk.FromParams(k, p)
	if err != nil {
		panic(err)
	}
	x := []float64{0.1, 0.2, 0.3, -0.4, 0.5, -0.6} // 2 rows
	z1 := make([]float64, 2*m.Outputs()*m.Features())
	z2 := make([]float64, 2*back.Outputs()*back.Features())
	if err := m.TransformRows(z1, x, 2); err != nil {
		panic(err)
	}
	if err := back.TransformRows(z2, x, 2); err != nil {
		panic(err)
	}
	fmt.Println(back.Rule().Name(), back.Points(), "points, seed", back.Seed(), "- same bits:", slices.Equal(z1, z2))
	div, _ := ovk.NewDivFree(1)
	_, err = ovk.FromParams(div, p)
	fmt.Println(err)
	// Output:
	// orf 6 points, seed 0 - same bits: true
	// ORFF map parameters: rank 1, kernel div-free on 3 inputs has rank 2
}

// A returns a copy of a decomposable kernel's output matrix, nil for the other kinds.
func ExampleKernel_A() {
	A := mat.NewSymDense(2, []float64{2, 1, 1, 2})
	k, _ := ovk.NewDecomposable(kernel.Laplacian{S: 1}, A)
	fmt.Println(mat.Formatted(k.A()))
	curl, _ := ovk.NewCurlFree(1)
	fmt.Println(curl.A() == nil)
	// Output:
	// ⎡2  1⎤
	// ⎣1  2⎦
	// true
}

// B returns the p×p' factor of a decomposable kernel's A, BBᵀ = A, without A's null directions: the shared B(ω) of
// its ORFF maps.
func ExampleKernel_B() {
	A := mat.NewSymDense(3, []float64{
		1, 1, 0,
		1, 1, 0,
		0, 0, 2,
	}) // rank 2
	k, _ := ovk.NewDecomposable(kernel.Gaussian{S: 1}, A)
	B := k.B()
	var BBt mat.Dense
	BBt.Mul(B, B.T())
	var E mat.Dense
	E.Sub(&BBt, A)
	r, c := B.Dims()
	fmt.Printf("B is %d×%d, BBᵀ = A to 1e-12: %v\n", r, c, mat.Norm(&E, math.Inf(1)) < 1e-12)
	// Output: B is 3×2, BBᵀ = A to 1e-12: true
}
