package rule_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/rffkit/rff/rule"
)

// ExampleNames lists the canonical command-line names of the rules.
func ExampleNames() {
	fmt.Println(rule.Names())
	// Output: [g orf sorf qmc gq sr-butterfly sr-haar]
}

// ExampleParseList parses a comma-separated list of rules, as `rff approx --rules` does; aliases (rff, rom, b, h)
// and empty entries are accepted.
func ExampleParseList() {
	rs, err := rule.ParseList("rff, orf,,gq:4,b")
	if err != nil {
		panic(err)
	}
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.Name()
	}
	fmt.Println(names)
	_, err = rule.ParseList("g,sr3")
	fmt.Println(err)
	_, err = rule.ParseList(" , ")
	fmt.Println(err)
	// Output:
	// [g orf gq:4 sr-butterfly]
	// unknown rule "sr3" (want one of g, orf, sorf, qmc, gq, sr-butterfly, sr-haar, or gq:M)
	// no rule given
}

// ExampleNewDense builds a realization from explicit points: nil weights mean 1/n each. Project computes ω_jᵀx for
// every row x.
func ExampleNewDense() {
	W := []float64{
		1, 0,
		0, 2,
		1, 1,
	}
	p := rule.NewDense(W, 3, 2, nil, 0)
	x := []float64{3, 4, -1, 1} // two rows
	proj := make([]float64, 2*p.Len())
	p.Project(proj, x, 2)
	fmt.Printf("%d points in R^%d, weights %.4f, zero node %v\n", p.Len(), p.Dim(), p.Weights(), p.Zero())
	fmt.Println(proj)
	// Output:
	// 3 points in R^2, weights [0.3333 0.3333 0.3333], zero node 0
	// [3 8 7 -1 2 0]
}

