package feature_test

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// ExampleMap_TransformRows maps the rows of a flat row-major slice on all cores; the inner products of two rows'
// features, plus the offset (Map.Estimate), approximate the kernel.
func ExampleMap_TransformRows() {
	const n, d = 4, 3
	k := kernel.Gaussian{S: 1}
	m, err := feature.New(k, rule.ORF{}, d, 3000, 1)
	if err != nil {
		panic(err)
	}
	X := []float64{
		0.1, 0.2, 0.3,
		-0.4, 0.5, 0.0,
		0.7, -0.1, 0.2,
		0.0, 0.0, -0.6,
	}
	F := m.Features()
	Z := make([]float64, n*F)
	if err := m.TransformRows(Z, X, n); err != nil {
		panic(err)
	}
	var worst float64
	for i := range n {
		for j := range n {
			est, err := m.Estimate(Z[i*F:(i+1)*F], Z[j*F:(j+1)*F])
			if err != nil {
				panic(err)
			}
			worst = max(worst, math.Abs(est-k.Eval(X[i*d:(i+1)*d], X[j*d:(j+1)*d])))
		}
	}
	fmt.Printf("%d rows × %d features; max |k̂ − k| < 0.03: %v\n", n, F, worst < 0.03)
	// Output: 4 rows × 6000 features; max |k̂ − k| < 0.03: true
}

// ExampleWithForm selects the cos+phase form √(2w_j)·cos(ω_jᵀx + b_j), scikit-learn's RBFSampler: D columns
// instead of the 2D of cos/sin, for an estimate of the same kernel with a larger variance.
func ExampleWithForm() {
	const d = 2
	k := kernel.Gaussian{S: 1}
	x, y := []float64{0.3, -0.2}, []float64{-0.1, 0.4}
	names := map[feature.Form]string{feature.CosSin: "cos/sin", feature.CosPhase: "cos+phase"}
	for _, form := range []feature.Form{feature.CosSin, feature.CosPhase} {
		m, err := feature.New(k, rule.G{}, d, 20000, 1, feature.WithForm(form))
		if err != nil {
			panic(err)
		}
		z := make([]float64, 2*m.Features())
		if err := m.TransformRows(z, append(slices.Clone(x), y...), 2); err != nil {
			panic(err)
		}
		est, err := m.Estimate(z[:m.Features()], z[m.Features():])
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %d points, %d columns, |k̂ − k| < 0.02: %v\n",
			names[m.Form()], m.Points(), m.Features(), math.Abs(est-k.Eval(x, y)) < 0.02)
	}
	// Output:
	// cos/sin: 20000 points, 40000 columns, |k̂ − k| < 0.02: true
	// cos+phase: 20000 points, 20000 columns, |k̂ − k| < 0.02: true
}

// ExampleMap_ActivateBlock turns projections t_j = ω_jᵀx (from ProjectBlock, or kept from an earlier pass) into
// cos/sin features: the first Points() columns are √w_j·cos t_j, the next √w_j·sin t_j.
func ExampleMap_ActivateBlock() {
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.QMC{}, 2, 6, 1)
	if err != nil {
		panic(err)
	}
	const rows = 3
	x := []float64{0.1, 0.2, -0.3, 0.4, 0.5, -0.6}
	D := m.Points()
	proj := make([]float64, rows*D)
	m.ProjectBlock(proj, x, rows)
	z := make([]float64, rows*m.Features())
	m.ActivateBlock(z, proj, rows)
	w := m.Weights()
	var worst float64
	for r := range rows {
		for j := range D {
			t := proj[r*D+j]
			worst = max(worst,
				math.Abs(z[r*2*D+j]-math.Sqrt(w[j])*math.Cos(t)),
				math.Abs(z[r*2*D+D+j]-math.Sqrt(w[j])*math.Sin(t)))
		}
	}
	fmt.Println(D, "projections per row,", m.Features(), "features per row; as the formula to 1e-14:", worst < 1e-14)
	// Output: 6 projections per row, 12 features per row; as the formula to 1e-14: true
}

// ExampleMap_Params takes a map's explicit parameters. A structured rule keeps its operator (here the butterfly
// rotations and radii of an SR rule) and the Gaussian a per-point scale 1/σ; a Laplacian's points are transformed
// coordinatewise, so they are stored dense and carry no scale.
func ExampleMap_Params() {
	for _, k := range []kernel.Kernel{kernel.Gaussian{S: 2}, kernel.Laplacian{S: 2}} {
		m, err := feature.New(k, rule.SR{Rotation: rule.Butterfly}, 3, 8, 1)
		if err != nil {
			panic(err)
		}
		p := m.Params()
		fmt.Printf("%s: rule %s, stored %s, %d points, %d scales %v, phases %v\n",
			k.Name(), p.Rule, p.Points.Kind, p.Points.Len, len(p.Scale), slices.Compact(p.Scale), p.Phase)
	}
	// Output:
	// gaussian: rule sr-butterfly, stored sr-butterfly, 8 points, 8 scales [0.5], phases []
	// laplacian: rule sr-butterfly, stored dense, 8 points, 0 scales [], phases []
}