// ExampleStore gives a realization's explicit form: a structured SR rule with butterfly rotations keeps the
// parameters of its operators (radii, butterfly angles, permutations and signs), not its points.
func ExampleStore() {
	const d = 5
	p, err := rule.SR{Rotation: rule.Butterfly}.Draw(d, 2*(d+1), true, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	s := rule.Store(p)
	fmt.Printf("%s: %d points in dimension %d, zero-node weight stored: %v\n", s.Kind, s.Len, s.Dim, s.Zero == p.Zero())
	names := make([]string, 0, len(s.Arrays))
	for name := range s.Arrays {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Println(name, len(s.Arrays[name]))
	}
	// Output:
	// sr-butterfly: 12 points in dimension 5, zero-node weight stored: true
	// cos 42
	// perm 30
	// rho 12
	// signs 30
	// sin 42
}

// ExampleRestore rebuilds a stored realization, here after a trip through JSON, and checks its fields against
// each other: the rebuilt points project bit for bit as the original, and a corrupted array is refused.
func ExampleRestore() {
	const d = 6
	p, err := rule.SORF{}.Draw(d, 16, true, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		panic(err)
	}
	buf, err := json.Marshal(rule.Store(p))
	if err != nil {
		panic(err)
	}
	var s rule.Stored
	if err := json.Unmarshal(buf, &s); err != nil {
		panic(err)
	}
	q, err := rule.Restore(s)
	if err != nil {
		panic(err)
	}
	x := []float64{0.1, -0.2, 0.3, 0.4, -0.5, 0.6}
	a, b := make([]float64, p.Len()), make([]float64, q.Len())
	p.Project(a, x, 1)
	q.Project(b, x, 1)
	fmt.Println(s.Kind, q.Len(), "points, same projections:", slices.Equal(a, b))

	s.Arrays["signs"][0] = 0.5
	_, err = rule.Restore(s)
	fmt.Println(err)
	// Output:
	// sorf 16 points, same projections: true
	// stored points: signs holds 0.5 (want ±1)
}

// ExampleG_Draw draws plain Monte Carlo points: iid N(0, I) with weights 1/D, whose sample mean of ‖ω‖²
// approaches E‖ω‖² = d.
func ExampleG_Draw() {
	const d, D = 3, 20000
	p, err := rule.G{}.Draw(d, D, true, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	W := rule.Dense(p)
	var est float64
	for j, w := range p.Weights() {
		for _, v := range W[j*d : (j+1)*d] {
			est += w * v * v
		}
	}
	fmt.Printf("%d points, weight %g, zero node %v; |Σ w_j‖ω_j‖² − d| < 0.05: %v\n",
		p.Len(), p.Weights()[0], p.Zero(), math.Abs(est-d) < 0.05)
	// Output: 20000 points, weight 5e-05, zero node 0; |Σ w_j‖ω_j‖² − d| < 0.05: true
}

// ExampleORF_Draw draws blocks of d orthogonal points: within a block the directions are orthogonal, and only their
// lengths (χ_d) are random.
func ExampleORF_Draw() {
	const d = 4
	p, err := rule.ORF{}.Draw(d, 8, true, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		panic(err)
	}
	W := rule.Dense(p)
	row := func(j int) []float64 { return W[j*d : (j+1)*d] }
	cosine := func(a, b []float64) float64 {
		var ab, aa, bb float64
		for i := range a {
			ab += a[i] * b[i]
			aa += a[i] * a[i]
			bb += b[i] * b[i]
		}
		return ab / math.Sqrt(aa*bb)
	}
	var worst float64
	for blk := 0; blk < 2; blk++ {
		for i := blk * d; i < (blk+1)*d; i++ {
			for j := i + 1; j < (blk+1)*d; j++ {
				worst = max(worst, math.Abs(cosine(row(i), row(j))))
			}
		}
	}
	fmt.Println(p.Len(), "points in 2 blocks; orthogonal within a block:", worst < 1e-12)
	// Output: 8 points in 2 blocks; orthogonal within a block: true
}

// ExampleGQ_Draw draws points of the Gauss–Hermite grid: at the default degree 2 every coordinate is ±1; at degree 3
// it is one of −√3, 0, √3.
func ExampleGQ_Draw() {
	for _, r := range []rule.GQ{{}, {Degree: 3}} {
		p, err := r.Draw(4, 50, true, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			panic(err)
		}
		values := map[string]bool{}
		for _, v := range rule.Dense(p) {
			if math.Abs(v) < 1e-12 {
				v = 0 // the middle node of an odd degree is 0 up to rounding
			}
			values[fmt.Sprintf("%.4f", v)] = true
		}
		keys := make([]string, 0, len(values))
		for k := range values {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		fmt.Println(r.Name(), keys)
	}
	// Output:
	// gq [-1.0000 1.0000]
	// gq:3 [-1.7321 0.0000 1.7321]
}

// ExampleSORF_Draw draws structured orthogonal points: blocks √n·HD₁HD₂HD₃ with n = 4 for d = 3, so every point has
// norm √n = 2 and the points of one block are orthogonal; the input is zero-padded to n.
func ExampleSORF_Draw() {
	const d = 3
	p, err := rule.SORF{}.Draw(d, 4, true, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	W := rule.Dense(p) // D×d: the padded coordinate dropped
	fmt.Println(p.Len(), "points, weight", p.Weights()[0])
	// the norms over the d = 3 kept coordinates are at most √n = 2
	worst := 0.0
	for j := range p.Len() {
		s := 0.0
		for _, v := range W[j*d : (j+1)*d] {
			s += v * v
		}
		worst = max(worst, math.Sqrt(s))
	}
	fmt.Println("largest norm at most 2:", worst <= 2+1e-12)
	// Output:
	// 4 points, weight 0.25
	// largest norm at most 2: true
}

// ExampleQMC_Draw draws randomized Halton points mapped to N(0, I): weights 1/D, no zero node, and a mean near 0.
func ExampleQMC_Draw() {
	const d, D = 2, 4096
	p, err := rule.QMC{}.Draw(d, D, true, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		panic(err)
	}
	W := rule.Dense(p)
	var mean [d]float64
	for j := range D {
		for i := range d {
			mean[i] += W[j*d+i] / D
		}
	}
	fmt.Println(p.Len(), p.Weights()[0] == 1.0/D, p.Zero(), math.Abs(mean[0]) < 0.01 && math.Abs(mean[1]) < 0.01)
	// Output: 4096 true 0 true
}

// ExampleSR_Rules counts the SR(3,3) rules of a realization: d + 1 points per rule for an even integrand (the
// Gaussian kernel's cos/sin features), twice as many otherwise, so D rounds up to whole rules.
func ExampleSR_Rules() {
	fmt.Println(rule.SR{}.Rules(4, 1024, true), rule.SR{}.Rules(4, 1024, false))
	// Output: 205 103
}

// ExampleSR_Draw draws SR(3,3) rules with butterfly rotations: the weights with the zero node sum to 1, as the
// rule integrates constants exactly.
func ExampleSR_Draw() {
	p, err := rule.SR{}.Draw(4, 10, true, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		panic(err)
	}
	sum := p.Zero()
	for _, w := range p.Weights() {
		sum += w
	}
	fmt.Printf("%d points (2 rules of d + 1 = 5), weights and zero node sum to %.12f\n", p.Len(), sum)
	// Output: 10 points (2 rules of d + 1 = 5), weights and zero node sum to 1.000000000000
}