// ExampleFromParams rebuilds a map from its parameters, here after a trip through JSON: nothing is drawn and the
// features are the same bits. The parameters are tied to the kernel: a Gaussian map drawn for σ = 1 refuses σ = 2.
func ExampleFromParams() {
	const d = 4
	k := kernel.Gaussian{S: 1}
	m, err := feature.New(k, rule.SORF{}, d, 16, 7, feature.WithForm(feature.CosPhase))
	if err != nil {
		panic(err)
	}
	buf, err := json.Marshal(m.Params())
	if err != nil {
		panic(err)
	}
	var p feature.Params
	if err := json.Unmarshal(buf, &p); err != nil {
		panic(err)
	}
	back, err := feature.FromParams(k, p)
	if err != nil {
		panic(err)
	}
	x := []float64{0.1, -0.2, 0.3, 0.4, 0.5, 0.6, -0.7, 0.8}
	z1, z2 := make([]float64, 2*m.Features()), make([]float64, 2*back.Features())
	if err := m.TransformRows(z1, x, 2); err != nil {
		panic(err)
	}
	if err := back.TransformRows(z2, x, 2); err != nil {
		panic(err)
	}
	fmt.Println(back.Rule().Name(), back.Features(), "features, same bits:", slices.Equal(z1, z2))
	_, err = feature.FromParams(kernel.Gaussian{S: 2}, p)
	fmt.Println(err)
	// Output:
	// sorf 16 features, same bits: true
	// feature map parameters for kernel gaussian: a point is scaled by 1, the bandwidth gives 0.5
}

// ExampleCheckScale ties stored per-point scales to a spectral law: exactly 1/σ per point for the Gaussian, any
// positive scales for the Matérn kernels (a scale mixture), none for the coordinatewise laws of the Laplacian and
// Cauchy kernels.
func ExampleCheckScale() {
	fmt.Println(feature.CheckScale(kernel.Gaussian{S: 2}.Law(), []float64{0.5, 0.5}))
	fmt.Println(feature.CheckScale(kernel.Gaussian{S: 2}.Law(), []float64{0.5, 1}))
	fmt.Println(feature.CheckScale(kernel.Matern{Nu: 1.5, S: 2}.Law(), []float64{0.3, 1.7}))
	fmt.Println(feature.CheckScale(kernel.Cauchy{S: 2}.Law(), []float64{0.5}))
	// Output:
	// <nil>
	// a point is scaled by 1, the bandwidth gives 0.5
	// <nil>
	// per-point scales given for a law that transforms the points
}

// ExampleNewSource draws frequencies from the same random source New uses: with the same seed they are the map's
// frequencies, bit for bit (which is how package ovk shares points with scalar maps).
func ExampleNewSource() {
	const d, D, seed = 3, 10, 42
	k := kernel.Gaussian{S: 0.5}
	m, err := feature.New(k, rule.ORF{}, d, D, seed)
	if err != nil {
		panic(err)
	}
	pts, scale, err := feature.DrawSpectral(k.Law(), rule.ORF{}, d, D, feature.NewSource(seed))
	if err != nil {
		panic(err)
	}
	W := rule.Dense(pts)
	for j, s := range scale {
		for i := range d {
			W[j*d+i] *= s
		}
	}
	fmt.Println("same frequencies:", slices.Equal(W, m.Frequencies()))
	// Output: same frequencies: true
}

// ExampleDrawSpectral draws the frequencies of three spectral laws with one rule. Without a coordinatewise transform
// the rule's points stay structured and a scale per point carries 1/σ (times a χ mixing for Matérn); with one
// (Laplacian) the points are transformed and returned dense, with no scale.
func ExampleDrawSpectral() {
	for _, k := range []kernel.Spectral{kernel.Gaussian{S: 2}, kernel.Matern{Nu: 2.5, S: 2}, kernel.Laplacian{S: 2}} {
		pts, scale, err := feature.DrawSpectral(k.Law(), rule.SORF{}, 4, 8, feature.NewSource(1))
		if err != nil {
			panic(err)
		}
		distinct := len(slices.Compact(slices.Sorted(slices.Values(scale))))
		fmt.Printf("%s: %d points, stored %s, %d scales (%d distinct)\n",
			k.Name(), pts.Len(), rule.Store(pts).Kind, len(scale), distinct)
	}
	// Output:
	// gaussian: 8 points, stored sorf, 8 scales (1 distinct)
	// matern52: 8 points, stored sorf, 8 scales (8 distinct)
	// laplacian: 8 points, stored dense, 0 scales (0 distinct)
}
